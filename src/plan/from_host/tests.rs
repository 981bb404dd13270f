use serde_json::{Value, json};

use super::*;
use crate::model::hosts::{EntryHooks, adapter};

fn import(host: &HostAdapter, entry: Value) -> (Value, Vec<(&'static str, String)>) {
    let imported = import_entries(host, vec![("s".to_string(), entry)]);
    // A skipped entry (neither `command` nor `url`) is `null`.
    let server = imported
        .servers
        .get("s")
        .map_or(Value::Null, |s| Value::Object(s.clone()));
    let warnings = imported
        .warnings
        .into_iter()
        .map(|w| (w.code, w.message))
        .collect();
    (server, warnings)
}

fn codes(warnings: &[(&'static str, String)]) -> Vec<&'static str> {
    warnings.iter().map(|(c, _)| *c).collect()
}

fn on(host: &str, entry: Value) -> (Value, Vec<&'static str>) {
    let (server, warnings) = import(adapter(host).unwrap(), entry);
    (server, codes(&warnings))
}

#[test]
fn transport_labels_are_consumed_and_sse_is_kept() {
    for label in ["stdio", "local"] {
        let (s, w) = on(
            "claude-code",
            json!({"type": label, "command": "x", "args": []}),
        );
        assert_eq!(s, json!({"command": "x", "args": []}));
        assert!(w.is_empty(), "{label}: {w:?}");
    }
    for label in [
        "http",
        "streamable-http",
        "streamableHttp",
        "streamable_http",
        "remote",
    ] {
        let (s, w) = on("vscode", json!({"type": label, "url": "https://x"}));
        assert_eq!(s, json!({"url": "https://x"}), "{label}");
        assert!(w.is_empty(), "{label}: {w:?}");
    }
    let (s, w) = on(
        "claude-code",
        json!({"url": "https://x/sse", "type": "sse"}),
    );
    assert_eq!(s, json!({"type": "sse", "url": "https://x/sse"}));
    assert!(w.is_empty());
}

#[test]
fn labels_that_contradict_the_transport_are_reported() {
    let (s, w) = on(
        "claude-code",
        json!({"type": "http", "command": "x", "args": []}),
    );
    assert_eq!(s, json!({"command": "x", "args": []}));
    assert_eq!(w, [TYPE_CONTRADICTS_TRANSPORT]);
    let (_, w) = on("cursor", json!({"type": "stdio", "url": "https://x"}));
    assert_eq!(w, [TYPE_CONTRADICTS_TRANSPORT]);
    let (_, w) = on("cursor", json!({"type": "websocket", "url": "wss://x"}));
    assert_eq!(w, [TYPE_CONTRADICTS_TRANSPORT]);
}

#[test]
fn legacy_and_host_spellings_become_canonical() {
    let (s, w) = on(
        "gemini-cli",
        json!({"httpUrl": "https://x", "headers": {"A": "1"}, "includeTools": ["a"], "excludeTools": ["b"], "timeout": 5000, "trust": true}),
    );
    assert_eq!(
        s,
        json!({"url": "https://x", "http_headers": {"A": "1"}, "timeout": 5000, "trust": true, "enabled_tools": ["a"], "disabled_tools": ["b"]})
    );
    assert!(w.is_empty(), "{w:?}");
    let (s, _) = import(
        &HostAdapter::bare("windsurf"),
        json!({"serverUrl": "https://x", "disabled": true, "disabledTools": ["t"]}),
    );
    assert_eq!(
        s,
        json!({"url": "https://x", "enabled": false, "disabled_tools": ["t"]})
    );
}

#[test]
fn a_legacy_spelling_that_disagrees_loses_to_the_written_one() {
    let (s, w) = on(
        "gemini-cli",
        json!({"httpUrl": "https://old", "url": "https://new"}),
    );
    assert_eq!(s, json!({"url": "https://new", "httpUrl": "https://old"}));
    assert_eq!(w, [CONFLICTING_FIELDS]);
    let (s, w) = on(
        "gemini-cli",
        json!({"httpUrl": "https://x", "url": "https://x"}),
    );
    assert_eq!(s, json!({"url": "https://x"}));
    assert!(w.is_empty());
}

#[test]
fn codex_fields_keep_their_canonical_names_and_units() {
    let (s, w) = on(
        "codex",
        json!({"url": "https://x", "http_headers": {"X": "1"}, "bearer_token_env_var": "T",
               "env_http_headers": {"K": "KEY"}, "tool_timeout_sec": 30, "startup_timeout_sec": 20,
               "enabled": false, "enabled_tools": ["a"], "tools": {"a": {"approval_mode": "auto"}}}),
    );
    assert_eq!(
        s,
        json!({"url": "https://x", "http_headers": {"X": "1"}, "bearer_token_env_var": "T",
               "env_http_headers": {"K": "KEY"}, "startup_timeout_sec": 20, "timeout": 30000,
               "enabled": false, "enabled_tools": ["a"], "tools": {"a": {"approval_mode": "auto"}}})
    );
    assert!(w.is_empty(), "{w:?}");
    let (s, w) = on(
        "codex",
        json!({"command": "x", "args": [], "startup_timeout_sec": 2, "startup_timeout_ms": 2500, "tool_timeout_sec": 1.5}),
    );
    assert_eq!(
        s,
        json!({"command": "x", "args": [], "startup_timeout_sec": 2, "startup_timeout_ms": 2500, "timeout": 1500})
    );
    assert_eq!(w, [BOTH_STARTUP_TIMEOUTS]);
}

#[test]
fn seconds_become_milliseconds_for_the_call_timeout() {
    let (s, _) = import(
        &HostAdapter::bare("zed"),
        json!({"command": "x", "args": [], "timeout": 60}),
    );
    assert_eq!(s, json!({"command": "x", "args": [], "timeout": 60000}));
}

#[test]
fn command_arrays_split_into_command_and_args() {
    let opencode = HostAdapter::bare("opencode");
    let (s, w) = import(
        &opencode,
        json!({"type": "local", "command": ["npx", "-y", "srv"], "environment": {"A": "{env:A}"}, "enabled": true}),
    );
    assert_eq!(
        s,
        json!({"command": "npx", "args": ["-y", "srv"], "env": {"A": "{env:A}"}, "enabled": true})
    );
    assert!(w.is_empty(), "{w:?}");
    let (s, w) = import(&opencode, json!({"command": []}));
    assert_eq!(s, Value::Null);
    assert_eq!(codes(&w), [INVALID_VALUE, INCOMPLETE_SERVER]);
}

#[test]
fn nested_host_fields_are_taken_out_of_their_tables() {
    let (s, w) = import(
        &HostAdapter::bare("continue"),
        json!({"url": "https://x", "requestOptions": {"headers": {"A": "1"}, "verifySsl": false}}),
    );
    assert_eq!(
        s,
        json!({"url": "https://x", "http_headers": {"A": "1"}, "requestOptions": {"verifySsl": false}})
    );
    assert_eq!(codes(&w), [UNKNOWN_FIELD]);
    let (s, w) = on(
        "gemini-cli",
        json!({"url": "https://x", "oauth": {"scopes": ["r"]}}),
    );
    assert_eq!(s, json!({"url": "https://x", "scopes": ["r"]}));
    assert!(w.is_empty());
}

#[test]
fn values_stay_verbatim() {
    let entry = json!({"command": "C:\\Tools\\srv.exe", "args": ["~/x", "$HOME", "%APPDATA%", "${input:key}"],
                       "env": {"A": "${A}", "B": "${env:B}", "C": "{env:C}", "D": "${D:-x}"}});
    let (s, w) = on("vscode", entry.clone());
    assert_eq!(s, entry);
    assert!(w.is_empty(), "{w:?}");
}

#[test]
fn odd_values_and_fields_are_reported_and_kept() {
    let (s, w) = on(
        "claude-code",
        json!({"command": "x", "args": [], "env": {"PORT": 8080, "ON": true}, "disabled": true, "alwaysLoad": true}),
    );
    assert_eq!(
        s,
        json!({"command": "x", "args": [], "env": {"PORT": 8080, "ON": true}, "always_load": true, "disabled": true})
    );
    assert_eq!(w, [UNKNOWN_FIELD, NON_STRING_ENV, NON_STRING_ENV]);
    // An entry no host can start is skipped, with the reason.
    let (s, w) = on("cursor", json!({"env": {}}));
    assert_eq!((s, w), (Value::Null, vec![INCOMPLETE_SERVER]));
    let (s, w) = on("cursor", json!("npx srv"));
    assert_eq!((s, w), (Value::Null, vec![INCOMPLETE_SERVER]));
}

#[test]
fn literal_secrets_are_reported_where_they_are() {
    let (_, w) = import(
        adapter("claude-code").unwrap(),
        json!({"command": "x", "args": ["--token", "ghp_1234567890abcdefABCDEF1234567890abcd"],
               "env": {"OPENAI_API_KEY": "sk-proj-abcdefghijkl12345", "OK": "${OPENAI_API_KEY}"}}),
    );
    assert_eq!(codes(&w), [LITERAL_SECRET, LITERAL_SECRET]);
    assert!(w[0].1.contains("`args[1]`"), "{}", w[0].1);
    assert!(w[1].1.contains("`env.OPENAI_API_KEY`"), "{}", w[1].1);
}

#[test]
fn disabled_entries_are_imported_marked() {
    let (s, _) = import(
        &HostAdapter::bare("cline"),
        json!({"command": "x", "args": [], "disabled": true}),
    );
    assert_eq!(s["enabled"], json!(false));
}

#[test]
fn hooks_run_before_the_table() {
    let mut host = HostAdapter::bare("zed");
    host.hooks = EntryHooks {
        from_host: |entry| {
            if let Some(Value::Object(cmd)) = entry.remove("command") {
                for (k, v) in cmd {
                    let k = if k == "path" {
                        "command".to_string()
                    } else {
                        k
                    };
                    entry.insert(k, v);
                }
            }
        },
        ..EntryHooks::NONE
    };
    let (s, w) = import(&host, json!({"command": {"path": "srv", "args": ["a"]}}));
    assert_eq!(s, json!({"command": "srv", "args": ["a"]}));
    assert!(w.is_empty(), "{w:?}");
}

#[test]
fn every_adapter_round_trips_a_plain_server() {
    use crate::model::manifest::Server;
    use crate::template::Props;
    for host in crate::model::hosts::ADAPTERS {
        for toml in [
            "command = \"npx\"\nargs = [\"-y\", \"srv\"]\nenv = { LOG = \"debug\" }\n",
            "url = \"https://x.dev/mcp\"\nhttp_headers = { X-Team = \"a\" }\n",
        ] {
            let server: Server = toml::from_str(toml).unwrap();
            let entry = crate::plan::to_host::translate(host, "srv", &server, &Props::new())
                .unwrap()
                .entry;
            let (back, w) = import(host, entry);
            let expected: Value = serde_json::to_value(&server).unwrap();
            assert_eq!(back, expected, "{}", host.id);
            assert!(w.is_empty(), "{}: {w:?}", host.id);
        }
    }
}

/// Written for Windows, an `npx` server starts through `cmd /c` in every host that spawns
/// without a shell, in the host's own spelling; import gives back the declared `npx` server.
#[test]
fn every_adapter_round_trips_an_npx_server_written_for_windows() {
    use crate::model::hosts::Platform;
    use crate::model::hosts::windows_cmd::RUNS_SHIMS_ITSELF;
    use crate::model::manifest::Server;
    use crate::template::Props;
    let toml = "command = \"npx\"\nargs = [\"-y\", \"srv\"]\n";
    let server: Server = toml::from_str(toml).unwrap();
    for host in crate::model::hosts::ADAPTERS {
        let entry = crate::plan::to_host::translate_with(
            host,
            "srv",
            &server,
            &Props::new(),
            false,
            Platform::Windows,
        )
        .unwrap()
        .entry;
        let text = entry.to_string();
        assert_eq!(
            text.contains("\"cmd\"") && text.contains("\"/c\""),
            !RUNS_SHIMS_ITSELF.contains(&host.id),
            "{}: {text}",
            host.id
        );
        let (back, w) = import(host, entry);
        assert_eq!(back, serde_json::to_value(&server).unwrap(), "{}", host.id);
        assert!(w.is_empty(), "{}: {w:?}", host.id);
    }
}
