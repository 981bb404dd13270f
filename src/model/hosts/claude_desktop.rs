//! Claude Desktop (hosts.md §2).
//!
//! - `claude_desktop_config.json` in the app's folder: macOS `~/Library/Application
//!   Support/Claude/`, Windows `%APPDATA%\Claude\`; on Linux (no official build) the community
//!   builds' `~/.config/Claude/` (unconfirmed). User scope only, key `mcpServers`, strict JSON;
//!   the file also holds app preferences, which the format backend leaves alone.
//! - stdio only: entries with `url` are skipped or crash the app. A remote server can only be
//!   reached through the `mcp-remote` wrapper (`npx -y mcp-remote URL`); dotpack writes it only
//!   when asked with `--allow-lossy=transport` and records that it did (see `crate::plan::to_host`).
//! - No interpolation: `${VAR}` arrives literally, so environment references are refused.

use super::{Container, EntryHooks, FileFormat, HostAdapter, TransportTypes, UserPath};
use crate::model::concepts::STDIO_CORE;
use crate::template::EnvSyntax;

pub(super) const ADAPTER: HostAdapter = HostAdapter {
    id: "claude-desktop",
    display_name: "Claude Desktop",
    priority: true,
    format: FileFormat::Json,
    container: Container::new(&["mcpServers"]),
    project_file: None,
    user_file: Some(UserPath::Config("Claude/claude_desktop_config.json")),
    project_markers: &[],
    user_markers: &[UserPath::Config("Claude")],
    env_syntax: EnvSyntax::None,
    remote_wrapper: Some(&["npx", "-y", "mcp-remote"]),
    also_expands: &[],
    transport_types: TransportTypes::untyped(false),
    fields: &[STDIO_CORE],
    resources: &[],
    also_named: None,
    own_fields: &[],
    hooks: EntryHooks::NONE,
    new_file: "",
    program: None,
    desktop_app: true,
};
