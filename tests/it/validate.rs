//! `dotpack validate`: every rule, with file, line and fix.

use predicates::str::contains;

use crate::support::Env;

/// Runs `dotpack validate` on `text` and returns the assertion after checking exit code 1.
fn fails_with(text: &str, needles: &[&str]) {
    let env = Env::new();
    env.write("dotpack.toml", text);
    let mut assert = env.dotpack().arg("validate").assert().failure().code(1);
    for needle in needles {
        assert = assert.stderr(contains(*needle));
    }
}

#[test]
fn valid_manifest_exits_zero() {
    let env = Env::new();
    env.write(
        "dotpack.toml",
        "[servers.fetch]\ncommand = \"uvx\"\nargs = [\"mcp-server-fetch\"]\n",
    );
    env.dotpack()
        .arg("validate")
        .assert()
        .success()
        .stderr(contains("dotpack.toml is valid"));
}

#[test]
fn warnings_only_exit_zero() {
    let env = Env::new();
    env.write(
        "dotpack.toml",
        "[servers.a]\ncommand = \"x\"\nargs = []\nstartup_timeout_sec = 1\nstartup_timeout_ms = 5\n",
    );
    env.dotpack()
        .arg("validate")
        .assert()
        .success()
        .stderr(contains("dotpack.toml:5:1"))
        .stderr(contains("`startup_timeout_sec` wins"))
        .stderr(contains("is valid (1 warning)"));
}

#[test]
fn syntax_error_names_line() {
    fails_with("[servers.x]\ncommand = \n", &["dotpack.toml:2:", "1 error"]);
}

#[test]
fn unknown_table_suggests_name() {
    fails_with(
        "[dependecies]\n",
        &["dotpack.toml:1:2", "did you mean `[dependencies]`?"],
    );
}

#[test]
fn transport_errors() {
    fails_with(
        "[servers.a]\ncommand = \"x\"\nargs = []\nurl = \"https://x\"\n",
        &["dotpack.toml:4:1", "both `command` and `url`"],
    );
    fails_with(
        "[servers.a]\nenv = {}\n",
        &["dotpack.toml:1:10", "needs `command`"],
    );
    fails_with(
        "[servers.a]\ncommand = \"x\"\n",
        &["dotpack.toml:2:1", "add `args = []`"],
    );
}

#[test]
fn type_contradiction() {
    fails_with(
        "[servers.a]\nurl = \"https://x\"\ntype = \"stdio\"\n",
        &["dotpack.toml:3:8", "contradicts the server's transport"],
    );
}

#[test]
fn unknown_field_and_host_spelling() {
    fails_with(
        "[servers.a]\nurl = \"https://x\"\nincludeTools = []\nenabled_tool = []\n",
        &[
            "dotpack.toml:3:1",
            "write `enabled_tools` instead",
            "dotpack.toml:4:1",
            "`enabled_tool` is not in the concept table",
        ],
    );
}

#[test]
fn wrong_kind_points_at_item() {
    fails_with(
        "[servers.a]\ncommand = \"x\"\nargs = [\"a\", 1]\n",
        &["dotpack.toml:3:14", "servers.a.args[1]"],
    );
}

#[test]
fn undeclared_input_in_template() {
    fails_with(
        "[servers.a]\nurl = \"http://127.0.0.1:{{props.port}}/mcp\"\n",
        &["dotpack.toml:2:25", "[inputs.port]"],
    );
}

#[test]
fn bad_requirement_and_registry() {
    fails_with(
        "[dependencies]\na = \"^^1\"\nb = { version = \"1\", registry = \"nope\" }\n",
        &[
            "dotpack.toml:2:5",
            "`~1.2.3`",
            "dotpack.toml:3:33",
            "not declared in `[registries]`",
        ],
    );
}

#[test]
fn unknown_host() {
    fails_with(
        "[project]\nhosts = [\"cluade-code\"]\n",
        &["dotpack.toml:2:10", "did you mean `claude-code`?"],
    );
}

#[test]
fn literal_secret_warns() {
    let env = Env::new();
    env.write(
        "dotpack.toml",
        "[servers.gh]\ncommand = \"npx\"\nargs = []\nenv = { GITHUB_TOKEN = \"ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8\" }\n",
    );
    env.dotpack()
        .arg("validate")
        .assert()
        .success()
        .stderr(contains("dotpack.toml:4:24"))
        .stderr(contains("servers.gh.env.GITHUB_TOKEN"))
        .stderr(contains("{{env.API_TOKEN}}"));
}

#[test]
fn finds_manifest_in_parent_and_accepts_folder_path() {
    let env = Env::new();
    env.write("dotpack.toml", "[bogus]\n");
    env.write("sub/keep", "");
    env.dotpack_in(&env.project.join("sub"))
        .arg("validate")
        .assert()
        .code(1)
        .stderr(contains("unknown top-level key `bogus`"));
    env.dotpack_in(env.home.path())
        .args(["validate", "project"])
        .assert()
        .code(1)
        .stderr(contains("project/dotpack.toml:1:2"));
}

#[test]
fn missing_manifest_is_an_error() {
    let env = Env::new();
    env.dotpack()
        .arg("validate")
        .assert()
        .code(1)
        .stderr(contains("no dotpack.toml"));
}

#[test]
fn json_report() {
    let env = Env::new();
    env.write("dotpack.toml", "[servers.a]\ncommand = \"x\"\n");
    let out = env
        .dotpack()
        .args(["validate", "--json"])
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let doc: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(doc["valid"], false);
    assert_eq!(doc["errors"], 1);
    assert_eq!(doc["warnings"], 0);
    assert_eq!(doc["file"], "dotpack.toml");
    let d = &doc["diagnostics"][0];
    assert_eq!(d["code"], "missing-args");
    assert_eq!(d["severity"], "error");
    assert_eq!(d["line"], 2);
    assert_eq!(d["column"], 1);
    assert_eq!(d["key_path"], "servers.a.command");
}

#[test]
fn human_output_snapshot() {
    let env = Env::new();
    env.write(
        "dotpack.toml",
        r#"[package]
name = "demo"
version = "1.0"

[inputs.token]
secret = true
default = "abc"

[servers.figma]
url = "http://127.0.0.1:{{props.port}}/mcp"
type = "stdio"
httpUrl = "https://x"

[servers.gh]
command = "npx"
args = ["-y", "--token", "k9X2mQ7pL4vB8nR3"]

[dependencies]
fetch = "^^1"
"#,
    );
    let out = env
        .dotpack()
        .arg("validate")
        .assert()
        .code(1)
        .get_output()
        .stderr
        .clone();
    insta::assert_snapshot!(String::from_utf8_lossy(&out));
}

#[test]
fn template_errors_point_inside_the_string() {
    fails_with(
        "[inputs.a]\ndefault = \"1\"\n\n[servers.a]\ncommand = \"x\"\nargs = [\"@if(props.a)unclosed\"]\n",
        &["dotpack.toml:6:10", "`@if(props.a)` is never closed"],
    );
    fails_with(
        "[servers.a]\ncommand = \"x\"\nargs = [\"--v={{ctx.a}}\"]\n",
        &["dotpack.toml:3:14", "unknown context `ctx`"],
    );
}

#[test]
fn manifest_warnings_are_shown_by_every_command_that_reads_it() {
    let env = Env::new();
    env.write(
        "dotpack.toml",
        "[project]\nhosts = [\"claude-code\"]\n\n[servers.gh]\ncommand = \"npx\"\nargs = [\"x\"]\nenv = { GITHUB_TOKEN = \"ghp_1234567890abcdefABCDEF1234567890abcd\" }\n",
    );
    for args in [&["status"][..], &["list"], &["lock"], &["install"]] {
        env.dotpack().args(args).assert().stderr(contains(
            "warning: this looks like a literal secret (GitHub token)",
        ));
    }
    // --quiet keeps only errors.
    env.dotpack().args(["-q", "status"]).assert().stderr(
        predicates::prelude::PredicateBooleanExt::not(contains("literal secret")),
    );
}
