//! OpenCode (hosts.md §8).
//!
//! - `opencode.json` in the project, `~/.config/opencode/opencode.json` for the user; key `mcp`;
//!   JSON with comments (JSONC). Both names are read at both scopes (hosts.md; opencode's
//!   config loader, anomalyco/opencode#3407): dotpack writes `opencode.json`, or the
//!   `opencode.jsonc` that is there instead, edited in place so its comments stay. The user
//!   folder is xdg-basedir's on every OS (`$XDG_CONFIG_HOME/opencode`, else `~/.config/opencode`,
//!   macOS and Windows included: opencode's `global/index.ts`). `$OPENCODE_CONFIG` and
//!   `$OPENCODE_CONFIG_DIR` add files merged over it; they do not move it.
//! - `type` is required: `local` (stdio) or `remote` (HTTP, SSE negotiated).
//! - `command` is one array holding the program and its arguments (`Form::CommandArray`); `env`
//!   is `environment`.
//! - `{env:VAR}` references (no `$`).

use super::{Container, EntryHooks, FileFormat, HostAdapter, TransportTypes, UserPath};
use crate::model::concepts::{Cell, Form};
use crate::template::EnvSyntax;

pub(super) const ADAPTER: HostAdapter = HostAdapter {
    id: "opencode",
    display_name: "OpenCode",
    priority: true,
    format: FileFormat::Jsonc,
    container: Container::new(&["mcp"]),
    project_file: Some("opencode.json"),
    user_file: Some(UserPath::XdgConfig("opencode/opencode.json")),
    project_markers: &["opencode.json", "opencode.jsonc", ".opencode"],
    user_markers: &[UserPath::XdgConfig("opencode")],
    env_syntax: EnvSyntax::BraceEnv,
    remote_wrapper: None,
    also_expands: &[],
    transport_types: TransportTypes {
        stdio: Some("local"),
        http: Some("remote"),
        sse: Some("remote"),
        speaks_sse: true,
    },
    fields: &[FIELDS],
    resources: &[],
    also_named: Some("opencode.jsonc"),
    own_fields: &[(
        "timeout",
        "how long OpenCode waits for the server's tool list, in milliseconds",
    )],
    hooks: EntryHooks::NONE,
    new_file: "",
    program: Some("opencode"),
    desktop_app: false,
};

/// Its spellings, in concept-table order.
const FIELDS: &[Cell] = &[
    Cell::new("command", "command", Form::CommandArray),
    Cell::new("args", "command", Form::CommandArray),
    Cell::same("env", "environment"),
    Cell::same("url", "url"),
    Cell::new("transport_type_marker", "type", Form::Values),
    Cell::same("http_transport_headers", "headers"),
    Cell::new("oauth", "oauth", Form::Values),
    Cell::same("stdio_working_directory", "cwd"),
    // OpenCode's `timeout` bounds the tool-list fetch only, not a tool call: no
    // `tool_call_timeout` cell, an own field instead.
    Cell::same("server_enabled", "enabled"),
];
