//! Crush (hosts.md §19).
//!
//! - The JSON format (deprecated in favour of `crushrc`, still read): `crush.json` in the project
//!   and `~/.config/crush/crush.json`; key `mcp`. The user file is
//!   `$CRUSH_GLOBAL_CONFIG/crush.json`, else `$XDG_CONFIG_HOME/crush/crush.json`, else
//!   `~/.config/crush/crush.json`, on every OS (crush `internal/config/load.go` `GlobalConfig`,
//!   `internal/home.Config`).
//! - `type` (`stdio`, `http`, `sse`) is required by its schema.
//! - Values get shell-style expansion (`$VAR`, `${VAR}` and `$(command)`): a project's
//!   `crush.json` runs commands when Crush loads it, so treat it as code.

use super::{Container, EntryHooks, FileFormat, HostAdapter, TransportTypes, UserPath};
use crate::model::concepts::{Cell, Form, STDIO_CORE};
use crate::template::EnvSyntax;

pub(super) const ADAPTER: HostAdapter = HostAdapter {
    id: "crush",
    display_name: "Crush",
    priority: false,
    format: FileFormat::Json,
    container: Container::new(&["mcp"]),
    project_file: Some("crush.json"),
    user_file: Some(UserPath::VarOr {
        var: "CRUSH_GLOBAL_CONFIG",
        file: "crush.json",
        otherwise: &UserPath::XdgConfig("crush/crush.json"),
    }),
    project_markers: &["crush.json", ".crush.json", ".crushrc", "crushrc"],
    user_markers: &[UserPath::VarOr {
        var: "CRUSH_GLOBAL_CONFIG",
        file: "",
        otherwise: &UserPath::XdgConfig("crush"),
    }],
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
    program: Some("crush"),
    desktop_app: false,
};

/// Its spellings beyond the stdio core, in concept-table order.
const FIELDS: &[Cell] = &[
    Cell::same("url", "url"),
    Cell::new("transport_type_marker", "type", Form::Values),
    Cell::same("http_transport_headers", "headers"),
    Cell::new("oauth", "oauth_client_id", Form::Values),
    Cell::new("tool_call_timeout", "timeout", Form::Seconds),
    Cell::new("server_enabled", "disabled", Form::Inverted),
    Cell::same("tool_allowlist", "enabled_tools"),
    Cell::same("tool_denylist", "disabled_tools"),
];
