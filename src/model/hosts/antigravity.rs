//! Antigravity (hosts.md §11; secondary sources only).
//!
//! - `~/.gemini/antigravity/mcp_config.json`, key `mcpServers`; user scope only.
//! - `command` ⇒ stdio; `serverUrl` ⇒ streamable HTTP (`url` and `httpUrl` silently fail). SSE
//!   is not documented, so SSE servers are refused.
//! - No interpolation is documented, so environment references are refused (safest reading).

use super::{Container, EntryHooks, FileFormat, HostAdapter, TransportTypes, UserPath};
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
    hooks: EntryHooks::NONE,
};
