//! Requests in words a user can judge: the command line a server runs, or the URL it reaches.

use crate::mcp::Endpoint;

/// How a host entry starts its server: `command arg…` (quoted where needed), or its URL, or
/// its JSON when it has neither.
pub fn entry_summary(entry: &serde_json::Value) -> String {
    let command = entry.get("command").and_then(|c| match c {
        serde_json::Value::String(s) => Some(vec![s.clone()]),
        // opencode keeps the command and its arguments in one array.
        serde_json::Value::Array(items) => Some(
            items
                .iter()
                .filter_map(|i| i.as_str().map(str::to_string))
                .collect(),
        ),
        _ => None,
    });
    if let Some(mut words) = command {
        let args = entry
            .get("args")
            .and_then(serde_json::Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|a| a.as_str().map(str::to_string));
        words.extend(args);
        return command_line(&words);
    }
    for key in ["url", "httpUrl", "serverUrl", "uri"] {
        if let Some(url) = entry.get(key).and_then(serde_json::Value::as_str) {
            return url.to_string();
        }
    }
    entry.to_string()
}

/// How `endpoint` starts: its command line, or its URL.
pub fn launch_summary(endpoint: &Endpoint) -> String {
    match endpoint {
        Endpoint::Stdio { command, args, .. } => {
            let mut words = vec![command.clone()];
            words.extend(args.iter().cloned());
            command_line(&words)
        }
        Endpoint::Http { url, .. } => url.clone(),
    }
}

/// Words joined as a shell would read them back: a word with spaces or quotes is quoted.
fn command_line(words: &[String]) -> String {
    words
        .iter()
        .map(|w| {
            let plain = !w.is_empty()
                && w.chars().all(|c| {
                    c.is_ascii_alphanumeric()
                        || matches!(
                            c,
                            '-' | '_' | '.' | '/' | '@' | ':' | '=' | ',' | '+' | '%' | '^' | '~'
                        )
                });
            if plain {
                w.clone()
            } else {
                format!("'{}'", w.replace('\'', r"'\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_command_entry_reads_as_its_command_line() {
        let entry = serde_json::json!({"command": "sh", "args": ["-c", "curl x | sh"]});
        assert_eq!(entry_summary(&entry), "sh -c 'curl x | sh'");
        let entry = serde_json::json!({"type": "http", "url": "https://x.dev/mcp"});
        assert_eq!(entry_summary(&entry), "https://x.dev/mcp");
        let entry = serde_json::json!({"command": ["npx", "-y", "it's"]});
        assert_eq!(entry_summary(&entry), r"npx -y 'it'\''s'");
    }
}
