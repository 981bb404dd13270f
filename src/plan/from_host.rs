//! Import: host entries back into canonical servers, the inverse of [`crate::plan::to_host`].
//!
//! Pure and data-driven: everything comes from the adapter (its transport labels and its
//! `from_host` hook) and the concept table (each host spelling and its [`Form`]). Per entry:
//!
//! 1. the adapter's `from_host` hook normalises what the table cannot say field by field;
//! 2. nested host fields (`requestOptions.headers`) are taken out of their tables;
//! 3. every other field is looked up among the host's spellings (legacy ones included) and
//!    converted by its form: units into the canonical unit, `disabled` into `enabled`, a command
//!    array into `command` + `args`; a canonical spelling of a concept the host supports
//!    (`startup_timeout_ms` in Codex) is kept as it is;
//! 4. the transport `type` label is consumed, kept only as `type = "sse"`, and checked against
//!    `command`/`url`.
//!
//! Values are kept verbatim: references in the host's syntax (`${VAR}`, `${env:X}`, `{env:X}`,
//! `$X`, `%X%`, `~`) are not expanded and non-strings stay non-strings. Whatever looks wrong is a
//! [`ImportWarning`] with a stable code, never a silent fix.

mod render;
mod secrets;
#[cfg(test)]
mod tests;
mod wrapper;

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use crate::model::concepts::{Cell, Concept, Form, by_id, concept_of};
use crate::model::hosts::HostAdapter;
use crate::plan::to_host::{Unit, canonical_unit, convert, rank};

pub use render::{ManifestServer, manifest_server_reading, servers_toml, toml_table};
pub use secrets::find_secrets;

/// A value that looks like a real credential.
pub const LITERAL_SECRET: &str = "literal-secret";
/// A transport label that does not fit `command`/`url`, or that dotpack does not know.
pub const TYPE_CONTRADICTS_TRANSPORT: &str = "type-contradicts-transport";
/// Codex `startup_timeout_sec` and `startup_timeout_ms` both set (`_sec` wins).
pub const BOTH_STARTUP_TIMEOUTS: &str = "both-startup-timeouts";
/// An `env` value that is not a string (kept as it is).
pub const NON_STRING_ENV: &str = "non-string-env";
/// Neither `command` nor `url`, or not a table: the entry is skipped.
pub const INCOMPLETE_SERVER: &str = "incomplete-server";
/// A field the host documents that no concept stands for: left out.
pub const HOST_FIELD: &str = "host-field";
/// A field the concept table does not know for this host (kept under its own name).
pub const UNKNOWN_FIELD: &str = "unknown-field";
/// Two host spellings of one canonical field with different values (the one the host writes
/// wins; the other is kept under its own name).
pub const CONFLICTING_FIELDS: &str = "conflicting-fields";
/// A value of the wrong shape for its form (a `disabled` that is not a boolean, a `command`
/// array that is empty or holds non-strings): kept under its own name.
pub const INVALID_VALUE: &str = "invalid-value";

/// An `npx mcp-remote URL` bridge, imported as the remote server it reaches.
pub const REMOTE_BRIDGE: &str = "remote-bridge";

/// A value the host runs as a shell command (pi's `!command`): kept as it is, but dotpack would
/// write it back as a literal, so `import --into` leaves the server unclaimed.
pub const HOST_COMMAND: &str = "host-command";

/// Something about an imported entry the user should know, with a stable `code`.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct ImportWarning {
    pub code: &'static str,
    pub server: String,
    pub message: String,
}

/// The servers of one host file in canonical form, and what was odd about them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Imported {
    /// Canonical fields per server, in the order translation writes them.
    pub servers: BTreeMap<String, Map<String, Value>>,
    pub warnings: Vec<ImportWarning>,
}

/// The canonical servers of `entries` as `adapter`'s host file holds them.
pub fn import_entries(adapter: &HostAdapter, entries: Vec<(String, Value)>) -> Imported {
    let mut imported = Imported::default();
    for (name, value) in entries {
        let mut warn = |code: &'static str, message: String| {
            imported.warnings.push(ImportWarning {
                code,
                server: name.clone(),
                message,
            });
        };
        let server = match value {
            Value::Object(entry) => import_entry(adapter, entry, &mut warn),
            other => {
                warn(
                    INCOMPLETE_SERVER,
                    format!(
                        "skipped: the entry is {}, not a table of fields",
                        json_type(&other)
                    ),
                );
                continue;
            }
        };
        let text = |f: &str| server.get(f).is_some_and(Value::is_string);
        if !text("command") && !text("url") {
            warn(
                INCOMPLETE_SERVER,
                "skipped: the entry has neither `command` (local) nor `url` (remote), so no host can start it"
                    .to_string(),
            );
            continue;
        }
        imported.servers.insert(name, server);
    }
    imported
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Transport {
    Stdio,
    Http,
    Sse,
}

/// Labels hosts use for each transport, besides the adapter's own.
const LABELS: &[(&str, Transport)] = &[
    ("stdio", Transport::Stdio),
    ("local", Transport::Stdio),
    ("http", Transport::Http),
    ("streamable-http", Transport::Http),
    ("streamableHttp", Transport::Http),
    ("streamable_http", Transport::Http),
    ("remote", Transport::Http),
    ("sse", Transport::Sse),
];

fn transport_of_label(adapter: &HostAdapter, label: &str) -> Option<Transport> {
    let types = adapter.transport_types;
    let own = [
        (types.stdio, Transport::Stdio),
        (types.http, Transport::Http),
        (types.sse, Transport::Sse),
    ];
    own.iter()
        .find(|(l, _)| *l == Some(label))
        .map(|(_, t)| *t)
        .or_else(|| LABELS.iter().find(|(l, _)| *l == label).map(|(_, t)| *t))
}

/// The canonical fields of one entry.
fn import_entry(
    adapter: &HostAdapter,
    mut entry: Map<String, Value>,
    warn: &mut dyn FnMut(&'static str, String),
) -> Map<String, Value> {
    if let Some(rule) = adapter.hooks.command_values {
        unescape_commands(adapter, &rule, &mut entry, warn);
    }
    (adapter.hooks.from_host)(&mut entry);
    let mut out = Fields::default();
    take_nested(adapter, &mut entry, &mut out, warn);
    leave_own_fields(adapter, &mut entry, warn);
    let mut labels = Vec::new();
    for (key, value) in entry {
        if is_marker(adapter, &key) {
            labels.push((key, value));
            continue;
        }
        field(adapter, key, value, &mut out, warn);
    }
    let mut server = out.finish(warn);
    wrapper::unwrap_cmd(&mut server);
    if let Some(bridged) = wrapper::unwrap_remote(&mut server) {
        // The entry's label (`"type": "stdio"`) was the bridge's; its `--transport` says the
        // remote server's.
        labels.clear();
        report_bridge(adapter, &bridged, warn);
    }
    transport(adapter, labels, &mut server, warn);
    check(&server, warn);
    server
}

/// Takes out the fields the host documents that no concept stands for
/// ([`HostAdapter::own_fields`]), with a note. Kept, one could pass for a canonical field that
/// means something else: opencode's `timeout` (the tool-list fetch) is not dotpack's (a call).
fn leave_own_fields(
    adapter: &HostAdapter,
    entry: &mut Map<String, Value>,
    warn: &mut dyn FnMut(&'static str, String),
) {
    for (field, meaning) in adapter.own_fields {
        if entry.remove(*field).is_some() {
            warn(
                HOST_FIELD,
                format!(
                    "`{field}` is {host}'s own field ({meaning}), which no other host has: left out of the import; {host}'s entry keeps it",
                    host = adapter.name()
                ),
            );
        }
    }
}

/// The inverse of the escaping install does for a host that runs `!command` values (see
/// [`crate::model::hosts::CommandValues`]): a doubled prefix loses one (`!!x` is the literal `!x`); a
/// single one is a command the host runs, reported and kept as it is.
fn unescape_commands(
    adapter: &HostAdapter,
    rule: &crate::model::hosts::CommandValues,
    entry: &mut Map<String, Value>,
    warn: &mut dyn FnMut(&'static str, String),
) {
    let prefix = rule.prefix;
    rule.visit(entry, &mut |path, text| {
        if rule.is_escaped(text) {
            text.remove(0);
        } else if rule.runs(text) {
            warn(
                HOST_COMMAND,
                format!(
                    "`{path}` starts with `{prefix}`: {} runs it as a shell command when it connects; kept as it is, but dotpack writes every value as a literal (`{prefix}{prefix}…`), so `import --into` leaves this server unclaimed and its entry as it is",
                    adapter.name()
                ),
            );
        }
    });
}

/// Says what became of an `mcp-remote` bridge, where it is not the host's own way to reach a
/// remote server (Claude Desktop's, which dotpack writes itself).
fn report_bridge(
    adapter: &HostAdapter,
    bridged: &wrapper::Bridged,
    warn: &mut dyn FnMut(&'static str, String),
) {
    if adapter.remote_wrapper.is_some() {
        return;
    }
    let left = match &bridged.pinned {
        Some(pin) => format!(" (the pin `{pin}` is left behind)"),
        None => String::new(),
    };
    warn(
        REMOTE_BRIDGE,
        format!(
            "`npx mcp-remote URL` is a stdio bridge to a remote server: imported as that server's `url`{left}, which dotpack writes natively for hosts that reach remote servers; if it speaks only legacy SSE, add `type = \"sse\"`"
        ),
    );
}

/// Whether `key` is a transport label field in this host: its spellings of `type`, or `type`.
fn is_marker(adapter: &HostAdapter, key: &str) -> bool {
    key == "type" || concept_of("type").is_some_and(|c| adapter.cells_of(c).any(|h| h.field == key))
}

/// Canonical fields collected from an entry, each with the host field it came from and whether
/// that spelling is the one the host writes (which wins over a legacy one).
#[derive(Default)]
struct Fields {
    items: Vec<(String, Value, String, bool)>,
}

impl Fields {
    fn put(&mut self, canonical: &str, value: Value, from: &str, preferred: bool) {
        self.items
            .push((canonical.to_string(), value, from.to_string(), preferred));
    }

    /// The fields in translation order; a canonical field given twice keeps the preferred
    /// spelling and puts the other under its own name.
    fn finish(mut self, warn: &mut dyn FnMut(&'static str, String)) -> Map<String, Value> {
        self.items
            .sort_by_key(|(c, _, _, preferred)| (rank(c), !*preferred));
        let mut out = Map::new();
        for (canonical, value, from, _) in self.items {
            match out.get(&canonical) {
                None => {
                    out.insert(canonical, value);
                }
                Some(kept) if *kept == value => {}
                Some(_) => {
                    warn(
                        CONFLICTING_FIELDS,
                        format!(
                            "`{from}` also sets `{canonical}`, differently; kept as `{from}`, which no host reads"
                        ),
                    );
                    out.insert(from, value);
                }
            }
        }
        out
    }
}

/// Takes the host's nested fields (`requestOptions.headers`, `oauth.scopes`) out of their
/// tables; a table left empty goes.
fn take_nested(
    adapter: &HostAdapter,
    entry: &mut Map<String, Value>,
    out: &mut Fields,
    warn: &mut dyn FnMut(&'static str, String),
) {
    for (concept, hf) in host_fields(adapter, |h| h.form == Form::Nested) {
        let path: Vec<&str> = hf.field.split('.').collect();
        if let Some(value) = take_path(entry, &path) {
            put_converted(adapter, concept, hf, value, out, warn);
        }
    }
}

fn take_path(map: &mut Map<String, Value>, path: &[&str]) -> Option<Value> {
    match path {
        [] => None,
        [last] => map.remove(*last),
        [first, rest @ ..] => {
            let Value::Object(inner) = map.get_mut(*first)? else {
                return None;
            };
            let value = take_path(inner, rest)?;
            if inner.is_empty() {
                map.remove(*first);
            }
            Some(value)
        }
    }
}

/// The cells of this host that `keep` selects, each with its concept, in the adapter's
/// (concept-table) order.
fn host_fields(
    adapter: &HostAdapter,
    keep: impl Fn(&Cell) -> bool,
) -> impl Iterator<Item = (&'static Concept, &'static Cell)> {
    adapter
        .cells()
        .filter(move |cell| keep(cell))
        .filter_map(|cell| Some((by_id(cell.concept)?, cell)))
}

/// Maps one top-level host field.
fn field(
    adapter: &HostAdapter,
    key: String,
    value: Value,
    out: &mut Fields,
    warn: &mut dyn FnMut(&'static str, String),
) {
    let spelling = host_fields(adapter, |h| h.field == key && h.form != Form::Nested)
        // `command` of a command-array host stands in the `command` and `args` rows: one of them.
        .find(|(c, h)| h.form != Form::CommandArray || c.field == "command");
    if let Some((concept, hf)) = spelling {
        put_converted(adapter, concept, hf, value, out, warn);
        return;
    }
    // A canonical spelling of a concept the host supports (Codex `startup_timeout_ms`).
    if let Some(concept) = concept_of(&key)
        && adapter.reads(concept)
    {
        out.put(&key, value, &key, false);
        return;
    }
    warn(
        UNKNOWN_FIELD,
        format!(
            "`{key}` is not a field {} reads (not in the concept table for it); kept as it is",
            adapter.name()
        ),
    );
    out.put(&key, value, &key, false);
}

/// Puts `value` of host field `hf` under its canonical name, converted by the field's form (a
/// host's own words for a value through its `value_from_host`, the inverse of what install
/// writes).
fn put_converted(
    adapter: &HostAdapter,
    concept: &Concept,
    hf: &Cell,
    value: Value,
    out: &mut Fields,
    warn: &mut dyn FnMut(&'static str, String),
) {
    let preferred = hf.form != Form::Legacy;
    let canonical = concept.field;
    match hf.form {
        Form::Values => {
            let value = (adapter.hooks.value_from_host)(canonical, &value).unwrap_or(value);
            out.put(canonical, value, hf.field, preferred);
        }
        Form::Same | Form::Legacy | Form::Nested => {
            out.put(canonical, value, hf.field, preferred);
        }
        Form::Millis | Form::Seconds => {
            let from = if hf.form == Form::Millis {
                Unit::Millis
            } else {
                Unit::Seconds
            };
            let value = match canonical_unit(canonical) {
                Some(to) => convert(value, from, to),
                None => value,
            };
            out.put(canonical, value, hf.field, preferred);
        }
        Form::Inverted => match value {
            Value::Bool(b) => out.put(canonical, Value::Bool(!b), hf.field, preferred),
            other => {
                warn(
                    INVALID_VALUE,
                    format!(
                        "`{}` should be a boolean (it means `{canonical}` inverted), not {}; kept as it is",
                        hf.field,
                        json_type(&other)
                    ),
                );
                out.put(hf.field, other, hf.field, false);
            }
        },
        Form::CommandArray => match value {
            Value::String(_) => out.put("command", value, hf.field, preferred),
            Value::Array(items) if !items.is_empty() && items.iter().all(Value::is_string) => {
                let mut items = items.into_iter();
                if let Some(program) = items.next() {
                    out.put("command", program, hf.field, preferred);
                }
                out.put("args", Value::Array(items.collect()), hf.field, preferred);
            }
            other => {
                warn(
                    INVALID_VALUE,
                    format!(
                        "`{}` should be the program and its arguments as strings, not {}; kept as it is",
                        hf.field,
                        json_type(&other)
                    ),
                );
                out.put(hf.field, other, hf.field, false);
            }
        },
    }
}

/// Consumes the transport labels: `sse` stays as canonical `type`, a label that does not fit
/// `command`/`url` is reported.
fn transport(
    adapter: &HostAdapter,
    labels: Vec<(String, Value)>,
    server: &mut Map<String, Value>,
    warn: &mut dyn FnMut(&'static str, String),
) {
    let stdio = server.contains_key("command");
    let remote = server.contains_key("url");
    for (key, value) in labels {
        let Some(label) = value.as_str() else {
            warn(
                TYPE_CONTRADICTS_TRANSPORT,
                format!(
                    "`{key}` should be a transport label such as \"http\", not {}; left out",
                    json_type(&value)
                ),
            );
            continue;
        };
        let contradicts = |what: &str| format!("`{key} = \"{label}\"` {what}; left out");
        match transport_of_label(adapter, label) {
            None => warn(
                TYPE_CONTRADICTS_TRANSPORT,
                contradicts(
                    "is not a transport dotpack knows (the server's `command` or `url` decides)",
                ),
            ),
            Some(Transport::Stdio) if remote && !stdio => warn(
                TYPE_CONTRADICTS_TRANSPORT,
                contradicts("says local (stdio), but the server has a `url`"),
            ),
            Some(Transport::Http | Transport::Sse) if stdio && !remote => warn(
                TYPE_CONTRADICTS_TRANSPORT,
                contradicts("says remote, but the server has a `command`"),
            ),
            Some(Transport::Sse) if remote => {
                let mut with_type = Map::new();
                with_type.insert("type".to_string(), Value::from("sse"));
                with_type.append(server);
                *server = with_type;
            }
            Some(_) => {}
        }
    }
}

/// Warnings about the whole server: timeouts, env values, literal secrets.
fn check(server: &Map<String, Value>, warn: &mut dyn FnMut(&'static str, String)) {
    if server.contains_key("startup_timeout_sec") && server.contains_key("startup_timeout_ms") {
        warn(
            BOTH_STARTUP_TIMEOUTS,
            "both `startup_timeout_sec` and `startup_timeout_ms` are set; `startup_timeout_sec` wins, remove the other".to_string(),
        );
    }
    if let Some(Value::Object(env)) = server.get("env") {
        for (key, value) in env.iter().filter(|(_, v)| !v.is_string()) {
            warn(
                NON_STRING_ENV,
                format!(
                    "`env.{key}` is {}, not a string; kept as it is, but environment values are text",
                    json_type(value)
                ),
            );
        }
    }
    for secret in find_secrets(server) {
        warn(
            LITERAL_SECRET,
            format!(
                "`{}` looks like a literal secret ({}); reference an environment variable instead",
                secret.path, secret.reason
            ),
        );
    }
}

/// How messages name a JSON value's type.
fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "a table",
    }
}
