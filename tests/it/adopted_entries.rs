//! Servers `init --import` adopts from the user's own (user-scope) files stay the user's: they do
//! not spread into the project's committed host files unless the user adds a host, a rollback
//! past the adoption gives them back instead of deleting them, and taking one out says so.

use assert_cmd::assert::Assert;
use predicates::prelude::*;
use predicates::str::contains;

use crate::support::Env;

fn dp(env: &Env, args: &[&str]) -> Assert {
    env.dotpack().args(args).assert()
}

/// A hand-written entry in `~/.claude.json`, spaced as a person writes it.
const CLAUDE_JSON: &str = "{\n  \"numStartups\": 3,\n  \"mcpServers\": {\n    \"personal\": {\"command\": \"my-notes\",   \"args\": [\"--dir\", \"/home/me/notes\"]}\n  }\n}\n";

/// A project with a Cursor folder, and the user's own Claude Code file holding `personal`,
/// after `dotpack init --import`.
fn imported() -> Env {
    let env = Env::new();
    std::fs::create_dir_all(env.project.join(".cursor")).unwrap();
    std::fs::write(env.home.path().join(".claude.json"), CLAUDE_JSON).unwrap();
    dp(&env, &["init", "--import"]).success().stderr(contains(
        "Keeping personal in claude-code only (`hosts` in [servers.personal])",
    ));
    env
}

fn claude_json(env: &Env) -> String {
    std::fs::read_to_string(env.home.path().join(".claude.json")).unwrap()
}

#[test]
fn a_personal_server_stays_out_of_the_projects_files_until_a_host_is_added() {
    let env = imported();
    let manifest = env.read("dotpack.toml");
    assert!(
        manifest.contains("[servers.personal]") && manifest.contains("hosts = [\"claude-code\"]"),
        "{manifest}"
    );
    dp(&env, &["install"]).success();
    dp(&env, &["status"]).success();
    assert!(
        !env.project.join(".cursor/mcp.json").exists(),
        "a personal server went into a committed project file"
    );
    assert_eq!(
        claude_json(&env),
        CLAUDE_JSON,
        "the adopted entry keeps its bytes"
    );

    // Asked for, it goes there, and the entry already in ~/.claude.json is not rewritten.
    dp(&env, &["install", "personal", "--host", "cursor"])
        .success()
        .stderr(contains(
            "Adding cursor to the hosts of server personal in dotpack.toml",
        ));
    let cursor: serde_json::Value = serde_json::from_str(&env.read(".cursor/mcp.json")).unwrap();
    assert_eq!(cursor["mcpServers"]["personal"]["command"], "my-notes");
    assert_eq!(claude_json(&env), CLAUDE_JSON);
    dp(&env, &["status"]).success();
}

#[test]
fn a_rollback_past_the_adoption_gives_the_entry_back_and_removing_it_says_so() {
    let env = imported();
    dp(&env, &["uninstall", "personal", "--dry-run"])
        .success()
        .stderr(contains(
            "removing an entry you wrote before dotpack adopted it",
        ));
    assert_eq!(claude_json(&env), CLAUDE_JSON, "--dry-run writes nothing");

    // Rolling back to before the import leaves the user's entry where it was.
    dp(&env, &["rollback", "1"]).success().stderr(contains(
        "you wrote it before dotpack adopted it; left as it is, and dotpack no longer tracks it",
    ));
    assert_eq!(claude_json(&env), CLAUDE_JSON);
    let claims =
        std::fs::read_to_string(env.home.path().join(".dotpack/claims.toml")).unwrap_or_default();
    assert!(!claims.contains("personal"), "{claims}");
}

#[test]
fn a_servers_hosts_must_be_known_host_ids() {
    let env = Env::new();
    env.write(
        "dotpack.toml",
        "[project]\nhosts = [\"cursor\"]\n\n[servers.x]\ncommand = \"x\"\nhosts = [\"cursr\", \"cursor\", \"cursor\"]\n",
    );
    dp(&env, &["validate"]).failure().stderr(
        contains("unknown host `cursr`")
            .and(contains("did you mean `cursor`?"))
            .and(contains("host `cursor` is listed twice")),
    );
}

#[test]
fn an_uninstalled_adopted_entry_comes_back_byte_identical_with_rollback() {
    let env = imported();
    dp(&env, &["uninstall", "personal"]).success().stderr(contains(
        "removing an entry you wrote before dotpack adopted it (`dotpack rollback` puts it back)",
    ));
    assert!(!claude_json(&env).contains("personal"));
    // The rollback the warning names gives back the user's own bytes, not dotpack's rendering
    // (which would add `"type": "stdio"` and space it otherwise), and the entry stays adopted.
    // (A project `init --import` made is not the user's own yet: writing their user-scope file
    // needs their consent, given here with `--trust`.)
    dp(&env, &["--trust", "rollback"]).success();
    assert_eq!(claude_json(&env), CLAUDE_JSON);
    dp(&env, &["status"]).success();
    dp(&env, &["install"]).success();
    assert_eq!(claude_json(&env), CLAUDE_JSON);
    dp(&env, &["uninstall", "personal", "--dry-run"])
        .success()
        .stderr(contains(
            "removing an entry you wrote before dotpack adopted it",
        ));
    // A file someone else changed since is not given old bytes: the entry comes back (its own
    // value, in its own key order), and their edit stays.
    dp(&env, &["uninstall", "personal"]).success();
    let edited = claude_json(&env).replace("\"numStartups\": 3", "\"numStartups\": 4");
    std::fs::write(env.home.path().join(".claude.json"), &edited).unwrap();
    dp(&env, &["--trust", "rollback"]).success();
    let now: serde_json::Value = serde_json::from_str(&claude_json(&env)).unwrap();
    assert_eq!(now["numStartups"], 4);
    let entry = &now["mcpServers"]["personal"];
    assert_eq!(
        entry,
        &serde_json::json!({"command": "my-notes", "args": ["--dir", "/home/me/notes"]})
    );
    dp(&env, &["status"]).success();
}
