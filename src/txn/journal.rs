//! The journal: `<state>/journal.json`, present only while a transaction is in flight. It names
//! every file the transaction replaces with the hashes of its bytes before and after; the bytes
//! themselves are in the snapshot store before the journal is written. A journal found at start
//! means a dotpack died midway, and [`super::recover`] puts every file back.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

use super::FileRecord;

pub const JOURNAL_FILE: &str = "journal.json";

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Journal {
    /// The generation the transaction would create.
    pub id: u64,
    pub command: Vec<String>,
    pub files: Vec<FileRecord>,
}

pub fn path(state: &Path) -> PathBuf {
    state.join(JOURNAL_FILE)
}

/// Writes the journal durably (the transaction's point of no return for recovery).
pub fn write(state: &Path, journal: &Journal) -> Result<()> {
    let text = serde_json::to_string_pretty(journal)?;
    crate::util::fsutil::write_atomic(&path(state), text.as_bytes())
}

/// Reads the journal of `state`: `None` when there is none.
pub fn read(state: &Path) -> Result<Option<String>> {
    crate::util::fence::read_text(&path(state), None, crate::util::fence::LOCK_CAP)
}

/// Deletes the journal: the transaction is committed (or fully undone).
pub fn remove(state: &Path) -> Result<()> {
    match std::fs::remove_file(path(state)) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(e).context("cannot remove the transaction journal"),
    }
    crate::util::fsutil::sync_dir(state);
    Ok(())
}
