//! `dotpack publish`: make a package available in a registry folder (served as static files),
//! or describe it as a server.json document for the official MCP Registry.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use clap::Args;
use serde_json::json;

use crate::ops::Settings;
use crate::ops::publish::{build_error, index_folder, package_manifest};
use crate::registry::publish;
use crate::ui::diag::display_path;
use crate::ui::printer::Printer;

#[derive(Debug, Args, Clone)]
pub struct PublishArgs {
    /// The registry folder to publish into (created when missing). Default: --registry or
    /// DOTPACK_REGISTRY when it is a folder
    #[arg(long, value_name = "DIR", conflicts_with = "server_json")]
    pub index: Option<PathBuf>,
    /// Instead of publishing, print the package as a server.json document for the official MCP
    /// Registry (schema 2025-12-11)
    #[arg(long)]
    pub server_json: bool,
    /// With --server-json: write the document to FILE instead of stdout
    #[arg(long, value_name = "FILE", requires = "server_json")]
    pub out: Option<PathBuf>,
    /// With --server-json: the registry name, NAMESPACE/NAME (default: io.github.OWNER/NAME
    /// from a GitHub `repository` in [package])
    #[arg(long, value_name = "NAMESPACE/NAME", requires = "server_json")]
    pub name: Option<String>,
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
