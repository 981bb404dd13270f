//! Windsurf (hosts.md §7).
//!
//! - `~/.codeium/windsurf/mcp_config.json`, key `mcpServers`; user scope only (a project file
//!   appears only in a third-party catalogue, unconfirmed, so dotpack writes none).
//! - `command` ⇒ stdio; `serverUrl` ⇒ remote. The docs also allow `url`, but an integrator
//!   reports a `url`-only entry registers nothing, so dotpack writes `serverUrl` and reads both.
//! - `${env:VAR}` in command, args, env, serverUrl and headers.

use super::{Container, EntryHooks, FileFormat, HostAdapter, TransportTypes, UserPath};
use crate::model::concepts::{Cell, Form, STDIO_CORE};
use crate::template::EnvSyntax;

pub(super) const ADAPTER: HostAdapter = HostAdapter {
    id: "windsurf",
    display_name: "Windsurf",
    priority: true,
    format: FileFormat::Json,
    container: Container::new(&["mcpServers"]),
    project_file: None,
    user_file: Some(UserPath::Home(".codeium/windsurf/mcp_config.json")),
    project_markers: &[".windsurfrules", ".windsurf"],
    user_markers: &[UserPath::Home(".codeium/windsurf")],
    env_syntax: EnvSyntax::EnvColon,
    remote_wrapper: None,
    also_expands: &[],
    transport_types: TransportTypes::untyped(true),
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
    // hosts.md: docs allow `url`, but a `url`-only entry reportedly registers nothing.
    Cell::same("url", "serverUrl"),
    Cell::new("url", "url", Form::Legacy),
    Cell::same("http_transport_headers", "headers"),
    Cell::new("server_enabled", "disabled", Form::Inverted),
    Cell::same("tool_denylist", "disabledTools"),
];
