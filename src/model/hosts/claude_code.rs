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

use super::{Container, EntryHooks, FileFormat, HostAdapter, TransportTypes, UserPath};
use crate::model::concepts::{Cell, Form, STDIO_CORE};
use crate::model::resources::{Kind, KindLayout, Shape};
use crate::template::EnvSyntax;

pub(super) const ADAPTER: HostAdapter = HostAdapter {
    id: "claude-code",
    display_name: "Claude Code",
    priority: true,
    format: FileFormat::Json,
    container: Container::new(&["mcpServers"]),
    project_file: Some(".mcp.json"),
    user_file: Some(CLAUDE_JSON),
    project_markers: &[".mcp.json", ".claude", "CLAUDE.md"],
    user_markers: &[CLAUDE_JSON, UserPath::Home(".claude")],
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
    resources: RESOURCES,
    also_named: None,
    own_fields: &[],
    hooks: EntryHooks::NONE,
    new_file: "",
    program: Some("claude"),
    desktop_app: false,
};

/// Its spellings beyond the stdio core, in concept-table order.
const FIELDS: &[Cell] = &[
    Cell::same("url", "url"),
    Cell::new("transport_type_marker", "type", Form::Values),
    Cell::same("http_transport_headers", "headers"),
    Cell::same("headers_helper", "headersHelper"),
    Cell::new("oauth", "oauth", Form::Values),
    Cell::new("tool_call_timeout", "timeout", Form::Millis),
    Cell::same("always_load", "alwaysLoad"),
];

/// Skills, commands, agents, rules and memory. Sources: code.claude.com docs "Agent Skills",
/// "Slash commands", "Subagents", "Memory" (`.claude/rules/*.md` with `paths` frontmatter).
const RESOURCES: &[KindLayout] = &[
    KindLayout {
        kind: Kind::Skill,
        project: Some(".claude/skills/{name}"),
        user: Some(".claude/skills/{name}"),
        shape: Shape::SkillFolder,
        drops: &[],
    },
    KindLayout {
        kind: Kind::Command,
        project: Some(".claude/commands/{name}.md"),
        user: Some(".claude/commands/{name}.md"),
        shape: Shape::Markdown,
        drops: &[],
    },
    KindLayout {
        kind: Kind::Agent,
        project: Some(".claude/agents/{name}.md"),
        user: Some(".claude/agents/{name}.md"),
        shape: Shape::Markdown,
        drops: &[],
    },
    KindLayout {
        kind: Kind::Rule,
        project: Some(".claude/rules/{name}.md"),
        user: Some(".claude/rules/{name}.md"),
        shape: Shape::ClaudeRule,
        drops: &[],
    },
    KindLayout {
        kind: Kind::Memory,
        project: Some("CLAUDE.md"),
        user: Some(".claude/CLAUDE.md"),
        shape: Shape::MemoryBlock,
        drops: &[],
    },
];

const CLAUDE_JSON: UserPath = UserPath::EnvDir {
    var: "CLAUDE_CONFIG_DIR",
    default: "",
    file: ".claude.json",
};

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::fixtures::*;

    #[test]
    fn stdio_carries_type_stdio_and_dollar_brace_references() {
        let t = run("claude-code", STDIO);
        assert_eq!(
            t.entry,
            json!({"type": "stdio", "command": "npx", "args": ["-y", "@acme/mcp", "--port", "4000"],
                   "env": {"API_KEY": "${API_KEY}", "LOG": "debug"}})
        );
        assert_eq!(
            text(&t),
            r#"{"type":"stdio","command":"npx","args":["-y","@acme/mcp","--port","4000"],"env":{"API_KEY":"${API_KEY}","LOG":"debug"}}"#
        );
        assert!(t.dropped.is_empty() && t.renamed.is_empty());
    }

    #[test]
    fn remote_always_carries_type_and_headers() {
        let t = run("claude-code", REMOTE);
        assert_eq!(
            text(&t),
            r#"{"type":"http","url":"https://mcp.acme.dev/acme/mcp","headers":{"Authorization":"Bearer ${ACME_TOKEN}","X-Client":"dotpack","X-Team":"${ACME_TEAM}"}}"#
        );
        assert_eq!(renames(&t), [("http_headers", "headers")]);
        assert_eq!(
            run("claude-code", SSE).entry,
            json!({"type": "sse", "url": "https://mcp.acme.dev/sse"})
        );
    }

    #[test]
    fn extras_keep_the_call_timeout_and_drop_the_rest() {
        let t = run("claude-code", EXTRAS);
        assert_eq!(
            t.entry,
            json!({"type": "stdio", "command": "acme-mcp", "args": [], "timeout": 30000})
        );
        assert_eq!(
            drops(&t),
            [
                ("cwd", false),
                ("enabled_tools", true),
                ("startup_timeout_sec", false),
                ("trust", true)
            ]
        );
    }

    #[test]
    fn bearer_and_env_headers_become_interpolated_headers() {
        let t = run(
            "claude-code",
            "url = \"https://x\"\nbearer_token_env_var = \"TOKEN\"\nenv_http_headers = { X-Key = \"KEY\" }\n",
        );
        assert_eq!(
            text(&t),
            r#"{"type":"http","url":"https://x","headers":{"Authorization":"Bearer ${TOKEN}","X-Key":"${KEY}"}}"#
        );
        assert_eq!(
            renames(&t),
            [
                ("bearer_token_env_var", "headers"),
                ("env_http_headers", "headers")
            ]
        );
        assert!(t.dropped.is_empty());
    }
}
