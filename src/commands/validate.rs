//! `dotpack validate [PATH]`: print every problem of a manifest; exit 1 on errors.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

use crate::ops::Settings;
use serde_json::json;

use crate::cli::ValidateArgs;
use crate::diag::{Diagnostic, display_path};
use crate::manifest::MANIFEST_FILE;
use crate::output::Printer;

pub fn run(settings: &Settings, args: ValidateArgs, printer: &Printer) -> Result<()> {
    let path = match (&args.path, &settings.manifest_path, settings.global) {
        (None, None, true) => settings.global_manifest(),
        (None, Some(path), _) => manifest_path(Some(path), &settings.cwd)?,
        (path, _, _) => manifest_path(path.as_deref(), &settings.cwd)?,
    };
    let shown = PathBuf::from(display_path(&path));
    // The user-level manifest is the user's own; any other stays in its folder.
    let fence = (path != settings.global_manifest())
        .then(|| crate::fence::Fence::project(path.parent().unwrap_or(Path::new("."))));
    let Some(text) =
        crate::fence::read_text(&path, fence.as_ref(), crate::fence::PROJECT_FILE_CAP)?
    else {
        anyhow::bail!("{} does not exist", display_path(&path));
    };
    let mut diags = crate::validate::check_manifest(&shown, &text);
    // The files the manifest's resources name: only once the manifest itself is valid.
    if !diags.iter().any(|d| d.is_error())
        && let Ok(loaded) = crate::manifest::parse(&shown, text.clone())
    {
        let root = path.parent().unwrap_or(Path::new("."));
        diags.extend(crate::manifest::resource_file_diagnostics(root, &loaded));
    }
    let errors = diags.iter().filter(|d| d.is_error()).count();
    let warnings = diags.len() - errors;
    if printer.json {
        printer.json_out(&report(&shown, &diags, errors, warnings));
    } else {
        for diag in &diags {
            printer.diagnostic_with_source(diag, &text);
        }
        printer.note(summary(&shown, errors, warnings));
    }
    if errors > 0 && printer.json {
        // The JSON report says it; the error only sets the exit code.
        return Err(super::Reported("validation failed".to_string()).into());
    }
    if errors > 0 {
        // The diagnostics are already printed; the error only sets the exit code.
        bail!("validation failed");
    }
    Ok(())
}

/// The manifest to check: PATH itself, `PATH/dotpack.toml`, or the nearest `dotpack.toml` in
/// the current folder or its parents.
pub(crate) fn manifest_path(arg: Option<&Path>, cwd: &Path) -> Result<PathBuf> {
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

/// "dotpack.toml: 2 errors, 1 warning" or "dotpack.toml is valid".
fn summary(path: &Path, errors: usize, warnings: usize) -> String {
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
fn report(path: &Path, diags: &[Diagnostic], errors: usize, warnings: usize) -> serde_json::Value {
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
