//! State folders are data, never instructions from outside: a `.dotpack/` that came with a
//! clone is never acted on, records are checked against the paths dotpack could have written,
//! recovery completes or changes nothing and leaves no phantom generation, and `dotpack doctor
//! --repair` is the way out.

use std::path::{Path, PathBuf};

use predicates::prelude::*;
use predicates::str::contains;

use crate::support::{Env, snapshot};
use crate::txn::{dp, files, project, registry};

fn sha(bytes: &[u8]) -> String {
    dotpack::registry::archive::sha256_hex(bytes)
}

/// A folder beside the project (inside the temporary HOME) that nothing may touch.
fn outside(env: &Env) -> PathBuf {
    let dir = env.home.path().join("outside");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Puts `bytes` in the project's `.dotpack/objects/` as a snapshot; returns its hash.
fn plant_object(state: &Path, bytes: &[u8]) -> String {
    let hash = sha(bytes);
    std::fs::create_dir_all(state.join("objects")).unwrap();
    std::fs::write(state.join("objects").join(&hash), bytes).unwrap();
    hash
}

fn record(
    path: &Path,
    display: &str,
    before: Option<&str>,
    after: Option<&str>,
) -> serde_json::Value {
    serde_json::json!({"path": path, "display": display, "before": before, "after": after})
}

/// A project whose `.dotpack/` came with the clone: a journal that would create, overwrite and
/// delete files outside the project, and the snapshot it needs.
fn cloned_journal(env: &Env) -> PathBuf {
    let out = outside(env);
    let state = env.project.join(".dotpack");
    let payload = plant_object(&state, b"attacker bytes\n");
    std::fs::write(out.join("overwrite"), "precious\n").unwrap();
    std::fs::write(out.join("delete"), "precious too\n").unwrap();
    std::fs::write(out.join(".dotpack-tmp-unrelated"), "keep me\n").unwrap();
    let journal = serde_json::json!({"id": 1, "command": ["x"], "files": [
        record(&out.join("create"), "x", Some(&payload), None),
        record(&out.join("overwrite"), "x", Some(&payload), Some(&sha(b"precious\n"))),
        record(&out.join("delete"), "x", None, Some(&sha(b"precious too\n"))),
    ]});
    std::fs::write(state.join("journal.json"), journal.to_string()).unwrap();
    out
}

#[test]
fn a_cloned_journal_changes_nothing_outside_whatever_the_command() {
    let env = Env::new();
    let reg = registry(&env);
    project(&env, "[\"claude-code\"]", "");
    let out = cloned_journal(&env);
    let before = snapshot(&out);
    let reading: &[&[&str]] = &[
        &["list"],
        &["status"],
        &["validate"],
        &["history"],
        &["info", "p0"],
        &["search", "p0"],
        &["add", "p0", "--dry-run"],
        &["rollback", "--dry-run"],
    ];
    for args in reading {
        let out_cmd = dp(&env, &reg, args);
        let output = out_cmd.get_output();
        assert_ne!(output.status.code(), Some(101), "{args:?} panicked");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.contains("ignoring the state folder") && stderr.contains(".dotpack"),
            "{args:?}: {stderr}"
        );
        assert_eq!(snapshot(&out), before, "{args:?} changed a file outside");
        assert!(!out.join("create").exists(), "{args:?}");
    }
    // A writing command refuses, names the folder, why, and the way out.
    dp(&env, &reg, &["add", "p0"]).code(1).stderr(
        contains("refusing to use the state folder")
            .and(contains(".dotpack"))
            .and(contains("did not make it"))
            .and(contains("dotpack doctor --repair")),
    );
    assert_eq!(snapshot(&out), before);
    assert!(env.project.join(".dotpack/journal.json").exists());
    assert!(!env.project.join("dotpack.lock").exists());
}

#[test]
fn a_cloned_generation_is_never_shown_or_rolled_back() {
    let env = Env::new();
    let reg = registry(&env);
    project(&env, "[\"claude-code\"]", "");
    let out = outside(&env);
    let keys = out.join("authorized_keys");
    std::fs::write(&keys, "ssh-ed25519 mine\n").unwrap();
    let state = env.project.join(".dotpack");
    let theirs = plant_object(&state, b"ssh-ed25519 attacker\n");
    let generation = serde_json::json!({"id": 1, "time": "2026-01-01T00:00:00Z", "command": ["dotpack", "add", "x"],
        "files": [record(&keys, ".mcp.json", None, Some(&theirs))], "packages": []});
    std::fs::create_dir_all(state.join("generations")).unwrap();
    std::fs::write(
        state.join("generations/000001.json"),
        generation.to_string(),
    )
    .unwrap();
    let before = snapshot(&out);
    dp(&env, &reg, &["rollback", "0", "--dry-run"])
        .stderr(contains("ignoring the state folder"))
        .stdout(
            contains("a/.mcp.json")
                .not()
                .and(contains("attacker").not()),
        );
    dp(&env, &reg, &["history"])
        .success()
        .stdout(contains("add x").not());
    dp(&env, &reg, &["rollback", "0"])
        .code(1)
        .stderr(contains("refusing to use the state folder"));
    dp(&env, &reg, &["gc"])
        .code(1)
        .stderr(contains("refusing to use the state folder"));
    assert_eq!(snapshot(&out), before);
}

/// A genuine project with two generations (p0, then p1).
fn genuine(env: &Env) -> PathBuf {
    let reg = registry(env);
    project(env, "[\"claude-code\"]", "");
    dp(env, &reg, &["add", "p0"]).success();
    dp(env, &reg, &["add", "p1"]).success();
    reg
}

fn edit_generation(env: &Env, id: u64, edit: impl FnOnce(&mut serde_json::Value)) {
    let path = env
        .project
        .join(format!(".dotpack/generations/{id:06}.json"));
    let mut g: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    edit(&mut g);
    std::fs::write(&path, g.to_string()).unwrap();
}

#[test]
fn a_record_naming_a_path_outside_makes_rollback_refuse_before_anything_changes() {
    let env = Env::new();
    let reg = genuine(&env);
    let out = outside(&env);
    let keys = out.join("authorized_keys");
    std::fs::write(&keys, "ssh-ed25519 mine\n").unwrap();
    let theirs = plant_object(&env.project.join(".dotpack"), b"ssh-ed25519 attacker\n");
    let mine = sha(b"ssh-ed25519 mine\n");
    for path in [keys.clone(), env.project.join("../outside/authorized_keys")] {
        edit_generation(&env, 1, |g| {
            let files = g["files"].as_array_mut().unwrap();
            files.push(record(&path, ".mcp.json", Some(&theirs), Some(&mine)));
        });
        let before = snapshot(env.home.path());
        for args in [
            &["rollback", "--dry-run"][..],
            &["rollback"],
            &["rollback", "0"],
        ] {
            dp(&env, &reg, args).code(1).stderr(
                contains("000001.json")
                    .and(contains("outside"))
                    .and(contains("authorized_keys"))
                    .and(contains("nothing was changed")),
            );
        }
        dp(&env, &reg, &["doctor"])
            .code(1)
            .stderr(contains("000001.json").and(contains("rollback refuses")));
        assert!(snapshot(env.home.path()) == before, "{}", path.display());
        edit_generation(&env, 1, |g| {
            g["files"].as_array_mut().unwrap().pop();
        });
    }
    dp(&env, &reg, &["rollback"]).success();
}

#[test]
fn diff_labels_and_messages_name_the_real_path_not_the_record_s_display() {
    let env = Env::new();
    let reg = genuine(&env);
    edit_generation(&env, 2, |g| {
        for f in g["files"].as_array_mut().unwrap() {
            f["display"] = "evil/label".into();
        }
    });
    dp(&env, &reg, &["rollback", "--dry-run"])
        .success()
        .stdout(contains("a/.mcp.json").and(contains("a/dotpack.lock")))
        .stdout(contains("evil").not());
}

#[test]
fn gc_never_follows_a_symlinked_objects_folder() {
    let env = Env::new();
    let reg = genuine(&env);
    let precious = env.home.path().join("precious");
    std::fs::create_dir_all(&precious).unwrap();
    let name = sha(b"not a snapshot of dotpack's");
    std::fs::write(precious.join(&name), "not a snapshot of dotpack's").unwrap();
    std::fs::write(precious.join("notes.txt"), "mine").unwrap();
    let objects = env.project.join(".dotpack/objects");
    std::fs::rename(&objects, env.home.path().join("objects-real")).unwrap();
    std::os::unix::fs::symlink(&precious, &objects).unwrap();
    let before = snapshot(&precious);
    dp(&env, &reg, &["gc"])
        .code(1)
        .stderr(contains("refusing").and(contains("`objects` is a symbolic link")));
    assert_eq!(snapshot(&precious), before);
    std::fs::remove_file(&objects).unwrap();
    std::fs::rename(env.home.path().join("objects-real"), &objects).unwrap();
    dp(&env, &reg, &["gc"]).success();

    // The same in $DOTPACK_HOME (user scope): refused, and doctor --repair moves the link aside.
    let home_objects = env.home.path().join(".dotpack/objects");
    std::fs::create_dir_all(home_objects.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(&precious, &home_objects).unwrap();
    dp(&env, &reg, &["gc", "--scope", "user"])
        .code(1)
        .stderr(contains("refusing").and(contains("objects")));
    assert_eq!(snapshot(&precious), before);
    dp(&env, &reg, &["doctor", "--repair"]).success();
    assert!(!home_objects.exists());
    dp(&env, &reg, &["gc", "--scope", "user"]).success();
    assert_eq!(snapshot(&precious), before);
}

#[test]
fn recovery_deletes_the_generation_an_interrupted_command_wrote() {
    let env = Env::new();
    let reg = registry(&env);
    project(&env, "[\"claude-code\"]", "");
    dp(&env, &reg, &["add", "p0"]).success();
    let after_p0 = files(&env);
    let out = env
        .with_registry(&reg, &["add", "p1"])
        .env("DOTPACK_FAULT", "abort-after-record")
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(
        env.project
            .join(".dotpack/generations/000002.json")
            .exists()
    );
    assert!(env.project.join(".dotpack/journal.json").exists());
    dp(&env, &reg, &["history"])
        .success()
        .stderr(contains("Recovered"))
        .stdout(contains("add p1").not());
    assert_eq!(files(&env), after_p0);
    assert!(
        !env.project
            .join(".dotpack/generations/000002.json")
            .exists()
    );
    dp(&env, &reg, &["add", "p2"])
        .success()
        .stderr(contains("Finished generation 2"));
    // Undoing `add p2` gives the files after `add p0`: the aborted `add p1` never comes back.
    dp(&env, &reg, &["rollback"]).success();
    assert_eq!(files(&env), after_p0);
    let text = env.read(".mcp.json");
    assert!(
        text.contains("p0-mcp") && !text.contains("p1-mcp"),
        "{text}"
    );
}

#[test]
fn a_missing_snapshot_stops_recovery_before_anything_changes_and_doctor_moves_the_journal_aside() {
    let env = Env::new();
    let reg = registry(&env);
    project(&env, "[\"claude-code\", \"codex\"]", "");
    dp(&env, &reg, &["add", "p0"]).success();
    let out = env
        .with_registry(&reg, &["add", "p1"])
        .env("DOTPACK_FAULT", "abort-after:2")
        .output()
        .unwrap();
    assert!(!out.status.success());
    // The snapshot of the first replaced file's before-bytes goes missing.
    let state = env.project.join(".dotpack");
    let journal: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(state.join("journal.json")).unwrap())
            .unwrap();
    let first = &journal["files"][0];
    let before_hash = first["before"].as_str().unwrap();
    std::fs::remove_file(state.join("objects").join(before_hash)).unwrap();
    let half = snapshot(&env.project);
    for args in [&["status"][..], &["history"], &["add", "p2"]] {
        dp(&env, &reg, args).code(1).stderr(
            contains("journal.json")
                .and(contains("is missing"))
                .and(contains("nothing was changed"))
                .and(contains("dotpack doctor --repair")),
        );
        assert!(
            snapshot(&env.project) == half,
            "{args:?} changed the project"
        );
    }
    dp(&env, &reg, &["doctor"])
        .code(1)
        .stderr(contains("cannot be recovered").and(contains("after")));
    assert!(snapshot(&env.project) == half, "doctor changed the project");
    dp(&env, &reg, &["doctor", "--repair"])
        .success()
        .stderr(contains("moved the journal to"));
    assert!(!state.join("journal.json").exists());
    let aside = std::fs::read_dir(&state).unwrap().flatten().any(|e| {
        e.file_name()
            .to_string_lossy()
            .starts_with("journal.json.unrecovered-")
    });
    assert!(aside);
    dp(&env, &reg, &["history"]).success();
    dp(&env, &reg, &["doctor"]).success();
}

#[test]
fn doctor_repair_moves_a_cloned_state_folder_aside_and_the_next_command_makes_a_fresh_one() {
    let env = Env::new();
    let reg = registry(&env);
    project(&env, "[\"claude-code\"]", "");
    let out = cloned_journal(&env);
    let before = snapshot(&out);
    dp(&env, &reg, &["doctor"])
        .code(1)
        .stderr(contains("did not make it").and(contains("--repair")));
    let json = dp(&env, &reg, &["doctor", "--json"]).code(1);
    let report: serde_json::Value = serde_json::from_slice(&json.get_output().stdout).unwrap();
    assert_eq!(report["folders"][0]["status"], "problem");
    assert_eq!(report["folders"][0]["scope"], "project");
    dp(&env, &reg, &["doctor", "--repair"])
        .success()
        .stderr(contains("Repaired").and(contains(".dotpack.untrusted-")));
    let moved: Vec<PathBuf> = std::fs::read_dir(&env.project)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.to_string_lossy().contains(".dotpack.untrusted-"))
        .collect();
    assert_eq!(moved.len(), 1);
    assert!(moved[0].join("journal.json").exists(), "nothing is deleted");
    assert!(!env.project.join(".dotpack").exists());
    dp(&env, &reg, &["add", "p0"])
        .success()
        .stderr(contains("Finished generation 1"));
    dp(&env, &reg, &["doctor"])
        .success()
        .stderr(contains("made by dotpack on this machine; 1 generation"));
    assert_eq!(snapshot(&out), before);
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

#[test]
fn a_genuine_state_folder_is_recorded_and_a_copy_of_the_project_does_not_trust_it() {
    let env = Env::new();
    let reg = genuine(&env);
    let registry_file = env.home.path().join(".dotpack/state-folders.json");
    let recorded = std::fs::read_to_string(&registry_file).unwrap();
    let canonical = std::fs::canonicalize(env.project.join(".dotpack")).unwrap();
    assert!(
        recorded.contains(&*canonical.to_string_lossy()),
        "{recorded}"
    );
    let copy = env.home.path().join("copy");
    copy_dir(&env.project, &copy);
    env.dotpack_in(&copy)
        .arg("--registry")
        .arg(&reg)
        .arg("status")
        .assert()
        .stderr(contains("ignoring the state folder").and(contains("moved or copied here")));
    env.dotpack_in(&copy)
        .arg("--registry")
        .arg(&reg)
        .arg("history")
        .assert()
        .success()
        .stdout(contains("add p0").not());
    env.dotpack_in(&copy)
        .arg("--registry")
        .arg(&reg)
        .args(["add", "p2"])
        .assert()
        .code(1)
        .stderr(contains("refusing").and(contains("moved or copied here")));
    // The original keeps working.
    dp(&env, &reg, &["add", "p2"])
        .success()
        .stderr(contains("Finished generation 3"));
    dp(&env, &reg, &["history"])
        .success()
        .stdout(contains("add p0"));
}

#[test]
fn a_symlinked_or_foreign_state_folder_is_refused() {
    let env = Env::new();
    let reg = genuine(&env);
    let other = env.home.path().join("other");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::write(
        other.join("dotpack.toml"),
        "[project]\nhosts = [\"claude-code\"]\n[dependencies]\n",
    )
    .unwrap();
    std::os::unix::fs::symlink(env.project.join(".dotpack"), other.join(".dotpack")).unwrap();
    env.dotpack_in(&other)
        .arg("--registry")
        .arg(&reg)
        .args(["add", "p2"])
        .assert()
        .code(1)
        .stderr(contains("refusing").and(contains("symbolic link")));
    // Only root can give a folder away; as anyone else, this part has nothing to run.
    if is_root() {
        let state = env.project.join(".dotpack");
        std::os::unix::fs::chown(&state, Some(65534), Some(65534)).unwrap();
        dp(&env, &reg, &["add", "p2"])
            .code(1)
            .stderr(contains("belongs to user id 65534"));
        dp(&env, &reg, &["status"]).stderr(contains("ignoring the state folder"));
    }
}

#[test]
fn a_dangling_symlink_at_a_host_path_is_an_error_naming_it() {
    let env = Env::new();
    let reg = registry(&env);
    project(&env, "[\"claude-code\"]", "");
    let link = env.project.join(".mcp.json");
    std::os::unix::fs::symlink(env.project.join("gone/mcp.json"), &link).unwrap();
    dp(&env, &reg, &["add", "p0"])
        .code(1)
        .stderr(contains(".mcp.json").and(contains("does not exist")));
    assert!(link.symlink_metadata().unwrap().file_type().is_symlink());
    assert!(!env.project.join("gone").exists());
    assert!(!env.project.join("dotpack.lock").exists());
}

/// As root, run dotpack as another user (65534) over a project that user owns, holding a
/// root-owned 0644 `.mcp.json`: its mode bits say "owner may write", but this user may not,
/// and replacing it by a rename would give root's file away. Not root: a read-only folder.
#[test]
fn a_file_this_user_cannot_write_is_refused_even_when_its_mode_bits_allow() {
    use std::os::unix::fs::PermissionsExt;
    let env = Env::new();
    let reg = registry(&env);
    project(&env, "[\"claude-code\"]", "");
    let mcp = env.write(".mcp.json", "{\n  \"mcpServers\": {}\n}\n");
    let root = is_root();
    if root {
        chown_tree(env.home.path(), 65534);
        std::os::unix::fs::chown(&mcp, Some(0), Some(0)).unwrap();
        std::fs::set_permissions(&mcp, std::fs::Permissions::from_mode(0o644)).unwrap();
        std::fs::set_permissions(env.home.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    } else {
        std::fs::set_permissions(&env.project, std::fs::Permissions::from_mode(0o555)).unwrap();
    }
    let before = snapshot(env.home.path());
    let mut cmd = env.process_in(&env.project);
    if root {
        use std::os::unix::process::CommandExt;
        cmd.uid(65534).gid(65534);
    }
    let out = cmd
        .arg("--registry")
        .arg(&reg)
        .args(["add", "p0"])
        .output()
        .unwrap();
    std::fs::set_permissions(&env.project, std::fs::Permissions::from_mode(0o755)).unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("read-only for you"), "{stderr}");
    assert!(snapshot(env.home.path()) == before, "a file changed");
}

fn is_root() -> bool {
    use std::os::unix::fs::MetadataExt;
    // A file this process just made belongs to its effective user.
    let probe = tempfile::NamedTempFile::new().unwrap();
    probe.as_file().metadata().unwrap().uid() == 0
}

fn chown_tree(dir: &Path, uid: u32) {
    std::os::unix::fs::lchown(dir, Some(uid), Some(uid)).unwrap();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        if entry.file_type().unwrap().is_dir() {
            chown_tree(&entry.path(), uid);
        } else {
            std::os::unix::fs::lchown(entry.path(), Some(uid), Some(uid)).unwrap();
        }
    }
}
