//! Gemini CLI (hosts.md §3).
//!
//! - `.gemini/settings.json` (project) and `~/.gemini/settings.json` (user), key `mcpServers`;
//!   JSONC (read with `strip-json-comments`), and the same file holds unrelated settings.
//! - Transport: `command` ⇒ stdio; `url` with `type` `http` or `sse`. Without `type` Gemini tries
//!   streamable HTTP and falls back to SSE, so dotpack writes the type it knows, as
//!   `gemini mcp add` does. Stdio entries have no `type` (the field only takes http/sse).
//!   `httpUrl` is deprecated and never written.
//! - `$VAR`, `${VAR}`, `${VAR:-default}` are expanded in every string value.
//! - `GEMINI_CLI_HOME` moves the home Gemini reads: the user file is then
//!   `$GEMINI_CLI_HOME/.gemini/settings.json`.
//! - Comments are read (strip-json-comments) but trailing commas are not: the file is parsed as
//!   JSON after the comments are stripped. dotpack never writes a trailing comma.

use super::{Container, EntryHooks, FileFormat, HostAdapter, TransportTypes, UserPath};
use crate::model::concepts::{Cell, Form, STDIO_CORE};
use crate::model::resources::{Kind, KindLayout, Shape};
use crate::template::EnvSyntax;

pub(super) const ADAPTER: HostAdapter = HostAdapter {
    id: "gemini-cli",
    display_name: "Gemini CLI",
    priority: true,
    format: FileFormat::Jsonc,
    container: Container::new(&["mcpServers"]),
    project_file: Some(".gemini/settings.json"),
    user_file: Some(UserPath::EnvDir {
        var: "GEMINI_CLI_HOME",
        default: "",
        file: ".gemini/settings.json",
    }),
    project_markers: &[".gemini", "GEMINI.md"],
    user_markers: &[UserPath::EnvDir {
        var: "GEMINI_CLI_HOME",
        default: "",
        file: ".gemini",
    }],
    env_syntax: EnvSyntax::DollarBrace,
    remote_wrapper: None,
    also_expands: &[],
    transport_types: TransportTypes {
        stdio: None,
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
    program: Some("gemini"),
    desktop_app: false,
};

/// Its spellings beyond the stdio core, in concept-table order.
const FIELDS: &[Cell] = &[
    Cell::same("url", "url"),
    Cell::new("url", "httpUrl", Form::Legacy),
    Cell::new("transport_type_marker", "type", Form::Values),
    Cell::same("http_transport_headers", "headers"),
    Cell::new("oauth", "oauth", Form::Values),
    Cell::new("oauth_scopes", "oauth.scopes", Form::Nested),
    Cell::same("auth_provider_type", "authProviderType"),
    Cell::same("stdio_working_directory", "cwd"),
    Cell::new("tool_call_timeout", "timeout", Form::Millis),
    Cell::same("tool_allowlist", "includeTools"),
    Cell::same("tool_denylist", "excludeTools"),
    Cell::same("server_trust", "trust"),
    Cell::same("description", "description"),
];

/// Skills, commands, agents and memory. Sources: geminicli.com/docs/cli/custom-commands
/// (`.gemini/commands/*.toml`, `prompt` and `description`, `{{args}}`), skills
/// (`.gemini/skills`), subagents (`.gemini/agents/*.md`), GEMINI.md.
const RESOURCES: &[KindLayout] = &[
    KindLayout {
        kind: Kind::Skill,
        project: Some(".gemini/skills/{name}"),
        user: Some(".gemini/skills/{name}"),
        shape: Shape::SkillFolder,
        drops: &[],
    },
    KindLayout {
        kind: Kind::Command,
        project: Some(".gemini/commands/{name}.toml"),
        user: Some(".gemini/commands/{name}.toml"),
        shape: Shape::GeminiCommand,
        drops: &["argument-hint", "allowed-tools", "model"],
    },
    KindLayout {
        kind: Kind::Agent,
        project: Some(".gemini/agents/{name}.md"),
        user: Some(".gemini/agents/{name}.md"),
        shape: Shape::GeminiAgent,
        drops: &["tools", "model"],
    },
    KindLayout {
        kind: Kind::Memory,
        project: Some("GEMINI.md"),
        user: Some(".gemini/GEMINI.md"),
        shape: Shape::MemoryBlock,
        drops: &[],
    },
];

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::fixtures::*;

    #[test]
    fn stdio_has_no_type() {
        let t = run("gemini-cli", STDIO);
        assert_eq!(
            text(&t),
            r#"{"command":"npx","args":["-y","@acme/mcp","--port","4000"],"env":{"API_KEY":"${API_KEY}","LOG":"debug"}}"#
        );
    }

    #[test]
    fn remote_writes_url_with_type_never_http_url() {
        let t = run("gemini-cli", REMOTE);
        assert_eq!(
            text(&t),
            r#"{"type":"http","url":"https://mcp.acme.dev/acme/mcp","headers":{"Authorization":"Bearer ${ACME_TOKEN}","X-Client":"dotpack","X-Team":"${ACME_TEAM}"}}"#
        );
        assert_eq!(
            run("gemini-cli", SSE).entry,
            json!({"type": "sse", "url": "https://mcp.acme.dev/sse"})
        );
    }

    #[test]
    fn extras_rename_the_allow_list_and_keep_trust() {
        let t = run("gemini-cli", EXTRAS);
        assert_eq!(
            text(&t),
            r#"{"command":"acme-mcp","args":[],"cwd":"/srv/acme","timeout":30000,"includeTools":["read","search"],"trust":true,"description":"Acme tools"}"#
        );
        assert_eq!(renames(&t), [("enabled_tools", "includeTools")]);
        assert_eq!(drops(&t), [("startup_timeout_sec", false)]);
    }

    #[test]
    fn forwarded_env_vars_become_env_references_unless_remote() {
        let t = run(
            "gemini-cli",
            "command = \"x\"\nargs = []\nenv_vars = [\"A\", { name = \"B\" }]\n",
        );
        assert_eq!(
            t.entry,
            json!({"command": "x", "args": [], "env": {"A": "${A}", "B": "${B}"}})
        );
        let t = run(
            "gemini-cli",
            "command = \"x\"\nargs = []\nenv_vars = [\"A\", { name = \"B\", source = \"remote\" }]\n",
        );
        assert_eq!(drops(&t), [("env_vars", true)]);
    }
}
