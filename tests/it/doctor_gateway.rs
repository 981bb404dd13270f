//! `doctor` with `[project] gateway = true`: each host holds one `dotpack serve` entry, so doctor
//! checks that entry for dotpack, and the servers behind it for the programs and secrets they
//! need, since `dotpack serve` starts them with the PATH and environment the host gives it.

use std::path::Path;

use serde_json::Value;

use crate::support::{Env, transcript_of};
use crate::support_keyring::Keyring;

const VALUE: &str = "gateway-doctor-secret-1a2b3c4d";

/// A runner with its runtime, uv, Docker, and an HTTP server with a secret in a header.
const SERVERS: &str = r#"
[servers.web]
command = "npx"
args = ["-y", "web-mcp@1.0.0"]

[servers.git]
command = "uvx"
args = ["mcp-server-git"]
env = { GIT_TOKEN = "{{env.GIT_TOKEN}}" }

[servers.db]
command = "docker"
args = ["run", "-i", "--rm", "db-mcp"]

[servers.api]
url = "http://127.0.0.1:9/mcp"
http_headers = { Authorization = "Bearer {{env.API_KEY}}" }
"#;

/// The project, installed: Claude Code (a terminal host) and Cursor (a desktop app) in the
/// project's files, each with the one `dotpack` entry.
fn project(env: &Env, hosts: &str) {
    env.write(
        "dotpack.toml",
        &format!("[project]\nhosts = [{hosts}]\ngateway = true\n{SERVERS}"),
    );
    std::fs::create_dir_all(env.project.join(".cursor")).unwrap();
    let out = env.dotpack().args(["--trust", "install"]).output().unwrap();
    assert!(out.status.success(), "{out:?}");
}

const PROJECT_HOSTS: &str = "\"claude-code\", \"cursor\"";

/// `dotpack` with `PATH` set to `path`, no secret in the environment and no store answering
/// (unless `keyring` says where one is).
fn dotpack(env: &Env, path: &Path, keyring: Option<&Keyring>) -> assert_cmd::Command {
    let mut cmd = env.dotpack();
    cmd.env("PATH", path)
        .env_remove("GIT_TOKEN")
        .env_remove("API_KEY");
    match keyring {
        Some(keyring) => keyring.apply(&mut cmd),
        None => {
            cmd.env(
                "DBUS_SESSION_BUS_ADDRESS",
                format!("unix:path={}", env.home.path().join("no-bus").display()),
            );
        }
    }
    cmd
}

fn json(cmd: &mut assert_cmd::Command) -> Value {
    let out = cmd.args(["--json", "doctor"]).output().unwrap();
    assert!(out.status.success(), "{out:?}");
    assert!(!String::from_utf8_lossy(&out.stdout).contains(VALUE));
    assert!(!String::from_utf8_lossy(&out.stderr).contains(VALUE));
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {out:?}"))
}

/// `(file, server, behind, program)` of each program doctor found missing, sorted.
fn programs(doc: &Value) -> Vec<(String, String, String, String)> {
    let text = |v: &Value| v.as_str().unwrap_or("-").to_string();
    let mut out: Vec<_> = doc["programs"]
        .as_array()
        .unwrap_or_else(|| panic!("{doc}"))
        .iter()
        .map(|m| {
            (
                text(&m["file"]),
                text(&m["server"]),
                text(&m["behind"]),
                text(&m["program"]),
            )
        })
        .collect();
    out.sort();
    out
}

fn fix_of<'a>(doc: &'a Value, server: &str, program: &str) -> &'a str {
    doc["programs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["server"] == server && m["program"] == program)
        .and_then(|m| m["fix"].as_str())
        .unwrap_or_else(|| panic!("no {program} for {server}: {doc}"))
}

#[test]
fn doctor_checks_the_gateway_entry_and_the_programs_of_the_servers_behind_it() {
    let env = Env::new();
    project(&env, PROJECT_HOSTS);

    // npx is there but not Node.js, nor uv, Docker or dotpack itself.
    let bin = env.path_with(&["claude", "npx"]);
    let doc = json(&mut dotpack(&env, &bin, None));
    let mut want = Vec::new();
    for file in [".cursor/mcp.json", ".mcp.json"] {
        for (server, behind, program) in [
            ("db", "dotpack", "docker"),
            ("dotpack", "-", "dotpack"),
            ("git", "dotpack", "uvx"),
            ("web", "dotpack", "node"),
        ] {
            want.push((file, server, behind, program).map_into());
        }
    }
    want.sort();
    assert_eq!(programs(&doc), want, "{doc}");
    let entry = fix_of(&doc, "dotpack", "dotpack");
    assert!(
        entry.contains("starts the gateway with `dotpack serve`") && !entry.contains("dotpack run"),
        "{entry}"
    );
    let web = fix_of(&doc, "web", "node");
    assert!(
        web.contains("`web` starts with Node.js")
            && web.contains("the gateway (`dotpack serve`) starts it")
            && web.contains("install Node.js"),
        "{web}"
    );
    assert!(fix_of(&doc, "db", "docker").contains("install Docker"));

    // With every program there, nothing is missing.
    let bin = env.path_with(&["claude", "npx", "node", "uvx", "docker", "dotpack"]);
    let doc = json(&mut dotpack(&env, &bin, None));
    assert_eq!(programs(&doc), Vec::new(), "{doc}");
}

trait MapInto {
    fn map_into(self) -> (String, String, String, String);
}

impl MapInto for (&str, &str, &str, &str) {
    fn map_into(self) -> (String, String, String, String) {
        (self.0.into(), self.1.into(), self.2.into(), self.3.into())
    }
}

/// What people read: the gateway entry, the programs the servers behind it lack, and how each
/// of their secrets would reach them.
#[test]
fn doctor_says_what_the_servers_behind_the_gateway_lack() {
    let env = Env::new();
    project(&env, PROJECT_HOSTS);
    let bin = env.path_with(&["claude", "npx"]);
    let out = dotpack(&env, &bin, None).arg("doctor").output().unwrap();
    insta::assert_snapshot!(transcript_of(&env, &["doctor"], &out));
}

/// `(host, server, secret)` → the delivery doctor reports.
fn delivery<'a>(doc: &'a Value, host: &str, server: &str, secret: &str) -> &'a Value {
    doc["secrets"]["servers"]
        .as_array()
        .unwrap_or_else(|| panic!("{doc}"))
        .iter()
        .find(|d| d["host"] == host && d["server"] == server && d["secret"] == secret)
        .unwrap_or_else(|| panic!("no {secret} of {server} for {host}: {doc}"))
}

#[test]
fn the_gateway_takes_a_secret_from_a_terminal_hosts_environment_and_a_desktop_app_lacks_it() {
    let env = Env::new();
    project(&env, PROJECT_HOSTS);
    let bin = env.path_with(&["claude"]);
    let doc = json(dotpack(&env, &bin, None).env("GIT_TOKEN", VALUE));
    let servers = doc["secrets"]["servers"].as_array().unwrap();
    // Two secrets of the servers behind each host's one entry; none of the entry's own.
    assert_eq!(servers.len(), 4, "{doc}");
    let code = delivery(&doc, "claude-code", "git", "GIT_TOKEN");
    assert_eq!(code["via"], "gateway-environment", "{code}");
    assert_eq!(code["behind"], "dotpack", "{code}");
    assert!(code.get("missing").is_none(), "{code}");
    let cursor = delivery(&doc, "cursor", "git", "GIT_TOKEN");
    assert_eq!(cursor["via"], "gateway-store", "{cursor}");
    assert!(
        cursor["missing"].as_str().unwrap().contains("desktop app"),
        "{cursor}"
    );
    let api = delivery(&doc, "claude-code", "api", "API_KEY");
    assert_eq!(
        api["missing"], "the credential store is not reachable, and the environment has no API_KEY",
        "{api}"
    );
    assert_eq!(doc["secrets"]["store"]["reachable"], false, "{doc}");
}

/// With a real store: the gateway reads a stored secret for every host, the desktop app
/// included; one neither stored nor set is named with `dotpack secret set`.
#[test]
fn the_gateway_reads_a_stored_secret_for_every_host_and_names_the_one_not_stored() {
    let env = Env::new();
    let Some(keyring) = Keyring::start(env.home.path()) else {
        return;
    };
    project(&env, PROJECT_HOSTS);
    let mut set = env.dotpack();
    keyring.apply(&mut set);
    set.args(["secret", "set", "API_KEY"])
        .write_stdin(VALUE)
        .assert()
        .success();
    let bin = env.path_with(&["claude"]);
    let doc = json(&mut dotpack(&env, &bin, Some(&keyring)));
    assert_eq!(doc["secrets"]["store"]["reachable"], true, "{doc}");
    for host in ["claude-code", "cursor"] {
        let api = delivery(&doc, host, "api", "API_KEY");
        assert_eq!(api["via"], "gateway-store", "{api}");
        assert!(api.get("missing").is_none(), "{api}");
        let git = delivery(&doc, host, "git", "GIT_TOKEN");
        assert!(
            git["missing"]
                .as_str()
                .unwrap()
                .starts_with("GIT_TOKEN is not in the credential store"),
            "{git}"
        );
        assert_eq!(git["fix"], "run `dotpack secret set GIT_TOKEN`");
    }
}

/// A user file's entry names this dotpack and the project's manifest: doctor checks it as this
/// project's, and says to install again when that dotpack is gone.
#[test]
fn a_user_files_gateway_entry_is_checked_as_the_projects() {
    let env = Env::new();
    project(&env, "{ host = \"claude-code\", scope = \"user\" }");
    let bin = env.path_with(&["claude", "npx", "node", "uvx", "docker"]);
    let doc = json(&mut dotpack(&env, &bin, None));
    assert_eq!(programs(&doc), Vec::new(), "{doc}");
    let git = delivery(&doc, "claude-code", "git", "GIT_TOKEN");
    assert_eq!(git["behind"], "dotpack", "{git}");

    let user = env.home.path().join(".claude.json");
    let text = std::fs::read_to_string(&user).unwrap();
    let exe = assert_cmd::cargo::cargo_bin("dotpack")
        .display()
        .to_string();
    std::fs::write(&user, text.replace(&exe, "/gone/dotpack")).unwrap();
    let doc = json(&mut dotpack(&env, &bin, None));
    let fix = fix_of(&doc, "dotpack", "/gone/dotpack");
    assert!(fix.contains("run `dotpack install` again"), "{fix}");
}

/// Registry packages behind the gateway are read from the lock and the registry's cache, as
/// `dotpack serve` reads them; a package whose `gateway` is "off" is not behind it.
#[test]
fn doctor_checks_locked_packages_behind_the_gateway_and_not_those_left_out() {
    let env = Env::new();
    env.write(
        "dotpack.toml",
        "[project]\nhosts = [\"claude-code\"]\ngateway = true\n\n[dependencies]\ngithub = \"^1\"\nfilesystem = { version = \"^1\", gateway = \"off\" }\n",
    );
    let out = env.dotpack().args(["--trust", "install"]).output().unwrap();
    assert!(out.status.success(), "{out:?}");
    let bin = env.path_with(&["claude", "dotpack"]);
    let doc = json(&mut dotpack(&env, &bin, None));
    let servers: Vec<String> = programs(&doc).into_iter().map(|p| p.1).collect();
    assert_eq!(servers, ["github"], "{doc}");
    let github = doc["secrets"]["servers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["server"] == "github")
        .unwrap_or_else(|| panic!("{doc}"));
    assert_eq!(github["behind"], "dotpack", "{github}");
    assert!(
        github["secret"].as_str().unwrap().starts_with("GITHUB_"),
        "{github}"
    );
    assert!(
        !doc["secrets"]["servers"].to_string().contains("filesystem"),
        "{doc}"
    );
}
