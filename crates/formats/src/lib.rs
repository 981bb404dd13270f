//! Format backends: edit MCP server entries inside a host config file, in place.
//!
//! Every function here is pure (text in, text out). An edit changes only the bytes of the
//! entries it is about (plus, when it had to, the container or file it created), so comments, key
//! order, indentation, line endings, BOM, final newline and trailing commas stay as the user wrote
//! them. Each edit is checked by parsing the result again ([`FormatError::GuardFailed`] if the
//! document changed in any other way), so a caller that gets `Ok` can write the text.
//!
//! [`upsert_entry`] and [`remove_entry`] edit one entry; [`apply_ops`] (and [`Document::apply`])
//! make all of a command's edits of one file from one parse and check the result once, so the
//! cost of a command grows with the size of the file, not with the size times the number of
//! entries. A batch gives exactly the bytes the one-entry functions give applied in turn.
//!
//! JSON and JSONC are edited by splicing text at byte ranges from an AST parse (fast on a 2 MB
//! `~/.claude.json`); TOML goes through `toml_edit` with fixes for its known quirks
//! (see `reference/editing-notes.md`).

mod guard;
mod json;
mod json_render;
pub mod text;
mod toml;
pub mod yaml;

#[cfg(test)]
mod tests;

use serde::{Deserialize, Serialize};

/// The syntax of a host file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// Strict JSON: no comments, no trailing commas, no JSON5 extras (`.mcp.json`, `~/.claude.json`).
    Json,
    /// JSON with comments and trailing commas (Gemini, Cursor, VS Code).
    Jsonc,
    /// TOML (Codex `config.toml`).
    Toml,
    /// YAML (Hermes, goose and Continue `config.yaml`).
    Yaml,
}

/// Where the servers live: a key path from the document root, e.g. `["mcpServers"]`, holding
/// either a map from server name to server, or (`list_key`) a list of servers each naming
/// itself in that field (Continue's `mcpServers: [{name: …, command: …}]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Container<'a> {
    pub path: &'a [&'a str],
    /// For a list container, the field of each item that holds its name; `None` for a map.
    pub list_key: Option<&'a str>,
}

impl<'a> Container<'a> {
    /// A map of servers at `path`.
    pub const fn new(path: &'a [&'a str]) -> Self {
        Container {
            path,
            list_key: None,
        }
    }

    /// A list of servers at `path`, each item a map whose field `key` is the server's name.
    /// Entries are read and written without that field; the backend writes it first. Only the
    /// YAML backend supports it.
    pub const fn keyed_list(path: &'a [&'a str], key: &'a str) -> Self {
        Container {
            path,
            list_key: Some(key),
        }
    }

    /// The path as people write it in messages, e.g. `mcpServers` or `a.b`.
    pub fn display(&self) -> String {
        self.path.join(".")
    }
}

/// What an edit created, so that removing the entry later can take back exactly that.
///
/// Callers store this next to their claim (it is serialisable) and pass it to [`remove_entry`].
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Created {
    /// How many trailing levels of the container path the edit created (0: the container was
    /// already there). Removing the last entry removes exactly these levels again.
    pub container_levels: usize,
    /// The text that was between `{` and `}` of the object the edit first put a member into, when
    /// that object was empty (e.g. `""` for `{}`, `"\n"` for `{\n}`); restored when it empties again.
    pub empty_object_inner: Option<String>,
    /// The original bytes of a file that held no document at all (empty, whitespace or comments
    /// only); restored when the document the edit created becomes empty again.
    pub file_content: Option<String>,
}

impl Created {
    /// Whether the edit created the container (or the whole file).
    pub fn container(&self) -> bool {
        self.container_levels > 0
    }

    /// Merges what a later edit created into what an earlier one did; the earlier record wins
    /// because it describes the state before dotpack touched the file.
    pub fn merge(self, later: Created) -> Created {
        Created {
            container_levels: self.container_levels.max(later.container_levels),
            empty_object_inner: self.empty_object_inner.or(later.empty_object_inner),
            file_content: self.file_content.or(later.file_content),
        }
    }
}

/// The result of an edit: the new text and what the edit created.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edit {
    pub text: String,
    pub created: Created,
    /// True when removal gave back a file that was empty (0 bytes) before dotpack wrote into it:
    /// a caller that created the file may delete it instead of writing `text` (which is empty).
    pub delete_file: bool,
}

impl Edit {
    /// An edit that changes nothing.
    fn unchanged(text: &str) -> Edit {
        Edit {
            text: text.to_owned(),
            created: Created::default(),
            delete_file: false,
        }
    }
}

/// One edit of a batch (see [`apply_ops`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Op<'a> {
    /// [`upsert_entry`] of this name and value.
    Upsert(&'a str, &'a serde_json::Value),
    /// [`remove_entry`] of this name, taking back what the `Created` says (merged with what the
    /// batch's earlier upserts created, as a caller recording every edit's `Created` would).
    Remove(&'a str, &'a Created),
}

/// What a batch has done so far, carried from one step to the next.
#[derive(Debug, Default)]
struct Progress {
    /// What the batch's upserts created, merged (earlier first).
    created: Created,
    /// The `delete_file` of the last edit.
    delete_file: bool,
}

impl Progress {
    /// Records a one-entry edit made for `op`.
    fn record(&mut self, op: &Op<'_>, edit: &Edit) {
        if let Op::Upsert(..) = op {
            self.created = std::mem::take(&mut self.created).merge(edit.created.clone());
        }
        self.delete_file = edit.delete_file;
    }

    /// Records an upsert made on a document that a later step renders.
    fn upserted(&mut self, created: Created) {
        self.created = std::mem::take(&mut self.created).merge(created);
        self.delete_file = false;
    }

    /// The `Created` a removal in the batch takes back: the caller's, and what the batch created.
    fn for_removal(&self, created: &Created) -> Created {
        created.clone().merge(self.created.clone())
    }

    fn finish(self, text: String) -> Edit {
        Edit {
            text,
            created: self.created,
            delete_file: self.delete_file,
        }
    }
}

/// The fields of an entry to write, or why it cannot be one.
fn entry_fields(
    value: &serde_json::Value,
) -> Result<&serde_json::Map<String, serde_json::Value>, FormatError> {
    value.as_object().ok_or(FormatError::EntryNotObject {
        found: json_type_name(value),
    })
}

/// Why an edit could not be made. The caller adds the file path.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FormatError {
    #[error(
        "line {line}, column {column}: {message}; fix the file by hand, dotpack does not rewrite files it cannot parse"
    )]
    Parse {
        line: usize,
        column: usize,
        message: String,
    },
    #[error("`{key_path}` is {found}; it must be {expected}. Fix or remove it by hand")]
    ContainerNotObject {
        key_path: String,
        found: &'static str,
        expected: &'static str,
    },
    #[error(
        "`{key_path}` holds {found}, which {format} cannot write; change the server definition"
    )]
    Unrepresentable {
        key_path: String,
        found: &'static str,
        format: &'static str,
    },
    #[error("the entry to write must be an object of fields, not {found}")]
    EntryNotObject { found: &'static str },
    #[error(
        "`{key_path}` appears twice, on lines {first_line} and {second_line}; hosts read only the last one, so dotpack will not edit either. Keep one of them (merge what you need into it) and delete the other by hand"
    )]
    DuplicateKey {
        key_path: String,
        first_line: usize,
        second_line: usize,
    },
    #[error(
        "the file mixes CRLF and LF line endings; convert it to one style before dotpack edits it"
    )]
    MixedLineEndings,
    #[error(
        "line {line}, column {column}: {what}; dotpack edits this file only where it can keep every other byte as it is, so it will not touch it. Rewrite that part by hand (block style, no anchors, aliases or tags) or edit the servers by hand"
    )]
    NotEditable {
        line: usize,
        column: usize,
        what: String,
    },
    #[error(
        "`{key_path}` is a list of servers, which {format} host files do not have; this is a dotpack bug in the host's description"
    )]
    ListContainer {
        key_path: String,
        format: &'static str,
    },
    #[error(
        "internal check failed, nothing was written ({reason}); please report this as a dotpack bug"
    )]
    GuardFailed { reason: String },
}

/// A host file parsed once: its entries and its first edit come from the same parse, which for a
/// 2 MB `~/.claude.json` is most of the cost of planning.
///
/// [`Document::parse`] fails exactly when [`list_entries`] does, with the same error; after it
/// succeeded, [`Document::entries`], [`Document::upsert`] and [`Document::remove`] return what
/// [`list_entries`], [`upsert_entry`] and [`remove_entry`] return for the same text.
pub struct Document<'t> {
    inner: Box<dyn Backend + 't>,
}

impl<'t> Document<'t> {
    /// Parses `text`, a file in `format` whose servers live at `container`.
    pub fn parse(
        format: Format,
        text: &'t str,
        container: Container<'t>,
    ) -> Result<Self, FormatError> {
        Ok(Document {
            inner: load(format, text, container)?,
        })
    }

    /// Every entry of the container, in file order (what [`list_entries`] returns).
    pub fn entries(&self) -> Vec<(String, serde_json::Value)> {
        self.inner.entries()
    }

    /// What the document holds outside the container: at each level down to it, the members
    /// other than the next key of the path, in order. Two texts that hold the same here and the
    /// same entries read the same (the two sides of a merge conflict, for one).
    pub fn outside(&self) -> Vec<Vec<(String, serde_json::Value)>> {
        self.inner.outside()
    }

    /// [`upsert_entry`] on the parsed text.
    pub fn upsert(&self, name: &str, value: &serde_json::Value) -> Result<Edit, FormatError> {
        entry_fields(value)?;
        self.inner.upsert(name, value)
    }

    /// [`remove_entry`] on the parsed text.
    pub fn remove(&self, name: &str, created: &Created) -> Result<Edit, FormatError> {
        self.inner.remove(name, created)
    }

    /// [`apply_ops`] on the parsed text.
    pub fn apply(&self, ops: &[Op<'_>]) -> Result<Edit, FormatError> {
        self.inner.apply(ops)
    }
}

/// One format's editor: a text of that format parsed once, with its container path checked.
///
/// Each format implements this once (JSON and JSONC in `json`, TOML in `toml`, YAML in `yaml`),
/// with [`Parse`] to make one; [`load`] is the only place that chooses between them. Every edit a
/// backend makes is checked by [`guard::check`], which parses the result again with
/// [`Parse::reparse`] and compares what [`Backend::outside`] and [`Backend::entries`] read, so
/// the rule "only the intended entries changed" is written once for every format.
pub(crate) trait Backend {
    /// Every entry of the container, in file order; none when it is missing.
    fn entries(&self) -> Vec<(String, serde_json::Value)>;

    /// What the document holds outside the container (see [`guard::Outside`]).
    fn outside(&self) -> guard::Outside;

    /// [`upsert_entry`]; `value` is already known to be an object.
    fn upsert(&self, name: &str, value: &serde_json::Value) -> Result<Edit, FormatError>;

    /// [`remove_entry`].
    fn remove(&self, name: &str, created: &Created) -> Result<Edit, FormatError>;

    /// [`apply_ops`].
    fn apply(&self, ops: &[Op<'_>]) -> Result<Edit, FormatError>;
}

/// How a [`Backend`] is made from a text. Apart from [`Backend`] so that a parsed document stays
/// covariant in the lifetime of its text.
pub(crate) trait Parse<'t>: Backend + Sized {
    /// Parses `text`, failing as every operation on it would: when it does not parse, when a key
    /// on the container path holds something that cannot hold servers, or when the backend
    /// cannot edit the file without changing bytes it should keep.
    fn parse(format: Format, text: &'t str, container: Container<'t>) -> Result<Self, FormatError>;

    /// The parse the guard checks an edit with: [`Parse::parse`] unless a backend's `parse`
    /// takes shortcuts that read less than the whole text.
    fn reparse(
        format: Format,
        text: &'t str,
        container: Container<'t>,
    ) -> Result<Self, FormatError> {
        Self::parse(format, text, container)
    }
}

/// Parses `text` with the backend of `format`.
fn load<'t>(
    format: Format,
    text: &'t str,
    container: Container<'t>,
) -> Result<Box<dyn Backend + 't>, FormatError> {
    Ok(match format {
        Format::Json | Format::Jsonc => Box::new(json::Loaded::parse(format, text, container)?),
        Format::Toml => Box::new(toml::Doc::parse(format, text, container)?),
        Format::Yaml => Box::new(yaml::Doc::parse(format, text, container)?),
    })
}

/// Applies `ops` one at a time, each on a parse of the text the one before wrote: the batch of a
/// backend that makes no shortcut (and what every shortcut must equal).
fn apply_in_turn(
    first: &(impl Backend + ?Sized),
    format: Format,
    text: &str,
    container: Container<'_>,
    ops: &[Op<'_>],
) -> Result<Edit, FormatError> {
    let mut progress = Progress::default();
    let mut current: Option<String> = None;
    for op in ops {
        let edit = match &current {
            None => one_op(first, op, &progress)?,
            Some(now) => one_op(&*load(format, now, container)?, op, &progress)?,
        };
        progress.record(op, &edit);
        current = Some(edit.text);
    }
    Ok(progress.finish(current.unwrap_or_else(|| text.to_owned())))
}

/// One op of a batch on `doc`, a removal taking back what the batch created too.
fn one_op(
    doc: &(impl Backend + ?Sized),
    op: &Op<'_>,
    progress: &Progress,
) -> Result<Edit, FormatError> {
    match *op {
        Op::Upsert(name, value) => {
            entry_fields(value)?;
            doc.upsert(name, value)
        }
        Op::Remove(name, created) => doc.remove(name, &progress.for_removal(created)),
    }
}

/// Lists every entry of the container, in file order. A missing container gives no entries.
pub fn list_entries(
    format: Format,
    text: &str,
    container: Container<'_>,
) -> Result<Vec<(String, serde_json::Value)>, FormatError> {
    Ok(load(format, text, container)?.entries())
}

/// Returns the entry `name` of the container, if there is one.
pub fn get_entry(
    format: Format,
    text: &str,
    container: Container<'_>,
    name: &str,
) -> Result<Option<serde_json::Value>, FormatError> {
    let entries = list_entries(format, text, container)?;
    Ok(entries.into_iter().find(|(n, _)| n == name).map(|(_, v)| v))
}

/// Inserts entry `name` (at the end of the container, in the file's style) or replaces it where
/// it stands. `value` must be a JSON object; for TOML it may hold strings, integers, floats,
/// booleans, arrays and objects (no `null`).
pub fn upsert_entry(
    format: Format,
    text: &str,
    container: Container<'_>,
    name: &str,
    value: &serde_json::Value,
) -> Result<Edit, FormatError> {
    entry_fields(value)?;
    load(format, text, container)?.upsert(name, value)
}

/// Removes entry `name`. When `created` says the edit that added it created the container (or the
/// whole file) and nothing else is left in it, that goes too, so `remove(upsert(x)) == x` byte for
/// byte whenever the entry was absent from `x`. An absent entry gives back the same bytes.
pub fn remove_entry(
    format: Format,
    text: &str,
    container: Container<'_>,
    name: &str,
    created: &Created,
) -> Result<Edit, FormatError> {
    load(format, text, container)?.remove(name, created)
}

/// Applies `ops` in order, as [`upsert_entry`] and [`remove_entry`] would one after the other
/// (each removal taking back what its `Created` and the batch's earlier upserts created), and
/// returns the same text; `created` merges what the upserts created, `delete_file` is the last
/// edit's. The text is parsed once and the result checked once (a few more times only where an
/// edit creates the container or empties it); an error is the first one an op meets.
pub fn apply_ops(
    format: Format,
    text: &str,
    container: Container<'_>,
    ops: &[Op<'_>],
) -> Result<Edit, FormatError> {
    if ops.is_empty() {
        return Ok(Edit::unchanged(text));
    }
    load(format, text, container)?.apply(ops)
}

/// The JSON type of a value as a phrase for messages ("an array", "null", ...).
pub fn json_type_name(value: &serde_json::Value) -> &'static str {
    match value {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "a boolean",
        serde_json::Value::Number(_) => "a number",
        serde_json::Value::String(_) => "a string",
        serde_json::Value::Array(_) => "an array",
        serde_json::Value::Object(_) => "an object",
    }
}
