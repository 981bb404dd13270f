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
        match std::fs::read(self.path(rel)) {
            Ok(bytes) => Ok(Some(Cow::Owned(bytes))),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(self.io_error(rel, &e)),
        }
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
