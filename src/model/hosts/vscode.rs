//! VS Code with GitHub Copilot Chat (hosts.md §6).
//!
//! - `.vscode/mcp.json` (workspace) and `mcp.json` in the profile's User directory
//!   (Linux `~/.config/Code/User/mcp.json`, honouring `XDG_CONFIG_HOME`; macOS
//!   `~/Library/Application Support/Code/User/mcp.json`; Windows `%APPDATA%\Code\User\mcp.json`;
//!   `$VSCODE_APPDATA` replaces the folder on every OS: VS Code's `userDataPath.ts`). The key is `servers`, not `mcpServers`.
//!   JSONC by VS Code convention.
//! - `type` (`stdio`, `http`, `sse`) is documented as required, so every entry carries it.
//! - `${env:NAME}` is resolved (reported flaky inside `headers`: microsoft/vscode#336232).

use super::{Container, EntryHooks, FileFormat, HostAdapter, TransportTypes, UserPath};
use crate::model::concepts::{Cell, Form, STDIO_CORE};
use crate::template::EnvSyntax;

pub(super) const ADAPTER: HostAdapter = HostAdapter {
    id: "vscode",
    display_name: "VS Code",
    priority: true,
    format: FileFormat::Jsonc,
    container: Container::new(&["servers"]),
    project_file: Some(".vscode/mcp.json"),
    user_file: Some(UserPath::VarOr {
        var: "VSCODE_APPDATA",
        file: "Code/User/mcp.json",
        otherwise: &UserPath::Config("Code/User/mcp.json"),
    }),
    project_markers: &[".vscode/mcp.json", ".vscode"],
    user_markers: &[UserPath::VarOr {
        var: "VSCODE_APPDATA",
        file: "Code/User",
        otherwise: &UserPath::Config("Code/User"),
    }],
    env_syntax: EnvSyntax::EnvColon,
    remote_wrapper: None,
    also_expands: &[],
    transport_types: TransportTypes {
        stdio: Some("stdio"),
        http: Some("http"),
        sse: Some("sse"),
        speaks_sse: true,
    },
    fields: &[STDIO_CORE, FIELDS],
    resources: &[],
    also_named: None,
    own_fields: &[],
    hooks: EntryHooks::NONE,
    new_file: "",
    program: None,
    desktop_app: true,
};

/// Its spellings beyond the stdio core, in concept-table order.
const FIELDS: &[Cell] = &[
    Cell::same("url", "url"),
    Cell::new("transport_type_marker", "type", Form::Values),
    Cell::same("http_transport_headers", "headers"),
    Cell::same("env_file", "envFile"),
    Cell::same("sandbox_enabled", "sandboxEnabled"),
    Cell::same("sandbox_policy", "sandbox"),
];

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::fixtures::*;

    #[test]
    fn stdio_carries_type_and_env_colon_references() {
        let t = run("vscode", STDIO);
        assert_eq!(
            text(&t),
            r#"{"type":"stdio","command":"npx","args":["-y","@acme/mcp","--port","4000"],"env":{"API_KEY":"${env:API_KEY}","LOG":"debug"}}"#
        );
    }

    #[test]
    fn remote_carries_http_or_sse() {
        let t = run("vscode", REMOTE);
        assert_eq!(
            text(&t),
            r#"{"type":"http","url":"https://mcp.acme.dev/acme/mcp","headers":{"Authorization":"Bearer ${env:ACME_TOKEN}","X-Client":"dotpack","X-Team":"${env:ACME_TEAM}"}}"#
        );
        assert_eq!(
            run("vscode", SSE).entry,
            json!({"type": "sse", "url": "https://mcp.acme.dev/sse"})
        );
    }

    #[test]
    fn extras_are_dropped_with_security_flags() {
        let t = run("vscode", EXTRAS);
        assert_eq!(
            t.entry,
            json!({"type": "stdio", "command": "acme-mcp", "args": []})
        );
        assert_eq!(
            drops(&t),
            [
                ("cwd", false),
                ("enabled_tools", true),
                ("startup_timeout_sec", false),
                ("timeout", false),
                ("trust", true)
            ]
        );
    }
}
