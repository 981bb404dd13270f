//! Upsert speed: a 2 MB `~/.claude.json` (project history plus 50 servers) must take well under
//! 20 ms; a small `.mcp.json` should be negligible.

use std::fmt::Write as _;
use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use dotpack::formats::{Container, Document, Format, list_entries, upsert_entry};
use serde_json::{Value, json};

const MCP: &[&str] = &["mcpServers"];

/// A `~/.claude.json` as Claude Code writes it (JSON.stringify, 2 spaces) of about `target` bytes.
fn claude_json(target: usize) -> String {
    let mut servers = serde_json::Map::new();
    for i in 0..50 {
        servers.insert(format!("server-{i}"), entry(i));
    }
    let mut projects = serde_json::Map::new();
    let mut i = 0;
    let mut size = 0;
    while size < target {
        let project = json!({
            "allowedTools": ["Bash(git status)", "Edit", "Read"],
            "history": (0..10).map(|h| json!({
                "display": format!("refactor the parser in module {h} and run the tests again"),
                "pastedContents": {}
            })).collect::<Vec<_>>(),
            "mcpContextUris": [],
            "enabledMcpjsonServers": [],
            "hasTrustDialogAccepted": true,
            "lastCost": 0.4213,
            "lastDuration": 120_345
        });
        size += project.to_string().len() + 40;
        projects.insert(format!("/home/user/src/project-{i}"), project);
        i += 1;
    }
    let doc = json!({
        "numStartups": 312,
        "theme": "dark",
        "projects": projects,
        "mcpServers": servers,
        "userID": "0f3c9a",
    });
    let mut text = serde_json::to_string_pretty(&doc).unwrap_or_default();
    let _ = writeln!(text);
    text
}

fn entry(i: usize) -> Value {
    json!({
        "type": "stdio",
        "command": "npx",
        "args": ["-y", format!("@acme/mcp-{i}")],
        "env": {"ACME_TOKEN": "${ACME_TOKEN}"}
    })
}

fn small_mcp_json() -> String {
    let doc =
        json!({"mcpServers": {"github": entry(1), "figma": {"url": "http://127.0.0.1:3845/mcp"}}});
    format!(
        "{}\n",
        serde_json::to_string_pretty(&doc).unwrap_or_default()
    )
}

fn bench_upsert(c: &mut Criterion) {
    let big = claude_json(2_000_000);
    let small = small_mcp_json();
    let value = entry(99);
    let container = Container::new(MCP);
    c.bench_function("upsert new entry into 2 MB ~/.claude.json", |b| {
        b.iter(|| upsert_entry(Format::Json, black_box(&big), container, "acme", &value))
    });
    c.bench_function("replace entry in 2 MB ~/.claude.json", |b| {
        b.iter(|| upsert_entry(Format::Json, black_box(&big), container, "server-7", &value))
    });
    c.bench_function("list then upsert in 2 MB ~/.claude.json, two parses", |b| {
        b.iter(|| {
            let text = black_box(&big);
            let entries = list_entries(Format::Json, text, container).map(|e| e.len());
            (
                entries,
                upsert_entry(Format::Json, text, container, "acme", &value),
            )
        })
    });
    c.bench_function(
        "list then upsert in 2 MB ~/.claude.json, one Document",
        |b| {
            b.iter(|| {
                let doc = Document::parse(Format::Json, black_box(&big), container).ok();
                doc.map(|d| (d.entries().len(), d.upsert("acme", &value)))
            })
        },
    );
    c.bench_function("upsert new entry into small .mcp.json", |b| {
        b.iter(|| upsert_entry(Format::Json, black_box(&small), container, "acme", &value))
    });
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20);
    targets = bench_upsert
}
criterion_main!(benches);
