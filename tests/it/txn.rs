//! Transactions and generations: every writing command changes all its files or none, a dead
//! dotpack is recovered at the next start, concurrent dotpacks serialise, another program's
//! edit is never overwritten, and rollback restores a generation byte for byte.

use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::process::Stdio;

use predicates::prelude::*;
use predicates::str::contains;

use crate::support::{Env, build_registry, package, snapshot};

pub const FIVE_HOSTS: &str = "[\"claude-code\", \"codex\", \"gemini-cli\", \"cursor\", \"vscode\"]";

/// Host files of the five hosts, project scope.
pub const HOST_FILES: &[&str] = &[
    ".mcp.json",
    ".codex/config.toml",
    ".gemini/settings.json",
    ".cursor/mcp.json",
    ".vscode/mcp.json",
];

/// A registry with packages `p0`..`p7`, one stdio server each.
pub fn registry(env: &Env) -> PathBuf {
    let texts: Vec<(String, String)> = (0..8)
        .map(|i| (format!("p{i}"), package(&format!("p{i}"), "1.0.0", &[])))
        .collect();
    let pairs: Vec<(&str, &str)> = texts
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    build_registry(env, &pairs)
}

pub fn project(env: &Env, hosts: &str, extra: &str) {
    env.write(
        "dotpack.toml",
        &format!("[project]\nhosts = {hosts}\n{extra}\n[dependencies]\n"),
    );
}

pub fn dp(env: &Env, reg: &Path, args: &[&str]) -> assert_cmd::assert::Assert {
    env.dotpack()
        .env("DOTPACK_REGISTRY", reg)
        .args(args)
        .assert()
}

/// Every file of HOME (project, host files, `$DOTPACK_HOME`) except dotpack's generation store.
pub fn files(env: &Env) -> Vec<(PathBuf, Vec<u8>)> {
    snapshot(env.home.path())
        .into_iter()
        .filter(|(p, _)| {
            let s = p.to_string_lossy();
            !s.contains("/.dotpack/") && !s.contains("registry")
        })
        .collect()
}

#[test]
fn rollback_restores_the_previous_generation_and_rollback_again_restores_the_next() {
    let env = Env::new();
    let reg = registry(&env);
    project(&env, FIVE_HOSTS, "");
    env.write(
        ".mcp.json",
        "{\n  \"mcpServers\": {},\n  \"keep\": true\n}\n",
    );
    dp(&env, &reg, &["add", "p0"])
        .success()
        .stderr(contains("Finished generation 1"));
    let after_a = files(&env);
    dp(&env, &reg, &["add", "p1"])
        .success()
        .stderr(contains("Finished generation 2"));
    let after_b = files(&env);
    dp(&env, &reg, &["rollback"]).success().stderr(contains(
        "generation 3: the files are as after generation 1",
    ));
    assert_eq!(files(&env), after_a);
    dp(&env, &reg, &["rollback"]).success();
    assert_eq!(files(&env), after_b);
    dp(&env, &reg, &["rollback", "0"]).success();
    let text = env.read(".mcp.json");
    assert_eq!(text, "{\n  \"mcpServers\": {},\n  \"keep\": true\n}\n");
    assert!(!env.project.join("dotpack.lock").exists());
    dp(&env, &reg, &["rollback", "2", "--dry-run"])
        .success()
        .stdout(contains("+    \"p1\""));
    assert!(!env.project.join("dotpack.lock").exists());
}

#[test]
fn history_lists_generations_with_command_and_packages() {
    let env = Env::new();
    let reg = registry(&env);
    project(&env, "[\"claude-code\"]", "");
    dp(&env, &reg, &["add", "p0"]).success();
    dp(&env, &reg, &["remove", "p0"]).success();
    dp(&env, &reg, &["history"]).success().stdout(
        contains("add p0")
            .and(contains("+p0 1.0.0"))
            .and(contains("-p0 1.0.0")),
    );
    let out = dp(&env, &reg, &["history", "--json"]).success();
    let json: serde_json::Value =
        serde_json::from_slice(&out.get_output().stdout).expect("history --json");
    let gens = json["generations"].as_array().expect("generations");
    assert_eq!(gens.len(), 2);
    assert_eq!(gens[0]["id"], 1);
    assert_eq!(gens[0]["packages"][0]["change"], "added");
    let files = gens[0]["files"].as_array().expect("files");
    assert!(
        files
            .iter()
            .all(|f| f["path"].as_str().is_some_and(|p| p.starts_with('/'))),
        "{files:?}"
    );
}

#[test]
fn every_interruption_point_leaves_all_files_before_or_after() {
    let env = Env::new();
    let reg = registry(&env);
    project(&env, FIVE_HOSTS, "");
    env.write(
        ".mcp.json",
        "{\n  \"mcpServers\": {\n    \"mine\": {\"command\": \"x\"}\n  }\n}\n",
    );
    dp(&env, &reg, &["add", "p0"]).success();
    let before = files(&env);
    // 5 host files, dotpack.toml and dotpack.lock: 7 replacements, so 8 interruption points.
    for k in 0..=7 {
        env.with_registry(&reg, &["add", "p1"])
            .env_remove("DOTPACK_FSYNC")
            .env("DOTPACK_FAULT", format!("fail-after:{k}"))
            .assert()
            .code(1)
            .stderr(contains("injected fault").and(contains("nothing was changed")));
        assert_eq!(files(&env), before, "fail-after:{k}");
        assert!(!env.project.join(".dotpack/journal.json").exists());

        let out = env
            .with_registry(&reg, &["add", "p1"])
            .env_remove("DOTPACK_FSYNC")
            .env("DOTPACK_FAULT", format!("abort-after:{k}"))
            .output()
            .expect("run dotpack");
        assert!(!out.status.success(), "abort-after:{k} should kill dotpack");
        assert!(env.project.join(".dotpack/journal.json").exists());
        dp(&env, &reg, &["history"])
            .success()
            .stderr(contains("Recovered"));
        assert_eq!(files(&env), before, "abort-after:{k}");
        assert!(!env.project.join(".dotpack/journal.json").exists());
    }
    dp(&env, &reg, &["add", "p1"])
        .success()
        .stderr(contains("Finished generation 2"));
    for file in HOST_FILES {
        assert!(env.read(file).contains("p1-mcp"), "{file}");
    }
    dp(&env, &reg, &["status", "--json"])
        .success()
        .stdout(contains("\"entries\": []"));
}

#[test]
fn a_read_only_fourth_host_file_changes_nothing_anywhere() {
    use std::os::unix::fs::PermissionsExt;
    let env = Env::new();
    let reg = registry(&env);
    project(&env, FIVE_HOSTS, "");
    dp(&env, &reg, &["add", "p0"]).success();
    let fourth = env.project.join(HOST_FILES[3]);
    std::fs::set_permissions(&fourth, std::fs::Permissions::from_mode(0o444)).unwrap();
    let before = snapshot(env.home.path());
    dp(&env, &reg, &["add", "p1"])
        .code(1)
        .stderr(contains("read-only"));
    assert_eq!(snapshot(env.home.path()), before);
}

#[test]
fn another_programs_edit_between_plan_and_apply_is_kept() {
    let env = Env::new();
    let reg = registry(&env);
    project(&env, "[\"claude-code\"]", "");
    env.write(".mcp.json", "{\n  \"mcpServers\": {}\n}\n");
    // Like Claude Code rewriting its config while dotpack plans.
    let rewrite = "printf '{\\n  \"mcpServers\": {\\n    \"theirs\": {\"command\": \"t\"}\\n  },\\n  \"numStartups\": 7\\n}\\n' > .mcp.json";
    env.with_registry(&reg, &["add", "p0"])
        .env("DOTPACK_TEST_BEFORE_COMMIT", rewrite)
        .assert()
        .success()
        .stderr(contains("Replanning").and(contains("changed by another program")));
    let text = env.read(".mcp.json");
    assert!(
        text.contains("\"theirs\"") && text.contains("numStartups"),
        "{text}"
    );
    assert!(text.contains("p0-mcp"), "{text}");
}

#[test]
fn rollback_merges_a_host_file_edited_since_and_keeps_the_edit() {
    let env = Env::new();
    let reg = registry(&env);
    project(&env, "[\"claude-code\", \"codex\"]", "");
    dp(&env, &reg, &["add", "p0"]).success();
    let lock_after_a = env.read("dotpack.lock");
    let codex_after_a = env.read(".codex/config.toml");
    dp(&env, &reg, &["add", "p1"]).success();
    // Someone adds their own server and a setting by hand.
    let text = env.read(".mcp.json");
    let edited = text.replacen(
        "\"mcpServers\": {",
        "\"theme\": \"dark\",\n  \"mcpServers\": {\n    \"theirs\": {\"command\": \"t\"},",
        1,
    );
    env.write(".mcp.json", &edited);
    dp(&env, &reg, &["rollback"])
        .success()
        .stderr(contains("Merged").and(contains(".mcp.json")));
    let text = env.read(".mcp.json");
    assert!(
        text.contains("\"theirs\"") && text.contains("\"theme\""),
        "{text}"
    );
    assert!(
        text.contains("p0-mcp") && !text.contains("p1-mcp"),
        "{text}"
    );
    assert_eq!(env.read("dotpack.lock"), lock_after_a);
    assert_eq!(env.read(".codex/config.toml"), codex_after_a);
    dp(&env, &reg, &["status", "--json"])
        .success()
        .stdout(contains("\"entries\": []"));
    dp(&env, &reg, &["history", "--json"])
        .success()
        .stdout(contains("\"merged\""));
}

#[test]
fn generations_are_pruned_and_snapshots_do_not_grow_for_unchanged_files() {
    let env = Env::new();
    let reg = registry(&env);
    project(&env, FIVE_HOSTS, "\n[settings]\nkeep_generations = 4\n");
    let objects = env.project.join(".dotpack/objects");
    let count = || std::fs::read_dir(&objects).unwrap().count();
    dp(&env, &reg, &["add", "p0"]).success();
    dp(&env, &reg, &["remove", "p0"]).success();
    let after_one_cycle = count();
    for _ in 0..4 {
        dp(&env, &reg, &["add", "p0"]).success();
        dp(&env, &reg, &["remove", "p0"]).success();
    }
    assert_eq!(count(), after_one_cycle);
    let gens = std::fs::read_dir(env.project.join(".dotpack/generations"))
        .unwrap()
        .count();
    assert_eq!(gens, 4);
    dp(&env, &reg, &["rollback", "2"])
        .code(1)
        .stderr(contains("was pruned"));
    // A package seen once and gone from every kept generation: gc drops its snapshots.
    dp(&env, &reg, &["add", "p5"]).success();
    for _ in 0..2 {
        dp(&env, &reg, &["add", "p0"]).success();
        dp(&env, &reg, &["remove", "p0"]).success();
    }
    dp(&env, &reg, &["remove", "p5"]).success();
    dp(&env, &reg, &["gc"])
        .success()
        .stderr(contains("unused snapshot"));
    dp(&env, &reg, &["history"]).success();
    dp(&env, &reg, &["rollback"]).success();
}

#[test]
fn a_second_dotpack_waits_for_the_lock_and_no_wait_fails_at_once() {
    let env = Env::new();
    let reg = registry(&env);
    project(&env, "[\"claude-code\"]", "");
    let state = env.project.join(".dotpack");
    std::fs::create_dir_all(&state).unwrap();
    let lock = std::fs::File::create(state.join("lock")).unwrap();
    lock.lock().unwrap();
    dp(&env, &reg, &["--no-wait", "add", "p0"])
        .code(1)
        .stderr(contains("another dotpack"));
    assert!(!env.project.join("dotpack.lock").exists());
    // Release the lock only once the second dotpack says it is waiting for it.
    let mut child = env
        .process_in(&env.project)
        .env("DOTPACK_REGISTRY", &reg)
        .args(["add", "p0"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn dotpack");
    let stderr = child.stderr.take().unwrap();
    let mut lines = std::io::BufReader::new(stderr).lines();
    let mut seen = Vec::new();
    for line in lines.by_ref() {
        let line = line.unwrap();
        let blocking = line.contains("Blocking");
        seen.push(line);
        if blocking {
            break;
        }
    }
    assert!(seen.iter().any(|l| l.contains("Blocking")), "{seen:?}");
    drop(lock);
    let rest: Vec<String> = lines.map(|l| l.unwrap()).collect();
    assert!(child.wait().unwrap().success(), "{seen:?} {rest:?}");
    assert!(env.read("dotpack.lock").contains("name = \"p0\""));
}

#[test]
fn eight_concurrent_adds_into_the_same_host_files_all_land() {
    let env = Env::new();
    let reg = registry(&env);
    project(&env, FIVE_HOSTS, "");
    let children: Vec<_> = (0..8)
        .map(|i| {
            env.process_in(&env.project)
                .env("DOTPACK_REGISTRY", &reg)
                .args(["add", &format!("p{i}")])
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .expect("spawn dotpack")
        })
        .collect();
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    for file in HOST_FILES {
        let text = env.read(file);
        let servers = if file.ends_with(".toml") {
            let doc: toml::Table = toml::from_str(&text).expect("codex parses");
            doc["mcp_servers"].as_table().unwrap().len()
        } else {
            let doc: serde_json::Value = serde_json::from_str(&text).expect("json parses");
            let key = if *file == ".vscode/mcp.json" {
                "servers"
            } else {
                "mcpServers"
            };
            doc[key].as_object().unwrap().len()
        };
        assert_eq!(servers, 8, "{file}: {text}");
    }
    let lock = env.read("dotpack.lock");
    assert_eq!(lock.matches("[[package]]").count(), 8, "{lock}");
    assert_eq!(lock.matches("[[claim]]").count(), 40, "{lock}");
    let manifest = env.read("dotpack.toml");
    assert_eq!(manifest.matches("= \"^1.0\"").count(), 8, "{manifest}");
    dp(&env, &reg, &["status", "--json"])
        .success()
        .stdout(contains("\"entries\": []"));
    dp(&env, &reg, &["history"])
        .success()
        .stdout(contains("   8  "));
}

#[test]
fn init_ignores_the_state_folder_in_git() {
    let env = Env::new();
    env.write(".gitignore", "target/");
    env.dotpack().arg("init").assert().success();
    assert_eq!(env.read(".gitignore"), "target/\n.dotpack/\n");
    let other = Env::new();
    other.dotpack().arg("init").assert().success();
    assert_eq!(other.read(".gitignore"), ".dotpack/\n");
}

#[test]
fn user_scope_changes_are_generations_of_the_project() {
    let env = Env::new();
    let reg = registry(&env);
    project(&env, "[\"claude-code\"]", "scope = \"user\"\n");
    let claude = env.home.path().join(".claude.json");
    std::fs::write(&claude, "{\n  \"numStartups\": 1\n}\n").unwrap();
    env.dotpack().arg("trust").assert().success();
    dp(&env, &reg, &["add", "p0"])
        .success()
        .stderr(contains("Finished generation 1"));
    let home_state = env.home.path().join(".dotpack");
    assert!(
        env.project
            .join(".dotpack/generations/000001.json")
            .exists()
    );
    assert!(!home_state.join("generations").exists());
    dp(&env, &reg, &["history"])
        .success()
        .stdout(contains("add p0"));
    dp(&env, &reg, &["rollback"]).success();
    assert_eq!(
        std::fs::read_to_string(&claude).unwrap(),
        "{\n  \"numStartups\": 1\n}\n"
    );
    assert!(!env.project.join("dotpack.lock").exists());
}

#[test]
fn recovery_removes_temporary_files_a_killed_write_left() {
    let env = Env::new();
    let reg = registry(&env);
    project(&env, "[\"claude-code\"]", "");
    dp(&env, &reg, &["add", "p0"]).success();
    let before = files(&env);
    let out = env
        .with_registry(&reg, &["add", "p1"])
        .env("DOTPACK_FAULT", "abort-after:1")
        .output()
        .unwrap();
    assert!(!out.status.success());
    // As if killed inside the next atomic write.
    env.write(".dotpack-tmp-XYZ123", "{ half");
    dp(&env, &reg, &["list"])
        .success()
        .stderr(contains("Recovered `dotpack add"));
    assert_eq!(files(&env), before);
}

#[test]
fn rollback_and_recovery_write_through_symlinks_and_keep_modes() {
    use std::os::unix::fs::PermissionsExt;
    let env = Env::new();
    let reg = registry(&env);
    project(&env, "[\"claude-code\"]", "");
    let real = env.home.path().join("dotfiles/mcp.json");
    std::fs::create_dir_all(real.parent().unwrap()).unwrap();
    std::fs::write(&real, "{\n  \"mcpServers\": {}\n}\n").unwrap();
    std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o640)).unwrap();
    std::os::unix::fs::symlink(&real, env.project.join(".mcp.json")).unwrap();
    // A project file linked outside the project is written only when asked to.
    dp(&env, &reg, &["add", "p0"])
        .code(1)
        .stderr(contains("outside the project"));
    dp(&env, &reg, &["add", "p0", "--write-outside-project"]).success();
    let out = env
        .with_registry(&reg, &["add", "p1", "--write-outside-project"])
        .env("DOTPACK_FAULT", "abort-after:2")
        .output()
        .unwrap();
    assert!(!out.status.success());
    dp(&env, &reg, &["history"])
        .success()
        .stderr(contains("Recovered"));
    dp(&env, &reg, &["rollback"]).success();
    let link = env.project.join(".mcp.json");
    assert!(link.symlink_metadata().unwrap().file_type().is_symlink());
    assert_eq!(
        std::fs::read_to_string(&real).unwrap(),
        "{\n  \"mcpServers\": {}\n}\n"
    );
    let mode = std::fs::metadata(&real).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o640);
}

#[test]
fn a_host_file_rewritten_mid_transaction_undoes_and_replans() {
    let env = Env::new();
    let reg = registry(&env);
    // Host files are replaced in target order: codex first, then .mcp.json.
    project(&env, "[\"codex\", \"claude-code\"]", "");
    env.write(".mcp.json", "{\n  \"mcpServers\": {}\n}\n");
    dp(&env, &reg, &["add", "p0"]).success();
    // Rewrite .mcp.json after the first file was replaced.
    let rewrite = "printf '{\\n  \"mcpServers\": {\\n    \"theirs\": {\"command\": \"t\"}\\n  },\\n  \"numStartups\": 9\\n}\\n' > .mcp.json";
    env.with_registry(&reg, &["add", "p1"])
        .env("DOTPACK_FAULT", "shell-after:1")
        .env("DOTPACK_FAULT_SHELL", rewrite)
        .assert()
        .success()
        .stderr(contains("Replanning").and(contains("restored it")));
    let text = env.read(".mcp.json");
    assert!(
        text.contains("numStartups") && text.contains("\"theirs\""),
        "{text}"
    );
    // p0, dropped by the rewrite but still claimed, is written again with p1.
    assert!(text.contains("p0-mcp") && text.contains("p1-mcp"), "{text}");
    assert!(env.read(".codex/config.toml").contains("p1-mcp"));
    dp(&env, &reg, &["history"])
        .success()
        .stdout(contains("   2  "));
}
