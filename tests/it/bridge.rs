//! `dotpack bridge` as hosts run it: calls served side by side (a slow one holds up no other),
//! and a server's `enabled_tools`/`disabled_tools` enforced by the bridge itself, so a host
//! without those fields loses nothing.

use std::time::Duration;

use predicates::prelude::*;
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

/// The response to request `id`.
fn by_id(replies: &[Value], id: u64) -> Value {
    replies
        .iter()
        .find(|r| r["id"] == id)
        .cloned()
        .unwrap_or_default()
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

#[test]
fn the_bridge_serves_only_enabled_tools_and_refuses_to_call_another() {
    let env = Env::new();
    let service = service(&["search", "read_file", "read_secret", "delete"]);
    let args = bridge_args(
        &service.url(),
        &[
            "--enable-tool",
            "search",
            "--enable-tool",
            "read_*",
            "--disable-tool",
            "read_secret",
        ],
    );
    let replies = run(
        &env,
        &args,
        &[
            initialize(),
            json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
            call(3, "delete"),
            call(4, "read_secret"),
            call(5, "read_file"),
        ],
    );
    let reply = |id: u64| by_id(&replies, id);
    let listed = reply(2);
    let listed: Vec<&str> = listed["result"]["tools"]
        .as_array()
        .map(|t| t.iter().filter_map(|t| t["name"].as_str()).collect())
        .unwrap_or_default();
    assert_eq!(listed, ["search", "read_file"]);
    for (id, tool) in [(3, "delete"), (4, "read_secret")] {
        assert_eq!(reply(id)["error"]["code"], -32602, "{replies:?}");
        let message = reply(id)["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        assert!(
            message.contains(&format!("the tool `{tool}` is not enabled")),
            "{message}"
        );
    }
    assert_eq!(
        reply(5)["result"]["structuredContent"],
        json!({"tool": "read_file"})
    );
    let called: Vec<String> = service
        .requests()
        .into_iter()
        .filter(|r| r.method == "POST")
        .map(|r| r.body)
        .collect();
    assert_eq!(called.len(), 1, "{called:?}");
    assert!(called[0].contains("read_file"), "{called:?}");
}

#[test]
fn a_bridged_servers_enabled_tools_hold_on_a_host_without_the_field() {
    let env = Env::new();
    let service = service(&["search", "delete"]);
    // Claude Code has no allow list of tools: the bridge it runs enforces it, nothing is lossy.
    env.write(
        "dotpack.toml",
        &format!(
            "[project]\nhosts = [\"claude-code\"]\n\n[servers.svc]\nbridge = \"{}\"\nenabled_tools = [\"search\"]\n",
            service.url()
        ),
    );
    env.dotpack()
        .arg("install")
        .assert()
        .success()
        .stderr(predicates::str::contains("lossy").not());
    let written: Value = serde_json::from_str(&env.read(".mcp.json")).unwrap();
    let entry = &written["mcpServers"]["svc"];
    assert_eq!(
        entry["args"],
        json!(["bridge", service.url(), "--enable-tool", "search"])
    );
    assert!(entry.get("enabled_tools").is_none(), "{entry}");
    // What the host runs serves only `search`.
    let args: Vec<String> = entry["args"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|a| a.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    let replies = run(
        &env,
        &args,
        &[
            initialize(),
            json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
            call(3, "delete"),
        ],
    );
    assert_eq!(
        by_id(&replies, 2)["result"]["tools"],
        json!([{"name": "search", "description": "", "inputSchema": {"type": "object"}}])
    );
    assert_eq!(by_id(&replies, 3)["error"]["code"], -32602);
    // `probe` sees every tool of the service, as it does of any server.
    let out = env
        .dotpack()
        .args(["--trust", "probe", "svc", "--json"])
        .output()
        .unwrap();
    let probed: Value = serde_json::from_slice(&out.stdout).unwrap_or_default();
    let names: Vec<&str> = probed["tools"]
        .as_array()
        .map(|t| t.iter().filter_map(|t| t["name"].as_str()).collect())
        .unwrap_or_default();
    assert_eq!(
        names,
        ["search", "delete"],
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn enabled_tools_given_as_one_expression_are_enforced_by_the_bridge_too() {
    let env = Env::new();
    env.write(
        "dotpack.toml",
        "[project]\nhosts = [\"claude-code\", \"codex\"]\n\n[inputs.tools]\ntype = \"array\"\ndefault = [\"search\", \"list_*\"]\n\n[servers.svc]\nbridge = \"http://127.0.0.1:9/mcp\"\nenabled_tools = \"{{props.tools}}\"\n",
    );
    env.dotpack()
        .arg("install")
        .assert()
        .success()
        .stderr(predicates::str::contains("lossy").not());
    let written: Value = serde_json::from_str(&env.read(".mcp.json")).unwrap();
    let entry = &written["mcpServers"]["svc"];
    assert_eq!(
        entry["args"],
        json!([
            "bridge",
            "http://127.0.0.1:9/mcp",
            "--enable-tool",
            "search",
            "--enable-tool",
            "list_*"
        ])
    );
    assert!(entry.get("enabled_tools").is_none(), "{entry}");
    // Every host's entry says the same: Codex's own `enabled_tools` is not written either.
    let codex = env.read(".codex/config.toml");
    assert!(!codex.contains("enabled_tools"), "{codex}");
    assert!(codex.contains("\"--enable-tool\", \"list_*\""), "{codex}");
}
