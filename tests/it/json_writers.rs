//! `--json` on the writing commands: one versioned document on stdout saying what changed
//! (manifest edits, lock changes, host files with the entries added, updated, removed or
//! adopted, the generation), and nothing else on stdout, dry runs included.

use serde_json::Value;

use crate::support::Env;

fn json(env: &Env, args: &[&str]) -> Value {
    let out = env.dotpack().arg("--json").args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{args:?}: stdout is not one JSON document ({e}): {}",
            String::from_utf8_lossy(&out.stdout)
        )
    })
}

#[test]
fn writing_commands_report_what_they_changed() {
    let env = Env::new();
    env.dotpack().args(["init", "-q"]).assert().success();
    let add = json(
        &env,
        &["add", "figma", "--host", "cursor", "--host", "codex"],
    );
    insta::assert_snapshot!("json_add", serde_json::to_string_pretty(&add).unwrap());
    let dry = json(&env, &["remove", "figma", "--dry-run"]);
    assert_eq!(dry["dry_run"], true);
    assert_eq!(dry["generation"], Value::Null);
    assert_eq!(dry["files"][0]["removed"][0], "figma");
    assert!(env.project.join(".cursor/mcp.json").exists());
    let uninstall = json(&env, &["uninstall", "figma", "--host", "codex"]);
    assert_eq!(uninstall["files"][0]["host"], "codex");
    assert_eq!(uninstall["files"][0]["action"], "delete");
    assert_eq!(uninstall["packages"], Value::Array(Vec::new()));
    let install = json(&env, &["install"]);
    assert_eq!(install["generation"], Value::Null, "{install}");
    assert_eq!(install["files"], Value::Array(Vec::new()));
    let remove = json(&env, &["remove", "figma"]);
    assert_eq!(remove["packages"][0]["change"], "removed");
    assert!(remove["generation"].as_u64().is_some());
}

#[test]
fn a_failed_command_under_json_prints_its_error_as_one_document() {
    let env = Env::new();
    env.dotpack().arg("init").assert().success();
    let out = env
        .dotpack()
        .args(["install", "--host", "nope", "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON document");
    assert_eq!(doc["schema"], 1);
    assert_eq!(doc["error"]["code"], "usage");
    assert!(
        doc["error"]["message"]
            .as_str()
            .unwrap()
            .contains("`nope` is not a host")
    );
    assert!(
        doc["error"]["help"]
            .as_str()
            .unwrap()
            .contains("claude-code")
    );
    // A manifest error keeps its file, key path and line.
    env.write(
        "dotpack.toml",
        "[project]\nhosts = [\"claude-code\"]\nfoo = 1\n",
    );
    let out = env.dotpack().args(["status", "--json"]).output().unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON document");
    assert_eq!(doc["error"]["key_path"], "project.foo");
    assert_eq!(doc["error"]["line"], 3);
    // A refusal to act beyond the project is one too.
    env.write(
        "dotpack.toml",
        "[project]\nhosts = [\"codex\"]\nscope = \"user\"\n\n[servers.helper]\ncommand = \"sh\"\nargs = []\n",
    );
    let out = env.dotpack().args(["install", "--json"]).output().unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON document");
    assert!(
        doc["error"]["message"]
            .as_str()
            .unwrap()
            .contains("needs your approval")
    );
}
