//! TOML (Codex `config.toml`): edits through `toml_edit`, with the fixes its quirks need.
//!
//! toml_edit writes LF only, drops a BOM, always adds a final newline, places a new table after
//! whichever table precedes it in the tree and puts a blank line before every new header. Each
//! of those is undone here so that only the entry's own lines change (see editing-notes.md).

use serde_json::Value;
use toml_edit::{DocumentMut, Item, Table};

use super::guard::{self, Outside};
use super::text::{LineEndings, line_column, line_endings, split_bom};
use super::{Backend, Container, Created, Edit, Format, FormatError, Op, Parse};

mod batch;
mod convert;

use batch::apply;
use convert::{expected_json, item_to_json, new_entry_table, to_toml_value, update_table};

/// A TOML text and its parse: one-entry edits parse the text again (toml_edit edits its
/// document in place); a batch starts from a copy of this parse.
pub(super) struct Doc<'t> {
    text: &'t str,
    container: Container<'t>,
    loaded: Loaded,
}

impl<'t> Parse<'t> for Doc<'t> {
    fn parse(_: Format, text: &'t str, container: Container<'t>) -> Result<Self, FormatError> {
        if container.list_key.is_some() {
            return Err(FormatError::ListContainer {
                key_path: container.display(),
                format: "TOML",
            });
        }
        Ok(Doc {
            text,
            container,
            loaded: Loaded::new(text, container)?,
        })
    }
}

impl Backend for Doc<'_> {
    fn entries(&self) -> Vec<(String, Value)> {
        self.loaded.entries(self.container)
    }

    fn outside(&self) -> Outside {
        outside(&self.loaded.doc, self.container.path)
    }

    fn upsert(&self, name: &str, value: &Value) -> Result<Edit, FormatError> {
        upsert_entry(self.text, self.container, name, value)
    }

    fn remove(&self, name: &str, created: &Created) -> Result<Edit, FormatError> {
        remove_entry(self.text, self.container, name, created)
    }

    fn apply(&self, ops: &[Op<'_>]) -> Result<Edit, FormatError> {
        apply(self.text, Some(&self.loaded), self.container, ops)
    }
}

/// [`Outside`] of `doc` for the container at `path`.
fn outside(doc: &DocumentMut, path: &[&str]) -> Outside {
    let mut levels = Vec::with_capacity(path.len());
    let mut table: Option<&dyn toml_edit::TableLike> = Some(doc.as_table());
    for key in path {
        let others = table.map(|t| {
            t.iter()
                .filter(|(k, _)| k != key)
                .map(|(k, item)| (k.to_owned(), item_to_json(item)))
                .collect()
        });
        levels.push(others.unwrap_or_default());
        table = table.and_then(|t| t.get(key)).and_then(Item::as_table_like);
    }
    levels
}

/// Checks an edit's result: see [`guard::check`].
fn check(
    new_text: &str,
    container: Container<'_>,
    outside: &Outside,
    expected: &[(String, Value)],
) -> Result<(), FormatError> {
    guard::check::<Doc>(Format::Toml, new_text, container, outside, expected)
}

/// A TOML text parsed, its container path checked: what listing and a batch start from.
#[derive(Clone)]
pub(super) struct Loaded {
    prepared: Prepared,
    doc: DocumentMut,
}

impl Loaded {
    pub(super) fn new(text: &str, container: Container<'_>) -> Result<Loaded, FormatError> {
        let prepared = Prepared::new(text)?;
        let doc = parse(&prepared.body)?;
        container_item(doc.as_item(), container.path)?;
        Ok(Loaded { prepared, doc })
    }

    /// Every entry of the container, in file order; none when it is missing.
    pub(super) fn entries(&self, container: Container<'_>) -> Vec<(String, Value)> {
        Loaded::entries_of(&self.doc, container)
    }

    fn entries_of(doc: &DocumentMut, container: Container<'_>) -> Vec<(String, Value)> {
        let item = container_item(doc.as_item(), container.path).ok().flatten();
        match item.map(item_to_json) {
            Some(Value::Object(map)) => map.into_iter().collect(),
            _ => Vec::new(),
        }
    }
}

pub(super) fn upsert_entry(
    text: &str,
    container: Container<'_>,
    name: &str,
    value: &Value,
) -> Result<Edit, FormatError> {
    let Value::Object(fields) = value else {
        return Ok(Edit::unchanged(text));
    };
    let Loaded { prepared, mut doc } = Loaded::new(text, container)?;
    let before = outside(&doc, container.path);
    let entries = Loaded::entries_of(&doc, container);
    let layout = Layout::of(&doc, container.path);
    let upserted = upsert_in(&mut doc, text, container, (name, value, fields), &layout)?;
    let new_text = prepared.finish(&doc.to_string());
    let key_path = format!("{}.{name}", container.display());
    let written = expected_json(value, &key_path)?;
    let expected = guard::with_change(entries, name, Some(written));
    check(&new_text, container, &before, &expected)?;
    Ok(Edit {
        text: new_text,
        created: upserted.created,
        delete_file: false,
    })
}

/// What an upsert reads of the document before it: whether headers have a blank line before
/// them, and where a new entry table goes.
struct Layout {
    blank_lines: bool,
    position: Option<isize>,
}

impl Layout {
    fn of(doc: &DocumentMut, path: &[&str]) -> Layout {
        Layout {
            blank_lines: uses_blank_lines(doc),
            position: new_table_position(doc, path),
        }
    }
}

/// What an upsert did to the document, beyond the entry.
struct Upserted {
    created: Created,
    /// It added an entry table.
    new_table: bool,
    /// It took a table (a header) out of the entry, wrote into an entry table that had no header
    /// of its own, or wrote into an inline-table container: each can change how the next edit
    /// lays out its text.
    relayout: bool,
}

/// Sets entry `name` to `value` (whose `fields` they are) in `doc`, parsed from `text` (the container path already
/// checked), in the layout `layout` read from the document before.
fn upsert_in(
    doc: &mut DocumentMut,
    text: &str,
    container: Container<'_>,
    (name, value, fields): (&str, &Value, &serde_json::Map<String, Value>),
    layout: &Layout,
) -> Result<Upserted, FormatError> {
    let key_path = format!("{}.{name}", container.display());
    let blank_lines = layout.blank_lines;
    let mut created = Created::default();
    if doc.as_table().is_empty() {
        created.file_content = Some(text.to_owned());
    }
    let leading = doc.trailing().clone();
    doc.set_trailing("");
    let (target, levels) = container_table_mut(doc.as_table_mut(), container.path)
        .ok_or_else(|| no_container(container))?;
    created.container_levels = levels;
    let (mut new_table, mut relayout) = (false, false);
    match target {
        Target::Table(table) => match table.get_mut(name) {
            Some(Item::Table(existing)) => {
                // An implicit or dotted entry table written into reads back as a header table.
                relayout = existing.is_implicit()
                    || existing.is_dotted()
                    || drops_tables(existing, fields);
                update_table(existing, fields, &key_path, blank_lines)?;
            }
            Some(existing) => {
                relayout = matches!(existing, Item::ArrayOfTables(_));
                *existing = Item::Value(to_toml_value(value, &key_path)?);
            }
            None => {
                let mut entry = new_entry_table(fields, &key_path, blank_lines)?;
                entry.set_position(layout.position);
                // A file of comments only: they go before its first header. Comments at the end
                // of a file with content stay at its end (`leading` is put back below).
                let prefix = created
                    .file_content
                    .as_ref()
                    .and_then(|_| leading_prefix(&leading, blank_lines));
                if let Some(prefix) = prefix {
                    entry.decor_mut().set_prefix(prefix);
                }
                table.insert(name, Item::Table(entry));
                new_table = true;
            }
        },
        Target::Inline(table) => {
            let new = to_toml_value(value, &key_path)?;
            match table.get_mut(name) {
                Some(existing) => *existing = new,
                None => {
                    table.insert(name, new);
                }
            }
            relayout = true;
        }
    }
    if created.file_content.is_none() {
        doc.set_trailing(leading);
    }
    Ok(Upserted {
        created,
        new_table,
        relayout,
    })
}

/// Whether making `table` hold exactly `fields` ([`update_table`]) takes a table out of it.
fn drops_tables(table: &Table, fields: &serde_json::Map<String, Value>) -> bool {
    table
        .iter()
        .any(|(key, item)| match (item, fields.get(key)) {
            (Item::Table(sub), Some(Value::Object(sub_fields))) => drops_tables(sub, sub_fields),
            (Item::Table(_) | Item::ArrayOfTables(_), _) => true,
            _ => false,
        })
}

pub(super) fn remove_entry(
    text: &str,
    container: Container<'_>,
    name: &str,
    created: &Created,
) -> Result<Edit, FormatError> {
    let Loaded { prepared, mut doc } = Loaded::new(text, container)?;
    let before = outside(&doc, container.path);
    let entries = Loaded::entries_of(&doc, container);
    let Some(item) = container_item(doc.as_item(), container.path)? else {
        return Ok(Edit::unchanged(text));
    };
    if item.get(name).is_none() {
        return Ok(Edit::unchanged(text));
    }
    let (target, _) = container_table_mut(doc.as_table_mut(), container.path)
        .ok_or_else(|| no_container(container))?;
    let now_empty = match target {
        Target::Table(t) => t.remove(name).is_some() && t.is_empty(),
        Target::Inline(t) => t.remove(name).is_some() && t.is_empty(),
    };
    if now_empty {
        remove_created_levels(doc.as_table_mut(), container.path, created.container_levels);
    }
    if let Some(original) = &created.file_content
        && doc.as_table().is_empty()
    {
        return Ok(Edit {
            text: original.clone(),
            created: Created::default(),
            delete_file: original.is_empty(),
        });
    }
    let new_text = prepared.finish(&doc.to_string());
    let expected = guard::with_change(entries, name, None);
    check(&new_text, container, &before, &expected)?;
    Ok(Edit {
        text: new_text,
        created: Created::default(),
        delete_file: false,
    })
}

/// The text of a file as toml_edit needs it (no BOM, LF), and how to give it back its own form.
#[derive(Clone)]
struct Prepared {
    bom: &'static str,
    crlf: bool,
    final_newline: bool,
    body: String,
}

impl Prepared {
    fn new(text: &str) -> Result<Prepared, FormatError> {
        let (bom, body) = split_bom(text);
        let crlf = match line_endings(body) {
            LineEndings::Lf => false,
            LineEndings::Crlf => true,
            LineEndings::Mixed => return Err(FormatError::MixedLineEndings),
        };
        let body = if crlf {
            body.replace("\r\n", "\n")
        } else {
            body.to_owned()
        };
        let final_newline = body.ends_with('\n') || body.trim().is_empty();
        Ok(Prepared {
            bom,
            crlf,
            final_newline,
            body,
        })
    }

    fn finish(&self, rendered: &str) -> String {
        let mut text = rendered.to_owned();
        if !self.final_newline && text.ends_with('\n') {
            text.pop();
        }
        if self.crlf {
            text = text.replace('\n', "\r\n");
        }
        format!("{}{text}", self.bom)
    }
}

fn parse(body: &str) -> Result<DocumentMut, FormatError> {
    body.parse::<DocumentMut>().map_err(|e| {
        let offset = e.span().map_or(0, |s| s.start);
        let (line, column) = line_column(body, offset);
        let message = e.message().trim().to_owned();
        FormatError::Parse {
            line,
            column,
            message,
        }
    })
}

/// The container item, if present; an error if something that is not a table sits on the path.
fn container_item<'d>(root: &'d Item, path: &[&str]) -> Result<Option<&'d Item>, FormatError> {
    let mut item = root;
    for (depth, key) in path.iter().enumerate() {
        let Some(next) = item.get(key) else {
            return Ok(None);
        };
        if !next.is_table_like() {
            return Err(FormatError::ContainerNotObject {
                key_path: path[..=depth].join("."),
                found: toml_type_name(next),
                expected: if depth + 1 == path.len() {
                    "a table of servers (`[mcp_servers.NAME]`)"
                } else {
                    "a table"
                },
            });
        }
        item = next;
    }
    Ok(Some(item))
}

fn toml_type_name(item: &Item) -> &'static str {
    match item {
        Item::None => "empty",
        Item::Value(v) => match v {
            toml_edit::Value::String(_) => "a string",
            toml_edit::Value::Integer(_) => "an integer",
            toml_edit::Value::Float(_) => "a float",
            toml_edit::Value::Boolean(_) => "a boolean",
            toml_edit::Value::Datetime(_) => "a datetime",
            toml_edit::Value::Array(_) => "an array",
            toml_edit::Value::InlineTable(_) => "an inline table",
        },
        Item::Table(_) => "a table",
        Item::ArrayOfTables(_) => "an array of tables",
    }
}

enum Target<'d> {
    Table(&'d mut Table),
    Inline(&'d mut toml_edit::InlineTable),
}

/// The container, creating missing levels as implicit tables (so no bare `[mcp_servers]`
/// header appears), and how many levels it created. `None` when something on the path is not
/// a table (callers check that first, with [`container_item`], to report it).
fn container_table_mut<'d>(root: &'d mut Table, path: &[&str]) -> Option<(Target<'d>, usize)> {
    let (last, parents) = path.split_last()?;
    let mut created = 0;
    let mut table = root;
    for key in parents.iter().chain(std::iter::once(last)) {
        if !table.contains_key(key) {
            let mut t = Table::new();
            t.set_implicit(true);
            table.insert(key, Item::Table(t));
            created += 1;
        }
        if key == last {
            break;
        }
        table = match table.get_mut(key) {
            Some(Item::Table(t)) => t,
            _ => return None,
        };
    }
    match table.get_mut(last) {
        Some(Item::Table(t)) => Some((Target::Table(t), created)),
        Some(Item::Value(toml_edit::Value::InlineTable(t))) => Some((Target::Inline(t), created)),
        _ => None,
    }
}

fn no_container(container: Container<'_>) -> FormatError {
    FormatError::GuardFailed {
        reason: format!("container `{}` could not be reached", container.display()),
    }
}

/// Removes the container levels an earlier edit created, innermost first, while they are empty.
fn remove_created_levels(root: &mut Table, path: &[&str], levels: usize) {
    let levels = levels.min(path.len());
    for keep in (path.len() - levels..path.len()).rev() {
        let mut table = &mut *root;
        for key in &path[..keep] {
            match table.get_mut(key) {
                Some(Item::Table(t)) => table = t,
                _ => return,
            }
        }
        let key = path[keep];
        let empty = table.get(key).is_some_and(|i| match i {
            Item::Table(t) => t.is_empty(),
            Item::Value(toml_edit::Value::InlineTable(t)) => t.is_empty(),
            _ => false,
        });
        if !empty {
            return;
        }
        table.remove(key);
    }
}

/// Where a new entry table goes: right after the last table under the container, or at the end
/// of the file when there is none. toml_edit would otherwise place it after whichever table
/// precedes it in the tree, e.g. between `[mcp_servers.a]` and `[mcp_servers.b.env]`.
fn new_table_position(doc: &DocumentMut, path: &[&str]) -> Option<isize> {
    let under = path
        .iter()
        .try_fold(doc.as_item(), |item, key| item.get(key))
        .and_then(Item::as_table);
    let mut max = None;
    if let Some(t) = under {
        max_position(t, &mut max);
    }
    if max.is_none() {
        max_position(doc.as_table(), &mut max);
    }
    max
}

fn max_position(table: &Table, max: &mut Option<isize>) {
    if let Some(p) = table.position() {
        *max = Some(max.map_or(p, |m: isize| m.max(p)));
    }
    for (_, item) in table.iter() {
        match item {
            Item::Table(t) => max_position(t, max),
            Item::ArrayOfTables(a) => a.iter().for_each(|t| max_position(t, max)),
            _ => {}
        }
    }
}

/// Whether the file puts a blank line before its table headers (toml_edit's default for new
/// ones). A header at the very start of the file says nothing either way.
fn uses_blank_lines(doc: &DocumentMut) -> bool {
    let mut prefixes = Vec::new();
    collect_header_prefixes(doc.as_table(), &mut prefixes);
    prefixes.sort_by_key(|(pos, _)| *pos);
    let root_has_values = doc.as_table().iter().any(|(_, i)| i.is_value());
    let skip = usize::from(
        !root_has_values && doc.decor().prefix().is_none_or(|p| p.as_str() == Some("")),
    );
    let rest: Vec<_> = prefixes.into_iter().skip(skip).collect();
    rest.is_empty() || rest.iter().any(|(_, p)| p.contains('\n'))
}

fn collect_header_prefixes(table: &Table, out: &mut Vec<(isize, String)>) {
    for (_, item) in table.iter() {
        let tables: Vec<&Table> = match item {
            Item::Table(t) => vec![t],
            Item::ArrayOfTables(a) => a.iter().collect(),
            _ => continue,
        };
        for t in tables {
            if let (Some(pos), false) = (t.position(), t.is_implicit() || t.is_dotted()) {
                let prefix = t.decor().prefix().and_then(|p| p.as_str()).unwrap_or("");
                out.push((pos, prefix.to_owned()));
            }
            collect_header_prefixes(t, out);
        }
    }
}

/// The comments of a file that had only comments go before the new first header, not after it.
fn leading_prefix(trailing: &toml_edit::RawString, blank_lines: bool) -> Option<String> {
    let text = trailing.as_str()?.trim_end_matches([' ', '\t', '\n']);
    if text.is_empty() {
        return None;
    }
    Some(format!("{text}\n{}", if blank_lines { "\n" } else { "" }))
}
