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
