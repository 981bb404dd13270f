//! What a registry says of the versions a lock pins after they were locked: a version it no
//! longer offers (deleted by moderation, withdrawn, or one dotpack now refuses) is named with
//! the registry's reason, an error under `--locked`; a version it marks deprecated is warned
//! about wherever it is locked, with the registry's message; a newly locked version that starts
//! a package the lock cannot pin (`NAME@latest`) is warned about once.

use std::collections::BTreeMap;

use semver::Version;

use crate::model::lock::{LockedPackage, Lockfile};
use crate::registry::IndexSource;
use crate::resolve::RegistrySet;
use crate::util::error::Error;

/// A version `dotpack.lock` pins that its registry no longer offers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Gone {
    pub name: String,
    pub version: Version,
    /// What the registry (or dotpack's refusal) says; `None` when it gives no reason.
    pub reason: Option<String>,
    /// The version locked instead, when resolution found one.
    pub instead: Option<Version>,
}

impl Gone {
    fn what(&self) -> String {
        let (name, version) = (&self.name, &self.version);
        match &self.reason {
            Some(reason) => format!(
                "`{name}` {version}, which dotpack.lock pins, cannot be installed any more: {reason}"
            ),
            None => format!(
                "`{name}` {version}, which dotpack.lock pins, is no longer offered by its registry"
            ),
        }
    }

    /// The error `--locked` gives: the lock cannot be reproduced, and the user must choose.
    pub fn error(&self) -> Error {
        Error::new(self.what()).help(format!(
            "run `dotpack update {}` (without --locked) to lock a version the registry still offers, then commit dotpack.lock",
            self.name
        ))
    }

    /// The warning a command that may re-lock gives, naming the version it locked instead.
    pub fn warning(&self) -> String {
        match &self.instead {
            Some(instead) => format!("{}; locked {instead} instead", self.what()),
            None => self.what(),
        }
    }
}

/// The versions of `pinned` (the locked versions resolution was asked to keep) that their
/// registry in `old` no longer offers, for the packages `new` still locks at another version
/// (every one of `pinned` when resolution failed: `new` is `None`). Asks only about packages
/// whose version moved, so an unchanged lock costs nothing.
pub fn gone_versions(
    registries: &RegistrySet,
    pinned: &BTreeMap<String, Version>,
    old: Option<&Lockfile>,
    new: Option<&Lockfile>,
) -> Vec<Gone> {
    let mut out = Vec::new();
    for (name, version) in pinned {
        let instead = match new.map(|lock| lock.get(name)) {
            Some(None) => continue, // no longer declared
            Some(Some(now)) if now.version == *version => continue,
            Some(Some(now)) => Some(now.version.clone()),
            None => None,
        };
        let Some(source) = old
            .and_then(|lock| lock.get(name))
            .and_then(|locked| registries.by_source(&locked.source))
        else {
            continue;
        };
        let offered = match source.versions(name) {
            Ok(Some(lines)) => lines.iter().any(|l| l.vers == *version),
            Ok(None) => false,
            Err(_) => continue, // the registry's own error is reported where it was asked
        };
        if offered {
            continue;
        }
        out.push(Gone {
            name: name.clone(),
            version: version.clone(),
            reason: source.gone(name, version),
            instead,
        });
    }
    out
}

/// One warning per package `lock` pins at a version its registry marks deprecated.
pub fn deprecations(registries: &RegistrySet, lock: &Lockfile) -> Vec<String> {
    said_of(registries, lock.packages.iter(), |source, locked| {
        source.deprecation(&locked.name, &locked.version)
    })
}

/// One warning per package `lock` newly pins (absent from `old`, or at another version) whose
/// registry says it starts something the lock cannot pin.
pub fn floating(registries: &RegistrySet, lock: &Lockfile, old: Option<&Lockfile>) -> Vec<String> {
    let newly = lock.packages.iter().filter(|locked| {
        old.and_then(|o| o.get(&locked.name))
            .is_none_or(|before| before.version != locked.version)
    });
    said_of(registries, newly, |source, locked| {
        source.floating(&locked.name, &locked.version)
    })
}

/// `` `NAME` VERSION: `` and what `say` gets from each package's registry, for `packages`.
fn said_of<'a>(
    registries: &RegistrySet,
    packages: impl Iterator<Item = &'a LockedPackage>,
    say: impl Fn(&dyn IndexSource, &LockedPackage) -> Option<String>,
) -> Vec<String> {
    packages
        .filter_map(|locked| {
            let source = registries.by_source(&locked.source)?;
            let why = say(source, locked)?;
            Some(format!("`{}` {}: {why}", locked.name, locked.version))
        })
        .collect()
}
