//! Cline (hosts.md §14).
//!
//! - The VS Code extension's `cline_mcp_settings.json` in VS Code's global storage
//!   (`~/.config/Code/User/globalStorage/saoudrizwan.claude-dev/settings/`, macOS under
//!   `~/Library/Application Support/Code/…`); key `mcpServers`; user scope only. The Cline CLI
//!   reads only a file of its own (`~/.cline/data/settings/`): host `cline-cli`.
//! - A remote entry without `type` is taken as SSE, so remote entries always carry
//!   `streamableHttp` (camelCase) or `sse`; stdio entries carry `stdio`.
//! - No interpolation (unconfirmed, so the safest reading): environment references are refused.

use super::{Container, EntryHooks, FileFormat, HostAdapter, TransportTypes, UserPath};
use crate::model::concepts::{Cell, Form, STDIO_CORE};
use crate::template::EnvSyntax;

pub(super) const ADAPTER: HostAdapter = HostAdapter {
    id: "cline",
    display_name: "Cline",
    priority: false,
    format: FileFormat::Json,
    container: Container::new(&["mcpServers"]),
    project_file: None,
    user_file: Some(UserPath::Config(
        "Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json",
    )),
    project_markers: &[".clinerules"],
    user_markers: &[UserPath::Config(
        "Code/User/globalStorage/saoudrizwan.claude-dev",
    )],
    env_syntax: EnvSyntax::None,
    remote_wrapper: None,
    also_expands: &[],
    transport_types: TRANSPORT_TYPES,
    fields: &[STDIO_CORE, FIELDS],
    resources: &[],
    also_named: None,
    own_fields: &[],
    hooks: EntryHooks::NONE,
    new_file: "",
    program: None,
    desktop_app: true,
};

/// Its `type` values: camelCase `streamableHttp`, and a remote entry without one is SSE. The
/// Cline CLI writes the same.
pub(super) const TRANSPORT_TYPES: TransportTypes = TransportTypes {
    stdio: Some("stdio"),
    http: Some("streamableHttp"),
    sse: Some("sse"),
    speaks_sse: true,
};

/// Its spellings beyond the stdio core, in concept-table order.
pub(super) const FIELDS: &[Cell] = &[
    Cell::same("url", "url"),
    Cell::new("transport_type_marker", "type", Form::Values),
    Cell::new("transport_type_marker", "transportType", Form::Legacy),
    Cell::same("http_transport_headers", "headers"),
    Cell::new("oauth", "oauth", Form::Values),
    Cell::same("stdio_working_directory", "cwd"),
    Cell::new("tool_call_timeout", "timeout", Form::Seconds),
    Cell::new("server_enabled", "disabled", Form::Inverted),
    Cell::same("auto_approve_tools", "autoApprove"),
];
