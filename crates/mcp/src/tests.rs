//! The client against tiny shell servers: one that works, and the ways servers misbehave.
//! Each misbehaving server records its pid (and a background child's) so the test can check
//! that nothing is left running.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::json;

use super::{Client, Endpoint, McpError, Timeouts};

/// A server that answers `initialize`, one page of `tools/list` and `tools/call` with canned
/// lines, reading one request per line.
const WORKING: &str = r#"
read -r line
printf '%s\n' '{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"sh","version":"0.1"}}}'
read -r line
read -r line
printf '%s\n' '{"jsonrpc":"2.0","method":"notifications/message","params":{}}'
printf '%s\n' '{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"echo","description":"Echo it\nback","inputSchema":{"type":"object"}}],"nextCursor":"p2"}}'
read -r line
printf '%s\n' '{"jsonrpc":"2.0","id":3,"result":{"tools":[{"name":"add","inputSchema":{"type":"object"}}]}}'
read -r line
printf '%s\n' '{"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"hi"}]}}'
read -r line
"#;

fn fast() -> Timeouts {
    Timeouts {
        initialize: Duration::from_secs(2),
        request: Duration::from_secs(2),
        grace: Duration::from_millis(300),
    }
}

fn sh(script: &str, dir: &Path) -> Endpoint {
    Endpoint::Stdio {
        command: "sh".to_string(),
        args: vec!["-c".to_string(), script.to_string()],
        env: BTreeMap::new(),
        cwd: Some(dir.to_path_buf()),
        secrets: super::Secrets::default(),
    }
}

fn connect_err(script: &str, dir: &Path) -> String {
    match Client::connect("bad", &sh(script, dir), fast()) {
        Ok(_) => panic!("connecting to `{script}` succeeded"),
        Err(e) => e.to_string(),
    }
}

/// Every pid the script wrote to `pids` (one a line) is gone.
fn assert_all_gone(dir: &Path) {
    let text = std::fs::read_to_string(dir.join("pids")).unwrap_or_default();
    let until = Instant::now() + Duration::from_secs(2);
    for pid in text.split_whitespace() {
        let proc = Path::new("/proc").join(pid);
        while proc.exists() && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(10));
        }
        assert!(!proc.exists(), "process {pid} is still running");
    }
}

#[test]
fn lists_pages_of_tools_and_calls_one() {
    let dir = tempfile::tempdir().unwrap();
    let mut client = Client::connect("sh", &sh(WORKING, dir.path()), fast()).unwrap();
    assert_eq!(client.info().name, "sh");
    assert_eq!(client.info().protocol_version, "2025-06-18");
    let tools = client.list_tools().unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["echo", "add"]);
    assert_eq!(tools[0].summary(), "Echo it");
    let result = client.call_tool("echo", json!({"x": 1})).unwrap();
    assert_eq!(super::result_text(&result), "hi");
    client.close();
}

#[test]
fn a_server_that_exits_at_once_says_so_with_its_stderr() {
    let dir = tempfile::tempdir().unwrap();
    let err = connect_err(
        "echo $$ > pids; echo 'missing API key' >&2; exit 3",
        dir.path(),
    );
    assert!(err.contains("MCP server `bad`"), "{err}");
    assert!(
        err.contains("exited before answering (exit status: 3)"),
        "{err}"
    );
    assert!(err.contains("missing API key"), "{err}");
    assert_all_gone(dir.path());
}

#[test]
fn a_server_that_writes_junk_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let err = connect_err(
        "echo $$ > pids; read -r l; echo 'Server listening on port 3000'; sleep 30",
        dir.path(),
    );
    assert!(err.contains("not JSON-RPC"), "{err}");
    assert!(err.contains("Server listening on port 3000"), "{err}");
    assert_all_gone(dir.path());
}

#[test]
fn a_server_that_never_answers_times_out_and_is_ended_with_its_children() {
    let dir = tempfile::tempdir().unwrap();
    let started = Instant::now();
    let err = connect_err(
        "sleep 60 & echo $! > pids; echo $$ >> pids; read -r l; sleep 60",
        dir.path(),
    );
    assert!(
        err.contains("did not answer `initialize` within 2.0 s"),
        "{err}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(6),
        "{:?}",
        started.elapsed()
    );
    assert_all_gone(dir.path());
}

#[test]
fn a_server_that_floods_its_output_is_stopped() {
    let dir = tempfile::tempdir().unwrap();
    // One endless line: bounded by the line limit.
    let err = connect_err("echo $$ > pids; read -r l; yes | tr -d '\\n'", dir.path());
    assert!(err.contains("longer than 16 MiB"), "{err}");
    assert_all_gone(dir.path());
}

#[test]
fn a_command_that_does_not_exist_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let endpoint = Endpoint::Stdio {
        command: "dotpack-no-such-server".to_string(),
        args: vec![],
        env: BTreeMap::new(),
        cwd: None,
        secrets: super::Secrets::default(),
    };
    let err = Client::connect("gone", &endpoint, fast())
        .err()
        .map(|e| e.to_string());
    let err = err.unwrap_or_default();
    assert!(err.contains("`dotpack-no-such-server`"), "{err}");
    drop(dir);
}

#[test]
fn an_unsupported_protocol_version_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let err = connect_err(
        r#"read -r l; printf '%s\n' '{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"1999-01-01","capabilities":{}}}'; read -r l"#,
        dir.path(),
    );
    assert!(err.contains("1999-01-01"), "{err}");
}

#[test]
fn a_json_rpc_error_is_reported_with_its_code() {
    let dir = tempfile::tempdir().unwrap();
    let endpoint = sh(
        r#"read -r l; printf '%s\n' '{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"bad params"}}'; read -r l"#,
        dir.path(),
    );
    match Client::connect("rpc", &endpoint, fast()) {
        Err(McpError::Rpc { code, message, .. }) => {
            assert_eq!(code, -32602);
            assert_eq!(message, "bad params");
        }
        Err(other) => panic!("{other}"),
        Ok(_) => panic!("connected"),
    }
}

/// A server that reads two calls before it answers either (in reverse order, each with its
/// argument `n`), says its tools changed, then on a third call asks for progress and keeps the
/// line it reads next (the cancel) in `cancelled`.
const OVERLAPPING: &str = r#"
read -r line
printf '%s\n' '{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{"listChanged":true}},"serverInfo":{"name":"sh","version":"0.1"}}}'
read -r line
answer() {
  id=$(printf '%s' "$1" | sed 's/.*"id":\([0-9]*\).*/\1/')
  n=$(printf '%s' "$1" | sed 's/.*"n":\([0-9]*\).*/\1/')
  printf '{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"%s"}]}}\n' "$id" "$n"
}
read -r first
read -r second
printf '%s\n' '{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}'
answer "$second"
answer "$first"
read -r third
printf '%s\n' '{"jsonrpc":"2.0","method":"notifications/progress","params":{}}'
read -r cancel
printf '%s\n' "$cancel" > cancelled
answer "$third"
read -r line
"#;

#[test]
fn a_shared_client_matches_overlapping_answers_by_id_and_passes_a_cancel_on() {
    use std::sync::{Arc, Mutex};
    let dir = tempfile::tempdir().unwrap();
    let cancel = Arc::new(super::Cancel::default());
    let heard = Arc::new(Mutex::new(Vec::new()));
    let (on_progress, seen) = (Arc::clone(&cancel), Arc::clone(&heard));
    let notices: super::Notices = Arc::new(move |method: &str| {
        seen.lock().unwrap().push(method.to_string());
        if method == "notifications/progress" {
            on_progress.cancel("the user gave up");
        }
    });
    let client =
        super::SharedClient::connect("sh", &sh(OVERLAPPING, dir.path()), fast(), notices).unwrap();
    let texts: Vec<String> = std::thread::scope(|scope| {
        let calls: Vec<_> = [1, 2]
            .map(|n| {
                let client = &client;
                scope.spawn(move || client.call_tool("x", json!({"n": n}), None).unwrap())
            })
            .into_iter()
            .collect();
        calls
            .into_iter()
            .map(|c| super::result_text(&c.join().unwrap()))
            .collect()
    });
    assert_eq!(texts, ["1", "2"], "each call got its own answer");
    match client.call_tool("x", json!({"n": 3}), Some(&cancel)) {
        Err(McpError::Cancelled { .. }) => {}
        other => panic!("expected a cancelled call, got {other:?}"),
    }
    let path = dir.path().join("cancelled");
    let until = Instant::now() + Duration::from_secs(2);
    let mut text = String::new();
    while !text.ends_with('\n') && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(10));
        text = std::fs::read_to_string(&path).unwrap_or_default();
    }
    let sent: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(sent["method"], "notifications/cancelled");
    assert_eq!(
        sent["params"],
        json!({"requestId": 4, "reason": "the user gave up"})
    );
    assert_eq!(
        *heard.lock().unwrap(),
        ["notifications/tools/list_changed", "notifications/progress"]
    );
    client.close();
}

/// A server that never answers its first call: it keeps the line it reads next (the cancel) in
/// `cancelled`, then answers the next call.
const SLOW_FIRST: &str = r#"
read -r line
printf '%s\n' '{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"sh","version":"0.1"}}}'
read -r line
read -r first
read -r cancel
printf '%s\n' "$cancel" > cancelled
read -r next
id=$(printf '%s' "$next" | sed 's/.*"id":\([0-9]*\).*/\1/')
printf '{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"late"}]}}\n' "$id"
read -r line
"#;

#[test]
fn a_shared_clients_request_that_times_out_is_cancelled_at_the_server_and_the_session_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let timeouts = Timeouts {
        request: Duration::from_millis(300),
        ..fast()
    };
    let notices: super::Notices = std::sync::Arc::new(|_: &str| {});
    let client =
        super::SharedClient::connect("sh", &sh(SLOW_FIRST, dir.path()), timeouts, notices).unwrap();
    match client.call_tool("x", json!({}), None) {
        Err(e @ McpError::TimedOut { .. }) => {
            assert!(
                e.to_string()
                    .contains("did not answer `tools/call` within 0.3 s"),
                "{e}"
            );
        }
        other => panic!("expected a timed-out call, got {other:?}"),
    }
    // Answered only after the server read the cancel, so the cancel was sent first.
    let answer = client.call_tool("x", json!({}), None).unwrap();
    assert_eq!(super::result_text(&answer), "late");
    let text = std::fs::read_to_string(dir.path().join("cancelled")).unwrap();
    let sent: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(sent["method"], "notifications/cancelled");
    assert_eq!(
        sent["params"],
        json!({"requestId": 2, "reason": "the request timed out"})
    );
    client.close();
}
