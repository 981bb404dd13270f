//! Every host of the adapter list, at every scope it has: a fresh install, an install into a
//! hand-written file (comments, CRLF, BOM, tabs, no final newline, unrelated settings) that
//! uninstall gives back byte for byte, and the lossy report agreeing with the concept table.
//! The hosts come from `dotpack::model::hosts::ADAPTERS`, so a new adapter is tested here by itself.

use std::path::PathBuf;

use dotpack::formats::Format;
use dotpack::model::concepts::concept_of;
use dotpack::model::hosts::{ADAPTERS, HostAdapter, HostEnv, Scope};
use predicates::prelude::*;
use predicates::str::contains;

use crate::support::{Env, assert_success};

const SERVER: &str = "[servers.alpha]\ncommand = \"node\"\nargs = [\"alpha.js\", \"--flag\"]\nenv = { LEVEL = \"debug\" }\n";

fn scopes(host: &HostAdapter) -> Vec<Scope> {
    [Scope::Project, Scope::User]
        .into_iter()
        .filter(|s| host.has_scope(*s))
        .collect()
}

fn manifest(host: &HostAdapter, scope: Scope, servers: &str) -> String {
    format!(
        "[project]\nhosts = [{{ host = \"{}\", scope = \"{scope}\" }}]\n\n{servers}",
        host.id
    )
}

fn path_of(env: &Env, host: &HostAdapter, scope: Scope) -> PathBuf {
    host.path(scope, &env.project, &HostEnv::new(env.home.path()))
        .expect("the host has this scope")
}

/// A hand-written file with a sibling entry `mine` and unrelated settings around the container,
/// in the host's format, with `eol` line endings.
fn fixture(host: &HostAdapter, eol: &str) -> String {
    let key = host.container.path[0];
    let text = match host.format {
        Format::Json => format!(
            "{{\n  \"theme\": \"dark\",\n  \"{key}\": {{\n    \"mine\": {{ \"command\": \"C:\\\\tools\\\\mine.exe\", \"args\": [] }},\n    \"café-ü\": {{ \"url\": \"https://x.example/mcp\" }}\n  }},\n  \"zzz\": [1, 2]\n}}"
        ),
        Format::Jsonc => format!(
            "// settings kept by hand\n{{\n\t\"theme\": \"dark\", // trailing comment\n\t\"{key}\": {{\n\t\t\"mine\": {{ \"command\": \"mine\", \"args\": [], }},\n\t}},\n}}\n"
        ),
        Format::Toml => format!(
            "# my config\ntheme = \"dark\"\n\n[{key}.mine]\ncommand = \"mine\" # inline\nargs = []\n\n[profiles.fast]\nmodel = \"o4-mini\"\n"
        ),
        Format::Yaml => match host.container.list_key {
            Some(name) => format!(
                "# kept\ntheme: dark\n{key}:\n  - {name}: mine # hand-written\n    command: mine\n    args: []\nmodels: []\n"
            ),
            None => format!(
                "# kept\ntheme: 'dark'\n{key}:\n  mine:\n    command: mine # hand-written\n    args: []\n\nother:\n    deep: 1\n"
            ),
        },
    };
    text.replace('\n', eol)
}

#[test]
fn every_host_installs_at_each_scope_and_uninstall_gives_back_the_bytes() {
    let styles = [("\n", ""), ("\r\n", "\u{feff}")];
    let mut turn = 0;
    for host in ADAPTERS {
        for scope in scopes(host) {
            if host.shares_file_with(scope).is_some() {
                continue; // the first host with this file covers it
            }
            // Both line-ending styles for every file with `DOTPACK_LONG_TESTS=1`; in the default
            // run one per file, taking turns, so each style is still checked on many hosts.
            let styles = if crate::support::long_tests() {
                &styles[..]
            } else {
                &styles[turn % 2..turn % 2 + 1]
            };
            turn += 1;
            let label = format!("{} at {scope}", host.id);
            // Fresh: the file is created in the host's shape, and goes with the last entry.
            let env = Env::new();
            env.write("dotpack.toml", &manifest(host, scope, SERVER));
            env.dotpack()
                .args(["--trust", "install"])
                .assert()
                .success();
            let path = path_of(&env, host, scope);
            let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{label}: {e}"));
            assert!(
                text.contains("alpha") && text.contains("alpha.js") && text.contains("debug"),
                "{label}: {text}"
            );
            env.dotpack().arg("uninstall").assert().success();
            assert!(!path.exists(), "{label}: the file dotpack created stays");

            // Hand-written, with each line-ending style and a BOM: bytes come back exactly.
            for &(eol, bom) in styles {
                let env = Env::new();
                env.write("dotpack.toml", &manifest(host, scope, SERVER));
                let path = path_of(&env, host, scope);
                std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                let original = format!("{bom}{}", fixture(host, eol));
                std::fs::write(&path, &original).unwrap();
                env.dotpack()
                    .args(["--trust", "install"])
                    .assert()
                    .success();
                let text = std::fs::read_to_string(&path).unwrap();
                assert!(
                    text.contains("alpha.js") && text.contains("mine") && text.contains("theme"),
                    "{label}: {text}"
                );
                assert!(
                    !text.replace("\r\n", "").contains('\n') || eol == "\n",
                    "{label}: LF written into a CRLF file: {text:?}"
                );
                assert!(text.starts_with(bom), "{label}: BOM lost");
                env.dotpack().arg("uninstall").assert().success();
                assert_eq!(
                    std::fs::read_to_string(&path).unwrap(),
                    original,
                    "{label}: bytes changed"
                );
            }
        }
    }
}

#[test]
fn every_host_reports_a_field_it_cannot_express_as_the_concept_table_says() {
    let with_cwd = format!("{SERVER}cwd = \"/srv/alpha\"\n");
    let cwd = concept_of("cwd").unwrap();
    for host in ADAPTERS {
        let scope = scopes(host)[0];
        let env = Env::new();
        env.write("dotpack.toml", &manifest(host, scope, &with_cwd));
        let out = env.dotpack().args(["--trust", "install"]).assert();
        if host.expresses(cwd) {
            out.success();
            let text = std::fs::read_to_string(path_of(&env, host, scope)).unwrap();
            assert!(text.contains("/srv/alpha"), "{}: {text}", host.id);
        } else {
            out.code(1)
                .stderr(contains("field `cwd`").and(contains("--allow-lossy")));
            env.dotpack()
                .args(["--trust", "install", "--allow-lossy"])
                .assert()
                .success();
        }
    }
}

#[test]
fn hosts_lists_every_adapter_with_a_file_per_scope() {
    let env = Env::new();
    let out = env.dotpack().args(["hosts", "--json"]).output().unwrap();
    assert!(out.status.success());
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["schema"], 1);
    let hosts = json["hosts"].as_array().unwrap();
    assert_eq!(hosts.len(), ADAPTERS.len());
    assert!(hosts.len() >= 17, "{}", hosts.len());
    for (row, host) in hosts.iter().zip(ADAPTERS) {
        assert_eq!(row["id"], host.id);
        assert_eq!(row["scopes"].as_array().unwrap().len(), scopes(host).len());
        assert_eq!(row["detected"], false, "{}: nothing exists here", host.id);
    }
}

#[test]
fn two_hosts_writing_one_file_are_refused() {
    let env = Env::new();
    env.write(
        "dotpack.toml",
        &format!("[project]\nhosts = [\"claude-code\", \"mcp-json\"]\n\n{SERVER}"),
    );
    env.dotpack()
        .args(["--trust", "install"])
        .assert()
        .code(1)
        .stderr(contains("one file has one writer"));
    assert!(!env.project.join(".mcp.json").exists());
    // At different scopes they are different files.
    env.write(
        "dotpack.toml",
        &format!(
            "[project]\nhosts = [\"claude-code\", {{ host = \"mcp-json\", scope = \"user\" }}]\n\n{SERVER}"
        ),
    );
    env.dotpack()
        .args(["--trust", "install"])
        .assert()
        .success();
    assert!(env.home.path().join(".config/mcp/mcp.json").exists());
}

#[test]
fn claude_desktop_wraps_a_remote_server_only_when_asked() {
    let env = Env::new();
    let remote = "[servers.beta]\nurl = \"https://beta.example/mcp\"\nhttp_headers = { X-Team = \"core\" }\n";
    env.write(
        "dotpack.toml",
        &format!("[project]\nhosts = [\"claude-desktop\"]\n\n{remote}"),
    );
    env.dotpack()
        .args(["--trust", "install"])
        .assert()
        .code(1)
        .stderr(contains("--allow-lossy=transport"));
    env.dotpack()
        .args(["--trust", "install", "--allow-lossy=transport"])
        .assert()
        .success();
    let host = dotpack::model::hosts::adapter("claude-desktop").unwrap();
    let text = std::fs::read_to_string(path_of(&env, host, Scope::User)).unwrap();
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        json["mcpServers"]["beta"],
        serde_json::json!({"command": "npx", "args": ["-y", "mcp-remote", "https://beta.example/mcp", "--header", "X-Team:core"]})
    );
    // The consent is recorded with the claim: the next install needs no flag.
    env.dotpack()
        .args(["--trust", "install"])
        .assert()
        .success();
}

#[test]
fn doctor_names_host_footguns_and_their_fixes() {
    let env = Env::new();
    env.write("dotpack.toml", "[project]\nhosts = [\"cursor\"]\n");
    env.write(
        ".cursor/mcp.json",
        "{\"mcpServers\": {\"b\": {\"command\": \"x\", \"env\": {\"T\": \"${TOKEN}\"}}}}",
    );
    env.write(
        ".mcp.json",
        "{\"mcpServers\": {\"r\": {\"url\": \"https://r.example/mcp\"}}}",
    );
    let out = env.dotpack().args(["doctor", "--json"]).output().unwrap();
    assert_success(&out);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let codes: Vec<&str> = json["hosts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["code"].as_str().unwrap())
        .collect();
    assert_eq!(codes, ["url-without-type", "unexpanded-reference"]);
    env.dotpack()
        .arg("doctor")
        .assert()
        .success()
        .stderr(contains("write it as `${env:TOKEN}`"));
}
