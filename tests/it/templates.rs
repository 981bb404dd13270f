//! Typed inputs end to end: `add --set` with JSON and `+=`, the typed `set` recorded in
//! dotpack.toml, a list input spread into separate arguments and a number input written as a
//! number, in several hosts; rule violations refused with the input named.

use std::path::PathBuf;

use predicates::str::contains;

use crate::support::{Env, build_registry};

const FS: &str = r#"[package]
name = "fs"
version = "1.0.0"
description = "Files"

[inputs.dirs]
description = "Directories the server may read"
type = "array"
items = "string"
default = ["~"]
min = 1

[inputs.timeout]
description = "Per-call budget in milliseconds"
type = "number"
default = 30000
min = 1000

[inputs.level]
description = "Log level"
enum = ["debug", "info"]
default = "info"

[servers.fs]
command = "npx"
args = ["-y", "@modelcontextprotocol/server-filesystem", "{{props.dirs}}", "--level={{props.level}}"]
timeout = "{{props.timeout}}"
"#;

fn setup(env: &Env) -> PathBuf {
    env.write(
        "dotpack.toml",
        "[project]\nhosts = [\"claude-code\", \"codex\", \"gemini-cli\"]\n\n[dependencies]\n",
    );
    build_registry(env, &[("fs", FS)])
}

fn json(env: &Env, file: &str) -> serde_json::Value {
    serde_json::from_str(&env.read(file)).expect("host file is JSON")
}

#[test]
fn json_list_spreads_into_args_and_numbers_stay_numbers_in_every_host() {
    let env = Env::new();
    let reg = setup(&env);
    env.with_registry(
        &reg,
        &[
            "add",
            "fs",
            "--set",
            r#"dirs=["~/src","~/docs"]"#,
            "--set",
            "timeout=45000",
        ],
    )
    .assert()
    .success();
    let manifest = env.read("dotpack.toml");
    assert!(
        manifest.contains(r#"set = { dirs = ["~/src", "~/docs"], timeout = 45000 }"#),
        "{manifest}"
    );
    let args = serde_json::json!([
        "-y",
        "@modelcontextprotocol/server-filesystem",
        "~/src",
        "~/docs",
        "--level=info"
    ]);
    let claude = json(&env, ".mcp.json");
    assert_eq!(claude["mcpServers"]["fs"]["args"], args);
    assert_eq!(claude["mcpServers"]["fs"]["timeout"], 45000);
    let gemini = json(&env, ".gemini/settings.json");
    assert_eq!(gemini["mcpServers"]["fs"]["args"], args);
    assert_eq!(gemini["mcpServers"]["fs"]["timeout"], 45000);
    let codex = env.read(".codex/config.toml");
    assert!(
        codex.contains(r#"args = ["-y", "@modelcontextprotocol/server-filesystem", "~/src", "~/docs", "--level=info"]"#),
        "{codex}"
    );
    assert!(codex.contains("tool_timeout_sec = 45\n"), "{codex}");
    // A clone installs the same from the typed `set`.
    env.with_registry(&reg, &["install", "--locked"])
        .assert()
        .success();
    assert_eq!(json(&env, ".mcp.json"), claude);
}

#[test]
fn repeated_append_builds_a_list_and_a_later_add_extends_it() {
    let env = Env::new();
    let reg = setup(&env);
    env.with_registry(
        &reg,
        &["add", "fs", "--set", "dirs+=/a", "--set", "dirs+=/b"],
    )
    .assert()
    .success();
    assert!(
        env.read("dotpack.toml")
            .contains(r#"set = { dirs = ["/a", "/b"] }"#)
    );
    env.with_registry(&reg, &["add", "fs", "--set", "dirs+=/c"])
        .assert()
        .success();
    assert!(
        env.read("dotpack.toml")
            .contains(r#"set = { dirs = ["/a", "/b", "/c"] }"#)
    );
    let claude = json(&env, ".mcp.json");
    assert_eq!(
        claude["mcpServers"]["fs"]["args"],
        serde_json::json!([
            "-y",
            "@modelcontextprotocol/server-filesystem",
            "/a",
            "/b",
            "/c",
            "--level=info"
        ])
    );
    // Defaults apply when nothing is set: one directory, one argument.
    let env = Env::new();
    let reg = setup(&env);
    env.with_registry(&reg, &["add", "fs"]).assert().success();
    assert_eq!(
        json(&env, ".mcp.json")["mcpServers"]["fs"]["args"][2],
        serde_json::json!("~")
    );
}

#[test]
fn values_that_break_an_inputs_rules_are_refused_with_the_input_named() {
    let env = Env::new();
    let reg = setup(&env);
    let before = env.read("dotpack.toml");
    for (set, want) in [
        ("timeout=abc", "`abc` is not a number"),
        ("timeout=10", "`10` is less than 1000"),
        ("level=loud", "`loud` is not one of `debug`, `info`"),
        ("dirs=[1]", "item 0 (`1`) is not a string"),
        ("dirs=[", "is not JSON"),
        ("level+=x", "`level+=` adds to a list"),
    ] {
        env.with_registry(&reg, &["add", "fs", "--set", set])
            .assert()
            .failure()
            .stderr(contains(want))
            .stderr(contains("input `"));
        assert_eq!(env.read("dotpack.toml"), before, "{set}");
    }
    // A hand-edited `set` that breaks a rule is refused at install, naming the input.
    env.write(
        "dotpack.toml",
        "[project]\nhosts = [\"claude-code\"]\n\n[dependencies]\nfs = { version = \"1\", set = { timeout = \"soon\" } }\n",
    );
    env.with_registry(&reg, &["install"])
        .assert()
        .failure()
        .stderr(contains("input `timeout` of `fs`: `soon` is not a number"));
}

#[test]
fn validate_checks_input_rules_and_templated_field_kinds() {
    let env = Env::new();
    env.write(
        "dotpack.toml",
        r#"[inputs.port]
type = "number"
default = "x"

[inputs.level]
enum = ["a", "b"]
default = "c"

[inputs.dirs]
type = "list"

[inputs.re]
pattern = "("

[inputs.flag]
default = true

[servers.s]
command = "x"
args = []
timeout = "{{props.flag}}"

[servers.t]
url = "https://h/{{props.port.a}}"
"#,
    );
    env.dotpack()
        .arg("validate")
        .assert()
        .failure()
        .stderr(contains("dotpack.toml:3:11"))
        .stderr(contains("the default `x` is not a number"))
        .stderr(contains("the default `c` is not one of `a`, `b`"))
        .stderr(contains("unknown input type `list`"))
        .stderr(contains("is not a regular expression"))
        .stderr(contains(
            "gives input `flag`, which is bool, but the field holds a number",
        ));
}

const REFS: &str = r#"[package]
name = "refs"
version = "1.0.0"

[servers.refs]
command = "npx"
args = ["-y", "refs-mcp"]
env = { TOKEN = "${TOKEN}", API_KEY = "$API_KEY", REGION = "${env:REGION}" }

[servers.refs-sh]
command = "sh"
args = ["-c", "exec refs-mcp --token \"$TOKEN\""]
"#;

#[test]
fn host_syntax_references_are_written_in_each_hosts_syntax() {
    let env = Env::new();
    env.write(
        "dotpack.toml",
        "[project]\nhosts = [\"claude-code\", \"cursor\", \"codex\"]\n\n[dependencies]\n",
    );
    let reg = build_registry(&env, &[("refs", REFS)]);
    env.with_registry(&reg, &["add", "refs"]).assert().success();
    let claude = json(&env, ".mcp.json");
    assert_eq!(
        claude["mcpServers"]["refs"]["env"],
        serde_json::json!({"API_KEY": "${API_KEY}", "REGION": "${REGION}", "TOKEN": "${TOKEN}"})
    );
    let cursor = json(&env, ".cursor/mcp.json");
    assert_eq!(
        cursor["mcpServers"]["refs"]["env"],
        serde_json::json!({"API_KEY": "${env:API_KEY}", "REGION": "${env:REGION}", "TOKEN": "${env:TOKEN}"})
    );
    let codex = env.read(".codex/config.toml");
    assert!(
        codex.contains(r#"env_vars = ["API_KEY", "REGION", "TOKEN"]"#),
        "{codex}"
    );
    assert!(!codex.contains("${"), "{codex}");
    // A shell expands `$TOKEN` itself: its arguments are left alone.
    assert_eq!(
        claude["mcpServers"]["refs-sh"]["args"][1],
        "exec refs-mcp --token \"$TOKEN\""
    );
    // `validate` tells the author to write `{{env.X}}`.
    let own = Env::new();
    own.write(
        "dotpack.toml",
        &REFS.replace("[package]\nname = \"refs\"\nversion = \"1.0.0\"\n", ""),
    );
    own.dotpack()
        .arg("validate")
        .assert()
        .success()
        .stderr(contains(
            "`${TOKEN}` is an environment reference in one host's syntax",
        ))
        .stderr(contains("write `{{env.API_KEY}}`"))
        .stderr(contains("dotpack.toml:5:18"));
}

#[test]
fn a_literal_secret_in_a_server_is_refused_at_install_and_written_nowhere() {
    let token = format!(
        "ghp_{}",
        "a1B2c3D4e5".repeat(4).get(..36).unwrap_or_default()
    );
    let leaky = format!(
        "[package]\nname = \"leaky\"\nversion = \"1.0.0\"\n\n[servers.leaky]\ncommand = \"npx\"\nargs = [\"leaky-mcp\"]\nenv = {{ GITHUB_TOKEN = \"{token}\" }}\n"
    );
    let env = Env::new();
    env.write(
        "dotpack.toml",
        "[project]\nhosts = [\"claude-code\", \"codex\"]\n\n[dependencies]\n",
    );
    let reg = build_registry(&env, &[("leaky", &leaky)]);
    env.with_registry(&reg, &["add", "leaky"])
        .assert()
        .failure()
        .stderr(contains(
            "`servers.leaky.env.GITHUB_TOKEN` looks like a literal secret (GitHub token)",
        ))
        .stderr(contains("{{env.API_TOKEN}}"));
    for (path, bytes) in crate::support::snapshot(&env.project) {
        let text = String::from_utf8_lossy(&bytes);
        assert!(
            !text.contains(&token),
            "{} holds the secret",
            path.display()
        );
    }
    for (path, bytes) in crate::support::snapshot(&env.home.path().join(".dotpack")) {
        let text = String::from_utf8_lossy(&bytes);
        assert!(
            !text.contains(&token),
            "{} holds the secret",
            path.display()
        );
    }
}

#[test]
fn host_conditions_shape_an_entry_per_host() {
    let pkg = r#"[package]
name = "shaped"
version = "1.0.0"

[servers.shaped]
command = "npx"
args = ["shaped-mcp", "--client={{host.id}}", "@if(host == 'codex')--no-color@endif", "@if(host != 'codex')--color=@if(host.id == \"cursor\")never@elseif(true)always@endif@endif"]
"#;
    let env = Env::new();
    env.write(
        "dotpack.toml",
        "[project]\nhosts = [\"claude-code\", \"cursor\", \"codex\"]\n\n[dependencies]\n",
    );
    let reg = build_registry(&env, &[("shaped", pkg)]);
    env.with_registry(&reg, &["add", "shaped"])
        .assert()
        .success();
    assert_eq!(
        json(&env, ".mcp.json")["mcpServers"]["shaped"]["args"],
        serde_json::json!(["shaped-mcp", "--client=claude-code", "--color=always"])
    );
    assert_eq!(
        json(&env, ".cursor/mcp.json")["mcpServers"]["shaped"]["args"],
        serde_json::json!(["shaped-mcp", "--client=cursor", "--color=never"])
    );
    let codex = env.read(".codex/config.toml");
    assert!(
        codex.contains(r#"args = ["shaped-mcp", "--client=codex", "--no-color"]"#),
        "{codex}"
    );
}

#[test]
fn info_shows_input_types_and_allowed_values() {
    let env = Env::new();
    let reg = setup(&env);
    env.with_registry(&reg, &["info", "fs"])
        .assert()
        .success()
        .stdout(contains("dirs [array of string, default [\"~\"]]"))
        .stdout(contains("timeout [number, default 30000]"))
        .stdout(contains(
            "level [one of \"debug\", \"info\", default \"info\"]",
        ));
}

#[test]
fn the_curated_filesystem_package_spreads_its_directories_into_arguments() {
    let env = Env::new();
    env.write(
        "dotpack.toml",
        "[project]\nhosts = [\"claude-code\"]\n\n[dependencies]\n",
    );
    env.dotpack()
        .args(["add", "filesystem", "--set", "allowed_dirs+=~/src"])
        .args(["--set", "allowed_dirs+=~/docs"])
        .assert()
        .success();
    assert_eq!(
        json(&env, ".mcp.json")["mcpServers"]["filesystem"]["args"],
        serde_json::json!([
            "-y",
            "@modelcontextprotocol/server-filesystem",
            "~/src",
            "~/docs"
        ])
    );
    assert!(
        env.read("dotpack.toml")
            .contains(r#"set = { allowed_dirs = ["~/src", "~/docs"] }"#),
        "{}",
        env.read("dotpack.toml")
    );
}
