//! Claude Code (hosts.md §1).
//!
//! - Project servers go in `.mcp.json`, user servers in `~/.claude.json` under the top-level
//!   `mcpServers`. Never any `settings.json`: Claude Code silently ignores `mcpServers` there.
//! - `CLAUDE_CONFIG_DIR` moves `.claude.json` into that directory.
//! - Strict JSON: comments are not documented as allowed. `~/.claude.json` also holds OAuth
//!   sessions and UI state, which the format backend leaves alone.
//! - `type` alone picks the transport: an entry with `url` but no `type` is treated as stdio and
//!   skipped, so remote entries always carry `http` or `sse`. Stdio entries carry `stdio` too, as
//!   the official examples and `claude mcp add` do.
//! - `${VAR}` / `${VAR:-default}` are expanded in command, args, env, url and headers.

use super::{FileFormat, HostAdapter, TransportTypes, UserPath};
use crate::template::EnvSyntax;

pub(super) const ADAPTER: HostAdapter = HostAdapter {
    id: "claude-code",
    format: FileFormat::Json,
    container: &["mcpServers"],
    project_file: Some(".mcp.json"),
    user_file: Some(CLAUDE_JSON),
    project_markers: &[".mcp.json", ".claude", "CLAUDE.md"],
    user_markers: &[CLAUDE_JSON, UserPath::Home(".claude")],
    env_syntax: EnvSyntax::DollarBrace,
    transport_types: TransportTypes {
        stdio: Some("stdio"),
        http: Some("http"),
        sse: Some("sse"),
        speaks_sse: true,
    },
};

const CLAUDE_JSON: UserPath = UserPath::EnvDir {
    var: "CLAUDE_CONFIG_DIR",
    default: "",
    file: ".claude.json",
};
