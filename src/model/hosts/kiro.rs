//! Kiro IDE and CLI (hosts.md §17).
//!
//! - `.kiro/settings/mcp.json` (workspace, wins) and `~/.kiro/settings/mcp.json`; key
//!   `mcpServers`.
//! - `command` / `url` decide the transport; no `type`. Only streamable HTTP is documented, so
//!   SSE servers are refused. `args` is required for local servers (dotpack always writes it).
//! - `${VAR}` in env and headers per the docs (some versions reportedly did not expand them).

use super::{Container, EntryHooks, FileFormat, HostAdapter, TransportTypes, UserPath};
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
    hooks: EntryHooks::NONE,
};
