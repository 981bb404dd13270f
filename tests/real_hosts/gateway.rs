//! The gateway under real hosts: with `[project] gateway = true`, `dotpack install` gives the
//! host one entry, `dotpack`, and a model session (the fake model of `model.rs`) finds a tool of
//! one of the project's two servers with the proxy tool `search`, reads it with `describe` and
//! calls it with `call`; the server is started on that call, the other never, and each answer
//! reaches the model. With `gateway = "direct"` the model calls the server's own tool, offered
//! as `SERVER__TOOL` from the pins.

use super::model::{Call, Model, Script};
use super::session::{self, Host};
use super::*;

/// The final text the fake model says once the tool's result came back.
const ANSWER: &str = "The tool answered.";

/// `dotpack.toml` serving the World's MCP server twice (`one`, `two`) through the gateway
/// (`gateway = SURFACE`) to `host` at `scope`, installed, the servers' starts approved
/// (`dotpack trust`) and their tools pinned (which starts them; the record of those starts is
/// then cleared).
fn gateway_project(w: &World, host: &str, scope: &str, surface: &str) {
    let server = w.mcp_server_arg();
    let manifest = format!(
        "[project]\nhosts = [{{ host = \"{host}\", scope = \"{scope}\" }}]\ngateway = {surface}\n\n\
         [servers.one]\ncommand = \"node\"\nargs = [{server:?}, \"one\"]\n\n\
         [servers.two]\ncommand = \"node\"\nargs = [{server:?}, \"two\"]\n",
    );
    std::fs::write(w.project.join("dotpack.toml"), manifest).expect("write dotpack.toml");
    w.dotpack().args(["--trust", "install"]).assert().success();
    w.dotpack().arg("trust").assert().success();
    w.dotpack().args(["lock", "--pin-tools"]).assert().success();
    std::fs::write(&w.record, "").expect("clear the record");
}

/// The names of the MCP servers in a host's JSON (`mcpServers`) or TOML (`mcp_servers`) file.
fn entries(file: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(file)
        .unwrap_or_else(|e| panic!("dotpack wrote {}: {e}", file.display()));
    let names: Vec<String> = if file.extension().is_some_and(|e| e == "toml") {
        let doc: toml::Table = text.parse().expect("TOML host file");
        doc.get("mcp_servers")
            .and_then(toml::Value::as_table)
            .map(|t| t.keys().cloned().collect())
            .unwrap_or_default()
    } else {
        let doc: Value = serde_json::from_str(&text).expect("JSON host file");
        doc["mcpServers"]
            .as_object()
            .map(|t| t.keys().cloned().collect())
            .unwrap_or_default()
    };
    names
}

/// A host (`bin`, dotpack's host id `id`) with the gateway project at `scope`, whose file is
/// `file` (under the project or HOME), in a session making `calls` of the `dotpack` entry's
/// tools (named as the host names them) that ends with `beta` of `one` called with `{"n": 7}`.
/// Checks that the file has one entry, `dotpack`, that the server got the call and only it
/// started, and returns the results that reached the model, every one of them.
fn session_through_the_gateway(
    (bin, host, id): (&Path, Host, &str),
    (scope, file, surface): (&str, &str, &str),
    calls: &[(&str, Value)],
) -> Vec<String> {
    let w = World::new();
    gateway_project(&w, id, scope, surface);
    let file = match scope {
        "project" => w.project.join(file),
        _ => w.root().join(file),
    };
    assert_eq!(entries(&file), ["dotpack"], "{}", file.display());
    assert!(w.stdio_starts().is_empty(), "nothing starts at install");

    let model = Model::start(Script {
        calls: calls
            .iter()
            .map(|(tool, arguments)| Call {
                tool: host.tool("dotpack", tool),
                arguments: arguments.clone(),
            })
            .collect(),
        answer: ANSWER.to_string(),
    });
    let said = session::run(session::command(&w, bin, host, "dotpack", &model), &model);
    let what = format!(
        "{id} at {scope}, gateway = {surface}: {said}\nthe model received:\n{}",
        model.summary()
    );
    assert_eq!(
        w.stdio_calls(),
        [json!({"call": "beta", "arguments": {"n": 7}, "argv": ["one"]})],
        "{what}"
    );
    let starts: Vec<Value> = w.stdio_starts().iter().map(|s| s["argv"].clone()).collect();
    assert_eq!(
        starts,
        [json!(["one"])],
        "only the called server starts: {what}"
    );
    let results = model.tool_results();
    assert_eq!(
        results.len(),
        calls.len(),
        "every answer reaches the model: {what}"
    );
    assert_has(
        results.last().map_or("", String::as_str),
        &format!("{TOOL_MARKER} from one: beta"),
        "the tool's result",
    );
    assert_has(&said, ANSWER, "the session's final answer");

    // The host's own list shows the one entry, connected; connecting starts no server.
    let (stdout, stderr) = session::list(&w, bin, host);
    let listed = format!("{stdout}{stderr}");
    match host {
        Host::Codex => {
            let list: Value = serde_json::from_str(&stdout).expect("codex mcp list --json");
            assert_eq!(list[0]["name"], "dotpack", "{listed}");
            assert_eq!(list.as_array().map(Vec::len), Some(1), "{listed}");
        }
        // `dotpack: COMMAND - ✓ Connected` (Gemini CLI: `✓ dotpack: COMMAND (stdio) - Connected`).
        Host::ClaudeCode | Host::GeminiCli => {
            let entry = |l: &&str| {
                l.trim_start_matches(|c: char| !c.is_ascii_alphanumeric())
                    .starts_with("dotpack: ")
            };
            let line = listed
                .lines()
                .find(entry)
                .unwrap_or_else(|| panic!("no dotpack entry listed: {listed}"));
            assert_has(line, "Connected", "the listed entry");
            assert!(
                !listed.contains("one: ") && !listed.contains("two: "),
                "{listed}"
            );
        }
    }
    assert_eq!(
        w.stdio_starts().len(),
        1,
        "listing started a server: {listed}"
    );
    results
}

/// Search, describe and call through the proxy tools; search and describe answer from the pins.
fn host_reaches_a_tool_through_the_gateway(
    bin: &Path,
    host: Host,
    id: &str,
    scope: &str,
    file: &str,
) {
    let results = session_through_the_gateway(
        (bin, host, id),
        (scope, file, "true"),
        &[
            ("search", json!({"query": "beta"})),
            ("describe", json!({"server": "one", "tool": "beta"})),
            (
                "call",
                json!({"server": "one", "tool": "beta", "arguments": {"n": 7}}),
            ),
        ],
    );
    assert_has(&results[0], "one beta(): beta", "search's answer");
    assert_has(&results[0], "two beta(): beta", "search's answer");
    assert_has(&results[1], "inputSchema", "describe's answer");
}

/// The server's own tool, `one__beta`, on the direct surface, project scope.
fn host_calls_a_direct_tool_through_the_gateway(bin: &Path, host: Host, id: &str, file: &str) {
    session_through_the_gateway(
        (bin, host, id),
        ("project", file, "\"direct\""),
        &[("one__beta", json!({"n": 7}))],
    );
}

#[test]
fn claude_code_reaches_a_tool_through_the_gateway() {
    let Some(claude) = cli("claude", "@anthropic-ai/claude-code") else {
        return;
    };
    for (scope, file) in [("project", ".mcp.json"), ("user", ".claude/.claude.json")] {
        host_reaches_a_tool_through_the_gateway(
            &claude,
            Host::ClaudeCode,
            "claude-code",
            scope,
            file,
        );
    }
}

#[test]
fn codex_reaches_a_tool_through_the_gateway() {
    let Some(codex) = cli("codex", "@openai/codex") else {
        return;
    };
    host_reaches_a_tool_through_the_gateway(
        &codex,
        Host::Codex,
        "codex",
        "project",
        ".codex/config.toml",
    );
}

#[test]
fn gemini_cli_reaches_a_tool_through_the_gateway() {
    let Some(gemini) = cli("gemini", "@google/gemini-cli") else {
        return;
    };
    host_reaches_a_tool_through_the_gateway(
        &gemini,
        Host::GeminiCli,
        "gemini-cli",
        "project",
        ".gemini/settings.json",
    );
}

#[test]
fn claude_code_calls_a_direct_tool_through_the_gateway() {
    let Some(claude) = cli("claude", "@anthropic-ai/claude-code") else {
        return;
    };
    host_calls_a_direct_tool_through_the_gateway(
        &claude,
        Host::ClaudeCode,
        "claude-code",
        ".mcp.json",
    );
}

#[test]
fn codex_calls_a_direct_tool_through_the_gateway() {
    let Some(codex) = cli("codex", "@openai/codex") else {
        return;
    };
    host_calls_a_direct_tool_through_the_gateway(
        &codex,
        Host::Codex,
        "codex",
        ".codex/config.toml",
    );
}

#[test]
fn gemini_cli_calls_a_direct_tool_through_the_gateway() {
    let Some(gemini) = cli("gemini", "@google/gemini-cli") else {
        return;
    };
    host_calls_a_direct_tool_through_the_gateway(
        &gemini,
        Host::GeminiCli,
        "gemini-cli",
        ".gemini/settings.json",
    );
}
