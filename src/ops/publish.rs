//! What `dotpack package`, `publish` and `yank` share: the package's manifest, the registry
//! folder they write, and how a build error travels.

use std::path::{Path, PathBuf};

use anyhow::Result;

use crate::registry::build::BuildError;

use super::Settings;

/// The `dotpack.toml` of the package in the current folder (or `--manifest-path`).
pub fn package_manifest(settings: &Settings) -> Result<PathBuf> {
    super::validate::manifest_path(settings.manifest_path.as_deref(), &settings.cwd)
}

/// The registry folder: `--index`, else `--registry` or `DOTPACK_REGISTRY` when it is a folder.
pub fn index_folder(settings: &Settings, flag: Option<&Path>, command: &str) -> Result<PathBuf> {
    if let Some(dir) = flag {
        return Ok(settings.cwd.join(dir));
    }
    let location = settings
        .registry_flag
        .as_ref()
        .or(settings.registry_env.as_ref());
    match location {
        Some(location) if !crate::urls::has_scheme(location) => Ok(settings.cwd.join(location)),
        Some(url) => crate::bail_help!(
            help = "run it where the folder is and pass `--index DIR`, then upload the folder to the web server",
            "`{url}` is a URL; `dotpack {command}` writes a registry folder"
        ),
        None => Err(crate::util::error::Error::usage(format!(
            "`dotpack {command}` needs the registry folder: pass --index DIR"
        ))
        .into()),
    }
}

/// Manifest diagnostics travel as themselves, so they are printed with their source excerpt.
pub fn build_error(err: BuildError) -> anyhow::Error {
    match err {
        BuildError::Manifest(diags) => anyhow::Error::from(diags),
        other => anyhow::Error::from(other),
    }
}

/// The package at `manifest` as an MCP Registry `server.json` (named `name` when given).
pub fn server_json(manifest: &Path, name: Option<&str>) -> Result<String> {
    let loaded = crate::model::manifest::load_in(
        manifest,
        Some(&crate::util::fence::Fence::package(
            manifest.parent().unwrap_or(Path::new(".")),
        )),
    )?;
    let doc =
        crate::registry::server_json::to_server_json(&loaded.manifest, name).map_err(|e| {
            anyhow::anyhow!(
                "{}: cannot be published as a server.json: {e}",
                crate::ui::diag::display_path(manifest)
            )
        })?;
    let text = serde_json::to_string_pretty(&doc)? + "\n";
    Ok(text)
}
