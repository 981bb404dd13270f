use serde_json::json;

use super::*;

const SCHEMA: &str = "https://static.modelcontextprotocol.io/schemas/2025-09-29/server.schema.json";

fn manifest(doc: Value) -> String {
    map_server(&doc).unwrap().manifest
}

#[test]
fn npm_package_with_secret_env_and_a_named_argument() {
    let m = map_server(&json!({
        "$schema": SCHEMA,
        "name": "io.github.acme/Weather",
        "description": "Weather for agents",
        "version": "1.2.0",
        "packages": [{
            "registryType": "npm",
            "identifier": "@acme/weather-mcp",
            "version": "1.2.0",
            "transport": {"type": "stdio"},
            "packageArguments": [
                {"type": "named", "name": "--units", "default": "metric", "choices": ["metric", "imperial"]},
                {"type": "named", "name": "--verbose", "format": "boolean", "value": "true"}
            ],
            "environmentVariables": [
                {"name": "WEATHER_API_KEY", "isSecret": true, "isRequired": true},
                {"name": "LOG_LEVEL", "default": "info"}
            ]
        }]
    }))
    .unwrap();
    // The registry's spelling is kept; the package is named in dotpack's lowercase.
    assert_eq!(m.name, "io.github.acme/Weather");
    assert_eq!(m.server, "weather");
    assert_eq!(
        m.manifest,
        r#"[package]
name = "io.github.acme/weather"
version = "1.2.0"
description = "Weather for agents"

[inputs.log_level]
default = "info"

[inputs.units]
default = "metric"
enum = ["metric", "imperial"]

[servers.weather]
command = "npx"
args = ["-y", "@acme/weather-mcp@1.2.0", "--units", "{{props.units}}", "--verbose"]
env = { LOG_LEVEL = "{{props.log_level}}", WEATHER_API_KEY = "{{env.WEATHER_API_KEY}}" }
"#
    );
}

#[test]
fn pypi_oci_and_runtime_arguments() {
    let pypi = manifest(json!({
        "name": "io.github.x/py", "version": "0.1.0", "description": "d",
        "packages": [{"registryType": "pypi", "identifier": "py-mcp", "version": "0.1.0"}]
    }));
    assert!(pypi.contains(r#"command = "uvx""#), "{pypi}");
    assert!(pypi.contains(r#"args = ["py-mcp==0.1.0"]"#), "{pypi}");
    let oci = manifest(json!({
        "name": "io.github.x/box", "version": "2.0.0", "description": "d",
        "packages": [{
            "registryType": "oci", "identifier": "ghcr.io/x/box", "version": "2.0.0",
            "runtimeHint": "docker",
            "runtimeArguments": [{"type": "positional", "value": "run"}, {"type": "positional", "value": "-i"}, {"type": "positional", "value": "--rm"}, {"type": "named", "name": "--network", "value": "host"}],
            "environmentVariables": [{"name": "BOX_TOKEN", "isSecret": true}],
            "packageArguments": [{"type": "positional", "valueHint": "dirs", "isRepeated": true, "isRequired": true}]
        }]
    }));
    assert!(
        oci.contains(r#"args = ["run", "-i", "--rm", "--network", "host", "-e", "BOX_TOKEN", "ghcr.io/x/box:2.0.0", "{{props.dirs}}"]"#),
        "{oci}"
    );
    assert!(
        oci.contains("[inputs.dirs]\nrequired = true\ntype = \"array\""),
        "{oci}"
    );
}

#[test]
fn remotes_with_url_variables_and_secret_headers() {
    let m = manifest(json!({
        "name": "com.example/remote", "version": "1.0.0", "description": "d",
        "remotes": [{
            "type": "sse",
            "url": "https://{tenant}.example.com/sse",
            "variables": {"tenant": {"description": "Your tenant", "isRequired": true}},
            "headers": [
                {"name": "Authorization", "value": "Bearer {token}", "variables": {"token": {"isSecret": true}}},
                {"name": "X-Api-Key", "isSecret": true}
            ]
        }]
    }));
    assert!(
        m.contains(r#"url = "https://{{props.tenant}}.example.com/sse""#),
        "{m}"
    );
    assert!(m.contains(r#"type = "sse""#), "{m}");
    assert!(
        m.contains(r#"Authorization = "Bearer {{env.TOKEN}}""#),
        "{m}"
    );
    // Not `isRequired`: empty when unset.
    assert!(m.contains(r#"X-Api-Key = "{{env.X_API_KEY|''}}""#), "{m}");
    assert!(
        m.contains("[inputs.tenant]\ndescription = \"Your tenant\""),
        "{m}"
    );
}

#[test]
fn what_cannot_be_mapped_says_why() {
    let snake = map_server(&json!({
        "name": "io.github.x/old", "version_detail": {"version": "1.0.0"},
        "packages": [{"registry_name": "npm", "name": "old"}]
    }))
    .unwrap_err();
    assert!(snake.reason.contains("snake_case"), "{snake}");
    let mcpb = map_server(&json!({
        "name": "io.github.x/b", "version": "1.0.0", "description": "d",
        "packages": [{"registryType": "mcpb", "identifier": "https://x/b.mcpb"}]
    }))
    .unwrap_err();
    assert!(mcpb.reason.contains("`mcpb` packages"), "{mcpb}");
    let empty = map_server(&json!({"name": "io.github.x/e", "version": "1.0.0"})).unwrap_err();
    assert!(empty.reason.contains("neither"), "{empty}");
    let secret_arg = map_server(&json!({
        "name": "io.github.x/s", "version": "1.0.0",
        "packages": [{"registryType": "npm", "identifier": "s", "packageArguments": [{"type": "named", "name": "--token", "isSecret": true, "isRequired": true}]}]
    }))
    .unwrap_err();
    assert!(secret_arg.reason.contains("command line"), "{secret_arg}");
}

#[test]
fn a_package_that_cannot_run_falls_back_to_a_remote() {
    let m = map_server(&json!({
        "name": "io.github.x/both", "version": "1.0.0", "description": "d",
        "packages": [{"registryType": "mcpb", "identifier": "https://x.dev/x.mcpb"}],
        "remotes": [{"type": "streamable-http", "url": "https://x.dev/mcp"}]
    }))
    .unwrap();
    assert!(
        m.manifest.contains(r#"url = "https://x.dev/mcp""#),
        "{}",
        m.manifest
    );
}

#[test]
fn mapping_is_deterministic_and_literal_braces_are_escaped() {
    let doc = json!({
        "name": "io.github.x/lit", "version": "1.0.0", "description": "d",
        "packages": [{"registryType": "npm", "identifier": "lit", "packageArguments": [{"type": "positional", "value": "a@b"}]}]
    });
    assert_eq!(manifest(doc.clone()), manifest(doc.clone()));
    assert!(manifest(doc).contains(r#""a{{'@'}}b""#));
}

/// The manifest the document maps to, parsed and validated as any package's.
fn valid(doc: Value) -> crate::model::manifest::Manifest {
    let text = manifest(doc);
    crate::model::manifest::parse(std::path::Path::new("server.json"), text.clone())
        .unwrap_or_else(|e| panic!("{e}\n{text}"))
        .manifest
}

#[test]
fn string_defaults_and_choices_become_values_of_the_inputs_type() {
    // As the schema says and publishers write: `default` and `choices` are strings.
    let m = valid(json!({
        "$schema": SCHEMA, "name": "io.github.x/typed", "version": "1.0.0", "description": "d",
        "packages": [{
            "registryType": "npm", "identifier": "typed-mcp", "version": "1.0.0",
            "transport": {"type": "stdio"},
            "packageArguments": [
                {"type": "named", "name": "--read-only", "format": "boolean", "default": "false"},
                {"type": "named", "name": "--timeout", "format": "number", "default": "60", "choices": ["30", "60", "120"]},
                {"type": "named", "name": "--ratio", "format": "number", "default": "0.5"},
                {"type": "named", "name": "--level", "format": "number", "default": "high"}
            ],
            "environmentVariables": [
                {"name": "DEBUG", "format": "boolean", "default": "true", "choices": []}
            ]
        }]
    }));
    let input = |name: &str| m.inputs.get(name).unwrap_or_else(|| panic!("{name}"));
    assert_eq!(input("read_only").kind.as_deref(), Some("bool"));
    assert_eq!(
        input("read_only").default,
        Some(toml::Value::Boolean(false))
    );
    assert_eq!(input("timeout").kind.as_deref(), Some("number"));
    assert_eq!(input("timeout").default, Some(toml::Value::Integer(60)));
    assert_eq!(
        input("timeout").allowed,
        Some(
            vec![30, 60, 120]
                .into_iter()
                .map(toml::Value::Integer)
                .collect()
        )
    );
    assert_eq!(input("ratio").default, Some(toml::Value::Float(0.5)));
    assert_eq!(input("debug").default, Some(toml::Value::Boolean(true)));
    // An empty `choices` allows anything, not nothing.
    assert_eq!(input("debug").allowed, None);
    // A text that is no number keeps the input a text, passed on as written.
    assert_eq!(input("level").kind, None);
    assert_eq!(
        input("level").default,
        Some(toml::Value::String("high".into()))
    );
}

#[test]
fn is_required_is_kept_on_inputs() {
    let m = valid(json!({
        "$schema": SCHEMA, "name": "io.github.x/req", "version": "1.0.0", "description": "d",
        "packages": [{
            "registryType": "npm", "identifier": "req-mcp", "version": "1.0.0",
            "transport": {"type": "stdio"},
            "packageArguments": [
                {"type": "named", "name": "--workspace", "description": "Workspace", "isRequired": true},
                {"type": "named", "name": "--region", "isRequired": true, "default": "eu"}
            ],
            "environmentVariables": [{"name": "TEAM_ID", "isRequired": true}]
        }]
    }));
    assert!(m.inputs["workspace"].required);
    assert_eq!(m.inputs["workspace"].default, None);
    assert!(m.inputs["region"].required);
    assert!(m.inputs["team_id"].required);
}

#[test]
fn a_default_outside_the_choices_is_allowed_and_an_undeclared_variable_must_be_given() {
    // Both as real documents have them: a toolset list whose default `all` stands for every
    // choice, and an argument value naming a variable its `variables` do not declare.
    let m = valid(json!({
        "$schema": SCHEMA, "name": "io.github.x/loose", "version": "1.0.0", "description": "d",
        "packages": [{
            "registryType": "npm", "identifier": "loose-mcp", "version": "1.0.0",
            "transport": {"type": "stdio"},
            "packageArguments": [
                {"type": "named", "name": "-e", "isRequired": true, "value": "CLIENT_ID={client-id}",
                 "variables": {"token": {"isRequired": true}}}
            ],
            "environmentVariables": [
                {"name": "TOOLSETS", "default": "all", "choices": ["files", "rooms"]}
            ]
        }]
    }));
    let allowed: Vec<toml::Value> = ["files", "rooms", "all"]
        .into_iter()
        .map(|c| toml::Value::String(c.into()))
        .collect();
    assert_eq!(m.inputs["toolsets"].allowed, Some(allowed));
    assert!(m.inputs["client_id"].required);
}

#[test]
fn an_optional_secret_is_empty_when_unset_and_a_required_one_is_a_plain_reference() {
    let m = valid(json!({
        "$schema": SCHEMA, "name": "io.github.x/sec", "version": "1.0.0", "description": "d",
        "packages": [{
            "registryType": "npm", "identifier": "sec-mcp", "version": "1.0.0",
            "transport": {"type": "stdio"},
            "environmentVariables": [
                {"name": "GITHUB_TOKEN", "isSecret": true},
                {"name": "API_KEY", "isSecret": true, "isRequired": true}
            ]
        }],
    }));
    let env = &m.servers["sec"].env;
    assert_eq!(env["GITHUB_TOKEN"], "{{env.GITHUB_TOKEN|''}}");
    assert_eq!(env["API_KEY"], "{{env.API_KEY}}");
}

#[test]
fn a_credential_shaped_header_is_a_secret_whatever_is_secret_says() {
    let m = valid(json!({
        "$schema": SCHEMA, "name": "io.github.x/remote", "version": "1.0.0", "description": "d",
        "remotes": [{
            "type": "streamable-http",
            "url": "https://mcp.x.dev/mcp",
            "headers": [
                {"name": "Authorization", "value": "Bearer {token}", "variables": {"token": {"isRequired": true}}},
                {"name": "X-API-Key", "isRequired": true},
                {"name": "X-Session-Token"},
                {"name": "X-Region", "default": "eu"}
            ]
        }]
    }));
    let headers = m.servers["remote"].extensions["http_headers"]
        .as_table()
        .unwrap();
    assert_eq!(
        headers["Authorization"].as_str(),
        Some("Bearer {{env.TOKEN}}")
    );
    assert_eq!(headers["X-API-Key"].as_str(), Some("{{env.X_API_KEY}}"));
    assert_eq!(
        headers["X-Session-Token"].as_str(),
        Some("{{env.X_SESSION_TOKEN|''}}")
    );
    assert_eq!(headers["X-Region"].as_str(), Some("{{props.x_region}}"));
    // No input a `--set` could write a credential into.
    assert_eq!(m.inputs.keys().collect::<Vec<_>>(), ["x_region"]);
    for (name, yes) in [
        ("authorization", true),
        ("Proxy-Authorization", true),
        ("X-Api-Key", true),
        ("apikey", true),
        ("X-Auth-Token", true),
        ("X-Region", false),
        ("Accept", false),
        ("X-Keyboard", false),
    ] {
        assert_eq!(is_credential_header(name), yes, "{name}");
    }
}

/// The `args` of the one server the document maps to.
fn args_of(doc: Value) -> (String, Vec<String>) {
    let m = valid(doc);
    let server = m.servers.values().next().unwrap().clone();
    (server.command.unwrap(), server.args.unwrap_or_default())
}

fn npm(name: &str, package: Value) -> Value {
    let mut p = json!({"registryType": "npm", "identifier": name, "version": "1.0.0", "transport": {"type": "stdio"}});
    for (k, v) in package.as_object().unwrap() {
        p[k] = v.clone();
    }
    json!({"$schema": SCHEMA, "name": format!("io.github.x/{name}"), "version": "1.0.0", "description": "d", "packages": [p]})
}

#[test]
fn the_command_follows_the_registry_type_and_runtime_hint_is_not_read() {
    // `node -y @rsdoctor/mcp-server@…` failed "bad option: -y"; VS Code ignores the hint.
    for hint in ["node", "bun", "npx"] {
        let (command, args) = args_of(npm("rsdoctor", json!({"runtimeHint": hint})));
        assert_eq!(command, "npx", "{hint}");
        assert_eq!(args, ["-y", "rsdoctor@1.0.0"], "{hint}");
    }
    // npx's own arguments follow `-y`, which is not written twice.
    let (_, args) = args_of(npm(
        "tool",
        json!({"runtimeHint": "npx", "runtimeArguments": [
            {"type": "positional", "value": "-y"},
            {"type": "named", "name": "--node-options", "value": "--max-old-space-size=4096"}
        ]}),
    ));
    assert_eq!(
        args,
        [
            "-y",
            "--node-options",
            "--max-old-space-size=4096",
            "tool@1.0.0"
        ]
    );
}

#[test]
fn oci_runtime_arguments_follow_run_i_rm() {
    let doc = |runtime: Value| {
        json!({"$schema": SCHEMA, "name": "io.github.x/box", "version": "2.0.0", "description": "d",
            "packages": [{"registryType": "oci", "identifier": "ghcr.io/x/box", "version": "2.0.0",
                "runtimeHint": "docker", "transport": {"type": "stdio"}, "runtimeArguments": runtime,
                "environmentVariables": [{"name": "BOX_HOST", "default": "localhost"}]}]})
    };
    let (command, args) = args_of(doc(json!([
        {"type": "named", "name": "--network", "value": "host"},
        {"type": "named", "name": "-v", "value": "{dir}:/data", "variables": {"dir": {"isRequired": true}}}
    ])));
    assert_eq!(command, "docker");
    assert_eq!(
        args,
        [
            "run",
            "-i",
            "--rm",
            "--network",
            "host",
            "-v",
            "{{props.dir}}:/data",
            "-e",
            "BOX_HOST",
            "ghcr.io/x/box:2.0.0"
        ]
    );
    // A publisher who wrote `run -i --rm` out gets it once.
    let (_, args) = args_of(doc(json!([
        {"type": "positional", "value": "run"},
        {"type": "positional", "value": "-i"},
        {"type": "positional", "value": "--rm"},
        {"type": "named", "name": "--network", "value": "host"}
    ])));
    assert_eq!(
        args,
        [
            "run",
            "-i",
            "--rm",
            "--network",
            "host",
            "-e",
            "BOX_HOST",
            "ghcr.io/x/box:2.0.0"
        ]
    );
}

#[test]
fn a_flag_saying_nothing_of_a_value_is_passed_once_set_alone_for_true() {
    // As published: `--account` takes a value, `--headless` is a switch, and neither says so.
    // Passing them bare would start Snowflake's server as `--account --host ...`. A flag that
    // says nothing at all (`--stdio`) is part of the command.
    let m = valid(npm(
        "flags",
        json!({"packageArguments": [
            {"type": "named", "name": "--stdio"},
            {"type": "named", "name": "--headless", "description": "Run without windows"},
            {"type": "named", "name": "--port", "description": "Port", "format": "number"},
            {"type": "named", "name": "-i", "format": "boolean", "value": "true"},
            {"type": "named", "name": "--debug", "format": "boolean", "value": "false"},
            {"type": "positional", "valueHint": "root_dir", "description": "Where to start"}
        ]}),
    ));
    let server = &m.servers["flags"];
    assert_eq!(
        server.args.as_deref().unwrap(),
        [
            "-y",
            "flags@1.0.0",
            "--stdio",
            "@if(props.headless)--headless@endif",
            "@if(props.headless)@if(props.headless != 'true'){{props.headless}}@endif@endif",
            "@if(props.port)--port@endif",
            "@if(props.port){{props.port}}@endif",
            "-i",
            "@if(props.root_dir){{props.root_dir}}@endif"
        ]
    );
    assert!(!m.inputs["headless"].required);
    assert_eq!(
        m.inputs["headless"].description.as_deref(),
        Some("Run without windows")
    );
}

#[test]
fn runtime_arguments_that_repeat_the_fixed_ones_or_the_package_are_written_once() {
    let (_, args) = args_of(npm(
        "u-he",
        json!({"runtimeArguments": [
            {"type": "positional", "value": "--yes"},
            {"type": "positional", "value": "u-he@1.0.0"},
            {"type": "positional", "value": "u-he-mcp-server"}
        ]}),
    ));
    assert_eq!(args, ["-y", "u-he@1.0.0", "u-he-mcp-server"]);
}

#[test]
fn a_package_served_over_http_points_at_remotes_only_when_there_are_some() {
    let package = json!({
        "registryType": "npm", "identifier": "@acme/web", "version": "1.0.0",
        "transport": {"type": "streamable-http", "url": "http://localhost:3000/mcp"}
    });
    let without = map_server(&json!({
        "$schema": SCHEMA, "name": "io.github.acme/web", "version": "1.0.0",
        "packages": [package]
    }))
    .err()
    .map(|e| e.reason)
    .unwrap_or_default();
    assert!(without.contains("from a local process"), "{without}");
    assert!(!without.contains("use its `remotes` entry"), "{without}");
    assert!(without.contains("lists no `remotes`"), "{without}");
    // With a remote it can reach, that remote is what gets installed.
    let with = manifest(json!({
        "$schema": SCHEMA, "name": "io.github.acme/web", "version": "1.0.0",
        "packages": [package],
        "remotes": [{"type": "streamable-http", "url": "https://web.acme.example/mcp"}]
    }));
    assert!(with.contains("https://web.acme.example/mcp"), "{with}");
}

#[test]
fn a_nuget_package_runs_with_dnx_as_the_reference_client_starts_it() {
    let nuget = |package: Value| {
        args_of(json!({
            "$schema": SCHEMA, "name": "io.github.x/tool", "version": "1.0.8", "description": "d",
            "packages": [package]
        }))
    };
    let (command, args) = nuget(json!({
        "registryType": "nuget", "identifier": "TimeMcpServer", "version": "1.0.8",
        "runtimeHint": "dnx", "transport": {"type": "stdio"},
        "registryBaseUrl": "https://api.nuget.org/v3/index.json"
    }));
    assert_eq!(command, "dnx");
    assert_eq!(args, ["TimeMcpServer@1.0.8", "--yes"]);
    let (_, args) = nuget(json!({
        "registryType": "nuget", "identifier": "Acme.Tool", "version": "2.0.0",
        "registryBaseUrl": "https://pkgs.acme.dev/nuget/v3/index.json",
        "packageArguments": [{"type": "positional", "value": "serve"}]
    }));
    assert_eq!(
        args,
        [
            "Acme.Tool@2.0.0",
            "--yes",
            "--source",
            "https://pkgs.acme.dev/nuget/v3/index.json",
            "--",
            "serve"
        ]
    );
}

#[test]
fn an_optional_variable_without_a_value_is_written_once_it_is_set() {
    let m = valid(json!({
        "$schema": SCHEMA, "name": "io.github.x/opt", "version": "1.0.0", "description": "d",
        "packages": [{
            "registryType": "npm", "identifier": "opt-mcp", "version": "1.0.0",
            "environmentVariables": [
                {"name": "WEATHER_CHOICES", "value": "{weather_choices}",
                 "variables": {"weather_choices": {"description": "Comma separated list"}}},
                {"name": "REGION", "value": "{region}", "isRequired": true,
                 "variables": {"region": {"description": "Region"}}}
            ]
        }]
    }));
    let env = &m.servers["opt"].env;
    assert_eq!(
        env["WEATHER_CHOICES"],
        "@if(props.weather_choices){{props.weather_choices}}@endif"
    );
    assert_eq!(env["REGION"], "{{props.region}}");
    assert!(!m.inputs["weather_choices"].required);
    assert_eq!(
        m.inputs["weather_choices"].description.as_deref(),
        Some("Comma separated list")
    );
}

#[test]
fn credentials_named_as_such_come_from_the_environment_whatever_is_secret_says() {
    let m = valid(json!({
        "$schema": SCHEMA, "name": "io.github.x/creds", "version": "1.0.0", "description": "d",
        "packages": [{
            "registryType": "pypi", "identifier": "creds-mcp", "version": "1.0.0",
            "transport": {"type": "stdio"},
            "packageArguments": [
                {"type": "named", "name": "--password", "isSecret": true, "description": "Password"},
                {"type": "named", "name": "-e", "isRequired": true,
                 "value": "CLIENT_SECRET={client-secret}"}
            ],
            "environmentVariables": [
                {"name": "PAGERDUTY_USER_API_KEY", "description": "API token"},
                {"name": "MCP_AUTH_MODE", "default": "none"}
            ]
        }]
    }));
    let server = &m.servers["creds"];
    // The optional secret flag is left out; the server reads the variable instead.
    assert_eq!(
        server.args.as_deref().unwrap(),
        [
            "creds-mcp==1.0.0",
            "-e",
            "CLIENT_SECRET={{env.CLIENT_SECRET}}"
        ]
    );
    assert_eq!(
        server.env["PAGERDUTY_USER_API_KEY"],
        "{{env.PAGERDUTY_USER_API_KEY|''}}"
    );
    assert_eq!(server.env["MCP_AUTH_MODE"], "{{props.mcp_auth_mode}}");
    // No input a `--set` could write a credential into.
    assert_eq!(m.inputs.keys().collect::<Vec<_>>(), ["mcp_auth_mode"]);
}

#[test]
fn a_docker_command_line_written_out_in_runtime_arguments_runs_the_pinned_image_once() {
    // As a publisher wrote it: each flag and its value as two items, the image without its tag.
    let (command, args) = args_of(json!({
        "$schema": SCHEMA, "name": "io.github.x/scope", "version": "0.1.0", "description": "d",
        "packages": [{
            "registryType": "oci", "identifier": "ghcr.io/x/scope:0.1.0",
            "transport": {"type": "stdio"},
            "runtimeArguments": [
                {"type": "positional", "value": "run"},
                {"type": "named", "name": "-i", "description": "Interactive"},
                {"type": "named", "name": "--rm", "description": "Remove"},
                {"type": "named", "name": "-v", "description": "Bind mount"},
                {"type": "positional", "value": "/tmp/data:/data"},
                {"type": "named", "name": "-e", "description": "Set a variable"},
                {"type": "positional", "value": "SCOPE_RESOURCE"},
                {"type": "positional", "value": "ghcr.io/x/scope"}
            ],
            "environmentVariables": [
                {"name": "SCOPE_RESOURCE", "isRequired": true},
                {"name": "SCOPE_TIMEOUT", "default": "30"}
            ]
        }]
    }));
    assert_eq!(command, "docker");
    assert_eq!(
        args,
        [
            "run",
            "-i",
            "--rm",
            "-v",
            "/tmp/data:/data",
            "-e",
            "SCOPE_RESOURCE",
            "-e",
            "SCOPE_TIMEOUT",
            "ghcr.io/x/scope:0.1.0"
        ]
    );
    assert_eq!(
        image_name("localhost:5000/x/y:1.0@sha256:ab"),
        "localhost:5000/x/y"
    );
    assert_eq!(image_name("localhost:5000/x/y"), "localhost:5000/x/y");
}

#[test]
fn a_package_that_is_not_pinned_is_named_and_an_argument_type_the_schema_lacks_is_refused() {
    let floating_of = |package: Value| {
        map_server(&json!({
            "$schema": SCHEMA, "name": "io.github.x/f", "version": "1.0.0", "description": "d",
            "packages": [package]
        }))
        .unwrap()
        .floating
    };
    let npm = |version: Option<&str>| {
        let mut p =
            json!({"registryType": "npm", "identifier": "@x/f", "transport": {"type": "stdio"}});
        if let Some(v) = version {
            p["version"] = json!(v);
        }
        p
    };
    assert_eq!(floating_of(npm(Some("1.2.3"))), None);
    assert_eq!(
        floating_of(npm(Some("latest"))).as_deref(),
        Some("@x/f@latest")
    );
    assert_eq!(floating_of(npm(None)).as_deref(), Some("@x/f@latest"));
    let oci = |identifier: &str| json!({"registryType": "oci", "identifier": identifier});
    assert_eq!(floating_of(oci("ghcr.io/x/f:1.0.0")), None);
    assert_eq!(floating_of(oci("ghcr.io/x/f@sha256:abc")), None);
    assert_eq!(
        floating_of(oci("docker.io/mcp/sonarqube:latest")).as_deref(),
        Some("docker.io/mcp/sonarqube:latest")
    );
    assert_eq!(
        floating_of(oci("ghcr.io/x/f")).as_deref(),
        Some("ghcr.io/x/f")
    );
    let mut runs_other = npm(Some("1.0.0"));
    runs_other["packageArguments"] = json!([{"type": "positional", "value": "helper@latest"}]);
    assert_eq!(floating_of(runs_other).as_deref(), Some("helper@latest"));

    let mut typo = npm(Some("1.0.0"));
    typo["runtimeArguments"] = json!([{"type": "", "value": "-m"}]);
    let err = map_server(&json!({
        "$schema": SCHEMA, "name": "io.github.x/f", "version": "1.0.0", "description": "d",
        "packages": [typo]
    }))
    .unwrap_err();
    assert!(
        err.reason.contains("neither `named` nor `positional`"),
        "{err}"
    );
}

#[test]
fn a_repeated_flag_split_from_its_value_and_an_image_named_without_docker_io_are_written_once() {
    let (_, args) = args_of(json!({
        "$schema": SCHEMA, "name": "io.github.x/tf", "version": "0.3.3", "description": "d",
        "packages": [{
            "registryType": "oci", "identifier": "docker.io/hashicorp/tf:0.3.3",
            "runtimeArguments": [
                {"type": "positional", "value": "run"},
                {"type": "named", "name": "--rm"},
                {"type": "named", "name": "-e", "isRepeated": true, "description": "Set a variable"},
                {"type": "positional", "value": "TFE_TOKEN", "valueHint": "env_var_name"},
                {"type": "positional", "value": "hashicorp/tf:0.3.3", "valueHint": "image_name"}
            ],
            "environmentVariables": [{"name": "TFE_TOKEN", "isSecret": true}]
        }]
    }));
    assert_eq!(
        args,
        [
            "run",
            "-i",
            "--rm",
            "-e",
            "TFE_TOKEN",
            "docker.io/hashicorp/tf:0.3.3"
        ]
    );
}

#[test]
fn a_streamable_http_remote_is_taken_before_an_sse_one() {
    let m = map_server(&json!({
        "$schema": SCHEMA, "name": "io.github.x/both", "version": "1.0.0", "description": "d",
        "remotes": [
            {"type": "sse", "url": "https://x.dev/sse"},
            {"type": "streamable-http", "url": "https://x.dev/mcp"}
        ]
    }))
    .unwrap();
    assert!(
        m.manifest.contains(r#"url = "https://x.dev/mcp""#),
        "{}",
        m.manifest
    );
    assert!(!m.manifest.contains("sse"), "{}", m.manifest);
}
