//! Recovering a lock that git left with merge conflict markers (two branches each added a
//! package): each side is read on its own, packages and requirements are united (ours first),
//! and claims are united, keeping for each entry the claim that still matches the file. The
//! caller resolves again from the manifest, so the result only has to be a good starting point,
//! as yarn and pnpm treat a conflicted lockfile.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use crate::model::claims::Claim;
use crate::ui::diag::{Diagnostic, Diagnostics};
use crate::util::error::Error;

use super::Lockfile;

/// A lock read back from a conflicted file.
#[derive(Debug)]
pub struct Recovered {
    pub lock: Lockfile,
    /// How many conflicted regions the file had.
    pub conflicts: usize,
    /// Packages only one side had, united.
    pub united: Vec<String>,
    /// The claims either side held that a committed lock may not (see [`super::read`]).
    pub untrusted: super::Untrusted,
}

impl Recovered {
    /// What recovery did, for a warning.
    pub fn describe(&self, path: &Path) -> Error {
        Error::new(format!(
            "{} has {} git merge conflict{}; read both sides and united them ({} package{}, {} claim{}){}",
            path.display(),
            self.conflicts,
            if self.conflicts == 1 { "" } else { "s" },
            self.lock.packages.len(),
            if self.lock.packages.len() == 1 {
                ""
            } else {
                "s"
            },
            self.lock.claims.len(),
            if self.lock.claims.len() == 1 { "" } else { "s" },
            if self.united.is_empty() {
                String::new()
            } else {
                format!("; from one side only: {}", self.united.join(", "))
            }
        ))
        .help("the next command that writes (`dotpack merge` after a merge, or `dotpack lock`) resolves it again and writes it without markers")
        .file(path)
    }
}

/// Recovers a lock with merge conflict markers; `Ok(None)` when `text` has none. `matches` tells
/// whether a claim still matches its file: `Some(true)` when the entry is there with the hash the
/// claim recorded, `Some(false)` when it is there with other bytes, `None` when it is not there.
/// Where both sides claim one entry differently, the matching claim is kept; a claim only one
/// side has is kept while its entry is in the file (the merge took out the others' entries).
pub fn recover(
    path: &Path,
    text: &str,
    matches: &dyn Fn(&Claim) -> Option<bool>,
) -> Result<Option<Recovered>, Diagnostics> {
    if !crate::util::conflict::has_markers(text) {
        return Ok(None);
    }
    let Some(crate::util::conflict::Sides {
        ours,
        theirs,
        conflicts,
    }) = crate::util::conflict::sides(text)
    else {
        return Err(unreadable(
            path,
            "its merge conflict markers do not pair up",
        ));
    };
    let ((ours, theirs), untrusted) = match (super::read(path, &ours), super::read(path, &theirs)) {
        (Ok((o, u)), Ok((t, v))) => ((o, t), u.union(v)),
        (Ok((o, u)), Err(_)) => ((o.clone(), o), u),
        (Err(_), Ok((t, v))) => ((t.clone(), t), v),
        (Err(_), Err(_)) => {
            return Err(unreadable(
                path,
                "neither side of its merge conflict is a valid lock",
            ));
        }
    };
    let mut packages: BTreeMap<String, super::LockedPackage> = BTreeMap::new();
    let mut united = Vec::new();
    for p in &ours.packages {
        packages.insert(p.name.clone(), p.clone());
    }
    for p in &theirs.packages {
        if !packages.contains_key(&p.name) {
            united.push(p.name.clone());
            packages.insert(p.name.clone(), p.clone());
        }
    }
    for p in &ours.packages {
        if theirs.get(&p.name).is_none() {
            united.push(p.name.clone());
        }
    }
    united.sort();
    united.dedup();
    let mut requirements = theirs.requirements.clone();
    requirements.extend(ours.requirements.clone());
    let mut claims: BTreeMap<(String, String), Claim> = BTreeMap::new();
    for claim in theirs.claims.iter().chain(&ours.claims) {
        let key = (claim.file.clone(), claim.server.clone());
        match claims.get(&key) {
            Some(kept) if matches(kept) == Some(true) && matches(claim) != Some(true) => {}
            _ => {
                claims.insert(key, claim.clone());
            }
        }
    }
    let keys = |lock: &Lockfile| -> BTreeSet<(String, String)> {
        lock.claims
            .iter()
            .map(|c| (c.file.clone(), c.server.clone()))
            .collect()
    };
    let both: BTreeSet<_> = keys(&ours).intersection(&keys(&theirs)).cloned().collect();
    claims.retain(|key, claim| both.contains(key) || matches(claim).is_some());
    let lock = Lockfile {
        version: ours.version.max(theirs.version),
        requirements,
        packages: packages.into_values().collect(),
        claims: claims.into_values().collect(),
        // Resource files of either side; where both claim one, ours.
        files: theirs
            .files
            .iter()
            .chain(&ours.files)
            .map(|f| ((f.file.clone(), f.block.clone()), f.clone()))
            .collect::<BTreeMap<_, _>>()
            .into_values()
            .collect(),
        // Pins of either side; where both pinned a server, ours. `dotpack verify` checks them.
        tools: theirs
            .tools
            .clone()
            .into_iter()
            .chain(ours.tools.clone())
            .collect(),
    };
    Ok(Some(Recovered {
        lock,
        conflicts,
        united,
        untrusted,
    }))
}

fn unreadable(path: &Path, why: &str) -> Diagnostics {
    Diagnostics(vec![
        Diagnostic::error(
            "lock-conflict",
            path,
            format!("dotpack.lock cannot be recovered: {why}"),
        )
        .help("check out one side (`git checkout --ours dotpack.lock`), then run `dotpack lock`"),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEAD: &str = "# This file is automatically @generated by dotpack.\n# It is not intended for manual editing.\nversion = 1\n\n[manifest]\n";

    fn package(name: &str, version: &str) -> String {
        format!(
            "\n[[package]]\nname = \"{name}\"\nversion = \"{version}\"\nsource = \"registry+builtin\"\nchecksum = \"sha256:{}\"\ndependencies = []\nservers = [\"{name}\"]\n",
            "a".repeat(64)
        )
    }

    #[test]
    fn both_sides_packages_are_united() {
        let text = format!(
            "{HEAD}<<<<<<< HEAD\nfigma = \"^0.3\"\n=======\ntime = \"^0.2\"\n>>>>>>> branch\n{}<<<<<<< HEAD\n{}=======\n{}>>>>>>> branch\n",
            package("a", "1.0.0"),
            package("figma", "0.3.1"),
            package("time", "0.2.0"),
        );
        let r = recover(Path::new("dotpack.lock"), &text, &|_| Some(true))
            .unwrap()
            .unwrap();
        let names: Vec<&str> = r.lock.packages.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["a", "figma", "time"]);
        assert_eq!(r.lock.requirements.len(), 2);
        assert_eq!(r.conflicts, 2);
        assert_eq!(r.united, ["figma", "time"]);
    }

    #[test]
    fn no_markers_is_none_and_unpaired_markers_are_an_error() {
        assert!(
            recover(Path::new("l"), HEAD, &|_| Some(true))
                .unwrap()
                .is_none()
        );
        let err = recover(Path::new("l"), &format!("{HEAD}<<<<<<< HEAD\nx\n"), &|_| {
            Some(true)
        })
        .unwrap_err();
        assert!(err.to_string().contains("do not pair up"), "{err}");
    }
}
