//! Cursor (hosts.md §5).
//!
//! - `.cursor/mcp.json` (project) and `~/.cursor/mcp.json` (global), key `mcpServers`. An
//!   official example carries a `//` comment, so existing comments are tolerated and kept (JSONC);
//!   dotpack itself never adds any.
//! - `command` ⇒ stdio; `url` ⇒ remote, HTTP or SSE negotiated by Cursor, with no documented
//!   `type` value, so remote entries carry none. The field table lists `type: "stdio"` as required
//!   for stdio (the examples omit it); writing it is documented and harmless.
//! - `${env:NAME}` in command, args, env, url and headers; bare `${NAME}` does not resolve.

use super::{Container, EntryHooks, FileFormat, HostAdapter, TransportTypes, UserPath};
use crate::model::concepts::{Cell, Form, STDIO_CORE};
use crate::model::resources::{Kind, KindLayout, Shape};
use crate::template::EnvSyntax;

pub(super) const ADAPTER: HostAdapter = HostAdapter {
    id: "cursor",
    display_name: "Cursor",
    priority: true,
    format: FileFormat::Jsonc,
    container: Container::new(&["mcpServers"]),
    project_file: Some(".cursor/mcp.json"),
    user_file: Some(UserPath::Home(".cursor/mcp.json")),
    project_markers: &[".cursor", ".cursorrules"],
    user_markers: &[UserPath::Home(".cursor")],
    env_syntax: EnvSyntax::EnvColon,
    remote_wrapper: None,
    also_expands: &[],
    transport_types: TransportTypes {
        stdio: Some("stdio"),
        http: None,
        sse: None,
        speaks_sse: true,
    },
    fields: &[STDIO_CORE, FIELDS],
    resources: RESOURCES,
    also_named: None,
    own_fields: &[],
    hooks: EntryHooks::NONE,
    new_file: "",
    program: None,
    desktop_app: true,
};

/// Its spellings beyond the stdio core, in concept-table order.
const FIELDS: &[Cell] = &[
    Cell::same("url", "url"),
    Cell::new("transport_type_marker", "type", Form::Values),
    Cell::same("http_transport_headers", "headers"),
    Cell::new("oauth", "auth", Form::Values),
    Cell::new("oauth_scopes", "auth.scopes", Form::Nested),
    Cell::same("env_file", "envFile"),
];

/// Skills, commands, rules and memory. Sources: cursor.com/docs/context/rules
/// (`.cursor/rules/*.mdc`: description, globs, alwaysApply), /context/skills (`.cursor/skills`),
/// commands (`.cursor/commands/*.md`, plain markdown), AGENTS.md at the project root. Cursor
/// keeps user rules in its settings, not files.
const RESOURCES: &[KindLayout] = &[
    KindLayout {
        kind: Kind::Skill,
        project: Some(".cursor/skills/{name}"),
        user: Some(".cursor/skills/{name}"),
        shape: Shape::SkillFolder,
        drops: &[],
    },
    KindLayout {
        kind: Kind::Command,
        project: Some(".cursor/commands/{name}.md"),
        user: Some(".cursor/commands/{name}.md"),
        shape: Shape::Body,
        drops: &["description", "argument-hint", "allowed-tools", "model"],
    },
    KindLayout {
        kind: Kind::Rule,
        project: Some(".cursor/rules/{name}.mdc"),
        user: None,
        shape: Shape::CursorRule,
        drops: &[],
    },
    KindLayout {
        kind: Kind::Memory,
        project: Some("AGENTS.md"),
        user: None,
        shape: Shape::MemoryBlock,
        drops: &[],
    },
];

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::fixtures::*;

    #[test]
    fn stdio_uses_env_colon_references() {
        let t = run("cursor", STDIO);
        assert_eq!(
            text(&t),
            r#"{"type":"stdio","command":"npx","args":["-y","@acme/mcp","--port","4000"],"env":{"API_KEY":"${env:API_KEY}","LOG":"debug"}}"#
        );
    }

    #[test]
    fn remote_has_no_type() {
        let t = run("cursor", REMOTE);
        assert_eq!(
            text(&t),
            r#"{"url":"https://mcp.acme.dev/acme/mcp","headers":{"Authorization":"Bearer ${env:ACME_TOKEN}","X-Client":"dotpack","X-Team":"${env:ACME_TEAM}"}}"#
        );
        assert_eq!(
            run("cursor", SSE).entry,
            json!({"url": "https://mcp.acme.dev/sse"})
        );
    }

    #[test]
    fn extras_are_all_dropped_and_say_where_they_fit() {
        let t = run("cursor", EXTRAS);
        assert_eq!(
            t.entry,
            json!({"type": "stdio", "command": "acme-mcp", "args": []})
        );
        assert_eq!(
            drops(&t),
            [
                ("cwd", false),
                ("enabled_tools", true),
                ("startup_timeout_sec", false),
                ("timeout", false),
                ("trust", true)
            ]
        );
        let allow = &t.dropped[1];
        assert_eq!(allow.concept, "tool_allowlist");
        assert_eq!(
            allow.supported_on,
            [
                "gemini-cli",
                "codex",
                "hermes",
                "pi",
                "goose",
                "copilot-cli",
                "crush"
            ]
        );
    }
}
