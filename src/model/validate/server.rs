//! `[servers.X]`: transport, field names against the concept table, value kinds, templates and
//! literal secrets.

use toml_edit::{Item, Key, TableLike, Value};

use super::sections::is_http_url;
use super::{Checker, did_you_mean, entries, host_values, secrets, segment, templates, type_name};
use crate::model::concepts::{
    CONCEPTS, HTTP_ONLY, STDIO_ONLY, ValueKind, canonical_fields, concept_of, host_alias_of,
    normalised_spelling,
};

/// `type` values dotpack understands, with the transport each implies.
const TYPES: &[(&str, Transport)] = &[
    ("stdio", Transport::Stdio),
    ("http", Transport::Http),
    ("streamable-http", Transport::Http),
    ("sse", Transport::Http),
];

#[derive(Clone, Copy, PartialEq, Eq)]
enum Transport {
    Stdio,
    Http,
}

impl Checker<'_> {
    /// `hosts = ["claude-code"]` on a server: a list of known host ids, each once.
    fn server_hosts(&mut self, item: &Item, at: &str) {
        let Some(list) = item.as_array() else {
            self.error(
                "wrong-type",
                "`hosts` must be a list of host ids",
                item.span(),
                at,
                "write `hosts = [\"claude-code\"]`: the hosts this server is written into",
            );
            return;
        };
        let mut seen = std::collections::BTreeSet::new();
        for value in list.iter() {
            let Some(id) = value.as_str() else {
                self.error(
                    "wrong-type",
                    format!("a host must be a host id, not {}", value.type_name()),
                    value.span(),
                    at,
                    "write `hosts = [\"claude-code\"]`",
                );
                continue;
            };
            if !crate::model::hosts::is_known_host(id) {
                let ids = crate::model::hosts::ADAPTERS.iter().map(|h| h.id);
                let help = match super::did_you_mean(id, ids) {
                    Some(s) => format!("did you mean `{s}`?"),
                    None => "`dotpack hosts` lists the host ids".to_string(),
                };
                self.error(
                    "unknown-host",
                    format!("unknown host `{id}`"),
                    value.span(),
                    at,
                    help,
                );
            } else if !seen.insert(id) {
                self.error(
                    "duplicate-host",
                    format!("host `{id}` is listed twice"),
                    value.span(),
                    at,
                    "keep each host once",
                );
            }
        }
    }

    pub(super) fn server(&mut self, at: &str, key: &Key, item: &Item) {
        let Some(table) = self.expect_table(key, item, at) else {
            return;
        };
        for (k, v) in entries(table) {
            let name = k.get();
            let key_path = format!("{at}.{}", segment(name));
            let normalised = normalised_spelling(name).filter(|c| !table.contains_key(c));
            if let Some(canonical) = normalised {
                self.warning(
                    "normalised-spelling",
                    format!("`{name}` is read as `{canonical}`, its canonical name"),
                    k.span(),
                    &key_path,
                    format!("write `{canonical}`; dotpack writes each host's own spelling"),
                );
            }
            if name == crate::model::bridge_server::FIELD {
                self.bridge_url(k, v, &key_path);
            } else if name == "hosts" {
                self.server_hosts(v, &key_path);
            } else if let Some(concept) = concept_of(normalised.unwrap_or(name)) {
                if let Some(s) = v.as_str()
                    && let Some(issue) = host_values::typed_env(name, s, concept.kind)
                {
                    self.issue_in(v.as_value(), s, &key_path, issue);
                } else if let Some(s) = v.as_str()
                    && self.templated_kind(s, v, &key_path, concept.kind)
                {
                    // checked against the input's type
                } else if self.expect_kind(k, v, &key_path, concept.kind) {
                    self.secrets_in(normalised.unwrap_or(name), v, &key_path);
                    if concept.id == "tool_approval_overrides" {
                        self.tool_overrides(k, v, &key_path);
                    }
                }
            } else if let Some(canonical) = host_alias_of(name) {
                let help = if table.contains_key(canonical) {
                    format!("remove `{name}`: `{canonical}` is set too")
                } else {
                    format!("write `{canonical}` instead; dotpack writes each host's own spelling")
                };
                self.error(
                    "host-spelling",
                    format!("`{name}` is a host-specific spelling of `{canonical}`"),
                    k.span(),
                    &key_path,
                    help,
                );
            } else {
                let help = match did_you_mean(name, canonical_fields()) {
                    Some(s) => format!("did you mean `{s}`?"),
                    None => {
                        "use a canonical field name (see `dotpack` docs: concept table)".to_string()
                    }
                };
                self.error(
                    "unknown-field",
                    format!("`{name}` is not in the concept table"),
                    k.span(),
                    &key_path,
                    help,
                );
            }
            let shell = table
                .get("command")
                .and_then(Item::as_str)
                .is_some_and(crate::template::is_shell);
            self.templates_in(v, &key_path, !(shell && name == "args"));
        }
        self.transport(at, key, table);
        self.spelling_conflicts(at, table);
    }

    /// Exactly one of `command`/`url`; `args` with `command`; `type` agreeing with both.
    fn transport(&mut self, at: &str, key: &Key, table: &dyn TableLike) {
        if table.contains_key(crate::model::bridge_server::FIELD) {
            return self.bridge_transport(at, table);
        }
        let command = table.get_key_value("command");
        let url = table.get_key_value("url");
        let transport = match (command, url) {
            (Some(_), Some((uk, _))) => {
                self.error(
                    "two-transports",
                    "a server has both `command` and `url`",
                    uk.span(),
                    &format!("{at}.url"),
                    "keep `command` + `args` for a local (stdio) server or `url` for a remote one",
                );
                None
            }
            (None, None) => {
                self.error(
                    "no-transport",
                    "a server needs `command` (local) or `url` (remote)",
                    key.span(),
                    at,
                    "add `command = \"npx\"` with `args = [...]`, or `url = \"https://…/mcp\"`",
                );
                None
            }
            (Some((ck, _)), None) => {
                if !table.contains_key("args") {
                    self.error(
                        "missing-args",
                        "a server with `command` needs `args`",
                        ck.span(),
                        &format!("{at}.command"),
                        "add `args = []` if the command takes no arguments",
                    );
                }
                Some(Transport::Stdio)
            }
            (None, Some((_, uv))) => {
                if let Some(url) = uv.as_str()
                    && !is_http_url(url)
                {
                    self.error(
                        "invalid-url",
                        format!("`{url}` is not an http(s) URL"),
                        uv.span(),
                        &format!("{at}.url"),
                        "write `url = \"https://host/mcp\"` (templates like `{{props.port}}` are fine)",
                    );
                }
                Some(Transport::Http)
            }
        };
        self.other_transport_fields(at, table, transport);
        let Some((_, ty)) = table.get_key_value("type") else {
            return;
        };
        let Some(value) = ty.as_str() else { return };
        let key_path = format!("{at}.type");
        match TYPES.iter().find(|(name, _)| *name == value) {
            None => self.error(
                "unknown-type",
                format!("unknown transport type `{value}`"),
                ty.span(),
                &key_path,
                "write `stdio`, `http`, `streamable-http` or `sse`, or leave `type` out: dotpack infers it",
            ),
            Some((_, implied)) if transport.is_some_and(|t| t != *implied) => {
                let help = match implied {
                    Transport::Stdio => "a server with `url` is remote: use `type = \"http\"` or drop `type`",
                    Transport::Http => "a server with `command` is local: use `type = \"stdio\"` or drop `type`",
                };
                self.error(
                    "type-contradicts-transport",
                    format!("`type = \"{value}\"` contradicts the server's transport"),
                    ty.span(),
                    &key_path,
                    help,
                );
            }
            Some(_) => {}
        }
    }

    /// `env` on a remote server or `http_headers` on a local one: the author's mistake, which
    /// some hosts refuse to load.
    fn other_transport_fields(
        &mut self,
        at: &str,
        table: &dyn TableLike,
        transport: Option<Transport>,
    ) {
        let (wrong, kind, fix) = match transport {
            Some(Transport::Stdio) => (
                HTTP_ONLY,
                "local (stdio)",
                "headers apply to remote servers only",
            ),
            Some(Transport::Http) => (
                STDIO_ONLY,
                "remote",
                "a remote server has no process: remove it",
            ),
            None => return,
        };
        for field in wrong {
            if let Some((k, _)) = table.get_key_value(field) {
                self.error(
                    "wrong-transport-field",
                    format!("`{field}` does not apply to a {kind} server"),
                    k.span(),
                    &format!("{at}.{field}"),
                    fix,
                );
            }
        }
    }

    /// A concept written under two canonical spellings (`startup_timeout_sec` and `_ms`).
    fn spelling_conflicts(&mut self, at: &str, table: &dyn TableLike) {
        for concept in CONCEPTS.iter().filter(|c| !c.alternates.is_empty()) {
            if !table.contains_key(concept.field) {
                continue;
            }
            for alt in concept.alternates {
                if let Some((k, _)) = table.get_key_value(alt) {
                    self.warning(
                        "conflicting-fields",
                        format!(
                            "both `{}` and `{alt}` are set; `{}` wins",
                            concept.field, concept.field
                        ),
                        k.span(),
                        &format!("{at}.{alt}"),
                        format!("remove `{alt}`"),
                    );
                }
            }
        }
    }

    /// A string that is one expression (`"{{props.timeout}}"`) in a field of another kind: it
    /// renders to that kind when the input's type allows. Returns whether `s` is such a
    /// template (checked here), so the kind check does not apply.
    fn templated_kind(&mut self, s: &str, item: &Item, at: &str, kind: ValueKind) -> bool {
        use crate::model::inputs::InputType;
        let t = s.trim();
        let sole = t.starts_with("{{") && t.ends_with("}}") && t[2..].find("{{").is_none();
        let convertible = matches!(
            kind,
            ValueKind::Integer | ValueKind::Number | ValueKind::Bool | ValueKind::StringList
        );
        if !sole || !convertible {
            return false;
        }
        let Some(input) = crate::template::prop_refs(s).into_iter().next() else {
            return true;
        };
        let fits = match self.input_types.get(&input) {
            None | Some(InputType::String) => true,
            Some(InputType::Number) => matches!(kind, ValueKind::Integer | ValueKind::Number),
            Some(InputType::Bool) => kind == ValueKind::Bool,
            Some(InputType::Array) => kind == ValueKind::StringList,
            Some(InputType::Object) => false,
        };
        if !fits && let Some(ty) = self.input_types.get(&input) {
            self.error(
                "wrong-type",
                format!(
                    "`{s}` gives input `{input}`, which is {}, but the field holds {}",
                    ty.name(),
                    kind.describe()
                ),
                item.span(),
                at,
                format!("declare `[inputs.{input}]` with a type that fits, or use another input"),
            );
        }
        true
    }

    /// Whether `item` has `kind`; reports an error (per element for lists and maps) when not.
    /// The text of `item`, or `None` after reporting that it must be a string (see
    /// [`Self::expect_kind`]).
    pub(super) fn expect_str<'i>(
        &mut self,
        key: &Key,
        item: &'i Item,
        at: &str,
    ) -> Option<&'i str> {
        self.expect_kind(key, item, at, ValueKind::String)
            .then(|| item.as_str())
            .flatten()
    }

    pub(super) fn expect_kind(
        &mut self,
        key: &Key,
        item: &Item,
        at: &str,
        kind: ValueKind,
    ) -> bool {
        let ok = match kind {
            ValueKind::String => item.as_str().is_some(),
            ValueKind::Bool => item.as_bool().is_some(),
            ValueKind::Integer => item.as_integer().is_some(),
            ValueKind::Number => item.as_integer().is_some() || item.as_float().is_some(),
            ValueKind::StringList => return self.string_list(key, item, at, kind),
            ValueKind::StringMap => return self.string_map(key, item, at),
            ValueKind::Table => item.is_table_like(),
            ValueKind::List => item.as_array().is_some() || item.is_array_of_tables(),
            ValueKind::BoolOrString => item.as_bool().is_some() || item.as_str().is_some(),
            ValueKind::StringOrList => {
                if item.as_str().is_some() {
                    true
                } else {
                    return self.string_list(key, item, at, kind);
                }
            }
            ValueKind::BoolOrList => {
                if item.as_bool().is_some() {
                    true
                } else {
                    return self.string_list(key, item, at, kind);
                }
            }
        };
        if !ok {
            self.wrong_kind(
                key.get(),
                item.span().or_else(|| key.span()),
                type_name(item),
                at,
                kind,
            );
        }
        ok
    }

    /// `tools` is Codex's per-tool table (`tools.NAME.approval_mode`). A Hermes-shaped
    /// `tools = { include = [...], exclude = [...] }` has lists where tables belong: written as it
    /// is into Codex it would mean something else, so it is refused with the canonical fields.
    fn tool_overrides(&mut self, key: &Key, item: &Item, at: &str) {
        let Some(table) = item.as_table_like() else {
            return;
        };
        for (tool, value) in table.iter() {
            if value.is_table_like() {
                continue;
            }
            let fix = match tool {
                "include" => "write the allow list as `enabled_tools = [...]`".to_string(),
                "exclude" => "write the deny list as `disabled_tools = [...]`".to_string(),
                _ => format!("write `{tool} = {{ approval_mode = \"approve\" }}`"),
            };
            self.error(
                "wrong-type",
                format!("`tools.{tool}` must be a table of per-tool settings"),
                key.span(),
                &format!("{at}.{}", segment(tool)),
                fix,
            );
        }
    }

    fn wrong_kind(
        &mut self,
        name: &str,
        span: Option<std::ops::Range<usize>>,
        found: &str,
        at: &str,
        kind: ValueKind,
    ) {
        self.error(
            "wrong-type",
            format!("`{name}` must be {}, not {found}", kind.describe()),
            span,
            at,
            format!("write `{name}` as {}", kind.describe()),
        );
    }

    fn string_list(&mut self, key: &Key, item: &Item, at: &str, kind: ValueKind) -> bool {
        let Some(array) = item.as_array() else {
            self.wrong_kind(
                key.get(),
                item.span().or_else(|| key.span()),
                type_name(item),
                at,
                kind,
            );
            return false;
        };
        let mut ok = true;
        for (i, v) in array.iter().enumerate() {
            if v.as_str().is_none() {
                ok = false;
                self.error(
                    "wrong-type",
                    format!(
                        "`{}` must hold only strings, but item {i} is {}",
                        key.get(),
                        value_type(v)
                    ),
                    v.span(),
                    &format!("{at}[{i}]"),
                    "quote it: every item is a string",
                );
            }
        }
        ok
    }

    fn string_map(&mut self, key: &Key, item: &Item, at: &str) -> bool {
        let Some(table) = item.as_table_like() else {
            self.wrong_kind(
                key.get(),
                item.span().or_else(|| key.span()),
                type_name(item),
                at,
                ValueKind::StringMap,
            );
            return false;
        };
        let mut ok = true;
        for (k, v) in entries(table) {
            if v.as_str().is_none() {
                ok = false;
                self.error(
                    "wrong-type",
                    format!(
                        "`{}` values must be strings, but `{}` is {}",
                        key.get(),
                        k.get(),
                        type_name(v)
                    ),
                    v.span().or_else(|| k.span()),
                    &format!("{at}.{}", segment(k.get())),
                    "quote the value",
                );
            }
        }
        ok
    }

    /// Literal secrets in `args`, `env` values, `url` and header values.
    fn secrets_in(&mut self, field: &str, item: &Item, at: &str) {
        let mut found = Vec::new();
        match field {
            "args" => {
                let args: Vec<&Value> = item.as_array().into_iter().flatten().collect();
                for (i, v) in args.iter().enumerate() {
                    let Some(s) = v.as_str() else { continue };
                    let prev = i.checked_sub(1).and_then(|p| args[p].as_str());
                    if let Some(reason) = secrets::arg_secret(s, prev) {
                        found.push((v.span(), format!("{at}[{i}]"), reason));
                    }
                }
            }
            "env" | "http_headers" => {
                for (k, v) in item.as_table_like().map(entries).unwrap_or_default() {
                    let Some(s) = v.as_str() else { continue };
                    if let Some(reason) = secrets::named_secret(k.get(), s) {
                        found.push((v.span(), format!("{at}.{}", segment(k.get())), reason));
                    }
                }
            }
            "url" => {
                if let Some(reason) = item.as_str().and_then(secrets::url_secret) {
                    found.push((item.span(), at.to_string(), reason));
                }
            }
            _ => {}
        }
        for (span, key_path, reason) in found {
            self.warning(
                "literal-secret",
                format!("this looks like a literal secret ({reason})"),
                span,
                &key_path,
                secrets::LITERAL_SECRET_HELP,
            );
        }
    }

    /// Template checks on every string inside `item`, keys included.
    fn templates_in(&mut self, item: &Item, at: &str, bare: bool) {
        if let Some(value) = item.as_value() {
            self.templates_value(value, at, bare);
        } else if let Some(table) = item.as_table_like() {
            for (k, v) in entries(table) {
                let key_path = format!("{at}.{}", segment(k.get()));
                self.templates_key(k, &key_path);
                self.templates_in(v, &key_path, bare);
            }
        }
    }

    /// A map key is rendered like a value (`"{{props.name}}" = "x"`), but cannot hold an
    /// environment reference.
    fn templates_key(&mut self, key: &Key, at: &str) {
        let text = key.get();
        if !text.contains(['{', '@']) {
            return;
        }
        let issues = templates::check(text, &self.inputs, &self.input_types)
            .into_iter()
            .chain(host_values::key_env(text));
        for issue in issues {
            self.error(issue.code, issue.message, key.span(), at, issue.help);
        }
    }

    /// Reports `issue`, found at its offset in string `s` (the value `value`).
    fn issue_in(
        &mut self,
        value: Option<&Value>,
        s: &str,
        at: &str,
        issue: templates::TemplateIssue,
    ) {
        let span =
            templates::span_in_literal(self.text, value.and_then(Value::span), s, issue.offset);
        self.error(issue.code, issue.message, span, at, issue.help);
    }

    fn templates_value(&mut self, value: &Value, at: &str, bare: bool) {
        match value {
            Value::String(s) => {
                for r in crate::template::literal_refs(s.value(), bare) {
                    let span =
                        templates::span_in_literal(self.text, value.span(), s.value(), r.offset);
                    self.warning(
                        "literal-reference",
                        format!(
                            "`{}` is an environment reference in one host's syntax; hosts that \
                             do not expand it would receive the text",
                            r.written
                        ),
                        span,
                        at,
                        format!(
                            "write `{}`: dotpack writes each host's own reference syntax",
                            r.template
                        ),
                    );
                }
                if let Some(at_marker) = s.value().find("<dotpack:env:") {
                    let span =
                        templates::span_in_literal(self.text, value.span(), s.value(), at_marker);
                    self.error(
                        "reserved-marker",
                        "`<dotpack:env:…>` is reserved for the values dotpack writes with \
                         --resolve-env; a package cannot write it"
                            .to_string(),
                        span,
                        at,
                        "write `{{env.NAME}}` for an environment variable".to_string(),
                    );
                }
                let issues = templates::check(s.value(), &self.inputs, &self.input_types)
                    .into_iter()
                    .chain(host_values::env_chains(s.value()));
                for issue in issues {
                    self.issue_in(Some(value), s.value(), at, issue);
                }
            }
            Value::Array(array) => {
                for (i, v) in array.iter().enumerate() {
                    self.templates_value(v, &format!("{at}[{i}]"), bare);
                }
            }
            Value::InlineTable(t) => {
                for (k, v) in t.iter() {
                    let key_path = format!("{at}.{}", segment(k));
                    if let Some((key, _)) = t.get_key_value(k) {
                        self.templates_key(key, &key_path);
                    }
                    self.templates_value(v, &key_path, bare);
                }
            }
            _ => {}
        }
    }
}

fn value_type(v: &Value) -> &'static str {
    type_name(&Item::Value(v.clone()))
}
