//! Credentials stay with their origin and out of messages: the bridge and the MCP client follow
//! no redirect to another origin (it is an error naming both), and errors of `probe`, `call`,
//! the bridge and registries never show a header value, a resolved `{{env.X}}` or URL user
//! information.

use serde_json::Value;

use crate::fake_mcp::{Recorder, closed_port, mcp_answer, response};
use crate::support::{Env, StaticServer, build_registry, package};

/// Runs `dotpack bridge URL ARGS` over the JSON-RPC lines `input`; returns the responses, in
/// the order of their ids (the bridge writes each when it is ready), and stderr.
fn bridge(env: &Env, url: &str, args: &[&str], input: &[Value]) -> (Vec<Value>, String) {
    let stdin: String = input.iter().map(|m| format!("{m}\n")).collect();
    let out = env
        .dotpack()
        .args(["bridge", url, "--timeout", "5"])
        .args(args)
        .write_stdin(stdin)
        .output()
        .unwrap();
    let mut replies: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    replies.sort_by_key(|r| r["id"].as_u64());
    (replies, String::from_utf8_lossy(&out.stderr).into_owned())
}

fn list_and_call() -> Vec<Value> {
    vec![
        serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18"}}),
        serde_json::json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
        serde_json::json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "add", "arguments": {}}}),
    ]
}

#[test]
fn the_bridge_sends_no_header_across_a_redirect_to_another_origin() {
    let env = Env::new();
    let other = Recorder::start(|_| response(200, "Content-Type: application/json\r\n", "[]"));
    let target = other.url();
    let service = Recorder::start(move |r| {
        let status = if r.method == "POST" { 307 } else { 302 };
        response(status, &format!("Location: {target}{}\r\n", r.path), "")
    });
    let (replies, _) = bridge(
        &env,
        &format!("{}/api", service.url()),
        &["--header", "X-Api-Key=k3y-v4lue-123"],
        &list_and_call(),
    );
    assert!(
        other.requests().is_empty(),
        "the other origin got {:?}",
        other.requests()
    );
    let listed = replies[1]["error"]["message"].as_str().unwrap_or_default();
    assert!(
        listed.contains(&format!(
            "redirected GET {}/api/tools to another origin, {}/api/tools",
            service.url(),
            other.url()
        )) && listed.contains(&format!("away from {}", service.url())),
        "{listed}"
    );
    let called = replies[2]["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert_eq!(replies[2]["result"]["isError"], true);
    assert!(called.contains("to another origin"), "{called}");
    for reply in &replies {
        assert!(!reply.to_string().contains("k3y-v4lue-123"), "{reply}");
    }
}

#[test]
fn the_bridge_follows_a_redirect_on_its_own_origin() {
    let env = Env::new();
    let service = Recorder::start(|r| match r.path.as_str() {
        "/api/tools" => response(301, "Location: /v2/tools\r\n", ""),
        "/v2/tools" if r.header("x-api-key").as_deref() == Some("k3y") => response(
            200,
            "Content-Type: application/json\r\n",
            r#"[{"name": "add", "description": "Add"}]"#,
        ),
        _ => response(404, "", "no"),
    });
    let (replies, _) = bridge(
        &env,
        &format!("{}/api", service.url()),
        &["--header", "X-Api-Key=k3y"],
        &list_and_call()[..2],
    );
    assert_eq!(
        replies[1]["result"]["tools"][0]["name"], "add",
        "{replies:?}"
    );
}

/// A project whose server `remote` is at `url` with an `Authorization` header from
/// `SECRET_HEADER`.
fn remote_project(url: &str) -> Env {
    let env = Env::new();
    env.write(
        "dotpack.toml",
        &format!(
            "[servers.remote]\nurl = \"{url}\"\nhttp_headers = {{ Authorization = \"Bearer {{{{env.SECRET_HEADER}}}}\" }}\n"
        ),
    );
    env
}

const QUERY_SECRET: &str = "q-s3cret-value-42";
const HEADER_SECRET: &str = "h-s3cret-value-43";

fn probe(env: &Env, args: &[&str]) -> (Option<i32>, String) {
    let out = env
        .dotpack()
        .env("SECRET_QUERY", QUERY_SECRET)
        .env("SECRET_HEADER", HEADER_SECRET)
        .args(args)
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.code(), text)
}

fn assert_no_secret(text: &str) {
    for secret in [QUERY_SECRET, HEADER_SECRET, "Pa55word"] {
        assert!(!text.contains(secret), "`{secret}` was printed:\n{text}");
    }
}

#[test]
fn the_mcp_client_follows_no_redirect_to_another_origin() {
    let other = Recorder::start(mcp_answer);
    let target = other.url();
    let server =
        Recorder::start(move |_| response(307, &format!("Location: {target}/mcp\r\n"), ""));
    let env = remote_project(&format!("{}/mcp", server.url()));
    let (code, text) = probe(&env, &["--trust", "probe", "remote"]);
    assert_eq!(code, Some(1), "{text}");
    assert!(other.requests().is_empty(), "{:?}", other.requests());
    assert!(
        text.contains(&format!(
            "answered HTTP 307, a redirect from {} to another origin, {}",
            server.url(),
            other.url()
        )),
        "{text}"
    );
    assert!(text.contains("set its `url` to the new address"), "{text}");
    assert_no_secret(&text);
}

#[test]
fn the_mcp_client_follows_a_307_on_its_own_origin() {
    let server = Recorder::start(|r| {
        if r.path == "/mcp" {
            response(307, "Location: /mcp/\r\n", "")
        } else {
            mcp_answer(r)
        }
    });
    let env = remote_project(&format!("{}/mcp", server.url()));
    let (code, text) = probe(&env, &["--trust", "probe", "remote"]);
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("ping"), "{text}");
    let paths: Vec<String> = server.requests().iter().map(|r| r.path.clone()).collect();
    // After the first redirect every message goes to the new URL.
    assert_eq!(paths[..2], ["/mcp", "/mcp/"], "{paths:?}");
    assert!(paths[2..].iter().all(|p| p == "/mcp/"), "{paths:?}");
}

#[test]
fn probe_and_call_errors_show_no_resolved_secret_or_url_password() {
    let port = closed_port();
    let url = format!("http://me:Pa55word@127.0.0.1:{port}/mcp?key={{{{env.SECRET_QUERY}}}}");
    let env = remote_project(&url);
    for args in [
        &["--trust", "probe", "remote"][..],
        &["--trust", "call", "remote", "ping"],
    ] {
        let (code, text) = probe(&env, args);
        assert_eq!(code, Some(1), "{text}");
        assert!(text.contains("could not be reached"), "{text}");
        assert!(
            text.contains(&format!("http://***@127.0.0.1:{port}/mcp?key=***")),
            "{text}"
        );
        assert_no_secret(&text);
    }

    // A server that answers 500 and quotes the credentials it was sent.
    let server = Recorder::start(|r| {
        let quoted = format!(
            "{} {}",
            r.path,
            r.header("authorization").unwrap_or_default()
        );
        response(500, "", &format!("invalid credentials: {quoted}"))
    });
    let env = remote_project(&format!(
        "{}/mcp/{{{{env.SECRET_QUERY}}}}/x?key={{{{env.SECRET_QUERY}}}}",
        server.url()
    ));
    let (code, text) = probe(&env, &["--trust", "probe", "remote"]);
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains("answered HTTP 500"), "{text}");
    assert!(text.contains("{{env.SECRET_QUERY}}"), "{text}");
    assert_no_secret(&text);
    assert_eq!(
        server.requests()[0].header("authorization").as_deref(),
        Some(format!("Bearer {HEADER_SECRET}").as_str())
    );
}

#[test]
fn registry_errors_show_no_url_password_and_keep_its_case() {
    let env = Env::new();
    let port = closed_port();
    let out = env
        .dotpack()
        .args([
            "--registry",
            &format!("http://User:Pa55word@127.0.0.1:{port}/reg/"),
            "info",
            "alpha",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!("http://***@127.0.0.1:{port}/reg/")),
        "{err}"
    );
    assert_no_secret(&err);

    // User information is sent as written (HTTP Basic), not lowercased.
    let index = build_registry(&env, &[("alpha", &package("alpha", "1.0.0", &[]))]);
    let server = StaticServer::start(&index);
    // base64 of `User:PassWord`.
    server.require_authorization("Basic VXNlcjpQYXNzV29yZA==");
    let url = server.url().replace("http://", "http://User:PassWord@");
    let out = env
        .dotpack()
        .args(["--registry", &url, "info", "alpha"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
