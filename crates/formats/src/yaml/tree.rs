//! A YAML document as a tree of nodes with byte positions, built from saphyr-parser's events,
//! and read as serde_json values (YAML 1.2 core schema).

use saphyr_parser::{Event, Parser, ScalarStyle, Span};
use serde_json::{Map, Value};

use crate::FormatError;

/// Deeper nesting than this is refused rather than walked (the tree is built recursively).
const MAX_DEPTH: usize = 128;

pub(super) struct Node {
    /// Byte offset of the node's first character (for a block mapping, its first key; for a
    /// block sequence, its first item's content).
    pub start: usize,
    /// Byte offset after the node's last character (see [`Node::data_end`] for collections).
    pub end: usize,
    /// 1-based line of `start`.
    pub line: usize,
    /// Whether the node carries an anchor or a tag.
    pub props: bool,
    pub kind: Kind,
}

pub(super) enum Kind {
    Scalar {
        value: String,
        plain: bool,
    },
    Seq {
        items: Vec<Node>,
        flow: bool,
    },
    Map {
        entries: Vec<(Node, Node)>,
        flow: bool,
    },
    Alias,
}

impl Node {
    /// The entries of a mapping.
    pub fn map_entries(&self) -> Option<&[(Node, Node)]> {
        match &self.kind {
            Kind::Map { entries, .. } => Some(entries),
            _ => None,
        }
    }

    pub fn is_flow(&self) -> bool {
        matches!(
            self.kind,
            Kind::Map { flow: true, .. } | Kind::Seq { flow: true, .. }
        )
    }

    /// The key text of a scalar used as a key; `None` for a collection or an alias.
    pub fn key(&self) -> Option<&str> {
        match &self.kind {
            Kind::Scalar { value, .. } => Some(value),
            _ => None,
        }
    }

    /// The value of `key` in a mapping.
    pub fn get(&self, key: &str) -> Option<(&Node, &Node)> {
        self.map_entries()?
            .iter()
            .find(|(k, _)| k.key() == Some(key))
            .map(|(k, v)| (k, v))
    }

    /// Whether this is a null written as nothing, `~` or `null`, with no anchor or tag.
    pub fn is_plain_null(&self) -> bool {
        match &self.kind {
            Kind::Scalar { value, plain: true } => !self.props && resolve(value) == Value::Null,
            _ => false,
        }
    }

    /// The byte after the last character of data in the node: for block collections the end of
    /// their last child (their own end event sits at the next token).
    pub fn data_end(&self) -> usize {
        match &self.kind {
            Kind::Seq { items, flow: false } => items.last().map_or(self.start, Node::data_end),
            Kind::Map {
                entries,
                flow: false,
            } => entries.last().map_or(self.start, |(_, v)| v.data_end()),
            _ => self.end,
        }
    }

    pub fn type_name(&self) -> &'static str {
        match &self.kind {
            Kind::Scalar { value, plain } => match (plain, resolve(value)) {
                (false, _) | (true, Value::String(_)) => "a string",
                (true, Value::Null) => "null",
                (true, Value::Bool(_)) => "a boolean",
                (true, Value::Number(_)) => "a number",
                (true, _) => "a scalar",
            },
            Kind::Seq { .. } => "a list",
            Kind::Map { .. } => "a map",
            Kind::Alias => "an alias",
        }
    }

    /// The node as JSON: plain scalars resolved by the YAML 1.2 core schema, aliases as the
    /// text `*alias` (the editor refuses them wherever it writes).
    pub fn to_json(&self) -> Value {
        match &self.kind {
            Kind::Scalar { value, plain: true } => resolve(value),
            Kind::Scalar { value, .. } => Value::String(value.clone()),
            Kind::Seq { items, .. } => Value::Array(items.iter().map(Node::to_json).collect()),
            Kind::Map { entries, .. } => Value::Object(
                entries
                    .iter()
                    .map(|(k, v)| (key_string(k), v.to_json()))
                    .collect::<Map<_, _>>(),
            ),
            Kind::Alias => Value::String("*alias".to_owned()),
        }
    }
}

/// A key as a JSON member name: a scalar's text, or what a collection key reads as.
pub(super) fn key_string(key: &Node) -> String {
    match key.key() {
        Some(k) => k.to_owned(),
        None => key.to_json().to_string(),
    }
}

/// Parses `body` (BOM removed): the root node of its one document, `None` when it holds none.
pub(super) fn parse(body: &str) -> Result<Option<Node>, FormatError> {
    let mut builder = Builder {
        events: Parser::new_from_str(body),
        offsets: Offsets::new(body),
    };
    let mut root = None;
    let mut documents = 0;
    while let Some((event, span)) = builder.next()? {
        match event {
            Event::DocumentStart(_) => {
                documents += 1;
                if documents > 1 {
                    return Err(FormatError::NotEditable {
                        line: span.start.line(),
                        column: span.start.col() + 1,
                        what: "the file holds more than one YAML document".to_owned(),
                    });
                }
                let (event, span) = builder.next()?.ok_or_else(unexpected_end)?;
                root = Some(builder.node(event, span, 0)?);
            }
            Event::StreamEnd => break,
            _ => {}
        }
    }
    Ok(root)
}

struct Builder<'a> {
    events: Parser<'a, saphyr_parser::StrInput<'a>>,
    offsets: Offsets<'a>,
}

impl<'a> Builder<'a> {
    fn next(&mut self) -> Result<Option<(Event<'a>, Span)>, FormatError> {
        match self.events.next_event() {
            None => Ok(None),
            Some(Ok(pair)) => Ok(Some(pair)),
            Some(Err(e)) => Err(FormatError::Parse {
                line: e.marker().line(),
                column: e.marker().col() + 1,
                message: e.info().to_owned(),
            }),
        }
    }

    fn node(&mut self, event: Event<'a>, span: Span, depth: usize) -> Result<Node, FormatError> {
        if depth > MAX_DEPTH {
            return Err(FormatError::Parse {
                line: span.start.line(),
                column: span.start.col() + 1,
                message: format!("nesting deeper than {MAX_DEPTH} levels"),
            });
        }
        let start = self.offsets.byte(span.start.index());
        let line = span.start.line();
        let (kind, props, end) = match event {
            Event::Scalar(value, style, anchor, tag) => {
                let plain = matches!(style, ScalarStyle::Plain);
                let kind = Kind::Scalar {
                    value: value.into_owned(),
                    plain,
                };
                (kind, anchor != 0 || tag.is_some(), span.end.index())
            }
            Event::Alias(_) => (Kind::Alias, false, span.end.index()),
            Event::SequenceStart(anchor, tag) => {
                let mut items = Vec::new();
                let end = loop {
                    let (event, span) = self.next()?.ok_or_else(unexpected_end)?;
                    if let Event::SequenceEnd = event {
                        break span.end.index();
                    }
                    items.push(self.node(event, span, depth + 1)?);
                };
                let flow = self.flow_at(start, b'[');
                (Kind::Seq { items, flow }, anchor != 0 || tag.is_some(), end)
            }
            Event::MappingStart(anchor, tag) => {
                let mut entries = Vec::new();
                let end = loop {
                    let (event, span) = self.next()?.ok_or_else(unexpected_end)?;
                    if let Event::MappingEnd = event {
                        break span.end.index();
                    }
                    let key = self.node(event, span, depth + 1)?;
                    let (event, span) = self.next()?.ok_or_else(unexpected_end)?;
                    let value = self.node(event, span, depth + 1)?;
                    entries.push((key, value));
                };
                let flow = self.flow_at(start, b'{');
                let flow = flow && entries.first().is_none_or(|(k, _)| k.start != start);
                (
                    Kind::Map { entries, flow },
                    anchor != 0 || tag.is_some(),
                    end,
                )
            }
            _ => return Err(unexpected_end()),
        };
        Ok(Node {
            start,
            end: self.offsets.byte(end),
            line,
            props,
            kind,
        })
    }

    fn flow_at(&self, start: usize, open: u8) -> bool {
        self.offsets.text_byte(start) == Some(open)
    }
}

fn unexpected_end() -> FormatError {
    FormatError::Parse {
        line: 1,
        column: 1,
        message: "unexpected end of the YAML event stream".to_owned(),
    }
}

/// Byte offsets of character indexes (saphyr counts characters).
struct Offsets<'a> {
    /// `None` for an ASCII text, where they are the same.
    bytes: Option<Vec<usize>>,
    ascii: &'a [u8],
}

impl<'a> Offsets<'a> {
    fn new(text: &'a str) -> Offsets<'a> {
        let bytes = (!text.is_ascii()).then(|| {
            let mut v: Vec<usize> = text.char_indices().map(|(i, _)| i).collect();
            v.push(text.len());
            v
        });
        Offsets {
            bytes,
            ascii: text.as_bytes(),
        }
    }

    fn byte(&self, index: usize) -> usize {
        match &self.bytes {
            None => index.min(self.ascii.len()),
            Some(v) => v.get(index).copied().unwrap_or(self.ascii.len()),
        }
    }

    fn text_byte(&self, at: usize) -> Option<u8> {
        self.ascii.get(at).copied()
    }
}

/// What a plain scalar reads as under the YAML 1.2 core schema. Numbers JSON cannot hold
/// (`.inf`, `.nan`, integers past 64 bits that are not floats) stay strings.
pub(super) fn resolve(text: &str) -> Value {
    match text {
        "" | "~" | "null" | "Null" | "NULL" => return Value::Null,
        "true" | "True" | "TRUE" => return Value::Bool(true),
        "false" | "False" | "FALSE" => return Value::Bool(false),
        _ => {}
    }
    if let Some(n) = integer(text) {
        return Value::Number(n);
    }
    if is_float(text)
        && let Some(n) = text
            .parse::<f64>()
            .ok()
            .and_then(serde_json::Number::from_f64)
    {
        return Value::Number(n);
    }
    Value::String(text.to_owned())
}

fn integer(text: &str) -> Option<serde_json::Number> {
    let digits = |s: &str, radix: u32| !s.is_empty() && s.chars().all(|c| c.is_digit(radix));
    if let Some(oct) = text.strip_prefix("0o") {
        return digits(oct, 8)
            .then(|| u64::from_str_radix(oct, 8).ok())
            .flatten()
            .map(Into::into);
    }
    if let Some(hex) = text.strip_prefix("0x") {
        return digits(hex, 16)
            .then(|| u64::from_str_radix(hex, 16).ok())
            .flatten()
            .map(Into::into);
    }
    let unsigned = text.strip_prefix(['-', '+']).unwrap_or(text);
    if !digits(unsigned, 10) {
        return None;
    }
    let text = text.strip_prefix('+').unwrap_or(text);
    if let Ok(i) = text.parse::<i64>() {
        return Some(i.into());
    }
    text.parse::<u64>().ok().map(Into::into)
}

/// `[-+]? ( \. [0-9]+ | [0-9]+ ( \. [0-9]* )? ) ( [eE] [-+]? [0-9]+ )?`
pub(super) fn is_float(text: &str) -> bool {
    let s = text.strip_prefix(['-', '+']).unwrap_or(text);
    let (mantissa, exponent) = match s.find(['e', 'E']) {
        Some(i) => (&s[..i], Some(&s[i + 1..])),
        None => (s, None),
    };
    let all_digits = |t: &str| t.bytes().all(|b| b.is_ascii_digit());
    let mantissa_ok = match mantissa.split_once('.') {
        Some(("", frac)) => !frac.is_empty() && all_digits(frac),
        Some((int, frac)) => all_digits(int) && all_digits(frac),
        None => !mantissa.is_empty() && all_digits(mantissa),
    };
    let exponent_ok = exponent.is_none_or(|e| {
        let e = e.strip_prefix(['-', '+']).unwrap_or(e);
        !e.is_empty() && all_digits(e)
    });
    mantissa_ok && exponent_ok
}
