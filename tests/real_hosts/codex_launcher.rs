//! Codex starts a launcher server whose secret lives only in the OS credential store. `codex mcp
//! list` starts no server, so a model session does (`codex exec` against the fake model of
//! `model.rs`): Codex starts the project's servers when the session starts, without `TOKEN` in
//! its environment, and the model calls a tool of the one `dotpack run` started with the secret.

use super::model::{Call, Model, Script};
use super::session::{self, Host};
use super::*;

#[test]
fn codex_starts_a_launcher_server_with_the_secret_from_the_store() {
    let Some(codex) = cli("codex", "@openai/codex") else {
        return;
    };
    let w = World::new();
    let Some(keyring) = support_keyring::Keyring::start(&w.root()) else {
        return;
    };
    let server = w.mcp_server_arg();
    launcher_project(
        &w,
        &keyring,
        "codex",
        "project",
        ".codex/config.toml",
        &server,
    );
    let model = Model::start(Script {
        calls: vec![Call {
            tool: Host::Codex.tool("local_tool", "alpha"),
            arguments: json!({}),
        }],
        answer: "done".to_string(),
    });
    let mut cmd = session::command(&w, &codex, Host::Codex, "local-tool", &model);
    // Codex passes a server only the variables an entry names: dotpack's entry names the
    // session bus's, so the launcher finds the test's private bus in its own runtime folder,
    // where no `/run/user/UID/bus` fallback would.
    let written = std::fs::read_to_string(w.project.join(".codex/config.toml")).expect("the file");
    assert_has(
        &written,
        r#"env_vars = ["DBUS_SESSION_BUS_ADDRESS", "XDG_RUNTIME_DIR"]"#,
        "the launcher entry names the session bus's variables",
    );
    cmd.env("XDG_RUNTIME_DIR", &keyring.runtime_dir);
    let said = session::run(cmd, &model);
    let what = format!("{said}\nthe model received:\n{}", model.summary());

    assert!(!said.contains(TOKEN), "{what}");
    let starts = w.stdio_starts();
    assert!(
        starts.contains(&json!({"argv": ["--port", "4000"], "TOKEN": TOKEN, "LEVEL": "debug"})),
        "codex exec started {starts:?}\n{what}"
    );
    assert_eq!(
        w.stdio_calls(),
        [json!({"call": "alpha", "arguments": {}, "argv": ["--port", "4000"]})],
        "{what}"
    );
    let results = model.tool_results();
    assert_eq!(results.len(), 1, "{what}");
    assert_has(&results[0], TOOL_MARKER, "the result Codex sent the model");
    // Only the server's own record holds the value: not Codex's files, its session log, or
    // anything dotpack wrote.
    let record = w.root().join("stdio-record.jsonl");
    assert_eq!(
        support_keyring::files_containing(&w.root(), TOKEN, &[record]),
        Vec::<PathBuf>::new(),
        "{what}"
    );
}
