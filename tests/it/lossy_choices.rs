//! A choice to leave out what a host cannot keep is recordable where the thing lives: a
//! dependency's `allow_lossy`, or `[project] allow_lossy` for the project's own servers and
//! resources; `import --into` records the kinds it left out, so the next `install` agrees.

use predicates::str::contains;

use crate::support::Env;

fn imported(env: &Env) {
    env.write(
        ".claude/commands/review.md",
        "---\ndescription: Review\n---\nReview the diff.\n",
    );
    env.write(
        ".mcp.json",
        "{\"mcpServers\": {\"x\": {\"command\": \"npx\", \"args\": [\"-y\", \"x-mcp\"]}}}\n",
    );
    env.write(
        "dotpack.toml",
        "[project]\nhosts = [\"claude-code\", \"codex\"]\n",
    );
}

#[test]
fn import_into_records_the_kinds_it_left_out_and_install_keeps_the_choice() {
    let env = Env::new();
    imported(&env);
    env.dotpack()
        .args(["import", "claude-code", "--into"])
        .assert()
        .success()
        .stderr(contains(
            "Allowing commands to be left out where a host cannot keep them",
        ));
    assert!(
        env.read("dotpack.toml")
            .contains("allow_lossy = [\"commands\"]"),
        "{}",
        env.read("dotpack.toml")
    );
    // The next commands do not refuse what the import chose.
    env.dotpack().args(["install"]).assert().success();
    env.dotpack().args(["add", "time"]).assert().success();
    env.dotpack().args(["validate"]).assert().success();
}

#[test]
fn the_projects_own_resources_are_pointed_at_project_allow_lossy() {
    let env = Env::new();
    env.write(
        "resources/commands/review.md",
        "---\ndescription: Review\n---\nReview the diff.\n",
    );
    env.write(
        "dotpack.toml",
        "[project]\nhosts = [\"claude-code\", \"codex\"]\n\n[commands.review]\npath = \"resources/commands/review.md\"\n",
    );
    env.dotpack()
        .args(["install"])
        .assert()
        .failure()
        .stderr(contains(
            "`allow_lossy = [\"commands\"]` under [project] in dotpack.toml to record it for the project's own servers and resources",
        ));
    let manifest = env.read("dotpack.toml").replace(
        "hosts = [\"claude-code\", \"codex\"]",
        "hosts = [\"claude-code\", \"codex\"]\nallow_lossy = [\"commands\"]",
    );
    env.write("dotpack.toml", &manifest);
    env.dotpack().args(["install"]).assert().success();
    // A name the concept table does not know is an error with its key path.
    env.write(
        "dotpack.toml",
        &manifest.replace(
            "allow_lossy = [\"commands\"]",
            "allow_lossy = [\"comands\"]",
        ),
    );
    env.dotpack()
        .args(["validate"])
        .assert()
        .failure()
        .stderr(contains("`comands` is not in the concept table"));
}

#[test]
fn a_bare_allow_lossy_is_recorded_where_the_thing_lives_and_unrelated_adds_then_work() {
    let env = Env::new();
    env.write(
        "resources/commands/review.md",
        "---\ndescription: Review\n---\nReview the diff.\n",
    );
    let manifest = "[project]\nhosts = [\"claude-code\", \"codex\"]\n\n[commands.review]\npath = \"resources/commands/review.md\"\n";
    env.write("dotpack.toml", manifest);
    // A dry run and `--locked` record nothing.
    env.dotpack()
        .args(["install", "--allow-lossy", "--dry-run"])
        .assert()
        .success();
    assert_eq!(env.read("dotpack.toml"), manifest);
    env.dotpack()
        .args(["install", "--allow-lossy"])
        .assert()
        .success()
        .stderr(contains(
            "Allowing commands to be left out where a host cannot keep it ([project] allow_lossy in dotpack.toml)",
        ));
    assert!(
        env.read("dotpack.toml")
            .contains("hosts = [\"claude-code\", \"codex\"]\nallow_lossy = [\"commands\"]\n"),
        "{}",
        env.read("dotpack.toml")
    );
    // Without the flag, what the user chose holds: an unrelated add and the install after it.
    env.dotpack().args(["add", "time"]).assert().success();
    env.dotpack().args(["install"]).assert().success();
    env.dotpack().args(["status"]).assert().success();
    env.dotpack().args(["validate"]).assert().success();
}

#[test]
fn a_teammate_installs_what_the_recorded_choice_allows_and_locked_never_records() {
    let env = Env::new();
    env.write(
        "resources/commands/review.md",
        "---\ndescription: Review\n---\nReview the diff.\n",
    );
    let manifest = "[project]\nhosts = [\"claude-code\", \"codex\"]\n\n[commands.review]\npath = \"resources/commands/review.md\"\n";
    env.write("dotpack.toml", manifest);
    env.dotpack()
        .args(["install", "--allow-lossy"])
        .assert()
        .success();
    // A teammate's clone has no host files yet: `install --locked` needs no flag.
    std::fs::remove_dir_all(env.project.join(".claude")).unwrap();
    env.dotpack()
        .args(["install", "--locked"])
        .assert()
        .success();
    assert!(env.project.join(".claude/commands/review.md").exists());
    // Under --locked the committed files stay as they are: the flag is needed each time.
    env.write("dotpack.toml", manifest);
    std::fs::remove_dir_all(env.project.join(".claude")).unwrap();
    env.dotpack()
        .args(["install", "--locked"])
        .assert()
        .failure()
        .stderr(contains("--allow-lossy"));
    env.dotpack()
        .args(["install", "--locked", "--allow-lossy"])
        .assert()
        .success();
    assert_eq!(env.read("dotpack.toml"), manifest);
}
