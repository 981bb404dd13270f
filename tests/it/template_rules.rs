//! The template rules of the seeds that install and `validate` must read alike: an input's type
//! inferred from its default, env references in number and boolean fields, fallbacks across
//! several variables, templated map keys, and a required input of the project's own servers.

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
