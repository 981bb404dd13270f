//! How a server's fields are spelled on the way into a host, and a fix `doctor` prints that has
//! to run as it is: `headers` read as `http_headers` (warned, not refused), Codex's
//! `startup_timeout_ms` kept as written, and the way out of Claude Code's `settings.json`.

use serde_json::Value;

use crate::support::{Env, assert_success};

fn project(env: &Env, hosts: &str, servers: &str) {
    env.write(
        "dotpack.toml",
        &format!("[project]\nhosts = [{hosts}]\n{servers}"),
    );
}

#[test]
fn a_server_written_with_headers_gets_http_headers_in_codex_with_a_warning() {
    let env = Env::new();
    project(
        &env,
        "\"codex\"",
        "\n[servers.api]\nurl = \"https://api.example.dev/mcp\"\nheaders = { X-Team = \"platform\" }\n",
    );
    let out = env.dotpack().arg("validate").output().unwrap();
    assert_success(&out);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("`headers` is read as `http_headers`"),
        "{stderr}"
    );
    let out = env.dotpack().arg("install").output().unwrap();
    assert_success(&out);
    let config = env.read(".codex/config.toml");
    assert!(config.contains("http_headers"), "{config}");
    assert!(config.contains("X-Team = \"platform\""), "{config}");
    assert!(!config.contains("\nheaders"), "{config}");
}

#[test]
fn startup_timeout_ms_is_written_for_codex_as_the_author_wrote_it() {
    let env = Env::new();
    project(
        &env,
        "\"codex\"",
        "\n[servers.slow]\ncommand = \"slow-mcp\"\nargs = []\nstartup_timeout_ms = 2500\n",
    );
    assert_success(&env.dotpack().arg("install").output().unwrap());
    let config = env.read(".codex/config.toml");
    assert!(config.contains("startup_timeout_ms = 2500"), "{config}");
    assert!(!config.contains("startup_timeout_sec"), "{config}");
    // Read back, it is the same field and value.
    let out = env
        .dotpack()
        .args(["import", "codex", "--json"])
        .output()
        .unwrap();
    assert_success(&out);
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["servers"]["slow"]["startup_timeout_ms"], 2500, "{doc}");
}

#[test]
fn doctors_fix_for_servers_in_claude_settings_json_runs_as_printed() {
    let env = Env::new();
    let settings = env.home.path().join(".claude/settings.json");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    std::fs::write(
        &settings,
        "{\"mcpServers\": {\"fs\": {\"command\": \"npx\", \"args\": [\"-y\", \"fs-mcp\"]}}}\n",
    )
    .unwrap();
    let out = env.dotpack().args(["doctor", "--json"]).output().unwrap();
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let finding = doc["hosts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["code"] == "settings-json-servers")
        .unwrap_or_else(|| panic!("{doc}"));
    let fix = finding["fix"].as_str().unwrap();
    let command = fix
        .split('`')
        .find(|part| part.starts_with("dotpack "))
        .unwrap_or_else(|| panic!("no command in {fix}"));
    let args: Vec<&str> = command.split_whitespace().skip(1).collect();
    let out = env.dotpack().args(&args).output().unwrap();
    assert_success(&out);
    let tables = String::from_utf8(out.stdout).unwrap();
    assert!(tables.contains("[servers.fs]"), "{tables}");
    // The rest of the fix: the tables into dotpack.toml, then install.
    project(&env, "\"claude-code\"", &format!("\n{tables}"));
    assert_success(&env.dotpack().arg("install").output().unwrap());
    assert!(env.read(".mcp.json").contains("fs-mcp"));
}
