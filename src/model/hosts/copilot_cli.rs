//! GitHub Copilot CLI (hosts.md §18).
//!
//! - `.github/mcp.json` (workspace, since 1.0.61) and `~/.copilot/mcp-config.json`
//!   (`$COPILOT_HOME` moves `~/.copilot`); key `mcpServers`. Copilot reads the project's
//!   `.mcp.json`, Claude Code's file, *instead of* `.github/mcp.json` whenever it exists
//!   (checked, 1.0.102): dotpack writes `.github/mcp.json` so that one file never has two
//!   writers, and warns when the plan writes `.mcp.json` too ([`super::precedence`]).
//! - `type`: `stdio` (`local`), `http`, `sse`.
//! - `tools` is the list of tools to expose (`["*"]` = all): canonical `enabled_tools`.
//! - `${VAR}` in env values.

use serde_json::Value;

use super::{Container, EntryHooks, FileFormat, HostAdapter, TransportTypes, UserPath};
use crate::model::concepts::{Cell, Form, STDIO_CORE};
use crate::template::EnvSyntax;

pub(super) const ADAPTER: HostAdapter = HostAdapter {
    id: "copilot-cli",
    display_name: "GitHub Copilot CLI",
    priority: false,
    format: FileFormat::Json,
    container: Container::new(&["mcpServers"]),
    project_file: Some(".github/mcp.json"),
    user_file: Some(COPILOT_CONFIG),
    project_markers: &[".github/mcp.json", ".github/copilot-instructions.md"],
    user_markers: &[UserPath::EnvDir {
        var: "COPILOT_HOME",
        default: ".copilot",
        file: "",
    }],
    env_syntax: EnvSyntax::DollarBrace,
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
    hooks: EntryHooks {
        value_to_host,
        value_from_host,
        ..EntryHooks::NONE
    },
    new_file: "",
    program: Some("copilot"),
    desktop_app: false,
};

/// Its spellings beyond the stdio core, in concept-table order.
const FIELDS: &[Cell] = &[
    Cell::same("url", "url"),
    Cell::new("transport_type_marker", "type", Form::Values),
    Cell::same("http_transport_headers", "headers"),
    Cell::new("oauth", "oauthClientId", Form::Values),
    Cell::same("stdio_working_directory", "cwd"),
    Cell::new("tool_allowlist", "tools", Form::Values),
];

const COPILOT_CONFIG: UserPath = UserPath::EnvDir {
    var: "COPILOT_HOME",
    default: ".copilot",
    file: "mcp-config.json",
};

/// `enabled_tools` is Copilot's `tools` list as it is.
fn value_to_host(field: &str, value: &Value) -> Option<Value> {
    (field == "enabled_tools" && value.is_array()).then(|| value.clone())
}

/// `tools = ["*"]` exposes everything: no allow list at all.
fn value_from_host(field: &str, value: &Value) -> Option<Value> {
    match value.as_array() {
        Some(tools) if field == "enabled_tools" => {
            let all = tools.iter().any(|t| t.as_str() == Some("*"));
            (!all).then(|| value.clone())
        }
        _ => None,
    }
}
