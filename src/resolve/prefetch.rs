//! Reading a resolution's index files ahead, several at once.
//!
//! pubgrub asks for one package at a time and waits for each answer, which over HTTP costs one
//! round trip per package in a row. Before it starts, the index files it will most likely ask
//! for (the root requirements, then the dependencies of their matching versions, breadth first)
//! are fetched side by side, at most [`crate::util::fsutil::PAR_MAP_THREADS`] at a time; the registry
//! keeps what it read, so the resolver's own lookups are answered from memory. Only registries
//! that are remote are worth it. An error ends the resolution as the resolver would have.

use std::collections::BTreeSet;

use semver::VersionReq;

use super::provider::find;
use super::{RegistrySet, ResolveError, RootDep};

/// One package to read: its requirement, the registry a root requirement names, and the
/// registry of the package that depends on it.
struct Wanted {
    name: String,
    req: VersionReq,
    explicit: Option<String>,
    via: Option<String>,
}

/// Reads ahead the index files reachable from `root`. Returns how many were read, or the
/// first error (the resolver would meet it too; asking again would only repeat the request).
pub(super) fn prefetch(registries: &RegistrySet, root: &[RootDep]) -> Result<usize, ResolveError> {
    if !registries.all().iter().any(|r| r.is_remote()) {
        return Ok(0);
    }
    let mut seen: BTreeSet<(Option<String>, String)> = BTreeSet::new();
    let mut level: Vec<Wanted> = root
        .iter()
        .filter(|dep| seen.insert((dep.registry.clone(), dep.name.clone())))
        .map(|dep| Wanted {
            name: dep.name.clone(),
            req: dep.req.clone(),
            explicit: dep.registry.clone(),
            via: None,
        })
        .collect();
    let mut read = 0;
    while !level.is_empty() {
        // A registry's `config.json` is read once, by the first of these lookups (see
        // `HttpIndex`); the others wait for it, then run side by side.
        let found = crate::util::fsutil::par_map(&level, |w| {
            find(registries, &w.name, w.explicit.as_deref(), w.via.as_deref())
        });
        read += found.len();
        let mut next = Vec::new();
        for (wanted, result) in level.iter().zip(found) {
            let found = result?;
            let Some((registry, lines)) = found else {
                continue;
            };
            for line in lines
                .iter()
                .filter(|l| !l.yanked && wanted.req.matches(&l.vers))
            {
                for dep in &line.deps {
                    if seen.insert((registry.clone(), dep.name.clone())) {
                        next.push(Wanted {
                            name: dep.name.clone(),
                            req: dep.req.clone(),
                            explicit: None,
                            via: registry.clone(),
                        });
                    }
                }
            }
        }
        level = next;
    }
    tracing::debug!(index_files = read, "prefetched");
    Ok(read)
}
