//! A repository controls every byte and file type of its folder, links and FIFOs included. No
//! path in a project, a registry folder or a package folder is followed out of that folder, read
//! when it is not a regular file, or read past a size cap: each attack here is refused before any
//! file changes, fast, and with a message naming the path, what it is and the fix.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::support::{Env, build_registry, package, snapshot};
use crate::txn::{project, registry};

/// Runs `cmd` and returns its output, failing the test when it has not finished after a few
/// seconds (a read that blocks on a FIFO, or a read of an endless device) and killing it.
fn run_bounded(mut cmd: std::process::Command) -> std::process::Output {
    use std::io::Read;
    let mut child = cmd
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn dotpack");
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().expect("wait for dotpack") {
            let mut stdout = Vec::new();
            let mut stderr = Vec::new();
            child.stdout.take().map(|mut s| s.read_to_end(&mut stdout));
            child.stderr.take().map(|mut s| s.read_to_end(&mut stderr));
            return std::process::Output {
                status,
                stdout,
                stderr,
            };
        }
        if start.elapsed() > Duration::from_secs(10) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("dotpack {:?} did not finish within 10 s", cmd.get_args());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// `dotpack ARGS` in `cwd`, bounded in time; returns its exit code and stderr.
fn bounded(env: &Env, cwd: &Path, reg: Option<&Path>, args: &[&str]) -> (Option<i32>, String) {
    let mut cmd = env.process_in(cwd);
    if let Some(reg) = reg {
        cmd.env("DOTPACK_REGISTRY", reg);
    }
    cmd.args(args);
    let out = run_bounded(cmd);
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Fails unless `stderr` holds every one of `parts`.
fn says(stderr: &str, parts: &[&str]) {
    for part in parts {
        assert!(stderr.contains(part), "expected `{part}` in:\n{stderr}");
    }
}

/// A file in HOME, outside the project, that no command may change.
fn precious(env: &Env, name: &str, text: &str) -> PathBuf {
    let path = env.home.path().join(name);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).unwrap();
    }
    std::fs::write(&path, text).unwrap();
    path
}

fn link(target: &Path, at: &Path) {
    if let Some(parent) = at.parent() {
        std::fs::create_dir_all(parent).unwrap();
    }
    std::os::unix::fs::symlink(target, at).unwrap();
}

fn mkfifo(path: &Path) {
    let status = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .expect("run mkfifo");
    assert!(status.success());
}

/// Every file under HOME except the project's and dotpack's own state.
fn outside_project(env: &Env) -> Vec<(PathBuf, Vec<u8>)> {
    snapshot(env.home.path())
        .into_iter()
        .filter(|(p, _)| {
            !p.starts_with(&env.project) && !p.starts_with(env.home.path().join(".dotpack"))
        })
        .collect()
}

// --- import --into --------------------------------------------------------------------------

#[test]
fn import_into_does_not_write_through_a_resources_link_to_the_home_claude_folder() {
    let env = Env::new();
    env.write(
        "dotpack.toml",
        "[project]\nhosts = [\"claude-code\"]\nscope = \"project\"\n",
    );
    env.write(".mcp.json", "{\"mcpServers\": {}}\n");
    env.write(
        ".claude/commands/review.md",
        "---\ndescription: Review\n---\nReview it.\n",
    );
    env.write(
        ".claude/agents/helper.md",
        "---\nname: helper\ndescription: Helps\n---\nHelp.\n",
    );
    precious(&env, ".claude/settings.json", "{}\n");
    link(
        &env.home.path().join(".claude"),
        &env.project.join("resources"),
    );
    let before = outside_project(&env);
    let manifest = env.read("dotpack.toml");
    let (code, stderr) = bounded(
        &env,
        &env.project,
        None,
        &["import", "claude-code", "--into"],
    );
    assert_eq!(code, Some(1), "{stderr}");
    says(&stderr, &["resources", "outside the project", "help:"]);
    assert_eq!(outside_project(&env), before);
    assert!(!env.home.path().join(".claude/commands").exists());
    assert!(!env.home.path().join(".claude/agents").exists());
    assert_eq!(env.read("dotpack.toml"), manifest);
}

// --- registry and package folders -----------------------------------------------------------

fn package_dir(env: &Env, name: &str, version: &str) -> PathBuf {
    let dir = env.home.path().join(format!("src-{name}-{version}"));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("dotpack.toml"), package(name, version, &[])).unwrap();
    dir
}

#[test]
fn publish_does_not_write_through_a_names_file_linked_out_of_the_registry_folder() {
    let env = Env::new();
    let index = build_registry(&env, &[("alpha", &package("alpha", "1.0.0", &[]))]);
    let bashrc = precious(&env, ".bashrc", "export PATH=$HOME/bin:$PATH\n");
    std::fs::remove_file(index.join("names.txt")).unwrap();
    link(&bashrc, &index.join("names.txt"));
    let dir = package_dir(&env, "beta", "1.0.0");
    let before = snapshot(&index);
    let (code, stderr) = bounded(
        &env,
        &dir,
        None,
        &["publish", "--index", index.to_str().unwrap()],
    );
    assert_eq!(code, Some(1), "{stderr}");
    says(
        &stderr,
        &["names.txt", "outside the registry folder", "help:"],
    );
    assert_eq!(
        std::fs::read_to_string(&bashrc).unwrap(),
        "export PATH=$HOME/bin:$PATH\n"
    );
    // Nothing is written when one file is refused (the publish lock file aside).
    let mut after = snapshot(&index);
    after.retain(|(p, _)| !p.ends_with(".dotpack-publish.lock"));
    assert_eq!(after, before);
}

#[test]
fn publish_does_not_read_an_index_file_linked_out_of_the_registry_folder() {
    let env = Env::new();
    let index = build_registry(&env, &[("alpha", &package("alpha", "1.0.0", &[]))]);
    let file = index.join("al/ph/alpha");
    let copy = precious(
        &env,
        "notes/alpha",
        &std::fs::read_to_string(&file).unwrap(),
    );
    let text = std::fs::read(&copy).unwrap();
    std::fs::remove_file(&file).unwrap();
    link(&copy, &file);
    let dir = package_dir(&env, "alpha", "1.1.0");
    let (code, stderr) = bounded(
        &env,
        &dir,
        None,
        &["publish", "--index", index.to_str().unwrap()],
    );
    assert_eq!(code, Some(1), "{stderr}");
    says(&stderr, &["al/ph/alpha", "outside the registry folder"]);
    assert_eq!(std::fs::read(&copy).unwrap(), text);
    assert!(!index.join("dl/alpha/alpha-1.1.0.tar.gz").exists());
}

#[test]
fn yank_does_not_rewrite_an_index_file_linked_out_of_the_registry_folder() {
    let env = Env::new();
    let index = build_registry(&env, &[("alpha", &package("alpha", "1.0.0", &[]))]);
    let file = index.join("al/ph/alpha");
    let copy = precious(
        &env,
        "notes/alpha",
        &std::fs::read_to_string(&file).unwrap(),
    );
    let text = std::fs::read(&copy).unwrap();
    std::fs::remove_file(&file).unwrap();
    link(&copy, &file);
    let (code, stderr) = bounded(
        &env,
        env.home.path(),
        None,
        &["yank", "alpha@1.0.0", "--index", index.to_str().unwrap()],
    );
    assert_eq!(code, Some(1), "{stderr}");
    says(&stderr, &["al/ph/alpha", "outside the registry folder"]);
    assert_eq!(std::fs::read(&copy).unwrap(), text);
}

#[test]
fn registry_build_does_not_write_through_links_out_of_its_output_folder() {
    let env = Env::new();
    let index = build_registry(&env, &[("alpha", &package("alpha", "1.0.0", &[]))]);
    let bashrc = precious(&env, ".bashrc", "alias ll='ls -l'\n");
    std::fs::remove_file(index.join("names.txt")).unwrap();
    link(&bashrc, &index.join("names.txt"));
    let src = env.home.path().join("registry-src");
    std::fs::create_dir_all(src.join("beta")).unwrap();
    std::fs::write(src.join("beta/dotpack.toml"), package("beta", "1.0.0", &[])).unwrap();
    let (code, stderr) = bounded(
        &env,
        env.home.path(),
        None,
        &[
            "registry",
            "build",
            src.to_str().unwrap(),
            "--out",
            index.to_str().unwrap(),
        ],
    );
    assert_eq!(code, Some(1), "{stderr}");
    says(&stderr, &["names.txt", "outside the registry folder"]);
    assert_eq!(
        std::fs::read_to_string(&bashrc).unwrap(),
        "alias ll='ls -l'\n"
    );
    assert!(!index.join("be/ta/beta").exists());

    // An index file read from the folder is not followed out either.
    std::fs::remove_file(index.join("names.txt")).unwrap();
    let file = index.join("al/ph/alpha");
    let copy = precious(
        &env,
        "notes/alpha",
        &std::fs::read_to_string(&file).unwrap(),
    );
    std::fs::remove_file(&file).unwrap();
    link(&copy, &file);
    let (code, stderr) = bounded(
        &env,
        env.home.path(),
        None,
        &[
            "registry",
            "build",
            src.to_str().unwrap(),
            "--out",
            index.to_str().unwrap(),
        ],
    );
    assert_eq!(code, Some(1), "{stderr}");
    says(&stderr, &["al/ph/alpha", "outside the registry folder"]);
}

#[test]
fn package_does_not_write_its_archive_through_a_link_out_of_the_package_folder() {
    let env = Env::new();
    let dir = package_dir(&env, "gamma", "1.0.0");
    let bashrc = precious(&env, ".bashrc", "# mine\n");
    link(&bashrc, &dir.join(".dotpack-package/gamma-1.0.0.tar.gz"));
    let (code, stderr) = bounded(&env, &dir, None, &["package"]);
    assert_eq!(code, Some(1), "{stderr}");
    says(
        &stderr,
        &["gamma-1.0.0.tar.gz", "outside the package folder"],
    );
    assert_eq!(std::fs::read_to_string(&bashrc).unwrap(), "# mine\n");

    // Nor into a folder that links out.
    std::fs::remove_dir_all(dir.join(".dotpack-package")).unwrap();
    let elsewhere = env.home.path().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    link(&elsewhere, &dir.join(".dotpack-package"));
    let (code, stderr) = bounded(&env, &dir, None, &["package"]);
    assert_eq!(code, Some(1), "{stderr}");
    says(&stderr, &["outside the package folder"]);
    assert_eq!(std::fs::read_dir(&elsewhere).unwrap().count(), 0);
}

// --- project files --------------------------------------------------------------------------

#[test]
fn init_does_not_append_to_a_gitignore_linked_out_of_the_project() {
    let env = Env::new();
    let bashrc = precious(&env, ".bashrc", "export EDITOR=vi\n");
    link(&bashrc, &env.project.join(".gitignore"));
    let (code, stderr) = bounded(&env, &env.project, None, &["init"]);
    assert_eq!(code, Some(1), "{stderr}");
    says(&stderr, &[".gitignore", "outside the project", "help:"]);
    assert_eq!(
        std::fs::read_to_string(&bashrc).unwrap(),
        "export EDITOR=vi\n"
    );
    assert!(!env.project.join("dotpack.toml").exists());
}

#[test]
fn init_does_not_create_a_manifest_through_a_link_out_of_the_project() {
    let env = Env::new();
    let target = env.home.path().join("elsewhere/dotpack.toml");
    link(&target, &env.project.join("dotpack.toml"));
    let (code, stderr) = bounded(&env, &env.project, None, &["init"]);
    assert_eq!(code, Some(1), "{stderr}");
    says(&stderr, &["dotpack.toml", "outside the project"]);
    assert!(!target.exists());
    assert!(!env.home.path().join("elsewhere").exists());
}

#[test]
fn add_does_not_read_or_write_a_manifest_linked_out_of_the_project() {
    let env = Env::new();
    let reg = registry(&env);
    let elsewhere = precious(
        &env,
        "elsewhere/dotpack.toml",
        "[project]\nhosts = [\"claude-code\"]\n[dependencies]\n",
    );
    link(&elsewhere, &env.project.join("dotpack.toml"));
    let before = outside_project(&env);
    let (code, stderr) = bounded(&env, &env.project, Some(&reg), &["add", "p0"]);
    assert_eq!(code, Some(1), "{stderr}");
    says(&stderr, &["dotpack.toml", "outside the project", "help:"]);
    assert_eq!(outside_project(&env), before);
}

#[test]
fn add_does_not_write_a_lock_linked_out_of_the_project() {
    let env = Env::new();
    let reg = registry(&env);
    project(&env, "[\"claude-code\"]", "");
    let lock = precious(&env, "elsewhere/dotpack.lock", "");
    link(&lock, &env.project.join("dotpack.lock"));
    let before = outside_project(&env);
    let (code, stderr) = bounded(&env, &env.project, Some(&reg), &["add", "p0"]);
    assert_eq!(code, Some(1), "{stderr}");
    says(&stderr, &["dotpack.lock", "outside the project"]);
    assert_eq!(outside_project(&env), before);
    assert!(!env.project.join(".mcp.json").exists());
}

#[test]
fn a_link_inside_the_project_is_still_followed() {
    let env = Env::new();
    let reg = registry(&env);
    project(&env, "[\"claude-code\"]", "");
    env.write("config/mcp.json", "{\"mcpServers\": {}}\n");
    link(Path::new("config/mcp.json"), &env.project.join(".mcp.json"));
    let (code, stderr) = bounded(&env, &env.project, Some(&reg), &["add", "p0"]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(env.read("config/mcp.json").contains("p0"));
    assert!(
        env.project
            .join(".mcp.json")
            .symlink_metadata()
            .unwrap()
            .file_type()
            .is_symlink()
    );
}

#[test]
fn the_users_own_files_may_be_links_into_a_dotfiles_folder() {
    let env = Env::new();
    let reg = registry(&env);
    let dotfiles = env.home.path().join("dotfiles");
    let claude = precious(&env, "dotfiles/claude.json", "{}\n");
    link(&claude, &env.home.path().join(".claude.json"));
    let manifest = precious(
        &env,
        "dotfiles/dotpack.toml",
        "[project]\nhosts = [\"claude-code\"]\n\n[dependencies]\n",
    );
    link(&manifest, &env.home.path().join(".dotpack/dotpack.toml"));
    for args in [&["--global", "add", "p0"][..], &["--global", "add", "p1"]] {
        let (code, stderr) = bounded(&env, &env.project, Some(&reg), args);
        assert_eq!(code, Some(0), "{args:?}: {stderr}");
    }
    let text = std::fs::read_to_string(&claude).unwrap();
    assert!(text.contains("p0") && text.contains("p1"), "{text}");
    assert!(std::fs::read_to_string(&manifest).unwrap().contains("p1"));
    let (code, stderr) = bounded(&env, &env.project, Some(&reg), &["--global", "rollback"]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(!std::fs::read_to_string(&claude).unwrap().contains("p1"));
    assert!(!std::fs::read_to_string(&manifest).unwrap().contains("p1"));
    for link in [".claude.json", ".dotpack/dotpack.toml"] {
        let meta = env.home.path().join(link).symlink_metadata().unwrap();
        assert!(meta.file_type().is_symlink(), "{link}");
    }
    assert!(dotfiles.join("claude.json").is_file());
}

#[test]
fn a_state_folder_linked_to_dotpack_home_is_not_trusted_so_rollback_leaves_the_global_manifest() {
    let env = Env::new();
    let reg = registry(&env);
    for name in ["p0", "p1"] {
        let (code, stderr) = bounded(&env, &env.project, Some(&reg), &["--global", "add", name]);
        assert_eq!(code, Some(0), "{stderr}");
    }
    let home = env.home.path().join(".dotpack");
    let global = std::fs::read(home.join("dotpack.toml")).unwrap();
    project(&env, "[\"claude-code\"]", "");
    link(&home, &env.project.join(".dotpack"));
    let (code, stderr) = bounded(&env, &env.project, Some(&reg), &["rollback"]);
    assert_eq!(code, Some(1), "{stderr}");
    says(&stderr, &[".dotpack", "symbolic link", "doctor --repair"]);
    assert_eq!(std::fs::read(home.join("dotpack.toml")).unwrap(), global);
    // Reading commands go on without it, and doctor --repair moves the link aside.
    let (code, stderr) = bounded(&env, &env.project, Some(&reg), &["history"]);
    assert_eq!(code, Some(0), "{stderr}");
    says(&stderr, &["ignoring the state folder"]);
    let (code, stderr) = bounded(&env, &env.project, Some(&reg), &["doctor", "--repair"]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(!env.project.join(".dotpack").exists());
    assert!(home.join("dotpack.toml").is_file());
}

// --- FIFOs, devices and huge files ----------------------------------------------------------

/// A project with `p0` installed into `.mcp.json`, so every command reads the file.
fn installed(env: &Env, reg: &Path) {
    project(env, "[\"claude-code\"]", "");
    let (code, stderr) = bounded(env, &env.project, Some(reg), &["add", "p0"]);
    assert_eq!(code, Some(0), "{stderr}");
}

#[test]
fn a_host_file_that_is_a_fifo_fails_fast_with_a_clear_error() {
    let env = Env::new();
    let reg = registry(&env);
    installed(&env, &reg);
    let lock = env.read("dotpack.lock");
    std::fs::remove_file(env.project.join(".mcp.json")).unwrap();
    mkfifo(&env.project.join(".mcp.json"));
    for args in [&["status"][..], &["install"], &["add", "p1"], &["list"]] {
        let (code, stderr) = bounded(&env, &env.project, Some(&reg), args);
        assert_eq!(code, Some(1), "{args:?}: {stderr}");
        says(&stderr, &[".mcp.json", "FIFO", "help:"]);
    }
    assert_eq!(env.read("dotpack.lock"), lock);
}

#[test]
fn a_host_file_linked_to_dev_zero_is_refused_without_reading_it() {
    let env = Env::new();
    let reg = registry(&env);
    installed(&env, &reg);
    std::fs::remove_file(env.project.join(".mcp.json")).unwrap();
    link(Path::new("/dev/zero"), &env.project.join(".mcp.json"));
    for args in [&["status"][..], &["install"]] {
        let (code, stderr) = bounded(&env, &env.project, Some(&reg), args);
        assert_eq!(code, Some(1), "{args:?}: {stderr}");
        says(&stderr, &[".mcp.json", "/dev/zero", "outside the project"]);
    }
    // Allowed out of the project, it is still not a file.
    let (code, stderr) = bounded(
        &env,
        &env.project,
        Some(&reg),
        &["install", "--write-outside-project"],
    );
    assert_eq!(code, Some(1), "{stderr}");
    says(&stderr, &["/dev/zero", "device"]);
}

#[test]
fn a_manifest_or_lock_that_is_a_fifo_fails_fast() {
    let env = Env::new();
    let reg = registry(&env);
    mkfifo(&env.project.join("dotpack.toml"));
    let (code, stderr) = bounded(&env, &env.project, Some(&reg), &["status"]);
    assert_eq!(code, Some(1), "{stderr}");
    says(&stderr, &["dotpack.toml", "FIFO"]);

    std::fs::remove_file(env.project.join("dotpack.toml")).unwrap();
    project(&env, "[\"claude-code\"]", "");
    mkfifo(&env.project.join("dotpack.lock"));
    for args in [&["status"][..], &["install"]] {
        let (code, stderr) = bounded(&env, &env.project, Some(&reg), args);
        assert_eq!(code, Some(1), "{args:?}: {stderr}");
        says(&stderr, &["dotpack.lock", "FIFO"]);
    }
}

#[test]
fn a_huge_manifest_or_lock_is_refused_by_its_size() {
    let env = Env::new();
    let reg = registry(&env);
    let manifest = std::fs::File::create(env.project.join("dotpack.toml")).unwrap();
    manifest.set_len(1 << 30).unwrap();
    let (code, stderr) = bounded(&env, &env.project, Some(&reg), &["status"]);
    assert_eq!(code, Some(1), "{stderr}");
    says(&stderr, &["dotpack.toml", "larger than"]);

    drop(manifest);
    std::fs::remove_file(env.project.join("dotpack.toml")).unwrap();
    project(&env, "[\"claude-code\"]", "");
    let lock = std::fs::File::create(env.project.join("dotpack.lock")).unwrap();
    lock.set_len(1 << 30).unwrap();
    let (code, stderr) = bounded(&env, &env.project, Some(&reg), &["install"]);
    assert_eq!(code, Some(1), "{stderr}");
    says(&stderr, &["dotpack.lock", "larger than"]);
}
