//! Snapshots of the most common errors, as a person reads them: what went wrong, in which file
//! and where, and the fix. One row per error: the files of the project, the command, and the
//! snapshot of its transcript (see `support::transcript`). Every row must fail (exit 1, or 2 for
//! bad usage) and change no file.

use std::path::PathBuf;

use crate::support::{Env, snapshot, transcript};

/// Every file under HOME but dotpack's own state folders (`.dotpack/`, which some commands
/// make before they find there is nothing to do).
fn files(env: &Env) -> Vec<(PathBuf, Vec<u8>)> {
    snapshot(env.home.path())
        .into_iter()
        .filter(|(path, _)| !path.components().any(|c| c.as_os_str() == ".dotpack"))
        .collect()
}

const CLAUDE: &str = "[project]\nhosts = [\"claude-code\"]\n\n[dependencies]\n";
const TIME: &str = "[project]\nhosts = [\"claude-code\"]\n\n[dependencies]\ntime = \"^1.0\"\n";

/// `(snapshot name, project files, command, exit code)`.
type Row = (
    &'static str,
    &'static [(&'static str, &'static str)],
    &'static [&'static str],
    i32,
);

const ROWS: &[Row] = &[
    (
        "unknown_host",
        &[("dotpack.toml", CLAUDE)],
        &["add", "time", "--host", "claude"],
        2,
    ),
    (
        "unknown_host_in_manifest",
        &[(
            "dotpack.toml",
            "[project]\nhosts = [\"cursr\"]\n\n[dependencies]\ntime = \"^1.0\"\n",
        )],
        &["install"],
        1,
    ),
    (
        "unknown_package",
        &[("dotpack.toml", CLAUDE)],
        &["add", "tmie"],
        1,
    ),
    ("unknown_package_info", &[], &["info", "githb"], 1),
    (
        "bad_toml",
        &[(
            "dotpack.toml",
            "[project]\nhosts = [\"claude-code\"\n\n[dependencies]\n",
        )],
        &["install"],
        1,
    ),
    ("missing_manifest", &[], &["install"], 1),
    (
        "collision_with_a_hand_written_entry",
        &[
            ("dotpack.toml", CLAUDE),
            (
                ".mcp.json",
                "{\n  \"mcpServers\": {\n    \"time\": {\"command\": \"my-time\"}\n  }\n}\n",
            ),
        ],
        &["add", "time"],
        1,
    ),
    (
        "lossy_refused",
        &[(
            "dotpack.toml",
            "[project]\nhosts = [\"claude-code\"]\n\n[servers.tool]\ncommand = \"tool\"\nargs = []\ncwd = \"/srv\"\n\n[dependencies]\n",
        )],
        &["install"],
        1,
    ),
    (
        "lossy_security_refused",
        &[(
            "dotpack.toml",
            "[project]\nhosts = [\"cursor\"]\n\n[servers.remote]\nurl = \"https://example.invalid/mcp\"\nenabled_tools = [\"read\"]\n\n[dependencies]\n",
        )],
        &["install", "--allow-lossy"],
        1,
    ),
    (
        "locked_without_a_lock",
        &[("dotpack.toml", TIME)],
        &["install", "--locked"],
        1,
    ),
    (
        "lock_with_an_unknown_key",
        &[
            ("dotpack.toml", TIME),
            ("dotpack.lock", "version = 1\n\n[requirements]\n"),
        ],
        &["install", "--locked"],
        1,
    ),
    (
        "unknown_registry_kind",
        &[(
            "dotpack.toml",
            "[project]\nhosts = [\"claude-code\"]\n\n[registries.corp]\nkind = \"ftp\"\nurl = \"ftp://example.invalid/index\"\n\n[dependencies]\n",
        )],
        &["install"],
        1,
    ),
    (
        "bad_version_requirement",
        &[(
            "dotpack.toml",
            "[project]\nhosts = [\"claude-code\"]\n\n[dependencies]\ntime = \"one point oh\"\n",
        )],
        &["install"],
        1,
    ),
    (
        "bad_version_requirement_on_add",
        &[("dotpack.toml", CLAUDE)],
        &["add", "time@^^1"],
        2,
    ),
    (
        "no_version_matches",
        &[("dotpack.toml", CLAUDE)],
        &["add", "time@^9"],
        1,
    ),
    (
        "unknown_field",
        &[(
            "dotpack.toml",
            "[project]\nhsts = [\"claude-code\"]\n\n[dependencies]\n",
        )],
        &["install"],
        1,
    ),
    (
        "server_with_two_transports",
        &[(
            "dotpack.toml",
            "[project]\nhosts = [\"claude-code\"]\n\n[servers.both]\ncommand = \"x\"\nurl = \"https://example.invalid/mcp\"\n\n[dependencies]\n",
        )],
        &["install"],
        1,
    ),
    (
        "host_file_does_not_parse",
        &[
            ("dotpack.toml", TIME),
            (
                ".mcp.json",
                "{\n  \"mcpServers\": {\n    \"a\": 1,,\n  }\n}\n",
            ),
        ],
        &["install"],
        1,
    ),
    (
        "unknown_input",
        &[("dotpack.toml", CLAUDE)],
        &["add", "time", "--set", "port=4000"],
        2,
    ),
    (
        "remove_undeclared",
        &[("dotpack.toml", TIME)],
        &["remove", "fetch"],
        1,
    ),
    (
        "why_not_locked",
        &[("dotpack.toml", TIME)],
        &["why", "time"],
        1,
    ),
    (
        "rollback_without_history",
        &[("dotpack.toml", TIME)],
        &["rollback"],
        1,
    ),
    ("import_unknown_host", &[], &["import", "claud-code"], 2),
    ("unknown_command", &[], &["instal"], 2),
    (
        "unknown_flag",
        &[("dotpack.toml", CLAUDE)],
        &["add", "time", "--hots", "codex"],
        2,
    ),
];

#[test]
fn common_errors_name_the_file_the_place_and_the_fix() {
    let mut failed = Vec::new();
    for (name, setup, args, code) in ROWS {
        let env = Env::new();
        for (path, text) in *setup {
            env.write(path, text);
        }
        let before = files(&env);
        let text = transcript(&env, args);
        if !text.contains(&format!("[exit {code}]\n")) {
            failed.push(format!("{name}: not exit {code}:\n{text}"));
            continue;
        }
        assert!(
            text.contains("\n--- stderr\n"),
            "{name}: says nothing:\n{text}"
        );
        assert_eq!(files(&env), before, "{name}: a refusal changed a file");
        insta::assert_snapshot!(*name, text);
    }
    assert!(failed.is_empty(), "{}", failed.join("\n\n"));
}

/// Errors that need a state made by earlier commands.
#[test]
fn errors_after_an_install() {
    let env = Env::new();
    env.write("dotpack.toml", TIME);
    env.dotpack().arg("install").assert().success();

    // Another package declaring the same server name as an installed one.
    env.write(
        "dotpack.toml",
        "[project]\nhosts = [\"claude-code\"]\n\n[servers.time]\ncommand = \"my-time\"\nargs = []\n\n[dependencies]\ntime = \"^1.0\"\n",
    );
    let before = files(&env);
    let clash = transcript(&env, &["install"]);
    assert!(clash.contains("[exit 1]"), "{clash}");
    assert_eq!(files(&env), before);
    env.write("dotpack.toml", TIME);

    // A generation that does not exist.
    let before = files(&env);
    let rollback = transcript(&env, &["rollback", "99"]);
    assert!(rollback.contains("[exit 1]"), "{rollback}");
    assert_eq!(files(&env), before);

    // The manifest changed after locking: `--locked` refuses.
    env.write(
        "dotpack.toml",
        "[project]\nhosts = [\"claude-code\"]\n\n[dependencies]\ntime = \"^1.0\"\nfetch = \"^1.0\"\n",
    );
    let before = files(&env);
    let locked = transcript(&env, &["install", "--locked"]);
    assert!(locked.contains("[exit 1]"), "{locked}");
    assert_eq!(files(&env), before);

    insta::assert_snapshot!(
        "errors_after_an_install",
        [clash, rollback, locked].join("\n")
    );
}
