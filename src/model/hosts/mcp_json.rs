//! The tool-neutral shared files (`../seeds/pi-mcp-adapter.txt`, hosts.md §12): `.mcp.json` in
//! the project and `~/.config/mcp/mcp.json` for the user, key `mcpServers`, read by pi's adapter
//! and other tools that look for a shared file.
//!
//! The project's `.mcp.json` is also Claude Code's project file: one file has one set of claims
//! and one writer, so a project declares either `claude-code` or `mcp-json` at project scope,
//! never both (see `crate::plan::targets`). Entries have Claude Code's shape (a `type` on every entry,
//! `${VAR}` references), which every reader of the shared file accepts.

use super::{Container, EntryHooks, FileFormat, HostAdapter, TransportTypes, UserPath};
use crate::model::concepts::{Cell, Form, STDIO_CORE};
use crate::template::EnvSyntax;

pub(super) const ADAPTER: HostAdapter = HostAdapter {
    id: "mcp-json",
    display_name: "shared .mcp.json files",
    priority: false,
    format: FileFormat::Json,
    container: Container::new(&["mcpServers"]),
    project_file: Some(".mcp.json"),
    user_file: Some(UserPath::Home(".config/mcp/mcp.json")),
    project_markers: &[],
    user_markers: &[UserPath::Home(".config/mcp/mcp.json")],
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
    hooks: EntryHooks::NONE,
    new_file: "",
    program: None,
    desktop_app: false,
};

/// Its spellings beyond the stdio core, in concept-table order.
const FIELDS: &[Cell] = &[
    Cell::same("url", "url"),
    Cell::new("transport_type_marker", "type", Form::Values),
    Cell::same("http_transport_headers", "headers"),
];
