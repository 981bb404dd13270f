//! Diagnostics that point into a file: the file, the line and column, what is wrong and the fix.
//!
//! Every error or warning about user input is a [`Diagnostic`]. Rendering is done once, here, so
//! validation, manifest loading and lockfile parsing all read the same way.

use std::fmt;
use std::ops::Range;
use std::path::PathBuf;

use annotate_snippets::{AnnotationKind, Group, Level, Renderer, Snippet};

/// How bad a diagnostic is. Errors make a command fail; warnings are printed and kept going.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Warning,
    Error,
}

/// One finding about one file, optionally pointing at a byte range of its text.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Diagnostic {
    pub severity: Severity,
    /// A short stable identifier, e.g. `unknown-field`, for scripts and tests.
    pub code: &'static str,
    pub message: String,
    pub file: PathBuf,
    /// Byte range in the file's text, when the finding has a place.
    #[serde(skip)]
    pub span: Option<Range<usize>>,
    /// 1-based line and column of the span's start, filled by [`Diagnostic::locate`].
    pub line: Option<usize>,
    pub column: Option<usize>,
    /// Key path inside the document, e.g. `servers.figma.args`.
    pub key_path: Option<String>,
    /// What to do about it.
    pub help: Option<String>,
    /// The span holds a secret: the excerpt shows it as `*`s.
    #[serde(skip)]
    pub masked: bool,
}

impl Diagnostic {
    pub fn error(code: &'static str, file: impl Into<PathBuf>, message: impl Into<String>) -> Self {
        Self::new(Severity::Error, code, file, message)
    }

    pub fn warning(
        code: &'static str,
        file: impl Into<PathBuf>,
        message: impl Into<String>,
    ) -> Self {
        Self::new(Severity::Warning, code, file, message)
    }

    fn new(
        severity: Severity,
        code: &'static str,
        file: impl Into<PathBuf>,
        message: impl Into<String>,
    ) -> Self {
        Diagnostic {
            severity,
            code,
            message: message.into(),
            file: file.into(),
            span: None,
            line: None,
            column: None,
            key_path: None,
            help: None,
            masked: false,
        }
    }

    /// The text the span covers is a secret (a literal token, a password in a URL): excerpts
    /// show it as `*`s, so reporting it does not print it again.
    pub fn masked(mut self) -> Self {
        self.masked = true;
        self
    }

    /// Points the diagnostic at `span` of `source`, computing its line and column.
    pub fn at(mut self, source: &str, span: Option<Range<usize>>) -> Self {
        if let Some(span) = span {
            let start = span.start.min(source.len());
            let (line, column) = line_column(source, start);
            self.line = Some(line);
            self.column = Some(column);
            self.span = Some(start..span.end.min(source.len()).max(start));
        }
        self
    }

    pub fn key(mut self, key_path: impl Into<String>) -> Self {
        self.key_path = Some(key_path.into());
        self
    }

    pub fn help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// Renders with a source excerpt when `source` is the text of `self.file`.
    pub fn render(&self, source: Option<&str>, color: bool) -> String {
        let level = match self.severity {
            Severity::Error => Level::ERROR,
            Severity::Warning => Level::WARNING,
        };
        let path = self.file.display().to_string();
        let title = match &self.key_path {
            Some(key) => format!("{} (at `{key}`)", self.message),
            None => self.message.clone(),
        };
        let mut group: Group<'_> = Group::with_title(level.primary_title(title));
        let hidden;
        let (source, span) = match (source, &self.span) {
            (Some(source), Some(span)) if self.masked => {
                let (text, span) = mask(source, span.clone());
                hidden = text;
                (Some(hidden.as_str()), Some(span))
            }
            (source, span) => (source, span.clone()),
        };
        match (source, &span) {
            (Some(source), Some(span)) => {
                let mut span = span.clone();
                if span.is_empty() && span.end < source.len() {
                    span.end += 1;
                }
                group = group.element(
                    Snippet::source(source)
                        .path(path.as_str())
                        .annotation(AnnotationKind::Primary.span(span)),
                );
            }
            _ => {
                group = group.element(annotate_snippets::Origin::path(path.as_str()));
            }
        }
        if let Some(help) = &self.help {
            group = group.element(Level::HELP.message(help.as_str()));
        }
        let renderer = if color {
            Renderer::styled()
        } else {
            Renderer::plain()
        };
        renderer.render(&[group])
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file.display())?;
        if let (Some(line), Some(column)) = (self.line, self.column) {
            write!(f, ":{line}:{column}")?;
        }
        write!(f, ": {}", self.message)?;
        if let Some(key) = &self.key_path {
            write!(f, " (at `{key}`)")?;
        }
        if let Some(help) = &self.help {
            write!(f, "\n  help: {help}")?;
        }
        Ok(())
    }
}

/// 1-based line and column (in characters) of byte offset `at` in `source`.
pub fn line_column(source: &str, at: usize) -> (usize, usize) {
    let mut at = at.min(source.len());
    while !source.is_char_boundary(at) {
        at -= 1;
    }
    let before = &source[..at];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = source[line_start..at].chars().count() + 1;
    (line, column)
}

/// A set of diagnostics about files, as an error value: what a command returns when input is bad.
#[derive(Debug, thiserror::Error)]
#[error("{}", render_plain(.0))]
pub struct Diagnostics(pub Vec<Diagnostic>);

/// `source` with the characters of `span` replaced by `*`, and the span they now cover.
fn mask(source: &str, span: Range<usize>) -> (String, Range<usize>) {
    let start = span.start.min(source.len());
    let end = span.end.min(source.len()).max(start);
    if !source.is_char_boundary(start) || !source.is_char_boundary(end) {
        return ("*".repeat(source.chars().count()), 0..0);
    }
    let stars = "*".repeat(source[start..end].chars().count());
    let text = format!("{}{stars}{}", &source[..start], &source[end..]);
    (text, start..start + stars.len())
}

fn render_plain(diags: &[Diagnostic]) -> String {
    diags
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("\n")
}

pub use crate::util::fsutil::display_path;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_column_counts_from_one() {
        let src = "a = 1\nbb = 2\n";
        assert_eq!(line_column(src, 0), (1, 1));
        assert_eq!(line_column(src, 6), (2, 1));
        assert_eq!(line_column(src, 9), (2, 4));
    }

    #[test]
    fn display_names_file_line_and_help() {
        let src = "x = 1\ny = [\n";
        let d = Diagnostic::error("parse", "dotpack.toml", "bad array")
            .at(src, Some(6..7))
            .help("close the array");
        assert_eq!(
            d.to_string(),
            "dotpack.toml:2:1: bad array\n  help: close the array"
        );
        assert!(d.render(Some(src), false).contains("dotpack.toml:2:1"));
    }
}
