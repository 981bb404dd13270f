//! The template rules of the seeds that install and `validate` must read alike: an input's type
//! inferred from its default, env references in number and boolean fields, fallbacks across
//! several variables, templated map keys, and a required input of the project's own servers.

use predicates::prelude::PredicateBooleanExt;
use predicates::str::contains;

use crate::support::Env;

fn json(env: &Env, file: &str) -> serde_json::Value {
    serde_json::from_str(&env.read(file)).expect("host file is JSON")
}

#[test]
fn an_untyped_input_takes_its_type_from_its_default() {
    let env = Env::new();
    env.write(
        "dotpack.toml",
        r#"[project]
hosts = ["claude-code"]

[inputs.timeout]
default = 30000

[inputs.ratio]
default = 2.5

[inputs.verbose]
default = true

[inputs.dirs]
default = ["~/src", "~/docs"]

[inputs.labels]
default = { team = "core" }

[servers.s]
command = "npx"
args = ["s-mcp", "{{props.dirs}}", "--ratio={{props.ratio}}", "--team={{props.labels.team}}", "@if(props.verbose)-v@endif"]
timeout = "{{props.timeout}}"
"#,
    );
    env.dotpack().arg("validate").assert().success();
    env.dotpack().arg("install").assert().success();
    let entry = &json(&env, ".mcp.json")["mcpServers"]["s"];
    assert_eq!(
        entry["args"],
        serde_json::json!([
            "s-mcp",
            "~/src",
            "~/docs",
            "--ratio=2.5",
            "--team=core",
            "-v"
        ])
    );
    assert_eq!(entry["timeout"], 30000);
}

/// `validate` and `install` on the same project: both refuse with `want` in their message and
/// no host file is written.
fn both_refuse(env: &Env, want: &str) {
    env.dotpack()
        .arg("validate")
        .assert()
        .failure()
        .stderr(contains(want));
    env.dotpack()
        .arg("install")
        .assert()
        .failure()
        .stderr(contains(want));
    assert!(!env.project.join(".mcp.json").exists());
    assert!(!env.project.join(".gemini/settings.json").exists());
}

#[test]
fn an_env_reference_in_a_number_or_boolean_field_is_refused_by_validate_and_install() {
    for field in [
        "timeout = \"{{env.T|'5000'}}\"",
        "timeout = \"{{env.T}}\"",
        "trust = \"{{env.X}}\"",
        "enabled = \"{{props.on|env.ON}}\"",
    ] {
        let env = Env::new();
        env.write(
            "dotpack.toml",
            &format!(
                "[project]\nhosts = [\"claude-code\", \"gemini-cli\"]\n\n[inputs.on]\ndescription = \"d\"\n\n\
                 [servers.s]\ncommand = \"x\"\nargs = []\n{field}\n"
            ),
        );
        both_refuse(&env, "hosts expand a reference only inside a text");
        env.dotpack()
            .arg("install")
            .assert()
            .stderr(contains("(at `servers.s."))
            .stderr(contains("take it from an input"));
    }
    // From an input it is written as the host's number.
    let env = Env::new();
    env.write(
        "dotpack.toml",
        "[project]\nhosts = [\"gemini-cli\"]\n\n[inputs.t]\ndefault = 5000\n\n[inputs.trust]\ndefault = true\n\n\
         [servers.s]\ncommand = \"x\"\nargs = []\ntimeout = \"{{props.t}}\"\ntrust = \"{{props.trust}}\"\n",
    );
    env.dotpack().arg("validate").assert().success();
    env.dotpack().arg("install").assert().success();
    let entry = &json(&env, ".gemini/settings.json")["mcpServers"]["s"];
    assert_eq!(entry["timeout"], 5000);
    assert_eq!(entry["trust"], true);
}

#[test]
fn a_fallback_across_several_env_variables_is_refused_by_validate_and_install() {
    for value in [
        "env = { K = \"{{env.A|env.B|'d'}}\" }",
        "args = [\"--k={{props.k|env.A|env.B}}\"]",
    ] {
        let env = Env::new();
        env.write(
            "dotpack.toml",
            &format!(
                "[project]\nhosts = [\"claude-code\", \"gemini-cli\"]\n\n[inputs.k]\ndefault = \"v\"\n\n\
                 [servers.s]\ncommand = \"x\"\n{}{value}\n",
                if value.starts_with("args") { "" } else { "args = []\n" }
            ),
        );
        both_refuse(&env, "falls back across several environment variables");
    }
}

#[test]
fn map_keys_render_with_the_props_in_every_host() {
    let env = Env::new();
    env.write(
        "dotpack.toml",
        r#"[project]
hosts = ["claude-code", "codex"]

[inputs.team]
default = "CORE"

[servers.s]
command = "x"
args = []
env = { "{{props.team}}_TOKEN" = "{{env.CORE_TOKEN}}", "@if(host == 'codex')CODEX_ONLY@endif@if(host != 'codex')OTHERS@endif" = "1" }

[servers.r]
url = "https://example.com/mcp"
http_headers = { "X-{{props.team}}" = "yes" }
"#,
    );
    env.dotpack().arg("validate").assert().success();
    env.dotpack().arg("install").assert().success();
    let claude = json(&env, ".mcp.json");
    assert_eq!(
        claude["mcpServers"]["s"]["env"],
        serde_json::json!({"CORE_TOKEN": "${CORE_TOKEN}", "OTHERS": "1"})
    );
    assert_eq!(
        claude["mcpServers"]["r"]["headers"],
        serde_json::json!({"X-CORE": "yes"})
    );
    let codex = env.read(".codex/config.toml");
    assert!(codex.contains(r#"env_vars = ["CORE_TOKEN"]"#), "{codex}");
    assert!(codex.contains("CODEX_ONLY = \"1\""), "{codex}");
    assert!(!codex.contains("{{"), "{codex}");
}

#[test]
fn a_map_key_that_cannot_be_rendered_is_refused_by_validate_and_install() {
    for (key, want) in [
        ("{{env.K}}", "hosts read keys as they are written"),
        ("{{props.nope}}", "names an input that is not declared"),
        ("{{props.a", "is never closed"),
    ] {
        let env = Env::new();
        env.write(
            "dotpack.toml",
            &format!(
                "[project]\nhosts = [\"claude-code\", \"gemini-cli\"]\n\n[servers.s]\ncommand = \"x\"\nargs = []\nenv = {{ \"{key}\" = \"v\" }}\n"
            ),
        );
        both_refuse(&env, want);
    }
}

#[test]
fn a_required_input_of_the_projects_own_server_says_how_to_set_it_and_that_works() {
    let env = Env::new();
    let manifest = "[project]\nhosts = [\"claude-code\"]\n\n[inputs.port]\ndescription = \"Port\"\ntype = \"number\"\nrequired = true\n\n\
                    [servers.s]\ncommand = \"x\"\nargs = [\"--port={{props.port}}\"]\n";
    env.write("dotpack.toml", manifest);
    env.dotpack()
        .arg("install")
        .assert()
        .failure()
        .stderr(contains(
            "dotpack.toml needs a value for input `port` (Port)",
        ))
        .stderr(contains("`default = 30` under [inputs.port]"))
        .stderr(contains("dotpack add").not());
    assert!(!env.project.join(".mcp.json").exists());
    // What the hint says works.
    env.write(
        "dotpack.toml",
        &manifest.replace("required = true\n", "required = true\ndefault = 4000\n"),
    );
    env.dotpack().arg("install").assert().success();
    assert_eq!(
        json(&env, ".mcp.json")["mcpServers"]["s"]["args"],
        serde_json::json!(["--port=4000"])
    );
}
