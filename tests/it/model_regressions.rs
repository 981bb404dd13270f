//! Regressions of the state model (`docs/state.md`), each first found by the model-based test
//! (`model.rs`), reproduced in a few commands.

use std::path::{Path, PathBuf};

use crate::support::{Env, build_registry, package};

/// alpha and beta (one server each), duo (two servers), bundle (depends on beta).
fn registry(env: &Env) -> PathBuf {
    let duo = "[package]\nname = \"duo\"\nversion = \"1.0.0\"\ndescription = \"Two servers\"\n\n[servers.duo-read]\ncommand = \"npx\"\nargs = [\"duo-read\"]\n\n[servers.duo-write]\ncommand = \"npx\"\nargs = [\"duo-write\"]\n";
    build_registry(
        env,
        &[
            ("alpha", &package("alpha", "1.0.0", &[])),
            ("beta", &package("beta", "1.0.0", &[])),
            ("duo", duo),
            ("bundle", &package("bundle", "1.0.0", &[("beta", "^1.0")])),
        ],
    )
}

fn project(hosts: &str) -> (Env, PathBuf) {
    let env = Env::new();
    let reg = registry(&env);
    env.write(
        "dotpack.toml",
        &format!("[project]\nhosts = {hosts}\nscope = \"project\"\n\n[dependencies]\n"),
    );
    (env, reg)
}

fn ok(env: &Env, reg: &Path, args: &[&str]) -> String {
    let out = env.with_registry(reg, args).output().expect("run dotpack");
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(out.status.success(), "dotpack {args:?}: {stderr}");
    stderr
}

/// The entry names of a JSON host file (none when it does not exist).
fn servers(path: PathBuf) -> Vec<String> {
    let Ok(text) = std::fs::read_to_string(&path) else {
        return Vec::new();
    };
    let doc: serde_json::Value = serde_json::from_str(&text).expect("host file parses");
    doc["mcpServers"]
        .as_object()
        .map(|m| m.keys().cloned().collect())
        .unwrap_or_default()
}

fn user_file(env: &Env, rel: &str) -> PathBuf {
    env.home.path().join(rel)
}

fn codex_servers(path: PathBuf) -> Vec<String> {
    let Ok(text) = std::fs::read_to_string(&path) else {
        return Vec::new();
    };
    let doc: toml::Table = toml::from_str(&text).expect("codex file parses");
    doc.get("mcp_servers")
        .and_then(toml::Value::as_table)
        .map(|t| t.keys().cloned().collect())
        .unwrap_or_default()
}

fn status_code(env: &Env, reg: &Path) -> Option<i32> {
    env.with_registry(reg, &["status"])
        .output()
        .expect("run dotpack")
        .status
        .code()
}

#[test]
fn uninstall_scope_user_takes_out_the_dependencies_of_a_user_scoped_package() {
    let (env, reg) = project("[\"claude-code\"]");
    ok(&env, &reg, &["add", "bundle", "--scope", "user"]);
    assert_eq!(servers(user_file(&env, ".claude.json")), ["beta", "bundle"]);
    ok(&env, &reg, &["uninstall", "--scope", "user"]);
    assert!(servers(user_file(&env, ".claude.json")).is_empty());
    assert_eq!(status_code(&env, &reg), Some(0));
}

#[test]
fn uninstall_host_scope_user_excludes_only_from_that_host() {
    let (env, reg) = project("[\"claude-code\", \"codex\"]");
    ok(&env, &reg, &["add", "duo", "--scope", "user"]);
    ok(
        &env,
        &reg,
        &["uninstall", "--host", "claude-code", "--scope", "user"],
    );
    assert!(servers(user_file(&env, ".claude.json")).is_empty());
    assert_eq!(
        codex_servers(user_file(&env, ".codex/config.toml")),
        ["duo-read", "duo-write"]
    );
    assert!(env.read("dotpack.toml").contains("exclude = [\"duo\"]"));
}

#[test]
fn uninstall_scope_project_keeps_the_entries_a_host_has_at_user_scope() {
    let (env, reg) = project("[\"claude-code\"]");
    ok(&env, &reg, &["add", "alpha"]);
    ok(&env, &reg, &["add", "duo", "--scope", "user"]);
    ok(&env, &reg, &["uninstall", "--scope", "project"]);
    assert!(servers(env.project.join(".mcp.json")).is_empty());
    assert_eq!(
        servers(user_file(&env, ".claude.json")),
        ["duo-read", "duo-write"]
    );
    assert_eq!(status_code(&env, &reg), Some(0));
}

#[test]
fn uninstall_a_server_at_user_scope_finds_it_through_its_package() {
    let (env, reg) = project("[\"claude-code\"]");
    ok(&env, &reg, &["add", "duo", "--scope", "user"]);
    ok(&env, &reg, &["uninstall", "duo-read", "--scope", "user"]);
    assert_eq!(servers(user_file(&env, ".claude.json")), ["duo-write"]);
}

#[test]
fn add_scope_project_brings_a_user_scoped_package_back_to_the_project() {
    let (env, reg) = project("[\"claude-code\"]");
    ok(&env, &reg, &["add", "alpha", "--scope", "user"]);
    ok(&env, &reg, &["add", "alpha", "--scope", "project"]);
    assert!(env.read("dotpack.toml").contains("alpha = \"^1.0\"\n"));
    assert_eq!(servers(env.project.join(".mcp.json")), ["alpha"]);
    assert!(servers(user_file(&env, ".claude.json")).is_empty());
}

#[test]
fn install_host_with_the_default_scope_takes_its_own_scope_out() {
    let (env, reg) = project("[]");
    ok(&env, &reg, &["add", "alpha"]);
    ok(
        &env,
        &reg,
        &["install", "--host", "codex", "--scope", "user"],
    );
    assert_eq!(
        codex_servers(user_file(&env, ".codex/config.toml")),
        ["alpha"]
    );
    let out = ok(
        &env,
        &reg,
        &["install", "--host", "codex", "--scope", "project"],
    );
    assert!(
        out.contains("host codex in dotpack.toml: scope project"),
        "{out}"
    );
    assert!(env.read("dotpack.toml").contains("hosts = [\"codex\"]"));
    assert_eq!(
        codex_servers(env.project.join(".codex/config.toml")),
        ["alpha"]
    );
    assert!(codex_servers(user_file(&env, ".codex/config.toml")).is_empty());
}

const MINE: &str = r#""mine": {"command": "node", "args": ["mine.js"]},"#;

/// Adds the hand-written entry `mine` first in `.mcp.json`.
fn add_mine(env: &Env) {
    let text = env.read(".mcp.json");
    let text = text.replacen(
        "\"mcpServers\": {",
        &format!("\"mcpServers\": {{\n    {MINE}"),
        1,
    );
    env.write(".mcp.json", &text);
}

#[test]
fn rollback_keeps_a_hand_written_entry_added_between_two_generations() {
    let (env, reg) = project("[\"claude-code\"]");
    ok(&env, &reg, &["add", "alpha"]);
    add_mine(&env);
    ok(&env, &reg, &["add", "beta"]);
    ok(&env, &reg, &["rollback"]);
    let text = env.read(".mcp.json");
    assert!(text.contains(MINE), "{text}");
    assert_eq!(servers(env.project.join(".mcp.json")), ["mine", "alpha"]);
}

#[test]
fn rollback_keeps_a_hand_edit_a_later_generation_carried_along() {
    let (env, reg) = project("[\"claude-code\"]");
    ok(&env, &reg, &["add", "alpha"]);
    let edited = env
        .read(".mcp.json")
        .replace("alpha-mcp@1.0.0", "alpha-mcp@hand");
    env.write(".mcp.json", &edited);
    ok(&env, &reg, &["add", "beta"]);
    ok(&env, &reg, &["rollback"]);
    assert_eq!(env.read(".mcp.json"), edited);
}

#[test]
fn rollback_into_a_file_dotpack_deleted_keeps_an_entry_deleted_by_hand() {
    let (env, reg) = project("[\"claude-code\"]");
    ok(&env, &reg, &["add", "alpha", "beta"]);
    let doc: serde_json::Value = serde_json::from_str(&env.read(".mcp.json")).unwrap();
    let mut alone = doc.clone();
    alone["mcpServers"].as_object_mut().unwrap().remove("beta");
    env.write(".mcp.json", &serde_json::to_string_pretty(&alone).unwrap());
    // Both go to user scope: dotpack removes alpha, beta is gone already, the file goes.
    ok(&env, &reg, &["add", "alpha", "beta", "--scope", "user"]);
    assert!(!env.project.join(".mcp.json").exists());
    ok(&env, &reg, &["rollback"]);
    assert_eq!(servers(env.project.join(".mcp.json")), ["alpha"]);
}

/// `ours` and `theirs` as git leaves them when both changed the whole file.
fn conflict(ours: &str, theirs: &str) -> String {
    format!("<<<<<<< HEAD\n{ours}=======\n{theirs}>>>>>>> branch\n")
}

#[test]
fn lock_recovered_from_a_conflict_drops_claims_of_entries_the_merge_took_out() {
    let (env, reg) = project("[\"claude-code\"]");
    ok(&env, &reg, &["add", "alpha", "beta"]);
    let theirs = env.read("dotpack.lock");
    ok(&env, &reg, &["remove", "alpha"]);
    let ours = env.read("dotpack.lock");
    env.write("dotpack.lock", &conflict(&ours, &theirs));
    ok(&env, &reg, &["lock"]);
    assert!(!env.read("dotpack.lock").contains("alpha"));
    assert_eq!(status_code(&env, &reg), Some(0));
}

#[test]
fn uninstall_with_a_conflicted_lock_writes_it_resolved() {
    let (env, reg) = project("[\"claude-code\"]");
    ok(&env, &reg, &["add", "alpha", "beta"]);
    let theirs = env.read("dotpack.lock");
    ok(&env, &reg, &["remove", "alpha"]);
    let ours = env.read("dotpack.lock");
    env.write("dotpack.lock", &conflict(&ours, &theirs));
    ok(&env, &reg, &["uninstall", "beta"]);
    ok(&env, &reg, &["lock", "--locked"]);
    assert!(!env.read("dotpack.lock").contains("alpha"));
}

#[test]
fn rollback_is_not_stopped_by_an_entry_in_a_project_file_it_does_not_own() {
    let (env, reg) = project("[\"claude-code\"]");
    ok(&env, &reg, &["add", "alpha"]);
    let theirs = env.read("dotpack.lock");
    ok(&env, &reg, &["add", "beta"]);
    // beta deleted by hand, then a merge whose other side never had it: its claim goes.
    let doc: serde_json::Value = serde_json::from_str(&env.read(".mcp.json")).unwrap();
    let mut without = doc.clone();
    without["mcpServers"]
        .as_object_mut()
        .unwrap()
        .remove("beta");
    env.write(
        ".mcp.json",
        &serde_json::to_string_pretty(&without).unwrap(),
    );
    let ours = env.read("dotpack.lock");
    env.write("dotpack.lock", &conflict(&ours, &theirs));
    ok(&env, &reg, &["lock"]);
    ok(&env, &reg, &["add", "duo"]);
    // Back to the state after `dotpack lock`: beta had been deleted by hand then, and the lock
    // holds no claim of it; rollback is not stopped by anything in the project file.
    ok(&env, &reg, &["rollback"]);
    assert_eq!(servers(env.project.join(".mcp.json")), ["alpha"]);
}

#[test]
fn a_file_dotpack_created_goes_with_its_last_entry_even_when_a_claim_is_left() {
    let (env, reg) = project("[\"claude-code\"]");
    ok(&env, &reg, &["add", "duo"]);
    let doc: serde_json::Value = serde_json::from_str(&env.read(".mcp.json")).unwrap();
    let mut without = doc.clone();
    without["mcpServers"]
        .as_object_mut()
        .unwrap()
        .remove("duo-read");
    env.write(
        ".mcp.json",
        &serde_json::to_string_pretty(&without).unwrap(),
    );
    // duo-read stays declared (its claim stays, missing); duo-write goes: nothing is left.
    ok(&env, &reg, &["uninstall", "duo-write"]);
    assert!(!env.project.join(".mcp.json").exists());
    ok(&env, &reg, &["install"]);
    assert_eq!(servers(env.project.join(".mcp.json")), ["duo-read"]);
}

#[test]
fn sharing_a_user_scope_entry_edited_by_hand_keeps_the_edit() {
    let (env, reg) = project("[\"claude-code\"]");
    ok(&env, &reg, &["add", "alpha", "--scope", "user"]);
    let path = user_file(&env, ".claude.json");
    let edited = std::fs::read_to_string(&path)
        .unwrap()
        .replace("alpha-mcp@1.0.0", "alpha-mcp@hand");
    std::fs::write(&path, &edited).unwrap();
    let other = env.home.path().join("other");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::write(
        other.join("dotpack.toml"),
        "[project]\nhosts = [\"claude-code\"]\n\n[dependencies]\n",
    )
    .unwrap();
    let out = env
        .dotpack_in(&other)
        .env("DOTPACK_REGISTRY", &reg)
        .args(["add", "alpha", "--scope", "user"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("edited by hand"), "{stderr}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), edited);
    let claims = std::fs::read_to_string(env.home.path().join(".dotpack/claims.toml")).unwrap();
    assert!(claims.contains("/other\""), "{claims}");
}
