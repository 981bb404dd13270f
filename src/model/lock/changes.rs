//! What changed between two locks, package by package: what `install` and `update` print and
//! what a generation records.

use std::collections::BTreeMap;

use semver::Version;

use super::Lockfile;
use crate::ui::printer::Printer;

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
pub(crate) fn short(checksum: &str) -> &str {
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
