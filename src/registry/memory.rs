//! An index held in memory, for tests and benchmarks.
//!
//! It behaves like an on-disk index (lines grouped per package, lookups by name) without any
//! I/O, so resolver tests can describe a registry in a few lines:
//!
//! ```ignore
//! use dotpack::registry::memory::MemoryIndex;
//! let index = MemoryIndex::builder("registry+test")
//!     .package("figma", "0.3.1", &[("node-runtime", "^1")])
//!     .package("node-runtime", "1.2.0", &[])
//!     .build();
//! ```

use std::collections::BTreeMap;
use std::sync::Arc;

use semver::{Version, VersionReq};

use super::{IndexDep, IndexLine, IndexSource, RegistryError};

/// An [`IndexSource`] over lines kept in memory. Archives are not available.
#[derive(Clone, Debug, Default)]
pub struct MemoryIndex {
    source_id: String,
    packages: BTreeMap<String, Arc<Vec<IndexLine>>>,
}

impl MemoryIndex {
    /// An index of `lines`, grouped by package name in the order given.
    pub fn new(source_id: impl Into<String>, lines: Vec<IndexLine>) -> Self {
        let mut grouped: BTreeMap<String, Vec<IndexLine>> = BTreeMap::new();
        for line in lines {
            grouped.entry(line.name.clone()).or_default().push(line);
        }
        MemoryIndex {
            source_id: source_id.into(),
            packages: grouped
                .into_iter()
                .map(|(name, lines)| (name, Arc::new(lines)))
                .collect(),
        }
    }

    /// Starts a [`MemoryIndexBuilder`].
    pub fn builder(source_id: impl Into<String>) -> MemoryIndexBuilder {
        MemoryIndexBuilder {
            source_id: source_id.into(),
            lines: Vec::new(),
        }
    }
}

impl IndexSource for MemoryIndex {
    fn source_id(&self) -> &str {
        &self.source_id
    }

    fn versions(&self, name: &str) -> Result<Option<Arc<Vec<IndexLine>>>, RegistryError> {
        Ok(self.packages.get(name).cloned())
    }

    fn names(&self) -> Result<Vec<String>, RegistryError> {
        Ok(self.packages.keys().cloned().collect())
    }

    fn archive(&self, line: &IndexLine) -> Result<Vec<u8>, RegistryError> {
        Err(RegistryError::MissingArchive {
            name: line.name.clone(),
            version: line.vers.to_string(),
            file: format!("memory index {}", self.source_id),
        })
    }
}

/// Builds a [`MemoryIndex`] one version at a time. Versions and requirements are given as
/// strings because that is how tests read best; a malformed one is a bug in the test, so the
/// builder panics on it (it is never fed user input).
#[derive(Clone, Debug)]
pub struct MemoryIndexBuilder {
    source_id: String,
    lines: Vec<IndexLine>,
}

impl MemoryIndexBuilder {
    /// Adds `name`@`version` depending on `deps` (`(name, requirement)` pairs).
    pub fn package(mut self, name: &str, version: &str, deps: &[(&str, &str)]) -> Self {
        self.lines.push(line(name, version, deps));
        self
    }

    /// Adds a yanked version.
    pub fn yanked(mut self, name: &str, version: &str, deps: &[(&str, &str)]) -> Self {
        let mut line = line(name, version, deps);
        line.yanked = true;
        self.lines.push(line);
        self
    }

    pub fn build(self) -> MemoryIndex {
        MemoryIndex::new(self.source_id, self.lines)
    }
}

/// A plausible index line: the checksum is derived from name and version so it is stable, and
/// the package declares one server named after itself.
#[allow(clippy::panic)]
pub fn line(name: &str, version: &str, deps: &[(&str, &str)]) -> IndexLine {
    let vers = Version::parse(version)
        .unwrap_or_else(|e| panic!("test index: bad version {version:?}: {e}"));
    let deps = deps
        .iter()
        .map(|(dep, req)| IndexDep {
            name: (*dep).to_string(),
            req: VersionReq::parse(req)
                .unwrap_or_else(|e| panic!("test index: bad requirement {req:?}: {e}")),
        })
        .collect();
    IndexLine {
        resources: Vec::new(),
        name: name.to_string(),
        cksum: fake_checksum(name, &vers),
        vers,
        deps,
        yanked: false,
        servers: vec![name.to_string()],
        description: None,
        keywords: Vec::new(),
        v: 1,
    }
}

/// 64 lowercase hex digits that depend only on the name and version.
fn fake_checksum(name: &str, version: &Version) -> String {
    use sha2::{Digest, Sha256};
    let digest = Sha256::digest(format!("{name}@{version}").as_bytes());
    digest.iter().map(|b| format!("{b:02x}")).collect()
}
