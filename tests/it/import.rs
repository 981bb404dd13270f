//! `dotpack import`: every host's file read back into canonical servers, the file never touched;
//! `--into` owning them without changing the file; `init --import` merging or refusing.
//!
//! Fixtures are built per host from the adapter list, so a new host is covered by adding it
//! there: canonical servers are translated for the host and written into a file of its format
//! that already holds comments (where the format has them), unrelated settings, tabs or CRLF.

use std::path::{Path, PathBuf};

use dotpack::formats::{Format, upsert_entry};
use dotpack::model::hosts::{ADAPTERS, HostAdapter, HostEnv, Scope};
use dotpack::model::manifest::Server;
use dotpack::template::Props;
use serde_json::{Value, json};

use crate::support::{Env, assert_success};

/// Canonical servers every host can hold: a `docker run` wrapper with a literal secret in `env`,
/// an `npx mcp-remote` wrapper, a unicode name with a Windows path, and a remote server.
const SERVERS: &[(&str, &str)] = &[
    (
        "github",
        r#"command = "docker"
args = ["run", "-i", "--rm", "-e", "GITHUB_PERSONAL_ACCESS_TOKEN", "ghcr.io/github/github-mcp-server"]
env = { GITHUB_PERSONAL_ACCESS_TOKEN = "ghp_1234567890abcdefABCDEF1234567890abcd" }
"#,
    ),
    (
        "linear-remote",
        r#"command = "npx"
args = ["-y", "mcp-remote", "https://mcp.linear.app/sse"]
"#,
    ),
    (
        "café-時間",
        r#"command = 'C:\Program Files\Time\time-mcp.exe'
args = ['--tz', 'Europe/Paris', '--data', '%APPDATA%\time', "~/x"]
env = { LOG = "debug" }
"#,
    ),
    (
        "docs",
        r#"url = "https://docs.example.dev/mcp"
http_headers = { X-Team = "platform" }
"#,
    ),
];

/// A file of `format` holding unrelated settings, an empty container where the format allows
/// comments around it, indented with tabs.
fn base_text(format: Format, container: &[&str]) -> String {
    let path = container.join(".");
    match format {
        Format::Json => "{\n\t\"theme\": \"dark\",\n\t\"numStartups\": 3\n}\n".to_string(),
        Format::Jsonc => {
            "// editor settings\n{\n\t\"editor.fontSize\": 13, // mine\n\t/* block */\n\t\"files.eol\": \"\\n\",\n}\n".to_string()
        }
        Format::Toml => format!("# my config\nmodel = \"o3\"\n\n[{path}]\n"),
        Format::Yaml => "# my config\ntheme: dark\n".to_string(),
    }
}

/// The host's file with every server of [`SERVERS`], as the host would write them.
fn fixture(host: &HostAdapter, crlf: bool) -> String {
    let mut text = base_text(host.format, host.container.path);
    for (name, toml) in SERVERS {
        let server: Server = toml::from_str(toml).unwrap();
        let entry = dotpack::plan::to_host::translate(host, name, &server, &Props::new())
            .unwrap_or_else(|e| panic!("{}: {name}: {e}", host.id))
            .entry;
        text = upsert_entry(host.format, &text, host.container, name, &entry)
            .unwrap_or_else(|e| panic!("{}: {name}: {e}", host.id))
            .text;
    }
    if crlf {
        text = text.replace('\n', "\r\n");
    }
    text
}

/// The canonical servers of [`SERVERS`] as `import --json` prints them.
fn expected() -> Value {
    let mut servers = serde_json::Map::new();
    for (name, toml) in SERVERS {
        let server: Server = toml::from_str(toml).unwrap();
        servers.insert(name.to_string(), serde_json::to_value(&server).unwrap());
    }
    // An `mcp-remote` bridge is imported as the remote server it reaches, from every host.
    servers.insert(
        "linear-remote".to_string(),
        serde_json::json!({"url": "https://mcp.linear.app/sse"}),
    );
    Value::Object(servers)
}

/// The scope and path of `host`'s file in `env` (its project file when it has one).
fn host_file(env: &Env, host: &HostAdapter) -> (Scope, PathBuf) {
    let henv = HostEnv::new(env.home.path());
    let scope = if host.project_file.is_some() {
        Scope::Project
    } else {
        Scope::User
    };
    (scope, host.path(scope, &env.project, &henv).unwrap())
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn import_json(env: &Env, host: &str, scope: Scope) -> Value {
    let out = env
        .dotpack()
        .args(["import", host, "--scope", &scope.to_string(), "--json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{host}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn import_prints_every_hosts_servers_in_canonical_form_and_leaves_the_file_alone() {
    for host in ADAPTERS {
        for crlf in [false, true] {
            let env = Env::new();
            let (scope, path) = host_file(&env, host);
            write(&path, &fixture(host, crlf));
            let before = std::fs::read(&path).unwrap();
            let mtime = std::fs::metadata(&path).unwrap().modified().unwrap();
            let doc = import_json(&env, host.id, scope);
            assert_eq!(doc["host"], host.id);
            assert_eq!(doc["servers"], expected(), "{} crlf={crlf}", host.id);
            let mut codes: Vec<(&str, &str)> = doc["warnings"]
                .as_array()
                .unwrap()
                .iter()
                .map(|w| (w["code"].as_str().unwrap(), w["server"].as_str().unwrap()))
                .collect();
            codes.sort_unstable();
            // The bridge is noted where the host reaches remote servers itself.
            let mut want = vec![("literal-secret", "github")];
            if host.remote_wrapper.is_none() {
                want.push(("remote-bridge", "linear-remote"));
            }
            assert_eq!(codes, want, "{}", host.id);
            let text = env
                .dotpack()
                .args(["import", host.id, "--scope", &scope.to_string()])
                .output()
                .unwrap();
            let toml_out = String::from_utf8(text.stdout).unwrap();
            assert!(
                toml_out.contains(
                    "[servers.\"café-時間\"]\ncommand = 'C:\\Program Files\\Time\\time-mcp.exe'"
                ) || toml_out.contains("[servers.\"café-時間\"]\ncommand = \"C:\\\\Program Files"),
                "{}: {toml_out}",
                host.id
            );
            assert_eq!(std::fs::read(&path).unwrap(), before, "{}", host.id);
            assert_eq!(std::fs::metadata(&path).unwrap().modified().unwrap(), mtime);
        }
    }
}

#[test]
fn import_json_shape_is_exact() {
    let env = Env::new();
    env.write(
        ".mcp.json",
        r#"{
  "mcpServers": {
    "api": {"type": "sse", "url": "https://api.example.dev/sse", "headers": {"Authorization": "Bearer ${API_TOKEN}"}},
    "bad": {"type": "http", "command": "node", "args": ["s.js"], "env": {"PORT": 8080}, "frobnicate": true},
    "empty": {}
  },
  "permissions": {"allow": []}
}
"#,
    );
    let out = env
        .dotpack()
        .args(["import", "claude-code", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success());
    insta::assert_snapshot!("import_json_shape", String::from_utf8_lossy(&out.stdout));
}

#[test]
fn import_refuses_files_it_cannot_read_naming_line_and_column() {
    for host in ADAPTERS {
        let env = Env::new();
        let (scope, path) = host_file(&env, host);
        let container = host.container.display();
        let (broken, wrong) = match host.format {
            Format::Json | Format::Jsonc => (
                "{\n  \"a\": \n".to_string(),
                format!("{{\n  \"{container}\": [1, 2]\n}}\n"),
            ),
            Format::Toml => (
                "a = \n".to_string(),
                format!("x = 1\n{container} = \"nope\"\n"),
            ),
            Format::Yaml => ("a: [1,\n".to_string(), format!("x: 1\n{container}: 3\n")),
        };
        for text in [broken, wrong] {
            write(&path, &text);
            let out = env
                .dotpack()
                .args(["import", host.id, "--scope", &scope.to_string()])
                .output()
                .unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(1), "{}: {stderr}", host.id);
            assert!(stderr.contains("line "), "{}: {stderr}", host.id);
            assert!(stderr.contains("column "), "{}: {stderr}", host.id);
            assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
        }
    }
}

#[test]
fn import_of_a_missing_file_names_the_path_and_the_host() {
    let env = Env::new();
    let out = env
        .dotpack()
        .args(["import", "cursor", "--scope", "project"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr.contains("Cursor") && stderr.contains(".cursor/mcp.json"),
        "{stderr}"
    );
    let out = env
        .dotpack()
        .args(["import", "cursor", "--file", "nowhere.json"])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).contains("nowhere.json does not exist"));
}

#[test]
fn empty_and_missing_containers_import_nothing() {
    for host in ADAPTERS {
        let env = Env::new();
        let (scope, path) = host_file(&env, host);
        for text in [base_text(host.format, host.container.path), String::new()] {
            write(&path, &text);
            let doc = import_json(&env, host.id, scope);
            assert_eq!(doc["servers"], json!({}), "{}", host.id);
            assert_eq!(doc["warnings"], json!([]), "{}", host.id);
        }
    }
}

#[test]
fn a_file_given_with_file_is_read_in_the_hosts_format() {
    let env = Env::new();
    let cursor = dotpack::model::hosts::adapter("cursor").unwrap();
    let path = env.write("backup/old.json", &fixture(cursor, true));
    let out = env
        .dotpack()
        .args(["import", "cursor", "--file"])
        .arg(&path)
        .arg("--json")
        .output()
        .unwrap();
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["servers"], expected());
}

/// A project in `env` declaring `hosts` and nothing else.
fn project(env: &Env, hosts: &[&str]) {
    let list: Vec<String> = hosts.iter().map(|h| format!("\"{h}\"")).collect();
    env.write(
        "dotpack.toml",
        &format!("# mine\n[project]\nhosts = [{}]\n", list.join(", ")),
    );
}

#[test]
fn imported_servers_install_back_into_an_equivalent_entry() {
    for host in ADAPTERS {
        let from = Env::new();
        let (scope, path) = host_file(&from, host);
        write(&path, &fixture(host, false));
        let toml_out = from
            .dotpack()
            .args(["import", host.id, "--scope", &scope.to_string()])
            .output()
            .unwrap()
            .stdout;
        let mut imported = import_json(&from, host.id, scope);
        // dotpack.toml names servers in ASCII: the unicode-named one goes in renamed.
        let servers = imported["servers"].as_object_mut().unwrap();
        let renamed = servers.remove("café-時間").unwrap();
        servers.insert("cafe-time".to_string(), renamed);
        // Install refuses a literal secret (tests/it/templates.rs); the round trip is about
        // shapes, so the token becomes a plain value on both sides.
        const TOKEN: &str = "ghp_1234567890abcdefABCDEF1234567890abcd";
        const PLAIN: &str = "plain-value";
        if let Some(v) = imported.pointer_mut("/servers/github/env/GITHUB_PERSONAL_ACCESS_TOKEN")
            && v == TOKEN
        {
            *v = Value::from(PLAIN);
        }
        let toml_out = String::from_utf8(toml_out)
            .unwrap()
            .replace("\"café-時間\"", "cafe-time")
            .replace(TOKEN, PLAIN);
        let to = Env::new();
        to.write(
            "dotpack.toml",
            &format!(
                "[project]\nhosts = [{{ host = \"{}\", scope = \"{scope}\" }}]\n\n{}",
                host.id, toml_out
            ),
        );
        let mut install = to.dotpack();
        // The manifest is the user's own: user-scope writes are allowed for this run.
        install.args(["--trust", "install"]);
        if host.remote_wrapper.is_some() {
            install.arg("--allow-lossy=transport");
        }
        let out = install.output().unwrap();
        assert!(
            out.status.success(),
            "{}: {}",
            host.id,
            String::from_utf8_lossy(&out.stderr)
        );
        let again = import_json(&to, host.id, scope);
        assert_eq!(again["servers"], imported["servers"], "{}", host.id);
    }
}

#[test]
fn into_then_install_keeps_the_original_file_byte_identical_and_fills_the_other_hosts() {
    for host in ADAPTERS {
        let other = ADAPTERS
            .iter()
            .find(|a| {
                a.id != host.id && a.project_file.is_some() && !a.same_file(host, Scope::Project)
            })
            .unwrap();
        let env = Env::new();
        let (scope, path) = host_file(&env, host);
        write(&path, &fixture(host, true));
        let before = std::fs::read(&path).unwrap();
        project(&env, &[]);
        let out = env
            .dotpack()
            .args(["import", host.id, "--into", "--scope", &scope.to_string()])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{}: {stderr}", host.id);
        assert!(
            stderr.contains("GITHUB_PERSONAL_ACCESS_TOKEN"),
            "{}: {stderr}",
            host.id
        );
        assert_eq!(std::fs::read(&path).unwrap(), before, "{}", host.id);
        let manifest = env.read("dotpack.toml");
        assert!(manifest.starts_with("# mine\n"), "{manifest}");
        assert!(
            manifest.contains(
                "GITHUB_PERSONAL_ACCESS_TOKEN = \"{{env.GITHUB_PERSONAL_ACCESS_TOKEN}}\""
            ),
            "{manifest}"
        );
        assert!(!manifest.contains("ghp_"), "{manifest}");
        let validate = env.dotpack().arg("validate").output().unwrap();
        assert!(
            validate.status.success(),
            "{}",
            String::from_utf8_lossy(&validate.stderr)
        );
        let out = env
            .dotpack()
            .args(["install", "--host", other.id])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{} -> {}: {}",
            host.id,
            other.id,
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(std::fs::read(&path).unwrap(), before, "{}", host.id);
        let (other_scope, _) = host_file(&env, other);
        let fanned = import_json(&env, other.id, other_scope);
        assert_eq!(
            fanned["servers"]["github"]["env"]["GITHUB_PERSONAL_ACCESS_TOKEN"]
                .as_str()
                .map(|s| s.contains("GITHUB_PERSONAL_ACCESS_TOKEN") && !s.contains("ghp_")),
            Some(true),
            "{} -> {}: {fanned}",
            host.id,
            other.id
        );
        assert_eq!(fanned["servers"]["docs"], expected()["docs"]);
        let status = env.dotpack().arg("status").output().unwrap();
        assert!(
            status.status.success(),
            "{}",
            String::from_utf8_lossy(&status.stdout)
        );
    }
}

#[test]
fn into_refuses_a_name_the_manifest_has_and_changes_nothing() {
    let env = Env::new();
    env.write(
        "dotpack.toml",
        "[project]\nhosts = [\"claude-code\"]\n\n[servers.time]\ncommand = \"uvx\"\nargs = [\"mcp-server-time\"]\n",
    );
    let host = env.write(
        ".mcp.json",
        "{\"mcpServers\": {\"time\": {\"command\": \"uvx\", \"args\": [\"other\"]}}}\n",
    );
    let manifest = env.read("dotpack.toml");
    let out = env
        .dotpack()
        .args(["import", "claude-code", "--into"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("already has a server named `time`"));
    assert_eq!(env.read("dotpack.toml"), manifest);
    assert!(!env.project.join("dotpack.lock").exists());
    assert!(std::fs::read_to_string(host).unwrap().contains("other"));
}

#[test]
fn into_dry_run_prints_and_writes_nothing() {
    let env = Env::new();
    project(&env, &[]);
    env.write(
        ".mcp.json",
        "{\"mcpServers\": {\"time\": {\"command\": \"uvx\", \"args\": [\"mcp-server-time\"]}}}\n",
    );
    let out = env
        .dotpack()
        .args(["import", "claude-code", "--into", "--dry-run"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("+[servers.time]"),
        "{stderr}"
    );
    assert!(stderr.contains("Would add server time"), "{stderr}");
    assert!(stderr.contains("dry run"), "{stderr}");
    assert_eq!(env.read("dotpack.toml"), "# mine\n[project]\nhosts = []\n");
    assert!(!env.project.join("dotpack.lock").exists());
}

#[test]
fn init_import_lists_conflicts_with_both_files_and_writes_nothing() {
    let env = Env::new();
    env.write(
        ".mcp.json",
        "{\"mcpServers\": {\"fs\": {\"command\": \"npx\", \"args\": [\"-y\", \"fs\"]}}}\n",
    );
    env.write(
        ".cursor/mcp.json",
        "{\n  // mine\n  \"mcpServers\": {\"fs\": {\"command\": \"npx\", \"args\": [\"-y\", \"fs\", \"/tmp\"]}},\n}\n",
    );
    let out = env.dotpack().args(["init", "--import"]).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("`fs`: .mcp.json and .cursor/mcp.json"),
        "{stderr}"
    );
    assert!(stderr.contains("dotpack import"), "{stderr}");
    assert!(!env.project.join("dotpack.toml").exists());
}

#[test]
fn init_import_merges_identical_servers_claimed_in_both_hosts() {
    let env = Env::new();
    let claude = "{\"mcpServers\": {\"fs\": {\"command\": \"npx\", \"args\": [\"-y\", \"fs\"]}}}\n";
    let cursor = "{\n  // mine\n  \"mcpServers\": {\"fs\": {\"type\": \"stdio\", \"command\": \"npx\", \"args\": [\"-y\", \"fs\"]}},\n}\n";
    env.write(".mcp.json", claude);
    env.write(".cursor/mcp.json", cursor);
    let out = env.dotpack().args(["init", "--import"]).output().unwrap();
    assert_success(&out);
    let manifest = env.read("dotpack.toml");
    assert_eq!(manifest.matches("[servers.fs]").count(), 1, "{manifest}");
    let lock = env.read("dotpack.lock");
    assert!(lock.contains("file = \".mcp.json\"") && lock.contains("file = \".cursor/mcp.json\""));
    let out = env.dotpack().arg("install").output().unwrap();
    assert!(out.status.success());
    assert_eq!(env.read(".mcp.json"), claude);
    assert_eq!(env.read(".cursor/mcp.json"), cursor);
}

#[test]
fn a_hosts_own_words_for_a_value_come_back_canonical() {
    // Hermes says `trust: untrusted`; install writes it from `trust = false`, so import reads
    // it back as `false`, and the result validates.
    let env = Env::new();
    write(
        &env.home.path().join(".hermes/config.yaml"),
        "mcp_servers:\n  web:\n    url: https://x.dev/mcp\n    trust: untrusted\n  mine:\n    command: mine\n    args: []\n    trust: full\n",
    );
    let doc = import_json(&env, "hermes", Scope::User);
    assert_eq!(doc["servers"]["web"]["trust"], json!(false), "{doc}");
    assert_eq!(doc["servers"]["mine"]["trust"], json!(true), "{doc}");
}

#[test]
fn a_host_with_user_files_only_imports_into_a_new_project() {
    // `init` declares Hermes (its folder is there); the project's scope is `project`, which
    // Hermes has no file at, so it is at user scope for every command alike.
    let env = Env::new();
    write(
        &env.home.path().join(".hermes/config.yaml"),
        "mcp_servers:\n  web:\n    url: https://x.dev/mcp\n    trust: untrusted\n",
    );
    assert_success(&env.dotpack().arg("init").output().unwrap());
    assert!(env.read("dotpack.toml").contains("\"hermes\""));
    assert_success(
        &env.dotpack()
            .args(["import", "hermes", "--into"])
            .output()
            .unwrap(),
    );
    assert!(env.read("dotpack.toml").contains("trust = false"));
    assert_success(&env.dotpack().arg("status").output().unwrap());
}
