//! Servers shaped as publishers really write their `server.json` (names with capitals, `uvx
//! NAME==VERSION`, string defaults, optional secrets, a newest version dotpack refuses), served
//! by the loopback MCP Registry and installed with `add`.

use predicates::str::contains;
use serde_json::{Value, json};

use crate::support::Env;
use crate::support_mcp::McpServer;

const SCHEMA: &str = "https://static.modelcontextprotocol.io/schemas/2025-09-29/server.schema.json";

/// A project writing Claude Code's `.mcp.json` (and `more_hosts`), with the loopback registry
/// serving `docs` declared as `mcp`.
fn project_with(docs: Vec<Value>, more_hosts: &[&str]) -> (Env, McpServer) {
    let env = Env::new();
    let server = McpServer::start(docs, 100);
    let mut hosts = vec!["\"claude-code\"".to_string()];
    hosts.extend(more_hosts.iter().map(|h| format!("\"{h}\"")));
    env.write(
        "dotpack.toml",
        &format!(
            "[project]\nhosts = [{}]\n\n[registries]\nmcp = {{ url = \"{}\", kind = \"mcp-registry\" }}\n",
            hosts.join(", "),
            server.url()
        ),
    );
    (env, server)
}

fn claude(env: &Env) -> Value {
    serde_json::from_str(&env.read(".mcp.json")).expect(".mcp.json is JSON")
}

/// A PyPI server as `uvx` runs it, with its API token a secret.
fn keboola() -> Value {
    json!({
        "$schema": SCHEMA,
        "name": "io.github.keboola/keboola-mcp-server",
        "description": "Keboola MCP server",
        "version": "1.36.1",
        "packages": [{
            "registryType": "pypi",
            "identifier": "keboola-mcp-server",
            "version": "1.36.1",
            "transport": {"type": "stdio"},
            "environmentVariables": [
                {"name": "KBC_STORAGE_TOKEN", "description": "Storage API token", "isRequired": true, "isSecret": true},
                {"name": "KBC_STORAGE_API_URL", "description": "Storage API URL", "default": "https://connection.keboola.com"}
            ]
        }]
    })
}

#[test]
fn a_pypi_package_spec_is_not_taken_for_a_literal_secret() {
    let (env, _server) = project_with(vec![keboola()], &[]);
    env.dotpack()
        .args(["add", "io.github.keboola/keboola-mcp-server"])
        .assert()
        .success();
    let entry = &claude(&env)["mcpServers"]["keboola-mcp-server"];
    assert_eq!(entry["command"], "uvx");
    assert_eq!(entry["args"], json!(["keboola-mcp-server==1.36.1"]));
    assert_eq!(entry["env"]["KBC_STORAGE_TOKEN"], "${KBC_STORAGE_TOKEN}");
}

#[test]
fn a_literal_bearer_token_in_an_argument_is_refused_naming_the_field() {
    let doc = json!({
        "$schema": SCHEMA,
        "name": "io.github.acme/bridge",
        "description": "A remote server reached through mcp-remote",
        "version": "1.0.0",
        "packages": [{
            "registryType": "npm",
            "identifier": "mcp-remote",
            "version": "0.1.29",
            "transport": {"type": "stdio"},
            "packageArguments": [
                {"type": "positional", "value": "https://mcp.acme.dev/mcp"},
                {"type": "named", "name": "--header", "value": "Authorization: Bearer pmt_8fK2mQ7pL4vB9xR3wZ6"}
            ]
        }]
    });
    let (env, _server) = project_with(vec![doc], &[]);
    env.dotpack()
        .args(["add", "io.github.acme/bridge"])
        .assert()
        .failure()
        .stderr(contains(
            "`servers.bridge.args[4]` looks like a literal secret",
        ))
        .stderr(contains("reference the environment instead"));
    assert!(!env.project.join(".mcp.json").exists());
}

#[test]
fn string_defaults_of_boolean_and_number_inputs_install_as_typed_values() {
    let doc = json!({
        "$schema": SCHEMA,
        "name": "io.github.acme/files",
        "description": "Files, read-only by default",
        "version": "2.1.0",
        "packages": [{
            "registryType": "npm",
            "identifier": "@acme/files-mcp",
            "version": "2.1.0",
            "transport": {"type": "stdio"},
            "packageArguments": [
                {"type": "named", "name": "--read-only", "format": "boolean", "default": "true", "choices": ["true", "false"]},
                {"type": "named", "name": "--timeout", "format": "number", "default": "60"}
            ]
        }]
    });
    let (env, _server) = project_with(vec![doc], &[]);
    env.dotpack()
        .args(["add", "io.github.acme/files", "--set", "read_only=false"])
        .assert()
        .success();
    assert_eq!(
        claude(&env)["mcpServers"]["files"]["args"],
        json!([
            "-y",
            "@acme/files-mcp@2.1.0",
            "--read-only",
            "false",
            "--timeout",
            "60"
        ])
    );
    assert!(
        env.read("dotpack.toml")
            .contains("set = { read_only = false }"),
        "{}",
        env.read("dotpack.toml")
    );
}

#[test]
fn a_required_input_is_shown_as_required_and_asked_for_by_add() {
    let doc = json!({
        "$schema": SCHEMA,
        "name": "io.github.acme/notion",
        "description": "Notion pages",
        "version": "1.0.0",
        "packages": [{
            "registryType": "npm",
            "identifier": "@acme/notion-mcp",
            "version": "1.0.0",
            "transport": {"type": "stdio"},
            "packageArguments": [
                {"type": "named", "name": "--workspace", "description": "Workspace id", "isRequired": true}
            ]
        }]
    });
    let (env, _server) = project_with(vec![doc], &[]);
    env.dotpack()
        .args(["info", "io.github.acme/notion"])
        .assert()
        .success()
        .stdout(contains("workspace [required]: Workspace id"));
    env.dotpack()
        .args(["add", "io.github.acme/notion"])
        .assert()
        .failure()
        .stderr(contains(
            "needs a value for input `workspace` (Workspace id)",
        ))
        .stderr(contains("--set workspace=VALUE"));
    env.dotpack()
        .args(["add", "io.github.acme/notion", "--set", "workspace=team-a"])
        .assert()
        .success();
}

#[test]
fn an_optional_secret_is_empty_when_unset_in_every_host_that_can_say_so() {
    let doc = json!({
        "$schema": SCHEMA,
        "name": "io.github.acme/issues",
        "description": "Issues, more with a token",
        "version": "0.8.1",
        "packages": [{
            "registryType": "npm",
            "identifier": "@acme/issues-mcp",
            "version": "0.8.1",
            "transport": {"type": "stdio"},
            "environmentVariables": [
                {"name": "ISSUES_TOKEN", "description": "Raises the rate limit", "isSecret": true},
                {"name": "ISSUES_ORG_KEY", "description": "Organisation key", "isSecret": true, "isRequired": true}
            ]
        }]
    });
    let (env, _server) = project_with(vec![doc], &["cursor", "codex"]);
    env.dotpack()
        .args(["add", "io.github.acme/issues"])
        .assert()
        .success();
    let entry = &claude(&env)["mcpServers"]["issues"];
    // Claude Code passes an unset `${ISSUES_TOKEN}` on as that text: `:-` makes it empty.
    assert_eq!(entry["env"]["ISSUES_TOKEN"], "${ISSUES_TOKEN:-}");
    assert_eq!(entry["env"]["ISSUES_ORG_KEY"], "${ISSUES_ORG_KEY}");
    let cursor = env.read(".cursor/mcp.json");
    assert!(
        cursor.contains("\"ISSUES_TOKEN\": \"${env:ISSUES_TOKEN}\""),
        "{cursor}"
    );
    let codex = env.read(".codex/config.toml");
    assert!(
        codex.contains("env_vars = [\"ISSUES_ORG_KEY\", \"ISSUES_TOKEN\"]"),
        "{codex}"
    );
}
