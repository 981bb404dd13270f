//! Resolving a manifest into a lock, and what changed between two locks.

use std::collections::BTreeMap;

use anyhow::{Result, bail};
use semver::Version;

use crate::lock::Lockfile;
use crate::manifest::LoadedManifest;
use crate::output::Printer;
use crate::registry::{IndexLine, check_pin, package_of_line, pin_of};
use crate::resolve::{self, RegistrySet, ResolveOptions};

use super::registries::root_deps;

/// One package's change between two locks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Change {
    Added {
        name: String,
        version: Version,
    },
    Updated {
        name: String,
        from: Version,
        to: Version,
    },
    Removed {
        name: String,
        version: Version,
    },
    /// Same version, new archive: the registry republished it and `dotpack update` took it.
    Repinned {
        name: String,
        version: Version,
        from: String,
        to: String,
    },
}

impl Change {
    /// The change as a generation records it.
    pub fn record(&self) -> crate::txn::PackageChange {
        let (name, change, from, to) = match self {
            Change::Added { name, version } => (name, "added", None, Some(version)),
            Change::Updated { name, from, to } => (name, "updated", Some(from), Some(to)),
            Change::Removed { name, version } => (name, "removed", Some(version), None),
            Change::Repinned {
                name,
                version,
                from,
                to,
            } => {
                return crate::txn::PackageChange {
                    name: name.clone(),
                    change: "repinned".to_string(),
                    from: Some(format!("{version} ({})", short(from))),
                    to: Some(format!("{version} ({})", short(to))),
                };
            }
        };
        crate::txn::PackageChange {
            name: name.clone(),
            change: change.to_string(),
            from: from.map(ToString::to_string),
            to: to.map(ToString::to_string),
        }
    }

    /// The line `--dry-run` prints: "Would add figma v0.3.1".
    pub fn print_would(&self, printer: &Printer) {
        let what = match self {
            Change::Added { name, version } => format!("add {name} v{version}"),
            Change::Updated { name, from, to } => format!("update {name} v{from} -> v{to}"),
            Change::Removed { name, version } => format!("remove {name} v{version}"),
            Change::Repinned {
                name,
                version,
                from,
                to,
            } => format!("pin the registry's new archive of {name} v{version} ({from} -> {to})"),
        };
        printer.status("Would", what);
    }

    pub fn print(&self, printer: &Printer) {
        match self {
            Change::Added { name, version } => {
                printer.status("Adding", format!("{name} v{version}"))
            }
            Change::Updated { name, from, to } => {
                let verb = if to > from { "Updating" } else { "Downgrading" };
                printer.status(verb, format!("{name} v{from} -> v{to}"))
            }
            Change::Removed { name, version } => {
                printer.status("Removing", format!("{name} v{version}"))
            }
            Change::Repinned {
                name,
                version,
                from,
                to,
            } => printer.warning(format!(
                "the registry's archive of {name} v{version} changed since it was locked ({from} -> {to}); dotpack.lock now pins the new one"
            )),
        }
    }
}

/// `sha256:` and the first 12 hex digits, enough to tell two archives apart in a summary.
fn short(checksum: &str) -> &str {
    checksum.get(..19).unwrap_or(checksum)
}

/// The differences between `old` (if any) and `new`, in name order.
pub fn lock_changes(old: Option<&Lockfile>, new: &Lockfile) -> Vec<Change> {
    let old: BTreeMap<&str, (&Version, &str)> = old
        .iter()
        .flat_map(|l| &l.packages)
        .map(|p| (p.name.as_str(), (&p.version, p.checksum.as_str())))
        .collect();
    let new_map: BTreeMap<&str, (&Version, &str)> = new
        .packages
        .iter()
        .map(|p| (p.name.as_str(), (&p.version, p.checksum.as_str())))
        .collect();
    let mut changes = Vec::new();
    for (name, (version, checksum)) in &new_map {
        match old.get(name) {
            None => changes.push(Change::Added {
                name: name.to_string(),
                version: (*version).clone(),
            }),
            Some((from, _)) if from != version => changes.push(Change::Updated {
                name: name.to_string(),
                from: (*from).clone(),
                to: (*version).clone(),
            }),
            Some((_, was)) if was != checksum => changes.push(Change::Repinned {
                name: name.to_string(),
                version: (*version).clone(),
                from: was.to_string(),
                to: checksum.to_string(),
            }),
            Some(_) => {}
        }
    }
    for (name, (version, _)) in &old {
        if !new_map.contains_key(name) {
            changes.push(Change::Removed {
                name: name.to_string(),
                version: (*version).clone(),
            });
        }
    }
    changes.sort_by(|a, b| change_name(a).cmp(change_name(b)));
    changes
}

fn change_name(c: &Change) -> &str {
    match c {
        Change::Added { name, .. }
        | Change::Updated { name, .. }
        | Change::Removed { name, .. }
        | Change::Repinned { name, .. } => name,
    }
}

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
    check_server_names(resolution.packages.iter().map(|p| &p.line))?;
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
    crate::fsutil::par_map(&to_check, |(source, line)| {
        package_of_line(*source, line, None).map(|_| ())
    })
    .into_iter()
    .collect::<Result<(), _>>()?;
    Ok(resolution.to_lockfile(&root))
}

/// Two packages of one resolution declaring the same server would write the same entry into
/// every host file: that is an error before anything is written.
fn check_server_names<'a>(lines: impl Iterator<Item = &'a IndexLine>) -> Result<()> {
    let mut owners: BTreeMap<&str, &IndexLine> = BTreeMap::new();
    for line in lines {
        for server in &line.servers {
            if let Some(other) = owners.insert(server, line) {
                bail!(
                    "packages `{}` {} and `{}` {} both declare a server named `{server}`\n  help: remove one of them from dotpack.toml",
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
    use crate::lock::LockedPackage;

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
