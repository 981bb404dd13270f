//! `dotpack run --url URL --header …`: the launcher as a stdio ↔ streamable-HTTP proxy, driven by
//! the official MCP Python SDK on both sides: its stdio client (`tests/python_mcp/
//! list_and_call.py`) through `dotpack run` to its streamable-HTTP server (`server.py http PORT
//! TOKEN`), which answers 401 to a request without the right bearer token.

use std::path::Path;
use std::process::{Command, Output, Stdio};

use dotpack::model::launcher::remote_launcher_args;
use predicates::prelude::*;
use serde_json::Value;

use crate::probe::{Running, script, sdk_http_server, sdk_python, wait_for_port};
use crate::support::Env;

const TOKEN: &str = "proxy-token-5e4d3c2b1a";

/// The SDK server requiring `TOKEN`, and its URL.
fn server(python: &Path) -> (Running, String) {
    let (running, port) = sdk_http_server(python, Some(TOKEN));
    wait_for_port(port);
    (running, format!("http://127.0.0.1:{port}/mcp"))
}

/// The SDK's stdio client running `dotpack ARGS`, with `TOKEN` set to `token` (or unset) in
/// the environment it passes, and no credential store.
fn client(env: &Env, python: &Path, args: &[String], token: Option<&str>) -> Output {
    let mut cmd = Command::new(python);
    cmd.arg(script("list_and_call.py"))
        .arg(assert_cmd::cargo::cargo_bin("dotpack"))
        .args(args)
        .env("HOME", env.home.path())
        .env("DOTPACK_HOME", env.home.path().join(".dotpack"))
        .env(
            "DBUS_SESSION_BUS_ADDRESS",
            format!("unix:path={}", env.home.path().join("no-bus").display()),
        )
        .env("XDG_RUNTIME_DIR", env.home.path())
        .stdin(Stdio::null());
    match token {
        Some(token) => cmd.env("TOKEN", token),
        None => cmd.env_remove("TOKEN"),
    };
    cmd.output().unwrap()
}

fn entry(url: &str) -> Vec<String> {
    let headers = ["Authorization: Bearer {{env.TOKEN}}".to_string()];
    remote_launcher_args(url, &headers, &["TOKEN".to_string()])
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

#[test]
fn the_sdk_client_lists_and_calls_a_tool_of_a_remote_server_through_dotpack_run() {
    let Some(python) = sdk_python() else { return };
    let (_server, url) = server(&python);
    let env = Env::new();
    let out = client(&env, &python, &entry(&url), Some(TOKEN));
    assert!(out.status.success(), "{}", text(&out));
    let got: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(got["server"], "pydemo");
    assert_eq!(got["tools"], serde_json::json!(["add", "greet"]));
    assert_eq!(got["add"], serde_json::json!(["5"]));
}

#[test]
fn a_wrong_secret_is_a_clear_error_that_shows_no_value() {
    let Some(python) = sdk_python() else { return };
    let (_server, url) = server(&python);
    let env = Env::new();
    let wrong = "not-the-token-77aa";
    let out = client(&env, &python, &entry(&url), Some(wrong));
    assert!(!out.status.success());
    let got: Value = serde_json::from_slice(&out.stdout).unwrap();
    let error = got["error"].as_str().unwrap();
    assert!(error.contains("HTTP 401"), "{error}");
    assert!(error.contains("dotpack secret set TOKEN"), "{error}");
    assert!(!text(&out).contains(wrong), "{}", text(&out));
}

#[test]
fn a_missing_secret_stops_the_proxy_naming_it() {
    let Some(python) = sdk_python() else { return };
    let (_server, url) = server(&python);
    let env = Env::new();
    let out = client(&env, &python, &entry(&url), None);
    assert!(!out.status.success());
    assert!(
        text(&out).contains("the environment has no TOKEN"),
        "{}",
        text(&out)
    );
}

/// The pin covers the URL and the headers: an entry pointed elsewhere, or sending its secret in
/// another header, is refused before anything is sent.
#[test]
fn an_entry_whose_url_or_header_changed_is_refused() {
    let env = Env::new();
    let args = entry("http://127.0.0.1:9/mcp");
    for (from, to) in [
        ("http://127.0.0.1:9/mcp", "http://127.0.0.1:10/mcp"),
        (
            "Authorization: Bearer {{env.TOKEN}}",
            "X-Leak: {{env.TOKEN}}",
        ),
    ] {
        let edited: Vec<String> = args.iter().map(|a| a.replace(from, to)).collect();
        env.dotpack()
            .args(&edited)
            .env("TOKEN", TOKEN)
            .write_stdin("")
            .assert()
            .failure()
            .code(1)
            .stderr(
                predicates::str::contains("refuses to connect to")
                    .and(predicates::str::contains("dotpack install")),
            );
    }
}

/// A remote server with a secret header, in a host that speaks only stdio (Claude Desktop) with
/// the launcher chosen for it: `install` writes the proxy entry (no secret, no reference in
/// the file), which the SDK client runs; Claude Code beside it keeps the remote entry with its
/// own `${TOKEN}` header.
#[test]
fn install_writes_the_proxy_entry_for_a_stdio_only_host_and_it_reaches_the_server() {
    let Some(python) = sdk_python() else { return };
    let (_server, url) = server(&python);
    let env = Env::new();
    remote_project(&env, &url);
    env.dotpack()
        .args(["--trust", "install"])
        .assert()
        .success();
    let args = desktop_entry(&env, &url);
    let out = client(&env, &python, &args, Some(TOKEN));
    assert!(out.status.success(), "{}", text(&out));
    let got: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(got["add"], serde_json::json!(["5"]));
}

/// Claude Code and, through the launcher, Claude Desktop, with server `remote` at `url` sending
/// `Bearer {{env.TOKEN}}`.
fn remote_project(env: &Env, url: &str) {
    env.write(
        "dotpack.toml",
        &format!(
            "[project]\nhosts = [\"claude-code\", {{ host = \"claude-desktop\", launcher = true }}]\n\n[servers.remote]\nurl = \"{url}\"\nhttp_headers = {{ Authorization = \"Bearer {{{{env.TOKEN}}}}\" }}\n"
        ),
    );
}

/// The arguments of Claude Desktop's entry `remote`, checked to be the pinned proxy to `url`
/// (and Claude Code's entry to be the remote one with its own header reference).
fn desktop_entry(env: &Env, url: &str) -> Vec<String> {
    let code: Value = serde_json::from_str(&env.read(".mcp.json")).unwrap();
    assert_eq!(code["mcpServers"]["remote"]["url"], url);
    assert_eq!(
        code["mcpServers"]["remote"]["headers"]["Authorization"],
        "Bearer ${TOKEN}"
    );
    let path = env
        .home
        .path()
        .join(".config/Claude/claude_desktop_config.json");
    let desktop: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let entry = &desktop["mcpServers"]["remote"];
    let args: Vec<String> = entry["args"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap().to_string())
        .collect();
    let headers = ["Authorization: Bearer {{env.TOKEN}}".to_string()];
    assert_eq!(
        args,
        remote_launcher_args(url, &headers, &["TOKEN".to_string()]),
        "{entry}"
    );
    assert!(entry.get("url").is_none(), "{entry}");
    args
}

/// The token only in the credential store: Claude Desktop's proxy entry, started with no TOKEN
/// in its environment (as from the Dock), sends it from the store, and no file holds it.
#[cfg(target_os = "linux")]
#[test]
fn the_proxy_entry_sends_the_token_from_the_credential_store() {
    use crate::support_keyring::{Keyring, files_containing};
    let Some(python) = sdk_python() else { return };
    let (_server, url) = server(&python);
    let env = Env::new();
    let Some(keyring) = Keyring::start(env.home.path()) else {
        return;
    };
    let mut set = env.dotpack();
    keyring.apply(&mut set);
    set.args(["secret", "set", "TOKEN"])
        .write_stdin(TOKEN)
        .assert()
        .success();
    remote_project(&env, &url);
    env.dotpack()
        .args(["--trust", "install"])
        .assert()
        .success();
    let args = desktop_entry(&env, &url);
    let out = Command::new(&python)
        .arg(script("list_and_call.py"))
        .arg(assert_cmd::cargo::cargo_bin("dotpack"))
        .args(&args)
        .env_clear()
        .env("HOME", env.home.path())
        .env("DOTPACK_HOME", env.home.path().join(".dotpack"))
        .env("XDG_RUNTIME_DIR", &keyring.runtime_dir)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let got: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(got["add"], serde_json::json!(["5"]));
    assert!(!text(&out).contains(TOKEN));
    assert_eq!(
        files_containing(env.home.path(), TOKEN, &[]),
        Vec::<std::path::PathBuf>::new()
    );
}
