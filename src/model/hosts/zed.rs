//! Zed (hosts.md §9).
//!
//! - `.zed/settings.json` (project; servers start only in trusted worktrees) and the user's
//!   `settings.json` in Zed's config folder: `$XDG_CONFIG_HOME/zed` (else `~/.config/zed`) on
//!   Linux, `~/.config/zed` on macOS (no XDG there), `%APPDATA%\Zed` on Windows (zed's
//!   `paths::config_dir`); key `context_servers`; JSON with comments and trailing commas.
//! - Shape decides the transport (`command` ⇒ stdio, `url` ⇒ HTTP); no `type`. Zed speaks
//!   streamable HTTP; SSE support is not documented, so SSE servers are refused.
//! - No interpolation is documented, so environment references are refused (safest reading).
//! - Legacy shapes still circulate: a nested `"command": {"path", "args", "env"}` and a tag
//!   `"source": "custom"`. dotpack writes the flat shape and reads both.

use serde_json::{Map, Value};

use super::{Container, EntryHooks, FileFormat, HostAdapter, TransportTypes, UserPath};
use crate::model::concepts::{Cell, Form, STDIO_CORE};
use crate::template::EnvSyntax;

/// `settings.json` in Zed's config folder ([`ZED_DIR`]).
const ZED_SETTINGS: UserPath = UserPath::PerPlatform {
    linux: &UserPath::Config("zed/settings.json"),
    macos: &UserPath::Home(".config/zed/settings.json"),
    windows: &UserPath::Config("Zed/settings.json"),
};

/// Zed's config folder (zed `paths::config_dir`): XDG on Linux, `~/.config/zed` on macOS,
/// `%APPDATA%\Zed` on Windows.
const ZED_DIR: UserPath = UserPath::PerPlatform {
    linux: &UserPath::Config("zed"),
    macos: &UserPath::Home(".config/zed"),
    windows: &UserPath::Config("Zed"),
};

pub(super) const ADAPTER: HostAdapter = HostAdapter {
    id: "zed",
    display_name: "Zed",
    priority: true,
    format: FileFormat::Jsonc,
    container: Container::new(&["context_servers"]),
    project_file: Some(".zed/settings.json"),
    user_file: Some(ZED_SETTINGS),
    project_markers: &[".zed"],
    user_markers: &[ZED_DIR],
    env_syntax: EnvSyntax::None,
    remote_wrapper: None,
    also_expands: &[],
    transport_types: TransportTypes::untyped(false),
    fields: &[STDIO_CORE, FIELDS],
    resources: &[],
    also_named: None,
    own_fields: &[(
        "settings",
        "the settings of a server an extension provides, which the extension starts",
    )],
    hooks: EntryHooks {
        from_host,
        ..EntryHooks::NONE
    },
    new_file: "",
    program: None,
    desktop_app: true,
};

/// Its spellings beyond the stdio core, in concept-table order.
const FIELDS: &[Cell] = &[
    Cell::same("url", "url"),
    Cell::same("http_transport_headers", "headers"),
    Cell::new("oauth", "oauth", Form::Values),
    Cell::new("tool_call_timeout", "timeout", Form::Seconds),
    Cell::same("server_enabled", "enabled"),
];

/// Flattens the legacy `command` object and drops the legacy `source` tag.
fn from_host(entry: &mut Map<String, Value>) {
    if entry.get("source").and_then(Value::as_str) == Some("custom") {
        entry.remove("source");
    }
    if let Some(Value::Object(nested)) = entry.get("command").cloned() {
        entry.remove("command");
        for (from, to) in [("path", "command"), ("args", "args"), ("env", "env")] {
            if let Some(value) = nested.get(from)
                && !entry.contains_key(to)
            {
                entry.insert(to.to_string(), value.clone());
            }
        }
    }
    if entry.get("env").is_some_and(Value::is_null) {
        entry.remove("env");
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    #[test]
    fn legacy_command_object_is_flattened() {
        let mut entry = json!({"source": "custom", "command": {"path": "npx", "args": ["-y", "x"], "env": null}})
            .as_object()
            .unwrap()
            .clone();
        super::from_host(&mut entry);
        assert_eq!(
            serde_json::Value::Object(entry),
            json!({"command": "npx", "args": ["-y", "x"]})
        );
    }
}
