//! Installing into each of the five hosts: files created, hand-written entries and unrelated
//! settings kept byte for byte, collisions refused, `--force`, removal, lossy gating, and a
//! teammate's clone installing from the committed lock.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use predicates::prelude::*;
use predicates::str::contains;

use crate::support::{Env, build_registry, snapshot};

/// One host: its id, its project file, its container key, and a hand-written file with a
/// sibling entry `mine` and unrelated settings, in the host's own format.
struct Host {
    id: &'static str,
    file: &'static str,
    container: &'static str,
    fixture: &'static str,
}

const HOSTS: &[Host] = &[
    Host {
        id: "claude-code",
        file: ".mcp.json",
        container: "mcpServers",
        fixture: "{\n  \"mcpServers\": {\n    \"mine\": {\n      \"command\": \"node\",\n      \"args\": [\"server.js\"]\n    }\n  },\n  \"other\": 1.0\n}\n",
    },
    Host {
        id: "codex",
        file: ".codex/config.toml",
        container: "mcp_servers",
        fixture: "# my codex config\nmodel = \"o3\"\n\n[mcp_servers.mine]\ncommand = \"node\"\nargs = [\"server.js\"]\n\n[profiles.fast]\nmodel = \"o4-mini\"\n",
    },
    Host {
        id: "gemini-cli",
        file: ".gemini/settings.json",
        container: "mcpServers",
        fixture: "{\n  // my theme\n  \"theme\": \"Dracula\",\n  \"mcpServers\": {\n    \"mine\": { \"command\": \"node\", \"args\": [\"server.js\"] }, // hand-written\n  },\n}\n",
    },
    Host {
        id: "cursor",
        file: ".cursor/mcp.json",
        container: "mcpServers",
        fixture: "{\r\n\t\"mcpServers\": {\r\n\t\t\"mine\": {\r\n\t\t\t\"command\": \"node\",\r\n\t\t\t\"args\": [\"server.js\"]\r\n\t\t}\r\n\t}\r\n}",
    },
    Host {
        id: "vscode",
        file: ".vscode/mcp.json",
        container: "servers",
        fixture: "{\n\t\"inputs\": [],\n\t// my servers\n\t\"servers\": {\n\t\t\"mine\": {\n\t\t\t\"type\": \"stdio\",\n\t\t\t\"command\": \"node\",\n\t\t\t\"args\": [\"server.js\"]\n\t\t}\n\t}\n}\n",
    },
];

/// A registry with `alpha` (plain stdio), `beta` (a `cwd`, lossy on some hosts) and `gamma`
/// (an `enabled_tools` allow list: security-relevant).
fn registry(env: &Env) -> PathBuf {
    build_registry(
        env,
        &[
            (
                "alpha",
                "[package]\nname = \"alpha\"\nversion = \"1.0.0\"\n\n[servers.alpha]\ncommand = \"npx\"\nargs = [\"-y\", \"alpha-mcp\"]\nenv = { ALPHA_TOKEN = \"{{env.ALPHA_TOKEN}}\" }\n",
            ),
            (
                "beta",
                "[package]\nname = \"beta\"\nversion = \"1.0.0\"\n\n[servers.beta]\ncommand = \"beta-mcp\"\nargs = []\ncwd = \"/srv/beta\"\n",
            ),
            (
                "gamma",
                "[package]\nname = \"gamma\"\nversion = \"1.0.0\"\n\n[servers.gamma]\nurl = \"https://gamma.example/mcp\"\nenabled_tools = [\"read\"]\n",
            ),
        ],
    )
}

fn project(env: &Env, host: &Host) {
    env.write(
        "dotpack.toml",
        &format!("[project]\nhosts = [\"{}\"]\n\n[dependencies]\n", host.id),
    );
}

fn dp(env: &Env, reg: &Path, args: &[&str]) -> assert_cmd::assert::Assert {
    env.with_registry(reg, args).assert()
}

#[test]
fn fresh_install_creates_the_file_in_the_hosts_shape() {
    for host in HOSTS {
        let env = Env::new();
        let reg = registry(&env);
        project(&env, host);
        dp(&env, &reg, &["add", "alpha"])
            .success()
            .stderr(contains(host.file));
        let text = env.read(host.file);
        assert!(text.contains("alpha-mcp"), "{}: {text}", host.id);
        assert!(text.contains(host.container), "{}: {text}", host.id);
        assert!(
            !text.contains("{{env."),
            "{}: env reference not rendered: {text}",
            host.id
        );
        let lock = env.read("dotpack.lock");
        assert!(
            lock.contains("[[claim]]") && lock.contains(host.file),
            "{lock}"
        );
        dp(&env, &reg, &["list"])
            .success()
            .stdout(contains("alpha").and(contains("installed")));
        // Removing the only entry takes back the file dotpack created.
        dp(&env, &reg, &["remove", "alpha"]).success();
        assert!(!env.project.join(host.file).exists(), "{}", host.id);
    }
}

#[test]
fn hand_written_entries_and_settings_survive_install_and_uninstall() {
    for host in HOSTS {
        let env = Env::new();
        let reg = registry(&env);
        project(&env, host);
        env.write(host.file, host.fixture);
        dp(&env, &reg, &["add", "alpha"]).success();
        let text = env.read(host.file);
        assert!(
            text.contains("alpha-mcp") && text.contains("server.js"),
            "{}: {text}",
            host.id
        );
        dp(&env, &reg, &["uninstall"]).success();
        assert_eq!(env.read(host.file), host.fixture, "{}", host.id);
        dp(&env, &reg, &["install"]).success();
        dp(&env, &reg, &["remove", "alpha"]).success();
        assert_eq!(env.read(host.file), host.fixture, "{}", host.id);
    }
}

#[test]
fn an_unclaimed_entry_with_the_same_name_is_refused_until_forced() {
    for host in HOSTS {
        let env = Env::new();
        let reg = registry(&env);
        project(&env, host);
        let fixture = host.fixture.replace("mine", "alpha");
        env.write(host.file, &fixture);
        let before = snapshot(&env.project);
        dp(&env, &reg, &["add", "alpha"]).code(1).stderr(
            contains(format!("{}#{}.alpha", host.file, host.container))
                .and(contains("--force"))
                .and(contains("dotpack adopt alpha")),
        );
        assert_eq!(snapshot(&env.project), before, "{}", host.id);
        dp(&env, &reg, &["add", "alpha", "--force"]).success();
        let text = env.read(host.file);
        assert!(
            text.contains("alpha-mcp") && !text.contains("server.js"),
            "{}: {text}",
            host.id
        );
    }
}

#[test]
fn uninstall_after_a_manual_removal_leaves_bytes_and_mode() {
    for host in HOSTS {
        let env = Env::new();
        let reg = registry(&env);
        project(&env, host);
        env.write(host.file, host.fixture);
        dp(&env, &reg, &["add", "alpha"]).success();
        // The user deletes the entry by hand and tightens the mode.
        let path = env.project.join(host.file);
        std::fs::write(&path, host.fixture).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o640)).unwrap();
        dp(&env, &reg, &["uninstall"]).success();
        assert_eq!(env.read(host.file), host.fixture, "{}", host.id);
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o640, "{}", host.id);
        assert!(
            !env.read("dotpack.lock").contains("[[claim]]"),
            "{}",
            host.id
        );
    }
}

#[test]
fn a_lossy_field_refuses_without_the_flag_and_is_recorded_with_it() {
    for host in HOSTS {
        let env = Env::new();
        let reg = registry(&env);
        project(&env, host);
        let supports_cwd = matches!(host.id, "codex" | "gemini-cli");
        if supports_cwd {
            dp(&env, &reg, &["add", "beta"]).success();
            assert!(env.read(host.file).contains("/srv/beta"), "{}", host.id);
            continue;
        }
        let before = snapshot(&env.project);
        dp(&env, &reg, &["add", "beta"]).code(1).stderr(
            contains("`cwd`")
                .and(contains("--allow-lossy"))
                .and(contains("codex")),
        );
        assert_eq!(snapshot(&env.project), before, "{}", host.id);
        dp(&env, &reg, &["add", "beta", "--allow-lossy"])
            .success()
            .stderr(contains("dropped cwd"));
        assert!(!env.read(host.file).contains("/srv/beta"));
        assert!(
            env.read("dotpack.lock").contains("dropped = [\"cwd\"]"),
            "{}",
            host.id
        );
        // The choice is recorded on the dependency: the next command agrees without the flag.
        assert!(
            env.read("dotpack.toml")
                .contains("beta = { version = \"^1.0\", allow_lossy = [\"cwd\"] }"),
            "{}: {}",
            host.id,
            env.read("dotpack.toml")
        );
    }
}

#[test]
fn a_security_field_is_dropped_only_when_named() {
    for host in HOSTS {
        let env = Env::new();
        let reg = registry(&env);
        project(&env, host);
        if matches!(host.id, "codex" | "gemini-cli") {
            // Codex has `enabled_tools`; Gemini the same concept as `includeTools`.
            dp(&env, &reg, &["add", "gamma"]).success();
            let text = env.read(host.file);
            assert!(
                text.contains("enabled_tools") || text.contains("includeTools"),
                "{}: {text}",
                host.id
            );
            continue;
        }
        dp(&env, &reg, &["add", "gamma", "--allow-lossy"])
            .code(1)
            .stderr(contains("security-relevant").and(contains("--allow-lossy=enabled_tools")));
        dp(&env, &reg, &["add", "gamma", "--allow-lossy=enabled_tools"])
            .success()
            .stderr(contains("Allowing enabled_tools to be left out"));
        assert!(
            env.read("dotpack.toml")
                .contains("allow_lossy = [\"enabled_tools\"]"),
            "{}",
            host.id
        );
        assert!(
            env.read("dotpack.lock")
                .contains("dropped = [\"enabled_tools\"]"),
            "{}",
            host.id
        );
    }
}

#[test]
fn a_teammates_clone_installs_cleanly_from_the_committed_lock() {
    for host in HOSTS {
        let env = Env::new();
        let reg = registry(&env);
        project(&env, host);
        env.write(host.file, host.fixture);
        dp(&env, &reg, &["add", "alpha"]).success();
        // A teammate: another HOME, a copy of the committed files.
        let mate = Env::new();
        for file in ["dotpack.toml", "dotpack.lock", host.file] {
            mate.write(file, &env.read(file));
        }
        let before = snapshot(&mate.project);
        mate.with_registry(&reg, &["install", "--locked"])
            .assert()
            .success();
        assert_eq!(snapshot(&mate.project), before, "{}", host.id);
        mate.dotpack()
            .env("DOTPACK_REGISTRY", &reg)
            .arg("status")
            .assert()
            .success()
            .stderr(contains("every declared server is installed as locked"));
    }
}

/// Host files are often left out of git (`.cursor/` in `.gitignore`): a teammate's clone has the
/// manifest and the lock only, and not the folders the author's machine had. `install --locked`
/// writes the author's files and the lock stays as committed.
#[test]
fn a_teammate_without_the_host_files_or_their_folders_installs_the_committed_lock() {
    for host in HOSTS {
        let env = Env::new();
        let reg = registry(&env);
        project(&env, host);
        if let Some(folder) = std::path::Path::new(host.file).parent() {
            std::fs::create_dir_all(env.project.join(folder)).unwrap();
        }
        dp(&env, &reg, &["add", "alpha"]).success();
        let mate = Env::new();
        for file in ["dotpack.toml", "dotpack.lock"] {
            mate.write(file, &env.read(file));
        }
        mate.with_registry(&reg, &["install", "--locked"])
            .assert()
            .success();
        assert_eq!(mate.read(host.file), env.read(host.file), "{}", host.id);
        assert_eq!(
            mate.read("dotpack.lock"),
            env.read("dotpack.lock"),
            "{}",
            host.id
        );
        mate.with_registry(&reg, &["status"]).assert().success();
    }
}

#[test]
fn a_hand_edit_is_reported_and_kept_unless_forced() {
    let host = &HOSTS[0];
    let env = Env::new();
    let reg = registry(&env);
    project(&env, host);
    dp(&env, &reg, &["add", "alpha"]).success();
    let edited = env.read(host.file).replace("alpha-mcp", "alpha-mcp@2");
    env.write(host.file, &edited);
    // A hand edit is a discrepancy: status lists it and exits 1.
    dp(&env, &reg, &["status"])
        .code(1)
        .stdout(contains("edited by hand"));
    dp(&env, &reg, &["uninstall"])
        .success()
        .stderr(contains("edited by hand"));
    assert_eq!(env.read(host.file), edited);
    dp(&env, &reg, &["uninstall", "--force"]).success();
    assert!(!env.project.join(host.file).exists());
}

#[test]
fn bad_host_files_are_refused_and_nothing_changes() {
    let env = Env::new();
    let reg = registry(&env);
    project(&env, &HOSTS[0]);
    // Does not parse.
    env.write(
        ".mcp.json",
        "{\n  \"mcpServers\": {\n    \"x\": 1,,\n  }\n}\n",
    );
    let before = snapshot(&env.project);
    dp(&env, &reg, &["add", "alpha"])
        .code(1)
        .stderr(contains(".mcp.json").and(contains("line 3")));
    assert_eq!(snapshot(&env.project), before);
    // Container of the wrong type.
    env.write(".mcp.json", "{\"mcpServers\": []}\n");
    let before = snapshot(&env.project);
    dp(&env, &reg, &["add", "alpha"])
        .code(1)
        .stderr(contains("mcpServers").and(contains("array")));
    assert_eq!(snapshot(&env.project), before);
    // A folder where the file should be.
    std::fs::remove_file(env.project.join(".mcp.json")).unwrap();
    std::fs::create_dir(env.project.join(".mcp.json")).unwrap();
    dp(&env, &reg, &["add", "alpha"])
        .code(1)
        .stderr(contains("folder"));
    std::fs::remove_dir(env.project.join(".mcp.json")).unwrap();
    // A read-only file.
    env.write(".mcp.json", "{}\n");
    let path = env.project.join(".mcp.json");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o444)).unwrap();
    let before = snapshot(&env.project);
    dp(&env, &reg, &["add", "alpha"])
        .code(1)
        .stderr(contains("read-only"));
    assert_eq!(snapshot(&env.project), before);
}

#[test]
fn no_target_host_is_said_and_names_host_flag() {
    let env = Env::new();
    let reg = registry(&env);
    env.write("dotpack.toml", "[dependencies]\n");
    let added = dp(&env, &reg, &["add", "alpha"]).success();
    let stderr = String::from_utf8_lossy(&added.get_output().stderr).into_owned();
    let warnings: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("no target hosts"))
        .collect();
    assert_eq!(warnings.len(), 1, "{stderr}");
    assert!(warnings[0].contains("only dotpack.toml and dotpack.lock were written"));
    assert!(warnings[0].contains("--host HOST"), "{stderr}");
    assert!(stderr.contains("Finished generation"), "{stderr}");
    // Nothing to write: one line says nothing was installed, never beside "nothing to change".
    let again = dp(&env, &reg, &["install"]).success();
    let stderr = String::from_utf8_lossy(&again.get_output().stderr).into_owned();
    let warnings: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("no target hosts"))
        .collect();
    assert_eq!(warnings.len(), 1, "{stderr}");
    assert!(
        warnings[0].contains("no server was installed") && warnings[0].contains("--host HOST"),
        "{stderr}"
    );
    assert!(!stderr.contains("nothing to change"), "{stderr}");
    dp(&env, &reg, &["install", "--host", "cursor"]).success();
    assert!(env.read(".cursor/mcp.json").contains("alpha-mcp"));
}

#[test]
fn user_scope_writes_home_files_and_keeps_claims_in_dotpack_home() {
    let env = Env::new();
    let reg = registry(&env);
    env.write(
        "dotpack.toml",
        "[project]\nhosts = [\"claude-code\", \"codex\"]\nscope = \"user\"\n\n[dependencies]\n",
    );
    let claude = env.home.path().join(".claude.json");
    std::fs::write(&claude, "{\n  \"numStartups\": 3,\n  \"projects\": {}\n}\n").unwrap();
    std::fs::set_permissions(&claude, std::fs::Permissions::from_mode(0o600)).unwrap();
    // The manifest was written by hand: approving it makes it the user's own.
    env.dotpack().arg("trust").assert().success();
    dp(&env, &reg, &["add", "alpha"]).success();
    let text = std::fs::read_to_string(&claude).unwrap();
    assert!(
        text.contains("\"numStartups\": 3") && text.contains("alpha-mcp"),
        "{text}"
    );
    assert_eq!(
        std::fs::metadata(&claude).unwrap().permissions().mode() & 0o777,
        0o600
    );
    assert!(env.home.path().join(".codex/config.toml").exists());
    let claims = std::fs::read_to_string(env.home.path().join(".dotpack/claims.toml")).unwrap();
    assert!(claims.contains("alpha"), "{claims}");
    assert!(!env.read("dotpack.lock").contains("[[claim]]"));
    dp(&env, &reg, &["remove", "alpha"]).success();
    assert_eq!(
        std::fs::read_to_string(&claude).unwrap(),
        "{\n  \"numStartups\": 3,\n  \"projects\": {}\n}\n"
    );
}

#[test]
fn dry_run_prints_host_diffs_and_writes_nothing() {
    let env = Env::new();
    let reg = registry(&env);
    project(&env, &HOSTS[1]);
    let before = snapshot(&env.project);
    dp(&env, &reg, &["add", "alpha", "--dry-run"])
        .success()
        .stdout(contains("+++ b/.codex/config.toml").and(contains("+[mcp_servers.alpha]")));
    assert_eq!(snapshot(&env.project), before);
}

#[test]
fn a_drop_allowed_once_stays_allowed_for_that_package() {
    let env = Env::new();
    let reg = registry(&env);
    project(&env, &HOSTS[0]);
    dp(&env, &reg, &["add", "beta", "--allow-lossy"]).success();
    // A later command without the flag keeps beta's recorded drop and installs alpha.
    dp(&env, &reg, &["add", "alpha"]).success();
    dp(&env, &reg, &["install", "--locked"]).success();
    assert!(env.read(".mcp.json").contains("beta-mcp"));
}

#[test]
fn changing_an_input_in_the_manifest_updates_the_entry() {
    let env = Env::new();
    let reg = build_registry(
        &env,
        &[(
            "port",
            "[package]\nname = \"port\"\nversion = \"1.0.0\"\n\n[inputs.port]\ndefault = \"3845\"\n\n[servers.port]\nurl = \"http://127.0.0.1:{{props.port}}/mcp\"\n",
        )],
    );
    project(&env, &HOSTS[0]);
    dp(&env, &reg, &["add", "port"]).success();
    assert!(env.read(".mcp.json").contains("127.0.0.1:3845"));
    let text = env.read("dotpack.toml").replace(
        "port = \"^1.0\"",
        "port = { version = \"^1.0\", set = { port = \"4000\" } }",
    );
    env.write("dotpack.toml", &text);
    dp(&env, &reg, &["install"])
        .success()
        .stderr(contains("1 updated"));
    assert!(env.read(".mcp.json").contains("127.0.0.1:4000"));
    dp(&env, &reg, &["install"])
        .success()
        .stderr(contains("nothing to change"));
}

#[test]
fn list_and_status_read_as_a_table() {
    let env = Env::new();
    let reg = registry(&env);
    env.write(
        "dotpack.toml",
        "[project]\nhosts = [\"claude-code\", \"codex\"]\n\n[dependencies]\n",
    );
    dp(&env, &reg, &["add", "alpha", "beta", "--allow-lossy"]).success();
    let edited = env.read(".mcp.json").replace("beta-mcp", "beta-mcp-fork");
    env.write(".mcp.json", &edited);
    let list = env
        .dotpack()
        .env("DOTPACK_REGISTRY", &reg)
        .arg("list")
        .output()
        .unwrap();
    let status = env
        .dotpack()
        .env("DOTPACK_REGISTRY", &reg)
        .arg("status")
        .output()
        .unwrap();
    insta::assert_snapshot!(
        "list_and_status",
        format!(
            "$ dotpack list\n{}\n$ dotpack status\n{}",
            String::from_utf8_lossy(&list.stdout),
            String::from_utf8_lossy(&status.stdout)
        )
    );
}

#[test]
fn the_projects_own_servers_are_installed_and_removed_too() {
    let env = Env::new();
    let reg = registry(&env);
    let manifest = "[project]\nhosts = [\"claude-code\"]\n\n[inputs.root]\ndefault = \"/srv\"\n\n[servers.local-files]\ncommand = \"npx\"\nargs = [\"-y\", \"files-mcp\", \"{{props.root}}\"]\n\n[dependencies]\n";
    env.write("dotpack.toml", manifest);
    dp(&env, &reg, &["install"]).success();
    let text = env.read(".mcp.json");
    assert!(
        text.contains("\"local-files\"") && text.contains("/srv"),
        "{text}"
    );
    assert!(
        env.read("dotpack.lock")
            .contains("package = \"dotpack.toml\"")
    );
    // A package declaring the same server name is refused.
    let clash = manifest.replace("local-files", "alpha");
    env.write("dotpack.toml", &clash);
    dp(&env, &reg, &["add", "alpha"])
        .code(1)
        .stderr(contains("declares a server named `alpha`"));
    env.write(
        "dotpack.toml",
        "[project]\nhosts = [\"claude-code\"]\n\n[dependencies]\n",
    );
    dp(&env, &reg, &["install"]).success();
    assert!(!env.project.join(".mcp.json").exists());
}

/// Hermes reads `$HERMES_HOME/config.yaml` when the variable is set: dotpack writes there, and
/// `hosts` and `status` name that file.
#[test]
fn hermes_home_moves_the_file_dotpack_writes() {
    let env = Env::new();
    let moved = env.home.path().join("hermes-elsewhere");
    std::fs::create_dir_all(&moved).unwrap();
    env.write(
        "dotpack.toml",
        "[project]\nhosts = [\"hermes\"]\n\n[servers.notes]\ncommand = \"notes-mcp\"\nargs = []\n",
    );
    env.dotpack()
        .env("HERMES_HOME", &moved)
        .args(["--trust", "install"])
        .assert()
        .success();
    let written = std::fs::read_to_string(moved.join("config.yaml")).unwrap();
    assert!(written.contains("notes-mcp"), "{written}");
    assert!(!env.home.path().join(".hermes").exists());
    env.dotpack()
        .env("HERMES_HOME", &moved)
        .arg("status")
        .assert()
        .success();
    env.dotpack()
        .env("HERMES_HOME", &moved)
        .args(["hosts", "--json"])
        .assert()
        .success()
        .stdout(contains(moved.join("config.yaml").display().to_string()));
}
