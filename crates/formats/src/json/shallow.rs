//! A fast path for large strict-JSON files (`~/.claude.json` reaches megabytes): validate the
//! whole text with serde_json (no tree built), which also gives the root's members, then build an
//! AST only along the container path.
//!
//! Members off the path get a placeholder value (`null` over the value's byte range), which is all
//! the editing code reads of them (positions, names). Only used when the container exists, so the
//! guard never compares placeholders: it re-parses the container alone.

use std::borrow::Cow;

use jsonc_parser::ast::{NullKeyword, Object, ObjectProp, ObjectPropName, StringLit, Value as Ast};
use jsonc_parser::common::Range;
use serde::de::IgnoredAny;
use serde_json::value::RawValue;

use super::parse;
use crate::{Format, FormatError};

/// Below this size the full AST parse is cheap enough.
pub(super) const THRESHOLD: usize = 256 * 1024;

/// Validates strict JSON with serde_json, reporting its line and column.
pub(super) fn validate(body: &str) -> Result<(), FormatError> {
    if body.trim().is_empty() {
        return Ok(());
    }
    serde_json::from_str::<IgnoredAny>(body)
        .map(|_| ())
        .map_err(parse_error)
}

fn parse_error(e: serde_json::Error) -> FormatError {
    FormatError::Parse {
        line: e.line(),
        column: e.column(),
        message: strip_position(&e.to_string()),
    }
}

fn strip_position(message: &str) -> String {
    message
        .rsplit_once(" at line ")
        .map_or(message, |(m, _)| m)
        .to_owned()
}

/// The root object with a full AST for the container at `path` and placeholders elsewhere, the
/// whole text validated on the way; `Ok(None)` when the root is not an object or the container
/// is not an object found at that path (the caller then parses fully).
///
/// One pass of serde_json validates the text and yields each root member's value as the raw text
/// it read, so the root's members are known without a second walk over megabytes.
pub(super) fn validated_root_along<'a>(
    body: &'a str,
    path: &[&str],
) -> Result<Option<Ast<'a>>, FormatError> {
    let start = skip_ws(body.as_bytes(), 0);
    if body.as_bytes().get(start) != Some(&b'{') {
        validate(body)?;
        return Ok(None);
    }
    let members = serde_json::from_str::<RootMembers<'a>>(body).map_err(parse_error)?;
    let Some(mut root) = root_object(body, start, members.0) else {
        return Ok(None);
    };
    Ok(descend(body, &mut root, path).map(|()| Ast::Object(root)))
}

/// The root object's members in file order (repeated names kept), each value as serde_json read
/// it: a slice of the text.
struct RootMembers<'a>(Vec<(String, &'a RawValue)>);

impl<'de> serde::Deserialize<'de> for RootMembers<'de> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(MembersVisitor)
    }
}

struct MembersVisitor;

impl<'de> serde::de::Visitor<'de> for MembersVisitor {
    type Value = RootMembers<'de>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut members = Vec::new();
        while let Some(member) = map.next_entry::<String, &'de RawValue>()? {
            members.push(member);
        }
        Ok(RootMembers(members))
    }
}

/// The root object at `start` from the members serde_json read: each value's range is where its
/// raw text lies in `body`, each name's the string before it.
fn root_object<'a>(
    body: &'a str,
    start: usize,
    members: Vec<(String, &'a RawValue)>,
) -> Option<Object<'a>> {
    let b = body.as_bytes();
    let base = body.as_ptr() as usize;
    let mut properties = Vec::with_capacity(members.len());
    let mut i = skip_ws(b, start + 1);
    for (n, (name, value)) in members.into_iter().enumerate() {
        if n > 0 {
            // Past the comma after the previous value.
            i = skip_ws(b, skip_ws(b, i) + 1);
        }
        let name_end = skip_string(b, i)?;
        let raw = value.get();
        let value_start = (raw.as_ptr() as usize).checked_sub(base)?;
        let value_end = value_start.checked_add(raw.len())?;
        properties.push(placeholder(name, i, name_end, value_start, value_end));
        i = value_end;
    }
    let end = skip_ws(b, i);
    (b.get(end) == Some(&b'}')).then(|| object(start, end + 1, properties))
}

/// What the fast path finds, for the tests: `None` on invalid text too.
#[cfg(test)]
fn root_along<'a>(body: &'a str, path: &[&str]) -> Option<Ast<'a>> {
    validated_root_along(body, path).ok().flatten()
}

fn descend<'a>(body: &'a str, obj: &mut Object<'a>, path: &[&str]) -> Option<()> {
    let (key, rest) = path.split_first()?;
    let prop = obj
        .properties
        .iter_mut()
        .find(|p| p.name.as_str() == *key)?;
    let range = match &prop.value {
        Ast::NullKeyword(n) => n.range,
        _ => return None,
    };
    if body.as_bytes().get(range.start) != Some(&b'{') {
        return None;
    }
    if rest.is_empty() {
        let text = &body[range.start..range.end];
        let Ok(Some(Ast::Object(mut parsed))) = parse(Format::Json, text) else {
            return None;
        };
        shift_object(&mut parsed, range.start);
        prop.value = Ast::Object(parsed);
        return Some(());
    }
    let mut child = shallow_object(body, range.start)?;
    descend(body, &mut child, rest)?;
    prop.value = Ast::Object(child);
    Some(())
}

/// Members of the object at `start`, each value a placeholder over its byte range.
fn shallow_object<'a>(body: &'a str, start: usize) -> Option<Object<'a>> {
    let b = body.as_bytes();
    if b.get(start) != Some(&b'{') {
        return None;
    }
    let mut properties = Vec::new();
    let mut i = skip_ws(b, start + 1);
    if b.get(i) == Some(&b'}') {
        return Some(object(start, i + 1, properties));
    }
    loop {
        let name_end = skip_string(b, i)?;
        let name: String = serde_json::from_str(&body[i..name_end]).ok()?;
        let value_start = skip_ws(b, skip_ws(b, name_end) + 1);
        let value_end = skip_value(b, value_start)?;
        properties.push(placeholder(name, i, name_end, value_start, value_end));
        i = skip_ws(b, value_end);
        match b.get(i)? {
            b',' => i = skip_ws(b, i + 1),
            b'}' => return Some(object(start, i + 1, properties)),
            _ => return None,
        }
    }
}

/// A member named `name` (its string from `name_start` to `name_end`) whose value, from
/// `value_start` to `value_end`, is a placeholder.
fn placeholder<'a>(
    name: String,
    name_start: usize,
    name_end: usize,
    value_start: usize,
    value_end: usize,
) -> ObjectProp<'a> {
    ObjectProp {
        range: Range::new(name_start, value_end),
        name: ObjectPropName::String(StringLit {
            range: Range::new(name_start, name_end),
            value: Cow::Owned(name),
        }),
        value: Ast::NullKeyword(NullKeyword {
            range: Range::new(value_start, value_end),
        }),
    }
}

fn object<'a>(start: usize, end: usize, properties: Vec<ObjectProp<'a>>) -> Object<'a> {
    Object {
        range: Range::new(start, end),
        properties,
    }
}

fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && matches!(b[i], b' ' | b'\t' | b'\n' | b'\r') {
        i += 1;
    }
    i
}

/// End of the string starting at `i` (which must be `"`). Jumps from quote or backslash to the
/// next: the text of a large host file is mostly strings (prompt histories).
fn skip_string(b: &[u8], i: usize) -> Option<usize> {
    if b.get(i) != Some(&b'"') {
        return None;
    }
    let mut j = i + 1;
    while let Some(k) = memchr::memchr2(b'"', b'\\', b.get(j..)?) {
        match b[j + k] {
            b'\\' => j += k + 2,
            _ => return Some(j + k + 1),
        }
    }
    None
}

/// End of the value starting at `i`.
fn skip_value(b: &[u8], i: usize) -> Option<usize> {
    match b.get(i)? {
        b'"' => skip_string(b, i),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut j = i;
            while j < b.len() {
                match b[j] {
                    b'"' => {
                        j = skip_string(b, j)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth = depth.checked_sub(1)?;
                        if depth == 0 {
                            return Some(j + 1);
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
            None
        }
        _ => {
            let mut j = i;
            while j < b.len() && !matches!(b[j], b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r')
            {
                j += 1;
            }
            Some(j)
        }
    }
}

fn shift(range: &mut Range, by: usize) {
    range.start += by;
    range.end += by;
}

fn shift_object(obj: &mut Object<'_>, by: usize) {
    shift(&mut obj.range, by);
    for p in &mut obj.properties {
        shift(&mut p.range, by);
        match &mut p.name {
            ObjectPropName::String(s) => shift(&mut s.range, by),
            ObjectPropName::Word(w) => shift(&mut w.range, by),
        }
        shift_value(&mut p.value, by);
    }
}

fn shift_value(value: &mut Ast<'_>, by: usize) {
    match value {
        Ast::StringLit(s) => shift(&mut s.range, by),
        Ast::NumberLit(n) => shift(&mut n.range, by),
        Ast::BooleanLit(b) => shift(&mut b.range, by),
        Ast::NullKeyword(n) => shift(&mut n.range, by),
        Ast::Array(a) => {
            shift(&mut a.range, by);
            a.elements.iter_mut().for_each(|e| shift_value(e, by));
        }
        Ast::Object(o) => shift_object(o, by),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn big_doc() -> String {
        let projects: Vec<String> = (0..5000)
            .map(|i| format!("    \"/p/{i}\": {{\"history\": [\"a \\\" b\", {{\"x\": [1, 2.5e3, null]}}], \"ok\": true}}"))
            .collect();
        format!(
            "{{\n  \"projects\": {{\n{}\n  }},\n  \"mcpServers\": {{\n    \"a\": {{\n      \"command\": \"a\",\n      \"args\": [\"x\"]\n    }}\n  }},\n  \"tail\": \"\\u00e9\"\n}}\n",
            projects.join(",\n")
        )
    }

    #[test]
    fn the_container_found_by_the_fast_path_equals_the_full_parse() {
        let body = big_doc();
        assert!(body.len() > THRESHOLD);
        let fast = root_along(&body, &["mcpServers"]).unwrap();
        let full = parse(Format::Json, &body).unwrap().unwrap();
        let fast_c = fast.as_object().unwrap().get("mcpServers").unwrap();
        let full_c = full.as_object().unwrap().get("mcpServers").unwrap();
        assert_eq!(fast_c, full_c);
        let names = |root: &Ast<'_>| {
            let obj = root.as_object().unwrap();
            obj.properties
                .iter()
                .map(|p| (p.name.as_str().to_owned(), p.range))
                .collect::<Vec<_>>()
        };
        assert_eq!(names(&fast), names(&full));
        assert!(root_along(&body, &["missing"]).is_none());
        assert!(root_along(&body, &["tail"]).is_none());
    }

    #[test]
    fn root_members_read_in_one_pass_keep_the_full_parse_ranges_names_and_repeats() {
        use jsonc_parser::common::Ranged;
        let body = "\t{ \"a\\\"b\" :1 ,\n\"e\\u00e9\":[ {\"x\": \"}\"} ] ,\"a\\\"b\":\r\n null,\"mcpServers\" :{\"s\": {\"url\": \"u\"}}  }\n";
        let fast = root_along(body, &["mcpServers"]).unwrap();
        let full = parse(Format::Json, body).unwrap().unwrap();
        let members = |root: &Ast<'_>| {
            let obj = root.as_object().unwrap();
            let props = obj.properties.iter();
            let props = props.map(|p| (p.name.as_str().to_owned(), p.range, p.value.range()));
            (obj.range, props.collect::<Vec<_>>())
        };
        let (fast_range, fast_props) = members(&fast);
        let (full_range, full_props) = members(&full);
        assert_eq!(fast_range, full_range);
        assert_eq!(fast_props.len(), 4);
        assert_eq!(fast_props[0].0, "a\"b");
        assert_eq!(fast_props[1].0, "e\u{e9}");
        assert_eq!(fast_props[2].0, "a\"b");
        // Names and member ranges as the full parse has them; values off the path are
        // placeholders over the same bytes.
        for (f, g) in fast_props.iter().zip(&full_props) {
            assert_eq!((&f.0, f.1, f.2), (&g.0, g.1, g.2));
        }
        let fast_c = fast.as_object().unwrap().get("mcpServers").unwrap();
        let full_c = full.as_object().unwrap().get("mcpServers").unwrap();
        assert_eq!(fast_c, full_c);
    }

    #[test]
    fn the_one_pass_reports_the_position_validation_reports_and_leaves_other_roots_to_the_full_parse()
     {
        let mut body = big_doc();
        body.insert(body.len() - 3, ',');
        let Err(FormatError::Parse {
            line,
            column,
            message,
        }) = validated_root_along(&body, &["mcpServers"])
        else {
            panic!("a trailing comma is an error");
        };
        let Err(FormatError::Parse {
            line: l, column: c, ..
        }) = validate(&body)
        else {
            panic!("a trailing comma is an error");
        };
        assert_eq!((line, column, message.as_str()), (l, c, "trailing comma"));
        assert!(matches!(
            validated_root_along("[1, 2]", &["mcpServers"]),
            Ok(None)
        ));
        assert!(validated_root_along("[1, 2", &["mcpServers"]).is_err());
        assert!(validated_root_along("{\"a\": 1} x", &["a"]).is_err());
    }

    #[test]
    fn strings_end_at_their_closing_quote_past_escapes() {
        let end = |s: &str| skip_string(s.as_bytes(), 0);
        assert_eq!(end(r#""plain" x"#), Some(7));
        assert_eq!(end(r#""a \" b" x"#), Some(8));
        assert_eq!(end(r#""ends in a backslash \\" x"#), Some(24));
        assert_eq!(end(r#""\u00e9" x"#), Some(8));
        assert_eq!(end(r#""unterminated"#), None);
        assert_eq!(end(r#""dangling \"#), None);
        assert_eq!(end("x"), None);
    }

    #[test]
    fn large_invalid_files_report_serde_json_positions() {
        let mut body = big_doc();
        body.push('x');
        let err = validate(&body).unwrap_err();
        let lines = body.lines().count();
        assert!(
            matches!(err, FormatError::Parse { line, .. } if line == lines),
            "{err:?}"
        );
    }

    #[test]
    fn large_files_round_trip_through_the_fast_path() {
        use crate::{Container, remove_entry, upsert_entry};
        let body = big_doc();
        let c = Container::new(&["mcpServers"]);
        let v = serde_json::json!({"url": "u"});
        let added = upsert_entry(Format::Json, &body, c, "new", &v).unwrap();
        assert!(
            added
                .text
                .contains("    },\n    \"new\": {\n      \"url\": \"u\"\n    }\n  },\n  \"tail\"")
        );
        let removed = remove_entry(Format::Json, &added.text, c, "new", &added.created).unwrap();
        assert_eq!(removed.text, body);
    }
}
