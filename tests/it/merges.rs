//! Two branches that each add a package conflict in dotpack.toml, dotpack.lock and every host
//! file: every command says a merge is unfinished and names `dotpack merge`, which settles all
//! of it in one transaction (rolled back as one) or names what only the user can settle.

use assert_cmd::assert::Assert;
use predicates::prelude::*;
use predicates::str::contains;

use crate::support::{Env, snapshot};

fn dp(env: &Env, args: &[&str]) -> Assert {
    env.dotpack().args(args).assert()
}

const MARKERS: [&str; 3] = ["<<<<<<<", "=======", ">>>>>>>"];

fn has_markers(text: &str) -> bool {
    text.lines()
        .any(|l| MARKERS.iter().any(|m| l.starts_with(m)))
}

/// A project on `main` with claude-code and cursor declared and `fetch` installed, then
/// `time` added on branch `other` and `memory` on `main`, merged: git leaves markers in
/// dotpack.toml, dotpack.lock and both host files.
fn conflicted(env: &Env, mine: Option<(&str, &str)>) {
    env.write(
        "dotpack.toml",
        "[project]\nhosts = [\"claude-code\", \"cursor\"]\n\n[dependencies]\nfetch = \"^1.0\"\n",
    );
    env.write(".gitignore", ".dotpack/\n");
    dp(env, &["install"]).success();
    env.git_ok(&["init", "-q"]);
    env.git_ok(&["add", "-A"]);
    env.git_ok(&["commit", "-qm", "base"]);
    env.git_ok(&["checkout", "-qb", "other"]);
    dp(env, &["add", "time"]).success();
    if let Some((_, theirs)) = mine {
        edit_own_entry(env, theirs);
    }
    env.git_ok(&["commit", "-qam", "time"]);
    env.git_ok(&["checkout", "-q", "main"]);
    dp(env, &["add", "memory"]).success();
    if let Some((ours, _)) = mine {
        edit_own_entry(env, ours);
    }
    env.git_ok(&["commit", "-qam", "memory"]);
    let merge = env.git(&["merge", "--no-edit", "other"]);
    assert!(!merge.status.success(), "the merge conflicts");
    for file in [
        "dotpack.toml",
        "dotpack.lock",
        ".mcp.json",
        ".cursor/mcp.json",
    ] {
        assert!(has_markers(&env.read(file)), "{file}:\n{}", env.read(file));
    }
}

/// Sets the `mine` entry of .mcp.json, one dotpack did not write, to run `command`.
fn edit_own_entry(env: &Env, command: &str) {
    let mut file: serde_json::Value = serde_json::from_str(&env.read(".mcp.json")).unwrap();
    file["mcpServers"]["mine"] = serde_json::json!({ "command": command });
    env.write(
        ".mcp.json",
        &(serde_json::to_string_pretty(&file).unwrap() + "\n"),
    );
}

#[test]
fn every_command_names_an_unfinished_merge_and_merge_settles_it_in_one_transaction() {
    let env = Env::new();
    conflicted(&env, None);
    let before = snapshot(&env.project);

    // Whatever reads the project says it is a merge, and what to run.
    for args in [
        &["status"][..],
        &["install"],
        &["install", "--force"],
        &["add", "github"],
    ] {
        dp(&env, args).failure().stderr(
            contains("dotpack.toml has git merge conflict markers: a merge is not finished")
                .and(contains("run `dotpack merge`"))
                .and(contains("key with no value").not()),
        );
    }
    dp(&env, &["doctor"]).stderr(contains(
        "a git merge is not finished: dotpack.toml, dotpack.lock, .mcp.json, .cursor/mcp.json have conflict markers",
    ));
    dp(&env, &["merge", "--dry-run"]).success();
    assert_eq!(snapshot(&env.project), before, "--dry-run writes nothing");

    let out = dp(&env, &["merge"]).success();
    let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    for said in [
        "Merged dotpack.toml: united both sides of 1 conflict; from the merged branch: dependencies.time",
        "Merged dotpack.lock",
        "Settled .mcp.json: its conflicts were only dotpack's entries",
        "Settled .cursor/mcp.json",
    ] {
        assert!(err.contains(said), "{said}\n{err}");
    }
    for file in [
        "dotpack.toml",
        "dotpack.lock",
        ".mcp.json",
        ".cursor/mcp.json",
    ] {
        assert!(!has_markers(&env.read(file)), "{file}:\n{}", env.read(file));
    }
    assert_eq!(
        env.read("dotpack.toml"),
        "[project]\nhosts = [\"claude-code\", \"cursor\"]\n\n[dependencies]\nfetch = \"^1.0\"\nmemory = \"^1.0\"\ntime = \"^1.0\"\n"
    );
    dp(&env, &["status"]).success();
    dp(&env, &["install", "--locked"])
        .success()
        .stderr(contains("nothing to change"));

    // The host files are what a teammate's `install --locked` of the merged files writes.
    let teammate = Env::new();
    for file in ["dotpack.toml", "dotpack.lock"] {
        teammate.write(file, &env.read(file));
    }
    teammate
        .dotpack()
        .args(["install", "--locked"])
        .assert()
        .success();
    for file in [".mcp.json", ".cursor/mcp.json"] {
        assert_eq!(env.read(file), teammate.read(file), "{file}");
    }

    // One transaction: rolling it back puts the conflicted files back, except the lock, which
    // is dotpack's alone and goes back to what dotpack last wrote into it.
    let ours_lock = env.git_ok(&["show", "HEAD:dotpack.lock"]);
    dp(&env, &["rollback"]).success();
    assert_eq!(env.read("dotpack.lock"), ours_lock);
    for file in ["dotpack.toml", ".mcp.json", ".cursor/mcp.json"] {
        let now = env.read(file);
        let was = before
            .iter()
            .find(|(p, _)| p.ends_with(file))
            .map(|(_, bytes)| String::from_utf8_lossy(bytes).into_owned())
            .unwrap();
        assert_eq!(now, was, "{file}");
    }
    dp(&env, &["merge"]).success();
    dp(&env, &["merge"])
        .success()
        .stderr(contains("Nothing to merge"));
}

#[test]
fn a_conflict_in_an_entry_dotpack_did_not_write_is_left_to_the_user() {
    let env = Env::new();
    conflicted(&env, Some(("my-server --ours", "my-server --theirs")));
    let before = snapshot(&env.project);
    dp(&env, &["merge"]).failure().stderr(
        contains(".mcp.json: its conflict changes entry `mine`, which dotpack did not write")
            .and(contains("then run `dotpack merge` again")),
    );
    assert_eq!(snapshot(&env.project), before, "nothing changes");
    // Status names the host file's conflict too, once the manifest is settled by hand.
    env.write(
        "dotpack.toml",
        "[project]\nhosts = [\"claude-code\", \"cursor\"]\n\n[dependencies]\nfetch = \"^1.0\"\nmemory = \"^1.0\"\ntime = \"^1.0\"\n",
    );
    dp(&env, &["install", "--force"]).failure().stderr(
        contains(".mcp.json has git merge conflict markers: a merge is not finished")
            .and(contains("run `dotpack merge`")),
    );

    // The user settles their own entry and leaves dotpack's hunks as they are.
    let text = env.read(".mcp.json");
    let kept = text.replace("my-server --theirs", "my-server --ours");
    env.write(".mcp.json", &kept);
    dp(&env, &["merge"]).success();
    let file: serde_json::Value = serde_json::from_str(&env.read(".mcp.json")).unwrap();
    assert_eq!(file["mcpServers"]["mine"]["command"], "my-server --ours");
    for name in ["fetch", "memory", "time"] {
        assert!(file["mcpServers"].get(name).is_some(), "{name}: {file}");
    }
    dp(&env, &["status"]).success();
}

#[test]
fn a_key_both_sides_set_differently_is_named_with_both_values() {
    let env = Env::new();
    let text = "[project]\n<<<<<<< HEAD\nhosts = [\"claude-code\"]\n=======\nhosts = [\"cursor\"]\n>>>>>>> other\n\n[dependencies]\n<<<<<<< HEAD\ntime = \"^1.0\"\n=======\ntime = \"^1.1\"\nfetch = \"^1.0\"\n>>>>>>> other\n";
    env.write("dotpack.toml", text);
    dp(&env, &["merge"]).failure().stderr(
        contains("both sides of the merge set keys differently")
            .and(contains(
                "`project.hosts`: [\"claude-code\"] here, [\"cursor\"] on the merged branch",
            ))
            .and(contains(
                "`dependencies.time`: \"^1.0\" here, \"^1.1\" on the merged branch",
            ))
            .and(contains("keep the lines you want between the markers")),
    );
    assert_eq!(env.read("dotpack.toml"), text, "nothing changes");
    dp(&env, &["validate"])
        .failure()
        .stderr(contains("merge conflict markers").and(contains("dotpack.toml:2")));
}
