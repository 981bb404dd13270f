//! Codex (hosts.md §4).
//!
//! - TOML: `.codex/config.toml` (project; Codex loads it only for trusted projects) and
//!   `$CODEX_HOME/config.toml`, default `~/.codex/config.toml`; table `mcp_servers`.
//! - No `type` key: `command` ⇒ stdio, `url` ⇒ streamable HTTP. Its JSON schema disallows unknown
//!   keys (the loader itself ignores them silently), so `type` is never written. No SSE at all.
//! - No interpolation: `${VAR}` stays literal. Environment references are forwarded by name
//!   instead (`env_vars`, `env_http_headers`, `bearer_token_env_var`; see `crate::plan::to_host`).

use super::{Container, EntryHooks, FileFormat, HostAdapter, TransportTypes, UserPath};
use crate::model::concepts::{Cell, Form, STDIO_CORE};
use crate::model::resources::{Kind, KindLayout, Shape};
use crate::template::EnvSyntax;

pub(super) const ADAPTER: HostAdapter = HostAdapter {
    id: "codex",
    display_name: "Codex",
    priority: true,
    format: FileFormat::Toml,
    container: Container::new(&["mcp_servers"]),
    project_file: Some(".codex/config.toml"),
    user_file: Some(UserPath::EnvDir {
        var: "CODEX_HOME",
        default: ".codex",
        file: "config.toml",
    }),
    project_markers: &[".codex"],
    user_markers: &[UserPath::EnvDir {
        var: "CODEX_HOME",
        default: ".codex",
        file: "",
    }],
    env_syntax: EnvSyntax::None,
    remote_wrapper: None,
    also_expands: &[],
    transport_types: TransportTypes::untyped(false),
    fields: &[STDIO_CORE, FIELDS],
    resources: RESOURCES,
    also_named: None,
    own_fields: &[],
    hooks: EntryHooks::NONE,
    new_file: "",
    program: Some("codex"),
    desktop_app: false,
};

/// Its spellings beyond the stdio core, in concept-table order.
const FIELDS: &[Cell] = &[
    Cell::same("url", "url"),
    Cell::same("http_transport_headers", "http_headers"),
    Cell::new("http_transport_headers", "headers", Form::Legacy),
    // Codex 0.171: a string, remote servers only (checked against the real CLI).
    Cell::same("headers_helper", "http_headers_helper"),
    Cell::same("codex_bearer_token_env_var", "bearer_token_env_var"),
    Cell::same("env_http_headers", "env_http_headers"),
    Cell::new("oauth", "oauth", Form::Values),
    Cell::same("oauth_resource", "oauth_resource"),
    Cell::same("oauth_scopes", "scopes"),
    Cell::same("codex_env_vars_with_source", "env_vars"),
    Cell::same("stdio_working_directory", "cwd"),
    // Codex 0.171 reads `environment_id` and ignores `experimental_environment` (checked
    // against the real CLI: a non-string `environment_id` is refused, the old key is not).
    Cell::same("codex_experimental_environment", "environment_id"),
    Cell::same("codex_startup_timeout", "startup_timeout_sec"),
    Cell::new("tool_call_timeout", "tool_timeout_sec", Form::Seconds),
    Cell::same("server_enabled", "enabled"),
    Cell::same("server_required", "required"),
    Cell::same("tool_allowlist", "enabled_tools"),
    Cell::same("tool_denylist", "disabled_tools"),
    Cell::same("tool_approval_overrides", "tools"),
    Cell::same("default_tool_approval_mode", "default_tools_approval_mode"),
    // mcp-server-concepts.md lists Hermes only; hosts.md also has it in Codex.
    Cell::same("parallel_tool_calls", "supports_parallel_tool_calls"),
];

/// Skills, commands and memory. Sources: developers.openai.com/codex/skills (repo
/// `.agents/skills`, user `$HOME/.agents/skills`), custom prompts (`~/.codex/prompts/*.md`, user
/// scope only), AGENTS.md. Codex "rules" are command execution policies, not guidance: no rule
/// row.
const RESOURCES: &[KindLayout] = &[
    KindLayout {
        kind: Kind::Skill,
        project: Some(".agents/skills/{name}"),
        user: Some(".agents/skills/{name}"),
        shape: Shape::SkillFolder,
        drops: &[],
    },
    KindLayout {
        kind: Kind::Command,
        project: None,
        user: Some(".codex/prompts/{name}.md"),
        shape: Shape::Markdown,
        drops: &["allowed-tools", "model"],
    },
    KindLayout {
        kind: Kind::Memory,
        project: Some("AGENTS.md"),
        user: Some(".codex/AGENTS.md"),
        shape: Shape::MemoryBlock,
        drops: &[],
    },
];

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::fixtures::*;
    use crate::plan::to_host::TranslateError;

    fn unsupported_field(toml: &str) -> (String, String) {
        match try_run("codex", toml) {
            Err(e @ TranslateError::Unsupported { .. }) => {
                let message = e.to_string();
                let TranslateError::Unsupported { field, .. } = e else {
                    unreachable!()
                };
                (field, message)
            }
            other => panic!("expected Unsupported, got {other:?}"),
        }
    }

    #[test]
    fn stdio_forwards_env_references_by_name() {
        let t = run("codex", STDIO);
        assert_eq!(
            text(&t),
            r#"{"command":"npx","args":["-y","@acme/mcp","--port","4000"],"env":{"LOG":"debug"},"env_vars":["API_KEY"]}"#
        );
        assert_eq!(renames(&t), [("env.API_KEY", "env_vars")]);
    }

    #[test]
    fn forwarded_names_join_declared_env_vars() {
        let t = run(
            "codex",
            "command = \"x\"\nargs = []\nenv = { A = \"{{env.A}}\" }\nenv_vars = [{ name = \"R\", source = \"remote\" }, \"A\"]\n",
        );
        assert_eq!(
            t.entry,
            json!({"command": "x", "args": [], "env_vars": ["A", {"name": "R", "source": "remote"}]})
        );
    }

    #[test]
    fn remote_headers_become_bearer_and_env_headers() {
        let t = run("codex", REMOTE);
        assert_eq!(
            text(&t),
            r#"{"url":"https://mcp.acme.dev/acme/mcp","http_headers":{"X-Client":"dotpack"},"bearer_token_env_var":"ACME_TOKEN","env_http_headers":{"X-Team":"ACME_TEAM"}}"#
        );
        assert_eq!(
            renames(&t),
            [
                ("http_headers.Authorization", "bearer_token_env_var"),
                ("http_headers.X-Team", "env_http_headers.X-Team")
            ]
        );
        assert!(t.dropped.is_empty());
    }

    #[test]
    fn extras_convert_timeouts_and_drop_trust() {
        let t = run("codex", EXTRAS);
        assert_eq!(
            text(&t),
            r#"{"command":"acme-mcp","args":[],"cwd":"/srv/acme","startup_timeout_sec":20,"tool_timeout_sec":30,"enabled_tools":["read","search"]}"#
        );
        assert_eq!(renames(&t), [("timeout", "tool_timeout_sec")]);
        assert_eq!(drops(&t), [("trust", true)]);
        let t = run(
            "codex",
            "command = \"x\"\nargs = []\nstartup_timeout_ms = 2500\ntimeout = 1500\n",
        );
        // Codex reads `startup_timeout_ms` too: kept as the author wrote it.
        assert_eq!(
            t.entry,
            json!({"command": "x", "args": [], "startup_timeout_ms": 2500, "tool_timeout_sec": 1.5})
        );
        assert_eq!(renames(&t), [("timeout", "tool_timeout_sec")]);
    }

    #[test]
    fn environment_is_environment_id_and_headers_helper_is_http_headers_helper() {
        let t = run(
            "codex",
            "command = \"x\"\nargs = []\nexperimental_environment = \"remote\"\n",
        );
        assert_eq!(
            t.entry,
            json!({"command": "x", "args": [], "environment_id": "remote"})
        );
        assert!(t.dropped.is_empty());
        let t = run(
            "codex",
            "url = \"https://x\"\nheaders_helper = \"/usr/local/bin/mcp-headers\"\n",
        );
        assert_eq!(
            t.entry,
            json!({"url": "https://x", "http_headers_helper": "/usr/local/bin/mcp-headers"})
        );
        assert!(t.dropped.is_empty());
    }

    #[test]
    fn type_is_never_written_and_sse_is_refused() {
        let t = run("codex", "url = \"https://x\"\ntype = \"http\"\n");
        assert_eq!(t.entry, json!({"url": "https://x"}));
        assert_eq!(unsupported_field(SSE).0, "type");
    }

    #[test]
    fn env_references_codex_cannot_forward_are_refused_with_a_fix() {
        let (field, message) =
            unsupported_field("command = \"x\"\nargs = [\"--token\", \"{{env.TOKEN}}\"]\n");
        assert_eq!(field, "args[1]");
        assert!(message.contains("through `env`"), "{message}");
        let (field, message) = unsupported_field(
            "command = \"x\"\nargs = []\nenv = { GITHUB_TOKEN = \"{{env.GH_PAT}}\" }\n",
        );
        assert_eq!(field, "env.GITHUB_TOKEN");
        assert!(
            message.contains("GITHUB_TOKEN = \"{{env.GITHUB_TOKEN}}\""),
            "{message}"
        );
        let (field, _) =
            unsupported_field("command = \"x\"\nargs = []\nenv = { A = \"pre-{{env.A}}\" }\n");
        assert_eq!(field, "env.A");
        let (field, _) = unsupported_field(
            "url = \"https://x\"\nhttp_headers = { X-Key = \"key={{env.K}}\" }\n",
        );
        assert_eq!(field, "http_headers.X-Key");
        let (field, _) = unsupported_field("url = \"https://x/{{env.ORG}}\"\n");
        assert_eq!(field, "url");
    }
}
