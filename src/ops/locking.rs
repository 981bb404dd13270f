//! Resolving a manifest into a lock, and what changed between two locks.

use std::collections::BTreeMap;

use anyhow::{Result, bail};
use semver::Version;

use crate::lock::Lockfile;
use crate::manifest::LoadedManifest;
use crate::output::Printer;
use crate::registry::IndexLine;
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
}

impl Change {
    /// The change as a generation records it.
    pub fn record(&self) -> crate::txn::PackageChange {
        let (name, change, from, to) = match self {
            Change::Added { name, version } => (name, "added", None, Some(version)),
            Change::Updated { name, from, to } => (name, "updated", Some(from), Some(to)),
            Change::Removed { name, version } => (name, "removed", Some(version), None),
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
        }
    }
}

/// The differences between `old` (if any) and `new`, in name order.
pub fn lock_changes(old: Option<&Lockfile>, new: &Lockfile) -> Vec<Change> {
    let old: BTreeMap<&str, &Version> = old
        .iter()
        .flat_map(|l| &l.packages)
        .map(|p| (p.name.as_str(), &p.version))
        .collect();
    let new_map: BTreeMap<&str, &Version> = new
        .packages
        .iter()
        .map(|p| (p.name.as_str(), &p.version))
        .collect();
    let mut changes = Vec::new();
    for (name, version) in &new_map {
        match old.get(name) {
            None => changes.push(Change::Added {
                name: name.to_string(),
                version: (*version).clone(),
            }),
            Some(from) if from != version => changes.push(Change::Updated {
                name: name.to_string(),
                from: (*from).clone(),
                to: (*version).clone(),
            }),
            Some(_) => {}
        }
    }
    for (name, version) in &old {
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
        | Change::Removed { name, .. } => name,
    }
}

/// Resolves `manifest` against `registries`, keeping `preferred` versions where they fit, and
/// checks what the new lock pins: every archive new to the lock is fetched and its sha256
/// verified, and no two packages may declare the same server name.
pub fn resolve_lock(
    manifest: &LoadedManifest,
    registries: &RegistrySet,
    preferred: BTreeMap<String, Version>,
    old: Option<&Lockfile>,
) -> Result<Lockfile> {
    let root = root_deps(manifest);
    let resolution = resolve::resolve(&root, registries, &ResolveOptions { preferred })?;
    check_server_names(resolution.packages.iter().map(|p| &p.line))?;
    for pkg in &resolution.packages {
        let already = old
            .and_then(|l| l.get(&pkg.line.name))
            .is_some_and(|locked| {
                locked.version == pkg.line.vers
                    && locked.checksum == format!("sha256:{}", pkg.line.cksum)
            });
        if !already {
            let Some(source) = registries.by_source(&pkg.source) else {
                bail!(
                    "no registry has source `{}` (needed for {})",
                    pkg.source,
                    pkg.line.name
                );
            };
            source.archive(&pkg.line)?;
        }
    }
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
