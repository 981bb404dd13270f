//! `dotpack validate`'s summary line and `--json` document.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use serde_json::json;

use crate::model::manifest::MANIFEST_FILE;
use crate::ui::diag::Diagnostic;

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

/// The manifest to check: PATH itself, `PATH/dotpack.toml`, or the nearest `dotpack.toml` in
/// the current folder or its parents.
pub fn manifest_path(arg: Option<&Path>, cwd: &Path) -> Result<PathBuf> {
    if let Some(path) = arg {
        let path = cwd.join(path);
        let path = if path.is_dir() {
            path.join(MANIFEST_FILE)
        } else {
            path.to_path_buf()
        };
        if !path.is_file() {
            bail!("{} does not exist", path.display());
        }
        return Ok(path);
    }
    cwd.ancestors()
        .map(|dir| dir.join(MANIFEST_FILE))
        .find(|p| p.is_file())
        .with_context(|| {
            format!(
                "no {MANIFEST_FILE} in {} or its parents; run `dotpack init` or pass a path",
                cwd.display()
            )
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
