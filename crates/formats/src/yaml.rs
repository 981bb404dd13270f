//! YAML (Hermes, goose, Continue): parse with saphyr-parser for positions, then splice whole
//! lines by hand, as the JSON backend splices at byte ranges.
//!
//! An entry of a block-style container is its lines: from the line of its key (or of its `- `
//! for a list container) to the last line before the next one indented no deeper than that key.
//! Replacing, appending and removing an entry touches only those lines, so comments, quoting,
//! blank lines, BOM, line endings and the final newline elsewhere stay as they were; appending and
//! removing mirror each other, so `remove(upsert(x)) == x`. What such line edits cannot change
//! without touching other bytes (flow-style containers, anchors, aliases, merge keys and tags in
//! the container, several documents) is refused with [`FormatError::NotEditable`].
//!
//! A batch ([`Backend::apply`]) makes its edits one at a time, each on a parse of the text the
//! one before wrote: host YAML files are small, and that is exactly what the one-entry edits give.

mod render;
mod tree;

use serde_json::Value;

use super::guard::{self, Outside};
use super::text::{LineEndings, line_column, line_endings, line_start, newline_of, split_bom};
use super::{Backend, Container, Created, Edit, Format, FormatError, Op, Parse, apply_in_turn};
use render::Style;
use tree::{Kind, Node, key_string};

/// A YAML text parsed, its container found and checked.
pub(super) struct Doc<'t> {
    text: &'t str,
    bom: &'static str,
    body: &'t str,
    container: Container<'t>,
    root: Option<Node>,
    place: Place,
    style: Style,
}

/// Where the container is, or where it would go.
enum Place {
    /// The file holds no document (empty, comments, a bare `---`): an edit writes one.
    NoRoot,
    /// The map at `path[..depth]` (the root for 0) has no key `path[depth]`.
    Missing { depth: usize },
    /// The container's key is there with nothing, `~`, `null`, `{}` or `[]` after it on its line.
    Empty(EmptyContainer),
    /// The container holds entries.
    Found(Found),
}

struct EmptyContainer {
    /// The byte after the key's `:`, and the end of what follows it up to any comment.
    after_colon: usize,
    tail_end: usize,
    /// Where the line after the key's line starts (or the end of the text).
    next_line: usize,
    key_col: usize,
}

struct Found {
    entries: Vec<Entry>,
    /// The byte after the container key's `:`.
    after_colon: usize,
    /// The column of entries' keys (map) or dashes (list), and of a list item's first field.
    col: usize,
    content_col: usize,
}

/// One entry of the container: its name, what it reads as, and its lines.
struct Entry {
    name: String,
    value: Value,
    start: usize,
    end: usize,
}

impl<'t> Parse<'t> for Doc<'t> {
    fn parse(_: Format, text: &'t str, container: Container<'t>) -> Result<Self, FormatError> {
        let (bom, body) = split_bom(text);
        if line_endings(body) == LineEndings::Mixed || has_lone_cr(body) {
            return Err(FormatError::MixedLineEndings);
        }
        let root = tree::parse(body)?.filter(|r| !is_empty_document(r));
        let style = detect_style(body, root.as_ref(), newline_of(body));
        let mut doc = Doc {
            text,
            bom,
            body,
            container,
            root,
            place: Place::NoRoot,
            style,
        };
        doc.place = doc.locate()?;
        Ok(doc)
    }
}

impl Backend for Doc<'_> {
    fn entries(&self) -> Vec<(String, Value)> {
        match &self.place {
            Place::Found(found) => found
                .entries
                .iter()
                .map(|e| (e.name.clone(), e.value.clone()))
                .collect(),
            _ => Vec::new(),
        }
    }

    fn outside(&self) -> Outside {
        let path = self.container.path;
        let mut levels = Vec::with_capacity(path.len());
        let mut node = self.root.as_ref();
        for key in path {
            let entries = node.and_then(Node::map_entries).unwrap_or_default();
            levels.push(
                entries
                    .iter()
                    .filter(|(k, _)| k.key() != Some(key))
                    .map(|(k, v)| (key_string(k), v.to_json()))
                    .collect(),
            );
            node = node.and_then(|n| n.get(key)).map(|(_, v)| v);
        }
        levels
    }

    fn upsert(&self, name: &str, value: &Value) -> Result<Edit, FormatError> {
        let content = self.entry_text(name, value)?;
        let path = self.container.path;
        let nl = self.style.newline;
        let mut created = Created::default();
        let splices = match &self.place {
            Place::Found(found) => match found.entries.iter().find(|e| e.name == name) {
                Some(e) => {
                    let text = content(found.col, found.content_col);
                    vec![replace_lines(self.body, e.start, e.end, text)]
                }
                None => {
                    let at = found.entries.last().map_or(0, |e| e.end);
                    let text = content(found.col, found.content_col);
                    vec![insert_lines(self.body, at, text, nl)]
                }
            },
            Place::Empty(empty) => {
                let (col, content_col) = self.content_cols(empty.key_col);
                let tail = &self.body[empty.after_colon..empty.tail_end];
                created.empty_object_inner = Some(tail.to_owned());
                vec![
                    (empty.after_colon, empty.tail_end, String::new()),
                    insert_lines(self.body, empty.next_line, content(col, content_col), nl),
                ]
            }
            Place::Missing { depth } => {
                let parent = self.level(*depth);
                let last = parent.and_then(Node::map_entries).and_then(<[_]>::last);
                let Some((key, _)) = last else {
                    return Err(self.unreachable());
                };
                let col = key.start - line_start(self.body, key.start);
                let at = extent_end(self.body, line_start(self.body, key.start), col);
                let text = self.chain(&path[*depth..], col, &content);
                created.container_levels = path.len() - depth;
                vec![insert_lines(self.body, at, text, nl)]
            }
            Place::NoRoot => {
                let doc = self.chain(path, 0, &content);
                let sep = match self.body.is_empty() || self.body.ends_with('\n') {
                    true => "",
                    false => nl,
                };
                created.container_levels = path.len();
                created.file_content = Some(self.text.to_owned());
                vec![(self.body.len(), self.body.len(), format!("{sep}{doc}"))]
            }
        };
        let expected = guard::with_change(self.entries(), name, Some(value.clone()));
        let text = self.checked(splices, &expected)?;
        Ok(Edit {
            text,
            created,
            delete_file: false,
        })
    }

    fn remove(&self, name: &str, created: &Created) -> Result<Edit, FormatError> {
        let Place::Found(found) = &self.place else {
            return Ok(Edit::unchanged(self.text));
        };
        let Some(entry) = found.entries.iter().find(|e| e.name == name) else {
            return Ok(Edit::unchanged(self.text));
        };
        let expected = guard::with_change(self.entries(), name, None);
        let path = self.container.path;
        let levels = created.container_levels.min(path.len());
        let alone = found.entries.len() == 1;
        let splices = match (alone, self.created_chain(levels)) {
            (true, Some((depth, key))) => {
                let root_alone = self
                    .root
                    .as_ref()
                    .and_then(Node::map_entries)
                    .is_some_and(|e| e.len() == 1);
                if let (0, true, Some(original)) = (depth, root_alone, &created.file_content) {
                    return Ok(Edit {
                        text: original.clone(),
                        created: Created::default(),
                        delete_file: original.is_empty(),
                    });
                }
                let col = key.start - line_start(self.body, key.start);
                let start = line_start(self.body, key.start);
                vec![remove_lines(
                    self.body,
                    start,
                    extent_end(self.body, start, col),
                )]
            }
            (true, None) => {
                let restore = match (levels, &created.empty_object_inner) {
                    (0, Some(inner)) => inner.clone(),
                    _ if self.container.list_key.is_some() => " []".to_owned(),
                    _ => " {}".to_owned(),
                };
                vec![
                    (found.after_colon, found.after_colon, restore),
                    remove_lines(self.body, entry.start, entry.end),
                ]
            }
            (false, _) => vec![remove_lines(self.body, entry.start, entry.end)],
        };
        let text = self.checked(splices, &expected)?;
        Ok(Edit {
            text,
            created: Created::default(),
            delete_file: false,
        })
    }

    fn apply(&self, ops: &[Op<'_>]) -> Result<Edit, FormatError> {
        apply_in_turn(self, Format::Yaml, self.text, self.container, ops)
    }
}

/// A splice: this byte range of the body becomes this text.
type Splice = (usize, usize, String);

impl Doc<'_> {
    /// Finds the container, refusing what the backend cannot edit exactly.
    fn locate(&self) -> Result<Place, FormatError> {
        let path = self.container.path;
        let Some(root) = &self.root else {
            return Ok(Place::NoRoot);
        };
        if path.is_empty() {
            return Err(self.not_editable(root, "a container at the document root"));
        }
        let mut node = root;
        for (depth, key) in path.iter().enumerate() {
            let here = match depth {
                0 => "(the document root)".to_owned(),
                _ => path[..depth].join("."),
            };
            let Some(entries) = node.map_entries() else {
                return Err(FormatError::ContainerNotObject {
                    key_path: here,
                    found: node.type_name(),
                    expected: "a map",
                });
            };
            self.plain_block(node, &here)?;
            for (k, _) in entries {
                if k.key() == Some("<<") {
                    return Err(self.not_editable(k, "a merge key (`<<`) on the servers' path"));
                }
            }
            self.unique_keys(entries, &here)?;
            let Some((k, value)) = node.get(key) else {
                return Ok(Place::Missing { depth });
            };
            let key_path = path[..=depth].join(".");
            if depth + 1 == path.len() {
                return self.place_of(k, value, &key_path);
            }
            if !matches!(value.kind, Kind::Map { .. }) {
                return Err(FormatError::ContainerNotObject {
                    key_path,
                    found: value.type_name(),
                    expected: "a map",
                });
            }
            node = value;
        }
        Err(self.unreachable())
    }

    /// The place of container `value` (under key `key`).
    fn place_of(&self, key: &Node, value: &Node, key_path: &str) -> Result<Place, FormatError> {
        let list = self.container.list_key.is_some();
        let expected = match list {
            true => "a list of servers (`- name: …`)",
            false => "a map of servers",
        };
        if value.props {
            return Err(self.not_editable(value, "an anchor or a tag on the servers' container"));
        }
        match (&value.kind, list) {
            (Kind::Map { flow: false, .. }, false) | (Kind::Seq { flow: false, .. }, true) => {
                self.found(key, value, key_path).map(Place::Found)
            }
            (
                Kind::Map {
                    entries,
                    flow: true,
                },
                false,
            ) if entries.is_empty() => self.empty(key, value).map(Place::Empty),
            (Kind::Seq { items, flow: true }, true) if items.is_empty() => {
                self.empty(key, value).map(Place::Empty)
            }
            (Kind::Map { flow: true, .. }, false) | (Kind::Seq { flow: true, .. }, true) => {
                Err(self.not_editable(value, "a flow-style (`{…}` or `[…]`) servers container"))
            }
            _ if value.is_plain_null() => self.empty(key, value).map(Place::Empty),
            _ => Err(FormatError::ContainerNotObject {
                key_path: key_path.to_owned(),
                found: value.type_name(),
                expected,
            }),
        }
    }

    fn empty(&self, key: &Node, value: &Node) -> Result<EmptyContainer, FormatError> {
        let body = self.body;
        let after_colon = self.after_colon(key)?;
        let has_text = !matches!(&value.kind, Kind::Scalar { value, .. } if value.is_empty());
        let tail_end = if has_text { value.end } else { after_colon };
        let next_line = line_end(body, after_colon);
        let tail = body.get(after_colon..tail_end).unwrap_or("\n");
        let rest = body.get(tail_end..next_line).unwrap_or("\n").trim();
        let rest_ok = rest.is_empty() || rest.starts_with('#');
        if tail.contains('\n') || !rest_ok || tail_end < after_colon {
            return Err(self.not_editable(value, "an empty servers container over several lines"));
        }
        Ok(EmptyContainer {
            after_colon,
            tail_end,
            next_line,
            key_col: key.start - line_start(body, key.start),
        })
    }

    /// The entries of a block container, each checked.
    fn found(&self, key: &Node, value: &Node, key_path: &str) -> Result<Found, FormatError> {
        let after_colon = self.after_colon(key)?;
        let mut entries: Vec<Entry> = Vec::new();
        let mut lines: Vec<(String, usize)> = Vec::new();
        let mut cols = None;
        let items: Vec<(Option<&Node>, &Node)> = match &value.kind {
            Kind::Map { entries, .. } => entries.iter().map(|(k, v)| (Some(k), v)).collect(),
            Kind::Seq { items, .. } => items.iter().map(|v| (None, v)).collect(),
            _ => Vec::new(),
        };
        for (i, (k, v)) in items.into_iter().enumerate() {
            self.editable_subtree(v)?;
            let (name, value_json, first) = match (k, self.container.list_key) {
                (Some(k), _) => {
                    let Some(name) = k.key().filter(|_| !k.props) else {
                        return Err(self.not_editable(k, "a server name that is not a plain key"));
                    };
                    (name.to_owned(), v.to_json(), k)
                }
                (None, Some(list_key)) => {
                    let (name, fields) =
                        self.list_item(v, list_key, &format!("{key_path}[{i}]"))?;
                    (name, fields, v)
                }
                (None, None) => return Err(self.unreachable()),
            };
            let at = match k {
                Some(k) => k.start,
                None => self.dash_of(v)?,
            };
            let col = at - line_start(self.body, at);
            let content_col = match k {
                Some(_) => col,
                None if !self.body[at..first.start].contains('\n') => {
                    first.start - line_start(self.body, first.start)
                }
                None => col + 2,
            };
            let (col0, _) = *cols.get_or_insert((col, content_col));
            if !starts_line(self.body, at) || col != col0 {
                return Err(self.not_editable(first, "a server that does not start its own line"));
            }
            let start = line_start(self.body, at);
            let end = extent_end(self.body, start, col);
            let data_end = v.data_end();
            if data_end > end && !self.body[end..data_end].trim().is_empty() {
                return Err(
                    self.not_editable(v, "a server whose lines are indented less than its name")
                );
            }
            if let Some((_, line)) = lines.iter().find(|(n, _)| *n == name) {
                return Err(FormatError::DuplicateKey {
                    key_path: format!("{key_path}.{name}"),
                    first_line: *line,
                    second_line: first.line,
                });
            }
            lines.push((name.clone(), first.line));
            entries.push(Entry {
                name,
                value: value_json,
                start,
                end,
            });
        }
        let (col, content_col) = cols.unwrap_or((0, 2));
        Ok(Found {
            entries,
            after_colon,
            col,
            content_col,
        })
    }

    /// The name and fields of an item of a list container.
    fn list_item(
        &self,
        item: &Node,
        list_key: &str,
        key_path: &str,
    ) -> Result<(String, Value), FormatError> {
        let name = item.get(list_key).and_then(|(_, v)| match &v.kind {
            Kind::Scalar { value, .. } => Some(value.clone()),
            _ => None,
        });
        let (Some(name), Value::Object(mut fields)) = (name, item.to_json()) else {
            return Err(FormatError::ContainerNotObject {
                key_path: key_path.to_owned(),
                found: item.type_name(),
                expected: "a map with a `name` field",
            });
        };
        fields.shift_remove(list_key);
        Ok((name, Value::Object(fields)))
    }

    /// The `-` of a list item: the first character before its content other than blanks.
    fn dash_of(&self, item: &Node) -> Result<usize, FormatError> {
        let before = &self.body[..item.start];
        let trimmed = before.trim_end_matches([' ', '\n', '\r']);
        match trimmed.ends_with('-') {
            true => Ok(trimmed.len() - 1),
            false => Err(self.not_editable(item, "a list item without its own `- ` line")),
        }
    }

    /// Refuses a map on the container path that is not written in block style without
    /// anchors or tags.
    fn plain_block(&self, node: &Node, here: &str) -> Result<(), FormatError> {
        if node.props {
            return Err(self.not_editable(node, &format!("an anchor or a tag on `{here}`")));
        }
        if node.is_flow() {
            return Err(
                self.not_editable(node, &format!("`{here}` written in flow style (`{{…}}`)"))
            );
        }
        Ok(())
    }

    /// Refuses anchors, aliases, tags, merge keys, keys that are not scalars and repeated keys in
    /// an entry.
    fn editable_subtree(&self, node: &Node) -> Result<(), FormatError> {
        if node.props {
            return Err(self.not_editable(node, "an anchor or a tag in the servers"));
        }
        match &node.kind {
            Kind::Alias => Err(self.not_editable(node, "an alias in the servers")),
            Kind::Scalar { .. } => Ok(()),
            Kind::Seq { items, .. } => items.iter().try_for_each(|i| self.editable_subtree(i)),
            Kind::Map { entries, .. } => {
                for (k, v) in entries {
                    if k.key() == Some("<<") {
                        return Err(self.not_editable(k, "a merge key (`<<`) in the servers"));
                    }
                    if !matches!(k.kind, Kind::Scalar { .. }) {
                        return Err(self.not_editable(k, "a key that is not a scalar"));
                    }
                    self.editable_subtree(k)?;
                    self.editable_subtree(v)?;
                }
                self.unique_keys(entries, "a server")
            }
        }
    }

    fn unique_keys(&self, entries: &[(Node, Node)], here: &str) -> Result<(), FormatError> {
        for (i, (k, _)) in entries.iter().enumerate() {
            let Some(name) = k.key() else { continue };
            if let Some((first, _)) = entries[..i].iter().find(|(p, _)| p.key() == Some(name)) {
                return Err(FormatError::DuplicateKey {
                    key_path: format!("{here}.{name}"),
                    first_line: first.line,
                    second_line: k.line,
                });
            }
        }
        Ok(())
    }

    /// The byte after the `:` that follows key `key`.
    fn after_colon(&self, key: &Node) -> Result<usize, FormatError> {
        let rest = &self.body[key.end.min(self.body.len())..];
        let skipped = rest.len() - rest.trim_start_matches([' ', '\t']).len();
        match rest[skipped..].starts_with(':') {
            true => Ok(key.end + skipped + 1),
            false => Err(self.not_editable(key, "a key not followed by `:` on its line")),
        }
    }

    /// The map at `path[..depth]`.
    fn level(&self, depth: usize) -> Option<&Node> {
        let mut node = self.root.as_ref()?;
        for key in &self.container.path[..depth] {
            node = node.get(key)?.1;
        }
        Some(node)
    }

    /// When the container's last `levels` levels hold nothing but the next level (they were
    /// created for it), the depth of the topmost and its key node.
    fn created_chain(&self, levels: usize) -> Option<(usize, &Node)> {
        let path = self.container.path;
        if levels == 0 {
            return None;
        }
        let depth = path.len() - levels;
        for d in depth + 1..path.len() {
            if self.level(d)?.map_entries()?.len() != 1 {
                return None;
            }
        }
        Some((depth, self.level(depth)?.get(path[depth])?.0))
    }

    /// `keys` as nested maps from column `col`, then the entry `content` under the last one.
    fn chain(&self, keys: &[&str], col: usize, content: &dyn Fn(usize, usize) -> String) -> String {
        let nl = self.style.newline;
        let mut out = String::new();
        let mut at = col;
        for (i, key) in keys.iter().enumerate() {
            if i > 0 {
                at += self.style.unit;
            }
            out.push_str(&" ".repeat(at));
            out.push_str(&render::scalar_string(key));
            out.push(':');
            out.push_str(nl);
        }
        let (col, content_col) = self.content_cols(at);
        out.push_str(&content(col, content_col));
        out
    }

    /// Where a new container's entries go under a key at `key_col`: their column and (for a
    /// list) that of an item's fields.
    fn content_cols(&self, key_col: usize) -> (usize, usize) {
        match self.container.list_key {
            Some(_) if !self.style.indented_lists => (key_col, key_col + 2),
            Some(_) => (key_col + self.style.unit, key_col + self.style.unit + 2),
            None => (key_col + self.style.unit, key_col + self.style.unit),
        }
    }

    /// The text of entry `name` at a column (and field column, for a list item).
    fn entry_text<'v>(
        &'v self,
        name: &'v str,
        value: &'v Value,
    ) -> Result<impl Fn(usize, usize) -> String + 'v, FormatError> {
        let fields = value.as_object();
        if let (Some(key), Some(fields)) = (self.container.list_key, fields)
            && fields.contains_key(key)
        {
            return Err(FormatError::Unrepresentable {
                key_path: format!("{}.{name}.{key}", self.container.display()),
                found: "a field named like the list's name field",
                format: "a YAML list of servers",
            });
        }
        let style = self.style;
        let list_key = self.container.list_key;
        Ok(move |col: usize, content_col: usize| {
            let mut out = String::new();
            match (list_key, value.as_object()) {
                (Some(key), Some(fields)) => {
                    let name_value = Value::String(name.to_owned());
                    let all = std::iter::once((key, &name_value))
                        .chain(fields.iter().map(|(k, v)| (k.as_str(), v)));
                    render::map_item(&mut out, all, col, content_col, &style);
                }
                _ => render::pair(&mut out, name, value, col, &style),
            }
            out
        })
    }

    /// Applies `splices` to the body and checks the result with the guard.
    fn checked(
        &self,
        mut splices: Vec<Splice>,
        expected: &[(String, Value)],
    ) -> Result<String, FormatError> {
        splices.sort_by_key(|(s, e, _)| (*s, *e));
        let mut body = String::with_capacity(self.body.len() + 256);
        let mut at = 0;
        for (start, end, text) in &splices {
            let piece = self
                .body
                .get(at..*start)
                .ok_or_else(|| self.unreachable())?;
            body.push_str(piece);
            body.push_str(text);
            at = *end;
        }
        body.push_str(self.body.get(at..).ok_or_else(|| self.unreachable())?);
        let text = format!("{}{body}", self.bom);
        guard::check::<Doc>(
            Format::Yaml,
            &text,
            self.container,
            &self.outside(),
            expected,
        )?;
        Ok(text)
    }

    fn not_editable(&self, node: &Node, what: &str) -> FormatError {
        let (line, column) = line_column(self.body, node.start);
        FormatError::NotEditable {
            line,
            column,
            what: what.to_owned(),
        }
    }

    fn unreachable(&self) -> FormatError {
        FormatError::GuardFailed {
            reason: format!(
                "container `{}` could not be reached",
                self.container.display()
            ),
        }
    }
}

/// A document that holds nothing: a bare `---`, or only comments after it.
fn is_empty_document(root: &Node) -> bool {
    matches!(&root.kind, Kind::Scalar { value, plain: true } if value.is_empty()) && !root.props
}

/// A carriage return not followed by a line feed: YAML reads it as a line break.
fn has_lone_cr(body: &str) -> bool {
    body.match_indices('\r')
        .any(|(i, _)| body.as_bytes().get(i + 1) != Some(&b'\n'))
}

/// The end of the line holding byte `pos`, after its line break (or the end of the text).
fn line_end(body: &str, pos: usize) -> usize {
    body.get(pos..)
        .and_then(|rest| rest.find('\n'))
        .map_or(body.len(), |i| pos + i + 1)
}

/// True when only spaces stand between the start of the line and `pos`.
fn starts_line(body: &str, pos: usize) -> bool {
    body[line_start(body, pos)..pos].bytes().all(|b| b == b' ')
}

/// The end of the lines of an entry whose first line starts at `start` and whose key (or dash)
/// is at column `col`: the last line before the next non-blank line indented `col` or less,
/// without the blank lines before that one.
fn extent_end(body: &str, start: usize, col: usize) -> usize {
    let mut end = line_end(body, start);
    let mut pos = end;
    while pos < body.len() {
        let next = line_end(body, pos);
        let line = body[pos..next].trim_end_matches(['\n', '\r']);
        let indent = line.len() - line.trim_start_matches(' ').len();
        if line.trim().is_empty() {
            pos = next;
            continue;
        }
        if indent <= col {
            break;
        }
        end = next;
        pos = next;
    }
    end
}

/// Inserts whole `lines` (each ending with a line break) at `at`, a line start or the end of the
/// text; at the end of a text without a final line break, the break goes before them instead.
fn insert_lines(body: &str, at: usize, lines: String, nl: &str) -> Splice {
    if at == body.len() && !body.is_empty() && !body.ends_with('\n') {
        let lines = lines.strip_suffix(nl).unwrap_or(&lines);
        return (at, at, format!("{nl}{lines}"));
    }
    (at, at, lines)
}

/// Replaces the lines `start..end` with `lines`, keeping a missing final line break missing.
fn replace_lines(body: &str, start: usize, end: usize, lines: String) -> Splice {
    if end == body.len() && !body.ends_with('\n') {
        let kept = lines.trim_end_matches(['\n', '\r']).to_owned();
        return (start, end, kept);
    }
    (start, end, lines)
}

/// Removes the lines `start..end`, mirroring [`insert_lines`].
fn remove_lines(body: &str, start: usize, end: usize) -> Splice {
    if end == body.len() && !body.ends_with('\n') && start > 0 {
        let before = body[..start].strip_suffix('\n').unwrap_or(&body[..start]);
        let before = before.strip_suffix('\r').unwrap_or(before);
        return (before.len(), end, String::new());
    }
    (start, end, String::new())
}

/// The file's indentation step and list style, from its first nested block map and list.
fn detect_style(body: &str, root: Option<&Node>, newline: &'static str) -> Style {
    let mut unit = None;
    let mut indented_lists = None;
    let mut stack: Vec<&Node> = root.into_iter().collect();
    while let Some(node) = stack.pop() {
        if unit.is_some() && indented_lists.is_some() {
            break;
        }
        let Kind::Map {
            entries,
            flow: false,
        } = &node.kind
        else {
            if let Kind::Seq { items, .. } = &node.kind {
                stack.extend(items.iter().rev());
            }
            continue;
        };
        for (k, v) in entries {
            if !starts_line(body, k.start) {
                continue;
            }
            let key_col = k.start - line_start(body, k.start);
            match &v.kind {
                Kind::Map { flow: false, .. } if starts_line(body, v.start) && unit.is_none() => {
                    let col = v.start - line_start(body, v.start);
                    unit = col.checked_sub(key_col).filter(|u| *u > 0);
                }
                Kind::Seq { flow: false, items } if indented_lists.is_none() => {
                    let trimmed = body[..v.start].trim_end_matches([' ', '\n', '\r']);
                    if let (Some(_), true) = (items.first(), trimmed.ends_with('-')) {
                        let dash = trimmed.len() - 1;
                        indented_lists = Some(dash - line_start(body, dash) > key_col);
                    }
                }
                _ => {}
            }
        }
        stack.extend(entries.iter().rev().map(|(_, v)| v));
    }
    Style {
        unit: unit.unwrap_or(2),
        newline,
        indented_lists: indented_lists.unwrap_or(true),
    }
}

#[cfg(test)]
mod tests;

/// The value of one YAML document (a markdown file's frontmatter), plain scalars resolved by the
/// YAML 1.2 core schema; `None` when the text holds no document.
pub fn value_of(text: &str) -> Result<Option<Value>, FormatError> {
    Ok(tree::parse(text)?.map(|node| node.to_json()))
}
