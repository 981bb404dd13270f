//! goose (hosts.md §13).
//!
//! - `~/.config/goose/config.yaml` (`$XDG_CONFIG_HOME`; the same place on macOS; Windows
//!   `%APPDATA%\Block\goose\config\config.yaml`; `$GOOSE_PATH_ROOT/config/config.yaml` on every
//!   OS: goose's `config/paths.rs`, etcetera's app strategies), top-level
//!   `extensions`; user scope only. Edited in place by the YAML backend.
//! - Each entry is `enabled` plus a flattened extension tagged by `type`: `stdio` (`cmd`, `args`,
//!   `envs`), `streamable_http` (`uri`, `headers`); `sse` is kept for old configs only, so SSE
//!   servers are refused. goose also wants the entry's `name`, written from the server's name.
//! - No interpolation in values: variables are named in `env_keys` and read from goose's secret
//!   store or the environment (dotpack's `env_vars`).

use serde_json::{Map, Value};

use super::{Container, EntryHooks, FileFormat, HostAdapter, TransportTypes, UserPath};
use crate::model::concepts::{Cell, Form};
use crate::template::EnvSyntax;

pub(super) const ADAPTER: HostAdapter = HostAdapter {
    id: "goose",
    display_name: "goose",
    priority: false,
    format: FileFormat::Yaml,
    container: Container::new(&["extensions"]),
    project_file: None,
    user_file: Some(UserPath::VarOr {
        var: "GOOSE_PATH_ROOT",
        file: "config/config.yaml",
        otherwise: &UserPath::PerPlatform {
            linux: &UserPath::XdgConfig("goose/config.yaml"),
            macos: &UserPath::XdgConfig("goose/config.yaml"),
            windows: &UserPath::Config("Block/goose/config/config.yaml"),
        },
    }),
    project_markers: &[".goosehints"],
    user_markers: &[UserPath::VarOr {
        var: "GOOSE_PATH_ROOT",
        file: "config",
        otherwise: &UserPath::PerPlatform {
            linux: &UserPath::XdgConfig("goose"),
            macos: &UserPath::XdgConfig("goose"),
            windows: &UserPath::Config("Block/goose/config"),
        },
    }],
    env_syntax: EnvSyntax::None,
    remote_wrapper: None,
    also_expands: &[],
    transport_types: TransportTypes {
        stdio: Some("stdio"),
        http: Some("streamable_http"),
        sse: None,
        speaks_sse: false,
    },
    fields: &[FIELDS],
    resources: &[],
    also_named: None,
    own_fields: &[],
    hooks: EntryHooks {
        to_host,
        from_host,
        value_to_host,
        value_from_host: |_, _| None,
        command_values: None,
    },
    new_file: "",
    program: Some("goose"),
    desktop_app: false,
};

/// Its spellings, in concept-table order.
const FIELDS: &[Cell] = &[
    Cell::same("command", "cmd"),
    Cell::same("args", "args"),
    Cell::same("env", "envs"),
    Cell::same("url", "uri"),
    Cell::new("transport_type_marker", "type", Form::Values),
    Cell::same("http_transport_headers", "headers"),
    Cell::new("codex_env_vars_with_source", "env_keys", Form::Values),
    Cell::new("tool_call_timeout", "timeout", Form::Seconds),
    Cell::same("server_enabled", "enabled"),
    Cell::same("tool_allowlist", "available_tools"),
    Cell::same("description", "description"),
];

/// `enabled` first (goose requires it), then `name`, then the extension's fields.
fn to_host(name: &str, entry: &mut Map<String, Value>) -> Result<(), String> {
    let enabled = entry.remove("enabled").unwrap_or(Value::Bool(true));
    let mut out = Map::new();
    out.insert("enabled".to_string(), enabled);
    if let Some(kind) = entry.remove("type") {
        out.insert("type".to_string(), kind);
    }
    out.insert("name".to_string(), Value::from(name));
    out.append(entry);
    *entry = out;
    Ok(())
}

/// `name` repeats the key and `enabled: true` is the default; `bundled` is goose's own mark.
fn from_host(entry: &mut Map<String, Value>) {
    entry.remove("name");
    entry.remove("bundled");
    if entry.get("enabled") == Some(&Value::Bool(true)) {
        entry.remove("enabled");
    }
}

/// `env_vars` (names, or `{name, source = "local"}`) as goose's `env_keys` names.
fn value_to_host(field: &str, value: &Value) -> Option<Value> {
    if field != "env_vars" {
        return None;
    }
    let names: Option<Vec<Value>> = value
        .as_array()?
        .iter()
        .map(|item| match item {
            Value::String(_) => Some(item.clone()),
            Value::Object(o) if o.get("source").is_none_or(|s| s == "local") => {
                o.get("name").cloned()
            }
            _ => None,
        })
        .collect();
    names.map(Value::Array)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::fixtures::*;

    #[test]
    fn stdio_and_http_in_gooses_shape() {
        let t = run("goose", STDIO);
        assert_eq!(
            text(&t),
            r#"{"enabled":true,"type":"stdio","name":"acme","env_keys":["API_KEY"],"cmd":"npx","args":["-y","@acme/mcp","--port","4000"],"envs":{"LOG":"debug"}}"#
        );
        let t = run("goose", "url = \"https://x/mcp\"\nenabled = false\n");
        assert_eq!(
            t.entry,
            json!({"enabled": false, "type": "streamable_http", "name": "acme", "uri": "https://x/mcp"})
        );
        assert!(try_run("goose", SSE).is_err());
    }
}
