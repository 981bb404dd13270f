//! How a server's fields are spelled on the way into a host: `headers` read as `http_headers`
//! (warned, not refused).

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
