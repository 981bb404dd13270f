//! `dotpack package`, `dotpack publish` and `dotpack yank`: make a package available in a
//! registry folder (served as static files), or describe it for the official MCP Registry.

use std::path::Path;

use anyhow::{Context, Result};
use serde_json::json;

use crate::commands::args::{PackageArgs, PublishArgs, YankArgs};
use crate::ops::Settings;
use crate::registry::publish::{self, YankOutcome};
use crate::ui::diag::display_path;
use crate::ui::printer::Printer;

use crate::ops::UsageError;
use crate::ops::publish::{build_error, index_folder, package_manifest};

/// The folder `package` writes into when `--out` is not given: hidden, so packing never
/// includes an earlier archive.
const PACKAGE_DIR: &str = ".dotpack-package";

pub fn package(settings: &Settings, args: &PackageArgs, printer: &Printer) -> Result<()> {
    let manifest = package_manifest(settings)?;
    let packed = publish::package(&manifest).map_err(build_error)?;
    // The default folder is inside the package folder, which may have come with a clone: the
    // archive is never written through a link out of it.
    let (dir, fence) = match &args.out {
        Some(dir) => {
            let dir = settings.cwd.join(dir);
            let fence = crate::util::fence::Fence::new(&dir, "the output folder");
            (dir, fence)
        }
        None => {
            let root = manifest.parent().unwrap_or(Path::new("."));
            (
                root.join(PACKAGE_DIR),
                crate::util::fence::Fence::package(root),
            )
        }
    };
    let path = dir.join(packed.file_name());
    crate::util::fence::write_atomic(
        &path,
        &packed.archive,
        &fence,
        crate::util::fsutil::WriteOptions::SHARED,
    )?;
    if printer.json {
        printer.json_out(&json!({
            "name": packed.name,
            "version": packed.version.to_string(),
            "path": display_path(&path),
            "sha256": packed.sha256,
            "bytes": packed.archive.len(),
        }));
    } else {
        printer.status(
            "Packaged",
            format!(
                "{} {} ({} bytes)",
                packed.name,
                packed.version,
                packed.archive.len()
            ),
        );
        printer.out(format!("{}\nsha256:{}", display_path(&path), packed.sha256));
    }
    Ok(())
}

pub fn publish(settings: &Settings, args: &PublishArgs, printer: &Printer) -> Result<()> {
    let manifest = package_manifest(settings)?;
    if args.server_json {
        return server_json(settings, &manifest, args, printer);
    }
    let index = index_folder(settings, args.index.as_deref(), "publish")?;
    let (line, report) = publish::publish(&manifest, &index).map_err(build_error)?;
    if printer.json {
        printer.json_out(&json!({
            "name": line.name,
            "version": line.vers.to_string(),
            "sha256": line.cksum,
            "index": display_path(&index),
            "files": report.changed_files.iter().map(|p| display_path(p)).collect::<Vec<_>>(),
        }));
    } else {
        printer.status(
            "Published",
            format!("{} {} to {}", line.name, line.vers, display_path(&index)),
        );
        printer.out(format!("sha256:{}", line.cksum));
    }
    Ok(())
}

fn server_json(
    settings: &Settings,
    manifest: &Path,
    args: &PublishArgs,
    printer: &Printer,
) -> Result<()> {
    let text = crate::ops::publish::server_json(manifest, args.name.as_deref())?;
    match &args.out {
        Some(out) => {
            let path = settings.cwd.join(out);
            crate::util::fsutil::write_atomic(&path, text.as_bytes())
                .with_context(|| format!("cannot write {}", display_path(&path)))?;
            printer.status("Wrote", display_path(&path));
        }
        None => printer.data_out(text.trim_end()),
    }
    Ok(())
}

pub fn yank(settings: &Settings, args: &YankArgs, printer: &Printer) -> Result<()> {
    let Some((name, version)) = args.package.split_once('@') else {
        return Err(UsageError(format!(
            "`{}` names no version: write NAME@VERSION, like figma@0.3.1",
            args.package
        ))
        .into());
    };
    let version: semver::Version = version.trim_start_matches('=').parse().map_err(|e| {
        UsageError(format!(
            "`{version}` in `{}` is not a version ({e}): write NAME@VERSION, like figma@0.3.1",
            args.package
        ))
    })?;
    let index = index_folder(settings, args.index.as_deref(), "yank")?;
    let outcome = publish::yank(&index, name, &version, !args.undo).map_err(build_error)?;
    let (verb, state) = if args.undo {
        ("Unyanked", "not yanked")
    } else {
        ("Yanked", "already yanked")
    };
    match outcome {
        YankOutcome::Changed(_) => printer.status(verb, format!("{name} {version}")),
        YankOutcome::Unchanged => {
            printer.note(format!("{name} {version} is {state}; nothing to do"))
        }
    }
    Ok(())
}
