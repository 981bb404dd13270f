//! Resolving a manifest into a lock, and what changed between two locks.

use std::collections::BTreeMap;

use anyhow::{Result, bail};
use semver::Version;

use crate::model::lock::Lockfile;
use crate::model::manifest::{DependencySpec, LoadedManifest, Manifest};
use crate::registry::{IndexLine, check_pin, package_of_line, pin_of};
use crate::resolve::{self, RegistrySet, ResolveOptions};

use super::registries::root_deps;
pub use crate::model::lock::changes::{Change, lock_changes};

/// Resolves `manifest` against `registries`, keeping `preferred` versions where they fit, and
/// checks what the new lock pins: every archive new to the lock is fetched, its sha256 verified
/// and its manifest checked against its index line, and no two packages may declare the same
/// server name.
///
/// A version kept from `old` (one of `preferred`, from the same source) keeps its checksum: when
/// the registry now lists another one for it, that is
/// [`crate::registry::RegistryError::LockedChecksumChanged`]. Only a package left out of
/// `preferred` (`dotpack update`) may take the registry's new checksum for the same version.
pub fn resolve_lock(
    manifest: &LoadedManifest,
    registries: &RegistrySet,
    preferred: BTreeMap<String, Version>,
    old: Option<&Lockfile>,
) -> Result<Lockfile> {
    let _phase = tracing::debug_span!("resolve").entered();
    let root = root_deps(manifest);
    let pinned = preferred.clone();
    let resolution = resolve::resolve(&root, registries, &ResolveOptions { preferred })?;
    tracing::debug!(
        roots = root.len(),
        packages = resolution.packages.len(),
        "resolved"
    );
    check_entries(
        &manifest.manifest,
        resolution.packages.iter().map(|p| &p.line),
    )?;
    let mut to_check = Vec::new();
    for pkg in &resolution.packages {
        let line = &pkg.line;
        let locked = old
            .and_then(|l| l.get(&line.name))
            .filter(|locked| locked.version == line.vers && locked.source == pkg.source);
        if let Some(locked) = locked {
            if pin_of(line).eq_ignore_ascii_case(&locked.checksum) {
                continue;
            }
            if pinned.get(&line.name) == Some(&locked.version) {
                check_pin(&pkg.source, line, &locked.checksum)?;
            }
        }
        let Some(source) = registries.by_source(&pkg.source) else {
            bail!(
                "no registry has source `{}` (needed for {})",
                pkg.source,
                line.name
            );
        };
        to_check.push((source, line));
    }
    // Each archive may be a download: a few at once. The first error in resolution order wins.
    crate::util::fsutil::par_map(&to_check, |(source, line)| {
        package_of_line(*source, line, None).map(|_| ())
    })
    .into_iter()
    .collect::<Result<(), _>>()?;
    Ok(resolution.to_lockfile(&root))
}

/// Two packages of one resolution whose servers have the same entry name would write the same
/// entry into every host file: that is an error before anything is written, naming the way out
/// (another entry name for one of them). An `entries` key that names no server of its package
/// is an error too, and so is one entry name given twice.
fn check_entries<'a>(
    manifest: &Manifest,
    lines: impl Iterator<Item = &'a IndexLine>,
) -> Result<()> {
    let mut owners: BTreeMap<String, &IndexLine> = BTreeMap::new();
    for line in lines {
        let chosen = manifest
            .dependencies
            .get(&line.name)
            .and_then(DependencySpec::entries);
        for server in chosen.into_iter().flat_map(|e| e.keys()) {
            if !line.servers.contains(server) {
                crate::bail_help!(
                    help = format!(
                        "its servers are: {}; name one of them in `entries`",
                        line.servers.join(", ")
                    ),
                    "dotpack.toml: `dependencies.{}.entries` names server `{server}`, which package `{}` {} does not declare",
                    crate::model::validate::segment(&line.name),
                    line.name,
                    line.vers
                );
            }
        }
        for server in &line.servers {
            let entry = manifest.entry_name(&line.name, server).to_string();
            if let Some(other) = owners.insert(entry.clone(), line) {
                let renamed = |name: &str| {
                    format!(
                        "`dotpack add {name} --as NEW-NAME` (or `entries = {{ {server} = \"NEW-NAME\" }}` on it in dotpack.toml)"
                    )
                };
                crate::bail_help!(
                    help = format!(
                        "give one of them another entry name in the hosts: {}, or remove one of them from dotpack.toml",
                        renamed(&line.name)
                    ),
                    "packages `{}` {} and `{}` {} would both write the entry `{entry}`",
                    other.name,
                    other.vers,
                    line.name,
                    line.vers
                );
            }
        }
    }
    Ok(())
}

/// Whether a lock still answers a manifest, judged without a registry (for `status`): every
/// requirement of `[dependencies]` is the one the lock was made for, and each is locked.
pub fn lock_is_fresh(manifest: &LoadedManifest, lock: &Lockfile) -> bool {
    let wanted: BTreeMap<String, String> = manifest
        .manifest
        .dependencies
        .iter()
        .map(|(name, spec)| (name.clone(), spec.req().to_string()))
        .collect();
    wanted == lock.requirements && wanted.keys().all(|name| lock.get(name).is_some())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::lock::LockedPackage;

    fn lock(packages: &[(&str, &str, &str)]) -> Lockfile {
        Lockfile {
            version: 1,
            requirements: BTreeMap::new(),
            packages: packages
                .iter()
                .map(|(name, version, checksum)| LockedPackage {
                    name: (*name).into(),
                    version: version.parse().unwrap(),
                    source: "registry+test".into(),
                    checksum: (*checksum).into(),
                    dependencies: vec![],
                    servers: vec![],
                    resources: vec![],
                })
                .collect(),
            claims: vec![],
            files: Vec::new(),
            tools: Default::default(),
        }
    }

    #[test]
    fn a_new_checksum_for_the_same_version_is_a_repin() {
        let old = lock(&[("a", "1.0.0", "sha256:aaaa"), ("b", "1.0.0", "sha256:bbbb")]);
        let new = lock(&[("a", "1.0.0", "sha256:cccc"), ("b", "1.1.0", "sha256:dddd")]);
        let changes = lock_changes(Some(&old), &new);
        assert_eq!(
            changes,
            [
                Change::Repinned {
                    name: "a".into(),
                    version: "1.0.0".parse().unwrap(),
                    from: "sha256:aaaa".into(),
                    to: "sha256:cccc".into(),
                },
                Change::Updated {
                    name: "b".into(),
                    from: "1.0.0".parse().unwrap(),
                    to: "1.1.0".parse().unwrap(),
                },
            ]
        );
        let record = changes[0].record();
        assert_eq!(record.change, "repinned");
        assert_eq!(record.from.as_deref(), Some("1.0.0 (sha256:aaaa)"));
        assert_eq!(record.to.as_deref(), Some("1.0.0 (sha256:cccc)"));
    }
}
