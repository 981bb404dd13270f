//! The variables hosts honour for their config location, through the binary: with one set,
//! `install` writes the file the host reads there and nothing at the default place, `status`
//! reads it back (and without the variable finds the entry missing), and `hosts` and `doctor`
//! name it.

use std::path::Path;

use predicates::str::contains;

use crate::support::Env;

/// (host, variable, the user file under the variable's folder, the default user file under HOME).
const ROWS: &[(&str, &str, &str, &str)] = &[
    (
        "claude-code",
        "CLAUDE_CONFIG_DIR",
        ".claude.json",
        ".claude.json",
    ),
    ("codex", "CODEX_HOME", "config.toml", ".codex/config.toml"),
    (
        "gemini-cli",
        "GEMINI_CLI_HOME",
        ".gemini/settings.json",
        ".gemini/settings.json",
    ),
    (
        "pi",
        "PI_CODING_AGENT_DIR",
        "mcp.json",
        ".pi/agent/mcp.json",
    ),
    (
        "copilot-cli",
        "COPILOT_HOME",
        "mcp-config.json",
        ".copilot/mcp-config.json",
    ),
    (
        "hermes",
        "HERMES_HOME",
        "config.yaml",
        ".hermes/config.yaml",
    ),
    (
        "continue",
        "CONTINUE_GLOBAL_DIR",
        "config.yaml",
        ".continue/config.yaml",
    ),
    (
        "crush",
        "CRUSH_GLOBAL_CONFIG",
        "crush.json",
        ".config/crush/crush.json",
    ),
    (
        "crush",
        "XDG_CONFIG_HOME",
        "crush/crush.json",
        ".config/crush/crush.json",
    ),
    (
        "goose",
        "GOOSE_PATH_ROOT",
        "config/config.yaml",
        ".config/goose/config.yaml",
    ),
    (
        "goose",
        "XDG_CONFIG_HOME",
        "goose/config.yaml",
        ".config/goose/config.yaml",
    ),
    (
        "opencode",
        "XDG_CONFIG_HOME",
        "opencode/opencode.json",
        ".config/opencode/opencode.json",
    ),
    (
        "zed",
        "XDG_CONFIG_HOME",
        "zed/settings.json",
        ".config/zed/settings.json",
    ),
    (
        "vscode",
        "XDG_CONFIG_HOME",
        "Code/User/mcp.json",
        ".config/Code/User/mcp.json",
    ),
    (
        "vscode",
        "VSCODE_APPDATA",
        "Code/User/mcp.json",
        ".config/Code/User/mcp.json",
    ),
];

fn platform() -> &'static str {
    dotpack::model::hosts::Platform::current().name()
}

fn json(out: &[u8]) -> serde_json::Value {
    serde_json::from_slice(out).expect("--json output is JSON")
}

/// The user-scope file `hosts --json` names for `host`.
fn hosts_file(env: &Env, var: &str, dir: &Path, host: &str) -> String {
    let out = env
        .dotpack()
        .env(var, dir)
        .args(["hosts", "--json"])
        .output()
        .unwrap();
    let report = json(&out.stdout);
    assert_eq!(report["platform"], platform(), "hosts names the platform");
    let row = report["hosts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["id"] == host)
        .unwrap_or_else(|| panic!("{host} listed"));
    row["scopes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["scope"] == "user")
        .and_then(|s| s["file"].as_str())
        .unwrap_or_else(|| panic!("{host} has a user file"))
        .to_string()
}

#[test]
fn each_host_variable_moves_the_file_dotpack_writes_reads_and_reports() {
    for &(host, var, under_var, default) in ROWS {
        let env = Env::new();
        let dir = env.home.path().join("moved");
        std::fs::create_dir_all(&dir).unwrap();
        env.write(
            "dotpack.toml",
            &format!(
                "[project]\nhosts = [{{ host = \"{host}\", scope = \"user\" }}]\n\n[servers.notes]\ncommand = \"notes-mcp\"\nargs = []\n"
            ),
        );
        let file = dir.join(under_var);
        let case = format!("{host} with {var}");
        env.dotpack()
            .env(var, &dir)
            .args(["--trust", "install"])
            .assert()
            .success();
        let written = std::fs::read_to_string(&file)
            .unwrap_or_else(|e| panic!("{case}: {} not written: {e}", file.display()));
        assert!(written.contains("notes-mcp"), "{case}: {written}");
        assert!(
            !env.home.path().join(default).exists(),
            "{case}: wrote the default file too"
        );
        // Reading: the entry is found where the variable says, and only there.
        env.dotpack()
            .env(var, &dir)
            .arg("status")
            .assert()
            .success()
            .stderr(contains("every declared server is installed"));
        let missing = env.dotpack().arg("status").output().unwrap();
        assert_eq!(
            missing.status.code(),
            Some(1),
            "{case}: status without {var}"
        );
        assert!(
            String::from_utf8_lossy(&missing.stdout).contains("not installed"),
            "{case}: status without {var}"
        );
        assert_eq!(
            hosts_file(&env, var, &dir, host),
            file.display().to_string(),
            "{case}: hosts"
        );
        let out = env
            .dotpack()
            .env(var, &dir)
            .args(["doctor", "--json"])
            .output()
            .unwrap();
        let report = json(&out.stdout);
        assert_eq!(report["platform"], platform(), "{case}: doctor");
        assert!(
            report["host_files"]
                .as_array()
                .unwrap()
                .iter()
                .any(|c| c["host"] == host && c["file"] == file.display().to_string()),
            "{case}: doctor checked {}: {report}",
            file.display()
        );
    }
}

/// `doctor` names the platform and each host file it read.
#[test]
fn doctor_names_the_platform_and_the_files_it_checked() {
    let env = Env::new();
    let codex = env.home.path().join("codex-home");
    std::fs::create_dir_all(&codex).unwrap();
    std::fs::write(
        codex.join("config.toml"),
        "[mcp_servers.x]\ncommand = \"x\"\n",
    )
    .unwrap();
    env.write("dotpack.toml", "[project]\nhosts = [\"claude-code\"]\n");
    env.write(".mcp.json", "{\"mcpServers\": {}}\n");
    let out = env
        .dotpack()
        .env("CODEX_HOME", &codex)
        .arg("doctor")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stderr);
    assert!(
        text.contains(&format!(
            "host config files on {}: no known footgun in 2 files",
            platform()
        )),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "user    {} (codex)",
            codex.join("config.toml").display()
        )),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "project {} (claude-code)",
            env.project.join(".mcp.json").display()
        )),
        "{text}"
    );
}
