//! Antigravity (hosts.md §11; secondary sources only).
//!
//! - `~/.gemini/antigravity/mcp_config.json`, key `mcpServers`; user scope only.
//! - `command` ⇒ stdio; `serverUrl` ⇒ streamable HTTP (`url` and `httpUrl` silently fail). SSE
//!   is not documented, so SSE servers are refused.
//! - No interpolation is documented, so environment references are refused (safest reading).

use super::{Container, EntryHooks, FileFormat, HostAdapter, TransportTypes, UserPath};
use crate::model::concepts::{Cell, STDIO_CORE};
use crate::template::EnvSyntax;

pub(super) const ADAPTER: HostAdapter = HostAdapter {
    id: "antigravity",
    display_name: "Antigravity",
    priority: true,
    format: FileFormat::Json,
    container: Container::new(&["mcpServers"]),
    project_file: None,
    user_file: Some(UserPath::Home(".gemini/antigravity/mcp_config.json")),
    project_markers: &[],
    user_markers: &[UserPath::Home(".gemini/antigravity")],
    env_syntax: EnvSyntax::None,
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
    desktop_app: true,
};

/// Its spellings beyond the stdio core, in concept-table order.
const FIELDS: &[Cell] = &[
    Cell::same("url", "serverUrl"),
    Cell::same("http_transport_headers", "headers"),
    // mcp-server-concepts.md also lists `cwd` and `trust` here; hosts.md (fresher) has neither.
];
