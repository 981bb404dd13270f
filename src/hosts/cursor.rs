//! Cursor (hosts.md §5).
//!
//! - `.cursor/mcp.json` (project) and `~/.cursor/mcp.json` (global), key `mcpServers`. An
//!   official example carries a `//` comment, so existing comments are tolerated and kept (JSONC);
//!   dotpack itself never adds any.
//! - `command` ⇒ stdio; `url` ⇒ remote, HTTP or SSE negotiated by Cursor, with no documented
//!   `type` value, so remote entries carry none. The field table lists `type: "stdio"` as required
//!   for stdio (the examples omit it); writing it is documented and harmless.
//! - `${env:NAME}` in command, args, env, url and headers; bare `${NAME}` does not resolve.

use super::{FileFormat, HostAdapter, TransportTypes, UserPath};
use crate::template::EnvSyntax;

pub(super) const ADAPTER: HostAdapter = HostAdapter {
    id: "cursor",
    format: FileFormat::Jsonc,
    container: &["mcpServers"],
    project_file: Some(".cursor/mcp.json"),
    user_file: Some(UserPath::Home(".cursor/mcp.json")),
    project_markers: &[".cursor", ".cursorrules"],
    user_markers: &[UserPath::Home(".cursor")],
    env_syntax: EnvSyntax::EnvColon,
    transport_types: TransportTypes {
        stdio: Some("stdio"),
        http: None,
        sse: None,
        speaks_sse: true,
    },
};
