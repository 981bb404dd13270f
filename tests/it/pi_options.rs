//! pi's adapter (`pi-mcp-adapter`, hosts.md §12): its own options are fields of `[servers.NAME]`
//! written in pi's spelling and imported back; its auth fields (`auth`, `oauth`, `bearerTokenEnv`)
//! are written as pi reads them, not refused as lossy; and a server the project keeps from pi is
//! switched off in pi's own file when pi would load it from a shared one.

use serde_json::{Value, json};

use crate::support::{Env, assert_success};

fn json_file(env: &Env, rel: &str) -> Value {
    serde_json::from_str(&env.read(rel)).unwrap()
}

fn import_pi(env: &Env) -> Value {
    let out = env
        .dotpack()
        .args(["import", "pi", "--json"])
        .output()
        .unwrap();
    assert_success(&out);
    serde_json::from_slice(&out.stdout).unwrap()
}

const OPTIONS: &str = "[servers.files]\ncommand = \"files-mcp\"\nargs = []\nlifecycle = \"keep-alive\"\nidle_timeout_min = 15\ndirect_tools = [\"read_file\"]\napprove_tools = [\"delete_*\"]\ntool_prefix = \"short\"\nexpose_resources = false\nprotocol_version = \"auto\"\ndebug = true\n";

#[test]
fn pi_options_are_written_in_pis_spelling_and_imported_back() {
    let env = Env::new();
    env.write(
        "dotpack.toml",
        &format!("[project]\nhosts = [\"pi\"]\n\n{OPTIONS}"),
    );
    let out = env.dotpack().arg("install").output().unwrap();
    assert_success(&out);
    assert_eq!(
        json_file(&env, ".pi/mcp.json")["mcpServers"]["files"],
        json!({
            "command": "files-mcp",
            "args": [],
            "approveTools": ["delete_*"],
            "lifecycle": "keep-alive",
            "idleTimeout": 15,
            "protocolVersion": "auto",
            "directTools": ["read_file"],
            "toolPrefix": "short",
            "exposeResources": false,
            "debug": true
        })
    );

    let imported = import_pi(&env);
    assert_eq!(
        imported["servers"]["files"],
        json!({
            "command": "files-mcp",
            "args": [],
            "approve_tools": ["delete_*"],
            "lifecycle": "keep-alive",
            "idle_timeout_min": 15,
            "protocol_version": "auto",
            "direct_tools": ["read_file"],
            "tool_prefix": "short",
            "expose_resources": false,
            "debug": true
        }),
        "{imported}"
    );
    assert!(
        imported["warnings"].as_array().is_none_or(Vec::is_empty),
        "{imported}"
    );
    // What was written is what the manifest asks for: nothing to change.
    env.dotpack()
        .args(["install", "--locked"])
        .assert()
        .success();
}

#[test]
fn pi_only_options_leave_other_hosts_quietly_but_approval_needs_naming() {
    let env = Env::new();
    env.write(
        "dotpack.toml",
        &format!("[project]\nhosts = [\"pi\", \"cursor\"]\n\n{OPTIONS}"),
    );
    // Cursor cannot ask before a tool runs: leaving `approve_tools` out is a security drop.
    let out = env.dotpack().arg("install").output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("approve_tools"), "{err}");
    assert!(!err.contains("lifecycle"), "{err}");

    let out = env
        .dotpack()
        .args(["install", "--allow-lossy=approve_tools"])
        .output()
        .unwrap();
    assert_success(&out);
    assert_eq!(
        json_file(&env, ".cursor/mcp.json")["mcpServers"]["files"],
        json!({"type": "stdio", "command": "files-mcp", "args": []})
    );
}

#[test]
fn pi_keeps_oauth_and_bearer_auth_in_the_form_both_its_readers_take() {
    let env = Env::new();
    env.write(
        "dotpack.toml",
        "[project]\nhosts = [\"pi\"]\n\n[servers.linear]\nurl = \"https://mcp.linear.app/mcp\"\nauth = \"oauth\"\noauth = { client_id = \"dotpack\", client_secret = \"{{env.LINEAR_SECRET}}\", redirect_uri = \"http://localhost:3118/callback\" }\nscopes = [\"read\", \"write\"]\n\n[servers.api]\nurl = \"https://api.example/mcp\"\nbearer_token_env_var = \"API_TOKEN\"\n",
    );
    let out = env.dotpack().arg("install").output().unwrap();
    assert_success(&out);
    let file = json_file(&env, ".pi/mcp.json");
    assert_eq!(
        file["mcpServers"]["linear"],
        json!({
            "url": "https://mcp.linear.app/mcp",
            "oauth": {
                "clientId": "dotpack",
                "clientSecret": "${LINEAR_SECRET}",
                "redirectUri": "http://localhost:3118/callback",
                "scope": "read write"
            },
        })
    );
    // Built-in pi refuses the whole entry for the adapter's `"auth": "bearer"` (and ignores
    // `bearerTokenEnv`): the header both send.
    assert_eq!(
        file["mcpServers"]["api"],
        json!({"url": "https://api.example/mcp", "headers": {"Authorization": "Bearer ${API_TOKEN}"}})
    );

    let imported = import_pi(&env);
    assert_eq!(
        imported["servers"]["linear"]["oauth"],
        json!({"client_id": "dotpack", "client_secret": "${LINEAR_SECRET}", "redirect_uri": "http://localhost:3118/callback"}),
        "{imported}"
    );
    assert_eq!(
        imported["servers"]["linear"]["scopes"],
        json!(["read", "write"])
    );
    assert_eq!(
        imported["servers"]["api"],
        json!({"url": "https://api.example/mcp", "http_headers": {"Authorization": "Bearer ${API_TOKEN}"}}),
        "{imported}"
    );
    env.dotpack()
        .args(["install", "--locked"])
        .assert()
        .success();
}

#[test]
fn a_bearer_token_in_pis_file_is_imported_as_the_authorization_header() {
    let env = Env::new();
    env.write(
        ".pi/mcp.json",
        r#"{"mcpServers": {"api": {"url": "https://api.example/mcp", "auth": "bearer", "bearerToken": "${API_TOKEN}"}}}"#,
    );
    let imported = import_pi(&env);
    assert_eq!(
        imported["servers"]["api"],
        json!({"url": "https://api.example/mcp", "http_headers": {"Authorization": "Bearer ${API_TOKEN}"}}),
        "{imported}"
    );
}

#[test]
fn an_oauth_key_pi_has_no_name_for_is_refused_as_lossy() {
    let env = Env::new();
    env.write(
        "dotpack.toml",
        "[project]\nhosts = [\"pi\"]\n\n[servers.linear]\nurl = \"https://mcp.linear.app/mcp\"\noauth = { client_id = \"dotpack\", callback_port = 3118 }\n",
    );
    let out = env.dotpack().arg("install").output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("oauth"), "{err}");
    assert!(!env.project.join(".pi/mcp.json").exists());
}

/// The claim of the entry `figma` in pi's project file, as `dotpack.lock` writes it.
const PI_FIGMA_CLAIM: &str =
    "file = \".pi/mcp.json\"\nhost = \"pi\"\nscope = \"project\"\nkey = \"mcpServers.figma\"";

const SHARED: &str = "[servers.figma]\nurl = \"http://127.0.0.1:3845/mcp\"\n\n[servers.other]\ncommand = \"other-mcp\"\nargs = []\n";

#[test]
fn a_server_kept_from_pi_is_switched_off_in_pis_file_when_mcp_json_holds_it() {
    let env = Env::new();
    let excluded = format!(
        "[project]\nhosts = [\"claude-code\", {{ host = \"pi\", exclude = [\"figma\"] }}]\n\n{SHARED}"
    );
    env.write("dotpack.toml", &excluded);
    let out = env.dotpack().arg("install").output().unwrap();
    assert_success(&out);
    // Claude Code's `.mcp.json` holds figma, and pi reads it: pi's own file, which comes
    // after it, switches figma off.
    assert!(json_file(&env, ".mcp.json")["mcpServers"]["figma"].is_object());
    let pi = json_file(&env, ".pi/mcp.json");
    // Both pi's readers' spellings: the adapter's `disabled`, built-in pi's `enabled`.
    assert_eq!(
        pi["mcpServers"]["figma"],
        json!({"disabled": true, "enabled": false})
    );
    assert_eq!(pi["mcpServers"]["other"]["command"], "other-mcp");
    let lock = env.read("dotpack.lock");
    assert!(lock.contains(PI_FIGMA_CLAIM), "{lock}");
    env.dotpack()
        .args(["install", "--locked"])
        .assert()
        .success();
    let out = env.dotpack().arg("status").output().unwrap();
    assert_success(&out);

    // Given back to pi, figma gets its whole entry there.
    env.write(
        "dotpack.toml",
        &format!("[project]\nhosts = [\"claude-code\", \"pi\"]\n\n{SHARED}"),
    );
    assert_success(&env.dotpack().arg("install").output().unwrap());
    assert_eq!(
        json_file(&env, ".pi/mcp.json")["mcpServers"]["figma"],
        json!({"url": "http://127.0.0.1:3845/mcp"})
    );

    // Kept from pi again and then uninstalled: the switch goes with the entry it switched off.
    env.write("dotpack.toml", &excluded);
    assert_success(&env.dotpack().arg("install").output().unwrap());
    assert_success(&env.dotpack().args(["uninstall", "figma"]).output().unwrap());
    assert!(
        json_file(&env, ".mcp.json")["mcpServers"]
            .get("figma")
            .is_none()
    );
    assert!(
        json_file(&env, ".pi/mcp.json")["mcpServers"]
            .get("figma")
            .is_none()
    );
}

#[test]
fn a_server_pi_does_not_read_elsewhere_is_simply_left_out_of_pis_file() {
    let env = Env::new();
    env.write(
        "dotpack.toml",
        &format!("[project]\nhosts = [\"cursor\", {{ host = \"pi\", exclude = [\"figma\"] }}]\n\n{SHARED}"),
    );
    assert_success(&env.dotpack().arg("install").output().unwrap());
    assert!(
        json_file(&env, ".pi/mcp.json")["mcpServers"]
            .get("figma")
            .is_none()
    );
}

#[test]
fn pis_own_switch_for_a_shared_server_is_left_as_the_user_wrote_it() {
    let env = Env::new();
    let mine = "{\"mcpServers\": {\"figma\": {\"disabled\": true}}}\n";
    env.write(".pi/mcp.json", mine);
    env.write(
        "dotpack.toml",
        &format!("[project]\nhosts = [\"claude-code\", {{ host = \"pi\", exclude = [\"figma\", \"other\"] }}]\n\n{SHARED}"),
    );
    assert_success(&env.dotpack().arg("install").output().unwrap());
    let pi = json_file(&env, ".pi/mcp.json");
    assert_eq!(pi["mcpServers"]["figma"], json!({"disabled": true}));
    assert_eq!(
        pi["mcpServers"]["other"],
        json!({"disabled": true, "enabled": false})
    );
    assert!(!env.read("dotpack.lock").contains(PI_FIGMA_CLAIM));
}

#[test]
fn the_shared_files_pi_reads_are_known_to_hosts_init_and_doctor() {
    let env = Env::new();
    let agents = env.home.path().join(".agents/mcp.json");
    std::fs::create_dir_all(agents.parent().unwrap()).unwrap();
    std::fs::write(
        &agents,
        r#"{"mcpServers": {"vault": {"command": "vault-mcp", "args": [], "env": {"TOKEN": "!op read op://v/t"}}}}"#,
    )
    .unwrap();

    let out = env.dotpack().args(["hosts", "--json"]).output().unwrap();
    assert_success(&out);
    let hosts: Value = serde_json::from_slice(&out.stdout).unwrap();
    let pi = hosts["hosts"]
        .as_array()
        .and_then(|h| h.iter().find(|h| h["id"] == "pi"))
        .cloned()
        .unwrap_or_default();
    assert_eq!(pi["detected"], true, "{pi}");
    let also: Vec<(String, bool)> = pi["also_reads"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|f| {
                    let file = f["file"].as_str().unwrap_or_default();
                    let home = env.home.path().display().to_string();
                    (file.replace(&home, "~"), f["exists"] == true)
                })
                .collect()
        })
        .unwrap_or_default();
    assert!(
        also.contains(&("~/.agents/mcp.json".to_string(), true)),
        "{also:?}"
    );
    assert!(
        also.contains(&("~/.agents/mcp/mcp.json".to_string(), false)),
        "{also:?}"
    );
    assert!(
        also.contains(&("~/.config/mcp/mcp.json".to_string(), false)),
        "{also:?}"
    );
    assert!(
        also.iter().any(|(f, _)| f.ends_with("/project/.mcp.json")),
        "{also:?}"
    );
    let text = env.dotpack().arg("hosts").output().unwrap();
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.contains("/.agents/mcp.json (exists, also read)"),
        "{text}"
    );

    let out = env.dotpack().args(["doctor", "--json"]).output().unwrap();
    let doctor: Value = serde_json::from_slice(&out.stdout).unwrap();
    let findings = doctor["hosts"].as_array().cloned().unwrap_or_default();
    assert!(
        findings.iter().any(|f| f["code"] == "shared-command"
            && f["host"] == "pi"
            && f["server"] == "vault"
            && f["file"]
                .as_str()
                .is_some_and(|p| p.ends_with(".agents/mcp.json"))),
        "{doctor}"
    );

    let out = env.dotpack().arg("init").output().unwrap();
    assert_success(&out);
    let manifest = env.read("dotpack.toml");
    assert!(manifest.contains("\"pi\""), "{manifest}");
}

#[test]
fn an_entry_is_written_for_built_in_pi_and_its_adapter_and_either_spelling_imports() {
    let env = Env::new();
    env.write(
        "dotpack.toml",
        "[project]\nhosts = [\"pi\"]\n\n[servers.files]\ncommand = \"files-mcp\"\nargs = []\nenabled = false\nenabled_tools = [\"read\", \"list\"]\ndisabled_tools = [\"list\"]\ntimeout = 2500\n",
    );
    assert_success(&env.dotpack().arg("install").output().unwrap());
    let file = json_file(&env, ".pi/mcp.json");
    assert_eq!(
        file["mcpServers"]["files"],
        json!({
            "command": "files-mcp",
            "args": [],
            "requestTimeoutMs": 2500,
            "disabled": true,
            "includeTools": ["read", "list"],
            "excludeTools": ["list"],
            "enabled": false,
            "exposure": "hidden",
            "toolExposure": {"read": "codemode", "list": "hidden"},
            "timeout": 2.5
        })
    );
    let imported = import_pi(&env);
    assert_eq!(
        imported["servers"]["files"],
        json!({"command": "files-mcp", "args": [], "timeout": 2500, "enabled": false, "enabled_tools": ["read", "list"], "disabled_tools": ["list"]}),
        "{imported}"
    );

    // What pi 1.6's own `/mcp` screen and `pi mcp add` write, with no adapter keys.
    env.write(
        ".pi/mcp.json",
        r#"{"mcpServers": {"files": {"command": "files-mcp", "enabled": false, "exposure": "hidden", "toolExposure": {"read": "codemode"}, "timeout": 3}}}"#,
    );
    let imported = import_pi(&env);
    assert_eq!(
        imported["servers"]["files"],
        json!({"command": "files-mcp", "timeout": 3000, "enabled": false, "enabled_tools": ["read"]}),
        "{imported}"
    );
}
