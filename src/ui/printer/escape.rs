//! Text from outside dotpack made safe for a terminal.
//!
//! A registry (package names, descriptions, versions, `server.json` fields), a host file and an
//! MCP server (tool names and descriptions, instructions, results, error messages) can all put
//! terminal control sequences into what dotpack prints: set the window title (`ESC ] 0 ;`), write
//! the clipboard (OSC 52), move the cursor or rewrite a line (`\r ESC [2K`) to hide the text a
//! user is asked to review, or colour it invisible. The [`Printer`](super::Printer) passes
//! every message through [`terminal_safe`] before it adds its own colours, so none of that
//! reaches a terminal as it was sent:
//!
//! - C0 controls other than newline and tab, and DEL, are shown as `\xNN` (`\x1b`), a carriage
//!   return as `\r` unless a newline follows it (a CRLF line end is harmless);
//! - C1 controls (U+0080 to U+009F, which some terminals obey like `ESC` sequences) as
//!   `\u{9b}`;
//! - the Unicode bidirectional embedding, override and isolate controls (U+202A to U+202E,
//!   U+2066 to U+2069, the ones rustc warns about) as `\u{202e}`, so text cannot be shown in
//!   another order than it is.
//!
//! dotpack's own messages contain none of these, so only foreign text changes. `--json` output
//! stays exact: [`json_safe`] writes the same characters as JSON escapes, which parse back to
//! the very same string.

use std::borrow::Cow;
use std::fmt::Write;
use std::ops::Range;

/// Whether `c` is shown escaped (a lone carriage return is decided by [`terminal_safe`]).
fn is_unsafe(c: char) -> bool {
    match c {
        '\n' | '\t' => false,
        '\u{0}'..='\u{1f}' | '\u{7f}'..='\u{9f}' => true,
        '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' => true,
        _ => false,
    }
}

/// `c` as it is shown: `\r`, `\x1b`, `\u{9b}`, `\u{202e}`.
fn push_escaped(out: &mut String, c: char) {
    match c {
        '\r' => out.push_str("\\r"),
        '\u{0}'..='\u{1f}' | '\u{7f}' => {
            let _ = write!(out, "\\x{:02x}", c as u32);
        }
        _ => {
            let _ = write!(out, "\\u{{{:x}}}", c as u32);
        }
    }
}

/// `text` with every control character that could act on a terminal shown visibly (see the
/// module documentation); borrowed when there is none, which is the usual case.
pub fn terminal_safe(text: &str) -> Cow<'_, str> {
    let crlf_only = || {
        text.char_indices()
            .filter(|&(_, c)| is_unsafe(c))
            .all(|(at, c)| c == '\r' && text[at + 1..].starts_with('\n'))
    };
    if crlf_only() {
        return Cow::Borrowed(text);
    }
    Cow::Owned(escape_mapped(text, None).0)
}

/// [`terminal_safe`] of `source`, and where the byte range `span` of `source` lands in the
/// escaped text (for a source excerpt that points at a place).
pub fn terminal_safe_span(source: &str, span: Range<usize>) -> (String, Range<usize>) {
    let (text, span) = escape_mapped(source, Some(span));
    (text, span.unwrap_or(0..0))
}

fn escape_mapped(text: &str, span: Option<Range<usize>>) -> (String, Option<Range<usize>>) {
    let mut out = String::with_capacity(text.len() + 16);
    let (mut start, mut end) = (None, None);
    let mut chars = text.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        if let Some(span) = &span {
            if start.is_none() && at >= span.start {
                start = Some(out.len());
            }
            if end.is_none() && at >= span.end {
                end = Some(out.len());
            }
        }
        let crlf = c == '\r' && matches!(chars.peek(), Some((_, '\n')));
        if is_unsafe(c) && !crlf {
            push_escaped(&mut out, c);
        } else {
            out.push(c);
        }
    }
    let mapped = span.map(|_| {
        let start = start.unwrap_or(out.len());
        start..end.unwrap_or(out.len()).max(start)
    });
    (out, mapped)
}

/// A JSON document as `serde_json` wrote it, with DEL, the C1 controls and the bidirectional
/// controls written as `\u00XX` escapes too (`serde_json` escapes only the C0 controls). These
/// characters can only stand inside JSON strings, so the document parses to exactly the same
/// value and no longer carries anything a terminal would obey.
pub fn json_safe(json: String) -> String {
    if !json.chars().any(is_unsafe_in_json) {
        return json;
    }
    let mut out = String::with_capacity(json.len() + 16);
    for c in json.chars() {
        if is_unsafe_in_json(c) {
            let _ = write!(out, "\\u{:04x}", c as u32);
        } else {
            out.push(c);
        }
    }
    out
}

fn is_unsafe_in_json(c: char) -> bool {
    // serde_json escapes every C0 control already; the newlines and tabs outside strings are
    // its own indentation.
    c > '\u{7e}' && is_unsafe(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_text_is_borrowed_unchanged() {
        for text in ["figma 0.3.1", "a\nb\tc", "ünïcødé — ok", "crlf\r\nline", ""] {
            assert!(matches!(terminal_safe(text), Cow::Borrowed(t) if t == text));
        }
    }

    #[test]
    fn controls_are_shown_visibly() {
        assert_eq!(
            terminal_safe("\u{1b}]0;pwned\u{7}title"),
            "\\x1b]0;pwned\\x07title"
        );
        assert_eq!(
            terminal_safe("\u{1b}]52;c;Y3VybA==\u{1b}\\"),
            "\\x1b]52;c;Y3VybA==\\x1b\\"
        );
        assert_eq!(
            terminal_safe("evil\r\u{1b}[2Kharmless"),
            "evil\\r\\x1b[2Kharmless"
        );
        assert_eq!(terminal_safe("a\u{7f}b\u{0}"), "a\\x7fb\\x00");
        assert_eq!(terminal_safe("\u{9b}31m"), "\\u{9b}31m");
        assert_eq!(terminal_safe("x\u{85}y"), "x\\u{85}y");
        assert_eq!(terminal_safe("abc\u{202e}fed"), "abc\\u{202e}fed");
        assert_eq!(terminal_safe("\u{2066}x\u{2069}"), "\\u{2066}x\\u{2069}");
        assert_eq!(terminal_safe("end\r"), "end\\r");
        assert_eq!(terminal_safe("a\r\nb\rc"), "a\r\nb\\rc");
    }

    #[test]
    fn escaped_text_has_no_control_left() {
        let all: String = (0u32..0x3000).filter_map(char::from_u32).collect();
        let safe = terminal_safe(&all);
        assert!(!safe.chars().any(is_unsafe), "{safe:?}");
    }

    #[test]
    fn spans_follow_the_escaped_text() {
        let source = "a = \"\u{1b}[2K\"\nb = 1\n";
        let at = source.find("b = 1").unwrap();
        let (text, span) = terminal_safe_span(source, at..at + 5);
        assert_eq!(&text[span], "b = 1");
        let (text, span) = terminal_safe_span(source, 5..6);
        assert_eq!(&text[span], "\\x1b");
        let (text, span) = terminal_safe_span("ab", 2..2);
        assert_eq!((text.as_str(), span), ("ab", 2..2));
    }

    #[test]
    fn json_escapes_parse_back_to_the_same_string() {
        let nasty = "\u{1b}]0;t\u{7}\u{9b}2J\u{7f}\u{202e}\r\u{85}ok";
        let json = serde_json::to_string_pretty(&serde_json::json!({ "d": nasty })).unwrap();
        let safe = json_safe(json);
        assert!(!safe.chars().any(|c| is_unsafe(c) && c != '\n'), "{safe:?}");
        let back: serde_json::Value = serde_json::from_str(&safe).unwrap();
        assert_eq!(back["d"], nasty);
    }
}
