//! Hermes Agent (hosts.md §10).
//!
//! - `~/.hermes/config.yaml`, top-level `mcp_servers` (a YAML map); user scope only. The file is
//!   edited in place by the YAML backend: comments, quoting and indentation stay.
//! - `command` ⇒ stdio; `url` ⇒ streamable HTTP unless `transport: sse`.
//! - `${VAR}` and `${env:VAR}` anywhere in an entry; dotpack writes `${VAR}`.
//! - `trust`: `full` (the default) or `untrusted`; canonical `trust` is a boolean.
//! - `tools: {include, exclude}`: **include wins** over exclude, where canonical
//!   `enabled_tools`/`disabled_tools` apply the deny list after the allow list (as Codex, Gemini
//!   and pi do). When both are given, dotpack writes the allow list without the denied names, so
//!   the effective tool set is the same; with globs in the allow list that cannot be computed and
//!   the server is refused for Hermes.

use serde_json::{Map, Value};

use super::{Container, EntryHooks, FileFormat, HostAdapter, TransportTypes, UserPath};
use crate::model::concepts::{Cell, Form, STDIO_CORE};
use crate::template::EnvSyntax;

pub(super) const ADAPTER: HostAdapter = HostAdapter {
    id: "hermes",
    display_name: "Hermes Agent",
    priority: true,
    format: FileFormat::Yaml,
    container: Container::new(&["mcp_servers"]),
    project_file: None,
    // Hermes reads `$HERMES_HOME/config.yaml` when the variable is set.
    user_file: Some(UserPath::EnvDir {
        var: "HERMES_HOME",
        default: ".hermes",
        file: "config.yaml",
    }),
    project_markers: &[],
    user_markers: &[UserPath::EnvDir {
        var: "HERMES_HOME",
        default: ".hermes",
        file: "",
    }],
    env_syntax: EnvSyntax::DollarBrace,
    remote_wrapper: None,
    also_expands: &[EnvSyntax::EnvColon],
    transport_types: TransportTypes {
        stdio: None,
        http: None,
        sse: Some("sse"),
        speaks_sse: true,
    },
    fields: &[STDIO_CORE, FIELDS],
    resources: &[],
    also_named: None,
    // `tools.include` and `tools.exclude` are the allow and deny lists (cells below); what is
    // left of `tools` (`resources`, `prompts`) is Hermes' own.
    own_fields: &[(
        "tools",
        "`tools.resources` and `tools.prompts`: whether the server's resources and prompts are offered",
    )],
    hooks: EntryHooks {
        to_host,
        value_to_host,
        value_from_host,
        ..EntryHooks::NONE
    },
    new_file: "",
    program: Some("hermes"),
    desktop_app: false,
};

/// Its spellings beyond the stdio core, in concept-table order.
const FIELDS: &[Cell] = &[
    Cell::same("url", "url"),
    Cell::new("transport_type_marker", "transport", Form::Values),
    Cell::same("http_transport_headers", "headers"),
    Cell::new("oauth", "oauth", Form::Values),
    Cell::same("http_auth_mode", "auth"),
    Cell::same("tls_verify", "ssl_verify"),
    Cell::same("tls_client_cert", "client_cert"),
    Cell::same("tls_client_key", "client_key"),
    Cell::same("identity_header", "identity_header"),
    Cell::new("tool_call_timeout", "timeout", Form::Seconds),
    Cell::new("connect_timeout", "connect_timeout", Form::Seconds),
    Cell::same("server_enabled", "enabled"),
    // Hermes' `tools` is not Codex's (approval overrides): its include/exclude are the allow and
    // deny lists.
    Cell::new("tool_allowlist", "tools.include", Form::Nested),
    Cell::new("tool_denylist", "tools.exclude", Form::Nested),
    Cell::new("server_trust", "trust", Form::Values),
    Cell::same("parallel_tool_calls", "supports_parallel_tool_calls"),
    Cell::same("sampling_policy", "sampling"),
    Cell::same("elicitation_policy", "elicitation"),
];

fn value_to_host(field: &str, value: &Value) -> Option<Value> {
    match (field, value) {
        ("trust", Value::Bool(true)) => Some(Value::from("full")),
        ("trust", Value::Bool(false)) => Some(Value::from("untrusted")),
        _ => None,
    }
}

/// Hermes reads any value but `full` as untrusted.
fn value_from_host(field: &str, value: &Value) -> Option<Value> {
    (field == "trust").then(|| Value::Bool(value.as_str() == Some("full")))
}

/// Applies the deny list to the allow list, since Hermes ignores `exclude` when `include` is set.
fn to_host(_name: &str, entry: &mut Map<String, Value>) -> Result<(), String> {
    let Some(Value::Object(tools)) = entry.get_mut("tools") else {
        return Ok(());
    };
    let (Some(Value::Array(include)), Some(Value::Array(exclude))) =
        (tools.get("include"), tools.get("exclude"))
    else {
        return Ok(());
    };
    let names = |list: &[Value]| -> Option<Vec<String>> {
        list.iter()
            .map(|v| v.as_str().map(str::to_string))
            .collect()
    };
    let (Some(include), Some(exclude)) = (names(include), names(exclude)) else {
        return Err("`enabled_tools` and `disabled_tools` must be lists of names".to_string());
    };
    if include.iter().any(|t| is_glob(t)) {
        return Err(format!(
            "Hermes applies `tools.include` and ignores `tools.exclude`, and the allow list has \
             patterns ({}), so the denied tools cannot be taken out of it: list the allowed tools \
             by name, or drop `disabled_tools` for this host",
            include.join(", ")
        ));
    }
    let kept: Vec<Value> = include
        .into_iter()
        .filter(|tool| !exclude.iter().any(|pattern| glob_match(pattern, tool)))
        .map(Value::from)
        .collect();
    tools.insert("include".to_string(), Value::Array(kept));
    tools.remove("exclude");
    Ok(())
}

fn is_glob(s: &str) -> bool {
    s.contains(['*', '?', '['])
}

/// `*` and `?` wildcards, as Hermes' tool filters read them (fnmatch); `[` matches itself: the
/// bridge's tool-name matcher, which reads patterns the same way.
fn glob_match(pattern: &str, text: &str) -> bool {
    crate::mcp::bridge::tool_pattern_matches(pattern, text)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::fixtures::*;

    #[test]
    fn trust_and_sse_transport_in_hermes_words() {
        let t = run("hermes", "command = \"x\"\nargs = []\ntrust = false\n");
        assert_eq!(
            t.entry,
            json!({"command": "x", "args": [], "trust": "untrusted"})
        );
        assert_eq!(
            run("hermes", SSE).entry,
            json!({"transport": "sse", "url": "https://mcp.acme.dev/sse"})
        );
    }

    #[test]
    fn include_wins_so_the_deny_list_is_applied_first() {
        let t = run(
            "hermes",
            "command = \"x\"\nargs = []\nenabled_tools = [\"read\", \"write\", \"delete_all\"]\ndisabled_tools = [\"delete_*\"]\n",
        );
        assert_eq!(t.entry["tools"], json!({"include": ["read", "write"]}));
        let err = try_run(
            "hermes",
            "command = \"x\"\nargs = []\nenabled_tools = [\"read_*\"]\ndisabled_tools = [\"read_secret\"]\n",
        )
        .unwrap_err();
        assert!(err.to_string().contains("patterns"), "{err}");
    }

    #[test]
    fn globs() {
        assert!(super::glob_match("delete_*", "delete_all"));
        assert!(super::glob_match("*", ""));
        assert!(super::glob_match("a*b*c", "aXXbYYc"));
        assert!(!super::glob_match("a*b*c", "aXXbYY"));
        assert!(super::glob_match("*a", "aaa"));
        assert!(!super::glob_match("", "a"));
        // A pathological pattern against a long name answers at once.
        let name = "a".repeat(40);
        assert!(!super::glob_match(&format!("{}b", "*a".repeat(20)), &name));
        assert!(super::glob_match(&"*a".repeat(20), &name));
        assert!(super::glob_match("a?c", "abc"));
        assert!(!super::glob_match("a?c", "ac"));
    }
}
