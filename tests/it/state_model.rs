//! The state model of `docs/state.md`, one test per behaviour that once went wrong: what a
//! command is told is recorded in dotpack.toml, the lock's packages follow from dotpack.toml
//! alone, user-scope entries have owners, secrets stay out of files, names are lowercase,
//! declared registries are used everywhere, `status` is a check, a conflicted lock is
//! recovered, output says only what happened, and folders dotpack created leave with their last
//! file.

use std::path::{Path, PathBuf};

use assert_cmd::assert::Assert;
use predicates::prelude::*;
use predicates::str::contains;

use crate::support::{Env, build_registry, snapshot};

/// A project manifest with these hosts (a TOML array) and dependency lines.
fn manifest(hosts: &str, deps: &str) -> String {
    format!("[project]\nhosts = {hosts}\n\n[dependencies]\n{deps}")
}

fn dp(env: &Env, args: &[&str]) -> Assert {
    env.dotpack().args(args).assert()
}

fn dp_in(env: &Env, dir: &Path, args: &[&str]) -> Assert {
    env.dotpack_in(dir).args(args).assert()
}

fn stdout(assert: &Assert) -> String {
    String::from_utf8_lossy(&assert.get_output().stdout).into_owned()
}

fn stderr(assert: &Assert) -> String {
    String::from_utf8_lossy(&assert.get_output().stderr).into_owned()
}

/// What a lock resolved to: everything before its first claim.
fn locked_packages(lock: &str) -> String {
    let packages = lock.split("[[claim]]").next().unwrap_or_default();
    packages.trim_end().to_string()
}

fn home(env: &Env, rel: &str) -> PathBuf {
    env.home.path().join(rel)
}

fn read_home(env: &Env, rel: &str) -> String {
    std::fs::read_to_string(home(env, rel)).unwrap_or_else(|e| panic!("read ~/{rel}: {e}"))
}

/// Every file of HOME outside the project and `$DOTPACK_HOME`: what a command working at
/// project scope must leave as it was.
fn outside_project(env: &Env) -> Vec<(PathBuf, Vec<u8>)> {
    snapshot(env.home.path())
        .into_iter()
        .filter(|(p, _)| !p.starts_with(&env.project) && !p.starts_with(home(env, ".dotpack")))
        .collect()
}

/// The names of the servers in a JSON host file's `mcpServers`, sorted.
fn json_servers(text: &str) -> Vec<String> {
    let doc: serde_json::Value = serde_json::from_str(text).expect("host file is JSON");
    let mut names: Vec<String> = doc["mcpServers"]
        .as_object()
        .map(|m| m.keys().cloned().collect())
        .unwrap_or_default();
    names.sort();
    names
}

fn toml_doc(text: &str) -> toml::Table {
    text.parse().expect("valid TOML")
}

/// The files under `dir` whose bytes contain `needle`.
fn files_containing(dir: &Path, needle: &str) -> Vec<PathBuf> {
    snapshot(dir)
        .into_iter()
        .filter(|(_, bytes)| bytes.windows(needle.len()).any(|w| w == needle.as_bytes()))
        .map(|(p, _)| p)
        .collect()
}

// 1. Hosts given with --host are recorded, and a clone reproduces the project.

#[test]
fn add_with_hosts_records_them_and_a_clone_installs_locked_unchanged() {
    let env = Env::new();
    env.write("dotpack.toml", &manifest("[]", ""));
    dp(
        &env,
        &[
            "add",
            "figma",
            "github",
            "--host",
            "claude-code",
            "--host",
            "codex",
        ],
    )
    .success()
    .stderr(
        contains("Adding host claude-code to [project] hosts in dotpack.toml").and(contains(
            "Adding host codex to [project] hosts in dotpack.toml",
        )),
    );
    assert!(
        env.read("dotpack.toml")
            .contains("hosts = [\"claude-code\", \"codex\"]"),
        "{}",
        env.read("dotpack.toml")
    );
    assert_eq!(json_servers(&env.read(".mcp.json")), ["figma", "github"]);
    let codex = env.read(".codex/config.toml");
    assert!(
        codex.contains("[mcp_servers.figma]") && codex.contains("[mcp_servers.github]"),
        "{codex}"
    );
    dp(&env, &["status"])
        .success()
        .stderr(contains("every declared server is installed as locked"));
    dp(&env, &["list"]).success().stdout(
        contains(".mcp.json#github")
            .and(contains(".codex/config.toml#figma"))
            .and(contains("installed")),
    );
    assert!(outside_project(&env).is_empty());

    // A teammate: a new HOME, an empty DOTPACK_HOME, the committed files.
    let mate = Env::new();
    for file in [
        "dotpack.toml",
        "dotpack.lock",
        ".mcp.json",
        ".codex/config.toml",
    ] {
        mate.write(file, &env.read(file));
    }
    let before = snapshot(mate.home.path());
    dp(&mate, &["install", "--locked"]).success();
    assert_eq!(snapshot(mate.home.path()), before);
    dp(&mate, &["status"]).success();
    assert_eq!(snapshot(mate.home.path()), before);
}

#[test]
fn remove_takes_out_the_entry_of_a_host_added_with_add() {
    let env = Env::new();
    env.write("dotpack.toml", &manifest("[\"claude-code\"]", ""));
    dp(&env, &["add", "fetch"]).success();
    dp(&env, &["add", "time", "--host", "codex"]).success();
    assert!(
        env.read(".codex/config.toml")
            .contains("[mcp_servers.time]")
    );
    dp(&env, &["remove", "time"])
        .success()
        .stderr(contains("Removing time v1.0.0"));
    let codex = env.read(".codex/config.toml");
    assert!(!codex.contains("time"), "{codex}");
    assert!(codex.contains("[mcp_servers.fetch]"), "{codex}");
    assert_eq!(json_servers(&env.read(".mcp.json")), ["fetch"]);

    // Claims, not `[project] hosts`, say where entries are: a host taken out of the manifest by
    // hand still has its entries removed.
    dp(&env, &["add", "time"]).success();
    let text = env.read("dotpack.toml").replace(", \"codex\"", "");
    env.write("dotpack.toml", &text);
    dp(&env, &["remove", "time"]).success();
    assert!(!env.project.join(".codex").exists());
    assert_eq!(json_servers(&env.read(".mcp.json")), ["fetch"]);
}

// 2. `uninstall` records exclusions and hosts leaving; the lock's packages never change.

#[test]
fn uninstall_records_what_it_took_out_and_leaves_the_locked_packages() {
    let env = Env::new();
    env.write(
        "dotpack.toml",
        &manifest("[\"claude-code\", \"cursor\"]", ""),
    );
    dp(&env, &["add", "playwright", "time"]).success();
    let packages = locked_packages(&env.read("dotpack.lock"));

    dp(&env, &["uninstall", "playwright"])
        .success()
        .stderr(contains(
            "Excluding playwright from every host ([project] exclude in dotpack.toml)",
        ));
    assert!(
        env.read("dotpack.toml")
            .contains("exclude = [\"playwright\"]")
    );
    assert_eq!(locked_packages(&env.read("dotpack.lock")), packages);
    dp(&env, &["lock", "--locked"]).success();
    for file in [".mcp.json", ".cursor/mcp.json"] {
        assert_eq!(json_servers(&env.read(file)), ["time"], "{file}");
    }
    dp(&env, &["status"]).success();

    dp(&env, &["install", "playwright"])
        .success()
        .stderr(contains("Including playwright again"));
    assert!(!env.read("dotpack.toml").contains("exclude"));
    for file in [".mcp.json", ".cursor/mcp.json"] {
        assert_eq!(
            json_servers(&env.read(file)),
            ["playwright", "time"],
            "{file}"
        );
    }

    dp(&env, &["uninstall", "--host", "cursor"])
        .success()
        .stderr(contains(
            "Removing host cursor from [project] hosts in dotpack.toml",
        ));
    assert!(
        env.read("dotpack.toml")
            .contains("hosts = [\"claude-code\"]")
    );
    assert_eq!(locked_packages(&env.read("dotpack.lock")), packages);
    assert!(!env.project.join(".cursor").exists());
    assert_eq!(json_servers(&env.read(".mcp.json")), ["playwright", "time"]);
    dp(&env, &["lock", "--locked"]).success();
    dp(&env, &["status"]).success();
    assert!(outside_project(&env).is_empty());
}

#[test]
fn uninstall_scope_user_takes_out_user_scope_hosts_and_the_hint_puts_them_back() {
    let env = Env::new();
    env.write(
        "dotpack.toml",
        &manifest(
            "[\"claude-code\", { host = \"codex\", scope = \"user\" }]",
            "",
        ),
    );
    dp(&env, &["trust"]).success();
    dp(&env, &["add", "time"]).success();
    assert!(read_home(&env, ".codex/config.toml").contains("[mcp_servers.time]"));
    let packages = locked_packages(&env.read("dotpack.lock"));

    let out = dp(&env, &["uninstall", "--scope", "user"]).success();
    assert!(
        env.read("dotpack.toml")
            .contains("hosts = [\"claude-code\"]")
    );
    assert_eq!(locked_packages(&env.read("dotpack.lock")), packages);
    assert!(!home(&env, ".codex").exists());
    assert_eq!(json_servers(&env.read(".mcp.json")), ["time"]);
    dp(&env, &["lock", "--locked"]).success();
    dp(&env, &["status"]).success();

    // The line that says how to put them back puts them back where they were.
    let hint = "dotpack install --host codex --scope user";
    assert!(
        stderr(&out).contains(&format!("`{hint}` puts them back")),
        "{}",
        stderr(&out)
    );
    let args: Vec<&str> = hint.split(' ').skip(1).collect();
    dp(&env, &args).success();
    assert!(read_home(&env, ".codex/config.toml").contains("[mcp_servers.time]"));
    assert!(!env.project.join(".codex").exists());
    assert!(
        env.read("dotpack.toml")
            .contains("{ host = \"codex\", scope = \"user\" }")
    );
}

#[test]
fn uninstall_global_says_how_to_put_the_hosts_back_into_the_user_level_manifest() {
    let env = Env::new();
    std::fs::write(home(&env, ".claude.json"), "{}\n").unwrap();
    dp(&env, &["add", "--global", "time"]).success();
    assert_eq!(claude_user_servers(&env), ["time"]);
    let hint = "dotpack install --global --host claude-code";
    dp(&env, &["uninstall", "--global"])
        .success()
        .stderr(contains(format!("`{hint}` puts them back")));
    assert_eq!(read_home(&env, ".claude.json"), "{}\n");
    let args: Vec<&str> = hint.split(' ').skip(1).collect();
    dp(&env, &args).success();
    assert_eq!(claude_user_servers(&env), ["time"]);
    assert!(!env.project.join("dotpack.toml").exists());
}

#[test]
fn uninstalling_a_dependency_of_a_bundle_leaves_a_working_project() {
    let env = Env::new();
    env.write("dotpack.toml", &manifest("[\"claude-code\"]", ""));
    dp(&env, &["add", "web-dev"]).success();
    let packages = locked_packages(&env.read("dotpack.lock"));
    dp(&env, &["uninstall", "playwright"]).success();
    assert_eq!(
        json_servers(&env.read(".mcp.json")),
        ["chrome-devtools", "fetch"]
    );
    dp(&env, &["lock"]).success();
    dp(&env, &["lock", "--locked"]).success();
    dp(&env, &["status"]).success();
    dp(&env, &["list"])
        .success()
        .stdout(contains("playwright").not().and(contains("fetch")));
    dp(&env, &["install"])
        .success()
        .stderr(contains("nothing to change"));
    assert_eq!(locked_packages(&env.read("dotpack.lock")), packages);
}

// 3. User scope has owners.

/// A second project folder in the same HOME, with an empty manifest.
fn second_project(env: &Env, hosts: &str) -> PathBuf {
    let b = home(env, "b");
    std::fs::create_dir_all(&b).unwrap();
    std::fs::write(b.join("dotpack.toml"), manifest(hosts, "")).unwrap();
    b
}

fn claude_user_servers(env: &Env) -> Vec<String> {
    json_servers(&read_home(env, ".claude.json"))
}

#[test]
fn a_user_scope_entry_leaves_with_its_last_owner() {
    let env = Env::new();
    env.write("dotpack.toml", &manifest("[]", ""));
    let b = second_project(&env, "[]");
    let add = ["add", "time", "--scope", "user", "--host", "claude-code"];
    dp(&env, &add).success();
    dp_in(&env, &b, &add)
        .success()
        .stderr(contains("shared with other projects"));
    assert_eq!(claude_user_servers(&env), ["time"]);

    dp(&env, &["remove", "time"])
        .success()
        .stderr(contains("left to other projects"));
    assert_eq!(claude_user_servers(&env), ["time"]);
    dp_in(&env, &b, &["status"]).success();

    dp_in(&env, &b, &["remove", "time"]).success();
    assert!(!home(&env, ".claude.json").exists());
}

#[test]
fn history_and_rollback_cover_user_scope_changes_and_keep_other_owners_entries() {
    let env = Env::new();
    env.write("dotpack.toml", &manifest("[]", ""));
    let b = second_project(&env, "[]");
    let add = ["add", "time", "--scope", "user", "--host", "claude-code"];
    dp(&env, &add).success();
    dp_in(&env, &b, &add).success();
    dp(&env, &["history"]).success().stdout(
        contains("dotpack add time --scope user --host claude-code").and(contains("+time 1.0.0")),
    );

    dp(&env, &["rollback"])
        .success()
        .stderr(contains("Removing time v1.0.0"));
    assert!(!env.read("dotpack.toml").contains("time"));
    assert_eq!(claude_user_servers(&env), ["time"]);
    let claims = read_home(&env, ".dotpack/claims.toml");
    let b_owner = std::fs::canonicalize(&b).unwrap().display().to_string();
    assert!(
        claims.contains(&format!("owners = [\"{b_owner}\"]")),
        "{claims}"
    );
    dp_in(&env, &b, &["status"]).success();
}

#[test]
fn a_user_scope_package_goes_alone_to_the_user_file() {
    let env = Env::new();
    env.write("dotpack.toml", &manifest("[\"claude-code\"]", ""));
    dp(&env, &["add", "time", "fetch"]).success();
    dp(
        &env,
        &["add", "memory", "--scope", "user", "--host", "claude-code"],
    )
    .success();
    assert!(
        env.read("dotpack.toml")
            .contains("memory = { version = \"^1.0\", scope = \"user\" }")
    );
    assert_eq!(claude_user_servers(&env), ["memory"]);
    assert_eq!(json_servers(&env.read(".mcp.json")), ["fetch", "time"]);
    dp(&env, &["status"]).success();
}

#[test]
fn another_owners_different_definition_is_refused_naming_its_folder() {
    let env = Env::new();
    env.write("dotpack.toml", &manifest("[]", ""));
    let b = second_project(&env, "[]");
    dp(
        &env,
        &["add", "figma", "--scope", "user", "--host", "claude-code"],
    )
    .success();
    let a_owner = std::fs::canonicalize(&env.project)
        .unwrap()
        .display()
        .to_string();
    let before = snapshot(env.home.path());
    // Another version (figma 0.2.0 serves another URL), then other inputs.
    for args in [
        &[
            "add",
            "figma@^0.2",
            "--scope",
            "user",
            "--host",
            "claude-code",
        ][..],
        &[
            "add",
            "figma",
            "--set",
            "port=4000",
            "--scope",
            "user",
            "--host",
            "claude-code",
        ][..],
    ] {
        dp_in(&env, &b, args).code(1).stderr(
            contains(".claude.json#mcpServers.figma")
                .and(contains(format!("declared differently by `{a_owner}`"))),
        );
        assert_eq!(snapshot(env.home.path()), before, "{args:?}");
    }
    // The same definition is shared.
    dp_in(
        &env,
        &b,
        &["add", "figma", "--scope", "user", "--host", "claude-code"],
    )
    .success()
    .stderr(contains("shared with other projects"));
}

// 4. Secrets are never written; required inputs are asked for.

#[test]
fn a_secret_input_given_with_set_is_refused_and_written_nowhere() {
    let env = Env::new();
    env.write("dotpack.toml", &manifest("[\"claude-code\"]", ""));
    let before = snapshot(env.home.path());
    dp(&env, &["add", "github", "--set", "github_token=ghp_xxx"])
        .code(2)
        .stderr(contains("secret").and(contains("GITHUB_PERSONAL_ACCESS_TOKEN")));
    assert_eq!(snapshot(env.home.path()), before);
    assert_eq!(
        files_containing(env.home.path(), "ghp_xxx"),
        Vec::<PathBuf>::new()
    );
}

#[test]
fn a_secret_set_by_hand_in_the_manifest_fails_install() {
    let env = Env::new();
    env.write(
        "dotpack.toml",
        &manifest(
            "[\"claude-code\"]",
            "github = { version = \"^1.1\", set = { github_token = \"ghp_x\" } }\n",
        ),
    );
    dp(&env, &["install"]).code(1).stderr(
        contains("`github_token` of `github`, which is a secret")
            .and(contains("GITHUB_PERSONAL_ACCESS_TOKEN")),
    );
    assert!(!env.project.join(".mcp.json").exists());
    assert_eq!(
        files_containing(env.home.path(), "ghp_x"),
        [env.project.join("dotpack.toml")]
    );
}

fn two_input_registry(env: &Env) -> PathBuf {
    build_registry(
        env,
        &[(
            "db",
            "[package]\nname = \"db\"\nversion = \"1.0.0\"\n\n[inputs.host]\ndescription = \"Database host\"\nrequired = true\n\n[inputs.database]\ndescription = \"Database name\"\nrequired = true\n\n[servers.db]\ncommand = \"db-mcp\"\nargs = [\"--host\", \"{{props.host}}\", \"--db\", \"{{props.database}}\"]\n",
        )],
    )
}

#[test]
fn required_inputs_without_values_are_each_listed_with_their_set_flag() {
    let env = Env::new();
    let reg = two_input_registry(&env);
    env.write("dotpack.toml", &manifest("[\"claude-code\"]", ""));
    let before = snapshot(&env.project);
    // An input only the command line can give: the exit code of bad usage.
    env.with_registry(&reg, &["add", "db"])
        .assert()
        .code(2)
        .stderr(
            contains("needs a value for input `host`")
                .and(contains("dotpack add db --set host=VALUE"))
                .and(contains("needs a value for input `database`"))
                .and(contains("dotpack add db --set database=VALUE")),
        );
    assert_eq!(snapshot(&env.project), before);
    env.with_registry(&reg, &["add", "db", "--set", "host=localhost"])
        .assert()
        .code(2)
        .stderr(contains("--set database=VALUE").and(contains("--set host=").not()));
    assert_eq!(snapshot(&env.project), before);
    env.with_registry(
        &reg,
        &[
            "add",
            "db",
            "--set",
            "host=localhost",
            "--set",
            "database=app",
        ],
    )
    .assert()
    .success();
    assert!(env.read(".mcp.json").contains("\"app\""));
}

// 5. Names are lowercase.

#[test]
fn package_names_are_lowercase() {
    let env = Env::new();
    env.write("dotpack.toml", &manifest("[\"claude-code\"]", ""));
    dp(&env, &["add", "Figma"]).success();
    let text = env.read("dotpack.toml");
    assert!(
        text.contains("figma = \"^0.3\"") && !text.contains("Figma"),
        "{text}"
    );
    dp(&env, &["add", "figma"])
        .success()
        .stderr(contains("`figma` is already in dotpack.toml"));
    assert_eq!(env.read("dotpack.toml"), text);
    dp(&env, &["remove", "Figma"]).success();
    assert!(!env.read("dotpack.toml").contains("igma"));
    assert!(!env.project.join(".mcp.json").exists());

    env.write(
        "dotpack.toml",
        &manifest("[\"claude-code\"]", "Figma = \"^0.3\"\n"),
    );
    let before = snapshot(&env.project);
    for args in [&["install"][..], &["validate"][..]] {
        dp(&env, args).code(1).stderr(
            contains("package names are lowercase: `Figma` is `figma`")
                .and(contains("write `figma`")),
        );
    }
    assert_eq!(snapshot(&env.project), before);
}

// 6. Registries given to add are declared, and declared registries are used everywhere.

/// `dotpack registry build` of a `mytool` package into `~/reg/index`.
fn mytool_registry(env: &Env) -> PathBuf {
    let src = home(env, "reg-src/mytool");
    std::fs::create_dir_all(&src).unwrap();
    std::fs::write(
        src.join("dotpack.toml"),
        "[package]\nname = \"mytool\"\nversion = \"1.0.0\"\ndescription = \"Tool for widgets\"\nkeywords = [\"widgets\"]\n\n[servers.mytool]\ncommand = \"mytool-mcp\"\nargs = []\n",
    )
    .unwrap();
    dp_in(
        env,
        env.home.path(),
        &["registry", "build", "reg-src", "--out", "reg/index"],
    )
    .success();
    home(env, "reg/index")
}

#[test]
fn a_registry_given_by_path_is_declared_relative_to_the_project() {
    let env = Env::new();
    mytool_registry(&env);
    env.write("dotpack.toml", &manifest("[\"claude-code\"]", ""));
    let sub = env.project.join("sub");
    std::fs::create_dir_all(&sub).unwrap();
    // From a subfolder: the path is given relative to it, recorded relative to the project.
    dp_in(
        &env,
        &sub,
        &["add", "mytool", "--registry", "../../reg/index"],
    )
    .success();
    let doc = toml_doc(&env.read("dotpack.toml"));
    let name = doc["dependencies"]["mytool"]["registry"]
        .as_str()
        .expect("registry recorded on the dependency")
        .to_string();
    assert_eq!(
        doc["registries"][&name]["path"].as_str(),
        Some("../reg/index")
    );
    assert_eq!(json_servers(&env.read(".mcp.json")), ["mytool"]);
    // A plain install (no --registry, no DOTPACK_REGISTRY) finds it.
    std::fs::remove_file(env.project.join(".mcp.json")).unwrap();
    dp(&env, &["install"]).success();
    assert_eq!(json_servers(&env.read(".mcp.json")), ["mytool"]);
    dp(&env, &["lock", "--locked"]).success();
    dp(&env, &["status"]).success();
}

#[test]
fn a_declared_registry_is_used_by_name_and_read_by_search_and_info() {
    let env = Env::new();
    mytool_registry(&env);
    env.write(
        "dotpack.toml",
        "[project]\nhosts = [\"claude-code\"]\n\n[dependencies]\n\n[registries]\nreg = { path = \"../reg/index\" }\n",
    );
    // A folder outside the project is read once the user approves it for this folder.
    dp(&env, &["search", "widgets"])
        .code(1)
        .stderr(contains("registry folders outside the project").and(contains("dotpack trust")));
    dp(&env, &["trust"]).success();
    for flag in [&[][..], &["--registry", "reg"][..]] {
        let mut search = vec!["search", "widgets"];
        search.extend(flag);
        dp(&env, &search)
            .success()
            .stdout(contains("mytool").and(contains("registry reg")));
        let mut info = vec!["info", "mytool"];
        info.extend(flag);
        dp(&env, &info)
            .success()
            .stdout(contains("mytool 1.0.0").and(contains("Tool for widgets")));
    }
    dp(&env, &["add", "mytool", "--registry", "reg"]).success();
    let doc = toml_doc(&env.read("dotpack.toml"));
    assert_eq!(
        doc["dependencies"]["mytool"]["registry"].as_str(),
        Some("reg")
    );
    assert_eq!(doc["registries"].as_table().map(|t| t.len()), Some(1));
    assert_eq!(json_servers(&env.read(".mcp.json")), ["mytool"]);
}

// 7. Status is a check.

fn status_json(env: &Env) -> (Option<i32>, serde_json::Value) {
    let out = env.dotpack().args(["status", "--json"]).output().unwrap();
    let doc = serde_json::from_slice(&out.stdout).expect("status --json prints JSON");
    (out.status.code(), doc)
}

/// `status` exits 1 with `wording` on stdout, and `--json` says `"ok": false`.
fn discrepancy(env: &Env, wording: &str) {
    dp(env, &["status"]).code(1).stdout(contains(wording));
    let (code, doc) = status_json(env);
    assert_eq!(code, Some(1), "{doc}");
    assert_eq!(doc["ok"], false, "{doc}");
}

fn clean(env: &Env) {
    dp(env, &["status"])
        .success()
        .stderr(contains("every declared server is installed as locked"));
    let (code, doc) = status_json(env);
    assert_eq!(code, Some(0), "{doc}");
    assert_eq!(doc["ok"], true, "{doc}");
}

#[test]
fn status_exits_1_for_every_discrepancy_and_0_when_clean() {
    let env = Env::new();
    let hosts = "[\"claude-code\", \"codex\"]";
    env.write("dotpack.toml", &manifest(hosts, "time = \"^1.0\"\n"));
    discrepancy(&env, "dotpack.lock: missing (`dotpack lock`)");
    assert_eq!(status_json(&env).1["lock"], "missing");
    dp(&env, &["install"]).success();
    clean(&env);

    // A requirement edited by hand: the lock no longer answers the manifest.
    env.write("dotpack.toml", &manifest(hosts, "time = \"=1.0.0\"\n"));
    discrepancy(
        &env,
        "dotpack.lock: out of date with dotpack.toml (`dotpack lock`)",
    );
    assert_eq!(status_json(&env).1["lock"], "stale");
    dp(&env, &["lock"]).success();
    clean(&env);

    let codex = env.read(".codex/config.toml");
    env.write(
        ".codex/config.toml",
        &codex.replace("mcp-server-time", "my-time"),
    );
    discrepancy(&env, ".codex/config.toml#time  time 1.0.0  edited by hand");
    env.write(".codex/config.toml", "");
    discrepancy(
        &env,
        ".codex/config.toml#time  time 1.0.0  missing (removed by hand; `dotpack install`)",
    );
    env.write(".codex/config.toml", &codex);
    clean(&env);

    // A host joins by hand, where a hand-written entry has the declared name.
    env.write(
        "dotpack.toml",
        &manifest(
            "[\"claude-code\", \"codex\", \"cursor\"]",
            "time = \"=1.0.0\"\n",
        ),
    );
    env.write(
        ".cursor/mcp.json",
        "{\"mcpServers\": {\"time\": {\"command\": \"my-time\"}}}\n",
    );
    discrepancy(
        &env,
        ".cursor/mcp.json#time  time 1.0.0  in the way: not dotpack's (`dotpack adopt` or `--force`)",
    );
    std::fs::remove_dir_all(env.project.join(".cursor")).unwrap();

    // A host leaves by hand: its claimed entries are no longer declared.
    env.write(
        "dotpack.toml",
        &manifest("[\"claude-code\"]", "time = \"=1.0.0\"\n"),
    );
    discrepancy(
        &env,
        ".codex/config.toml#time  time 1.0.0  no longer declared (`dotpack install` removes it)",
    );
    dp(&env, &["install"]).success();
    assert!(!env.project.join(".codex").exists());
    clean(&env);
}

#[test]
fn status_lists_every_discrepancy_as_a_table() {
    let env = Env::new();
    env.write(
        "dotpack.toml",
        &manifest(
            "[\"claude-code\", \"codex\", \"gemini-cli\"]",
            "time = \"^1.0\"\nfetch = \"^1.0\"\n",
        ),
    );
    dp(&env, &["install"]).success();
    let codex = env.read(".codex/config.toml");
    env.write(
        ".codex/config.toml",
        &codex.replace("mcp-server-time", "my-time"),
    );
    env.write(
        ".mcp.json",
        "{\n  \"mcpServers\": {\n    \"time\": {\"type\": \"stdio\", \"command\": \"uvx\", \"args\": [\"mcp-server-time\"]}\n  }\n}\n",
    );
    env.write(
        "dotpack.toml",
        &manifest(
            "[\"claude-code\", \"codex\", \"cursor\"]",
            "time = \"^1.0\"\nfetch = \"^1.0\"\nmemory = \"^1.0\"\n",
        ),
    );
    env.write(
        ".cursor/mcp.json",
        "{\"mcpServers\": {\"time\": {\"command\": \"my-time\"}}}\n",
    );
    let out = env.dotpack().arg("status").output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    insta::assert_snapshot!("status_discrepancies", String::from_utf8_lossy(&out.stdout));
}

// 8. A lock with merge conflict markers.

#[test]
fn a_lock_with_merge_conflict_markers_is_recovered_by_lock() {
    let env = Env::new();
    env.write("dotpack.toml", &manifest("[\"claude-code\"]", ""));
    env.write(".gitignore", ".dotpack/\n");
    dp(&env, &["lock"]).success();
    env.git_ok(&["init", "-q"]);
    env.git_ok(&["add", "-A"]);
    env.git_ok(&["commit", "-qm", "base"]);
    env.git_ok(&["checkout", "-qb", "other"]);
    dp(&env, &["add", "time"]).success();
    env.git_ok(&["add", "-A"]);
    env.git_ok(&["commit", "-qm", "time"]);
    env.git_ok(&["checkout", "-q", "main"]);
    dp(&env, &["add", "fetch"]).success();
    env.git_ok(&["add", "-A"]);
    env.git_ok(&["commit", "-qm", "fetch"]);
    let merge = env.git(&["merge", "--no-edit", "other"]);
    assert!(!merge.status.success(), "the merge conflicts");
    assert!(env.read("dotpack.lock").contains("<<<<<<<"));

    // The user resolves dotpack.toml and .mcp.json; dotpack.lock is dotpack's to resolve.
    env.write(
        "dotpack.toml",
        &manifest("[\"claude-code\"]", "fetch = \"^1.0\"\ntime = \"^1.0\"\n"),
    );
    let side = |rev: &str| -> serde_json::Value {
        serde_json::from_str(&env.git_ok(&["show", &format!("{rev}:.mcp.json")])).unwrap()
    };
    let mut both = side("HEAD");
    let theirs = side("other");
    for (name, entry) in theirs["mcpServers"].as_object().unwrap() {
        both["mcpServers"][name] = entry.clone();
    }
    let host_file = serde_json::to_string_pretty(&both).unwrap() + "\n";
    env.write(".mcp.json", &host_file);

    dp(&env, &["lock", "--locked"])
        .code(1)
        .stderr(contains("merge conflict markers"));
    dp(&env, &["status"]).code(1).stdout(contains(
        "dotpack.lock: has git merge conflict markers (`dotpack merge`)",
    ));
    dp(&env, &["lock"])
        .success()
        .stderr(contains("dotpack.lock has 2 git merge conflicts").and(contains("fetch, time")));
    let lock = env.read("dotpack.lock");
    for marker in ["<<<<<<<", "=======", ">>>>>>>"] {
        assert!(!lock.contains(marker), "{lock}");
    }
    for name in ["fetch", "time"] {
        assert!(lock.contains(&format!("name = \"{name}\"")), "{lock}");
        assert!(
            lock.contains(&format!("key = \"mcpServers.{name}\"")),
            "{lock}"
        );
    }
    assert_eq!(env.read(".mcp.json"), host_file);
    let list = dp(&env, &["list"]).success();
    for name in ["fetch", "time"] {
        assert!(
            stdout(&list)
                .lines()
                .any(|l| l.contains(&format!(".mcp.json#{name} "))
                    && l.trim_end().ends_with("installed")),
            "{}",
            stdout(&list)
        );
    }
    dp(&env, &["lock", "--locked"]).success();
    dp(&env, &["status"]).success();
}

// 9. Output tells the truth.

/// Lines that say a file was written.
fn claims_a_write() -> impl Predicate<str> {
    contains("Adding")
        .or(contains("Updated"))
        .or(contains("Created"))
        .or(contains("Finished"))
}

#[test]
fn a_command_that_cannot_take_the_lock_says_nothing_was_written() {
    let env = Env::new();
    let state = env.project.join(".dotpack");
    std::fs::create_dir_all(&state).unwrap();
    let lock = std::fs::File::create(state.join("lock")).unwrap();
    lock.lock().unwrap();
    dp(&env, &["--no-wait", "init"])
        .code(1)
        .stderr(contains("another dotpack").and(claims_a_write().not()));
    assert!(!env.project.join("dotpack.toml").exists());

    env.write("dotpack.toml", &manifest("[\"claude-code\"]", ""));
    let before = snapshot(env.home.path());
    dp(&env, &["--no-wait", "add", "time"])
        .code(1)
        .stderr(contains("another dotpack").and(claims_a_write().not()));
    assert_eq!(snapshot(env.home.path()), before);
    drop(lock);
    dp(&env, &["--no-wait", "add", "time"]).success();
}

#[test]
fn an_unsatisfiable_requirement_lists_the_versions_and_adds_nothing() {
    let env = Env::new();
    env.write("dotpack.toml", &manifest("[\"claude-code\"]", ""));
    let before = snapshot(env.home.path());
    dp(&env, &["add", "github@^9"]).code(1).stderr(
        contains("`github@^9` matches no published version")
            .and(contains("versions: 1.0.0, 1.1.0"))
            .and(claims_a_write().not()),
    );
    assert_eq!(snapshot(env.home.path()), before);
}

#[test]
fn dry_run_says_would_and_writes_nothing() {
    let env = Env::new();
    // init
    dp(&env, &["init", "--dry-run"])
        .success()
        .stderr(contains("Would create dotpack.toml").and(claims_a_write().not()));
    assert!(snapshot(env.home.path()).is_empty());

    // add
    env.write("dotpack.toml", &manifest("[\"claude-code\"]", ""));
    let before = snapshot(env.home.path());
    let out = dp(&env, &["add", "time", "--dry-run"])
        .success()
        .stderr(claims_a_write().not());
    assert_eq!(snapshot(env.home.path()), before);
    insta::assert_snapshot!("add_dry_run", stderr(&out));

    // lock
    env.write(
        "dotpack.toml",
        &manifest("[\"claude-code\"]", "fetch = \"^1.0\"\n"),
    );
    let before = snapshot(env.home.path());
    dp(&env, &["lock", "--dry-run"])
        .success()
        .stdout(contains("+++ b/dotpack.lock"))
        .stderr(contains("Would create dotpack.lock").and(claims_a_write().not()));
    assert_eq!(snapshot(env.home.path()), before);

    // rollback
    dp(&env, &["add", "time"]).success();
    let before = snapshot(env.home.path());
    dp(&env, &["rollback", "--dry-run"]).success().stderr(
        contains("Would remove time v1.0.0")
            .and(contains("Removing").not())
            .and(claims_a_write().not()),
    );
    assert_eq!(snapshot(env.home.path()), before);

    // gc, with generations to delete
    dp(&env, &["remove", "time"]).success();
    dp(&env, &["add", "time"]).success();
    let text = env.read("dotpack.toml") + "\n[settings]\nkeep_generations = 1\n";
    env.write("dotpack.toml", &text);
    let before = snapshot(env.home.path());
    dp(&env, &["gc", "--dry-run"])
        .success()
        .stderr(contains("Would remove").and(contains("Removed").not()));
    assert_eq!(snapshot(env.home.path()), before);
    dp(&env, &["gc"]).success().stderr(contains("Removed"));
}

/// A registry with `both`: a server with `cwd` (not security-relevant) and `enabled_tools`
/// (security-relevant), neither of which Claude Code can express.
fn lossy_registry(env: &Env) -> PathBuf {
    build_registry(
        env,
        &[(
            "both",
            "[package]\nname = \"both\"\nversion = \"1.0.0\"\n\n[servers.both]\ncommand = \"both-mcp\"\nargs = []\ncwd = \"/srv/both\"\nenabled_tools = [\"read\"]\n",
        )],
    )
}

#[test]
fn allow_lossy_flags_combine_and_an_unknown_name_is_a_usage_error() {
    let env = Env::new();
    let reg = lossy_registry(&env);
    env.write("dotpack.toml", &manifest("[\"claude-code\"]", ""));
    let before = snapshot(&env.project);
    let add = |extra: &[&str]| {
        let mut args = vec!["add", "both"];
        args.extend(extra);
        env.with_registry(&reg, &args).assert()
    };
    add(&["--allow-lossy"]).code(1).stderr(
        contains("`enabled_tools` (security-relevant)")
            .and(contains("`cwd`").not())
            .and(contains("--allow-lossy=enabled_tools")),
    );
    add(&["--allow-lossy=enabled_tools"])
        .code(1)
        .stderr(contains("field `cwd`").and(contains("enabled_tools").not()));
    add(&["--allow-lossy=bogus"]).code(2).stderr(
        contains("`bogus` is not a server field or concept")
            .and(contains("enabled_tools"))
            .and(contains("cwd")),
    );
    assert_eq!(snapshot(&env.project), before);
    add(&["--allow-lossy", "--allow-lossy=enabled_tools"])
        .success()
        .stderr(contains("dropped cwd, enabled_tools"));
    assert!(
        env.read("dotpack.lock")
            .contains("dropped = [\"cwd\", \"enabled_tools\"]")
    );
    assert!(!env.read(".mcp.json").contains("/srv/both"));
}

#[test]
fn init_is_a_transaction_that_history_shows_and_rollback_undoes() {
    let env = Env::new();
    dp(&env, &["init"])
        .success()
        .stderr(contains("Created dotpack.toml").and(contains("Created .gitignore")));
    dp(&env, &["history"])
        .success()
        .stdout(contains("dotpack init"));
    dp(&env, &["rollback"]).success();
    assert!(!env.project.join("dotpack.toml").exists());
    assert!(!env.project.join(".gitignore").exists());

    // An existing .gitignore is updated, and rollback gives its bytes back.
    env.write(".gitignore", "target/\n");
    dp(&env, &["init"])
        .success()
        .stderr(contains("Updated .gitignore"));
    assert_eq!(env.read(".gitignore"), "target/\n.dotpack/\n");
    dp(&env, &["rollback"]).success();
    assert_eq!(env.read(".gitignore"), "target/\n");
    assert!(!env.project.join("dotpack.toml").exists());
}

#[test]
fn rollback_keeps_an_entry_written_by_hand_before_the_undone_change() {
    let env = Env::new();
    env.write("dotpack.toml", &manifest("[\"claude-code\"]", ""));
    dp(&env, &["add", "time"]).success();
    let edited = env.read(".mcp.json").replacen(
        "\"mcpServers\": {",
        "\"mcpServers\": {\n    \"mine\": {\"command\": \"my-server\"},",
        1,
    );
    env.write(".mcp.json", &edited);
    dp(&env, &["add", "fetch"]).success();
    dp(&env, &["rollback"])
        .success()
        .stderr(contains("Removing fetch v1.0.0"));
    assert_eq!(env.read(".mcp.json"), edited);
    dp(&env, &["status"]).success();
}

// 10. Folders dotpack created leave with their last file.

#[test]
fn folders_dotpack_created_leave_with_their_last_file() {
    let env = Env::new();
    env.write(
        "dotpack.toml",
        &manifest("[\"codex\", { host = \"vscode\", scope = \"user\" }]", ""),
    );
    dp(&env, &["trust"]).success();
    dp(&env, &["add", "time", "--scope", "user"]).success();
    assert!(home(&env, ".codex/config.toml").exists());
    assert!(home(&env, ".config/Code/User/mcp.json").exists());
    dp(&env, &["add", "fetch"]).success();
    assert!(env.project.join(".codex/config.toml").exists());

    dp(&env, &["remove", "time"]).success();
    assert!(!home(&env, ".codex").exists());
    assert!(home(&env, ".config/Code/User/mcp.json").exists());
    dp(&env, &["uninstall"]).success();
    assert!(!env.project.join(".codex").exists());
    assert!(!home(&env, ".config").exists());

    // Nothing left behind makes a later init detect those hosts.
    std::fs::remove_file(env.project.join("dotpack.toml")).unwrap();
    std::fs::remove_file(env.project.join("dotpack.lock")).unwrap();
    dp(&env, &["init"]).success();
    assert!(env.read("dotpack.toml").contains("hosts = []"));
}

#[test]
fn folders_that_existed_before_are_kept() {
    let env = Env::new();
    std::fs::create_dir_all(env.project.join(".codex")).unwrap();
    std::fs::create_dir_all(home(&env, ".config")).unwrap();
    std::fs::write(home(&env, ".config/other.conf"), "x = 1\n").unwrap();
    env.write(
        "dotpack.toml",
        &manifest("[\"codex\", { host = \"vscode\", scope = \"user\" }]", ""),
    );
    dp(&env, &["trust"]).success();
    dp(&env, &["add", "time"]).success();
    dp(&env, &["remove", "time"]).success();
    assert!(env.project.join(".codex").is_dir());
    assert!(!env.project.join(".codex/config.toml").exists());
    assert!(!home(&env, ".config/Code").exists());
    assert_eq!(read_home(&env, ".config/other.conf"), "x = 1\n");
}

#[test]
fn rollback_of_an_add_removes_the_folders_the_add_created() {
    let env = Env::new();
    env.write(
        "dotpack.toml",
        &manifest("[\"codex\", { host = \"vscode\", scope = \"user\" }]", ""),
    );
    dp(&env, &["trust"]).success();
    dp(&env, &["add", "time"]).success();
    assert!(env.project.join(".codex/config.toml").exists());
    dp(&env, &["rollback"]).success();
    assert!(!env.project.join(".codex").exists());
    assert!(!home(&env, ".config").exists());
}

// 11. A clone is told which environment variables its servers read.

#[test]
fn a_clone_is_told_which_environment_variables_are_unset() {
    let env = Env::new();
    env.write("dotpack.toml", &manifest("[\"claude-code\"]", ""));
    dp(&env, &["add", "github"]).success();
    let mate = Env::new();
    for file in ["dotpack.toml", "dotpack.lock", ".mcp.json"] {
        mate.write(file, &env.read(file));
    }
    let unset =
        "github reads GITHUB_PERSONAL_ACCESS_TOKEN from the environment, which is not set here";
    for args in [
        &["install"][..],
        &["install", "--locked"][..],
        &["status"][..],
    ] {
        mate.dotpack()
            .env_remove("GITHUB_PERSONAL_ACCESS_TOKEN")
            .args(args)
            .assert()
            .success()
            .stderr(contains(unset));
        mate.dotpack()
            .env("GITHUB_PERSONAL_ACCESS_TOKEN", "set-here")
            .args(args)
            .assert()
            .success()
            .stderr(contains("GITHUB_PERSONAL_ACCESS_TOKEN").not());
    }
}

// 12. The project's own servers are entries like any other.

#[test]
fn uninstall_takes_out_own_servers_and_accepts_server_names() {
    let env = Env::new();
    let reg = build_registry(
        &env,
        &[(
            "gh",
            "[package]\nname = \"gh\"\nversion = \"1.0.0\"\n\n[servers.gh-issues]\ncommand = \"gh-mcp\"\nargs = [\"issues\"]\n\n[servers.gh-pulls]\ncommand = \"gh-mcp\"\nargs = [\"pulls\"]\n",
        )],
    );
    let outside = outside_project(&env);
    let dpr = |args: &[&str]| env.with_registry(&reg, args).assert();
    env.write(
        "dotpack.toml",
        "[project]\nhosts = [\"claude-code\"]\n\n[servers.notes]\ncommand = \"notes-mcp\"\nargs = []\n\n[servers.todo]\ncommand = \"todo-mcp\"\nargs = []\n\n[dependencies]\ngh = \"^1.0\"\n",
    );
    dpr(&["install"]).success();
    assert_eq!(
        json_servers(&env.read(".mcp.json")),
        ["gh-issues", "gh-pulls", "notes", "todo"]
    );
    let packages = locked_packages(&env.read("dotpack.lock"));

    dpr(&["uninstall", "notes"]).success();
    assert_eq!(
        json_servers(&env.read(".mcp.json")),
        ["gh-issues", "gh-pulls", "todo"]
    );
    dpr(&["uninstall", "gh-pulls"]).success();
    assert_eq!(json_servers(&env.read(".mcp.json")), ["gh-issues", "todo"]);
    assert!(
        env.read("dotpack.toml")
            .contains("exclude = [\"notes\", \"gh-pulls\"]")
    );
    dpr(&["status"]).success();

    let before = snapshot(env.home.path());
    dpr(&["uninstall", "gh-pull"]).code(1).stderr(
        contains("`gh-pull` is neither a package nor a server")
            .and(contains("did you mean `gh-pulls`?")),
    );
    dpr(&["uninstall", "note"])
        .code(1)
        .stderr(contains("did you mean `notes`?"));
    assert_eq!(snapshot(env.home.path()), before);

    dpr(&["uninstall"]).success().stderr(contains(
        "`dotpack install --host claude-code` puts them back",
    ));
    assert!(!env.project.join(".mcp.json").exists());
    assert!(!env.read("dotpack.lock").contains("[[claim]]"));
    assert_eq!(locked_packages(&env.read("dotpack.lock")), packages);
    // Every host left: the packages stay declared and locked, installed nowhere, and `status`
    // says so.
    dpr(&["status"])
        .code(1)
        .stdout(contains("4 servers are declared and installed nowhere"));
    assert_eq!(outside_project(&env), outside);
}

#[test]
fn rollback_refuses_to_lose_hand_edits_to_the_manifest_unless_forced() {
    let env = Env::new();
    env.write("dotpack.toml", &manifest("[\"claude-code\"]", ""));
    dp(&env, &["add", "time"]).success();
    dp(&env, &["add", "fetch"]).success();
    let edited = format!(
        "# my notes\n{}\n[servers.mine]\ncommand = \"mine\"\nargs = []\n\n[settings]\nkeep_generations = 9\n",
        env.read("dotpack.toml")
    );
    env.write("dotpack.toml", &edited);
    let before = snapshot(&env.project);
    dp(&env, &["rollback"])
        .code(1)
        .stderr(contains("dotpack.toml was edited").and(contains("--force")));
    assert_eq!(
        snapshot(&env.project),
        before,
        "a refused rollback changes nothing"
    );
    dp(&env, &["rollback", "--force"]).success();
    let restored = env.read("dotpack.toml");
    assert!(
        !restored.contains("fetch") && !restored.contains("[servers.mine]"),
        "{restored}"
    );
}
