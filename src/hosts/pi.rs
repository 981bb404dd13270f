//! pi, through its `pi-mcp-adapter` extension (hosts.md §12).
//!
//! - `.pi/mcp.json` (project, pi-only, highest precedence) and `~/.pi/agent/mcp.json`
//!   (`$PI_CODING_AGENT_DIR/mcp.json`); key `mcpServers`. pi also reads the shared `.mcp.json`
//!   and `~/.config/mcp/mcp.json` (host `mcp-json`); dotpack writes pi's own files so pi-only
//!   fields stay out of files other hosts read.
//! - `command` / `url` decide the transport (streamable HTTP with SSE fallback); no `type`.
//! - `${VAR}` references in env, cwd, url and headers. A value starting with `!` is run as a
//!   command at connect time.

use super::{Container, EntryHooks, FileFormat, HostAdapter, TransportTypes, UserPath};
use crate::template::EnvSyntax;

pub(super) const ADAPTER: HostAdapter = HostAdapter {
    id: "pi",
    format: FileFormat::Json,
    container: Container::new(&["mcpServers"]),
    project_file: Some(".pi/mcp.json"),
    user_file: Some(UserPath::EnvDir {
        var: "PI_CODING_AGENT_DIR",
        default: ".pi/agent",
        file: "mcp.json",
    }),
    project_markers: &[".pi"],
    user_markers: &[UserPath::EnvDir {
        var: "PI_CODING_AGENT_DIR",
        default: ".pi/agent",
        file: "",
    }],
    env_syntax: EnvSyntax::DollarBrace,
    remote_wrapper: None,
    also_expands: &[],
    transport_types: TransportTypes::untyped(true),
    hooks: EntryHooks::NONE,
};
