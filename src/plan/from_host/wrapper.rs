//! `npx mcp-remote URL …`, the stdio bridge people put in front of a remote server, read back as
//! the remote server it reaches: from any host's file, not only Claude Desktop's (where dotpack
//! writes it, see `crate::plan::to_host`), pinned (`mcp-remote@0.1.2`) or not. A call with any
//! argument dotpack does not know, or with `env` or `cwd` beside it, is left as the stdio server
//! it is: then it is not only a bridge.

use serde_json::{Map, Value};

/// What the bridge said about the remote server.
#[derive(Debug, PartialEq, Eq)]
pub struct Bridged {
    /// `mcp-remote@0.1.2` when the wrapper was pinned, which the remote server leaves behind.
    pub pinned: Option<String>,
}

/// Takes the `cmd /c` off a `cmd /c npx …` entry written for Windows (see
/// [`crate::model::hosts::windows_cmd`]): the canonical server is `npx …` on every platform.
pub fn unwrap_cmd(server: &mut Map<String, Value>) {
    let Some(command) = server.get("command").and_then(Value::as_str) else {
        return;
    };
    let Some(args) = server.get("args").and_then(Value::as_array) else {
        return;
    };
    let Some(args) = args
        .iter()
        .map(|a| a.as_str().map(str::to_string))
        .collect::<Option<Vec<String>>>()
    else {
        return;
    };
    if let Some((shim, rest)) = crate::model::hosts::windows_cmd::unwrapped(command, &args) {
        server.insert("command".into(), Value::String(shim));
        server.insert(
            "args".into(),
            Value::Array(rest.into_iter().map(Value::String).collect()),
        );
    }
}

/// Replaces `server` (canonical fields) by the remote server its `mcp-remote` call reaches:
/// `url`, `http_headers` from `--header "K: V"`, `type = "sse"` from `--transport sse-only`.
/// `None`, and `server` unchanged, when it is not such a call.
pub fn unwrap_remote(server: &mut Map<String, Value>) -> Option<Bridged> {
    if server.get("command").and_then(Value::as_str) != Some("npx") || server.len() != 2 {
        return None; // anything beside command and args (env, cwd) is not a plain bridge
    }
    let args: Vec<&str> = server
        .get("args")?
        .as_array()?
        .iter()
        .map(Value::as_str)
        .collect::<Option<_>>()?;
    let rest = match args.as_slice() {
        ["-y" | "--yes", rest @ ..] => rest,
        rest => rest,
    };
    let (package, rest) = rest.split_first()?;
    let pinned = match package.strip_prefix("mcp-remote") {
        Some("") => None,
        Some(version) if version.len() > 1 && version.starts_with('@') => {
            Some((*package).to_string())
        }
        _ => return None,
    };
    let (url, mut rest) = rest.split_first()?;
    if !url.starts_with("https://") && !url.starts_with("http://") {
        return None;
    }
    let url = (*url).to_string();
    let mut headers = Map::new();
    let mut sse = false;
    loop {
        match rest {
            [] => break,
            ["--header", header, tail @ ..] => {
                let (name, value) = header.split_once(':')?;
                headers.insert(name.trim().to_string(), Value::from(value.trim_start()));
                rest = tail;
            }
            ["--transport", "sse-only", tail @ ..] => {
                sse = true;
                rest = tail;
            }
            ["--transport", "http-only" | "http-first", tail @ ..] => rest = tail,
            _ => return None,
        }
    }
    server.clear();
    if sse {
        server.insert("type".to_string(), Value::from("sse"));
    }
    server.insert("url".to_string(), Value::from(url));
    if !headers.is_empty() {
        server.insert("http_headers".to_string(), Value::Object(headers));
    }
    Some(Bridged { pinned })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn unwrapped(server: Value) -> (Value, Option<Bridged>) {
        let mut map = server.as_object().unwrap().clone();
        let bridged = unwrap_remote(&mut map);
        (Value::Object(map), bridged)
    }

    #[test]
    fn plain_and_pinned_bridges_become_the_remote_server() {
        let (s, b) =
            unwrapped(json!({"command": "npx", "args": ["mcp-remote", "https://x.dev/mcp"]}));
        assert_eq!(s, json!({"url": "https://x.dev/mcp"}));
        assert_eq!(b, Some(Bridged { pinned: None }));
        let (s, b) = unwrapped(
            json!({"command": "npx", "args": ["-y", "mcp-remote@0.1.2", "https://x.dev/sse",
            "--header", "Authorization: Bearer ${T}", "--transport", "sse-only"]}),
        );
        assert_eq!(
            s,
            json!({"type": "sse", "url": "https://x.dev/sse", "http_headers": {"Authorization": "Bearer ${T}"}})
        );
        assert_eq!(b.unwrap().pinned.as_deref(), Some("mcp-remote@0.1.2"));
    }

    #[test]
    fn anything_more_than_a_bridge_stays_a_stdio_server() {
        for server in [
            json!({"command": "npx", "args": ["-y", "mcp-remote", "https://x", "--allow-http"]}),
            json!({"command": "npx", "args": ["-y", "mcp-remote", "https://x"], "env": {"A": "1"}}),
            json!({"command": "npx", "args": ["-y", "mcp-remote-plus", "https://x"]}),
            json!({"command": "npx", "args": ["-y", "mcp-remote@", "https://x"]}),
            json!({"command": "npx", "args": ["-y", "mcp-remote", "./local"]}),
            json!({"command": "node", "args": ["mcp-remote", "https://x"]}),
        ] {
            assert_eq!(unwrapped(server.clone()), (server, None));
        }
    }
}
