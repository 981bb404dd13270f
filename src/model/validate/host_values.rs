//! Templates no host file can hold, known from the manifest alone: an environment reference in a
//! number, boolean or list field, a fallback across several environment variables, and an
//! environment reference in a key. `dotpack validate` reports each where it is written, and
//! install refuses a server with any of them in the same words ([`server_problems`]), so the two
//! never disagree about a server, whatever the props and hosts.

use super::templates::TemplateIssue;
use crate::model::concepts::{ValueKind, concept_of};
use crate::model::manifest::Server;

/// An environment reference in `s`, the value of `field`, which holds `kind`: a host expands a
/// reference only inside a text, so a number, boolean or list written from one would be a string
/// (`"timeout": "${T:-5000}"`).
pub fn typed_env(field: &str, s: &str, kind: ValueKind) -> Option<TemplateIssue> {
    let typed = matches!(
        kind,
        ValueKind::Integer | ValueKind::Number | ValueKind::Bool | ValueKind::StringList
    );
    let var = crate::template::env_refs(s)
        .into_iter()
        .next()
        .filter(|_| typed)?;
    Some(TemplateIssue {
        code: "env-in-typed-field",
        message: format!(
            "`{s}` reads environment variable `{var}`, but `{field}` holds {}: hosts expand a \
             reference only inside a text, so the field would get a string",
            kind.describe()
        ),
        help: format!(
            "write `{field}` literally, or take it from an input (`{field} = \"{{{{props.NAME}}}}\"`), \
             whose value is written as {}",
            kind.describe()
        ),
        offset: s
            .find("env.")
            .map_or(0, |at| s[..at].rfind("{{").unwrap_or(at)),
    })
}

/// Every expression of `s` that falls back across several environment variables: a host config
/// names one variable per reference, so every host refuses it.
pub fn env_chains(s: &str) -> Vec<TemplateIssue> {
    crate::template::env_chains(s)
        .into_iter()
        .map(|(offset, names)| {
            let first = names.first().cloned().unwrap_or_default();
            TemplateIssue {
                code: "env-fallbacks",
                message: crate::template::TemplateError::EnvChainUnsupported(names).to_string(),
                help: format!(
                    "write `{{{{env.{first}}}}}` (with a default if you need one: \
                     `{{{{env.{first}|'VALUE'}}}}`)"
                ),
                offset,
            }
        })
        .collect()
}

/// An environment reference in `key`, a key of a map: hosts read keys as they are written.
pub fn key_env(key: &str) -> Option<TemplateIssue> {
    let var = crate::template::env_refs(key).into_iter().next()?;
    Some(TemplateIssue {
        code: "env-in-key",
        message: format!(
            "the key `{key}` reads environment variable `{var}`, but hosts read keys as they are \
             written"
        ),
        help: "write the key literally, or take it from an input (`{{props.NAME}}`)".to_string(),
        offset: 0,
    })
}

/// Every problem above in `server`, with the key path of its place inside the server
/// (`timeout`, `env.TOKEN`, `http_headers.{{env.H}}`).
pub fn server_problems(server: &Server) -> Vec<(String, TemplateIssue)> {
    let mut out = Vec::new();
    let mut text = |at: String, s: &str| {
        for issue in env_chains(s) {
            out.push((at.clone(), issue));
        }
    };
    if let Some(command) = &server.command {
        text("command".to_string(), command);
    }
    for (i, arg) in server.args.iter().flatten().enumerate() {
        text(format!("args[{i}]"), arg);
    }
    if let Some(url) = &server.url {
        text("url".to_string(), url);
    }
    for (key, value) in &server.env {
        text(format!("env.{key}"), value);
    }
    for key in server.env.keys() {
        if let Some(issue) = key_env(key) {
            out.push((format!("env.{key}"), issue));
        }
    }
    for (field, value) in &server.extensions {
        if let (Some(s), Some(concept)) = (value.as_str(), concept_of(field))
            && let Some(issue) = typed_env(field, s, concept.kind)
        {
            out.push((field.clone(), issue));
        }
        value_problems(field, value, &mut out);
    }
    out
}

/// Fallbacks in every string of `value`, and references in every key of its tables.
fn value_problems(at: &str, value: &toml::Value, out: &mut Vec<(String, TemplateIssue)>) {
    match value {
        toml::Value::String(s) => {
            out.extend(env_chains(s).into_iter().map(|i| (at.to_string(), i)))
        }
        toml::Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                value_problems(&format!("{at}[{i}]"), item, out);
            }
        }
        toml::Value::Table(table) => {
            for (key, item) in table {
                let path = format!("{at}.{key}");
                if let Some(issue) = key_env(key) {
                    out.push((path.clone(), issue));
                }
                value_problems(&path, item, out);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn problems(toml: &str) -> Vec<(String, &'static str)> {
        let server: Server = toml::from_str(toml).unwrap();
        server_problems(&server)
            .into_iter()
            .map(|(at, issue)| (at, issue.code))
            .collect()
    }

    #[test]
    fn references_where_no_host_can_read_them_are_found() {
        assert_eq!(
            problems(
                "command = \"x\"\nargs = [\"{{env.A|env.B}}\"]\ntimeout = \"{{env.T|'5000'}}\"\n\
                 trust = \"{{env.X}}\"\nenv = { \"{{env.K}}\" = \"v\" }\n\
                 http_headers = { H = \"{{props.h|env.C|env.D}}\" }\n"
            ),
            [
                ("args[0]".to_string(), "env-fallbacks"),
                ("env.{{env.K}}".to_string(), "env-in-key"),
                ("http_headers.H".to_string(), "env-fallbacks"),
                ("timeout".to_string(), "env-in-typed-field"),
                ("trust".to_string(), "env-in-typed-field"),
            ]
        );
    }

    #[test]
    fn references_hosts_read_pass() {
        assert!(
            problems(
                "command = \"x\"\nargs = [\"{{env.A}}\"]\ntimeout = \"{{props.t}}\"\n\
                 description = \"{{env.D}}\"\nenv = { \"{{props.k}}\" = \"{{env.V|'d'}}\" }\n"
            )
            .is_empty()
        );
    }
}
