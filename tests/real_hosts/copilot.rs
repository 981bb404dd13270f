//! GitHub Copilot CLI asked with its own `copilot mcp list --json` what it read: at project and
//! user scope, the entries as dotpack wrote them (with the tool allow list); and beside Claude
//! Code at project scope, Claude Code's `.mcp.json` in place of `.github/mcp.json`, as dotpack's
//! warning says. `mcp list` does not start servers, so references are checked as written.

use super::*;

/// `copilot mcp list --json`, the servers by name, after trusting the project folder (Copilot
/// reads no workspace file in a folder the user has not trusted).
fn list(w: &World, copilot: &Path) -> Value {
    let config = w.root().join(".copilot");
    std::fs::create_dir_all(&config).expect("copilot folder");
    let trusted = json!({ "trusted_folders": [w.project.to_str().expect("utf-8 temp path")] });
    std::fs::write(config.join("config.json"), trusted.to_string()).expect("trust folder");
    let (out, _) = w.host(copilot, &["mcp", "list", "--json"]);
    let list: Value = serde_json::from_str(&out).expect("copilot mcp list --json");
    list["mcpServers"].clone()
}

#[test]
fn copilot_cli_reads_what_dotpack_wrote_at_each_scope() {
    let Some(copilot) = cli("copilot", "@github/copilot") else {
        return;
    };
    for scope in ["project", "user"] {
        let w = World::new();
        // The allow list goes with the remote server, the last in the manifest.
        w.install_with("copilot-cli", scope, "enabled_tools = [\"alpha\"]\n");
        // Copilot names the workspace file it read; a user server only as `user`.
        let (source, file) = match scope {
            "project" => ("workspace", json!(w.project.join(".github/mcp.json"))),
            _ => ("user", Value::Null),
        };
        assert!(
            w.root().join(".copilot/mcp-config.json").exists() == (scope == "user"),
            "dotpack wrote ~/.copilot/mcp-config.json at user scope only"
        );

        let servers = list(&w, &copilot);
        let what = format!("copilot mcp list --json ({scope}): {servers:#}");
        let local = &servers["local-tool"];
        assert_eq!(local["source"], source, "{what}");
        assert_eq!(local["sourcePath"], file, "{what}");
        assert_eq!(local["enabled"], json!(true), "{what}");
        assert_eq!(local["type"], "stdio", "{what}");
        assert_eq!(local["command"], "node", "{what}");
        assert_eq!(
            local["args"],
            json!([w.recorder_arg(), "--port", "4000"]),
            "{what}"
        );
        assert_eq!(
            local["env"],
            json!({"TOKEN": "${TOKEN}", "LEVEL": "debug"}),
            "{what}"
        );
        assert_eq!(local["tools"], json!(["*"]), "{what}");
        let remote = &servers["remote-api"];
        assert_eq!(remote["source"], source, "{what}");
        assert_eq!(remote["sourcePath"], file, "{what}");
        assert_eq!(remote["type"], "http", "{what}");
        assert_eq!(remote["url"], w.url(), "{what}");
        assert_eq!(
            remote["headers"],
            json!({"Authorization": "Bearer ${API_TOKEN}", "X-Client": "dotpack"}),
            "{what}"
        );
        assert_eq!(remote["tools"], json!(["alpha"]), "{what}");
    }
}

/// Beside Claude Code at project scope, Copilot reads `.mcp.json` and not `.github/mcp.json` at
/// all: the allow list written for it is lost, and a server kept from Claude Code is not seen.
/// dotpack warns about both.
#[test]
fn copilot_cli_reads_claude_codes_file_instead_of_its_own_as_dotpack_warns() {
    let Some(copilot) = cli("copilot", "@github/copilot") else {
        return;
    };
    let w = World::new();
    let manifest = format!(
        "[project]\nhosts = [{{ host = \"claude-code\", exclude = [\"mine\"] }}, \"copilot-cli\"]\n\n\
         [servers.both]\ncommand = \"node\"\nargs = [{recorder:?}]\nenabled_tools = [\"alpha\"]\n\n\
         [servers.mine]\ncommand = \"node\"\nargs = [{recorder:?}, \"mine\"]\n",
        recorder = w.recorder_arg(),
    );
    std::fs::write(w.project.join("dotpack.toml"), manifest).expect("manifest");
    let out = w
        .dotpack()
        .args(["--trust", "install", "--allow-lossy=enabled_tools"])
        .output()
        .expect("dotpack install");
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{said}");
    assert_has(
        &said,
        "GitHub Copilot CLI reads `.mcp.json` instead of `.github/mcp.json`",
        "dotpack's warning",
    );
    assert_has(&said, "it does not see mine", "dotpack's warning");
    let own = std::fs::read_to_string(w.project.join(".github/mcp.json")).expect("copilot file");
    assert_has(&own, "\"mine\"", "the file written for Copilot");

    let servers = list(&w, &copilot);
    let what = format!("copilot mcp list --json: {servers:#}");
    assert_eq!(
        servers["both"]["sourcePath"],
        json!(w.project.join(".mcp.json")),
        "{what}"
    );
    // Claude Code's entry, without the allow list written for Copilot alone.
    assert_eq!(servers["both"]["tools"], json!(["*"]), "{what}");
    assert!(servers.get("mine").is_none(), "{what}");
}
