//! Real published `server.json` documents (`tests/fixtures/mcp-registry/published/`, 1,068
//! servers from the official registry's API, see its `SOURCE.md`), served by the loopback MCP
//! Registry and installed with `add` as a user would, with placeholder `--set` values for the
//! inputs they require.
//!
//! - The install rate is measured on the half of the documents the mapping was not tuned on
//!   (those whose name's sha256 starts with an odd byte): every server with an npm, PyPI or OCI
//!   package or a remote must install into Claude Code at 95 % or more, and every refusal must
//!   name its reason. The default run takes every eighth document of that half; the long run
//!   (`DOTPACK_LONG_TESTS=1`, as in CI) takes all of it.
//! - A reviewed sample of 30 documents (every package type, both remote transports, runtime
//!   hints, runtime arguments, switches, secret and optional headers) is snapshotted as written
//!   into Claude Code, Codex and Continue (YAML).

use std::collections::BTreeMap;

use serde_json::Value;

use crate::support::{Env, long_tests};
use crate::support_mcp::McpServer;

/// The published documents, as the registry served them.
fn published() -> Vec<Value> {
    let path =
        crate::support::repo_root().join("tests/fixtures/mcp-registry/published/servers.json");
    let text = std::fs::read_to_string(&path).expect("published server.json corpus");
    serde_json::from_str(&text).expect("the corpus is a JSON array")
}

fn name_of(doc: &Value) -> &str {
    doc["name"].as_str().unwrap_or_default()
}

/// The half of the corpus the mapping was not tuned on.
fn held_out(doc: &Value) -> bool {
    let digest = dotpack::registry::archive::sha256_hex(name_of(doc).as_bytes());
    u8::from_str_radix(&digest[..2], 16).is_ok_and(|b| b % 2 == 1)
}

/// Whether the figure counts the document: an npm, PyPI or OCI package, or a remote.
fn counted(doc: &Value) -> bool {
    let remotes = doc["remotes"].as_array().is_some_and(|r| !r.is_empty());
    let packages = doc["packages"].as_array().into_iter().flatten().any(|p| {
        matches!(
            p["registryType"].as_str(),
            Some("npm") | Some("pypi") | Some("oci")
        )
    });
    remotes || packages
}

/// `--set NAME=VALUE` for every input the mapped package requires without a default: the first
/// choice, a number, `true`, or a placeholder text.
fn placeholder_sets(doc: &Value) -> Vec<String> {
    let bytes = dotpack::registry::mcp::canonical(doc);
    let Ok(manifest) = dotpack::registry::mcp::manifest_text(&bytes, name_of(doc)) else {
        return Vec::new();
    };
    let Ok(table) = manifest.parse::<toml::Table>() else {
        return Vec::new();
    };
    let mut sets = Vec::new();
    for (name, spec) in table
        .get("inputs")
        .and_then(|i| i.as_table())
        .into_iter()
        .flatten()
    {
        let required = spec.get("required").and_then(toml::Value::as_bool) == Some(true);
        if !required || spec.get("default").is_some() {
            continue;
        }
        let value = match (
            spec.get("enum")
                .and_then(|e| e.as_array()?.first().cloned()),
            spec.get("type").and_then(toml::Value::as_str),
        ) {
            (Some(toml::Value::String(s)), _) => s,
            (Some(other), _) => other.to_string(),
            (None, Some("number")) => "1".to_string(),
            (None, Some("bool")) => "true".to_string(),
            _ => "placeholder".to_string(),
        };
        sets.push("--set".to_string());
        sets.push(format!("{name}={value}"));
    }
    sets
}

fn project(env: &Env, server: &McpServer, hosts: &str) {
    env.write(
        "dotpack.toml",
        &format!(
            "[project]\nhosts = [{hosts}]\n\n[registries]\nmcp = {{ url = \"{}\", kind = \"mcp-registry\" }}\n",
            server.url()
        ),
    );
}

/// What `add` did with one document: the error's first line when it failed.
fn install(server: &McpServer, doc: &Value) -> Result<(), String> {
    let env = Env::new();
    project(&env, server, "\"claude-code\"");
    let out = env
        .dotpack()
        .arg("add")
        .arg(name_of(doc))
        .args(placeholder_sets(doc))
        .output()
        .expect("run dotpack");
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(!stderr.contains("panicked"), "{}: {stderr}", name_of(doc));
    if out.status.success() {
        let written = std::fs::read_to_string(env.project.join(".mcp.json")).unwrap_or_default();
        let servers: Value = serde_json::from_str(&written).unwrap_or_default();
        let installed = servers["mcpServers"]
            .as_object()
            .is_some_and(|s| s.len() == 1);
        return match installed {
            true => Ok(()),
            false => Err(format!("succeeded without writing the server: {written}")),
        };
    }
    // The error, and the reason for the version when it names one on the next line.
    let mut lines = stderr.lines().skip_while(|l| !l.starts_with("error: "));
    let error = lines.next().unwrap_or_default();
    let version_reason = lines
        .next()
        .filter(|l| l.trim_start().starts_with(name_of(doc)))
        .map(|l| format!(" ({})", l.trim()))
        .unwrap_or_default();
    Err(format!("{error}{version_reason}"))
}

#[test]
// The figure and the refusals are printed for the note (`cargo test -- --nocapture`).
#[allow(clippy::print_stderr)]
fn published_servers_install_into_claude_code_at_95_percent_and_refusals_say_why() {
    let docs = published();
    assert!(docs.len() > 1000, "{} documents", docs.len());
    let server = McpServer::start(docs.clone(), 100);
    let every = if long_tests() { 1 } else { 8 };
    let held: Vec<&Value> = docs
        .iter()
        .filter(|d| held_out(d) && counted(d))
        .step_by(every)
        .collect();
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get().clamp(2, 4));
    let results: Vec<(String, Result<(), String>)> = std::thread::scope(|scope| {
        let chunks: Vec<Vec<&Value>> = (0..workers)
            .map(|w| held.iter().skip(w).step_by(workers).copied().collect())
            .collect();
        let handles: Vec<_> = chunks
            .into_iter()
            .map(|chunk| {
                let server = &server;
                scope.spawn(move || {
                    chunk
                        .into_iter()
                        .map(|doc| (name_of(doc).to_string(), install(server, doc)))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("worker"))
            .collect()
    });
    let installed = results.iter().filter(|(_, r)| r.is_ok()).count();
    let mut reasons: BTreeMap<String, Vec<&str>> = BTreeMap::new();
    for (name, result) in &results {
        if let Err(reason) = result {
            // Every refusal names its reason: an `error:` line that says why.
            assert!(reason.len() > "error: ".len() + 20, "{name}: {reason:?}");
            reasons.entry(reason.clone()).or_default().push(name);
        }
    }
    let rate = installed as f64 * 100.0 / results.len() as f64;
    eprintln!(
        "{installed} of {} held-out servers installed ({rate:.1} %)",
        results.len()
    );
    for (reason, names) in &reasons {
        eprintln!("  {} × {reason}: {}", names.len(), names.join(", "));
    }
    assert!(rate >= 95.0, "{rate:.1} %: {reasons:#?}");
}

/// The reviewed sample: every package type, both remote transports, runtime hints (`npx`,
/// `node`, `bun`, `uvx`, `python`, `docker`, `dnx`), runtime arguments (a docker command line
/// written out item by item, npm flags, a package spelled out), switches and flags that take a
/// value, defaults, choices and typed inputs, required and optional secrets in variables and
/// headers, credentials without `isSecret`, an undeclared `{variable}`, a pre-release-only
/// package, an image at `:latest`, and an SSE remote Codex cannot speak.
const SAMPLE: &[&str] = &[
    "ai.exa/exa",
    "ai.meminal/meminal",
    "ai.packmind/mcp-server",
    "ai.smithery/BigVik193-reddit-ads-mcp-api",
    "co.axiom/mcp",
    "com.atlassian/atlassian-mcp-server",
    "com.codescene/codescene-mcp-server",
    "com.gitkraken/gk-cli",
    "com.joelverhagen.mcp/Knapcode.SampleMcpServer",
    "com.keboola/mcp",
    "com.microsoft/azure",
    "com.pulsemcp.servers/pulse-fetch",
    "com.supabase/mcp",
    "finance.orbt/intelligence",
    "io.github.Couchbase-Ecosystem/mcp-server-couchbase",
    "io.github.Fannon/u-he-preset-randomizer",
    "io.github.IvanMurzak/Unity-MCP",
    "io.github.ONLYOFFICE/docspace",
    "io.github.PagerDuty/pagerduty-mcp",
    "io.github.Snowflake-Labs/mcp",
    "io.github.SonarSource/sonarqube-mcp-server",
    "io.github.aimoda/rigol-dho824-mcp",
    "io.github.aybelatchane/mcp-server-terminal",
    "io.github.bytedance/mcp-server-commands",
    "io.github.cyanheads/pubmed-mcp-server",
    "io.github.esrisaudiarabia/arcgis-mcp-server",
    "io.github.gradion-ai/ipybox",
    "io.github.jongalloway/dotnet-mcp",
    "io.github.timheuer/sampledotnetmcpserver",
    "io.github.wise-vision/mcp_server_ros_2",
];

/// What `add` wrote for one server: its entry in `.mcp.json`, `.codex/config.toml` and
/// Continue's `config.yaml`, or each host's refusal.
fn written(server: &McpServer, doc: &Value) -> String {
    let env = Env::new();
    project(&env, server, "\"claude-code\", \"codex\", \"continue\"");
    let out = env
        .dotpack()
        // Continue's file is the user's own: this run is allowed to write it.
        .args(["add", "--trust", name_of(doc)])
        .args(placeholder_sets(doc))
        .output()
        .expect("run dotpack");
    let mut text = format!(
        "## {} {}\n",
        name_of(doc),
        doc["version"].as_str().unwrap_or("")
    );
    let stderr = String::from_utf8_lossy(&out.stderr).replace(&server.url(), "http://REGISTRY");
    if !out.status.success() {
        text.push_str(&stderr);
        return text;
    }
    for warning in stderr.lines().filter(|l| l.starts_with("warning: ")) {
        text.push_str(&format!("{warning}\n"));
    }
    for (label, path) in [
        ("claude-code", env.project.join(".mcp.json")),
        ("codex", env.project.join(".codex/config.toml")),
        ("continue", env.home.path().join(".continue/config.yaml")),
    ] {
        let file = std::fs::read_to_string(&path).unwrap_or_else(|_| "(not written)".into());
        text.push_str(&format!("-- {label}\n{}\n", file.trim_end()));
    }
    text
}

#[test]
fn a_reviewed_sample_is_written_as_its_publishers_meant_into_three_hosts() {
    let docs = published();
    let server = McpServer::start(docs.clone(), 100);
    let by_name: BTreeMap<&str, &Value> = docs.iter().map(|d| (name_of(d), d)).collect();
    let texts: Vec<String> = SAMPLE
        .iter()
        .map(|name| {
            let doc = by_name
                .get(name)
                .unwrap_or_else(|| panic!("{name} is in the corpus"));
            written(&server, doc)
        })
        .collect();
    insta::assert_snapshot!("reviewed_sample", texts.join("\n"));
}
