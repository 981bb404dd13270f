//! The Cline CLI (npm `cline`; hosts.md §14): the VS Code extension's format in a file of its own.
//!
//! - `~/.cline/data/settings/cline_mcp_settings.json` (`$CLINE_DIR` moves `~/.cline`); key
//!   `mcpServers`; user scope only. From the CLI's source (`resolveMcpSettingsPath` of
//!   `@cline/shared` 0.0.86, used by `cline` 3.0.65), which never reads the extension's file in
//!   VS Code's global storage, where host `cline` writes: a user of both declares both.
//!   `$CLINE_DATA_DIR` (the `data` folder) and `$CLINE_MCP_SETTINGS_PATH` (the file) move it
//!   too; dotpack honours `$CLINE_DIR` only.
//! - Entries as the extension's (`super::cline`): `type` on every entry (`stdio`,
//!   `streamableHttp`, `sse`), `disabled`, `autoApprove`, `timeout` in seconds; no interpolation
//!   (safest reading), so environment references are refused.

use super::{Container, EntryHooks, FileFormat, HostAdapter, UserPath};
use crate::model::concepts::STDIO_CORE;
use crate::template::EnvSyntax;

pub(super) const ADAPTER: HostAdapter = HostAdapter {
    id: "cline-cli",
    display_name: "Cline CLI",
    priority: false,
    format: FileFormat::Json,
    container: Container::new(&["mcpServers"]),
    project_file: None,
    user_file: Some(UserPath::EnvDir {
        var: "CLINE_DIR",
        default: ".cline",
        file: "data/settings/cline_mcp_settings.json",
    }),
    project_markers: &[],
    user_markers: &[UserPath::EnvDir {
        var: "CLINE_DIR",
        default: ".cline",
        file: "",
    }],
    env_syntax: EnvSyntax::None,
    remote_wrapper: None,
    also_expands: &[],
    transport_types: super::cline::TRANSPORT_TYPES,
    fields: &[STDIO_CORE, super::cline::FIELDS],
    resources: &[],
    also_named: None,
    own_fields: &[],
    hooks: EntryHooks::NONE,
    new_file: "",
    program: Some("cline"),
    desktop_app: false,
};
