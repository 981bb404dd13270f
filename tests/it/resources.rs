//! Resources a package carries (skills, commands, agents, rules, memory), installed into Claude
//! Code, Codex, Gemini CLI and Cursor in their own layouts, claimed file by file in dotpack.lock,
//! and taken out byte for byte.

use std::path::{Path, PathBuf};

use predicates::prelude::*;
use predicates::str::contains;

use crate::support::{Env, assert_success, snapshot};

const HOSTS: &str = r#"["claude-code", "codex", "gemini-cli", "cursor"]"#;

const MANIFEST: &str = r#"[package]
name = "teamkit"
version = "1.0.0"
description = "The team's kit"

[servers.teamkit]
command = "npx"
args = ["-y", "teamkit-mcp"]

[skills.pr-review]
path = "skills/pr-review"
[commands.review]
path = "commands/review.md"
[agents.triager]
path = "agents/triager.md"
[rules.style]
path = "rules/style.md"
[memory.conventions]
path = "memory/conventions.md"
"#;

const SKILL: &str = "---\nname: pr-review\ndescription: Review a pull request\n---\nRead the diff, then review it.\n";
const SCRIPT: &str = "#!/bin/sh\ngit diff origin/main\n";
const COMMAND: &str =
    "---\ndescription: Review code\nargument-hint: [file]\n---\nReview $ARGUMENTS carefully.\n";
const AGENT: &str = "---\nname: triager\ndescription: Triage new issues\ntools: Read, Grep\nmodel: sonnet\n---\nYou triage issues.\n";
const RULE: &str =
    "---\ndescription: Rust style\nglobs: [\"src/**/*.rs\"]\n---\nFormat with rustfmt.\n";
const MEMORY: &str = "Write commit messages in the imperative.\n";

/// The files of the teamkit package, by path inside it.
fn teamkit_files() -> Vec<(&'static str, String)> {
    vec![
        ("dotpack.toml", MANIFEST.to_string()),
        ("skills/pr-review/SKILL.md", SKILL.to_string()),
        ("skills/pr-review/scripts/diff.sh", SCRIPT.to_string()),
        ("commands/review.md", COMMAND.to_string()),
        ("agents/triager.md", AGENT.to_string()),
        ("rules/style.md", RULE.to_string()),
        ("memory/conventions.md", MEMORY.to_string()),
    ]
}

/// Writes a package folder under `src` from `(path, text)` pairs.
fn write_package(src: &Path, name: &str, files: &[(&str, String)]) {
    for (rel, text) in files {
        let path = src.join(name).join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
}

/// `dotpack registry build` of packages written by `write`, into `~/registry-index`.
fn registry_with(env: &Env, write: impl Fn(&Path)) -> PathBuf {
    let src = env.home.path().join("registry-src");
    write(&src);
    let out = env.home.path().join("registry-index");
    let built = env
        .dotpack_in(env.home.path())
        .args(["registry", "build"])
        .arg(&src)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert_success(&built);
    out
}

fn teamkit_registry(env: &Env) -> PathBuf {
    registry_with(env, |src| write_package(src, "teamkit", &teamkit_files()))
}

fn project(env: &Env, hosts: &str, deps: &str) {
    env.write(
        "dotpack.toml",
        &format!("[project]\nhosts = {hosts}\n\n[dependencies]\n{deps}"),
    );
}

/// Every file of the project but dotpack's own (manifest, lock, state).
fn host_files(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    snapshot(dir)
        .into_iter()
        .filter(|(p, _)| {
            let rel = p.strip_prefix(dir).unwrap();
            !rel.starts_with(".dotpack")
                && rel != Path::new("dotpack.toml")
                && rel != Path::new("dotpack.lock")
        })
        .collect()
}

/// Every folder under `dir`, to check that removing takes the created ones back.
fn folders(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() && !path.ends_with(".dotpack") {
                out.push(path.strip_prefix(dir).unwrap().to_path_buf());
                stack.push(path);
            }
        }
    }
    out.sort();
    out
}

/// The hosts' own files, present before dotpack: instructions with CRLF and no final newline,
/// a command and a skill of the user's, a rule.
fn hosts_own_files(env: &Env) {
    env.write("AGENTS.md", "# Agents\r\n\r\nRun `make test`.");
    env.write("CLAUDE.md", "# Claude\n\nBe brief.\n");
    env.write("GEMINI.md", "");
    env.write(".claude/commands/deploy.md", "Deploy it.\n");
    env.write(
        ".claude/skills/mine/SKILL.md",
        "---\nname: mine\ndescription: x\n---\n",
    );
    env.write(
        ".cursor/rules/team.mdc",
        "---\nalwaysApply: true\n---\nBe kind.\n",
    );
    env.write(".gemini/commands/mine.toml", "prompt = \"hi\"\n");
}

#[test]
fn every_kind_installs_into_four_hosts_in_their_own_layouts_and_comes_out_byte_for_byte() {
    for own_files in [false, true] {
        let env = Env::new();
        let reg = teamkit_registry(&env);
        project(&env, HOSTS, "");
        if own_files {
            hosts_own_files(&env);
        }
        let before = host_files(&env.project);
        let dirs_before = folders(&env.project);
        let out = env
            .with_registry(
                &reg,
                &["add", "teamkit", "--allow-lossy", "--allow-lossy=tools"],
            )
            .output()
            .unwrap();
        assert_success(&out);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("codex: agent `triager` of package `teamkit` left out"),
            "{stderr}"
        );

        // Claude Code: skill folder, command and agent as written, rule with `paths`, CLAUDE.md.
        assert_eq!(env.read(".claude/skills/pr-review/SKILL.md"), SKILL);
        assert_eq!(env.read(".claude/skills/pr-review/scripts/diff.sh"), SCRIPT);
        assert_eq!(env.read(".claude/commands/review.md"), COMMAND);
        assert_eq!(env.read(".claude/agents/triager.md"), AGENT);
        assert_eq!(
            env.read(".claude/rules/style.md"),
            "---\npaths:\n  - \"src/**/*.rs\"\n---\nFormat with rustfmt.\n"
        );
        // Codex: skills under .agents/skills, memory in AGENTS.md; no project commands.
        assert_eq!(env.read(".agents/skills/pr-review/SKILL.md"), SKILL);
        assert!(!env.project.join(".codex/prompts").exists());
        // Gemini CLI: TOML command with {{args}}, agent, skill, GEMINI.md.
        assert_eq!(
            env.read(".gemini/commands/review.toml"),
            "description = \"Review code\"\nprompt = '''\nReview {{args}} carefully.\n'''\n"
        );
        let toml: toml::Table = toml::from_str(&env.read(".gemini/commands/review.toml")).unwrap();
        assert_eq!(
            toml["prompt"].as_str(),
            Some("Review {{args}} carefully.\n")
        );
        // Claude Code's tool names and model aliases mean nothing to Gemini: left out.
        assert_eq!(
            env.read(".gemini/agents/triager.md"),
            "---\nname: triager\ndescription: Triage new issues\n---\nYou triage issues.\n"
        );
        assert_eq!(env.read(".gemini/skills/pr-review/SKILL.md"), SKILL);
        // Cursor: .mdc rule, plain command body, skill; AGENTS.md shared with Codex.
        assert_eq!(
            env.read(".cursor/rules/style.mdc"),
            "---\ndescription: Rust style\nglobs: src/**/*.rs\nalwaysApply: false\n---\nFormat with rustfmt.\n"
        );
        assert_eq!(
            env.read(".cursor/commands/review.md"),
            "Review $ARGUMENTS carefully.\n"
        );
        assert_eq!(env.read(".cursor/skills/pr-review/SKILL.md"), SKILL);
        assert!(!env.project.join(".cursor/agents").exists());
        // Memory: one managed block per instructions file, other bytes as they were.
        let block = "<!-- dotpack:begin conventions -->\nWrite commit messages in the imperative.\n<!-- dotpack:end conventions -->\n";
        if own_files {
            assert_eq!(
                env.read("AGENTS.md"),
                "# Agents\r\n\r\nRun `make test`.\r\n\r\n<!-- dotpack:begin conventions -->\r\nWrite commit messages in the imperative.\r\n<!-- dotpack:end conventions -->\r\n"
            );
            assert_eq!(
                env.read("CLAUDE.md"),
                format!("# Claude\n\nBe brief.\n\n{block}")
            );
            assert_eq!(env.read("GEMINI.md"), block);
            assert_eq!(env.read(".claude/commands/deploy.md"), "Deploy it.\n");
        } else {
            assert_eq!(env.read("AGENTS.md"), block);
            assert_eq!(env.read("CLAUDE.md"), block);
        }
        let lock = env.read("dotpack.lock");
        assert!(
            lock.contains(
                "[[file]]\nfile = \".claude/skills/pr-review/SKILL.md\"\nhosts = [\"claude-code\"]"
            ),
            "{lock}"
        );
        assert!(
            lock.contains(
                "file = \"AGENTS.md\"\nblock = \"conventions\"\nhosts = [\"codex\", \"cursor\"]"
            ),
            "{lock}"
        );

        env.dotpack().args(["status"]).assert().success();
        env.dotpack()
            .args(["list"])
            .assert()
            .success()
            .stdout(contains(".gemini/commands/review.toml#commands.review"));
        env.dotpack()
            .args(["tree"])
            .assert()
            .success()
            .stdout(contains(
                "skills.pr-review: claude-code, codex, cursor, gemini-cli",
            ));

        env.with_registry(&reg, &["remove", "teamkit"])
            .assert()
            .success();
        assert_eq!(host_files(&env.project), before, "own files: {own_files}");
        assert_eq!(folders(&env.project), dirs_before, "own files: {own_files}");
        assert!(!env.read("dotpack.lock").contains("[[file]]"));
    }
}

#[test]
fn kinds_a_host_cannot_keep_are_refused_without_allow_lossy_and_nothing_is_written() {
    let env = Env::new();
    let reg = teamkit_registry(&env);
    project(&env, r#"["codex"]"#, "");
    let before = snapshot(&env.project);
    env.with_registry(&reg, &["add", "teamkit"])
        .assert()
        .code(1)
        .stderr(
            contains("codex: agents.triager of package `teamkit`: codex keeps no agents at project scope; supported on claude-code, gemini-cli")
                .and(contains("allow_lossy = [\"agents\", \"commands\", \"rules\"]")),
        );
    assert_eq!(snapshot(&env.project), before);
    // Recorded on the dependency, it holds for every later command.
    project(
        &env,
        r#"["codex"]"#,
        "teamkit = { version = \"^1\", allow_lossy = [\"agents\", \"commands\", \"rules\"] }\n",
    );
    env.with_registry(&reg, &["install"]).assert().success();
    assert_eq!(env.read(".agents/skills/pr-review/SKILL.md"), SKILL);
    env.with_registry(&reg, &["install", "--locked"])
        .assert()
        .success();
}

#[test]
fn an_unowned_file_or_folder_in_the_way_is_a_collision_naming_it_and_force_replaces_it() {
    for (host, rel, folder) in [
        ("claude-code", ".claude/skills/pr-review/SKILL.md", true),
        ("claude-code", ".claude/commands/review.md", false),
        ("claude-code", ".claude/agents/triager.md", false),
        ("claude-code", ".claude/rules/style.md", false),
        ("codex", ".agents/skills/pr-review/notes.txt", true),
        ("gemini-cli", ".gemini/skills/pr-review/notes.txt", true),
        ("gemini-cli", ".gemini/commands/review.toml", false),
        ("gemini-cli", ".gemini/agents/triager.md", false),
        ("cursor", ".cursor/skills/pr-review/SKILL.md", true),
        ("cursor", ".cursor/commands/review.md", false),
        ("cursor", ".cursor/rules/style.mdc", false),
    ] {
        let env = Env::new();
        let reg = teamkit_registry(&env);
        project(&env, &format!("[\"{host}\"]"), "");
        env.write(rel, "mine\n");
        let before = snapshot(&env.project);
        let named = if folder {
            format!(
                "{}/ already exists and was not written by dotpack",
                Path::new(rel).parent().unwrap().display()
            )
        } else {
            format!("{rel} already exists and was not written by dotpack")
        };
        let lossy = ["--allow-lossy", "--allow-lossy=tools"];
        env.with_registry(&reg, &[&["add", "teamkit"][..], &lossy].concat())
            .assert()
            .code(1)
            .stderr(contains(named).and(contains("--force")));
        assert_eq!(snapshot(&env.project), before, "{rel}");
        env.with_registry(&reg, &[&["add", "teamkit", "--force"][..], &lossy].concat())
            .assert()
            .success();
        if !folder || rel.ends_with("SKILL.md") {
            assert_ne!(env.read(rel), "mine\n");
        }
    }
}

#[test]
fn a_block_dotpack_did_not_write_is_a_collision() {
    let env = Env::new();
    let reg = teamkit_registry(&env);
    project(&env, r#"["claude-code"]"#, "");
    env.write(
        "CLAUDE.md",
        "<!-- dotpack:begin conventions -->\nmine\n<!-- dotpack:end conventions -->\n",
    );
    env.with_registry(&reg, &["add", "teamkit"])
        .assert()
        .code(1)
        .stderr(contains("CLAUDE.md already holds a `dotpack:begin conventions` block that dotpack did not write"));
}

#[test]
fn a_hand_edited_file_is_kept_on_remove_reported_by_status_and_replaced_with_force() {
    let env = Env::new();
    let reg = teamkit_registry(&env);
    project(&env, r#"["claude-code"]"#, "");
    env.with_registry(&reg, &["add", "teamkit"])
        .assert()
        .success();
    env.write(".claude/commands/review.md", "Review my way.\n");
    let claude = env.read("CLAUDE.md").replace("imperative", "past tense");
    env.write("CLAUDE.md", &claude);
    env.dotpack().args(["status"]).assert().code(1).stdout(
        contains(".claude/commands/review.md#commands.review")
            .and(contains("CLAUDE.md (block conventions)#memory.conventions"))
            .and(contains("edited by hand")),
    );
    env.with_registry(&reg, &["install"])
        .assert()
        .success()
        .stderr(contains(
            ".claude/commands/review.md: edited by hand since dotpack wrote it; kept as it is",
        ));
    assert_eq!(env.read(".claude/commands/review.md"), "Review my way.\n");
    env.with_registry(&reg, &["remove", "teamkit"])
        .assert()
        .success()
        .stderr(contains(".claude/commands/review.md: edited by hand since dotpack wrote it; kept (`--force` removes it, `--keep-edited` leaves it to you)"));
    assert_eq!(env.read(".claude/commands/review.md"), "Review my way.\n");
    assert_eq!(env.read("CLAUDE.md"), claude);
    assert!(!env.project.join(".claude/agents/triager.md").exists());
    // Still claimed: `status` keeps reporting it, `install --force` with the package back replaces it.
    env.dotpack().args(["status"]).assert().code(1);
    env.with_registry(&reg, &["add", "teamkit", "--force"])
        .assert()
        .success();
    assert_eq!(env.read(".claude/commands/review.md"), COMMAND);
    env.dotpack().args(["status"]).assert().success();
}

#[test]
fn keep_edited_leaves_a_hand_edited_file_of_a_removed_package_to_the_user() {
    let env = Env::new();
    let reg = teamkit_registry(&env);
    project(&env, r#"["claude-code"]"#, "");
    env.with_registry(&reg, &["add", "teamkit"])
        .assert()
        .success();
    env.write(".claude/commands/review.md", "Review my way.\n");
    env.with_registry(&reg, &["remove", "teamkit"])
        .assert()
        .success();
    // No longer declared, edited: status says so and names both ways out.
    env.dotpack()
        .args(["status"])
        .assert()
        .code(1)
        .stdout(contains(".claude/commands/review.md#commands.review"))
        .stdout(contains("no longer declared, edited by hand"))
        .stdout(contains("`dotpack install --keep-edited` leaves it to you"));
    env.with_registry(&reg, &["install", "--keep-edited"])
        .assert()
        .success();
    assert_eq!(env.read(".claude/commands/review.md"), "Review my way.\n");
    assert!(!env.read("dotpack.lock").contains("review.md"));
    env.dotpack().args(["status"]).assert().success();
    // Not dotpack's any more: a later --force leaves it too.
    env.with_registry(&reg, &["install", "--force"])
        .assert()
        .success();
    assert_eq!(env.read(".claude/commands/review.md"), "Review my way.\n");
}

#[test]
fn a_teammates_clone_reproduces_the_files_with_install_locked() {
    let env = Env::new();
    let reg = teamkit_registry(&env);
    project(
        &env,
        HOSTS,
        "teamkit = { version = \"^1\", allow_lossy = [\"agents\", \"commands\", \"rules\", \"description\", \"argument-hint\", \"tools\", \"model\"] }\n",
    );
    env.with_registry(&reg, &["install"]).assert().success();
    let installed = host_files(&env.project);

    let clone = env.home.path().join("clone");
    std::fs::create_dir_all(&clone).unwrap();
    for file in ["dotpack.toml", "dotpack.lock"] {
        std::fs::copy(env.project.join(file), clone.join(file)).unwrap();
    }
    let mut cmd = env.dotpack_in(&clone);
    cmd.env("DOTPACK_REGISTRY", &reg)
        .args(["install", "--locked"])
        .assert()
        .success();
    let rebased = |files: Vec<(PathBuf, Vec<u8>)>, root: &Path| -> Vec<(PathBuf, Vec<u8>)> {
        files
            .into_iter()
            .map(|(p, b)| (p.strip_prefix(root).unwrap().to_path_buf(), b))
            .collect()
    };
    assert_eq!(
        rebased(host_files(&clone), &clone),
        rebased(installed, &env.project)
    );
    assert_eq!(
        std::fs::read_to_string(clone.join("dotpack.lock")).unwrap(),
        env.read("dotpack.lock")
    );
}

#[test]
fn rollback_undoes_the_resource_files() {
    let env = Env::new();
    let reg = teamkit_registry(&env);
    project(&env, r#"["claude-code"]"#, "");
    env.write("CLAUDE.md", "# Mine\n");
    let before = host_files(&env.project);
    env.with_registry(&reg, &["add", "teamkit"])
        .assert()
        .success();
    assert!(
        env.project
            .join(".claude/skills/pr-review/SKILL.md")
            .exists()
    );
    env.dotpack().args(["rollback"]).assert().success();
    assert_eq!(host_files(&env.project), before);
}

#[test]
fn dry_run_shows_the_resource_files_and_writes_nothing() {
    let env = Env::new();
    let reg = teamkit_registry(&env);
    project(&env, r#"["gemini-cli"]"#, "");
    let before = snapshot(&env.project);
    env.with_registry(
        &reg,
        &[
            "add",
            "teamkit",
            "--allow-lossy",
            "--allow-lossy=tools",
            "--dry-run",
        ],
    )
    .assert()
    .success()
    .stderr(contains("Would create .gemini/commands/review.toml"))
    .stdout(contains("+prompt = '''"));
    assert_eq!(snapshot(&env.project), before);
}

#[test]
fn a_resource_path_that_leaves_the_package_is_refused_with_its_line() {
    for (path, why) in [
        ("../outside.md", "leaves the package"),
        ("/etc/passwd.md", "is absolute"),
        ("commands/../../x.md", "leaves the package"),
    ] {
        let env = Env::new();
        let src = env.home.path().join("registry-src");
        write_package(
            &src,
            "evil",
            &[(
                "dotpack.toml",
                format!(
                    "[package]\nname = \"evil\"\nversion = \"1.0.0\"\n\n[commands.x]\npath = \"{path}\"\n"
                ),
            )],
        );
        std::fs::write(env.home.path().join("registry-src/outside.md"), "x\n").unwrap();
        env.dotpack_in(env.home.path())
            .args(["registry", "build"])
            .arg(&src)
            .arg("--out")
            .arg(env.home.path().join("out"))
            .assert()
            .code(1)
            .stderr(contains(why).and(contains("dotpack.toml:6:8")));
        assert!(!env.home.path().join("out").exists());
    }
}

#[cfg(unix)]
#[test]
fn a_symlink_in_a_resource_is_refused() {
    let env = Env::new();
    let src = env.home.path().join("registry-src");
    let mut files = teamkit_files();
    files.retain(|(p, _)| *p != "commands/review.md");
    write_package(&src, "teamkit", &files);
    std::fs::write(env.home.path().join("secret.md"), "secret\n").unwrap();
    std::fs::create_dir_all(src.join("teamkit/commands")).unwrap();
    std::os::unix::fs::symlink(
        env.home.path().join("secret.md"),
        src.join("teamkit/commands/review.md"),
    )
    .unwrap();
    env.dotpack_in(env.home.path())
        .args(["registry", "build"])
        .arg(&src)
        .arg("--out")
        .arg(env.home.path().join("out"))
        .assert()
        .code(1)
        .stderr(contains("is a symbolic link"));
}

#[cfg(unix)]
#[test]
fn a_project_folder_linked_outside_the_project_is_not_written_through() {
    let env = Env::new();
    let reg = teamkit_registry(&env);
    project(&env, r#"["claude-code"]"#, "");
    let elsewhere = env.home.path().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    std::os::unix::fs::symlink(&elsewhere, env.project.join(".claude")).unwrap();
    env.with_registry(&reg, &["add", "teamkit"])
        .assert()
        .code(1)
        .stderr(
            contains("its folder .claude is a symbolic link to")
                .and(contains("outside the project")),
        );
    assert_eq!(std::fs::read_dir(&elsewhere).unwrap().count(), 0);
}

#[test]
fn bad_resources_are_errors_at_their_line() {
    for (rel, text, why) in [
        (
            "skills/pr-review/SKILL.md",
            None,
            "skills/pr-review/SKILL.md is missing",
        ),
        (
            "skills/pr-review/SKILL.md",
            Some("---\nname: other\ndescription: d\n---\n"),
            "frontmatter `name` is `other`",
        ),
        (
            "agents/triager.md",
            Some("---\nname: triager\n---\nbody\n"),
            "frontmatter has no `description`",
        ),
        (
            "rules/style.md",
            Some("---\nalways: sometimes\n---\n"),
            "frontmatter `always` must be `true` or `false`",
        ),
        (
            "commands/review.md",
            Some("---\ndescription: [unclosed\n---\n"),
            "frontmatter is not valid YAML",
        ),
        (
            "commands/review.md",
            Some("---\ndescription: d\n"),
            "has no closing `---` line",
        ),
        (
            "memory/conventions.md",
            Some("<!-- dotpack:end x -->\n"),
            "must not hold `<!-- dotpack:` marker comments",
        ),
    ] {
        let env = Env::new();
        let src = env.home.path().join("registry-src");
        let mut files = teamkit_files();
        files.retain(|(p, _)| *p != rel);
        if let Some(text) = text {
            files.push((rel, text.to_string()));
        } else {
            files.retain(|(p, _)| !p.starts_with("skills/"));
            files.push(("skills/pr-review/README.md", "x\n".to_string()));
        }
        write_package(&src, "teamkit", &files);
        env.dotpack_in(env.home.path())
            .args(["registry", "build"])
            .arg(&src)
            .arg("--out")
            .arg(env.home.path().join("out"))
            .assert()
            .code(1)
            .stderr(contains(why).and(contains("teamkit/dotpack.toml:")));
    }
}

#[test]
fn the_projects_own_resources_install_from_its_folder() {
    let env = Env::new();
    env.write(
        "dotpack.toml",
        "[project]\nhosts = [\"claude-code\", \"gemini-cli\"]\n\n[commands.ship]\npath = \"team/ship.md\"\n",
    );
    env.write("team/ship.md", "Ship $ARGUMENTS now.\n");
    env.dotpack().args(["install"]).assert().success();
    assert_eq!(
        env.read(".claude/commands/ship.md"),
        "Ship $ARGUMENTS now.\n"
    );
    assert_eq!(
        env.read(".gemini/commands/ship.toml"),
        "prompt = '''\nShip {{args}} now.\n'''\n"
    );
    env.write(
        "dotpack.toml",
        "[project]\nhosts = [\"claude-code\", \"gemini-cli\"]\n",
    );
    env.dotpack().args(["install"]).assert().success();
    assert!(!env.project.join(".claude").exists());
    assert!(!env.project.join(".gemini").exists());
}

#[test]
fn dropping_an_agents_tool_list_must_be_named() {
    let env = Env::new();
    let reg = teamkit_registry(&env);
    project(&env, r#"["gemini-cli"]"#, "");
    env.with_registry(&reg, &["add", "teamkit", "--allow-lossy"])
        .assert()
        .code(1)
        .stderr(contains(
            "gemini-cli: agents.triager of package `teamkit`: frontmatter `tools` has no equivalent there (security-relevant: it must be named, `--allow-lossy=tools`)",
        ));
    assert!(!env.project.join(".gemini").exists());
}

#[test]
fn the_json_report_lists_the_resource_files() {
    let env = Env::new();
    let reg = teamkit_registry(&env);
    project(&env, r#"["claude-code"]"#, "");
    let out = env
        .with_registry(&reg, &["add", "teamkit", "--json"])
        .output()
        .unwrap();
    assert_success(&out);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let files = report["files"].as_array().unwrap();
    let skill = files
        .iter()
        .find(|f| f["file"] == ".claude/skills/pr-review/SKILL.md")
        .expect("the skill's file is reported");
    assert_eq!(skill["action"], "create");
    assert_eq!(skill["added"], serde_json::json!(["skills.pr-review"]));
    let memory = files.iter().find(|f| f["file"] == "CLAUDE.md").unwrap();
    assert_eq!(memory["added"], serde_json::json!(["memory.conventions"]));
}

#[test]
fn remove_force_deletes_a_hand_edited_file_too() {
    let env = Env::new();
    let reg = teamkit_registry(&env);
    project(&env, r#"["claude-code"]"#, "");
    let before = host_files(&env.project);
    env.with_registry(&reg, &["add", "teamkit"])
        .assert()
        .success();
    env.write(".claude/skills/pr-review/SKILL.md", "mine now\n");
    env.with_registry(&reg, &["remove", "teamkit", "--force"])
        .assert()
        .success();
    assert_eq!(host_files(&env.project), before);
    assert!(!env.project.join(".claude").exists());
}

#[test]
fn uninstall_takes_a_packages_files_out_and_install_brings_them_back() {
    let env = Env::new();
    let reg = teamkit_registry(&env);
    project(&env, r#"["claude-code"]"#, "");
    env.write("CLAUDE.md", "# Ours\r\n");
    env.with_registry(&reg, &["add", "teamkit"])
        .assert()
        .success();
    let installed = host_files(&env.project);
    env.with_registry(&reg, &["uninstall", "teamkit"])
        .assert()
        .success();
    assert!(!env.project.join(".claude/commands/review.md").exists());
    assert_eq!(env.read("CLAUDE.md"), "# Ours\r\n");
    assert!(!env.read("dotpack.lock").contains("[[file]]"));
    env.write(
        "dotpack.toml",
        &env.read("dotpack.toml")
            .replace("exclude = [\"teamkit\"]", ""),
    );
    env.with_registry(&reg, &["install"]).assert().success();
    assert_eq!(host_files(&env.project), installed);
}

#[test]
fn user_scope_files_are_shared_by_their_owners_and_leave_with_the_last() {
    let env = Env::new();
    let reg = teamkit_registry(&env);
    let home = env.home.path().to_path_buf();
    std::fs::create_dir_all(home.join(".claude")).unwrap();
    std::fs::write(home.join(".claude/CLAUDE.md"), "# Mine\n").unwrap();
    let before = snapshot(&home.join(".claude"));
    let hosts = r#"[{ host = "claude-code", scope = "user" }]"#;
    let second = home.join("second");
    std::fs::create_dir_all(&second).unwrap();
    std::fs::write(
        second.join("dotpack.toml"),
        format!("[project]\nhosts = {hosts}\n"),
    )
    .unwrap();
    project(&env, hosts, "");
    env.dotpack().arg("trust").assert().success();
    env.with_registry(&reg, &["add", "teamkit"])
        .assert()
        .success();
    assert_eq!(
        std::fs::read_to_string(home.join(".claude/skills/pr-review/SKILL.md")).unwrap(),
        SKILL
    );
    assert!(!env.project.join(".claude").exists());
    let claims = std::fs::read_to_string(home.join(".dotpack/claims.toml")).unwrap();
    assert!(
        claims.contains("file = \".claude/commands/review.md\""),
        "{claims}"
    );
    env.dotpack()
        .args(["list"])
        .assert()
        .success()
        .stdout(contains("~/.claude/commands/review.md#commands.review"));

    // The second project, written by hand too, is approved before it shares the entries.
    env.dotpack_in(&second).arg("trust").assert().success();
    let mut add = env.dotpack_in(&second);
    add.env("DOTPACK_REGISTRY", &reg)
        .args(["add", "teamkit"])
        .assert()
        .success()
        .stderr(contains("shared with other projects"));
    env.with_registry(&reg, &["remove", "teamkit"])
        .assert()
        .success()
        .stderr(contains("left to other projects"));
    assert!(home.join(".claude/commands/review.md").exists());
    let mut remove = env.dotpack_in(&second);
    remove
        .env("DOTPACK_REGISTRY", &reg)
        .args(["remove", "teamkit"])
        .assert()
        .success();
    let mut after = snapshot(&home.join(".claude"));
    after.retain(|(p, _)| !p.ends_with(".claude.json"));
    assert_eq!(after, before);
    assert!(!home.join(".claude/skills").exists());
}

#[test]
fn validate_points_at_a_projects_own_resource_that_is_missing() {
    let env = Env::new();
    env.write(
        "dotpack.toml",
        "[project]\nhosts = [\"claude-code\"]\n\n[skills.helper]\npath = \"skills/helper\"\n",
    );
    env.write("skills/helper/README.md", "no SKILL.md here\n");
    env.dotpack()
        .args(["validate"])
        .assert()
        .code(1)
        .stderr(contains("skills/helper/SKILL.md is missing").and(contains("dotpack.toml:5:8")));
}

#[test]
fn a_file_removed_by_hand_is_reported_missing_and_written_again_by_install() {
    let env = Env::new();
    let reg = teamkit_registry(&env);
    project(&env, r#"["cursor"]"#, "");
    env.with_registry(&reg, &["add", "teamkit", "--allow-lossy"])
        .assert()
        .success();
    std::fs::remove_file(env.project.join(".cursor/rules/style.mdc")).unwrap();
    env.dotpack()
        .args(["status"])
        .assert()
        .code(1)
        .stdout(contains(".cursor/rules/style.mdc#rules.style").and(contains("missing")));
    env.with_registry(&reg, &["install", "--locked", "--allow-lossy"])
        .assert()
        .success();
    assert!(
        env.read(".cursor/rules/style.mdc")
            .contains("alwaysApply: false")
    );
    env.dotpack().args(["status"]).assert().success();
}

#[test]
fn rollback_undoes_user_scope_resource_files() {
    let env = Env::new();
    let reg = teamkit_registry(&env);
    project(&env, r#"[{ host = "gemini-cli", scope = "user" }]"#, "");
    env.dotpack().arg("trust").assert().success();
    env.with_registry(
        &reg,
        &["add", "teamkit", "--allow-lossy", "--allow-lossy=tools"],
    )
    .assert()
    .success();
    let home = env.home.path();
    assert!(home.join(".gemini/commands/review.toml").exists());
    env.dotpack().args(["rollback"]).assert().success();
    assert!(!home.join(".gemini/commands/review.toml").exists());
    assert!(!home.join(".gemini/skills/pr-review/SKILL.md").exists());
}
