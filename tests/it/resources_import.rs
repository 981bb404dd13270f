//! `dotpack import HOST --into` brings the host's own project resource files (commands, agents,
//! skills, rules) into the project: copied under `resources/`, declared in dotpack.toml, and the
//! host's files claimed as they are, so `status` is clean and `install` changes nothing there
//! while the project's other hosts get the resources in their own layouts.

use predicates::prelude::*;
use predicates::str::contains;

use crate::support::{Env, assert_success, snapshot};

const REVIEW: &str = "---\ndescription: Review code\n---\nReview $ARGUMENTS carefully.\n";
const SKILL: &str = "---\nname: pr\ndescription: Open a pull request\n---\nPush, then open it.\n";
/// A Gemini command in the form dotpack writes one.
const GEMINI_X: &str = "description = \"Run x\"\nprompt = '''\nRun x on {{args}}.\n'''\n";

/// A project for Claude Code (and `hosts`), holding hand-written host resource files.
fn project(hosts: &str) -> Env {
    let env = Env::new();
    env.write(
        "dotpack.toml",
        &format!("[project]\nhosts = {hosts}\nscope = \"project\"\n"),
    );
    env.write(".mcp.json", "{\"mcpServers\": {}}\n");
    env.write(".claude/commands/review.md", REVIEW);
    env.write(".claude/skills/pr/SKILL.md", SKILL);
    env.write(".claude/skills/pr/notes/steps.txt", "one\ntwo\n");
    env.write(".gemini/commands/x.toml", GEMINI_X);
    env
}

fn run(env: &Env, args: &[&str]) -> std::process::Output {
    env.dotpack().args(args).output().expect("run dotpack")
}

#[test]
fn claude_resources_become_the_projects_and_their_files_are_claimed_as_they_are() {
    let env = project(r#"["claude-code"]"#);
    let out = run(&env, &["import", "claude-code", "--into"]);
    assert_success(&out);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(".claude/commands/review.md is claimed as it is"),
        "{stderr}"
    );
    assert_eq!(env.read("resources/commands/review.md"), REVIEW);
    assert_eq!(env.read("resources/skills/pr/SKILL.md"), SKILL);
    assert_eq!(
        env.read("resources/skills/pr/notes/steps.txt"),
        "one\ntwo\n"
    );
    let manifest = env.read("dotpack.toml");
    assert!(
        manifest.contains("[commands.review]\npath = \"resources/commands/review.md\""),
        "{manifest}"
    );
    assert!(
        manifest.contains("[skills.pr]\npath = \"resources/skills/pr\""),
        "{manifest}"
    );
    // The Gemini command is not Claude Code's: left for `import gemini-cli`.
    assert!(!manifest.contains("[commands.x]"), "{manifest}");
    let lock = env.read("dotpack.lock");
    for file in [
        ".claude/commands/review.md",
        ".claude/skills/pr/SKILL.md",
        ".claude/skills/pr/notes/steps.txt",
    ] {
        assert!(
            lock.contains(&format!("file = \"{file}\"")),
            "{file}: {lock}"
        );
    }
    // The host's files are untouched.
    assert_eq!(env.read(".claude/commands/review.md"), REVIEW);

    env.dotpack().arg("status").assert().success();
    let claude = env.project.join(".claude");
    let before = (snapshot(&claude), env.read("dotpack.lock"));
    env.dotpack().arg("install").assert().success();
    assert_eq!((snapshot(&claude), env.read("dotpack.lock")), before);

    // The project's other hosts get the resources in their own layouts.
    env.write(
        "dotpack.toml",
        &manifest.replace(
            r#"hosts = ["claude-code"]"#,
            r#"hosts = ["claude-code", "gemini-cli", "cursor"]"#,
        ),
    );
    // Cursor commands are plain markdown: `description` is lossy there.
    env.dotpack()
        .args(["install", "--allow-lossy=description"])
        .assert()
        .success();
    assert_eq!(snapshot(&claude), before.0);
    assert_eq!(
        env.read(".gemini/commands/review.toml"),
        "description = \"Review code\"\nprompt = '''\nReview {{args}} carefully.\n'''\n"
    );
    assert_eq!(
        env.read(".cursor/commands/review.md"),
        "Review $ARGUMENTS carefully.\n"
    );
    assert_eq!(env.read(".gemini/skills/pr/SKILL.md"), SKILL);
    assert_eq!(env.read(".cursor/skills/pr/notes/steps.txt"), "one\ntwo\n");
    // The Gemini command nobody imported is still the user's.
    assert_eq!(env.read(".gemini/commands/x.toml"), GEMINI_X);
    env.dotpack().arg("status").assert().success();
}

#[test]
fn a_gemini_command_round_trips_through_markdown() {
    let env = project(r#"["gemini-cli"]"#);
    env.write(".gemini/settings.json", "{\"mcpServers\": {}}\n");
    // A basic multi-line string: read the same, written by dotpack as a literal one.
    env.write(
        ".gemini/commands/y.toml",
        "description = \"Run y\"\nprompt = \"\"\"\nRun y on {{args}}.\n\"\"\"\n",
    );
    let out = run(&env, &["import", "gemini-cli", "--into"]);
    assert_success(&out);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        env.read("resources/commands/x.md"),
        "---\ndescription: \"Run x\"\n---\nRun x on $ARGUMENTS.\n"
    );
    assert_eq!(
        env.read("resources/commands/y.md"),
        "---\ndescription: \"Run y\"\n---\nRun y on $ARGUMENTS.\n"
    );
    // x.toml is exactly what dotpack renders back: claimed. y.toml is not: left unclaimed.
    let lock = env.read("dotpack.lock");
    assert!(
        lock.contains("file = \".gemini/commands/x.toml\""),
        "{lock}"
    );
    assert!(
        !lock.contains("file = \".gemini/commands/y.toml\""),
        "{lock}"
    );
    assert!(
        stderr.contains(".gemini/commands/y.toml is not what dotpack writes"),
        "{stderr}"
    );
    assert_eq!(env.read(".gemini/commands/x.toml"), GEMINI_X);
    // The unclaimed one is a collision that --force resolves, with dotpack's rendering.
    env.dotpack()
        .arg("install")
        .assert()
        .failure()
        .stderr(contains(".gemini/commands/y.toml already exists"));
    env.dotpack()
        .args(["install", "--force"])
        .assert()
        .success();
    assert_eq!(
        env.read(".gemini/commands/y.toml"),
        "description = \"Run y\"\nprompt = '''\nRun y on {{args}}.\n'''\n"
    );
    env.dotpack().arg("status").assert().success();
}

#[cfg(unix)]
#[test]
fn a_symlinked_command_is_refused() {
    let env = project(r#"["claude-code"]"#);
    let outside = env.home.path().join("secret.md");
    std::fs::write(&outside, "secret\n").expect("write outside file");
    std::os::unix::fs::symlink(&outside, env.project.join(".claude/commands/evil.md"))
        .expect("symlink");
    env.dotpack()
        .args(["import", "claude-code", "--into"])
        .assert()
        .success()
        .stderr(contains(
            ".claude/commands/evil.md: not imported: a symbolic link",
        ));
    assert!(!env.project.join("resources/commands/evil.md").exists());
    assert!(!env.read("dotpack.toml").contains("evil"));
    assert!(env.project.join("resources/commands/review.md").exists());
}

#[cfg(unix)]
#[test]
fn a_symlinked_host_folder_is_not_read() {
    let env = Env::new();
    env.write(
        "dotpack.toml",
        "[project]\nhosts = [\"claude-code\"]\nscope = \"project\"\n",
    );
    env.write(".mcp.json", "{\"mcpServers\": {}}\n");
    let outside = env.home.path().join("elsewhere");
    std::fs::create_dir_all(&outside).expect("create outside folder");
    std::fs::write(outside.join("x.md"), "x\n").expect("write outside file");
    std::fs::create_dir_all(env.project.join(".claude")).expect("create .claude");
    std::os::unix::fs::symlink(&outside, env.project.join(".claude/commands")).expect("symlink");
    env.dotpack()
        .args(["import", "claude-code", "--into"])
        .assert()
        .success()
        .stderr(contains(".claude/commands: a symbolic link"))
        .stderr(contains("nothing to import"));
    assert!(!env.project.join("resources").exists());
}

#[test]
fn a_dry_run_shows_the_copies_and_writes_nothing() {
    let env = project(r#"["claude-code"]"#);
    let before = snapshot(&env.project);
    env.dotpack()
        .args(["import", "claude-code", "--into", "--dry-run"])
        .assert()
        .success()
        .stdout(contains("+Review $ARGUMENTS carefully."))
        .stderr(contains("Would create resources/commands/review.md"));
    assert_eq!(snapshot(&env.project), before);
}

#[test]
fn without_into_the_resources_are_listed_and_nothing_is_written() {
    let env = project(r#"["claude-code"]"#);
    let before = snapshot(&env.project);
    env.dotpack()
        .args(["import", "claude-code"])
        .assert()
        .success()
        .stdout(contains(
            "[commands.review]  # from .claude/commands/review.md\npath = \"resources/commands/review.md\"",
        ))
        .stdout(contains("[skills.pr]"))
        .stderr(contains("Found 2 resources"));
    assert_eq!(snapshot(&env.project), before);
}

#[test]
fn an_invalid_skill_and_a_declared_name_are_skipped_with_a_warning() {
    let env = project(r#"["claude-code"]"#);
    env.write(
        ".claude/skills/bad/SKILL.md",
        "---\nname: other\ndescription: x\n---\nBody\n",
    );
    let manifest = env.read("dotpack.toml");
    env.write(
        "dotpack.toml",
        &format!("{manifest}\n[commands.review]\npath = \"mine/review.md\"\n"),
    );
    env.write("mine/review.md", "Mine.\n");
    env.dotpack()
        .args(["import", "claude-code", "--into"])
        .assert()
        .success()
        .stderr(contains(".claude/skills/bad: not imported").and(contains("`other`")))
        .stderr(contains(
            ".claude/commands/review.md: not imported: dotpack.toml already declares [commands.review]",
        ));
    assert!(!env.project.join("resources/skills/bad").exists());
    assert!(!env.project.join("resources/commands/review.md").exists());
    assert!(env.project.join("resources/skills/pr/SKILL.md").exists());
}

#[test]
fn init_import_brings_the_resources_in_too() {
    let env = Env::new();
    env.write(".mcp.json", "{\"mcpServers\": {}}\n");
    env.write(".claude/commands/review.md", REVIEW);
    env.write(
        ".claude/agents/triager.md",
        "---\nname: triager\ndescription: Triage\n---\nTriage.\n",
    );
    let out = run(&env, &["init", "--import"]);
    assert_success(&out);
    let manifest = env.read("dotpack.toml");
    assert!(manifest.contains("[commands.review]"), "{manifest}");
    assert!(manifest.contains("[agents.triager]"), "{manifest}");
    env.dotpack().arg("status").assert().success();
}

#[test]
fn cursor_rules_and_commands_are_imported_and_claimed() {
    let env = Env::new();
    env.write(
        "dotpack.toml",
        "[project]\nhosts = [\"cursor\"]\nscope = \"project\"\n",
    );
    env.write(".cursor/mcp.json", "{\"mcpServers\": {}}\n");
    let mdc = "---\ndescription: Style\nglobs: src/**\nalwaysApply: false\n---\nUse tabs.\n";
    env.write(".cursor/rules/style.mdc", mdc);
    env.write(".cursor/commands/thing.md", "Do the thing.\n");
    env.dotpack()
        .args(["import", "cursor", "--into"])
        .assert()
        .success();
    assert_eq!(
        env.read("resources/rules/style.md"),
        "---\ndescription: \"Style\"\nglobs: \"src/**\"\nalways: false\n---\nUse tabs.\n"
    );
    assert_eq!(env.read("resources/commands/thing.md"), "Do the thing.\n");
    let lock = env.read("dotpack.lock");
    assert!(
        lock.contains("file = \".cursor/rules/style.mdc\""),
        "{lock}"
    );
    assert!(
        lock.contains("file = \".cursor/commands/thing.md\""),
        "{lock}"
    );
    env.dotpack().arg("status").assert().success();
    env.dotpack().arg("install").assert().success();
    assert_eq!(env.read(".cursor/rules/style.mdc"), mdc);
}
