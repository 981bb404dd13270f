//! `dotpack bridge` as hosts run it: calls served side by side (a slow one holds up no other).

use std::time::Duration;

use serde_json::{Value, json};

use crate::fake_mcp::{Recorder, Request, response};
use crate::support::Env;

/// A tool service on loopback answering each connection on its own thread: `GET /tools` lists
/// `tools`, and `POST /call` answers `{"tool": NAME}`, after 1.5 s for the tool `slow`.
fn service(tools: &'static [&'static str]) -> Recorder {
    Recorder::concurrent(move |r: &Request| {
        let json = "Content-Type: application/json\r\n";
        match (r.method.as_str(), r.path.as_str()) {
            ("GET", "/tools") => {
                let listed: Vec<Value> = tools.iter().map(|t| json!({"name": t})).collect();
                response(200, json, &Value::from(listed).to_string())
            }
            ("POST", "/call") => {
                let body: Value = serde_json::from_str(&r.body).unwrap_or_default();
                if body["tool"] == "slow" {
                    std::thread::sleep(Duration::from_millis(1500));
                }
                response(200, json, &json!({"tool": body["tool"]}).to_string())
            }
            _ => response(404, "", "no"),
        }
    })
}

/// Runs `dotpack ARGS` (a bridge) over the JSON-RPC messages `input`; returns the responses in
/// the order they were written.
fn run(env: &Env, args: &[String], input: &[Value]) -> Vec<Value> {
    let stdin: String = input.iter().map(|m| format!("{m}\n")).collect();
    let out = env
        .dotpack()
        .args(args)
        .write_stdin(stdin)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

fn bridge_args(url: &str, more: &[&str]) -> Vec<String> {
    let mut args = vec!["bridge".to_string(), url.to_string()];
    args.extend(more.iter().map(|a| a.to_string()));
    args
}

fn initialize() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18"}})
}

fn call(id: u64, tool: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": tool, "arguments": {}}})
}

fn ids(replies: &[Value]) -> Vec<u64> {
    replies.iter().filter_map(|r| r["id"].as_u64()).collect()
}

#[test]
fn the_bridge_answers_a_fast_call_before_a_slow_one_sent_earlier() {
    let env = Env::new();
    let service = service(&["slow", "fast"]);
    let replies = run(
        &env,
        &bridge_args(&service.url(), &[]),
        &[
            initialize(),
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
            call(2, "slow"),
            call(3, "fast"),
        ],
    );
    // `initialize` first, then the fast call, then the slow one: each with its own result.
    assert_eq!(ids(&replies), [1, 3, 2], "{replies:?}");
    assert_eq!(replies[0]["result"]["serverInfo"]["name"], "dotpack-bridge");
    assert_eq!(
        replies[1]["result"]["structuredContent"],
        json!({"tool": "fast"})
    );
    assert_eq!(
        replies[2]["result"]["structuredContent"],
        json!({"tool": "slow"})
    );
}

#[test]
fn the_bridge_answers_every_call_once_when_more_are_sent_than_run_at_once() {
    let env = Env::new();
    let service = service(&["fast"]);
    let count = 3 * dotpack::mcp::bridge::MAX_IN_FLIGHT as u64;
    let mut input = vec![initialize()];
    input.extend((2..2 + count).map(|id| call(id, "fast")));
    let replies = run(&env, &bridge_args(&service.url(), &[]), &input);
    let mut seen = ids(&replies);
    seen.sort_unstable();
    assert_eq!(seen, (1..2 + count).collect::<Vec<_>>());
    for reply in &replies[1..] {
        assert_eq!(
            reply["result"]["structuredContent"],
            json!({"tool": "fast"})
        );
    }
}
