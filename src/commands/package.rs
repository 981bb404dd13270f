//! `dotpack package`: the package in the current folder as a `.tar.gz` archive, as a registry
//! folder serves it.

use std::path::{Path, PathBuf};

use anyhow::Result;
use clap::Args;
use serde_json::json;

use crate::ops::Settings;
use crate::ops::publish::{build_error, package_manifest};
use crate::registry::publish;
use crate::ui::diag::display_path;
use crate::ui::printer::Printer;

#[derive(Debug, Args, Clone)]
pub struct PackageArgs {
    /// Folder to write NAME-VERSION.tar.gz into (default: .dotpack-package in the package's
    /// folder; a hidden folder is never packed itself)
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
}

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
