//! A host file the host does not read because another file it reads first exists: GitHub
//! Copilot CLI reads the project's `.mcp.json` (Claude Code's) instead of `.github/mcp.json`
//! whenever it exists. dotpack says so at install, naming what Copilot misses.

use crate::support::{Env, assert_success};

#[test]
fn copilot_cli_beside_claude_code_at_project_scope_is_warned_about() {
    let env = Env::new();
    env.write(
        "dotpack.toml",
        "[project]\nhosts = [{ host = \"claude-code\", exclude = [\"mine\"] }, \"copilot-cli\"]\n\n\
         [servers.both]\ncommand = \"both-mcp\"\nargs = []\nenabled_tools = [\"read\"]\n\n\
         [servers.mine]\ncommand = \"mine-mcp\"\nargs = []\n",
    );
    // Claude Code has no tool allow list: dropping it there is the user's choice.
    let out = env
        .dotpack()
        .args(["install", "--allow-lossy=enabled_tools"])
        .output()
        .unwrap();
    assert_success(&out);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("GitHub Copilot CLI reads `.mcp.json` instead of `.github/mcp.json`"),
        "{err}"
    );
    assert!(
        err.contains("it reads both as Claude Code wrote it there"),
        "{err}"
    );
    assert!(err.contains("it does not see mine"), "{err}");
    assert!(
        err.contains(r#"{ host = "copilot-cli", scope = "user" }"#),
        "{err}"
    );
    // The files are still written, each for its host.
    assert!(env.read(".github/mcp.json").contains("\"tools\""));
}

#[test]
fn copilot_cli_alone_is_not_warned_about() {
    let env = Env::new();
    env.write(
        "dotpack.toml",
        "[project]\nhosts = [\"copilot-cli\"]\n\n[servers.both]\ncommand = \"both-mcp\"\nargs = []\n",
    );
    let out = env.dotpack().arg("install").output().unwrap();
    assert_success(&out);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("instead of"), "{err}");
}

#[test]
fn copilot_cli_beside_a_mcp_json_dotpack_does_not_write_is_warned_about() {
    let env = Env::new();
    env.write(".mcp.json", "{}\n");
    env.write(
        "dotpack.toml",
        "[project]\nhosts = [\"copilot-cli\"]\n\n[servers.both]\ncommand = \"both-mcp\"\nargs = []\n",
    );
    let out = env.dotpack().arg("install").output().unwrap();
    assert_success(&out);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("GitHub Copilot CLI reads `.mcp.json` instead of `.github/mcp.json` whenever `.mcp.json` exists, and this project has one"),
        "{err}"
    );
    assert_eq!(env.read(".mcp.json"), "{}\n");
}
