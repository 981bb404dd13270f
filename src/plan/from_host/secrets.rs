//! Literal secrets in an imported server, found with the heuristic `dotpack validate` uses
//! ([`crate::model::validate::secrets`]), and moved out into environment references for `--into`.

use serde_json::{Map, Value};

use crate::model::validate::secrets::{
    arg_secret, is_sensitive_name, named_secret, url_secret, value_secret,
};

/// Where a literal secret sits in a canonical server.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SecretPlace {
    Env(String),
    Header(String),
    Arg(usize),
    Url,
}

/// One literal secret: its place, how messages name it (`env.GITHUB_TOKEN`) and why it looks
/// like one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SecretAt {
    pub place: SecretPlace,
    pub path: String,
    pub reason: String,
}

/// Every literal secret in `args`, `env` values, header values and `url`.
pub fn find_secrets(server: &Map<String, Value>) -> Vec<SecretAt> {
    let mut found = Vec::new();
    if let Some(Value::Array(args)) = server.get("args") {
        for (i, arg) in args.iter().enumerate() {
            let Some(arg) = arg.as_str() else { continue };
            let previous = i
                .checked_sub(1)
                .and_then(|p| args.get(p))
                .and_then(Value::as_str);
            if let Some(reason) = arg_secret(arg, previous) {
                found.push(SecretAt {
                    place: SecretPlace::Arg(i),
                    path: format!("args[{i}]"),
                    reason,
                });
            }
        }
    }
    for (field, place) in [
        ("env", SecretPlace::Env as fn(String) -> SecretPlace),
        ("http_headers", SecretPlace::Header),
    ] {
        let Some(Value::Object(map)) = server.get(field) else {
            continue;
        };
        for (key, value) in map {
            let Some(reason) = value.as_str().and_then(|v| named_secret(key, v)) else {
                continue;
            };
            found.push(SecretAt {
                place: place(key.clone()),
                path: format!("{field}.{key}"),
                reason,
            });
        }
    }
    if let Some(reason) = server
        .get("url")
        .and_then(Value::as_str)
        .and_then(url_secret)
    {
        found.push(SecretAt {
            place: SecretPlace::Url,
            path: "url".to_string(),
            reason,
        });
    }
    found
}

/// A secret moved out of a server: where it was and the variable that must now hold it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Moved {
    pub path: String,
    pub var: String,
}

/// Replaces each literal secret of `server` (named `name`) by `{{env.VAR}}`: `VAR` is the env key,
/// else a name derived from the server and the header or flag (`GITHUB_TOKEN` for the
/// `Authorization` header of server `github`). Secrets inside a URL's userinfo are not moved
/// (returned in the second list, for the caller to report).
pub fn move_secrets(name: &str, server: &mut Map<String, Value>) -> (Vec<Moved>, Vec<SecretAt>) {
    let mut moved: Vec<Moved> = Vec::new();
    let mut kept = Vec::new();
    let prefix = upper_snake(name);
    for secret in find_secrets(server) {
        let taken: Vec<&str> = moved.iter().map(|m| m.var.as_str()).collect();
        let var = match &secret.place {
            SecretPlace::Env(key) if crate::template::is_env_name(key) => key.clone(),
            SecretPlace::Env(key) => unique(&format!("{prefix}_{}", upper_snake(key)), &taken),
            SecretPlace::Header(h) if h.eq_ignore_ascii_case("authorization") => {
                unique(&format!("{prefix}_TOKEN"), &taken)
            }
            SecretPlace::Header(h) => unique(&format!("{prefix}_{}", upper_snake(h)), &taken),
            SecretPlace::Arg(i) => {
                let flag = arg_flag(server, *i).unwrap_or_else(|| "SECRET".to_string());
                unique(&format!("{prefix}_{flag}"), &taken)
            }
            SecretPlace::Url => unique(&format!("{prefix}_KEY"), &taken),
        };
        let reference = format!("{{{{env.{var}}}}}");
        let replaced = match &secret.place {
            SecretPlace::Env(key) => slot(server, "env", key).map(|v| {
                *v = Value::from(reference.clone());
            }),
            SecretPlace::Header(h) => slot(server, "http_headers", h).and_then(|v| {
                let text = v.as_str()?;
                let sensitive = is_sensitive_name(h);
                let new =
                    replace_tokens(text, &reference, |t| value_secret(t, sensitive).is_some());
                *v = Value::from(new);
                Some(())
            }),
            SecretPlace::Arg(i) => arg_slot(server, *i).and_then(|v| {
                let text = v.as_str()?;
                // `Authorization: Bearer X` keeps its words, `--key=X` and `API_KEY=X` their
                // names: only the credential moves.
                let new = match text.split_once('=') {
                    _ if text.contains(char::is_whitespace) => {
                        replace_tokens(text, &reference, |t| value_secret(t, true).is_some())
                    }
                    Some((name, _))
                        if name.starts_with('-') || crate::template::is_env_name(name) =>
                    {
                        format!("{name}={reference}")
                    }
                    _ => reference.clone(),
                };
                *v = Value::from(new);
                Some(())
            }),
            SecretPlace::Url => server.get_mut("url").and_then(|v| {
                let new = replace_query_secret(v.as_str()?, &reference)?;
                *v = Value::from(new);
                Some(())
            }),
        };
        match replaced {
            Some(()) => moved.push(Moved {
                path: secret.path,
                var,
            }),
            None => kept.push(secret),
        }
    }
    (moved, kept)
}

fn slot<'m>(server: &'m mut Map<String, Value>, field: &str, key: &str) -> Option<&'m mut Value> {
    server.get_mut(field)?.as_object_mut()?.get_mut(key)
}

fn arg_slot(server: &mut Map<String, Value>, i: usize) -> Option<&mut Value> {
    server.get_mut("args")?.as_array_mut()?.get_mut(i)
}

/// The flag a secret argument belongs to, upper-snake: `--api-key=X` and `--api-key X` give
/// `API_KEY`.
fn arg_flag(server: &Map<String, Value>, i: usize) -> Option<String> {
    let args = server.get("args")?.as_array()?;
    let arg = args.get(i)?.as_str()?;
    let flag = match arg.split_once('=') {
        Some((flag, _)) if flag.starts_with('-') => flag,
        _ => args
            .get(i.checked_sub(1)?)?
            .as_str()
            .filter(|p| p.starts_with('-'))?,
    };
    Some(upper_snake(flag)).filter(|f| !f.is_empty())
}

/// Each whitespace-separated token of `text` that `secret` flags becomes `reference`; the
/// spacing stays.
fn replace_tokens(text: &str, reference: &str, secret: impl Fn(&str) -> bool) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while !rest.is_empty() {
        let start = rest
            .find(|c: char| !c.is_whitespace())
            .unwrap_or(rest.len());
        out.push_str(&rest[..start]);
        rest = &rest[start..];
        let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
        let token = &rest[..end];
        out.push_str(if secret(token) { reference } else { token });
        rest = &rest[end..];
    }
    out
}

/// The URL with the first query value that looks like a secret replaced by `reference`.
fn replace_query_secret(url: &str, reference: &str) -> Option<String> {
    let (base, query) = url.split_once('?')?;
    let (query, fragment) = match query.split_once('#') {
        Some((q, f)) => (q, Some(f)),
        None => (query, None),
    };
    let mut replaced = false;
    let pairs: Vec<String> = query
        .split('&')
        .map(|pair| match pair.split_once('=') {
            Some((key, value))
                if !replaced && value_secret(value, is_sensitive_name(key)).is_some() =>
            {
                replaced = true;
                format!("{key}={reference}")
            }
            _ => pair.to_string(),
        })
        .collect();
    if !replaced {
        return None;
    }
    let mut out = format!("{base}?{}", pairs.join("&"));
    if let Some(f) = fragment {
        out.push('#');
        out.push_str(f);
    }
    Some(out)
}

/// `my-server.v2` → `MY_SERVER_V2`; letters outside ASCII are dropped.
fn upper_snake(name: &str) -> String {
    let mut out = String::new();
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_uppercase());
        } else if !out.is_empty() && !out.ends_with('_') {
            out.push('_');
        }
    }
    let out = out.trim_end_matches('_').to_string();
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        format!("MCP_{out}").trim_end_matches('_').to_string()
    } else {
        out
    }
}

fn unique(base: &str, taken: &[&str]) -> String {
    let mut name = base.to_string();
    let mut n = 2;
    while taken.contains(&name.as_str()) {
        name = format!("{base}_{n}");
        n += 1;
    }
    name
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn map(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn secrets_are_found_in_args_env_headers_and_url() {
        let server = map(json!({
            "command": "npx",
            "args": ["-y", "x", "--api-key", "sk-ant-api03-abcdefGHIJKL123456"],
            "env": {"GITHUB_TOKEN": "ghp_1234567890abcdefABCDEF1234567890abcd", "PATH_X": "${HOME}/x"},
            "http_headers": {"Authorization": "Bearer xoxb-123456789012-abcdefABCDEF"},
            "url": "https://x.dev/mcp?api_key=AKIAIOSFODNN7QWERTY12",
        }));
        let paths: Vec<String> = find_secrets(&server).into_iter().map(|s| s.path).collect();
        assert_eq!(
            paths,
            [
                "args[3]",
                "env.GITHUB_TOKEN",
                "http_headers.Authorization",
                "url"
            ]
        );
    }

    #[test]
    fn moving_secrets_names_a_variable_per_place() {
        let mut server = map(json!({
            "args": ["--token=glpat-abcdefghijklmnop1234", "--key", "sk-proj-abcdefghijkl12345"],
            "env": {"API_KEY": "sk-ant-api03-abcdefGHIJKL123456", "LOG": "debug"},
            "http_headers": {"Authorization": "Bearer ghp_1234567890abcdefABCDEF1234567890abcd", "X-Api-Key": "AIzaSyA1234567890abcdefghijklmnopqrstu"},
        }));
        let (moved, kept) = move_secrets("my-github", &mut server);
        assert!(kept.is_empty());
        let vars: Vec<&str> = moved.iter().map(|m| m.var.as_str()).collect();
        assert_eq!(
            vars,
            [
                "MY_GITHUB_TOKEN",
                "MY_GITHUB_KEY",
                "API_KEY",
                "MY_GITHUB_TOKEN_2",
                "MY_GITHUB_X_API_KEY"
            ]
        );
        assert_eq!(
            Value::Object(server),
            json!({
                "args": ["--token={{env.MY_GITHUB_TOKEN}}", "--key", "{{env.MY_GITHUB_KEY}}"],
                "env": {"API_KEY": "{{env.API_KEY}}", "LOG": "debug"},
                "http_headers": {"Authorization": "Bearer {{env.MY_GITHUB_TOKEN_2}}", "X-Api-Key": "{{env.MY_GITHUB_X_API_KEY}}"},
            })
        );
    }

    #[test]
    fn a_header_or_assignment_argument_keeps_its_words_around_the_moved_credential() {
        let mut server = map(json!({
            "args": ["mcp-remote", "https://x.dev/mcp", "--header", "Authorization: Bearer pmt_8fK2mQ7pL4vB9xR3", "-e", "API_KEY=k9X2mQ7pL4vB8nR3"],
        }));
        let (moved, kept) = move_secrets("x", &mut server);
        assert!(kept.is_empty());
        assert_eq!(moved.len(), 2);
        assert_eq!(
            server["args"],
            json!([
                "mcp-remote",
                "https://x.dev/mcp",
                "--header",
                "Authorization: Bearer {{env.X_HEADER}}",
                "-e",
                "API_KEY={{env.X_E}}"
            ])
        );
    }

    #[test]
    fn url_query_secrets_move_and_userinfo_stays() {
        let mut server =
            map(json!({"url": "https://x.dev/mcp?key=sk-abcdefghijklmn12345&v=1#top"}));
        let (moved, _) = move_secrets("x", &mut server);
        assert_eq!(moved[0].var, "X_KEY");
        assert_eq!(server["url"], "https://x.dev/mcp?key={{env.X_KEY}}&v=1#top");
        let mut server = map(json!({"url": "https://u:hunter2pass@x.dev/mcp"}));
        let (moved, kept) = move_secrets("x", &mut server);
        assert!(moved.is_empty());
        assert_eq!(kept.len(), 1);
    }

    #[test]
    fn names_are_upper_snake() {
        assert_eq!(upper_snake("my-server.v2"), "MY_SERVER_V2");
        assert_eq!(upper_snake("--api-key"), "API_KEY");
        assert_eq!(upper_snake("日本"), "MCP");
        assert_eq!(upper_snake("1x"), "MCP_1X");
    }
}
