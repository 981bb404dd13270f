//! Servers shaped as publishers really write their `server.json` (names with capitals, `uvx
//! NAME==VERSION`, string defaults, optional secrets, a newest version dotpack refuses), served
//! by the loopback MCP Registry and installed with `add`.

use predicates::prelude::*;
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
        .code(2)
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

/// `io.github.GLips/Figma-Context-MCP` at `version`: a registry name with capitals.
fn figma(version: &str) -> Value {
    json!({
        "$schema": SCHEMA,
        "name": "io.github.GLips/Figma-Context-MCP",
        "description": "Give your coding agent access to your Figma data",
        "version": version,
        "packages": [{
            "registryType": "npm",
            "identifier": "figma-developer-mcp",
            "version": version,
            "transport": {"type": "stdio"},
            "packageArguments": [{"type": "positional", "value": "--stdio"}],
            "environmentVariables": [
                {"name": "FIGMA_API_KEY", "description": "Figma personal access token", "isRequired": true, "isSecret": true}
            ]
        }]
    })
}

const FIGMA_KEY: &str = "\"io.github.glips/figma-context-mcp\" = { version = \"^0.6\", registry = \"mcp\", package = \"io.github.GLips/Figma-Context-MCP\" }";

#[test]
fn a_name_with_capitals_is_asked_for_as_the_publisher_spells_it_and_recorded() {
    let (env, server) = project_with(vec![figma("0.5.0"), figma("0.6.0")], &[]);
    env.dotpack()
        .args(["add", "io.github.GLips/Figma-Context-MCP"])
        .assert()
        .success()
        .stderr(contains("is spelled").not());
    assert_eq!(
        server.requests(),
        [
            "200 /v0.1/servers/io.github.GLips%2FFigma-Context-MCP/versions",
            "200 /v0.1/servers/io.github.GLips%2FFigma-Context-MCP/versions/0.6.0",
        ]
    );
    let manifest = env.read("dotpack.toml");
    assert!(manifest.contains(FIGMA_KEY), "{manifest}");
    let lock = env.read("dotpack.lock");
    assert!(
        lock.contains("name = \"io.github.glips/figma-context-mcp\""),
        "{lock}"
    );
    let entry = &claude(&env)["mcpServers"]["figma-context-mcp"];
    assert_eq!(
        entry["args"],
        json!(["-y", "figma-developer-mcp@0.6.0", "--stdio"])
    );

    // A teammate's clone asks with the recorded spelling: no 404, no search.
    let teammate = Env::new();
    teammate.write("dotpack.toml", &manifest);
    teammate.write("dotpack.lock", &lock);
    server.clear_requests();
    teammate
        .dotpack()
        .args(["install", "--locked"])
        .assert()
        .success();
    assert_eq!(
        server.requests(),
        [
            "200 /v0.1/servers/io.github.GLips%2FFigma-Context-MCP/versions",
            "200 /v0.1/servers/io.github.GLips%2FFigma-Context-MCP/versions/0.6.0",
        ]
    );
    assert_eq!(teammate.read(".mcp.json"), env.read(".mcp.json"));
    // `remove` and `tree` take dotpack's name in any case.
    env.dotpack()
        .arg("tree")
        .assert()
        .success()
        .stdout(contains("io.github.glips/figma-context-mcp v0.6.0"));
    env.dotpack()
        .args(["remove", "io.github.GLips/Figma-Context-MCP"])
        .assert()
        .success();
    assert!(!env.read("dotpack.toml").contains("figma"));
}

#[test]
fn a_name_in_another_case_finds_the_publishers_spelling() {
    let (env, server) = project_with(vec![figma("0.6.0")], &[]);
    env.dotpack()
        .args(["add", "io.github.glips/figma-context-mcp"])
        .assert()
        .success()
        .stderr(contains(
            "`io.github.glips/figma-context-mcp` is spelled `io.github.GLips/Figma-Context-MCP` in its registry",
        ));
    assert_eq!(
        server.requests(),
        [
            "404 /v0.1/servers/io.github.glips%2Ffigma-context-mcp/versions",
            "200 /v0.1/servers?search=figma-context-mcp&version=latest&limit=100",
            "200 /v0.1/servers/io.github.GLips%2FFigma-Context-MCP/versions",
            "200 /v0.1/servers/io.github.GLips%2FFigma-Context-MCP/versions/0.6.0",
        ]
    );
    assert!(env.read("dotpack.toml").contains(FIGMA_KEY));
    // A dependency written by hand without `package` still resolves, through the search.
    let by_hand = Env::new();
    by_hand.write(
        "dotpack.toml",
        &env.read("dotpack.toml")
            .replace(", package = \"io.github.GLips/Figma-Context-MCP\"", ""),
    );
    by_hand.dotpack().arg("install").assert().success();
    assert!(
        by_hand
            .read(".mcp.json")
            .contains("figma-developer-mcp@0.6.0")
    );
}

#[test]
fn info_finds_a_name_in_any_case_and_an_unknown_one_is_reported_against_the_mcp_registry() {
    let (env, server) = project_with(vec![figma("0.6.0")], &[]);
    env.dotpack()
        .args(["info", "io.github.glips/figma-context-mcp"])
        .assert()
        .success()
        .stdout(contains("io.github.glips/figma-context-mcp 0.6.0"))
        .stdout(contains("registry name: io.github.GLips/Figma-Context-MCP"))
        .stdout(contains("npx -y figma-developer-mcp@0.6.0 --stdio"));
    env.dotpack()
        .args(["info", "io.github.GLips/Figma-Context"])
        .assert()
        .failure()
        .stderr(contains(format!(
            "package `io.github.GLips/Figma-Context` was not found in the registry mcp-registry+{}/",
            server.url()
        )))
        .stderr(contains("registry+builtin").not())
        .stderr(contains("did you mean `io.github.GLips/Figma-Context-MCP`?"));
}

#[test]
fn add_never_suggests_the_name_that_failed() {
    // A typo: the suggestion is the registry's own spelling, which `add` takes as it is.
    let (env, _server) = project_with(vec![figma("0.6.0")], &[]);
    env.dotpack()
        .args(["add", "io.github.glips/figma-context"])
        .assert()
        .failure()
        .stderr(contains(
            "package `io.github.glips/figma-context` was not found",
        ))
        .stderr(contains(
            "did you mean `io.github.GLips/Figma-Context-MCP`?",
        ))
        .stderr(contains("`io.github.glips/figma-context`?").not());
}

#[test]
fn a_package_that_is_not_the_dependency_in_another_case_is_an_error_naming_the_key() {
    let env = Env::new();
    env.write(
        "dotpack.toml",
        "[registries]\nmcp = { url = \"https://registry.modelcontextprotocol.io\", kind = \"mcp-registry\" }\n\n[dependencies]\n\"io.github.acme/weather\" = { version = \"^1\", registry = \"mcp\", package = \"io.github.evil/weather\" }\n",
    );
    env.dotpack()
        .arg("validate")
        .assert()
        .failure()
        .stderr(contains(
            "`package = \"io.github.evil/weather\"` is not how a registry spells `io.github.acme/weather`",
        ))
        .stderr(contains("dependencies.\"io.github.acme/weather\".package"));
}

/// `io.github.acme/rsdoctor` at `version`, published as an npm package, or from 0.8.0 on as an
/// MCP bundle only, which dotpack cannot run.
fn bundled_later(version: &str) -> Value {
    let package = if version.starts_with("0.4") {
        json!({"registryType": "npm", "identifier": "@acme/rsdoctor-mcp", "version": version, "transport": {"type": "stdio"}})
    } else {
        json!({"registryType": "mcpb", "identifier": format!("https://github.com/acme/rsdoctor/releases/download/v{version}/rsdoctor.mcpb"), "fileSha256": "fe333e598595000ae021bd27117db32ec69af6987f507ba7a63c90638ff633ce", "transport": {"type": "stdio"}})
    };
    json!({
        "$schema": SCHEMA,
        "name": "io.github.acme/rsdoctor",
        "description": "Build analysis",
        "version": version,
        "packages": [package]
    })
}

#[test]
fn add_and_lock_say_which_newer_version_they_skipped_and_why() {
    let docs = ["0.4.3", "0.4.4", "0.8.0", "0.8.1"]
        .map(bundled_later)
        .to_vec();
    let (env, _server) = project_with(docs, &[]);
    let skipped = "warning: skipped `io.github.acme/rsdoctor` 0.8.1, which cannot be installed: `mcpb` packages";
    env.dotpack()
        .args(["add", "io.github.acme/rsdoctor"])
        .assert()
        .success()
        .stderr(contains(skipped))
        .stderr(contains(
            "locked 0.4.4 instead; 1 other newer version cannot be installed either (`dotpack info io.github.acme/rsdoctor` lists them)",
        ));
    assert!(env.read("dotpack.lock").contains("version = \"0.4.4\""));
    // Nothing new is locked: nothing to say.
    env.dotpack()
        .arg("install")
        .assert()
        .success()
        .stderr(contains("skipped").not());
    // A lock made again says it again.
    std::fs::remove_file(env.project.join("dotpack.lock")).unwrap();
    env.dotpack()
        .arg("lock")
        .assert()
        .success()
        .stderr(contains(skipped));
}

#[test]
fn a_token_in_a_credential_shaped_header_never_reaches_a_committed_file() {
    // As many remotes publish it: the token is a variable without `isSecret`.
    let doc = json!({
        "$schema": SCHEMA,
        "name": "com.example/crm",
        "description": "CRM over HTTP",
        "version": "1.2.0",
        "remotes": [{
            "type": "streamable-http",
            "url": "https://mcp.crm.example.com/mcp",
            "headers": [{
                "name": "Authorization",
                "value": "Bearer {token}",
                "variables": {"token": {"description": "API token", "isRequired": true}}
            }]
        }]
    });
    let (env, _server) = project_with(vec![doc], &["codex"]);
    env.dotpack()
        .args([
            "add",
            "com.example/crm",
            "--set",
            "token=pmt_8fK2mQ7pL4vB9xR3wZ6",
        ])
        .assert()
        .failure()
        .stderr(contains("package `com.example/crm` has no input `token`"))
        .stderr(contains(
            "`token` is read from the environment variable TOKEN, so it never lands in a file",
        ));
    assert!(!env.read("dotpack.toml").contains("pmt_"));
    env.dotpack()
        .args(["add", "com.example/crm"])
        .assert()
        .success();
    assert_eq!(
        claude(&env)["mcpServers"]["crm"]["headers"]["Authorization"],
        "Bearer ${TOKEN}"
    );
    let codex = env.read(".codex/config.toml");
    assert!(
        codex.contains("bearer_token_env_var = \"TOKEN\""),
        "{codex}"
    );
}

#[test]
fn servers_start_as_their_publishers_meant_runtime_hint_runtime_arguments_and_switches() {
    let npm = json!({
        "$schema": SCHEMA,
        "name": "io.github.web-infra-dev/rsdoctor",
        "description": "Build analysis",
        "version": "0.4.4",
        "packages": [{
            "registryType": "npm",
            "identifier": "@rsdoctor/mcp-server",
            "version": "0.4.4",
            "runtimeHint": "node",
            "transport": {"type": "stdio"},
            "packageArguments": [
                {"type": "named", "name": "--stdio"},
                {"type": "named", "name": "--port", "description": "Port of the analysis server", "format": "number"}
            ]
        }]
    });
    let oci = json!({
        "$schema": SCHEMA,
        "name": "io.github.acme/box",
        "description": "Tools in a container",
        "version": "1.0.0",
        "packages": [{
            "registryType": "oci",
            "identifier": "ghcr.io/acme/box",
            "version": "1.0.0",
            "runtimeHint": "docker",
            "transport": {"type": "stdio"},
            "runtimeArguments": [{"type": "named", "name": "--network", "value": "host"}]
        }]
    });
    let (env, _server) = project_with(vec![npm, oci], &[]);
    env.dotpack()
        .args([
            "add",
            "io.github.web-infra-dev/rsdoctor",
            "io.github.acme/box",
        ])
        .assert()
        .success();
    let servers = &claude(&env)["mcpServers"];
    assert_eq!(servers["rsdoctor"]["command"], "npx");
    assert_eq!(
        servers["rsdoctor"]["args"],
        json!(["-y", "@rsdoctor/mcp-server@0.4.4", "--stdio"])
    );
    assert_eq!(servers["box"]["command"], "docker");
    assert_eq!(
        servers["box"]["args"],
        json!([
            "run",
            "-i",
            "--rm",
            "--network",
            "host",
            "ghcr.io/acme/box:1.0.0"
        ])
    );
    // The optional value is passed, with its flag, once it is set.
    env.dotpack()
        .args([
            "add",
            "io.github.web-infra-dev/rsdoctor",
            "--set",
            "port=4000",
        ])
        .assert()
        .success();
    assert_eq!(
        claude(&env)["mcpServers"]["rsdoctor"]["args"],
        json!([
            "-y",
            "@rsdoctor/mcp-server@0.4.4",
            "--stdio",
            "--port",
            "4000"
        ])
    );
}

/// A remote-only server at version `version`, as publishers write it.
fn remote_at(name: &str, version: &str) -> Value {
    json!({
        "$schema": SCHEMA, "name": name, "description": "d", "version": version,
        "remotes": [{"type": "streamable-http", "url": "https://mcp.example.com/mcp"}]
    })
}

#[test]
fn versions_written_v_prefixed_or_short_install_and_reinstall_from_the_lock() {
    let (env, server) = project_with(
        vec![
            remote_at("io.github.acme/vee", "v7.5.0"),
            remote_at("io.github.acme/short", "2.1"),
            // `1.1` beside `1.1.0` reads as the same version: only the exact one is taken.
            remote_at("io.github.acme/twice", "1.1"),
            remote_at("io.github.acme/twice", "1.1.0"),
        ],
        &[],
    );
    for name in [
        "io.github.acme/vee",
        "io.github.acme/short",
        "io.github.acme/twice",
    ] {
        env.dotpack().args(["add", name]).assert().success();
    }
    let lock = env.read("dotpack.lock");
    for version in ["7.5.0", "2.1.0", "1.1.0"] {
        assert!(lock.contains(&format!("version = \"{version}\"")), "{lock}");
    }
    env.dotpack()
        .args(["info", "io.github.acme/twice"])
        .assert()
        .success()
        .stdout(contains(
            "cannot be installed: 1.1 (version `1.1` reads as 1.1.0, which the registry lists as well)",
        ));
    // A teammate's fresh cache asks for each document by the publisher's text.
    let teammate = Env::new();
    teammate.write("dotpack.toml", &env.read("dotpack.toml"));
    teammate.write("dotpack.lock", &lock);
    server.clear_requests();
    teammate
        .dotpack()
        .args(["install", "--locked"])
        .assert()
        .success();
    assert_eq!(claude(&teammate), claude(&env));
    let requests = server.requests();
    for asked in ["vee/versions/v7.5.0", "short/versions/2.1"] {
        assert!(requests.iter().any(|r| r.ends_with(asked)), "{requests:#?}");
    }
}

#[test]
fn a_package_with_only_pre_releases_is_added_at_the_newest() {
    let (env, _server) = project_with(
        vec![
            remote_at("io.github.acme/early", "0.0.1-beta.9"),
            remote_at("io.github.acme/early", "0.0.1-beta.10"),
        ],
        &[],
    );
    env.dotpack()
        .args(["add", "io.github.acme/early"])
        .assert()
        .success();
    assert!(
        env.read("dotpack.toml").contains("\"^0.0.1-beta.10\""),
        "{}",
        env.read("dotpack.toml")
    );
    assert!(
        env.read("dotpack.lock")
            .contains("version = \"0.0.1-beta.10\"")
    );
}

#[test]
fn a_server_that_starts_an_unpinned_package_is_warned_about_when_locked() {
    let floating = json!({
        "$schema": SCHEMA, "name": "io.github.acme/floating", "description": "d", "version": "1.0.0",
        "packages": [{"registryType": "npm", "identifier": "@acme/floating", "version": "latest",
                      "transport": {"type": "stdio"}}]
    });
    let (env, _server) = project_with(vec![floating], &[]);
    env.dotpack()
        .args(["add", "io.github.acme/floating"])
        .assert()
        .success()
        .stderr(contains(
            "`io.github.acme/floating` 1.0.0: it starts `@acme/floating@latest`, which is not pinned",
        ));
    // Once locked, an unchanged lock does not say it again.
    env.dotpack()
        .args(["install"])
        .assert()
        .success()
        .stderr(contains("not pinned").not());
}

#[test]
fn an_optional_variable_or_header_without_a_value_is_written_once_it_is_set() {
    let doc = json!({
        "$schema": SCHEMA, "name": "io.github.acme/optional", "description": "d", "version": "1.0.0",
        "packages": [{"registryType": "pypi", "identifier": "acme-optional", "version": "1.0.0",
                      "transport": {"type": "stdio"},
                      "environmentVariables": [
                          {"name": "CB_CONNECTION_STRING", "description": "Connection string"}
                      ]}]
    });
    let (env, _server) = project_with(vec![doc], &["codex"]);
    env.dotpack()
        .args(["add", "io.github.acme/optional"])
        .assert()
        .success();
    let server = &claude(&env)["mcpServers"]["optional"];
    assert!(server.get("env").is_none(), "{server}");
    assert!(
        !env.read(".codex/config.toml")
            .contains("CB_CONNECTION_STRING")
    );
    env.dotpack()
        .args([
            "add",
            "io.github.acme/optional",
            "--set",
            "cb_connection_string=couchbase://db.example",
        ])
        .assert()
        .success();
    assert_eq!(
        claude(&env)["mcpServers"]["optional"]["env"]["CB_CONNECTION_STRING"],
        "couchbase://db.example"
    );
    assert!(
        env.read(".codex/config.toml")
            .contains("CB_CONNECTION_STRING = \"couchbase://db.example\"")
    );
}
