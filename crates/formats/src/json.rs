//! JSON and JSONC: parse to an AST for byte ranges, then splice the text by hand.
//!
//! A CST edit of a 2 MB `~/.claude.json` costs about 100 ms; the AST parse costs a twentieth of
//! that, and splicing by hand lets insertion and removal be exact mirrors of each other, so
//! `remove(upsert(x)) == x` holds byte for byte (blank lines, one-line and empty containers too).

use jsonc_parser::ast::{Object, ObjectProp, Value as Ast};
use jsonc_parser::common::Ranged;
use jsonc_parser::{CollectOptions, ParseOptions, parse_to_ast};
use serde_json::{Map, Value};

use super::guard::{self, Outside};
use super::json_render::{Style, render, render_member};
use super::text::{line_indent, line_start, newline_of, split_bom, starts_line};
use super::{
    Backend, Container, Created, Edit, Format, FormatError, Op, Parse, Progress, entry_fields,
};

mod batch;
mod layout;
mod shallow;
mod unique;

use layout::{comma_in, detect_style, line_break_before, same_line_end};

/// Splices to apply to a text: byte range replaced by a string. Applied back to front.
type Splices = Vec<(usize, usize, String)>;

/// A JSON or JSONC text loaded once (see [`load`]): what the container holds, and the edits of
/// that text, all from the same AST.
pub(super) struct Loaded<'t> {
    format: Format,
    text: &'t str,
    bom: &'static str,
    body: &'t str,
    path: &'t [&'t str],
    root: Option<Ast<'t>>,
}

impl<'t> Parse<'t> for Loaded<'t> {
    /// Fails when the text does not parse, or when a key on the container path holds something
    /// other than an object. A large strict-JSON file is parsed only along the container path
    /// (see [`shallow`]).
    fn parse(format: Format, text: &'t str, container: Container<'t>) -> Result<Self, FormatError> {
        Loaded::new(format, text, container)
    }

    /// A full parse, whatever the size: the guard compares everything it reads.
    fn reparse(
        format: Format,
        text: &'t str,
        container: Container<'t>,
    ) -> Result<Self, FormatError> {
        Loaded::with_parser(format, text, container, true)
    }
}

impl Backend for Loaded<'_> {
    fn entries(&self) -> Vec<(String, Value)> {
        Loaded::entries(self)
    }

    /// Off-path members read as `null` after a shallow parse; the guard reads this only of a
    /// [`Backend::reparse`].
    fn outside(&self) -> Outside {
        let mut levels = Vec::with_capacity(self.path.len());
        let mut obj = self.root.as_ref().and_then(Ast::as_object);
        for key in self.path {
            let others = obj.map(|o| {
                o.properties
                    .iter()
                    .filter(|p| p.name.as_str() != *key)
                    .map(|p| (p.name.as_str().to_owned(), to_json(&p.value)))
                    .collect()
            });
            levels.push(others.unwrap_or_default());
            obj = obj
                .and_then(|o| o.get(key))
                .and_then(|p| p.value.as_object());
        }
        levels
    }

    fn upsert(&self, name: &str, value: &Value) -> Result<Edit, FormatError> {
        Loaded::upsert(self, name, value)
    }

    fn remove(&self, name: &str, created: &Created) -> Result<Edit, FormatError> {
        Loaded::remove(self, name, created)
    }

    fn apply(&self, ops: &[Op<'_>]) -> Result<Edit, FormatError> {
        Loaded::apply(self, ops)
    }
}

impl<'t> Loaded<'t> {
    /// Parses `text`, failing as every operation on it would: when it does not parse, or when a
    /// key on the container path holds something other than an object.
    pub(super) fn new(
        format: Format,
        text: &'t str,
        container: Container<'t>,
    ) -> Result<Self, FormatError> {
        Loaded::with_parser(format, text, container, false)
    }

    fn with_parser(
        format: Format,
        text: &'t str,
        container: Container<'t>,
        full: bool,
    ) -> Result<Self, FormatError> {
        if container.list_key.is_some() {
            return Err(FormatError::ListContainer {
                key_path: container.display(),
                format: "JSON",
            });
        }
        let (bom, body) = split_bom(text);
        let root = match full {
            true => parse(format, body)?,
            false => load(format, body, container.path)?,
        };
        unique::check(body, root.as_ref(), container.path)?;
        find(root.as_ref(), container.path)?;
        Ok(Loaded {
            format,
            text,
            bom,
            body,
            path: container.path,
            root,
        })
    }

    fn place(&self) -> Result<Place<'_, 't>, FormatError> {
        find(self.root.as_ref(), self.path)
    }

    /// Every entry of the container, in file order; none when it is missing.
    pub(super) fn entries(&self) -> Vec<(String, Value)> {
        match self.place() {
            Ok(Place::Found(obj)) => obj
                .properties
                .iter()
                .map(|p| (p.name.as_str().to_owned(), to_json(&p.value)))
                .collect(),
            Ok(Place::Missing { .. } | Place::NoRoot) | Err(_) => Vec::new(),
        }
    }

    pub(super) fn upsert(&self, name: &str, value: &Value) -> Result<Edit, FormatError> {
        let (format, body, path) = (self.format, self.body, self.path);
        let root = self.root.as_ref();
        let (splices, created, region, depth) = match self.place()? {
            Place::Found(obj) => {
                let (splices, created) = upsert_in(body, root, obj, name, value);
                (splices, created, obj, path.len())
            }
            Place::Missing { parent, depth } => {
                let wrapped = wrap(&path[depth + 1..], name, value);
                let (splices, inner) = insert_member(body, root, parent, path[depth], &wrapped);
                let created = Created {
                    container_levels: path.len() - depth,
                    empty_object_inner: inner,
                    file_content: None,
                };
                (splices, created, parent, depth)
            }
            Place::NoRoot => return Ok(create_document(self.text, body, path, name, value)),
        };
        let edited = Edited {
            format,
            body,
            region,
            rest: &path[depth..],
            name,
        };
        let new_body = edited.apply_checked(splices, Some(value))?;
        Ok(Edit {
            text: with_bom(self.bom, new_body),
            created,
            delete_file: false,
        })
    }

    pub(super) fn remove(&self, name: &str, created: &Created) -> Result<Edit, FormatError> {
        let (format, body, path) = (self.format, self.body, self.path);
        let root = self.root.as_ref();
        let Place::Found(obj) = self.place()? else {
            return Ok(Edit::unchanged(self.text));
        };
        let Some(index) = obj.properties.iter().position(|p| p.name.as_str() == name) else {
            return Ok(Edit::unchanged(self.text));
        };
        if let Some(original) = whole_file_to_restore(root, path, created) {
            return Ok(Edit {
                text: original.to_owned(),
                created: Created::default(),
                delete_file: original.is_empty(),
            });
        }
        let (splices, region, depth) = match removable_chain(root, path, created) {
            Some((ancestor, key)) => {
                let i = position_of(ancestor, key);
                let restore = created.empty_object_inner.as_deref();
                let depth = path.len() - created.container_levels;
                (remove_member(body, ancestor, i, restore), ancestor, depth)
            }
            None => {
                let restore = restore_for_container(created);
                let splices = remove_member(body, obj, index, restore);
                (splices, obj, path.len())
            }
        };
        let edited = Edited {
            format,
            body,
            region,
            rest: &path[depth..],
            name,
        };
        let new_body = edited.apply_checked(splices, None)?;
        Ok(Edit {
            text: with_bom(self.bom, new_body),
            created: Created::default(),
            delete_file: false,
        })
    }
}

impl Loaded<'_> {
    /// [`super::apply_ops`] on the loaded text: one step on this parse, and a parse of the result
    /// only where a step ends early (an edit that creates or empties the container).
    pub(super) fn apply(&self, ops: &[Op<'_>]) -> Result<Edit, FormatError> {
        let mut progress = Progress::default();
        let mut text: Option<String> = None;
        let mut done = 0;
        while done < ops.len() {
            let (next, applied) = match &text {
                None => self.step(&ops[done..], &mut progress)?,
                Some(current) => Loaded::new(self.format, current, Container::new(self.path))?
                    .step(&ops[done..], &mut progress)?,
            };
            if next.is_some() {
                text = next;
            }
            done += applied;
        }
        Ok(progress.finish(text.unwrap_or_else(|| self.text.to_owned())))
    }

    /// Applies `ops[0]`, and every following op that can be made on the same parse (see
    /// [`batch`]); returns the new text (`None`: unchanged) and how many ops it applied (at least
    /// one).
    fn step(
        &self,
        ops: &[Op<'_>],
        progress: &mut Progress,
    ) -> Result<(Option<String>, usize), FormatError> {
        let Some(&first) = ops.first() else {
            return Ok((None, 0));
        };
        let obj = match self.place()? {
            Place::Found(obj) => obj,
            Place::Missing { .. } | Place::NoRoot => {
                // No entry to remove; the first upsert creates the container.
                let removals = ops
                    .iter()
                    .take_while(|op| matches!(op, Op::Remove(..)))
                    .count();
                if removals > 0 {
                    progress.delete_file = false;
                    return Ok((None, removals));
                }
                return Ok((Some(self.one(first, progress)?), 1));
            }
        };
        let structural = match first {
            Op::Upsert(..) => obj.properties.is_empty(),
            Op::Remove(name, _) => obj.properties.len() == 1 && obj.get(name).is_some(),
        };
        let model = match structural {
            true => None,
            false => batch::Members::new(self.body, self.root.as_ref(), obj),
        };
        let Some(mut members) = model else {
            return Ok((Some(self.one(first, progress)?), 1));
        };
        let mut applied = 0;
        let mut changed = false;
        for op in ops {
            match *op {
                Op::Upsert(_, value) if members.len() == 0 => {
                    entry_fields(value)?;
                    break;
                }
                Op::Upsert(name, value) => {
                    entry_fields(value)?;
                    members.upsert(name, value);
                    changed = true;
                }
                Op::Remove(name, _) if members.contains(name) => {
                    if members.len() == 1 {
                        break;
                    }
                    members.remove(name);
                    changed = true;
                }
                Op::Remove(..) => {}
            }
            progress.delete_file = false;
            applied += 1;
        }
        if !changed {
            return Ok((None, applied));
        }
        let new_body = members.render();
        members.check(self.format, &new_body)?;
        Ok((Some(with_bom(self.bom, new_body)), applied))
    }

    /// Applies one op as [`upsert_entry`] or [`remove_entry`] would.
    fn one(&self, op: Op<'_>, progress: &mut Progress) -> Result<String, FormatError> {
        let edit = match op {
            Op::Upsert(name, value) => {
                entry_fields(value)?;
                self.upsert(name, value)?
            }
            Op::Remove(name, created) => self.remove(name, &progress.for_removal(created))?,
        };
        progress.record(&op, &edit);
        Ok(edit.text)
    }
}

/// An edit confined to one object of the document (`region`, the object at the path prefix
/// before `rest`): every splice lies inside it, so the guard only has to re-parse that object,
/// not the whole (possibly 2 MB) file. The bytes around it are copied unchanged by construction.
struct Edited<'x, 'a, 'p> {
    format: Format,
    body: &'a str,
    region: &'x Object<'a>,
    rest: &'p [&'p str],
    name: &'p str,
}

impl Edited<'_, '_, '_> {
    fn apply_checked(
        &self,
        splices: Splices,
        expected: Option<&Value>,
    ) -> Result<String, FormatError> {
        let (start, end) = (self.region.range.start, self.region.range.end);
        if splices.iter().any(|(s, e, _)| *s <= start || *e >= end) {
            return Err(FormatError::GuardFailed {
                reason: "an edit reached outside the object it was meant for".to_owned(),
            });
        }
        let removed: usize = splices.iter().map(|(s, e, _)| e - s).sum();
        let added: usize = splices.iter().map(|(_, _, t)| t.len()).sum();
        let new_body = apply(self.body, splices);
        let new_end = end + added - removed;
        let new_region = new_body.get(start..new_end).unwrap_or_default();
        let old_region = self.body.get(start..end).unwrap_or_default();
        let rest = Container::new(self.rest);
        let old = Loaded::reparse(self.format, old_region, rest).map_err(|e| {
            FormatError::GuardFailed {
                reason: format!("the edited object does not parse alone: {e}"),
            }
        })?;
        let expected = guard::with_change(old.entries(), self.name, expected.cloned());
        guard::check::<Loaded>(self.format, new_region, rest, &old.outside(), &expected)?;
        Ok(new_body)
    }
}

/// The inner text to restore when the container itself empties: only when dotpack found it empty.
fn restore_for_container(created: &Created) -> Option<&str> {
    if created.container_levels == 0 {
        created.empty_object_inner.as_deref()
    } else {
        None
    }
}

fn position_of(obj: &Object<'_>, key: &str) -> usize {
    obj.properties
        .iter()
        .position(|p| p.name.as_str() == key)
        .unwrap_or(0)
}

/// The document's AST, or for a large strict-JSON file only the part along the container path
/// (see [`shallow`]): what the edit needs, at a fraction of the cost.
fn load<'a>(format: Format, body: &'a str, path: &[&str]) -> Result<Option<Ast<'a>>, FormatError> {
    if format == Format::Json && body.len() >= shallow::THRESHOLD {
        let root = shallow::validated_root_along(body, path)?;
        if root.is_some() {
            return Ok(root);
        }
    }
    parse(format, body)
}

/// Parses `body` (BOM already removed) with the strictness of `format`.
pub(crate) fn parse(format: Format, body: &str) -> Result<Option<Ast<'_>>, FormatError> {
    let jsonc = format == Format::Jsonc;
    let options = ParseOptions {
        allow_comments: jsonc,
        allow_trailing_commas: jsonc,
        allow_loose_object_property_names: false,
        allow_missing_commas: false,
        allow_single_quoted_strings: false,
        allow_hexadecimal_numbers: false,
        allow_unary_plus_numbers: false,
        allow_bare_decimal_point_numbers: false,
        allow_non_finite_numbers: false,
        allow_extended_string_escapes: false,
    };
    parse_to_ast(body, &CollectOptions::default(), &options)
        .map(|r| r.value)
        .map_err(|e| FormatError::Parse {
            line: e.line_display(),
            column: e.column_display(),
            message: e.kind().to_string(),
        })
}

/// Where the container is, or where it would go.
enum Place<'x, 'a> {
    Found(&'x Object<'a>),
    /// The object at `path[..depth]` exists but has no key `path[depth]`.
    Missing {
        parent: &'x Object<'a>,
        depth: usize,
    },
    /// The file holds no JSON value at all (empty, whitespace or comments).
    NoRoot,
}

fn find<'x, 'a>(root: Option<&'x Ast<'a>>, path: &[&str]) -> Result<Place<'x, 'a>, FormatError> {
    let Some(root) = root else {
        return Ok(Place::NoRoot);
    };
    let mut obj = as_object(root, "(the document root)", "an object")?;
    for (depth, key) in path.iter().enumerate() {
        let Some(prop) = obj.get(key) else {
            return Ok(Place::Missing { parent: obj, depth });
        };
        let expected = if depth + 1 == path.len() {
            "an object of servers"
        } else {
            "an object"
        };
        obj = as_object(&prop.value, &path[..=depth].join("."), expected)?;
    }
    Ok(Place::Found(obj))
}

fn as_object<'x, 'a>(
    value: &'x Ast<'a>,
    key_path: &str,
    expected: &'static str,
) -> Result<&'x Object<'a>, FormatError> {
    match value {
        Ast::Object(obj) => Ok(obj),
        other => Err(FormatError::ContainerNotObject {
            key_path: key_path.to_owned(),
            found: ast_type_name(other),
            expected,
        }),
    }
}

fn ast_type_name(value: &Ast<'_>) -> &'static str {
    match value {
        Ast::StringLit(_) => "a string",
        Ast::NumberLit(_) => "a number",
        Ast::BooleanLit(_) => "a boolean",
        Ast::Object(_) => "an object",
        Ast::Array(_) => "an array",
        Ast::NullKeyword(_) => "null",
    }
}

/// Converts an AST value to serde_json, numbers kept exactly as far as serde_json can.
pub(super) fn to_json(value: &Ast<'_>) -> Value {
    match value {
        Ast::StringLit(s) => Value::String(s.value.to_string()),
        Ast::NumberLit(n) => n
            .value
            .parse::<serde_json::Number>()
            .map_or_else(|_| Value::String(n.value.to_owned()), Value::Number),
        Ast::BooleanLit(b) => Value::Bool(b.value),
        Ast::NullKeyword(_) => Value::Null,
        Ast::Array(a) => Value::Array(a.elements.iter().map(to_json).collect()),
        Ast::Object(o) => Value::Object(
            o.properties
                .iter()
                .map(|p| (p.name.as_str().to_owned(), to_json(&p.value)))
                .collect::<Map<_, _>>(),
        ),
    }
}

/// `{path[0]: {path[1]: … {name: value}}}` for the levels of the container that are missing.
fn wrap(levels: &[&str], name: &str, value: &Value) -> Value {
    let mut inner = Map::new();
    inner.insert(name.to_owned(), value.clone());
    levels.iter().rev().fold(Value::Object(inner), |acc, key| {
        let mut m = Map::new();
        m.insert((*key).to_owned(), acc);
        Value::Object(m)
    })
}

/// Replaces the value of an existing entry where it stands, or appends a new one.
fn upsert_in(
    body: &str,
    root: Option<&Ast<'_>>,
    obj: &Object<'_>,
    name: &str,
    value: &Value,
) -> (Splices, Created) {
    let style = detect_style(body, root, obj);
    if let Some(prop) = obj.get(name) {
        let indent = line_indent(body, prop.range.start);
        let range = prop.value.range();
        let text = render(value, indent, &style);
        return (vec![(range.start, range.end, text)], Created::default());
    }
    let (splices, inner) = insert_member(body, root, obj, name, value);
    let created = Created {
        empty_object_inner: inner,
        ..Created::default()
    };
    (splices, created)
}

/// Appends member `key: value` to `obj` in the file's style. Returns the splices and, when `obj`
/// was empty, its original inner text (so that removal can restore it).
fn insert_member(
    body: &str,
    root: Option<&Ast<'_>>,
    obj: &Object<'_>,
    key: &str,
    value: &Value,
) -> (Splices, Option<String>) {
    let style = detect_style(body, root, obj);
    let open = obj.range.start + 1;
    let close = obj.range.end - 1;
    let Some(last) = obj.properties.last() else {
        let inner = &body[open..close];
        let kept = inner.trim_end_matches([' ', '\t', '\r', '\n']);
        let text = if style.one_line {
            format!("{kept}{}", render_member(key, value, "", &style))
        } else {
            let indent = line_indent(body, obj.range.start);
            let child = format!("{indent}{}", style.unit);
            let member = render_member(key, value, &child, &style);
            format!("{kept}{nl}{child}{member}{nl}{indent}", nl = style.newline)
        };
        return (vec![(open, close, text)], Some(inner.to_owned()));
    };
    let end = last.range.end;
    let trailing_comma = comma_in(body, end, close);
    let splices = if style.one_line {
        let member = render_member(key, value, "", &style);
        match trailing_comma {
            Some(c) => {
                let space = style.comma.trim_start_matches(',');
                vec![(c + 1, c + 1, format!("{space}{member},"))]
            }
            None => vec![(end, end, format!("{}{member}", style.comma))],
        }
    } else {
        let child = member_indent(body, obj);
        let member = render_member(key, value, &child, &style);
        let nl = style.newline;
        match trailing_comma {
            Some(c) => {
                let at = same_line_end(body, c + 1);
                vec![(at, at, format!("{nl}{child}{member},"))]
            }
            None => {
                let at = same_line_end(body, end);
                vec![
                    (end, end, ",".to_owned()),
                    (at, at, format!("{nl}{child}{member}")),
                ]
            }
        }
    };
    (splices, None)
}

/// The indentation of the object's first member that starts a line: new members copy it.
fn member_indent(body: &str, obj: &Object<'_>) -> String {
    obj.properties
        .iter()
        .find(|p| starts_line(body, p.range.start))
        .map(|p| line_indent(body, p.range.start).to_owned())
        .unwrap_or_else(|| format!("{}  ", line_indent(body, obj.range.start)))
}

/// Deletes member `index` of `obj`, mirroring [`insert_member`]. When it is the only member and
/// `restore` holds the object's original inner text, that text comes back.
fn remove_member(body: &str, obj: &Object<'_>, index: usize, restore: Option<&str>) -> Splices {
    let open = obj.range.start + 1;
    let close = obj.range.end - 1;
    let props = &obj.properties;
    let m = &props[index];
    if let (1, Some(inner)) = (props.len(), restore) {
        return vec![(open, close, inner.to_owned())];
    }
    let next_start = props.get(index + 1).map_or(close, |n| n.range.start);
    let own_comma = comma_in(body, m.range.end, next_start);
    let splices = if starts_line(body, m.range.start) {
        remove_lines(body, props, index, own_comma)
    } else {
        remove_inline(body, props, index, own_comma)
    };
    if props.len() == 1 {
        let mut rest = body[open..close].to_owned();
        for (s, e, t) in splices.iter().rev() {
            rest.replace_range(s - open..e - open, t);
        }
        if rest.trim().is_empty() {
            return vec![(open, close, String::new())];
        }
    }
    splices
}

/// Removal of a member written on lines of its own: its lines go, with the line break before.
fn remove_lines(
    body: &str,
    props: &[ObjectProp<'_>],
    index: usize,
    own_comma: Option<usize>,
) -> Splices {
    let m = &props[index];
    let from = line_break_before(body, line_start(body, m.range.start));
    match own_comma {
        Some(c) => vec![(from, same_line_end(body, c + 1), String::new())],
        None => {
            let to = same_line_end(body, m.range.end);
            let mut splices = Vec::new();
            let prev = index.checked_sub(1).map(|i| &props[i]);
            if let Some(c) = prev.and_then(|p| comma_in(body, p.range.end, m.range.start)) {
                splices.push((c, c + 1, String::new()));
            }
            splices.push((from, to, String::new()));
            splices
        }
    }
}

/// Removal of a member that shares its line with others (`{"a": 1, "b": 2}`).
fn remove_inline(
    body: &str,
    props: &[ObjectProp<'_>],
    index: usize,
    own_comma: Option<usize>,
) -> Splices {
    let m = &props[index];
    if let Some(next) = props.get(index + 1) {
        return vec![(m.range.start, next.range.start, String::new())];
    }
    let prev_comma = index
        .checked_sub(1)
        .and_then(|i| comma_in(body, props[i].range.end, m.range.start));
    match (prev_comma, own_comma) {
        (Some(p), Some(c)) => vec![(p + 1, c + 1, String::new())],
        (Some(p), None) => vec![(p, m.range.end, String::new())],
        (None, Some(c)) => vec![(m.range.start, c + 1, String::new())],
        (None, None) => vec![(m.range.start, m.range.end, String::new())],
    }
}

/// When the container was created by dotpack and removing `name` empties every created level,
/// the member of the deepest pre-existing object to remove instead: `(that object, its key)`.
fn removable_chain<'x, 'a>(
    root: Option<&'x Ast<'a>>,
    path: &[&str],
    created: &Created,
) -> Option<(&'x Object<'a>, &'x str)> {
    let levels = created.container_levels.min(path.len());
    if levels == 0 {
        return None;
    }
    let depth = path.len() - levels;
    let mut obj = root?.as_object()?;
    let mut ancestor = None;
    for (i, key) in path.iter().enumerate() {
        if i == depth {
            ancestor = Some(obj);
        }
        if i > depth && obj.properties.len() != 1 {
            return None;
        }
        let prop = obj.get(key)?;
        obj = prop.value.as_object()?;
    }
    if obj.properties.len() != 1 {
        return None;
    }
    let ancestor = ancestor?;
    let key = ancestor.get(path[depth])?.name.as_str();
    Some((ancestor, key))
}

/// The original file, when dotpack created the whole document and removing the entry leaves
/// nothing else in it.
fn whole_file_to_restore<'c>(
    root: Option<&Ast<'_>>,
    path: &[&str],
    created: &'c Created,
) -> Option<&'c str> {
    let original = created.file_content.as_deref()?;
    let (ancestor, _) = removable_chain(root, path, created)?;
    let root_obj = root?.as_object()?;
    (std::ptr::eq(ancestor, root_obj) && root_obj.properties.len() == 1).then_some(original)
}

/// A file with no JSON value: write the whole document, after any comments it had.
fn create_document(text: &str, body: &str, path: &[&str], name: &str, value: &Value) -> Edit {
    let (bom, _) = split_bom(text);
    let nl = newline_of(body);
    let style = Style {
        newline: nl,
        ..Style::default()
    };
    let doc = render(&wrap(path, name, value), "", &style);
    let kept = body.trim_end_matches([' ', '\t', '\r', '\n']);
    let sep = if kept.is_empty() { "" } else { nl };
    Edit {
        text: format!("{bom}{kept}{sep}{doc}{nl}"),
        created: Created {
            container_levels: path.len(),
            empty_object_inner: None,
            file_content: Some(text.to_owned()),
        },
        delete_file: false,
    }
}

/// `body` with the BOM put back in front; without one, the body itself (no copy of a large file).
fn with_bom(bom: &str, body: String) -> String {
    if bom.is_empty() {
        body
    } else {
        let mut text = String::with_capacity(bom.len() + body.len());
        text.push_str(bom);
        text.push_str(&body);
        text
    }
}

fn apply(body: &str, mut splices: Splices) -> String {
    splices.sort_by_key(|(s, e, _)| (*s, *e));
    let mut out = String::with_capacity(body.len() + 256);
    let mut at = 0;
    for (start, end, text) in &splices {
        out.push_str(&body[at..*start]);
        out.push_str(text);
        at = *end;
    }
    out.push_str(&body[at..]);
    out
}
