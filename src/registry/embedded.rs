//! The default registry, compiled into the binary from `registry-index/`, so `dotpack add figma`
//! works on a fresh machine with no network and no configuration. `build.rs` makes Cargo rebuild
//! the binary whenever that folder changes.

use std::borrow::Cow;
use std::sync::{Arc, OnceLock};

use include_dir::{Dir, include_dir};

use super::sparse::{FileStore, SparseIndex, read_config};
use super::{BUILTIN_SOURCE, IndexLine, IndexSource, RegistryError};

static INDEX_DIR: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/registry-index");

/// The built-in index. Its data is fixed at compile time, so a broken `config.json` (which CI and
/// the unit tests rule out) is reported by every call instead of stopping the program.
pub struct EmbeddedIndex {
    inner: Result<SparseIndex<EmbeddedFiles>, String>,
}

impl EmbeddedIndex {
    /// The index compiled into this binary, opened once per process.
    pub fn builtin() -> &'static EmbeddedIndex {
        static BUILTIN: OnceLock<EmbeddedIndex> = OnceLock::new();
        BUILTIN.get_or_init(|| {
            let files = EmbeddedFiles { dir: &INDEX_DIR };
            let inner = read_config(&files)
                .map(|config| SparseIndex::new(files, BUILTIN_SOURCE.to_string(), config))
                .map_err(|e| e.to_string());
            EmbeddedIndex { inner }
        })
    }

    fn inner(&self) -> Result<&SparseIndex<EmbeddedFiles>, RegistryError> {
        self.inner
            .as_ref()
            .map_err(|e| RegistryError::Other(format!("the built-in registry is broken: {e}")))
    }
}

impl IndexSource for EmbeddedIndex {
    fn source_id(&self) -> &str {
        BUILTIN_SOURCE
    }

    fn versions(&self, name: &str) -> Result<Option<Arc<Vec<IndexLine>>>, RegistryError> {
        self.inner()?.versions(name)
    }

    fn names(&self) -> Result<Vec<String>, RegistryError> {
        self.inner()?.names()
    }

    fn archive(&self, line: &IndexLine) -> Result<Vec<u8>, RegistryError> {
        self.inner()?.archive(line)
    }
}

struct EmbeddedFiles {
    dir: &'static Dir<'static>,
}

impl FileStore for EmbeddedFiles {
    fn read(&self, rel: &str) -> Result<Option<Cow<'_, [u8]>>, RegistryError> {
        // Descend one folder per path part: `Dir::get_file` searches the whole tree, which would
        // make each lookup cost the size of the registry.
        let mut dir = self.dir;
        let mut parts = rel.split('/').peekable();
        while let Some(part) = parts.next() {
            let mut children = dir
                .entries()
                .iter()
                .filter(|entry| entry.path().file_name().and_then(|n| n.to_str()) == Some(part));
            let Some(entry) = children.next() else {
                return Ok(None);
            };
            if parts.peek().is_none() {
                return Ok(entry.as_file().map(|file| Cow::Borrowed(file.contents())));
            }
            match entry.as_dir() {
                Some(next) => dir = next,
                None => return Ok(None),
            }
        }
        Ok(None)
    }

    fn list(&self) -> Result<Vec<String>, RegistryError> {
        let mut out = Vec::new();
        let mut stack = vec![self.dir];
        while let Some(dir) = stack.pop() {
            stack.extend(dir.dirs());
            out.extend(dir.files().filter_map(|file| {
                let parts: Option<Vec<&str>> = file
                    .path()
                    .components()
                    .map(|c| c.as_os_str().to_str())
                    .collect();
                parts.map(|parts| parts.join("/"))
            }));
        }
        Ok(out)
    }

    fn label(&self, rel: &str) -> String {
        format!("<built-in registry>/{rel}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_index_opens() {
        let index = EmbeddedIndex::builtin();
        assert!(index.inner.is_ok(), "{:?}", index.inner.as_ref().err());
        assert_eq!(index.source_id(), BUILTIN_SOURCE);
        assert!(index.versions("no-such-package-here").unwrap().is_none());
        for name in index.names().unwrap() {
            assert!(index.versions(&name).unwrap().is_some(), "{name}");
        }
    }

    /// A small index with nested folders, compiled in the same way as the real one.
    static FIXTURE: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/src/registry/testdata/index");

    fn fixture() -> SparseIndex<EmbeddedFiles> {
        let files = EmbeddedFiles { dir: &FIXTURE };
        let config = read_config(&files).unwrap();
        SparseIndex::new(files, BUILTIN_SOURCE.to_string(), config)
    }

    #[test]
    fn compiled_in_index_reads_nested_files() {
        let index = fixture();
        assert_eq!(index.names().unwrap(), ["abc", "figma"]);
        let figma = index.versions("figma").unwrap().unwrap();
        assert_eq!(figma.len(), 2);
        assert!(figma[0].yanked);
        assert_eq!(index.versions("abc").unwrap().unwrap()[0].name, "abc");
        assert!(index.versions("abd").unwrap().is_none());
        assert_eq!(index.archive(&figma[1]).unwrap(), b"not really a tarball\n");
        assert!(matches!(
            index.archive(&figma[0]),
            Err(RegistryError::MissingArchive { .. })
        ));
    }

    #[test]
    fn lookups_descend_folders() {
        let files = EmbeddedFiles { dir: &INDEX_DIR };
        assert!(files.read("config.json").unwrap().is_some());
        assert!(files.read("config.json/x").unwrap().is_none());
        assert!(files.read("zz/zz/zzzz").unwrap().is_none());
    }
}
