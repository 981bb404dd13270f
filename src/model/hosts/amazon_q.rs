//! Amazon Q Developer CLI (hosts.md §16; maintenance only, succeeded by Kiro).
//!
//! - The legacy files `q mcp add` writes: `.amazonq/mcp.json` (workspace) and
//!   `~/.aws/amazonq/mcp.json` (global); key `mcpServers`. Agent files are not written.
//! - `type`: `stdio` (default) or `http`; no SSE.
//! - `${env:VAR}` in env values and headers.

use super::{Container, EntryHooks, FileFormat, HostAdapter, TransportTypes, UserPath};
use crate::model::concepts::{Cell, Form, STDIO_CORE};
use crate::template::EnvSyntax;

pub(super) const ADAPTER: HostAdapter = HostAdapter {
    id: "amazon-q",
    display_name: "Amazon Q Developer CLI",
    priority: false,
    format: FileFormat::Json,
    container: Container::new(&["mcpServers"]),
    project_file: Some(".amazonq/mcp.json"),
    user_file: Some(UserPath::Home(".aws/amazonq/mcp.json")),
    project_markers: &[".amazonq"],
    user_markers: &[UserPath::Home(".aws/amazonq")],
    env_syntax: EnvSyntax::EnvColonKeepsUnset,
    remote_wrapper: None,
    also_expands: &[],
    transport_types: TransportTypes {
        stdio: Some("stdio"),
        http: Some("http"),
        sse: None,
        speaks_sse: false,
    },
    fields: &[STDIO_CORE, FIELDS],
    resources: &[],
    also_named: None,
    own_fields: &[],
    hooks: EntryHooks::NONE,
    new_file: "",
    program: Some("q"),
    desktop_app: false,
};

/// Its spellings beyond the stdio core, in concept-table order.
const FIELDS: &[Cell] = &[
    Cell::same("url", "url"),
    Cell::new("transport_type_marker", "type", Form::Values),
    Cell::same("http_transport_headers", "headers"),
    Cell::new("oauth", "oauth", Form::Values),
    Cell::same("oauth_scopes", "oauthScopes"),
    Cell::new("tool_call_timeout", "timeout", Form::Millis),
    Cell::new("server_enabled", "disabled", Form::Inverted),
];
