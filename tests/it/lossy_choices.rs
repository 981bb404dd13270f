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
