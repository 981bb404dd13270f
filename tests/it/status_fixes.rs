//! `status` says how to settle what it finds: an entry edited by hand (put back, or keep it with
//! `adopt`), one no longer declared (`install --keep-edited` leaves it to the user, releasing
//! the claim), and a project that declares servers but no host (installed nowhere: exit 1).

use predicates::prelude::*;
use predicates::str::contains;

use crate::support::Env;

fn with_time(env: &Env) {
    env.write("dotpack.toml", "[project]\nhosts = [\"claude-code\"]\n");
    env.dotpack().args(["add", "time"]).assert().success();
}

#[test]
fn an_entry_edited_by_hand_names_both_ways_out_and_adopt_keeps_the_edit() {
    let env = Env::new();
    with_time(&env);
    let edited = env.read(".mcp.json").replace(
        "\"mcp-server-time\"",
        "\"mcp-server-time\", \"--local-timezone=UTC\"",
    );
    env.write(".mcp.json", &edited);
    env.dotpack()
        .args(["status"])
        .assert()
        .code(1)
        .stdout(contains(
            ".mcp.json#time  time 1.0.0  edited by hand (`dotpack install --force` puts back what dotpack wrote; `dotpack adopt time` keeps your edit)",
        ));
    env.dotpack().args(["adopt", "time"]).assert().success();
    env.dotpack().args(["status"]).assert().success();
    assert_eq!(env.read(".mcp.json"), edited);
}

#[test]
fn keep_edited_releases_an_entry_nothing_declares_and_leaves_it_as_it_is() {
    let env = Env::new();
    with_time(&env);
    let edited = env.read(".mcp.json").replace("uvx", "/usr/local/bin/uvx");
    env.write(".mcp.json", &edited);
    env.dotpack().args(["remove", "time"]).assert().success();
    assert_eq!(env.read(".mcp.json"), edited);
    env.dotpack()
        .args(["status"])
        .assert()
        .code(1)
        .stdout(contains("`dotpack install --keep-edited` leaves it to you"));
    env.dotpack()
        .args(["install", "--keep-edited"])
        .assert()
        .success()
        .stderr(contains(
            ".mcp.json (claude-code): 1 edited by hand, left to you",
        ));
    assert_eq!(env.read(".mcp.json"), edited);
    env.dotpack().args(["status"]).assert().success();
    // The user's now: --force no longer removes it.
    env.dotpack()
        .args(["install", "--force"])
        .assert()
        .success();
    assert_eq!(env.read(".mcp.json"), edited);
    // And the flag cannot be combined with the opposite choice.
    env.dotpack()
        .args(["install", "--force", "--keep-edited"])
        .assert()
        .code(2);
}

#[test]
fn servers_declared_without_a_host_are_installed_nowhere_and_status_fails() {
    let env = Env::new();
    env.write(
        "dotpack.toml",
        "[servers.local]\ncommand = \"echo\"\nargs = []\n",
    );
    env.dotpack().args(["install"]).assert().success();
    env.dotpack()
        .args(["status"])
        .assert()
        .code(1)
        .stdout(contains(
            "no target hosts: 1 server is declared and installed nowhere",
        ))
        .stdout(contains("dotpack install --host HOST"));
    // Nothing declared at all is fine.
    let empty = Env::new();
    empty.write("dotpack.toml", "");
    empty
        .dotpack()
        .args(["status"])
        .assert()
        .success()
        .stdout(contains("installed nowhere").not());
}

#[test]
fn rollback_names_the_entries_it_puts_back_and_takes_out() {
    let env = Env::new();
    with_time(&env);
    env.dotpack().args(["add", "fetch"]).assert().success();
    env.dotpack()
        .args(["rollback", "--dry-run"])
        .assert()
        .success()
        .stderr(contains(
            "Would restore .mcp.json (claude-code): 1 removed (fetch)",
        ));
    env.dotpack()
        .args(["rollback"])
        .assert()
        .success()
        .stderr(contains(
            "Restored .mcp.json (claude-code): 1 removed (fetch)",
        ));
    env.dotpack()
        .args(["rollback"])
        .assert()
        .success()
        .stderr(contains(
            "Restored .mcp.json (claude-code): 1 added (fetch)",
        ));
}

#[test]
fn add_with_set_on_a_declared_package_says_which_input_it_changed() {
    let env = Env::new();
    env.write("dotpack.toml", "[project]\nhosts = [\"claude-code\"]\n");
    env.dotpack().args(["add", "git"]).assert().success();
    env.dotpack()
        .args(["add", "git", "--set", "repository=/srv/repo"])
        .assert()
        .success()
        .stderr(contains(
            "Setting git input `repository` to \"/srv/repo\" in dotpack.toml",
        ));
    env.dotpack()
        .args(["add", "git", "--set", "repository=/srv/other"])
        .assert()
        .success()
        .stderr(contains(
            "Updating git input `repository` to \"/srv/other\" in dotpack.toml",
        ));
    // The same value again changes nothing and says nothing.
    env.dotpack()
        .args(["add", "git", "--set", "repository=/srv/other"])
        .assert()
        .success()
        .stderr(contains("input `repository`").not());
    assert!(env.read(".mcp.json").contains("/srv/other"));
}
