//! Snapshots of the human output of every command, as a person reads it in a terminal (no
//! colour): one snapshot per command, each a transcript of the command lines run, their exit
//! codes and what they printed on stdout and stderr. The temporary HOME, timestamps, durations
//! and dotpack's version are redacted (`support::redact`), so the snapshots are the same on
//! every machine.

use std::path::{Path, PathBuf};

use crate::fake_mcp::stdio_script;
use crate::support::{Env, build_registry, package, transcript, transcript_of};

const HOSTS: &str = "[project]\nhosts = [\"claude-code\", \"codex\"]\n\n[dependencies]\n";

/// Runs `dotpack ARGS` and fails the test unless it succeeds.
fn ok(env: &Env, args: &[&str]) {
    let out = env.dotpack().args(args).output().unwrap();
    assert!(
        out.status.success(),
        "dotpack {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The transcripts of `steps`, run one after the other, as one snapshot named `name`. Every
/// step must print something: a snapshot of nothing shows nothing.
#[track_caller]
fn snap(name: &str, env: &Env, steps: &[&[&str]]) {
    let text = steps
        .iter()
        .map(|args| transcript(env, args))
        .inspect(|t| assert!(t.contains("\n--- "), "{name}: prints nothing:\n{t}"))
        .collect::<Vec<_>>()
        .join("\n");
    insta::assert_snapshot!(name, text);
}

/// A project targeting claude-code and codex, with `time` and `fetch` from the built-in
/// registry added and installed.
fn installed() -> Env {
    let env = Env::new();
    env.write("dotpack.toml", HOSTS);
    ok(&env, &["add", "time", "fetch"]);
    env
}

/// A project declaring `time` for claude-code, locked but not installed.
fn locked() -> Env {
    let env = Env::new();
    env.write(
        "dotpack.toml",
        "[project]\nhosts = [\"claude-code\"]\n\n[dependencies]\ntime = \"^1.0\"\n",
    );
    ok(&env, &["lock"]);
    env
}

#[test]
fn init() {
    let env = Env::new();
    std::fs::create_dir_all(env.project.join(".cursor")).unwrap();
    snap("init", &env, &[&["init", "--dry-run"], &["init"]]);
}

#[test]
fn add() {
    let env = Env::new();
    env.write("dotpack.toml", HOSTS);
    snap(
        "add",
        &env,
        &[&["add", "time"], &["add", "fetch", "--dry-run"]],
    );
}

#[test]
fn install() {
    let env = locked();
    snap("install", &env, &[&["install"], &["install"]]);
}

#[test]
fn install_dry_run() {
    let env = locked();
    snap("install_dry_run", &env, &[&["install", "--dry-run"]]);
}

#[test]
fn status() {
    let env = installed();
    let clean = transcript(&env, &["status"]);
    std::fs::remove_file(env.project.join(".codex/config.toml")).unwrap();
    let edited = env.read(".mcp.json").replace("mcp-server-time", "my-time");
    env.write(".mcp.json", &edited);
    let broken = transcript(&env, &["status"]);
    insta::assert_snapshot!("status", format!("{clean}\n{broken}"));
}

#[test]
fn list() {
    let env = installed();
    snap("list", &env, &[&["list"]]);
}

#[test]
fn tree_why_and_outdated() {
    let env = installed();
    snap(
        "tree_why_outdated",
        &env,
        &[&["tree"], &["why", "time"], &["outdated"]],
    );
}

/// A registry with `tool` 1.0.0, a project locked at it, and a registry adding 1.1.0 and 2.0.0.
fn with_newer_tool(env: &Env) -> PathBuf {
    let old = build_registry(env, &[("tool", &package("tool", "1.0.0", &[]))]);
    env.write(
        "dotpack.toml",
        "[project]\nhosts = [\"claude-code\"]\n\n[dependencies]\n",
    );
    env.with_registry(&old, &["add", "tool"]).assert().success();
    std::fs::remove_dir_all(&old).unwrap();
    std::fs::remove_dir_all(env.home.path().join("registry-src")).unwrap();
    build_registry(
        env,
        &[
            ("tool-1.0.0", &package("tool", "1.0.0", &[])),
            ("tool-1.1.0", &package("tool", "1.1.0", &[])),
            ("tool-2.0.0", &package("tool", "2.0.0", &[])),
        ],
    )
}

fn with_registry(env: &Env, reg: &Path, args: &[&str]) -> String {
    let out = env.with_registry(reg, args).output().unwrap();
    transcript_of(env, args, &out)
}

#[test]
fn update() {
    let env = Env::new();
    let reg = with_newer_tool(&env);
    let steps = [
        with_registry(&env, &reg, &["outdated"]),
        with_registry(&env, &reg, &["update", "--dry-run"]),
        with_registry(&env, &reg, &["update"]),
        with_registry(&env, &reg, &["update"]),
    ];
    insta::assert_snapshot!("update", steps.join("\n"));
}

#[test]
fn remove() {
    let env = installed();
    snap("remove", &env, &[&["remove", "fetch"]]);
}

#[test]
fn uninstall() {
    let env = installed();
    snap(
        "uninstall",
        &env,
        &[&["uninstall", "time", "--host", "codex"], &["uninstall"]],
    );
}

#[test]
fn history_and_rollback() {
    let env = installed();
    ok(&env, &["remove", "fetch"]);
    snap(
        "history_rollback",
        &env,
        &[
            &["history"],
            &["rollback", "--dry-run"],
            &["rollback"],
            &["history"],
        ],
    );
}

#[test]
fn doctor() {
    let env = installed();
    // A PATH of this test's own: uvx (which `time` and `fetch` start with) and Claude Code are
    // installed, Codex is not.
    let bin = env.path_with(&["uvx", "claude"]);
    let out = env
        .dotpack()
        .env("PATH", &bin)
        .arg("doctor")
        .output()
        .unwrap();
    insta::assert_snapshot!("doctor", transcript_of(&env, &["doctor"], &out));
}

#[test]
fn validate() {
    let env = installed();
    let good = transcript(&env, &["validate"]);
    env.write(
        "dotpack.toml",
        "[project]\nhosts = [\"claude-code\", \"nohost\"]\n\n[dependencies]\ntime = \"^1.0\"\n\n[servers.both]\ncommand = \"x\"\nurl = \"https://example.invalid/mcp\"\n",
    );
    let bad = transcript(&env, &["validate"]);
    insta::assert_snapshot!("validate", format!("{good}\n{bad}"));
}

#[test]
fn lock() {
    let env = Env::new();
    env.write(
        "dotpack.toml",
        "[project]\nhosts = [\"claude-code\"]\n\n[dependencies]\ntime = \"^1.0\"\nfetch = \"^1.0\"\n",
    );
    snap(
        "lock",
        &env,
        &[&["lock", "--dry-run"], &["lock"], &["lock", "--locked"]],
    );
}

#[test]
fn search_and_info() {
    let env = Env::new();
    snap(
        "search_info",
        &env,
        &[&["search", "time"], &["info", "time"], &["info", "github"]],
    );
}

#[test]
fn hosts() {
    let env = installed();
    snap("hosts", &env, &[&["hosts"]]);
}

#[test]
fn import() {
    let env = Env::new();
    env.write(
        ".mcp.json",
        "{\n  \"mcpServers\": {\n    \"mine\": {\"command\": \"npx\", \"args\": [\"-y\", \"mine-mcp\"], \"env\": {\"TOKEN\": \"${TOKEN}\"}},\n    \"remote\": {\"type\": \"http\", \"url\": \"https://example.invalid/mcp\", \"headers\": {\"Authorization\": \"Bearer ${API_TOKEN}\"}}\n  }\n}\n",
    );
    let printed = transcript(&env, &["import", "claude-code"]);
    ok(&env, &["init"]);
    let into = transcript(&env, &["import", "claude-code", "--into"]);
    insta::assert_snapshot!("import", format!("{printed}\n{into}"));
}

#[test]
fn adopt_and_gc() {
    let env = Env::new();
    env.write(
        "dotpack.toml",
        "[project]\nhosts = [\"claude-code\"]\n\n[dependencies]\ntime = \"^1.0\"\n",
    );
    env.write(
        ".mcp.json",
        "{\"mcpServers\": {\"time\": {\"command\": \"uvx\", \"args\": [\"mcp-server-time\"]}}}\n",
    );
    snap(
        "adopt_gc",
        &env,
        &[&["lock"], &["adopt", "time"], &["install"], &["gc"]],
    );
}

#[test]
fn trust() {
    let env = installed();
    snap(
        "trust",
        &env,
        &[
            &["trust", "--show"],
            &["trust"],
            &["trust", "--show"],
            &["trust", "--revoke"],
        ],
    );
}

#[test]
fn version() {
    let env = Env::new();
    snap("version", &env, &[&["--version"]]);
}

/// A project with one server of its own, a `sh` script that answers as an MCP server.
fn fake_server(env: &Env) {
    env.write(
        "server.sh",
        &stdio_script(
            "",
            r#"{"name":"fake","version":"1.2.3"}"#,
            r#""Tools for tests""#,
            r#"[{"name":"echo","description":"Echo the text","inputSchema":{"type":"object","properties":{"text":{"type":"string"}}}},{"name":"add","description":"Add two numbers"}]"#,
            r#"{"content":[{"type":"text","text":"hello"}]}"#,
        ),
    );
    env.write(
        "dotpack.toml",
        "[project]\nhosts = [\"claude-code\"]\n\n[servers.fake]\ncommand = \"sh\"\nargs = [\"server.sh\"]\n\n[dependencies]\n",
    );
}

#[test]
fn probe_call_and_verify() {
    let env = Env::new();
    fake_server(&env);
    snap(
        "probe_call_verify",
        &env,
        &[
            &["--trust", "probe", "fake"],
            &[
                "--trust",
                "call",
                "fake",
                "echo",
                "--args",
                "{\"text\": \"hello\"}",
            ],
            &["--trust", "lock", "--pin-tools"],
            &["--trust", "verify"],
        ],
    );
}

#[test]
fn package_and_publish() {
    let env = Env::new();
    let dir = env.home.path().join("pkg");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("dotpack.toml"), package("tool", "1.0.0", &[])).unwrap();
    let index = env.home.path().join("index");
    let index = index.to_str().unwrap();
    let run = |args: &[&str]| {
        let out = env.dotpack_in(&dir).args(args).output().unwrap();
        transcript_of(&env, args, &out)
    };
    let src = env.home.path().join("src");
    std::fs::create_dir_all(src.join("tool")).unwrap();
    std::fs::write(src.join("tool/dotpack.toml"), package("tool", "1.0.0", &[])).unwrap();
    let built = env.home.path().join("built");
    let steps = [
        run(&[
            "registry",
            "build",
            src.to_str().unwrap(),
            "--out",
            built.to_str().unwrap(),
        ]),
        run(&["package"]),
        run(&["publish", "--index", index]),
        run(&["yank", "tool@1.0.0", "--index", index]),
    ];
    insta::assert_snapshot!("registry_package_publish_yank", steps.join("\n"));
}

#[test]
fn the_user_level_manifest() {
    let env = Env::new();
    snap(
        "global",
        &env,
        &[
            &["-g", "init"],
            &["-g", "add", "time", "--host", "claude-code"],
            &["-g", "list"],
            &["-g", "remove", "time"],
        ],
    );
}
