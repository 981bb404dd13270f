//! New YAML text for an entry: block style in the file's indentation, strings quoted only when a
//! plain scalar would not read back as the same string (under YAML 1.2 and the YAML 1.1 rules of
//! PyYAML, which Hermes and goose's Python tooling read with).

use serde_json::{Map, Value};

use super::tree::{is_float, resolve};

/// How the file lays out what dotpack adds.
#[derive(Clone, Copy, Debug)]
pub(super) struct Style {
    /// Spaces per nesting level.
    pub unit: usize,
    pub newline: &'static str,
    /// Whether a list under a key is indented (`key:\n  - a`) or not (`key:\n- a`).
    pub indented_lists: bool,
}

/// `key: value` at column `col`, each line ending with the file's newline.
pub(super) fn pair(out: &mut String, key: &str, value: &Value, col: usize, style: &Style) {
    out.push_str(&" ".repeat(col));
    out.push_str(&scalar_string(key));
    out.push(':');
    match value {
        Value::Object(map) if !map.is_empty() => {
            out.push_str(style.newline);
            map_lines(out, map, col + style.unit, style);
        }
        Value::Array(items) if !items.is_empty() => {
            out.push_str(style.newline);
            let col = if style.indented_lists {
                col + style.unit
            } else {
                col
            };
            seq_lines(out, items, col, style);
        }
        _ => {
            out.push(' ');
            out.push_str(&inline(value));
            out.push_str(style.newline);
        }
    }
}

/// The members of a map, one `pair` each, at column `col`.
pub(super) fn map_lines(out: &mut String, map: &Map<String, Value>, col: usize, style: &Style) {
    for (k, v) in map {
        pair(out, k, v, col, style);
    }
}

/// A list item at column `col` whose content is the pairs of `fields` (the first after `- `).
pub(super) fn map_item<'v>(
    out: &mut String,
    fields: impl IntoIterator<Item = (&'v str, &'v Value)>,
    dash_col: usize,
    content_col: usize,
    style: &Style,
) {
    let mut body = String::new();
    for (k, v) in fields {
        pair(&mut body, k, v, content_col, style);
    }
    out.push_str(&" ".repeat(dash_col));
    out.push('-');
    out.push_str(&" ".repeat(content_col.saturating_sub(dash_col + 1).max(1)));
    out.push_str(body.get(content_col..).unwrap_or_default());
}

fn seq_lines(out: &mut String, items: &[Value], col: usize, style: &Style) {
    for item in items {
        match item {
            Value::Object(map) if !map.is_empty() => {
                map_item(
                    out,
                    map.iter().map(|(k, v)| (k.as_str(), v)),
                    col,
                    col + 2,
                    style,
                );
            }
            Value::Array(inner) if !inner.is_empty() => {
                let mut body = String::new();
                seq_lines(&mut body, inner, col + 2, style);
                out.push_str(&" ".repeat(col));
                out.push_str("- ");
                out.push_str(body.get(col + 2..).unwrap_or_default());
            }
            _ => {
                out.push_str(&" ".repeat(col));
                out.push_str("- ");
                out.push_str(&inline(item));
                out.push_str(style.newline);
            }
        }
    }
}

/// A scalar or an empty collection on one line.
fn inline(value: &Value) -> String {
    match value {
        Value::Null => "null".to_owned(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => scalar_string(s),
        Value::Array(_) => "[]".to_owned(),
        Value::Object(_) => "{}".to_owned(),
    }
}

/// `s` as a YAML scalar that reads back as the string `s`: plain when that is safe, else
/// double-quoted with escapes.
pub(super) fn scalar_string(s: &str) -> String {
    if plain_is_safe(s) {
        s.to_owned()
    } else {
        double_quoted(s)
    }
}

/// Words YAML 1.1 (PyYAML) or 1.2 read as something other than a string.
const RESERVED: &[&str] = &[
    "null", "~", "true", "false", "yes", "no", "on", "off", "y", "n", ".inf", "-.inf", "+.inf",
    ".nan", "<<", "=",
];

fn plain_is_safe(s: &str) -> bool {
    let bytes = s.as_bytes();
    let Some(&first) = bytes.first() else {
        return false;
    };
    let safe_char = |b: u8| b.is_ascii_alphanumeric() || b" -_./@+=%:,~^()$?".contains(&b);
    let first_ok = first.is_ascii_alphanumeric()
        || b"/_.".contains(&first)
        || (first == b'-' && bytes.get(1).is_some_and(|b| b.is_ascii_alphabetic()));
    let all_safe = bytes.iter().all(|&b| safe_char(b));
    let no_indicator_sequences = !s.contains(": ") && !s.ends_with(':') && !s.contains(" #");
    let trimmed = !s.starts_with(' ') && !s.ends_with(' ');
    let looks_numeric = first.is_ascii_digit()
        || (b"+-.".contains(&first) && bytes.get(1).is_some_and(u8::is_ascii_digit))
        || is_float(s);
    let reserved = RESERVED.iter().any(|w| s.eq_ignore_ascii_case(w));
    first_ok
        && all_safe
        && no_indicator_sequences
        && trimmed
        && !looks_numeric
        && !reserved
        && resolve(s) == Value::String(s.to_owned())
}

/// A double-quoted YAML scalar: every character that is not printable, or that YAML reads as a
/// line break, escaped.
fn double_quoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if printable(c) => out.push(c),
            c if (c as u32) <= 0xFF => out.push_str(&format!("\\x{:02x}", c as u32)),
            c if (c as u32) <= 0xFFFF => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push_str(&format!("\\U{:08x}", c as u32)),
        }
    }
    out.push('"');
    out
}

/// YAML's printable characters, less those some readers take as line breaks (NEL, LS, PS) and the BOM.
fn printable(c: char) -> bool {
    matches!(c as u32, 0x20..=0x7E | 0xA0..=0x2027 | 0x202A..=0xD7FF | 0xE000..=0xFEFE | 0xFF00..=0xFFFD | 0x10000..=0x10FFFF)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_are_quoted_only_when_a_plain_scalar_would_read_differently() {
        for plain in [
            "npx",
            "-y",
            "pkg@1",
            "https://x.io/mcp?a=b",
            "a b",
            "./s.js",
            "A_B",
        ] {
            assert_eq!(scalar_string(plain), plain);
        }
        for quoted in [
            "yes",
            "No",
            "on",
            "null",
            "~",
            "1.0",
            "1",
            "0x1f",
            "-1",
            "*x",
            "&a",
            "# x",
            "a: b",
            "a:",
            " a",
            "a ",
            "",
            "!t",
            "'",
            "\"",
            "a #b",
            "2024-01-01",
            "<<",
            ".inf",
            "@",
            "%x",
            "{a}",
            "[a]",
            "a\nb",
            "|",
            ">",
            "?",
            "`x`",
            "x\u{85}",
            "@scope/pkg",
            "~/x",
        ] {
            let text = scalar_string(quoted);
            assert!(text.starts_with('"'), "{quoted:?} gave {text}");
        }
        assert_eq!(scalar_string("a\"b\\c\nd\u{1}"), "\"a\\\"b\\\\c\\nd\\x01\"");
    }
}
