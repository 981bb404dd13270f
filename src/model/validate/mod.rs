//! Validation of `dotpack.toml`: every rule of the manifest, each finding pointing at its line.
//!
//! Validation runs on the spanned document (`toml_edit::Document`), before deserializing, so each
//! finding carries a line, a column and a key path such as `servers.figma.args[1]`. Findings come
//! back in file order.
//!
//! Unknown keys are errors wherever they change what dotpack does (top level, `[project]`,
//! `[settings]`, `[inputs.X]`, `[registries.X]`, dependency tables, servers): a misspelt
//! `[dependecies]` silently ignored would install nothing. Unknown keys in `[package]` are only
//! warnings: they are descriptive metadata, and newer package fields should not make an older
//! dotpack refuse a package.

mod bridge;
pub(crate) mod host_values;
pub(crate) mod resources;
pub(crate) mod secrets;
mod sections;
mod server;
pub(crate) mod templates;

use std::collections::BTreeSet;
use std::ops::Range;
use std::path::Path;

use toml_edit::{Item, Key, TableLike};

use crate::ui::diag::Diagnostic;

/// Checks manifest `text` (read from `path`) and returns every error and warning, in file order.
/// Syntax errors come back as a single error diagnostic with the parser's position.
pub fn check_manifest(path: &Path, text: &str) -> Vec<Diagnostic> {
    let doc = match toml_edit::Document::parse(text.to_string()) {
        Ok(doc) => doc,
        Err(e) => {
            if let Some(conflict) = merge_conflict(path, text) {
                return vec![conflict];
            }
            return vec![
                Diagnostic::error("toml-syntax", path, e.message().trim_end().to_string())
                    .at(text, e.span())
                    .help("fix the TOML syntax at this position"),
            ];
        }
    };
    let root: &dyn TableLike = doc.as_table();
    let mut checker = Checker {
        path,
        text,
        diags: Vec::new(),
        inputs: names_of(root, "inputs"),
        input_types: input_types(root),
        registries: names_of(root, "registries"),
    };
    checker.top_level(root);
    let mut diags = checker.diags;
    if let Some(at) = text.find(crate::model::schema::OLD_DIRECTIVE) {
        let end = at + crate::model::schema::OLD_DIRECTIVE.len();
        diags.push(
            Diagnostic::warning(
                "schema-line",
                path,
                "the `#:schema` line points at a URL that does not exist, so editors find no schema",
            )
            .at(text, Some(at..end))
            .help(format!(
                "replace it with `{}`: the schema dotpack writes beside its state on every machine",
                crate::model::schema::directive(false)
            )),
        );
    }
    diags.sort_by_key(|d| d.span.as_ref().map_or(usize::MAX, |s| s.start));
    diags
}

/// A manifest a merge left with conflict markers is named as that, at its first marker, with
/// the command that settles it, rather than as the TOML error the markers make.
fn merge_conflict(path: &Path, text: &str) -> Option<Diagnostic> {
    if !crate::util::conflict::has_markers(text) {
        return None;
    }
    let at = crate::util::conflict::first_marker(text).unwrap_or(0);
    let file = path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    Some(
        Diagnostic::error(
            "merge-conflict",
            path,
            format!("{file} has git merge conflict markers: a merge is not finished"),
        )
        .at(text, Some(at..at + 7))
        .help(
            "run `dotpack merge` to unite both sides and settle dotpack.lock and the host files (it stops where both sides changed one key), or remove the markers by hand",
        ),
    )
}

/// The keys of table `name` at the top level (declared inputs, registries).
fn names_of(root: &dyn TableLike, name: &str) -> BTreeSet<String> {
    root.get(name)
        .and_then(Item::as_table_like)
        .map(|t| t.iter().map(|(k, _)| k.to_string()).collect())
        .unwrap_or_default()
}

/// The declared (or default-inferred) type of every input.
fn input_types(
    root: &dyn TableLike,
) -> std::collections::BTreeMap<String, crate::model::inputs::InputType> {
    use crate::model::inputs::InputType;
    let Some(inputs) = root.get("inputs").and_then(Item::as_table_like) else {
        return Default::default();
    };
    inputs
        .iter()
        .filter_map(|(name, item)| {
            let table = item.as_table_like()?;
            let declared = table
                .get("type")
                .and_then(Item::as_str)
                .and_then(InputType::parse);
            let inferred = table
                .get("default")
                .and_then(sections::plain_value)
                .map(|d| InputType::of(&d));
            Some((name.to_string(), declared.or(inferred)?))
        })
        .collect()
}

/// The top-level tables a manifest may have.
const TOP_LEVEL: &[&str] = &[
    "package",
    "project",
    "inputs",
    "servers",
    "dependencies",
    "registries",
    "settings",
    "skills",
    "commands",
    "agents",
    "rules",
    "memory",
];

/// Walks the document, collecting diagnostics.
pub(crate) struct Checker<'a> {
    path: &'a Path,
    text: &'a str,
    diags: Vec<Diagnostic>,
    /// Names declared under `[inputs]`, for `{{props.X}}`.
    inputs: BTreeSet<String>,
    /// The type of each input that declares one or has a default.
    input_types: std::collections::BTreeMap<String, crate::model::inputs::InputType>,
    /// Names declared under `[registries]`, for `registry = "x"`.
    registries: BTreeSet<String>,
}

impl Checker<'_> {
    fn top_level(&mut self, root: &dyn TableLike) {
        for (key, item) in entries(root) {
            let name = key.get();
            match name {
                "package" => self.package(key, item),
                "project" => self.project(key, item),
                "inputs" => self.named_tables(key, item, "inputs", Self::input),
                "servers" => self.named_tables(key, item, "servers", Self::server),
                "dependencies" => self.dependencies(key, item),
                "registries" => self.named_tables(key, item, "registries", Self::registry),
                "settings" => self.settings(key, item),
                "skills" | "commands" | "agents" | "rules" | "memory" => {
                    self.named_tables(key, item, name, Self::resource)
                }
                _ => {
                    let help = did_you_mean(name, TOP_LEVEL.iter().copied())
                        .map(|s| format!("did you mean `[{s}]`?"))
                        .unwrap_or_else(|| format!("the top-level tables are {}", list(TOP_LEVEL)));
                    self.error(
                        "unknown-table",
                        format!("unknown top-level key `{name}`"),
                        key_span(key, item),
                        &path_key(name),
                        help,
                    );
                }
            }
        }
    }

    /// `[inputs.X]`, `[servers.X]`, `[registries.X]`: a table of named tables, names checked.
    fn named_tables(
        &mut self,
        key: &Key,
        item: &Item,
        section: &str,
        check: fn(&mut Self, &str, &Key, &Item),
    ) {
        let Some(table) = self.expect_table(key, item, section) else {
            return;
        };
        for (name_key, entry) in entries(table) {
            let name = name_key.get();
            let at = format!("{section}.{}", segment(name));
            if !is_valid_name(name) {
                self.error(
                    "invalid-name",
                    format!("`{name}` is not a valid name"),
                    name_key.span().or_else(|| entry.span()),
                    &at,
                    "names start with a letter or digit and hold only letters, digits, `-` and `_`",
                );
            }
            check(self, &at, name_key, entry);
        }
    }

    /// The item as a table, or an error saying it must be one.
    fn expect_table<'i>(
        &mut self,
        key: &Key,
        item: &'i Item,
        at: &str,
    ) -> Option<&'i dyn TableLike> {
        match item.as_table_like() {
            Some(t) => Some(t),
            None => {
                self.error(
                    "wrong-type",
                    format!("`{}` must be a table, not {}", key.get(), type_name(item)),
                    item.span().or_else(|| key.span()),
                    at,
                    format!("write it as `[{at}]` followed by its keys"),
                );
                None
            }
        }
    }

    /// A key not among `known` in a table at `at`: an error (or a warning when `warn`).
    fn unknown_key(&mut self, key: &Key, item: &Item, at: &str, known: &[&str], warn: bool) {
        let name = key.get();
        let mut help = did_you_mean(name, known.iter().copied())
            .map(|s| format!("did you mean `{s}`?"))
            .unwrap_or_else(|| format!("known keys: {}", list(known)));
        if warn {
            help.push_str(" (unknown keys here are ignored)");
        }
        let message = format!("unknown key `{name}` in `[{at}]`");
        let key_path = format!("{at}.{}", segment(name));
        let span = key_span(key, item);
        if warn {
            self.warning("unknown-key", message, span, &key_path, help);
        } else {
            self.error("unknown-key", message, span, &key_path, help);
        }
    }

    fn error(
        &mut self,
        code: &'static str,
        message: impl Into<String>,
        span: Option<Range<usize>>,
        key_path: &str,
        help: impl Into<String>,
    ) {
        let d = Diagnostic::error(code, self.path, message);
        self.push(d, span, key_path, help.into());
    }

    fn warning(
        &mut self,
        code: &'static str,
        message: impl Into<String>,
        span: Option<Range<usize>>,
        key_path: &str,
        help: impl Into<String>,
    ) {
        let mut d = Diagnostic::warning(code, self.path, message);
        // A literal secret's place is shown, not the secret.
        if code == "literal-secret" {
            d = d.masked();
        }
        self.push(d, span, key_path, help.into());
    }

    fn push(&mut self, d: Diagnostic, span: Option<Range<usize>>, key_path: &str, help: String) {
        let d = d.at(self.text, span).key(key_path).help(help);
        self.diags.push(d);
    }
}

/// Key/item pairs of a table, in document order, with their keys (which carry spans).
pub(crate) fn entries(table: &dyn TableLike) -> Vec<(&Key, &Item)> {
    table
        .iter()
        .filter_map(|(name, _)| table.get_key_value(name))
        .collect()
}

/// Where to point for a finding about a whole entry: its key, else its value.
fn key_span(key: &Key, item: &Item) -> Option<Range<usize>> {
    key.span().or_else(|| item.span())
}

/// Server, input, dependency and registry names: `^[A-Za-z0-9][A-Za-z0-9_-]*$`, so a name stays a
/// bare TOML key and a dot-free path segment in every host file.
pub fn is_valid_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphanumeric())
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// Package names: a plain name ([`is_valid_name`]) or an MCP Registry server name
/// (`io.github.user/weather`, see [`is_registry_name`]), which only an
/// `mcp-registry` source serves. dotpack's own indexes keep refusing anything but plain names.
pub fn is_valid_package_name(name: &str) -> bool {
    is_valid_name(name) || is_registry_name(name)
}

/// Whether `name` is an MCP Registry server name: `namespace/name`, the namespace in reverse-DNS
/// form (`[a-zA-Z0-9.-]+`), the name `[a-zA-Z0-9._-]+`, as the registry's schema requires, and
/// neither part `.` or `..`.
pub fn is_registry_name(name: &str) -> bool {
    let Some((namespace, rest)) = name.split_once('/') else {
        return false;
    };
    let part = |s: &str, extra: &[u8]| {
        !s.is_empty()
            && s != "."
            && s != ".."
            && s.len() <= 200
            && s.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'-' || extra.contains(&b))
    };
    part(namespace, b"")
        && part(rest, b"_")
        && namespace
            .bytes()
            .next()
            .is_some_and(|b| b.is_ascii_alphanumeric())
}

/// A key as it appears in a key path: bare when it can be, quoted otherwise.
pub(crate) fn segment(name: &str) -> String {
    if !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    {
        name.to_string()
    } else {
        format!("{name:?}")
    }
}

fn path_key(name: &str) -> String {
    segment(name)
}

/// The closest of `candidates` to `name`, if close enough to be a likely typo.
pub(crate) fn did_you_mean<'c>(
    name: &str,
    candidates: impl IntoIterator<Item = &'c str>,
) -> Option<&'c str> {
    let lower = name.to_ascii_lowercase();
    candidates
        .into_iter()
        .map(|c| (strsim::jaro_winkler(&lower, &c.to_ascii_lowercase()), c))
        .filter(|(score, _)| *score >= 0.85)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, c)| c)
}

fn list(items: &[&str]) -> String {
    items
        .iter()
        .map(|s| format!("`{s}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// "a string", "an array", … for messages.
pub(crate) fn type_name(item: &Item) -> &'static str {
    match item {
        Item::None => "nothing",
        Item::Value(v) => match v {
            toml_edit::Value::String(_) => "a string",
            toml_edit::Value::Integer(_) => "an integer",
            toml_edit::Value::Float(_) => "a float",
            toml_edit::Value::Boolean(_) => "a boolean",
            toml_edit::Value::Datetime(_) => "a date-time",
            toml_edit::Value::Array(_) => "an array",
            toml_edit::Value::InlineTable(_) => "a table",
        },
        Item::Table(_) => "a table",
        Item::ArrayOfTables(_) => "an array of tables",
    }
}

#[cfg(test)]
mod tests;
