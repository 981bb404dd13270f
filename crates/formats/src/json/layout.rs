//! Reading the layout of a JSON text: where commas and line ends are, and the file's style.

use jsonc_parser::ast::{Object, Value as Ast};
use jsonc_parser::common::Ranged;

use crate::json_render::Style;
use crate::text::{line_indent, newline_of, starts_line};

/// Position of the first `,` in the trivia (whitespace and comments) between `from` and `to`.
pub(super) fn comma_in(body: &str, from: usize, to: usize) -> Option<usize> {
    let b = body.as_bytes();
    let mut i = from;
    while i < to {
        match (b[i], b.get(i + 1)) {
            (b',', _) => return Some(i),
            (b'/', Some(b'/')) => i = body[i..to].find('\n').map_or(to, |k| i + k),
            (b'/', Some(b'*')) => i = body[i + 2..to].find("*/").map_or(to, |k| i + 2 + k + 2),
            _ => i += 1,
        }
    }
    None
}

/// Where the line of `pos` ends, when what follows `pos` on it is only spaces and comments:
/// the position of its line break. Otherwise the end of the trailing comments (or `pos`).
/// New members go there, so a `// note` after the last member stays with that member.
pub(super) fn same_line_end(body: &str, pos: usize) -> usize {
    let b = body.as_bytes();
    let mut i = pos;
    let mut last_trivia = pos;
    loop {
        while i < b.len() && (b[i] == b' ' || b[i] == b'\t') {
            i += 1;
        }
        match (b.get(i), b.get(i + 1)) {
            (Some(b'\n'), _) => return i,
            (Some(b'\r'), Some(b'\n')) => return i,
            (Some(b'/'), Some(b'/')) => {
                let end = body[i..].find('\n').map_or(body.len(), |k| i + k);
                return if end > i && b[end - 1] == b'\r' && end < b.len() {
                    end - 1
                } else {
                    end
                };
            }
            (Some(b'/'), Some(b'*')) => match body[i + 2..].find("*/") {
                Some(k) if !body[i..i + 2 + k].contains('\n') => {
                    i = i + 2 + k + 2;
                    last_trivia = i;
                }
                _ => return last_trivia,
            },
            (None, _) => return i,
            _ => return last_trivia,
        }
    }
}

/// The position of the line break that ends the line before `line_start` (its `\r` if CRLF).
pub(super) fn line_break_before(body: &str, line_start: usize) -> usize {
    let b = body.as_bytes();
    match line_start.checked_sub(1) {
        Some(i) if i > 0 && b[i - 1] == b'\r' => i - 1,
        Some(i) => i,
        None => 0,
    }
}

/// The style new text in `obj` should follow, read from its members, its siblings and the root.
pub(crate) fn detect_style(body: &str, root: Option<&Ast<'_>>, obj: &Object<'_>) -> Style {
    let root_obj = root.and_then(Ast::as_object);
    Style {
        newline: newline_of(body),
        unit: indent_unit(body, root_obj, obj),
        colon: colon(body, obj)
            .or_else(|| root_obj.and_then(|r| colon(body, r)))
            .unwrap_or_else(|| ": ".to_owned()),
        comma: comma(body, obj)
            .or_else(|| root_obj.and_then(|r| comma(body, r)))
            .unwrap_or_else(|| ", ".to_owned()),
        inline_arrays: inline_arrays(body, obj),
        one_line: one_line(body, root_obj, obj),
    }
}

/// An object is written on one line when none of its members starts a line; an empty one when
/// the whole document is a one-line object with members.
fn one_line(body: &str, root: Option<&Object<'_>>, obj: &Object<'_>) -> bool {
    if obj.properties.is_empty() {
        return root.is_some_and(|r| {
            !r.properties.is_empty() && !body[r.range.start..r.range.end].contains('\n')
        });
    }
    !obj.properties.iter().any(|p| starts_line(body, p.start()))
}

/// One indentation step: from a sibling entry's members, else the root's first member, else 2.
fn indent_unit(body: &str, root: Option<&Object<'_>>, obj: &Object<'_>) -> String {
    let from_sibling = obj.properties.iter().find_map(|p| {
        let inner = inner_indent(body, &p.value)?;
        if !starts_line(body, p.start()) {
            return None;
        }
        step(&inner, line_indent(body, p.start()))
    });
    from_sibling
        .or_else(|| root_unit(body, root))
        .unwrap_or_else(|| "  ".to_owned())
}

/// The indentation step between a member at `member_indent` and its value's first member at
/// `inner_indent`, when that is a step.
pub(super) fn step(inner_indent: &str, member_indent: &str) -> Option<String> {
    let step = inner_indent.strip_prefix(member_indent)?;
    (!step.is_empty()).then(|| step.to_owned())
}

/// The indentation of the line of `value`'s first member, when `value` is an object whose first
/// member starts a line.
pub(super) fn inner_indent(body: &str, value: &Ast<'_>) -> Option<String> {
    let inner = value.as_object()?.properties.first()?;
    starts_line(body, inner.start()).then(|| line_indent(body, inner.start()).to_owned())
}

/// The indentation of the root's first member, when it starts a line and is indented.
pub(super) fn root_unit(body: &str, root: Option<&Object<'_>>) -> Option<String> {
    let first = root?.properties.first()?;
    let indent = line_indent(body, first.start());
    (starts_line(body, first.start()) && !indent.is_empty()).then(|| indent.to_owned())
}

/// What stands between the first member's key and value, when it is plain (`": "`, `":"`).
pub(super) fn colon(body: &str, obj: &Object<'_>) -> Option<String> {
    let p = obj.properties.first()?;
    plain_colon(&body[p.name.end()..p.value.start()])
}

/// `between` (what stands between a key and its value) when it is only a colon and blanks.
pub(super) fn plain_colon(between: &str) -> Option<String> {
    let plain = between.trim_matches([' ', '\t']) == ":";
    plain.then(|| between.to_owned())
}

/// What stands between the first two members when they share a line (`", "`, `","`).
pub(super) fn comma(body: &str, obj: &Object<'_>) -> Option<String> {
    let [a, b, ..] = obj.properties.as_slice() else {
        return None;
    };
    plain_comma(&body[a.end()..b.start()])
}

/// What new members of a one-line object put between them, from `between` (what stands
/// between two members that share a line), when it is only a comma and blanks.
pub(super) fn plain_comma(between: &str) -> Option<String> {
    let plain = between.trim_matches([' ', '\t']) == ",";
    plain.then(|| between.trim_start_matches([' ', '\t']).to_owned())
}

/// Whether sibling entries write their arrays on one line (`"args": ["-y", "pkg"]`).
fn inline_arrays(body: &str, obj: &Object<'_>) -> bool {
    obj.properties
        .iter()
        .find_map(|p| first_array_inline(body, &p.value))
        .unwrap_or(false)
}

/// Whether the first non-empty array among the fields of `entry` (an object) is on one line;
/// `None` when it has none.
pub(super) fn first_array_inline(body: &str, entry: &Ast<'_>) -> Option<bool> {
    entry
        .as_object()?
        .properties
        .iter()
        .find_map(|field| match &field.value {
            Ast::Array(a) if !a.elements.is_empty() => Some(!a.text(body).contains('\n')),
            _ => None,
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comma_skips_comments() {
        let s = "1 /* , */ // ,\n , }";
        assert_eq!(comma_in(s, 1, s.len()), Some(16));
        assert_eq!(comma_in("1 }", 1, 3), None);
    }

    #[test]
    fn same_line_end_stops_at_line_break_or_content() {
        assert_eq!(same_line_end("1,  \n}", 2), 4);
        assert_eq!(same_line_end("1, // c\r\n}", 2), 7);
        assert_eq!(same_line_end("1 }", 1), 1);
        assert_eq!(same_line_end("1 /* c */ }", 1), 9);
    }
}
