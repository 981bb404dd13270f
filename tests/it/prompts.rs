//! On a terminal, `add` asks for the required inputs it lacks instead of failing; elsewhere it
//! fails with exit code 2 and the exact `--set` to pass (tests in state_model.rs).

use predicates::prelude::*;
use predicates::str::contains;

use crate::support::{Env, build_registry, snapshot};

fn registry(env: &Env) -> std::path::PathBuf {
    build_registry(
        env,
        &[(
            "db",
            "[package]\nname = \"db\"\nversion = \"1.0.0\"\n\n[inputs.host]\ndescription = \"Database host\"\nrequired = true\n\n[inputs.port]\ntype = \"number\"\nrequired = true\n\n[inputs.token]\nsecret = true\nrequired = true\n\n[servers.db]\ncommand = \"db-mcp\"\nargs = [\"--host\", \"{{props.host}}\", \"--port\", \"{{props.port}}\"]\nenv = { DB_TOKEN = \"{{env.DB_TOKEN}}\" }\n",
        )],
    )
}

fn add_on_terminal(
    env: &Env,
    reg: &std::path::Path,
    args: &[&str],
    answer: &str,
) -> (bool, String) {
    let mut cmd = env.process_in(&env.project);
    cmd.env("DOTPACK_REGISTRY", reg)
        .env_remove("DB_TOKEN")
        .args(args);
    let out = env.on_terminal(cmd, answer);
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).replace('\r', ""),
    )
}

#[test]
fn on_a_terminal_add_asks_for_each_missing_input_and_records_the_answers() {
    let env = Env::new();
    let reg = registry(&env);
    env.write("dotpack.toml", "[project]\nhosts = [\"claude-code\"]\n");
    // A port that is not a number is asked again; the secret is never asked for.
    let (ok, shown) = add_on_terminal(&env, &reg, &["add", "db"], "db.internal\nfive\n5432\n");
    assert!(ok, "{shown}");
    assert!(
        shown.contains("db needs a value for input `host` (Database host), a string: "),
        "{shown}"
    );
    assert!(
        shown.contains("db needs a value for input `port`, a number: "),
        "{shown}"
    );
    assert!(shown.contains("`five` is not a number"), "{shown}");
    assert!(!shown.contains("input `token`"), "{shown}");
    assert!(
        shown.contains("Setting db input `host` to \"db.internal\""),
        "{shown}"
    );
    assert!(
        shown.contains("DB_TOKEN"),
        "the variable to export is named: {shown}"
    );
    let manifest = std::fs::read_to_string(env.project.join("dotpack.toml")).unwrap();
    assert!(manifest.contains("host = \"db.internal\""), "{manifest}");
    assert!(manifest.contains("port = 5432"), "{manifest}");
    let written = std::fs::read_to_string(env.project.join(".mcp.json")).unwrap();
    assert!(written.contains("\"db.internal\""), "{written}");
    assert!(written.contains("\"5432\""), "{written}");
    // A value given with --set is not asked for again.
    env.with_registry(&reg, &["remove", "db"])
        .assert()
        .success();
    let (ok, shown) = add_on_terminal(&env, &reg, &["add", "db", "--set", "host=h"], "6000\n");
    assert!(ok, "{shown}");
    assert!(!shown.contains("value for input `host`"), "{shown}");
    assert!(shown.contains("value for input `port`"), "{shown}");
}

#[test]
fn an_empty_answer_fails_as_without_a_terminal_and_writes_nothing() {
    let env = Env::new();
    let reg = registry(&env);
    env.write("dotpack.toml", "[project]\nhosts = [\"claude-code\"]\n");
    let before = snapshot(&env.project);
    let (ok, shown) = add_on_terminal(&env, &reg, &["add", "db"], "\n\n");
    assert!(!ok, "{shown}");
    assert!(shown.contains("dotpack add db --set host=VALUE"), "{shown}");
    assert_eq!(snapshot(&env.project), before);
    // Without a terminal nothing is asked: exit code 2 and the flags to pass.
    env.with_registry(&reg, &["add", "db"])
        .write_stdin("db.internal\n5432\n")
        .assert()
        .code(2)
        .stderr(contains("--set port=VALUE").and(contains("needs a value for input").count(2)));
    assert_eq!(snapshot(&env.project), before);
}
