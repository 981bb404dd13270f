//! Many edits of one container from one parse.
//!
//! The container is held as pieces: for each member the trivia before it (its gap), its key with
//! the colon, and its value; then the trivia before `}`. Each edit is worked out on these pieces
//! exactly as [`super::upsert_in`], [`super::insert_member`] and [`super::remove_member`] work it
//! out on the whole text: the same style, the same splices, on the same bytes. What style
//! detection asks of the container ("the first member that starts a line", "the first entry with
//! an array", …) is kept in ordered sets of member ids, so an edit costs a logarithm instead of a
//! pass over the container. The text is built once at the end, and checked once.
//!
//! Only edits that leave a member in the container are made here: creating the container and
//! emptying it are the caller's, one edit at a time.

use std::borrow::Cow;
use std::collections::{BTreeSet, HashMap};
use std::rc::Rc;

use jsonc_parser::ast::{Object, Value as Ast};
use jsonc_parser::common::Ranged;
use serde_json::Value;

use super::layout::{self, comma_in, line_break_before, same_line_end};
use super::{Loaded, to_json};
use crate::json_render::{Style, quote, render};
use crate::text::{line_indent, newline_of};
use crate::{Container, Format, FormatError, guard};

/// What a member of an edited container must hold afterwards.
enum Expected<'x, 'a, 'v> {
    /// Untouched: the same value as before.
    Same(&'x Ast<'a>),
    /// Written: a value reading back as this.
    Written(&'v Value),
}

/// A container being edited.
pub(super) struct Members<'x, 'a, 'v> {
    body: &'a str,
    obj: &'x Object<'a>,
    /// The first byte inside `{`, and the `}`.
    open: usize,
    close: usize,
    /// Every member the container had or was given, in order of ids (which is container order:
    /// new members go at the end); removed ones stay as tombstones so ids do not move.
    members: Vec<Member<'x, 'a, 'v>>,
    head: Option<usize>,
    tail: Option<usize>,
    /// The trivia between the last member and `}`.
    last_gap: Cow<'a, str>,
    by_name: HashMap<String, usize>,
    /// Live members that start a line, whose value gives an indentation step, that have an array
    /// field, and whose text holds a line break.
    line_starters: BTreeSet<usize>,
    units: BTreeSet<usize>,
    arrays: BTreeSet<usize>,
    newlines: BTreeSet<usize>,
    outer: Outer,
    /// Bumped whenever `last_gap` changes.
    last_gap_rev: u32,
    /// The style last detected, and what it was detected from (see [`Self::style_key`]).
    style: Option<(StyleKey, Rc<Style>)>,
}

/// The members (and their revisions) style detection reads: the first, the second, the first of
/// each set; and the last gap's revision when the line ending can come from it.
type StyleKey = [Option<(usize, u32)>; 7];

/// What style detection reads outside the container, which edits inside it never change.
struct Outer {
    /// The file's line ending, when its first line break comes before the container.
    newline: Option<&'static str>,
    /// The line ending of the text after the container (for a file with none before it).
    newline_after: &'static str,
    root_unit: Option<String>,
    root_colon: Option<String>,
    root_comma: Option<String>,
    /// The indentation of the line the container's `{` is on.
    open_indent: String,
}

struct Member<'x, 'a, 'v> {
    name: String,
    gap: Cow<'a, str>,
    /// From the key's first byte to the value's.
    key: Cow<'a, str>,
    value: Cow<'a, str>,
    expected: Expected<'x, 'a, 'v>,
    prev: Option<usize>,
    next: Option<usize>,
    live: bool,
    /// What stands between key and value, when it is a plain colon.
    colon: Option<String>,
    /// See [`layout::inner_indent`] and [`layout::first_array_inline`].
    inner_indent: Option<String>,
    array_inline: Option<bool>,
    /// Whether key or value holds a line break.
    kv_newline: bool,
    /// The indentation step this member shows (it starts a line, and so does its value's first
    /// member); depends on the gap, so it is worked out again whenever that changes.
    unit: Option<String>,
    /// Bumped whenever gap, key or value changes.
    rev: u32,
}

impl<'x, 'a, 'v> Members<'x, 'a, 'v> {
    /// The pieces of `obj`, the container found in `body` under `root`; `None` for a layout
    /// this model does not cover (the container is the root, whose members style detection also
    /// reads), which the caller then edits one entry at a time.
    pub(super) fn new(
        body: &'a str,
        root: Option<&'x Ast<'a>>,
        obj: &'x Object<'a>,
    ) -> Option<Self> {
        let (start, end) = (obj.range.start, obj.range.end);
        let bytes = body.as_bytes();
        if bytes.get(start) != Some(&b'{') || end == 0 || bytes.get(end - 1) != Some(&b'}') {
            return None;
        }
        let root_obj = root.and_then(Ast::as_object);
        if root_obj.is_none_or(|r| std::ptr::eq(r, obj)) {
            return None;
        }
        let (open, close) = (start + 1, end - 1);
        let first_break = body.find('\n');
        let outer = Outer {
            newline: first_break.filter(|i| *i < open).map(|_| newline_of(body)),
            newline_after: newline_of(&body[close..]),
            root_unit: layout::root_unit(body, root_obj),
            root_colon: root_obj.and_then(|r| layout::colon(body, r)),
            root_comma: root_obj.and_then(|r| layout::comma(body, r)),
            open_indent: line_indent(body, start).to_owned(),
        };
        let mut model = Members {
            body,
            obj,
            open,
            close,
            members: Vec::with_capacity(obj.properties.len()),
            head: None,
            tail: None,
            last_gap: Cow::Borrowed(""),
            by_name: HashMap::with_capacity(obj.properties.len()),
            line_starters: BTreeSet::new(),
            units: BTreeSet::new(),
            arrays: BTreeSet::new(),
            newlines: BTreeSet::new(),
            outer,
            last_gap_rev: 0,
            style: None,
        };
        let mut pos = open;
        for p in &obj.properties {
            let (key_start, value_start, value_end) =
                (p.range.start, p.value.start(), p.value.end());
            let name_end = p.name.end();
            let ordered = pos <= key_start && key_start < name_end && name_end <= value_start;
            if !ordered || value_start >= value_end || p.range.end != value_end || value_end > close
            {
                return None;
            }
            model.push(Member {
                name: p.name.as_str().to_owned(),
                gap: Cow::Borrowed(&body[pos..key_start]),
                key: Cow::Borrowed(&body[key_start..value_start]),
                value: Cow::Borrowed(&body[value_start..value_end]),
                expected: Expected::Same(&p.value),
                prev: None,
                next: None,
                live: true,
                colon: layout::plain_colon(&body[name_end..value_start]),
                inner_indent: layout::inner_indent(body, &p.value),
                array_inline: layout::first_array_inline(body, &p.value),
                kv_newline: body[key_start..value_end].contains('\n'),
                unit: None,
                rev: 0,
            });
            pos = value_end;
        }
        model.last_gap = Cow::Borrowed(&body[pos..close]);
        Some(model)
    }

    /// How many members the container holds.
    pub(super) fn len(&self) -> usize {
        self.by_name.len()
    }

    pub(super) fn contains(&self, name: &str) -> bool {
        self.by_name.contains_key(name)
    }

    /// Sets entry `name`: replaces its value where it stands, or appends it ([`super::upsert_in`]).
    /// The container must not be empty.
    pub(super) fn upsert(&mut self, name: &str, value: &'v Value) {
        let style = self.style();
        let Some(&id) = self.by_name.get(name) else {
            self.insert(name, value, &style);
            return;
        };
        let indent = self.line_indent_of(id);
        let text = render(value, &indent, &style);
        let m = &mut self.members[id];
        m.inner_indent = rendered_inner_indent(value, &indent, &style);
        m.array_inline = rendered_array_inline(value, &style);
        m.kv_newline = m.key.contains('\n') || text.contains('\n');
        m.value = Cow::Owned(text);
        m.expected = Expected::Written(value);
        self.refresh(id);
    }

    /// Appends member `name` after the last one, in the file's style ([`super::insert_member`]
    /// for an object with members).
    fn insert(&mut self, name: &str, value: &'v Value, style: &Style) {
        let gap = std::mem::take(&mut self.last_gap);
        self.last_gap_rev = self.last_gap_rev.wrapping_add(1);
        let trailing_comma = comma_in(&gap, 0, gap.len());
        let (before, after, indent) = if style.one_line {
            match trailing_comma {
                Some(c) => {
                    let space = style.comma.trim_start_matches(',');
                    let before = format!("{}{space}", &gap[..=c]);
                    (before, format!(",{}", &gap[c + 1..]), String::new())
                }
                None => (style.comma.clone(), gap.into_owned(), String::new()),
            }
        } else {
            let child = self.member_indent();
            let nl = style.newline;
            let closed = format!("{gap}}}");
            match trailing_comma {
                Some(c) => {
                    let at = same_line_end(&closed, c + 1);
                    let before = format!("{}{nl}{child}", &gap[..at]);
                    (before, format!(",{}", &gap[at..]), child)
                }
                None => {
                    let at = same_line_end(&closed, 0);
                    let before = format!(",{}{nl}{child}", &gap[..at]);
                    (before, gap[at..].to_owned(), child)
                }
            }
        };
        let key = format!("{}{}", quote(name), style.colon);
        let text = render(value, &indent, style);
        self.last_gap = Cow::Owned(after);
        self.push(Member {
            name: name.to_owned(),
            gap: Cow::Owned(before),
            colon: layout::plain_colon(&style.colon),
            inner_indent: rendered_inner_indent(value, &indent, style),
            array_inline: rendered_array_inline(value, style),
            kv_newline: key.contains('\n') || text.contains('\n'),
            key: Cow::Owned(key),
            value: Cow::Owned(text),
            expected: Expected::Written(value),
            prev: None,
            next: None,
            live: true,
            unit: None,
            rev: 0,
        });
    }

    /// Removes member `name` with its separators ([`super::remove_member`] for an object with
    /// other members). The container must hold another member.
    pub(super) fn remove(&mut self, name: &str) {
        if self.len() < 2 {
            return;
        }
        let Some(id) = self.by_name.remove(name) else {
            return;
        };
        let (prev, next) = (self.members[id].prev, self.members[id].next);
        let gap = std::mem::take(&mut self.members[id].gap);
        let next_gap = match next {
            Some(n) => std::mem::take(&mut self.members[n].gap),
            None => std::mem::take(&mut self.last_gap),
        };
        let own_comma = comma_in(&next_gap, 0, next_gap.len());
        let merged = match starts_line(&gap) {
            Some(_) => remove_lines(&gap, &next_gap, own_comma, prev.is_some()),
            None => remove_inline(gap, next_gap, own_comma, prev.is_some(), next.is_some()),
        };
        match next {
            Some(n) => self.members[n].gap = merged,
            None => {
                self.last_gap = merged;
                self.last_gap_rev = self.last_gap_rev.wrapping_add(1);
            }
        }
        match prev {
            Some(p) => self.members[p].next = next,
            None => self.head = next,
        }
        match next {
            Some(n) => self.members[n].prev = prev,
            None => self.tail = prev,
        }
        self.members[id].live = false;
        self.refresh(id);
        if let Some(n) = next {
            self.refresh(n);
        }
    }

    /// The body with the edits made.
    pub(super) fn render(&self) -> String {
        let mut out = String::with_capacity(self.body.len() + 64 * self.members.len());
        out.push_str(&self.body[..self.open]);
        for m in self.live() {
            out.push_str(&m.gap);
            out.push_str(&m.key);
            out.push_str(&m.value);
        }
        out.push_str(&self.last_gap);
        out.push_str(&self.body[self.close..]);
        out
    }

    /// Checks `new_body` (what [`Self::render`] gave) by parsing the container again: it holds
    /// exactly the members the edits leave, untouched ones as they were and written ones reading
    /// back as written. The bytes around the container are copied by construction.
    pub(super) fn check(&self, format: Format, new_body: &str) -> Result<(), FormatError> {
        let start = self.obj.range.start;
        let end = new_body.len() + self.obj.range.end - self.body.len();
        let region = new_body.get(start..end).unwrap_or_default();
        let expected: Vec<(String, Value)> = self
            .live()
            .map(|m| {
                let value = match m.expected {
                    Expected::Same(old) => to_json(old),
                    Expected::Written(value) => value.clone(),
                };
                (m.name.clone(), value)
            })
            .collect();
        guard::check::<Loaded>(format, region, Container::new(&[]), &Vec::new(), &expected)
    }

    fn live(&self) -> impl Iterator<Item = &Member<'x, 'a, 'v>> {
        std::iter::successors(self.head, |&i| self.members[i].next).map(|i| &self.members[i])
    }

    fn push(&mut self, mut member: Member<'x, 'a, 'v>) {
        let id = self.members.len();
        member.prev = self.tail;
        match self.tail {
            Some(t) => self.members[t].next = Some(id),
            None => self.head = Some(id),
        }
        self.tail = Some(id);
        self.by_name.insert(member.name.clone(), id);
        self.members.push(member);
        self.refresh(id);
    }

    /// Files member `id` in the sets again after its gap, key or value changed.
    fn refresh(&mut self, id: usize) {
        for set in [
            &mut self.line_starters,
            &mut self.units,
            &mut self.arrays,
            &mut self.newlines,
        ] {
            set.remove(&id);
        }
        let m = &mut self.members[id];
        m.rev = m.rev.wrapping_add(1);
        if !m.live {
            return;
        }
        let indent = starts_line(&m.gap);
        m.unit = match (indent, &m.inner_indent) {
            (Some(indent), Some(inner)) => layout::step(inner, indent),
            _ => None,
        };
        if indent.is_some() {
            self.line_starters.insert(id);
        }
        if m.unit.is_some() {
            self.units.insert(id);
        }
        if m.array_inline.is_some() {
            self.arrays.insert(id);
        }
        if m.kv_newline || m.gap.contains('\n') {
            self.newlines.insert(id);
        }
    }

    /// [`layout::detect_style`] of the container as the edits so far left it: detected again only
    /// when something it reads changed.
    fn style(&mut self) -> Rc<Style> {
        let key = self.style_key();
        match &self.style {
            Some((cached, style)) if *cached == key => Rc::clone(style),
            _ => {
                let style = Rc::new(self.detect_style());
                self.style = Some((key, Rc::clone(&style)));
                style
            }
        }
    }

    fn style_key(&self) -> StyleKey {
        let at = |id: Option<usize>| id.map(|i| (i, self.members[i].rev));
        let second = self.head.and_then(|i| self.members[i].next);
        let last_gap = (self.outer.newline.is_none() && self.newlines.is_empty())
            .then_some((usize::MAX, self.last_gap_rev));
        [
            at(self.head),
            at(second),
            at(self.units.first().copied()),
            at(self.arrays.first().copied()),
            at(self.line_starters.first().copied()),
            at(self.newlines.first().copied()),
            last_gap,
        ]
    }

    fn detect_style(&self) -> Style {
        let first = self.head.map(|i| &self.members[i]);
        let second = first.and_then(|m| m.next).map(|i| &self.members[i]);
        let outer = &self.outer;
        Style {
            newline: self.newline(),
            unit: self
                .units
                .first()
                .and_then(|&i| self.members[i].unit.clone())
                .or_else(|| outer.root_unit.clone())
                .unwrap_or_else(|| "  ".to_owned()),
            colon: first
                .and_then(|m| m.colon.clone())
                .or_else(|| outer.root_colon.clone())
                .unwrap_or_else(|| ": ".to_owned()),
            comma: second
                .and_then(|m| layout::plain_comma(&m.gap))
                .or_else(|| outer.root_comma.clone())
                .unwrap_or_else(|| ", ".to_owned()),
            inline_arrays: self
                .arrays
                .first()
                .and_then(|&i| self.members[i].array_inline)
                .unwrap_or(false),
            one_line: self.line_starters.is_empty(),
        }
    }

    /// [`newline_of`] the whole text as the edits so far left it.
    fn newline(&self) -> &'static str {
        if let Some(nl) = self.outer.newline {
            return nl;
        }
        if let Some(&i) = self.newlines.first() {
            let m = &self.members[i];
            let found = [&m.gap, &m.key, &m.value]
                .into_iter()
                .find_map(|s| first_newline(s));
            if let Some(nl) = found {
                return nl;
            }
        }
        first_newline(&self.last_gap).unwrap_or(self.outer.newline_after)
    }

    /// `line_indent` at the start of member `id`.
    fn line_indent_of(&self, id: usize) -> String {
        let gap = &self.members[id].gap;
        if let Some(k) = gap.rfind('\n') {
            return blanks(&gap[k + 1..]).to_owned();
        }
        if let Some(&p) = self.newlines.range(..id).next_back() {
            let m = &self.members[p];
            for piece in [&m.value, &m.key, &m.gap] {
                if let Some(k) = piece.rfind('\n') {
                    return blanks(&piece[k + 1..]).to_owned();
                }
            }
        }
        self.outer.open_indent.clone()
    }

    /// [`super::member_indent`]: the indentation of the first member that starts a line.
    fn member_indent(&self) -> String {
        match self.line_starters.first() {
            Some(&i) => starts_line(&self.members[i].gap)
                .unwrap_or_default()
                .to_owned(),
            None => format!("{}  ", self.outer.open_indent),
        }
    }
}

/// [`super::remove_lines`] on the gaps around the member: what stands between its neighbours
/// afterwards.
fn remove_lines<'a>(
    gap: &str,
    next_gap: &str,
    own_comma: Option<usize>,
    has_prev: bool,
) -> Cow<'a, str> {
    let line_start = gap.rfind('\n').map_or(0, |k| k + 1);
    let from = line_break_before(gap, line_start);
    let closed = format!("{next_gap}}}");
    let (to, prev_comma) = match own_comma {
        Some(c) => (same_line_end(&closed, c + 1), None),
        None => {
            let prev_comma = comma_in(gap, 0, gap.len()).filter(|_| has_prev);
            (same_line_end(&closed, 0), prev_comma)
        }
    };
    let kept = &gap[..from];
    let mut merged = String::with_capacity(kept.len() + next_gap.len() - to);
    match prev_comma {
        Some(c) if c < from => {
            merged.push_str(&kept[..c]);
            merged.push_str(&kept[c + 1..]);
        }
        _ => merged.push_str(kept),
    }
    merged.push_str(&next_gap[to..]);
    Cow::Owned(merged)
}

/// [`super::remove_inline`] on the gaps around the member.
fn remove_inline<'a>(
    gap: Cow<'a, str>,
    next_gap: Cow<'a, str>,
    own_comma: Option<usize>,
    has_prev: bool,
    has_next: bool,
) -> Cow<'a, str> {
    if has_next {
        return gap;
    }
    let prev_comma = comma_in(&gap, 0, gap.len()).filter(|_| has_prev);
    let (kept, rest) = match (prev_comma, own_comma) {
        (Some(p), Some(c)) => (&gap[..=p], &next_gap[c + 1..]),
        (Some(p), None) => (&gap[..p], &next_gap[..]),
        (None, Some(c)) => (&gap[..], &next_gap[c + 1..]),
        (None, None) => (&gap[..], &next_gap[..]),
    };
    Cow::Owned(format!("{kept}{rest}"))
}

/// The indentation of a member that starts a line, from the gap before it: the blanks after its
/// last line break, when nothing else follows it.
fn starts_line(gap: &str) -> Option<&str> {
    let k = gap.rfind('\n')?;
    let tail = &gap[k + 1..];
    tail.bytes()
        .all(|b| b == b' ' || b == b'\t')
        .then_some(tail)
}

fn blanks(s: &str) -> &str {
    let end = s.find(|c: char| c != ' ' && c != '\t').unwrap_or(s.len());
    &s[..end]
}

/// The line ending of the first line break in `s`, if any. A piece never starts with the `\n` of
/// a `\r\n`: pieces start at a key, a value, or after a member or `{`.
fn first_newline(s: &str) -> Option<&'static str> {
    let i = s.find('\n')?;
    Some(if i > 0 && s.as_bytes()[i - 1] == b'\r' {
        "\r\n"
    } else {
        "\n"
    })
}

/// [`layout::inner_indent`] of what [`render`] writes for `value` at `indent`.
fn rendered_inner_indent(value: &Value, indent: &str, style: &Style) -> Option<String> {
    match value {
        Value::Object(map) if !map.is_empty() && !style.one_line => {
            Some(format!("{indent}{}", style.unit))
        }
        _ => None,
    }
}

/// [`layout::first_array_inline`] of what [`render`] writes for `value`.
fn rendered_array_inline(value: &Value, style: &Style) -> Option<bool> {
    value.as_object()?.values().find_map(|field| match field {
        Value::Array(items) if !items.is_empty() => Some(
            style.one_line
                || (style.inline_arrays
                    && items
                        .iter()
                        .all(|v| !matches!(v, Value::Array(_) | Value::Object(_)))),
        ),
        _ => None,
    })
}
