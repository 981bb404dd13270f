//! `dotpack validate [PATH]`: print every problem of a manifest; exit 1 on errors.

use std::path::{Path, PathBuf};

use anyhow::{Result, bail};
use clap::Args;

use crate::ops::Settings;

use crate::ops::validate::{manifest_path, report, summary};
use crate::ui::diag::display_path;
use crate::ui::printer::Printer;

#[derive(Debug, Args, Clone)]
pub struct ValidateArgs {
    /// A dotpack.toml, or a folder holding one (default: the project's)
    pub path: Option<PathBuf>,
}

pub fn run(settings: &Settings, args: ValidateArgs, printer: &Printer) -> Result<()> {
    let path = match (&args.path, &settings.manifest_path, settings.global) {
        (None, None, true) => settings.global_manifest(),
        (None, Some(path), _) => manifest_path(Some(path), &settings.cwd)?,
        (path, _, _) => manifest_path(path.as_deref(), &settings.cwd)?,
    };
    let shown = PathBuf::from(display_path(&path));
    // The user-level manifest is the user's own; any other stays in its folder.
    let fence = (path != settings.global_manifest())
        .then(|| crate::util::fence::Fence::project(path.parent().unwrap_or(Path::new("."))));
    let Some(text) =
        crate::util::fence::read_text(&path, fence.as_ref(), crate::util::fence::PROJECT_FILE_CAP)?
    else {
        anyhow::bail!("{} does not exist", display_path(&path));
    };
    let mut diags = crate::model::validate::check_manifest(&shown, &text);
    // The files the manifest's resources name: only once the manifest itself is valid.
    if !diags.iter().any(|d| d.is_error())
        && let Ok(loaded) = crate::model::manifest::parse(&shown, text.clone())
    {
        let root = path.parent().unwrap_or(Path::new("."));
        diags.extend(crate::model::manifest::resource_file_diagnostics(
            root, &loaded,
        ));
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
