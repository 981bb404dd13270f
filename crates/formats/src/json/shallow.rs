//! A fast path for large strict-JSON files (`~/.claude.json` reaches megabytes): validate the
//! whole text with serde_json (no tree built), then build an AST only along the container path.
//!
//! Members off the path get a placeholder value (`null` over the value's byte range), which is all
//! the editing code reads of them (positions, names). Only used when the container exists, so the
//! guard never compares placeholders: it re-parses the container alone.

use std::borrow::Cow;

use jsonc_parser::ast::{NullKeyword, Object, ObjectProp, ObjectPropName, StringLit, Value as Ast};
use jsonc_parser::common::Range;
use serde::de::IgnoredAny;

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
        .map_err(|e| FormatError::Parse {
            line: e.line(),
            column: e.column(),
            message: strip_position(&e.to_string()),
        })
}

fn strip_position(message: &str) -> String {
    message
        .rsplit_once(" at line ")
        .map_or(message, |(m, _)| m)
        .to_owned()
}

/// [`validate`] and [`root_along`] at once: the whole text is validated on a second thread while
/// this one walks the path (each is a pass over megabytes). Without a second thread, one after the
/// other.
pub(super) fn validated_root_along<'a>(
    body: &'a str,
    path: &[&str],
) -> Result<Option<Ast<'a>>, FormatError> {
    let (valid, root) = std::thread::scope(|scope| {
        let check = std::thread::Builder::new().spawn_scoped(scope, || validate(body));
        let root = root_along(body, path);
        let valid = match check {
            Ok(handle) => handle.join().unwrap_or_else(|_| validate(body)),
            Err(_) => validate(body),
        };
        (valid, root)
    });
    valid.map(|()| root)
}

/// The root object with a full AST for the container at `path` and placeholders elsewhere, or
/// `None` when the container is not an object found at that path (the caller then parses fully).
/// `body` must be valid strict JSON.
pub(super) fn root_along<'a>(body: &'a str, path: &[&str]) -> Option<Ast<'a>> {
    let start = skip_ws(body.as_bytes(), 0);
    let mut root = shallow_object(body, start)?;
    descend(body, &mut root, path)?;
    Some(Ast::Object(root))
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
        properties.push(ObjectProp {
            range: Range::new(i, value_end),
            name: ObjectPropName::String(StringLit {
                range: Range::new(i, name_end),
                value: Cow::Owned(name),
            }),
            value: Ast::NullKeyword(NullKeyword {
                range: Range::new(value_start, value_end),
            }),
        });
        i = skip_ws(b, value_end);
        match b.get(i)? {
            b',' => i = skip_ws(b, i + 1),
            b'}' => return Some(object(start, i + 1, properties)),
            _ => return None,
        }
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
