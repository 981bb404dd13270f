//! Upsert speed: a 2 MB `~/.claude.json` (project history plus 50 servers) must take well under
//! 20 ms; a small `.mcp.json` should be negligible. Batches: 10,000 entries written into (and
//! removed from) one file in one batch, which must grow linearly with the number of entries.

use std::fmt::Write as _;
use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use dotpack::formats::{Container, Document, Format, Op, apply_ops, list_entries, upsert_entry};
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

/// `n` entries as dotpack writes them for a project's own servers.
fn entries(n: usize) -> Vec<(String, Value)> {
    (0..n)
        .map(|i| {
            let name = format!("s{i}");
            let value = json!({"command": "npx", "args": ["-y", name]});
            (name, value)
        })
        .collect()
}

fn bench_batches(c: &mut Criterion) {
    let n = 10_000;
    let entries = entries(n);
    let upserts: Vec<Op<'_>> = entries.iter().map(|(k, v)| Op::Upsert(k, v)).collect();
    for (format, path, name) in [
        (Format::Json, &["mcpServers"][..], ".mcp.json"),
        (Format::Jsonc, &["servers"][..], ".vscode/mcp.json"),
        (Format::Toml, &["mcp_servers"][..], ".codex/config.toml"),
    ] {
        let container = Container::new(path);
        c.bench_function(
            &format!("batch: {n} new entries into an empty {name}"),
            |b| b.iter(|| apply_ops(format, black_box(""), container, &upserts)),
        );
        let Ok(full) = apply_ops(format, "", container, &upserts) else {
            continue;
        };
        let created = full.created.clone();
        let removals: Vec<Op<'_>> = entries
            .iter()
            .map(|(k, _)| Op::Remove(k, &created))
            .collect();
        c.bench_function(&format!("batch: remove {n} entries from {name}"), |b| {
            b.iter(|| apply_ops(format, black_box(&full.text), container, &removals))
        });
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20);
    targets = bench_upsert
}

criterion_group! {
    name = batches;
    config = Criterion::default().sample_size(10);
    targets = bench_batches
}
criterion_main!(benches, batches);
