//! Content-addressed snapshots: each distinct file content is stored once, as
//! `<state>/objects/<sha256 hex>`, however many generations refer to it.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use sha2::{Digest, Sha256};

use crate::util::text::Text;

/// The sha256 of `bytes` as lower-case hex: the name of its snapshot.
pub fn hash(bytes: &[u8]) -> String {
    hex(Sha256::digest(bytes).into())
}

/// A sha256 digest as lower-case hex.
fn hex(digest: [u8; 32]) -> String {
    use std::fmt::Write;
    digest.iter().fold(String::with_capacity(64), |mut out, b| {
        let _ = write!(out, "{b:02x}");
        out
    })
}

/// Whether `name` can be a snapshot's name: 64 lower-case hex digits. Anything else (a `/`, a
/// `..`) is never joined to the store's folder.
pub fn is_hash(name: &str) -> bool {
    name.len() == 64 && name.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
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

    /// Stores each of `texts` unless a snapshot with the same content exists; returns their
    /// hashes in order. Each text's hash is its [`Text::digest`] (a large one computed on a thread
    /// of its own, unless it is ready); only the texts the store lacks are written, side by side,
    /// each flushed to disk. Call [`Store::sync`] once after a batch so the names survive too.
    pub fn put_all(&self, texts: &[&Text]) -> Result<Vec<String>> {
        self.ensure_real_dir(true)?;
        texts.iter().for_each(|t| t.digest_ahead(None));
        let ids: Vec<String> = texts.iter().map(|t| hex(t.digest())).collect();
        let mut missing: Vec<(&Text, &String)> = Vec::new();
        for (text, id) in texts.iter().zip(&ids) {
            if !missing.iter().any(|(_, m)| *m == id) && !self.dir.join(id).exists() {
                missing.push((text, id));
            }
        }
        let options = crate::util::fsutil::WriteOptions {
            sync_dir: false,
            ..crate::util::fsutil::WriteOptions::PRIVATE
        };
        crate::util::fsutil::par_map(&missing, |(text, id)| {
            let path = self.dir.join(id);
            crate::util::fsutil::write_atomic_with(&path, text.as_bytes(), options)
                .with_context(|| format!("cannot write snapshot {}", path.display()))
        })
        .into_iter()
        .collect::<Result<()>>()?;
        Ok(ids)
    }

    /// Flushes the folder's entries, so every snapshot put so far survives a power loss.
    pub fn sync(&self) {
        crate::util::fsutil::sync_dir(&self.dir);
    }

    /// The bytes of snapshot `id`, checked against their hash.
    pub fn get(&self, id: &str) -> Result<Vec<u8>> {
        if !is_hash(id) {
            bail!("`{id}` is not a snapshot name (64 lower-case hex digits)");
        }
        self.ensure_real_dir(false)?;
        let path = self.dir.join(id);
        let bytes = match crate::util::fence::read(&path, None, crate::util::fence::USER_FILE_CAP)
            .with_context(|| format!("cannot read snapshot {}", path.display()))?
        {
            Some(bytes) => bytes,
            None => bail!("snapshot {id} is missing from {}", self.dir.display()),
        };
        if hash(&bytes) != id {
            bail!(
                "snapshot {} is corrupt (its content does not match its name)",
                path.display()
            );
        }
        Ok(bytes)
    }

    /// Whether snapshot `id` is in the store (without reading it).
    pub fn contains(&self, id: &str) -> bool {
        is_hash(id)
            && std::fs::symlink_metadata(self.dir.join(id)).is_ok_and(|m| m.file_type().is_file())
    }

    /// Deletes every snapshot not in `keep`; returns how many were deleted and their bytes. Only
    /// regular files named like a snapshot are deleted, and only in a real folder: a symlinked
    /// `objects/` is refused, never followed.
    pub fn prune(&self, keep: &BTreeSet<String>) -> Result<(usize, u64)> {
        if !self.ensure_real_dir(false)? {
            return Ok((0, 0));
        }
        let entries = fs_err::read_dir(&self.dir)?;
        let (mut count, mut bytes) = (0, 0);
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if !is_hash(&name) || keep.contains(&name) {
                continue;
            }
            let Ok(meta) = std::fs::symlink_metadata(entry.path()) else {
                continue;
            };
            if !meta.file_type().is_file() {
                continue;
            }
            fs_err::remove_file(entry.path())?;
            count += 1;
            bytes += meta.len();
        }
        self.sync();
        Ok((count, bytes))
    }

    /// The snapshots not in `keep`, with their sizes: what [`Store::prune`] would delete (only
    /// regular files named like a snapshot, in a real `objects/` folder).
    pub fn unused(&self, keep: &BTreeSet<String>) -> Vec<(String, u64)> {
        if !self.ensure_real_dir(false).unwrap_or(false) {
            return Vec::new();
        }
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return Vec::new();
        };
        let mut out: Vec<(String, u64)> = entries
            .flatten()
            .filter_map(|e| {
                let name = e.file_name().to_string_lossy().into_owned();
                let meta = std::fs::symlink_metadata(e.path()).ok()?;
                (is_hash(&name) && meta.file_type().is_file()).then_some((name, meta.len()))
            })
            .filter(|(name, _)| !keep.contains(name))
            .collect();
        out.sort();
        out
    }

    /// Fails when `objects/` is anything but a real folder (a symlink is refused); `Ok(false)`
    /// when it does not exist and `create` is false.
    fn ensure_real_dir(&self, create: bool) -> Result<bool> {
        match std::fs::symlink_metadata(&self.dir) {
            Ok(meta) if meta.file_type().is_dir() => Ok(true),
            Ok(_) => crate::bail_help!(
                help = "run `dotpack doctor`",
                file = &self.dir,
                "{} is not a real folder (a symbolic link or a file); dotpack does not follow it",
                self.dir.display()
            ),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && create => {
                fs_err::create_dir_all(&self.dir)?;
                Ok(true)
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
            Err(e) => Err(e).with_context(|| format!("cannot read {}", self.dir.display())),
        }
    }

    /// How many snapshots the store holds.
    pub fn len(&self) -> usize {
        std::fs::read_dir(&self.dir)
            .map(|d| {
                d.flatten()
                    .filter(|e| is_hash(&e.file_name().to_string_lossy()))
                    .count()
            })
            .unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_content_is_stored_once_and_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::new(dir.path());
        let a = store.put_all(&[&Text::from("hello")]).unwrap().remove(0);
        let b = store.put_all(&[&Text::from("hello")]).unwrap().remove(0);
        assert_eq!(a, b);
        assert_eq!(store.len(), 1);
        assert_eq!(store.get(&a).unwrap(), b"hello");
        let (n, _) = store.prune(&BTreeSet::new()).unwrap();
        assert_eq!(n, 1);
        assert!(store.get(&a).is_err());
    }

    #[test]
    fn a_batch_names_each_text_in_order_and_writes_each_content_once() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::new(dir.path());
        let large = Text::from("{}".repeat(200_000));
        let (a, b) = (Text::from("a"), Text::from("b"));
        let ids = store.put_all(&[&a, &large, &b, &a]).unwrap();
        assert_eq!(
            ids,
            [hash(b"a"), hash(large.as_bytes()), hash(b"b"), hash(b"a")]
        );
        assert_eq!(store.len(), 3);
        assert_eq!(store.get(&ids[1]).unwrap(), large.as_bytes());
        // Stored already: named again, not written again (a write would be a new file).
        use std::os::unix::fs::MetadataExt;
        let inode = || {
            std::fs::metadata(dir.path().join("objects").join(&ids[0]))
                .unwrap()
                .ino()
        };
        let was = inode();
        assert_eq!(store.put_all(&[&a]).unwrap(), [hash(b"a")]);
        assert_eq!(inode(), was);
    }

    #[test]
    fn names_that_are_not_hashes_are_never_read_or_deleted() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::new(dir.path());
        store.put_all(&[&Text::from("x")]).unwrap();
        std::fs::write(dir.path().join("objects/notes.txt"), "mine").unwrap();
        assert!(store.get("../objects/notes.txt").is_err());
        assert!(store.get(&"A".repeat(64)).is_err());
        store.prune(&BTreeSet::new()).unwrap();
        assert!(dir.path().join("objects/notes.txt").exists());
    }

    #[test]
    fn a_symlinked_objects_folder_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let elsewhere = dir.path().join("elsewhere");
        std::fs::create_dir(&elsewhere).unwrap();
        let name = hash(b"victim");
        std::fs::write(elsewhere.join(&name), "victim").unwrap();
        let state = dir.path().join("state");
        std::fs::create_dir(&state).unwrap();
        std::os::unix::fs::symlink(&elsewhere, state.join("objects")).unwrap();
        let store = Store::new(&state);
        assert!(store.prune(&BTreeSet::new()).is_err());
        assert!(store.get(&name).is_err());
        assert!(elsewhere.join(&name).exists());
    }
}
