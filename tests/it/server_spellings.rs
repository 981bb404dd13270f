//! How a server's fields are spelled on the way into a host: `headers` read as `http_headers`
//! (warned, not refused) and Codex's `startup_timeout_ms` kept as written.

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
