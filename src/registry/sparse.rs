//! The one reader of the sparse index layout, over any store of files (a folder on disk, the
//! index compiled into the binary, a web server through a cache). Local and built-in registries differ only in where bytes come
//! from, so parsing, caching, name checks and checksum verification live here once.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use super::archive::sha256_hex;
use super::index::{index_path, is_plain_name, parse_index_file};
use super::{IndexLine, RegistryConfig, RegistryError};
use crate::util::error::Error;

/// Where the files of an index come from. Paths are relative to the index root, `/`-separated.
pub(crate) trait FileStore: Send + Sync {
    /// The bytes of the file at `rel`, or `None` when there is no such file.
    fn read(&self, rel: &str) -> Result<Option<Cow<'_, [u8]>>, RegistryError>;
    /// Every file path in the store (for listing names; not on the resolution path).
    fn list(&self) -> Result<Vec<String>, RegistryError>;
    /// How to name the file at `rel` in messages.
    fn label(&self, rel: &str) -> String;
}

/// A sparse index over a [`FileStore`], with each package's parsed lines cached after the first
/// read, so a resolver may ask for the same package many times at the cost of one read.
pub(crate) struct SparseIndex<F> {
    files: F,
    source_id: String,
    config: RegistryConfig,
    cache: Mutex<HashMap<String, Arc<Vec<IndexLine>>>>,
}

/// Reads and checks `config.json` of a store. `what` says what kind of index it is, for errors.
pub(crate) fn read_config<F: FileStore>(files: &F) -> Result<RegistryConfig, RegistryError> {
    let label = files.label(CONFIG_FILE);
    let not_index = |reason: String| {
        RegistryError::from(
            Error::new(format!("{label}: {reason}"))
                .help("this folder is not a dotpack registry index; create one with `dotpack registry build SOURCE --out FOLDER`"),
        )
    };
    let Some(bytes) = files.read(CONFIG_FILE)? else {
        return Err(not_index("not found".to_string()));
    };
    let config: RegistryConfig =
        serde_json::from_slice(&bytes).map_err(|e| not_index(format!("does not parse: {e}")))?;
    config.check().map_err(not_index)?;
    Ok(config)
}

/// The file at the root of every index that says how it is laid out.
pub(crate) const CONFIG_FILE: &str = "config.json";

impl<F: FileStore> SparseIndex<F> {
    pub(crate) fn new(files: F, source_id: String, config: RegistryConfig) -> Self {
        SparseIndex {
            files,
            source_id,
            config,
            cache: Mutex::new(HashMap::new()),
        }
    }

    pub(crate) fn source_id(&self) -> &str {
        &self.source_id
    }

    /// Lines of `name`, reading only that package's file. Names that could not be a package
    /// (empty, path characters) are simply absent.
    pub(crate) fn versions(
        &self,
        name: &str,
    ) -> Result<Option<Arc<Vec<IndexLine>>>, RegistryError> {
        if !is_plain_name(name) {
            return Ok(None);
        }
        let key = name.to_ascii_lowercase();
        if let Some(lines) = self.lock().get(&key) {
            return Ok(Some(Arc::clone(lines)));
        }
        let rel = index_path(&key);
        let Some(bytes) = self.files.read(&rel)? else {
            return Ok(None);
        };
        let label = self.files.label(&rel);
        let text = std::str::from_utf8(&bytes).map_err(|e| RegistryError::BadIndexLine {
            file: label.clone(),
            line: 1 + bytes[..e.valid_up_to()]
                .iter()
                .filter(|&&b| b == b'\n')
                .count(),
            reason: "not valid UTF-8".to_string(),
        })?;
        let lines = parse_index_file(text, &label)?;
        check_names(&lines, text, &key, &label)?;
        if lines.is_empty() {
            return Ok(None);
        }
        let lines = Arc::new(lines);
        self.lock().insert(key, Arc::clone(&lines));
        Ok(Some(lines))
    }

    /// Package names with an index file, sorted: a file counts when its path is the index path of
    /// its own file name, which leaves out `config.json` and the archives.
    pub(crate) fn names(&self) -> Result<Vec<String>, RegistryError> {
        let mut names: Vec<String> = self
            .files
            .list()?
            .into_iter()
            .filter_map(|rel| {
                let name = rel.rsplit('/').next()?.to_string();
                (is_plain_name(&name) && index_path(&name) == rel).then_some(name)
            })
            .collect();
        names.sort();
        names.dedup();
        Ok(names)
    }

    /// The archive of `line`, checked against its sha256 before anyone looks inside.
    pub(crate) fn archive(&self, line: &IndexLine) -> Result<Vec<u8>, RegistryError> {
        let rel = self.config.archive_path(&line.name, &line.vers);
        let label = self.files.label(&rel);
        let missing = || RegistryError::MissingArchive {
            name: line.name.clone(),
            version: line.vers.to_string(),
            file: label.clone(),
        };
        if !is_plain_name(&line.name) {
            return Err(missing());
        }
        let Some(bytes) = self.files.read(&rel)? else {
            return Err(missing());
        };
        verify_archive(line, &bytes, &label)?;
        Ok(bytes.into_owned())
    }

    /// The index's `config.json`.
    pub(crate) fn config(&self) -> &RegistryConfig {
        &self.config
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<Vec<IndexLine>>>> {
        // A panic while holding the lock cannot leave the map half-written (insert is atomic
        // from our side), so a poisoned cache is still a good cache.
        self.cache.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Checks `bytes` (read from `label`) against the sha256 the index gives for `line`.
pub(crate) fn verify_archive(
    line: &IndexLine,
    bytes: &[u8],
    label: &str,
) -> Result<(), RegistryError> {
    let actual = sha256_hex(bytes);
    if actual.eq_ignore_ascii_case(&line.cksum) {
        return Ok(());
    }
    Err(RegistryError::ChecksumMismatch {
        name: line.name.clone(),
        version: line.vers.to_string(),
        file: label.to_string(),
        expected: line.cksum.clone(),
        actual,
    })
}

/// Every line of the file of `key` must be about `key`; anything else is a corrupt index.
fn check_names(
    lines: &[IndexLine],
    text: &str,
    key: &str,
    label: &str,
) -> Result<(), RegistryError> {
    let Some(bad) = lines.iter().position(|l| !l.name.eq_ignore_ascii_case(key)) else {
        return Ok(());
    };
    let line_no = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .nth(bad)
        .map_or(0, |(i, _)| i + 1);
    Err(RegistryError::BadIndexLine {
        file: label.to_string(),
        line: line_no,
        reason: format!(
            "line is for package `{}` but this file is for `{key}`",
            lines[bad].name
        ),
    })
}
