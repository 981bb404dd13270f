//! OpenCode (hosts.md §8).
//!
//! - `opencode.json` in the project, `~/.config/opencode/opencode.json` for the user; key `mcp`;
//!   JSON with comments (JSONC). dotpack writes the `.json` file; a project that keeps only
//!   `opencode.jsonc` is not written into (hosts.md: both names are read).
//! - `type` is required: `local` (stdio) or `remote` (HTTP, SSE negotiated).
//! - `command` is one array holding the program and its arguments; `env` is `environment`
//!   (both from the concept table).
//! - `{env:VAR}` references (no `$`).

use super::{Container, EntryHooks, FileFormat, HostAdapter, TransportTypes, UserPath};
use crate::template::EnvSyntax;

pub(super) const ADAPTER: HostAdapter = HostAdapter {
    id: "opencode",
    display_name: "OpenCode",
    priority: true,
    format: FileFormat::Jsonc,
    container: Container::new(&["mcp"]),
    project_file: Some("opencode.json"),
    user_file: Some(UserPath::Config("opencode/opencode.json")),
    project_markers: &["opencode.json", "opencode.jsonc", ".opencode"],
    user_markers: &[UserPath::Config("opencode")],
    env_syntax: EnvSyntax::BraceEnv,
    remote_wrapper: None,
    also_expands: &[],
    transport_types: TransportTypes {
        stdio: Some("local"),
        http: Some("remote"),
        sse: Some("remote"),
        speaks_sse: true,
    },
    hooks: EntryHooks::NONE,
};
