//! Imported servers as TOML: printed as `[servers.NAME]` tables, and made ready for
//! `dotpack.toml` (`--into`): secrets moved to `{{env.VAR}}`, the host's references turned into
//! dotpack's, and what the manifest cannot hold left out, each said.

use std::collections::BTreeMap;

use serde_json::{Map, Value};
use toml_edit::{Array, DocumentMut, InlineTable, Item, Table};

use super::secrets::{Moved, SecretAt, move_secrets};
use crate::model::concepts::concept_of;
use crate::template::EnvSyntax;

/// `[servers.NAME]` tables for `servers`, as a manifest would hold them.
pub fn servers_toml(servers: &BTreeMap<String, Map<String, Value>>) -> String {
    let mut doc = DocumentMut::new();
    let mut all = Table::new();
    all.set_implicit(true);
    for (name, fields) in servers {
        all.insert(name, Item::Table(toml_table(fields)));
    }
    doc.insert("servers", Item::Table(all));
    doc.to_string()
}

/// One server's fields as a TOML table: tables inside it inline (`env = { … }`). TOML has no
/// null, so null values are left out.
pub fn toml_table(fields: &Map<String, Value>) -> Table {
    let mut table = Table::new();
    for (key, value) in fields {
        if let Some(v) = toml_value(value) {
            table.insert(key, Item::Value(v));
        }
    }
    table
}

fn toml_value(value: &Value) -> Option<toml_edit::Value> {
    Some(match value {
        Value::Null => return None,
        Value::Bool(b) => (*b).into(),
        Value::Number(n) => match n.as_i64() {
            Some(i) => i.into(),
            None => n.as_f64()?.into(),
        },
        Value::String(s) => s.as_str().into(),
        Value::Array(items) => {
            let mut array = Array::new();
            for item in items.iter().filter_map(toml_value) {
                array.push(item);
            }
            toml_edit::Value::Array(array)
        }
        Value::Object(map) => {
            let mut inline = InlineTable::new();
            for (k, v) in map {
                if let Some(v) = toml_value(v) {
                    inline.insert(k, v);
                }
            }
            toml_edit::Value::InlineTable(inline)
        }
    })
}

/// An imported server made ready for `dotpack.toml`.
#[derive(Clone, Debug, PartialEq)]
pub struct ManifestServer {
    /// The canonical fields to write.
    pub fields: Map<String, Value>,
    /// Literal secrets replaced by `{{env.VAR}}`: the user must export each `VAR`.
    pub moved: Vec<Moved>,
    /// Literal secrets that could not be moved (a password in a URL): left as they are.
    pub kept_secrets: Vec<SecretAt>,
    /// Fields left out because the manifest cannot hold them (not in the concept table, null);
    /// the host's own entry keeps them.
    pub left_out: Vec<String>,
    /// Why the server cannot be written into the manifest at all.
    pub problem: Option<String>,
}

/// Makes the imported `fields` of server `name`, read from a host writing references in
/// `syntax`, into what `dotpack.toml` holds: literal secrets become `{{env.VAR}}`, the host's
/// references become `{{env.X}}` (so every host gets them in its own syntax), a literal `{{` is
/// escaped, `env` values and `args` become strings, a `command` gets `args = []`.
///
/// A host may expand several reference syntaxes (Hermes reads both `${X}` and `${env:X}`):
/// each becomes `{{env.X}}`.
pub fn manifest_server_reading(
    name: &str,
    fields: &Map<String, Value>,
    syntaxes: &[EnvSyntax],
) -> ManifestServer {
    let mut fields = fields.clone();
    let mut left_out = Vec::new();
    fields.retain(|key, value| {
        let keep = concept_of(key).is_some() && !value.is_null();
        if !keep {
            left_out.push(key.clone());
        }
        keep
    });
    let problem = match (fields.get("command"), fields.get("url")) {
        _ if !crate::model::validate::is_valid_name(name) => Some(
            "dotpack.toml names servers with ASCII letters, digits, `-` and `_` only: rename the entry in the host file".to_string(),
        ),
        (None, None) => Some("it has neither `command` nor `url`".to_string()),
        (Some(_), Some(_)) => Some("it has both `command` and `url`".to_string()),
        (Some(c), None) if !c.is_string() => Some("its `command` is not a string".to_string()),
        _ => host_prompt(&fields),
    };
    for field in ["args", "env"] {
        stringify(fields.get_mut(field));
    }
    if fields.contains_key("command") && !fields.contains_key("args") {
        fields.insert("args".to_string(), Value::Array(Vec::new()));
    }
    for value in fields.values_mut() {
        to_templates(value, syntaxes);
    }
    let (moved, kept_secrets) = move_secrets(name, &mut fields);
    let order: Vec<String> = fields.keys().cloned().collect();
    let mut sorted: Vec<(String, Value)> = fields.into_iter().collect();
    sorted.sort_by_key(|(k, _)| {
        (
            crate::plan::to_host::rank(k),
            order.iter().position(|o| o == k),
        )
    });
    ManifestServer {
        fields: sorted.into_iter().collect(),
        moved,
        kept_secrets,
        left_out,
        problem,
    }
}

/// Why a server holding a VS Code input (`${input:ID}`) is not imported: VS Code asks the
/// user for it when the server starts, and no other host knows it, so written into their files
/// it would be literal text. dotpack's own way to ask is an environment variable.
fn host_prompt(fields: &Map<String, Value>) -> Option<String> {
    let mut strings = Vec::new();
    for (key, value) in fields {
        collect_strings(key.clone(), value, &mut strings);
    }
    strings.into_iter().find_map(|(path, text)| {
        let start = text.find("${input:")?;
        let end = text[start..].find('}').map_or(text.len(), |e| start + e + 1);
        let reference = &text[start..end];
        Some(format!(
            "`{path}` holds `{reference}`, a value VS Code asks for when the server starts, which no other host can: replace it in the host file with `${{env:VAR}}` and set VAR in your environment, then import again"
        ))
    })
}

/// Every string in `value` with its key path (`env.TOKEN`, `args[1]`).
fn collect_strings(path: String, value: &Value, out: &mut Vec<(String, String)>) {
    match value {
        Value::String(s) => out.push((path, s.clone())),
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                collect_strings(format!("{path}[{i}]"), item, out);
            }
        }
        Value::Object(map) => {
            for (k, v) in map {
                collect_strings(format!("{path}.{k}"), v, out);
            }
        }
        _ => {}
    }
}

/// Numbers and booleans in a list or table of strings become their text.
fn stringify(value: Option<&mut Value>) {
    let items: Vec<&mut Value> = match value {
        Some(Value::Array(items)) => items.iter_mut().collect(),
        Some(Value::Object(map)) => map.values_mut().collect(),
        _ => return,
    };
    for item in items {
        if let Value::Number(_) | Value::Bool(_) = item {
            *item = Value::from(item.to_string());
        }
    }
}

/// Every string in `value` as a template: the host's references become `{{env.X}}`, and text
/// that would read as a template is escaped.
fn to_templates(value: &mut Value, syntax: &[EnvSyntax]) {
    match value {
        Value::String(s) => *s = template_of(s, syntax),
        Value::Array(items) => items.iter_mut().for_each(|v| to_templates(v, syntax)),
        Value::Object(map) => map.values_mut().for_each(|v| to_templates(v, syntax)),
        _ => {}
    }
}

/// Directive words after which a `@` starts a template directive.
const DIRECTIVES: &[&str] = &[
    "if(",
    "elseif(",
    "else",
    "endif",
    "for(",
    "foreach(",
    "endfor",
    "endforeach",
];

/// `s`, written by a host with reference syntax `syntax`, as a dotpack template.
fn template_of(s: &str, syntax: &[EnvSyntax]) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(c) = rest.chars().next() {
        if let Some((reference, len)) = syntax.iter().find_map(|x| host_reference(rest, *x)) {
            out.push_str(&reference);
            rest = &rest[len..];
        } else if rest.starts_with("{{") {
            out.push_str("{{'{{'}}");
            rest = &rest[2..];
        } else if c == '@' && DIRECTIVES.iter().any(|d| rest[1..].starts_with(d)) {
            out.push_str("{{'@'}}");
            rest = &rest[1..];
        } else {
            out.push(c);
            rest = &rest[c.len_utf8()..];
        }
    }
    out
}

/// A reference in the host's syntax at the start of `s`, as `{{env.X}}` (with its default when
/// the syntax has one), and its length in `s`.
fn host_reference(s: &str, syntax: EnvSyntax) -> Option<(String, usize)> {
    let (open, close) = match syntax {
        EnvSyntax::DollarBrace => ("${", '}'),
        EnvSyntax::EnvColon | EnvSyntax::EnvColonKeepsUnset => ("${env:", '}'),
        EnvSyntax::BraceEnv => ("{env:", '}'),
        EnvSyntax::Secrets => ("${{", '}'),
        EnvSyntax::None | EnvSyntax::Resolved => return None,
    };
    let body = s.strip_prefix(open)?;
    let end = body.find(close)?;
    let inner = &body[..end];
    // `${{ secrets.X }}` ends with `}}`: the name sits between `secrets.` and the spaces.
    let (inner, extra) = match syntax {
        EnvSyntax::Secrets if body[end..].starts_with("}}") => {
            (inner.trim().strip_prefix("secrets.")?, 1)
        }
        EnvSyntax::Secrets => return None,
        _ => (inner, 0),
    };
    let (name, default) = match (syntax, inner.split_once(":-")) {
        (EnvSyntax::DollarBrace, Some((name, default))) => (name, Some(default)),
        _ => (inner, None),
    };
    if !crate::template::is_env_name(name) {
        return None;
    }
    let reference = match default {
        None => format!("{{{{env.{name}}}}}"),
        Some(d) if !d.contains('\'') && !d.contains("}}") => format!("{{{{env.{name}|'{d}'}}}}"),
        Some(d) if !d.contains('"') && !d.contains("}}") => format!("{{{{env.{name}|\"{d}\"}}}}"),
        Some(_) => return None,
    };
    Some((reference, open.len() + end + 1 + extra))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    fn manifest_server(
        name: &str,
        fields: &Map<String, Value>,
        syntax: EnvSyntax,
    ) -> ManifestServer {
        manifest_server_reading(name, fields, &[syntax])
    }

    use super::*;

    #[test]
    fn host_references_become_templates_and_braces_are_escaped() {
        let t = |s, syntax| template_of(s, &[syntax]);
        assert_eq!(
            t("Bearer ${TOKEN}", EnvSyntax::DollarBrace),
            "Bearer {{env.TOKEN}}"
        );
        assert_eq!(
            t("${PORT:-8080}", EnvSyntax::DollarBrace),
            "{{env.PORT|'8080'}}"
        );
        assert_eq!(t("${env:HOME}/x", EnvSyntax::EnvColon), "{{env.HOME}}/x");
        assert_eq!(t("${HOME}", EnvSyntax::EnvColon), "${HOME}");
        assert_eq!(t("{env:KEY}", EnvSyntax::BraceEnv), "{{env.KEY}}");
        // A host that reads two syntaxes (Hermes) has both made references.
        let both = [EnvSyntax::DollarBrace, EnvSyntax::EnvColon];
        assert_eq!(template_of("${A}-${env:B}", &both), "{{env.A}}-{{env.B}}");
        assert_eq!(
            t("Bearer ${{ secrets.KEY }}", EnvSyntax::Secrets),
            "Bearer {{env.KEY}}"
        );
        assert_eq!(t("${KEY}", EnvSyntax::None), "${KEY}");
        assert_eq!(
            t("a {{b}} @if(x) me@if.com", EnvSyntax::None),
            "a {{'{{'}}b}} {{'@'}}if(x) me@if.com"
        );
        assert_eq!(
            t("%APPDATA%\\x ~ $X ${input:y}", EnvSyntax::DollarBrace),
            "%APPDATA%\\x ~ $X ${input:y}"
        );
    }

    #[test]
    fn manifest_servers_are_valid_canonical_servers() {
        let fields = json!({"command": "node", "env": {"PORT": 8080, "T": "${T}"}, "frob": 1, "description": null});
        let s = manifest_server("x", fields.as_object().unwrap(), EnvSyntax::DollarBrace);
        assert_eq!(
            Value::Object(s.fields),
            json!({"command": "node", "args": [], "env": {"PORT": "8080", "T": "{{env.T}}"}})
        );
        assert_eq!(s.left_out, ["frob", "description"]);
        assert_eq!(s.problem, None);
        let s = manifest_server(
            "x",
            json!({"args": []}).as_object().unwrap(),
            EnvSyntax::None,
        );
        assert!(s.problem.is_some());
    }

    #[test]
    fn toml_keeps_types_and_quotes_odd_names() {
        let mut servers = BTreeMap::new();
        servers.insert(
            "café srv".to_string(),
            json!({"command": "x", "args": ["a"], "env": {"N": 1}, "timeout": 1.5, "enabled": false})
                .as_object()
                .unwrap()
                .clone(),
        );
        assert_eq!(
            servers_toml(&servers),
            "[servers.\"café srv\"]\ncommand = \"x\"\nargs = [\"a\"]\nenv = { N = 1 }\ntimeout = 1.5\nenabled = false\n"
        );
    }
}
