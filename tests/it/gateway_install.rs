//! `[project] gateway = true`: `install` writes one claimed `dotpack` entry (`dotpack serve`) into
//! each host instead of one per server, turning it off restores the servers' entries, and
//! `status` says which.

use serde_json::{Value, json};

use crate::support::Env;

const SERVERS: &str = "[servers.alpha]\ncommand = \"alpha-mcp\"\nargs = []\n\n[servers.beta]\nurl = \"http://127.0.0.1:9/mcp\"\n";

fn manifest(env: &Env, gateway: &str) {
    env.write(
        "dotpack.toml",
        &format!("[project]\nhosts = [\"claude-code\", \"codex\"]\n{gateway}\n{SERVERS}"),
    );
}

fn servers(env: &Env) -> Value {
    let file: Value = serde_json::from_str(&env.read(".mcp.json")).unwrap();
    file["mcpServers"].clone()
}

#[test]
fn gateway_on_installs_one_dotpack_serve_entry_per_host_and_off_restores_each_server() {
    let env = Env::new();
    manifest(&env, "");
    env.dotpack().arg("install").assert().success();
    let names: Vec<String> = servers(&env).as_object().unwrap().keys().cloned().collect();
    assert_eq!(names, ["alpha", "beta"]);

    manifest(&env, "gateway = true\n");
    env.dotpack().arg("install").assert().success();
    assert_eq!(
        servers(&env),
        json!({"dotpack": {"type": "stdio", "command": "dotpack", "args": ["serve"]}})
    );
    let codex = env.read(".codex/config.toml");
    assert!(
        codex.contains("[mcp_servers.dotpack]") && !codex.contains("alpha"),
        "{codex}"
    );
    let lock = env.read("dotpack.lock");
    assert!(lock.contains("server = \"dotpack\""), "{lock}");
    let status = env.dotpack().arg("status").output().unwrap();
    let text = String::from_utf8_lossy(&status.stdout).to_string()
        + &String::from_utf8_lossy(&status.stderr);
    assert!(status.status.success(), "{text}");
    assert!(
        text.contains(
            "gateway: each host's `dotpack` entry (`dotpack serve`) serves alpha, beta (proxy)"
        ),
        "{text}"
    );
    let json = env.dotpack().args(["status", "--json"]).output().unwrap();
    let doc: Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(doc["ok"], true);
    assert_eq!(doc["gateway"]["servers"], json!(["alpha", "beta"]));

    manifest(&env, "gateway = false\n");
    env.dotpack().arg("install").assert().success();
    let names: Vec<String> = servers(&env).as_object().unwrap().keys().cloned().collect();
    assert_eq!(names, ["alpha", "beta"]);
    assert!(!env.read(".codex/config.toml").contains("dotpack"));
}

#[test]
fn a_user_file_gets_the_gateway_with_this_dotpack_and_the_project_manifest() {
    let env = Env::new();
    env.write(
        "dotpack.toml",
        &format!("[project]\nhosts = [{{ host = \"claude-code\", scope = \"user\" }}]\ngateway = true\n\n{SERVERS}"),
    );
    env.dotpack()
        .args(["--trust", "install"])
        .assert()
        .success();
    let file: Value = serde_json::from_str(
        &std::fs::read_to_string(env.home.path().join(".claude.json")).unwrap(),
    )
    .unwrap();
    let entry = &file["mcpServers"]["dotpack"];
    let manifest = std::path::absolute(env.project.join("dotpack.toml")).unwrap();
    assert_eq!(
        entry["args"],
        json!(["--manifest-path", manifest.display().to_string(), "serve"])
    );
    assert_eq!(
        entry["command"],
        assert_cmd::cargo::cargo_bin("dotpack")
            .display()
            .to_string()
    );
    assert!(file["mcpServers"].get("alpha").is_none(), "{file}");
}

#[test]
fn the_gateway_in_a_project_file_says_when_dotpack_is_not_on_the_path() {
    let env = Env::new();
    manifest(&env, "gateway = true\n");
    let bin = env.home.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    env.dotpack()
        .env("PATH", &bin)
        .arg("install")
        .assert()
        .success()
        .stderr(predicates::str::contains(
            ".mcp.json#mcpServers.dotpack: runs `dotpack serve` with `dotpack` from the PATH, which has no `dotpack` here",
        ));
}
