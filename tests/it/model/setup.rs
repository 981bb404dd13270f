//! What every case shares: the test registry, fast temporary folders, running `dotpack`, and
//! the coverage counts.

use std::collections::BTreeMap;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::{Mutex, OnceLock};

/// A secret: given to `--set` (always refused) and set as `VAULT_TOKEN` in every command's
/// environment; it must never reach a file.
pub const SECRET: &str = "SECRETVALUE123";

/// The test registry, built once per test process by the real `dotpack registry build`, in a
/// folder named after its contents (so concurrent test processes agree on it).
pub fn registry() -> &'static Path {
    static REGISTRY: OnceLock<PathBuf> = OnceLock::new();
    REGISTRY.get_or_init(|| {
        let manifests = manifests();
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        manifests.hash(&mut hasher);
        let base = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
        let out = base.join(format!("model-registry-{:016x}", hasher.finish()));
        if out.is_dir() {
            return out;
        }
        let work = tempfile::tempdir_in(&base).expect("temp dir");
        for (name, text) in &manifests {
            let dir = work.path().join("src").join(name);
            std::fs::create_dir_all(&dir).expect("package folder");
            std::fs::write(dir.join("dotpack.toml"), text).expect("package manifest");
        }
        let built = work.path().join("index");
        let status = std::process::Command::new(assert_cmd::cargo::cargo_bin("dotpack"))
            .current_dir(work.path())
            .env("HOME", work.path())
            .env("DOTPACK_HOME", work.path().join(".dotpack"))
            .args(["registry", "build", "src", "--out", "index"])
            .output()
            .expect("run dotpack registry build");
        assert!(
            status.status.success(),
            "{}",
            String::from_utf8_lossy(&status.stderr)
        );
        // Another process may have won the race: its registry has the same bytes.
        let _ = std::fs::rename(&built, &out);
        out
    })
}

pub fn manifests() -> Vec<(String, String)> {
    let stdio = |server: &str| {
        format!(
            "\n[servers.{server}]\ncommand = \"npx\"\nargs = [\"-y\", \"{server}-mcp@1.0.0\"]\n"
        )
    };
    let head = |name: &str, what: &str| {
        format!("[package]\nname = \"{name}\"\nversion = \"1.0.0\"\ndescription = \"{what}\"\n")
    };
    vec![
        (
            "alpha".into(),
            head("alpha", "A plain server") + &stdio("alpha"),
        ),
        (
            "beta".into(),
            head("beta", "A plain server") + &stdio("beta"),
        ),
        (
            "duo".into(),
            head("duo", "Two servers") + &stdio("duo-read") + &stdio("duo-write"),
        ),
        (
            "bundle".into(),
            head("bundle", "A bundle") + &stdio("bundle") + "\n[dependencies]\nbeta = \"^1.0\"\n",
        ),
        (
            "tuned".into(),
            head("tuned", "A required input with a default")
                + "\n[inputs.port]\ndescription = \"Port\"\ndefault = \"3845\"\nrequired = true\n\n[servers.tuned]\nurl = \"http://127.0.0.1:{{props.port}}/mcp\"\n",
        ),
        (
            "vault".into(),
            head("vault", "A required secret")
                + "\n[inputs.token]\ndescription = \"Token\"\nsecret = true\nrequired = true\n\n[servers.vault]\ncommand = \"npx\"\nargs = [\"-y\", \"vault-mcp@1.0.0\"]\nenv = { VAULT_TOKEN = \"{{env.VAULT_TOKEN}}\" }\n",
        ),
    ]
}

/// A temporary folder, in memory where the machine has one (commands fsync every write).
pub fn fast_tempdir() -> tempfile::TempDir {
    let shm = Path::new("/dev/shm");
    if shm.is_dir()
        && let Ok(dir) = tempfile::Builder::new()
            .prefix("dotpack-model")
            .tempdir_in(shm)
    {
        return dir;
    }
    tempfile::tempdir().expect("temp dir")
}

/// `dotpack ARGS` in `cwd`, with `home` as HOME and `home/.dotpack` as `$DOTPACK_HOME`.
pub fn dotpack(home: &Path, cwd: &Path, args: &[String]) -> Output {
    RUNS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    std::process::Command::new(assert_cmd::cargo::cargo_bin("dotpack"))
        .current_dir(cwd)
        .args(args)
        .env("HOME", home)
        .env("DOTPACK_HOME", home.join(".dotpack"))
        .env("DOTPACK_FSYNC", "0")
        .env("DOTPACK_REGISTRY", registry())
        .env("VAULT_TOKEN", SECRET)
        .env("NO_COLOR", "1")
        .env_remove("CODEX_HOME")
        .env_remove("CLAUDE_CONFIG_DIR")
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("DOTPACK_ALLOW_REDIRECTS")
        .output()
        .expect("run dotpack")
}

pub fn describe(args: &[String], out: &Output) -> String {
    format!(
        "`dotpack {}` exited {:?}\n--- stdout\n{}--- stderr\n{}",
        args.join(" "),
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// How many processes the test ran, for the summary.
pub static RUNS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
/// How often each kind of step ended each way, and how often situations worth reaching were
/// reached, for the summary (`--nocapture` shows it).
pub static COVERAGE: Mutex<BTreeMap<String, usize>> = Mutex::new(BTreeMap::new());

pub fn count(what: impl Into<String>) {
    *COVERAGE
        .lock()
        .expect("coverage")
        .entry(what.into())
        .or_default() += 1;
}
