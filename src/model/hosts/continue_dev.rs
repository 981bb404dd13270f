//! Continue (hosts.md §15).
//!
//! - `~/.continue/config.yaml` (`$CONTINUE_GLOBAL_DIR/config.yaml` when set: continue's
//!   `core/util/paths.ts`), where `mcpServers` is a YAML **list** of servers, each named by
//!   its `name` field (the YAML backend's keyed-list container); user scope only. Project
//!   "blocks" (`.continue/mcpServers/*.yaml`) need their own header and are not written.
//! - `type`: `stdio`, `sse` or `streamable-http`.
//! - Headers are `requestOptions.headers`.
//! - `${{ secrets.NAME }}` references; Continue resolves secrets from its `.env` files and the
//!   environment (unconfirmed for every version).

use super::{Container, EntryHooks, FileFormat, HostAdapter, TransportTypes, UserPath};
use crate::model::concepts::{Cell, Form, STDIO_CORE};
use crate::template::EnvSyntax;

pub(super) const ADAPTER: HostAdapter = HostAdapter {
    id: "continue",
    display_name: "Continue",
    priority: false,
    format: FileFormat::Yaml,
    container: Container::keyed_list(&["mcpServers"], "name"),
    project_file: None,
    user_file: Some(UserPath::EnvDir {
        var: "CONTINUE_GLOBAL_DIR",
        default: ".continue",
        file: "config.yaml",
    }),
    project_markers: &[".continue"],
    user_markers: &[UserPath::EnvDir {
        var: "CONTINUE_GLOBAL_DIR",
        default: ".continue",
        file: "",
    }],
    env_syntax: EnvSyntax::Secrets,
    remote_wrapper: None,
    also_expands: &[],
    transport_types: TransportTypes {
        stdio: Some("stdio"),
        http: Some("streamable-http"),
        sse: Some("sse"),
        speaks_sse: true,
    },
    fields: &[STDIO_CORE, FIELDS],
    resources: &[],
    also_named: None,
    own_fields: &[],
    hooks: EntryHooks::NONE,
    // Continue refuses a config.yaml without `name` and `version` ("name: Required"); these
    // are the lines of the file Continue itself writes first.
    new_file: "name: Local Config\nversion: 1.0.0\nschema: v1\n",
    program: None,
    desktop_app: false,
};

/// Its spellings beyond the stdio core, in concept-table order.
const FIELDS: &[Cell] = &[
    Cell::same("url", "url"),
    Cell::new("transport_type_marker", "type", Form::Values),
    Cell::new(
        "http_transport_headers",
        "requestOptions.headers",
        Form::Nested,
    ),
    Cell::same("stdio_working_directory", "cwd"),
    Cell::new("connect_timeout", "connectionTimeout", Form::Values),
];

#[cfg(test)]
mod tests {
    use super::super::fixtures::*;

    #[test]
    fn secrets_references_and_nested_headers() {
        let t = run("continue", REMOTE);
        assert_eq!(
            text(&t),
            r#"{"type":"streamable-http","url":"https://mcp.acme.dev/acme/mcp","requestOptions":{"headers":{"Authorization":"Bearer ${{ secrets.ACME_TOKEN }}","X-Client":"dotpack","X-Team":"${{ secrets.ACME_TEAM }}"}}}"#
        );
    }
}
