//! A registry index in a local directory (`--registry PATH`, `[registries] x = { path = ... }`).

use std::borrow::Cow;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::sparse::{FileStore, SparseIndex, read_config};
use super::{IndexLine, IndexSource, RegistryError};

/// An index read from a folder with the layout `registry build` writes. Opening reads only
/// `config.json`; each package's file is read the first time it is asked for.
pub struct DirIndex {
    inner: SparseIndex<DiskFiles>,
}

impl DirIndex {
    /// Opens the index at `root`. A folder without a valid `config.json` is refused with an error
    /// naming the file, so a mistyped `--registry` path is caught before any lookup.
    pub fn open(root: &Path, source_id: impl Into<String>) -> Result<DirIndex, RegistryError> {
        let files = DiskFiles {
            root: root.to_path_buf(),
            fence: crate::util::fence::Fence::registry(root),
        };
        let config = read_config(&files)?;
        Ok(DirIndex {
            inner: SparseIndex::new(files, source_id.into(), config),
        })
    }
}

impl IndexSource for DirIndex {
    fn source_id(&self) -> &str {
        self.inner.source_id()
    }

    fn versions(&self, name: &str) -> Result<Option<Arc<Vec<IndexLine>>>, RegistryError> {
        self.inner.versions(name)
    }

    fn names(&self) -> Result<Vec<String>, RegistryError> {
        self.inner.names()
    }

    fn archive(&self, line: &IndexLine) -> Result<Vec<u8>, RegistryError> {
        self.inner.archive(line)
    }
}

struct DiskFiles {
    root: PathBuf,
    /// A registry folder is someone else's: no link in it is followed out of it.
    fence: crate::util::fence::Fence,
}

impl DiskFiles {
    fn path(&self, rel: &str) -> PathBuf {
        rel.split('/')
            .fold(self.root.clone(), |path, part| path.join(part))
    }

    fn io_error(&self, rel: &str, e: &io::Error) -> RegistryError {
        RegistryError::Io {
            path: self.label(rel),
            reason: e.to_string(),
        }
    }
}

impl FileStore for DiskFiles {
    fn read(&self, rel: &str) -> Result<Option<Cow<'_, [u8]>>, RegistryError> {
        let path = self.path(rel);
        crate::util::fence::read(
            &path,
            Some(&self.fence),
            crate::util::fence::REGISTRY_FILE_CAP,
        )
        .map(|bytes| bytes.map(Cow::Owned))
        .map_err(|e| RegistryError::Other(format!("{e:#}")))
    }

    fn list(&self) -> Result<Vec<String>, RegistryError> {
        let mut out = Vec::new();
        let mut stack = vec![String::new()];
        while let Some(rel) = stack.pop() {
            let dir = if rel.is_empty() {
                self.root.clone()
            } else {
                self.path(&rel)
            };
            let entries = std::fs::read_dir(&dir).map_err(|e| self.io_error(&rel, &e))?;
            for entry in entries {
                let entry = entry.map_err(|e| self.io_error(&rel, &e))?;
                let Some(name) = entry.file_name().to_str().map(str::to_string) else {
                    continue;
                };
                if name.starts_with('.') {
                    continue;
                }
                let child = if rel.is_empty() {
                    name
                } else {
                    format!("{rel}/{name}")
                };
                match entry.file_type() {
                    Ok(kind) if kind.is_dir() => stack.push(child),
                    Ok(kind) if kind.is_file() => out.push(child),
                    _ => {}
                }
            }
        }
        Ok(out)
    }

    fn label(&self, rel: &str) -> String {
        self.path(rel).display().to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::archive::sha256_hex;

    const ARCHIVE: &[u8] = b"pretend this is a tar.gz";

    fn line(name: &str, vers: &str, cksum: &str) -> String {
        format!(r#"{{"name":"{name}","vers":"{vers}","cksum":"{cksum}"}}"#)
    }

    /// An index with `figma` 0.3.0 (archive present, right checksum) and 0.3.1 (no archive).
    fn index() -> (tempfile::TempDir, DirIndex) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(
            root.join("config.json"),
            r#"{"v":1,"dl":"dl/{name}-{version}.tgz"}"#,
        )
        .unwrap();
        std::fs::create_dir_all(root.join("fi/gm")).unwrap();
        let cksum = sha256_hex(ARCHIVE);
        let text = format!(
            "{}\n{}\n",
            line("figma", "0.3.0", &cksum),
            line("figma", "0.3.1", &cksum)
        );
        std::fs::write(root.join("fi/gm/figma"), text).unwrap();
        std::fs::create_dir_all(root.join("dl")).unwrap();
        std::fs::write(root.join("dl/figma-0.3.0.tgz"), ARCHIVE).unwrap();
        std::fs::create_dir_all(root.join("2")).unwrap();
        std::fs::write(root.join("2/ab"), line("ab", "1.0.0", "00") + "\n").unwrap();
        let index = DirIndex::open(root, "registry+file:test").unwrap();
        (dir, index)
    }

    #[test]
    fn versions_reads_one_package_and_caches_it() {
        let (dir, index) = index();
        let lines = index.versions("figma").unwrap().unwrap();
        assert_eq!(lines.len(), 2);
        std::fs::remove_file(dir.path().join("fi/gm/figma")).unwrap();
        let again = index.versions("Figma").unwrap().unwrap();
        assert!(Arc::ptr_eq(&lines, &again));
        assert_eq!(index.source_id(), "registry+file:test");
    }

    #[test]
    fn unknown_and_unsafe_names_are_absent() {
        let (_dir, index) = index();
        for name in ["nope", "", "../config.json", "fi/gm"] {
            assert!(index.versions(name).unwrap().is_none(), "{name}");
        }
    }

    #[test]
    fn names_lists_index_files_only() {
        let (_dir, index) = index();
        assert_eq!(index.names().unwrap(), ["ab", "figma"]);
    }

    #[test]
    fn archive_is_verified_against_the_index() {
        let (dir, index) = index();
        let lines = index.versions("figma").unwrap().unwrap();
        assert_eq!(index.archive(&lines[0]).unwrap(), ARCHIVE);
        assert!(matches!(
            index.archive(&lines[1]),
            Err(RegistryError::MissingArchive { .. })
        ));
        std::fs::write(dir.path().join("dl/figma-0.3.0.tgz"), b"tampered").unwrap();
        match index.archive(&lines[0]) {
            Err(RegistryError::ChecksumMismatch {
                file,
                expected,
                actual,
                ..
            }) => {
                assert!(file.ends_with("figma-0.3.0.tgz"), "{file}");
                assert_eq!(expected, sha256_hex(ARCHIVE));
                assert_eq!(actual, sha256_hex(b"tampered"));
            }
            other => panic!("expected ChecksumMismatch, got {other:?}"),
        }
    }

    #[test]
    fn corrupt_lines_name_file_and_line() {
        let (dir, index) = index();
        std::fs::create_dir_all(dir.path().join("ti/me")).unwrap();
        let text = format!(
            "{}\n{}\n",
            line("time", "0.1.0", "00"),
            line("other", "1.0.0", "00")
        );
        std::fs::write(dir.path().join("ti/me/time"), text).unwrap();
        match index.versions("time") {
            Err(RegistryError::BadIndexLine { file, line, reason }) => {
                assert!(file.ends_with("time"), "{file}");
                assert_eq!(line, 2);
                assert!(reason.contains("other"), "{reason}");
            }
            other => panic!("expected BadIndexLine, got {other:?}"),
        }
    }

    #[test]
    fn a_folder_without_config_is_not_an_index() {
        let dir = tempfile::tempdir().unwrap();
        let err = DirIndex::open(dir.path(), "x").err().unwrap().to_string();
        assert!(err.contains("config.json"), "{err}");
        assert!(err.contains("not a dotpack registry index"), "{err}");
        std::fs::write(dir.path().join("config.json"), "{").unwrap();
        let err = DirIndex::open(dir.path(), "x").err().unwrap().to_string();
        assert!(err.contains("does not parse"), "{err}");
    }
}
