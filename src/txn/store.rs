//! Content-addressed snapshots: each distinct file content is stored once, as
//! `<state>/objects/<sha256 hex>`, however many generations refer to it.

use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use sha2::{Digest, Sha256};

/// The sha256 of `bytes` as lower-case hex: the name of its snapshot.
pub fn hash(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The snapshot store of one state folder.
pub struct Store {
    dir: PathBuf,
}

impl Store {
    pub fn new(state: &Path) -> Store {
        Store {
            dir: state.join("objects"),
        }
    }

    /// Stores `bytes` unless a snapshot with the same content exists; returns its hash. The file
    /// is flushed to disk; call [`Store::sync`] once after a batch so the names survive too.
    pub fn put(&self, bytes: &[u8]) -> Result<String> {
        let id = hash(bytes);
        let path = self.dir.join(&id);
        if path.exists() {
            return Ok(id);
        }
        fs_err::create_dir_all(&self.dir)?;
        let mut tmp = tempfile::Builder::new()
            .prefix(".tmp-")
            .tempfile_in(&self.dir)
            .with_context(|| format!("cannot write a snapshot in {}", self.dir.display()))?;
        tmp.write_all(bytes)
            .and_then(|()| tmp.as_file().sync_all())
            .with_context(|| format!("cannot write snapshot {}", path.display()))?;
        tmp.persist(&path)
            .map_err(|e| e.error)
            .with_context(|| format!("cannot write snapshot {}", path.display()))?;
        Ok(id)
    }

    /// Flushes the folder's entries, so every snapshot put so far survives a power loss.
    pub fn sync(&self) {
        crate::fsutil::sync_dir(&self.dir);
    }

    /// The bytes of snapshot `id`, checked against their hash.
    pub fn get(&self, id: &str) -> Result<Vec<u8>> {
        let path = self.dir.join(id);
        let bytes = fs_err::read(&path)
            .with_context(|| format!("snapshot {id} is missing from {}", self.dir.display()))?;
        anyhow::ensure!(
            hash(&bytes) == id,
            "snapshot {} is corrupt (its content does not match its name)",
            path.display()
        );
        Ok(bytes)
    }

    /// Deletes every snapshot not in `keep`; returns how many were deleted and their bytes.
    pub fn prune(&self, keep: &BTreeSet<String>) -> Result<(usize, u64)> {
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return Ok((0, 0));
        };
        let (mut count, mut bytes) = (0, 0);
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if keep.contains(&name) {
                continue;
            }
            let size = entry.metadata().map(|m| m.len()).unwrap_or(0);
            fs_err::remove_file(entry.path())?;
            count += 1;
            bytes += size;
        }
        self.sync();
        Ok((count, bytes))
    }

    /// The snapshots not in `keep`, with their sizes: what [`Store::prune`] would delete.
    pub fn unused(&self, keep: &BTreeSet<String>) -> Vec<(String, u64)> {
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return Vec::new();
        };
        let mut out: Vec<(String, u64)> = entries
            .flatten()
            .map(|e| {
                let name = e.file_name().to_string_lossy().into_owned();
                (name, e.metadata().map(|m| m.len()).unwrap_or(0))
            })
            .filter(|(name, _)| !keep.contains(name))
            .collect();
        out.sort();
        out
    }

    /// How many snapshots the store holds.
    pub fn len(&self) -> usize {
        std::fs::read_dir(&self.dir)
            .map(|d| d.flatten().count())
            .unwrap_or(0)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_content_is_stored_once_and_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::new(dir.path());
        let a = store.put(b"hello").unwrap();
        let b = store.put(b"hello").unwrap();
        assert_eq!(a, b);
        assert_eq!(store.len(), 1);
        assert_eq!(store.get(&a).unwrap(), b"hello");
        let (n, _) = store.prune(&BTreeSet::new()).unwrap();
        assert_eq!(n, 1);
        assert!(store.get(&a).is_err());
    }
}
