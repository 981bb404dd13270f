//! A published package's own manifest, read from its verified archive.

use anyhow::{Context, Result, bail};
use semver::Version;

use super::IndexSource;
use crate::manifest::Manifest;

/// Loads the manifest of `name` at `version` from `source`: the archive is fetched, checked
/// against the index's sha256, and its `dotpack.toml` parsed and validated.
pub fn load_package(source: &dyn IndexSource, name: &str, version: &Version) -> Result<Manifest> {
    let Some(lines) = source.versions(name)? else {
        bail!(
            "package `{name}` is not in the registry {}",
            source.source_id()
        );
    };
    let Some(line) = lines.iter().find(|l| &l.vers == version) else {
        bail!(
            "{name} {version} is not in the registry {}\n  help: run `dotpack update {name}` to pick a version that exists",
            source.source_id()
        );
    };
    let bytes = source.archive(line)?;
    let label = format!("{name}-{version}.tar.gz");
    let text = super::archive::package_manifest(&bytes, &label)?;
    let path = std::path::PathBuf::from(format!("{label}/dotpack.toml"));
    let loaded = crate::manifest::parse(&path, text)
        .with_context(|| format!("the manifest inside {label} is invalid"))?;
    Ok(loaded.manifest)
}
