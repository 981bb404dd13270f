//! Writes a JSON value as text in the style of the file it goes into.

use serde_json::Value;

/// The layout a file uses, detected from the text around the place a value goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Style {
    pub newline: &'static str,
    /// One step of indentation: a tab, two or four spaces, or whatever the siblings use.
    pub unit: String,
    /// What stands between a key and its value, e.g. `": "` or `":"`.
    pub colon: String,
    /// What stands between members of a one-line container, e.g. `", "` or `","`.
    pub comma: String,
    /// Whether arrays of scalars are written on one line (`["-y", "pkg"]`) as the siblings do,
    /// rather than one element per line as `JSON.stringify(v, null, 2)` writes them.
    pub inline_arrays: bool,
    /// Whether the file is written on one line; then new values are too.
    pub one_line: bool,
}

impl Default for Style {
    fn default() -> Self {
        Style {
            newline: "\n",
            unit: "  ".to_owned(),
            colon: ": ".to_owned(),
            comma: ", ".to_owned(),
            inline_arrays: false,
            one_line: false,
        }
    }
}

/// Renders `value` as it would appear after a key at indentation `indent` (the indentation of
/// the line the key is on).
pub(crate) fn render(value: &Value, indent: &str, style: &Style) -> String {
    let mut out = String::new();
    write_value(&mut out, value, indent, style);
    out
}

/// Renders one member `"key": value` at indentation `indent`.
pub(crate) fn render_member(key: &str, value: &Value, indent: &str, style: &Style) -> String {
    let mut out = String::new();
    push_quoted(&mut out, key);
    out.push_str(&style.colon);
    write_value(&mut out, value, indent, style);
    out
}

/// A JSON string literal for `s`, escaped the way serde_json does.
pub(crate) fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    push_quoted(&mut out, s);
    out
}

/// Appends [`quote`]`(s)`. serde_json escapes `"`, `\\` and the control characters below
/// U+0020 and nothing else, so a string without them is written as it is.
fn push_quoted(out: &mut String, s: &str) {
    if s.bytes().any(|b| b == b'"' || b == b'\\' || b < 0x20) {
        out.push_str(&serde_json::to_string(s).unwrap_or_else(|_| format!("\"{s}\"")));
    } else {
        out.push('"');
        out.push_str(s);
        out.push('"');
    }
}

fn write_value(out: &mut String, value: &Value, indent: &str, style: &Style) {
    match value {
        Value::Object(map) if !map.is_empty() => {
            let items = map.iter().map(|(k, v)| (Some(k.as_str()), v));
            write_container(out, ('{', '}'), items, indent, style, style.one_line);
        }
        Value::Object(_) => out.push_str("{}"),
        Value::Array(items) if !items.is_empty() => {
            let inline = style.one_line || (style.inline_arrays && items.iter().all(is_scalar));
            let items = items.iter().map(|v| (None, v));
            write_container(out, ('[', ']'), items, indent, style, inline);
        }
        Value::Array(_) => out.push_str("[]"),
        Value::String(s) => push_quoted(out, s),
        scalar => out.push_str(&scalar_text(scalar)),
    }
}

fn write_container<'v>(
    out: &mut String,
    (open, close): (char, char),
    items: impl Iterator<Item = (Option<&'v str>, &'v Value)>,
    indent: &str,
    style: &Style,
    inline: bool,
) {
    let inner = format!("{indent}{}", style.unit);
    out.push(open);
    for (i, (key, value)) in items.enumerate() {
        if i > 0 {
            out.push_str(if inline { &style.comma } else { "," });
        }
        if !inline {
            out.push_str(style.newline);
            out.push_str(&inner);
        }
        if let Some(key) = key {
            push_quoted(out, key);
            out.push_str(&style.colon);
        }
        write_value(out, value, &inner, style);
    }
    if !inline {
        out.push_str(style.newline);
        out.push_str(indent);
    }
    out.push(close);
}

fn is_scalar(value: &Value) -> bool {
    !matches!(value, Value::Array(_) | Value::Object(_))
}

fn scalar_text(value: &Value) -> String {
    match value {
        Value::String(s) => quote(s),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn quotes_as_serde_json_does() {
        let mut odd: Vec<String> = (0u32..0x100)
            .filter_map(char::from_u32)
            .map(String::from)
            .collect();
        odd.extend(["a\"b\\c", "\u{2028}\u{2029}", "é😀", ""].map(String::from));
        for s in odd {
            assert_eq!(quote(&s), serde_json::to_string(&s).unwrap(), "{s:?}");
        }
    }

    #[test]
    fn renders_pretty_with_the_given_unit() {
        let style = Style {
            unit: "\t".into(),
            ..Style::default()
        };
        let v = json!({"command": "npx", "args": ["-y", "pkg"], "env": {}});
        assert_eq!(
            render(&v, "\t", &style),
            "{\n\t\t\"command\": \"npx\",\n\t\t\"args\": [\n\t\t\t\"-y\",\n\t\t\t\"pkg\"\n\t\t],\n\t\t\"env\": {}\n\t}"
        );
    }

    #[test]
    fn renders_inline_arrays_and_one_line_objects() {
        let v = json!({"args": ["-y", "pkg"], "n": 1.0});
        let style = Style {
            inline_arrays: true,
            ..Style::default()
        };
        assert_eq!(
            render(&v, "", &style),
            "{\n  \"args\": [\"-y\", \"pkg\"],\n  \"n\": 1.0\n}"
        );
        let style = Style {
            one_line: true,
            colon: ":".into(),
            comma: ",".into(),
            ..Style::default()
        };
        assert_eq!(
            render(&v, "", &style),
            "{\"args\":[\"-y\",\"pkg\"],\"n\":1.0}"
        );
    }
}
