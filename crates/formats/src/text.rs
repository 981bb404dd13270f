//! Byte-level helpers shared by the format backends: BOM, line endings, positions, lines.

const BOM: &str = "\u{feff}";

/// Splits a leading UTF-8 BOM off, so parsers that reject it see the document; the BOM is put
/// back on write.
pub fn split_bom(text: &str) -> (&'static str, &str) {
    match text.strip_prefix(BOM) {
        Some(rest) => (BOM, rest),
        None => ("", text),
    }
}

/// The line ending new lines should use: the file's first one, LF for a file with none.
pub(crate) fn newline_of(text: &str) -> &'static str {
    match text.find('\n') {
        Some(i) if i > 0 && text.as_bytes()[i - 1] == b'\r' => "\r\n",
        _ => "\n",
    }
}

/// How a file ends its lines, for backends (toml_edit) that only write LF.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LineEndings {
    Lf,
    Crlf,
    Mixed,
}

pub fn line_endings(text: &str) -> LineEndings {
    let lf = text.matches('\n').count();
    let crlf = text.matches("\r\n").count();
    match (crlf, lf) {
        (0, _) => LineEndings::Lf,
        (c, l) if c == l => LineEndings::Crlf,
        _ => LineEndings::Mixed,
    }
}

/// 1-based line and column (in characters) of a byte offset.
pub(crate) fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let offset = floor_char_boundary(text, offset.min(text.len()));
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = before[line_start..].chars().count() + 1;
    (line, column)
}

fn floor_char_boundary(text: &str, mut i: usize) -> usize {
    while i > 0 && !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// Start of the line that contains byte `pos`.
pub(crate) fn line_start(text: &str, pos: usize) -> usize {
    text[..pos].rfind('\n').map_or(0, |i| i + 1)
}

/// The whitespace that begins the line containing `pos`.
pub(crate) fn line_indent(text: &str, pos: usize) -> &str {
    let start = line_start(text, pos);
    let line = &text[start..];
    let end = line
        .find(|c: char| c != ' ' && c != '\t')
        .unwrap_or(line.len());
    &line[..end]
}

/// True when only spaces and tabs stand between the start of the line and `pos`.
pub(crate) fn starts_line(text: &str, pos: usize) -> bool {
    text[line_start(text, pos)..pos]
        .bytes()
        .all(|b| b == b' ' || b == b'\t')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_endings_are_classified() {
        assert_eq!(line_endings("a\nb\n"), LineEndings::Lf);
        assert_eq!(line_endings("a\r\nb\r\n"), LineEndings::Crlf);
        assert_eq!(line_endings("a\r\nb\n"), LineEndings::Mixed);
        assert_eq!(line_endings(""), LineEndings::Lf);
    }

    #[test]
    fn line_column_is_one_based() {
        assert_eq!(line_column("ab\ncd", 0), (1, 1));
        assert_eq!(line_column("ab\ncd", 4), (2, 2));
        assert_eq!(line_column("é\nx", 1), (1, 1));
    }

    #[test]
    fn bom_is_split_off() {
        assert_eq!(split_bom("\u{feff}{}"), ("\u{feff}", "{}"));
        assert_eq!(split_bom("{}"), ("", "{}"));
    }
}
