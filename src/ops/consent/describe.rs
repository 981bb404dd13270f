//! Requests in words a user can judge: the command line a server runs, or the URL it reaches.

use crate::mcp::Endpoint;

/// How a host entry starts its server, and everything else it says: its command line (quoted
/// where needed) or URL, then each other field as `key: value`, so that what is approved is
/// what is shown (an `env` value such as `NODE_OPTIONS` runs code as surely as the command).
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
    let mut shown = vec!["command", "args", "type"];
    let base = if let Some(mut words) = command {
        let args = entry
            .get("args")
            .and_then(serde_json::Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|a| a.as_str().map(str::to_string));
        words.extend(args);
        command_line(&words)
    } else if let Some((key, url)) =
        ["url", "httpUrl", "serverUrl", "uri"]
            .into_iter()
            .find_map(|k| {
                entry
                    .get(k)
                    .and_then(serde_json::Value::as_str)
                    .map(|u| (k, u))
            })
    {
        shown.push(key);
        url.to_string()
    } else {
        return entry.to_string();
    };
    let rest: Vec<String> = entry
        .as_object()
        .into_iter()
        .flatten()
        .filter(|(k, _)| !shown.contains(&k.as_str()))
        .map(|(k, v)| format!("{k}: {v}"))
        .collect();
    with_rest(base, &rest)
}

/// How `endpoint` starts: its command line with its environment and folder, or its URL with its
/// headers.
pub fn launch_summary(endpoint: &Endpoint) -> String {
    match endpoint {
        Endpoint::Stdio {
            command,
            args,
            env,
            cwd,
            ..
        } => {
            let mut words = vec![command.clone()];
            words.extend(args.iter().cloned());
            let mut rest: Vec<String> = env.iter().map(|(k, v)| format!("env {k}={v}")).collect();
            if let Some(cwd) = cwd {
                rest.push(format!("cwd {}", cwd.display()));
            }
            with_rest(command_line(&words), &rest)
        }
        Endpoint::Http { url, headers, .. } => {
            let rest: Vec<String> = headers
                .iter()
                .map(|(k, v)| format!("header {k}: {v}"))
                .collect();
            with_rest(url.clone(), &rest)
        }
    }
}

fn with_rest(base: String, rest: &[String]) -> String {
    if rest.is_empty() {
        base
    } else {
        format!("{base} ({})", rest.join("; "))
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
        // Everything else the entry says is shown too.
        let entry = serde_json::json!({"command": "npx", "args": ["x"], "env": {"NODE_OPTIONS": "--import=evil"}});
        assert_eq!(
            entry_summary(&entry),
            r#"npx x (env: {"NODE_OPTIONS":"--import=evil"})"#
        );
        let entry =
            serde_json::json!({"url": "https://x.dev", "bearer_token_env_var": "GITHUB_TOKEN"});
        assert_eq!(
            entry_summary(&entry),
            r#"https://x.dev (bearer_token_env_var: "GITHUB_TOKEN")"#
        );
    }
}
