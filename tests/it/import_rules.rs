//! What import makes of entries that are not plain servers: `mcp-remote` bridges from any host,
//! keys with a `:` in them, fields a host documents that no concept stands for, entries no host
//! can start, and VS Code's `${input:…}` prompts.

use std::path::Path;

use dotpack::formats::upsert_entry;
use dotpack::model::hosts::{ADAPTERS, HostEnv, Scope};
use dotpack::model::manifest::Server;
use dotpack::template::Props;
use serde_json::{Value, json};

use crate::support::{Env, assert_success};

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
    assert_success(&out);
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The `(code, server)` of every warning of an `import --json` document.
fn codes(doc: &Value) -> Vec<(String, String)> {
    doc["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| {
            (
                w["code"].as_str().unwrap().into(),
                w["server"].as_str().unwrap().into(),
            )
        })
        .collect()
}

#[test]
fn a_pinned_mcp_remote_bridge_is_read_as_the_remote_server_from_every_host() {
    let bridge: Server = toml::from_str(
        "command = \"npx\"\nargs = [\"-y\", \"mcp-remote@0.1.2\", \"https://mcp.linear.app/mcp\", \"--header\", \"X-Team: platform\"]\n",
    )
    .unwrap();
    for host in ADAPTERS {
        let env = Env::new();
        let scope = if host.project_file.is_some() {
            Scope::Project
        } else {
            Scope::User
        };
        let path = host
            .path(scope, &env.project, &HostEnv::new(env.home.path()))
            .unwrap();
        let entry = dotpack::plan::to_host::translate(host, "linear", &bridge, &Props::new())
            .unwrap()
            .entry;
        let empty = match host.format {
            dotpack::formats::Format::Toml | dotpack::formats::Format::Yaml => "",
            _ => "{}",
        };
        let text = upsert_entry(host.format, empty, host.container, "linear", &entry)
            .unwrap()
            .text;
        write(&path, &text);
        let doc = import_json(&env, host.id, scope);
        assert_eq!(
            doc["servers"]["linear"],
            json!({"url": "https://mcp.linear.app/mcp", "http_headers": {"X-Team": "platform"}}),
            "{}: {doc}",
            host.id
        );
        let noted = codes(&doc).contains(&("remote-bridge".into(), "linear".into()));
        assert_eq!(noted, host.remote_wrapper.is_none(), "{}: {doc}", host.id);
    }
}

#[test]
fn a_key_with_a_colon_is_a_literal_secret_and_moves_on_into() {
    let env = Env::new();
    env.write(
        ".mcp.json",
        r#"{"mcpServers": {"deepl": {"command": "npx", "args": ["-y", "deepl-mcp-server"], "env": {"DEEPL_API_KEY": "1f2e3d4c-aaaa-bbbb-cccc-123456789abc:fx"}}}}"#,
    );
    let doc = import_json(&env, "claude-code", Scope::Project);
    assert_eq!(
        codes(&doc),
        [("literal-secret".to_string(), "deepl".to_string())],
        "{doc}"
    );
    env.write("dotpack.toml", "[project]\nhosts = [\"claude-code\"]\n");
    let out = env
        .dotpack()
        .args(["import", "claude-code", "--into"])
        .output()
        .unwrap();
    assert_success(&out);
    let manifest = env.read("dotpack.toml");
    assert!(
        manifest.contains("DEEPL_API_KEY = \"{{env.DEEPL_API_KEY}}\"") && !manifest.contains(":fx"),
        "{manifest}"
    );
}

#[test]
fn fields_a_host_documents_are_not_called_unknown() {
    let env = Env::new();
    env.write(
        "opencode.json",
        r#"{"mcp": {"web": {"type": "remote", "url": "https://x.dev/mcp", "timeout": 9000}}}"#,
    );
    env.write(
        ".zed/settings.json",
        r#"{"context_servers": {"files": {"command": "files-mcp", "args": [], "settings": {"root": "/srv"}}}}"#,
    );
    env.write(
        ".pi/mcp.json",
        r#"{"mcpServers": {"files": {"command": "files-mcp", "args": [], "trace": true}}}"#,
    );
    write(
        &env.home.path().join(".hermes/config.yaml"),
        "mcp_servers:\n  files:\n    command: files-mcp\n    args: []\n    tools:\n      include: [read]\n      prompts: false\n",
    );
    for (host, scope, server, field) in [
        ("opencode", Scope::Project, "web", "timeout"),
        ("zed", Scope::Project, "files", "settings"),
        ("pi", Scope::Project, "files", "trace"),
        ("hermes", Scope::User, "files", "tools"),
    ] {
        let doc = import_json(&env, host, scope);
        let codes = codes(&doc);
        assert_eq!(
            codes,
            [("host-field".to_string(), server.to_string())],
            "{host}: {doc}"
        );
        let message = doc["warnings"][0]["message"].as_str().unwrap();
        assert!(message.contains(&format!("`{field}`")), "{host}: {message}");
        assert!(doc["servers"][server].get(field).is_none(), "{host}: {doc}");
    }
    // opencode's `timeout` (the tool-list fetch) never becomes dotpack's `timeout` (a call's).
    env.write("dotpack.toml", "[project]\nhosts = [\"opencode\"]\n");
    let out = env
        .dotpack()
        .args(["import", "opencode", "--into"])
        .output()
        .unwrap();
    assert_success(&out);
    let manifest = env.read("dotpack.toml");
    assert!(
        manifest.contains("[servers.web]") && !manifest.contains("timeout"),
        "{manifest}"
    );
}

#[test]
fn an_entry_no_host_can_start_is_skipped_and_not_counted() {
    let env = Env::new();
    env.write(
        ".mcp.json",
        r#"{"mcpServers": {"empty": {"env": {"A": "1"}}, "text": "npx srv", "fs": {"command": "npx", "args": ["-y", "fs"]}}}"#,
    );
    let out = env
        .dotpack()
        .args(["import", "claude-code"])
        .output()
        .unwrap();
    assert_success(&out);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stdout.contains("[servers.fs]") && !stdout.contains("empty") && !stdout.contains("text"),
        "{stdout}"
    );
    assert!(stderr.contains("1 server from"), "{stderr}");
    for name in ["empty", "text"] {
        assert!(
            stderr.contains(&format!("server `{name}`: skipped: ")),
            "{name}: {stderr}"
        );
    }
    let doc = import_json(&env, "claude-code", Scope::Project);
    assert_eq!(doc["servers"].as_object().unwrap().len(), 1, "{doc}");
}

#[test]
fn a_vscode_input_is_never_carried_into_another_host() {
    let env = Env::new();
    env.write(
        ".vscode/mcp.json",
        r#"{
  "inputs": [{"type": "promptString", "id": "api-key", "description": "API key", "password": true}],
  "servers": {
    "search": {"type": "stdio", "command": "npx", "args": ["-y", "search-mcp"], "env": {"API_KEY": "${input:api-key}"}},
    "fs": {"type": "stdio", "command": "npx", "args": ["-y", "fs"]}
  }
}
"#,
    );
    env.write(
        "dotpack.toml",
        "[project]\nhosts = [\"vscode\", \"claude-code\"]\n",
    );
    let out = env
        .dotpack()
        .args(["import", "vscode", "--into"])
        .output()
        .unwrap();
    assert_success(&out);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("`search` is not imported") && stderr.contains("`${input:api-key}`"),
        "{stderr}"
    );
    let manifest = env.read("dotpack.toml");
    assert!(
        manifest.contains("[servers.fs]") && !manifest.contains("input:"),
        "{manifest}"
    );
    assert_success(&env.dotpack().arg("install").output().unwrap());
    let claude = env.read(".mcp.json");
    assert!(
        claude.contains("\"fs\"") && !claude.contains("input:"),
        "{claude}"
    );
}
