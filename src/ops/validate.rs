//! `dotpack validate`'s summary line and `--json` document.

use std::path::Path;

use serde_json::json;

use crate::diag::Diagnostic;

/// "dotpack.toml: 2 errors, 1 warning" or "dotpack.toml is valid".
pub fn summary(path: &Path, errors: usize, warnings: usize) -> String {
    let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    match (errors, warnings) {
        (0, 0) => format!("{} is valid", path.display()),
        (0, w) => format!("{} is valid ({})", path.display(), plural(w, "warning")),
        (e, 0) => format!("{}: {}", path.display(), plural(e, "error")),
        (e, w) => format!(
            "{}: {}, {}",
            path.display(),
            plural(e, "error"),
            plural(w, "warning")
        ),
    }
}

/// The `--json` document; its shape is stable.
pub fn report(
    path: &Path,
    diags: &[Diagnostic],
    errors: usize,
    warnings: usize,
) -> serde_json::Value {
    json!({
        "file": path.display().to_string(),
        "valid": errors == 0,
        "errors": errors,
        "warnings": warnings,
        "diagnostics": diags.iter().map(|d| json!({
            "severity": d.severity,
            "code": d.code,
            "message": d.message,
            "line": d.line,
            "column": d.column,
            "key_path": d.key_path,
            "help": d.help,
        })).collect::<Vec<_>>(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_counts_in_words() {
        let p = Path::new("dotpack.toml");
        assert_eq!(summary(p, 0, 0), "dotpack.toml is valid");
        assert_eq!(summary(p, 0, 1), "dotpack.toml is valid (1 warning)");
        assert_eq!(summary(p, 2, 1), "dotpack.toml: 2 errors, 1 warning");
        assert_eq!(summary(p, 1, 0), "dotpack.toml: 1 error");
    }
}
