//! Templated map keys (`env = { "{{props.name}}" = "x" }`, a header named from an input): rendered
//! with the props before a server is written into a host or started, so a key reads like any
//! other string of the server. A key holding an environment reference is refused by `validate`
//! and install alike (hosts read keys as they are written, see
//! [`crate::model::validate::host_values`]); here it is refused again for any other caller.

use std::borrow::Cow;

use crate::model::manifest::Server;
use crate::template::{Context, EnvSyntax};

/// Why a key cannot be rendered: the key path of the map entry (as written) and the reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyError {
    pub field: String,
    pub reason: String,
}

/// `server` with every templated key of `env` and of the tables of its other fields rendered in
/// `cx`. Borrowed as it is when no key holds `{{` or `@`, the common case.
pub fn with_rendered_keys<'s>(
    server: &'s Server,
    cx: &Context<'_>,
) -> Result<Cow<'s, Server>, KeyError> {
    let templated = |k: &String| k.contains(['{', '@']);
    if !server.env.keys().any(templated) && !server.extensions.values().any(has_templated_key) {
        return Ok(Cow::Borrowed(server));
    }
    let mut env = std::collections::BTreeMap::new();
    for (key, value) in &server.env {
        let field = format!("env.{key}");
        let rendered = render(&field, key, cx)?;
        if env.contains_key(&rendered) {
            return Err(duplicate(&field, &rendered));
        }
        env.insert(rendered, value.clone());
    }
    let mut extensions = std::collections::BTreeMap::new();
    for (field, value) in &server.extensions {
        extensions.insert(field.clone(), rendered_value(field, value, cx)?);
    }
    Ok(Cow::Owned(Server {
        env,
        extensions,
        ..server.clone()
    }))
}

fn has_templated_key(value: &toml::Value) -> bool {
    match value {
        toml::Value::Table(t) => t
            .iter()
            .any(|(k, v)| k.contains(['{', '@']) || has_templated_key(v)),
        toml::Value::Array(items) => items.iter().any(has_templated_key),
        _ => false,
    }
}

fn rendered_value(
    at: &str,
    value: &toml::Value,
    cx: &Context<'_>,
) -> Result<toml::Value, KeyError> {
    Ok(match value {
        toml::Value::Table(table) => {
            let mut out = toml::Table::new();
            for (key, item) in table {
                let field = format!("{at}.{key}");
                let item = rendered_value(&field, item, cx)?;
                let rendered = render(&field, key, cx)?;
                if out.contains_key(&rendered) {
                    return Err(duplicate(&field, &rendered));
                }
                out.insert(rendered, item);
            }
            toml::Value::Table(out)
        }
        toml::Value::Array(items) => toml::Value::Array(
            items
                .iter()
                .enumerate()
                .map(|(i, v)| rendered_value(&format!("{at}[{i}]"), v, cx))
                .collect::<Result<_, _>>()?,
        ),
        other => other.clone(),
    })
}

/// One key rendered: props substituted, conditions decided. Empty is an error, as a host would
/// get a nameless variable or header.
fn render(field: &str, key: &str, cx: &Context<'_>) -> Result<String, KeyError> {
    if !key.contains(['{', '@']) {
        return Ok(key.to_string());
    }
    let error = |reason: String| KeyError {
        field: field.to_string(),
        reason,
    };
    if let Some(issue) = crate::model::validate::host_values::key_env(key) {
        return Err(error(issue.message));
    }
    let rendered = crate::template::render_for_host(key, cx, EnvSyntax::None)
        .map_err(|e| error(format!("the key `{key}`: {e}")))?;
    if rendered.is_empty() {
        return Err(error(format!(
            "the key `{key}` renders empty: give its input a value, or write the key literally"
        )));
    }
    Ok(rendered)
}

/// Two keys of one table that render the same: an error naming the second.
fn duplicate(field: &str, key: &str) -> KeyError {
    KeyError {
        field: field.to_string(),
        reason: format!(
            "it gives the key `{key}`, which another key of the same table gives too: keep one"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::template::Props;

    fn keys_of(toml: &str, props: &Props) -> Result<Server, KeyError> {
        let server: Server = toml::from_str(toml).unwrap();
        with_rendered_keys(&server, &Context::for_host(props, "codex")).map(Cow::into_owned)
    }

    #[test]
    fn keys_render_with_the_props_and_the_host() {
        let props: Props = [("name".to_string(), serde_json::json!("TEAM"))].into();
        let s = keys_of(
            "url = \"https://h\"\nhttp_headers = { \"X-{{props.name}}\" = \"v\", Plain = \"p\" }\n\
             env = { \"{{props.name}}_ID\" = \"1\", \"@if(host == 'codex')CODEX@endif\" = \"2\" }\n",
            &props,
        )
        .unwrap();
        assert_eq!(s.env.keys().collect::<Vec<_>>(), ["CODEX", "TEAM_ID"]);
        let headers = s.extensions["http_headers"].as_table().unwrap();
        assert_eq!(headers.keys().collect::<Vec<_>>(), ["Plain", "X-TEAM"]);
    }

    #[test]
    fn unrenderable_keys_are_errors_naming_the_key() {
        let props: Props = [("name".to_string(), serde_json::json!("A"))].into();
        let err = |toml: &str| keys_of(toml, &props).unwrap_err();
        let e = err("command = \"x\"\nenv = { \"{{props.name}}\" = \"1\", A = \"2\" }\n");
        assert_eq!(e.field, "env.{{props.name}}");
        assert!(e.reason.contains("gives the key `A`"), "{}", e.reason);
        let e = err("command = \"x\"\nenv = { \"{{env.K}}\" = \"1\" }\n");
        assert!(
            e.reason.contains("hosts read keys as they are"),
            "{}",
            e.reason
        );
        let e = err("command = \"x\"\nenv = { \"{{props.nope}}\" = \"1\" }\n");
        assert!(
            e.reason.contains("`{{props.nope}}` has no value"),
            "{}",
            e.reason
        );
        let e = err("command = \"x\"\nenv = { \"@if(props.nope)X@endif\" = \"1\" }\n");
        assert!(e.reason.contains("renders empty"), "{}", e.reason);
    }
}
