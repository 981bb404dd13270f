//! Kiro IDE and CLI (hosts.md §17).
//!
//! - `.kiro/settings/mcp.json` (workspace, wins) and `~/.kiro/settings/mcp.json`; key
//!   `mcpServers`.
//! - `command` / `url` decide the transport; no `type`. Only streamable HTTP is documented, so
//!   SSE servers are refused. `args` is required for local servers (dotpack always writes it).
//! - `${VAR}` in env and headers per the docs (some versions reportedly did not expand them).

use super::{Container, EntryHooks, FileFormat, HostAdapter, TransportTypes, UserPath};
use crate::model::concepts::{Cell, Form, STDIO_CORE};
use crate::template::EnvSyntax;

pub(super) const ADAPTER: HostAdapter = HostAdapter {
    id: "kiro",
    display_name: "Kiro",
    priority: false,
    format: FileFormat::Json,
    container: Container::new(&["mcpServers"]),
    project_file: Some(".kiro/settings/mcp.json"),
    user_file: Some(UserPath::Home(".kiro/settings/mcp.json")),
    project_markers: &[".kiro"],
    user_markers: &[UserPath::Home(".kiro")],
    env_syntax: EnvSyntax::DollarBrace,
    remote_wrapper: None,
    also_expands: &[],
    transport_types: TransportTypes::untyped(false),
    fields: &[STDIO_CORE, FIELDS],
    resources: &[],
    also_named: None,
    own_fields: &[],
    hooks: EntryHooks::NONE,
    new_file: "",
    program: None,
    desktop_app: false,
};

/// Its spellings beyond the stdio core, in concept-table order.
const FIELDS: &[Cell] = &[
    Cell::same("url", "url"),
    Cell::same("http_transport_headers", "headers"),
    Cell::new("oauth", "oauth", Form::Values),
    Cell::same("oauth_scopes", "oauthScopes"),
    Cell::new("server_enabled", "disabled", Form::Inverted),
    Cell::same("tool_denylist", "disabledTools"),
    Cell::same("auto_approve_tools", "autoApprove"),
];
