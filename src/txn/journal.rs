//! The journal: `<state>/journal.json`, present only while a transaction is in flight. It names
//! every file the transaction replaces with the hashes of its bytes before and after; the bytes
//! themselves are in the snapshot store before the journal is written. A journal found at start
//! means a dotpack died midway, and [`recover`] puts every file back.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

use super::FileRecord;
use super::store::{self, Store};
use crate::output::Printer;

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
    crate::fsutil::write_atomic(&path(state), text.as_bytes())
}

/// Deletes the journal: the transaction is committed (or fully undone).
pub fn remove(state: &Path) -> Result<()> {
    match std::fs::remove_file(path(state)) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(e).context("cannot remove the transaction journal"),
    }
    crate::fsutil::sync_dir(state);
    Ok(())
}

/// What recovery did.
#[derive(Debug, Default)]
pub struct Recovered {
    pub command: Vec<String>,
    pub restored: Vec<String>,
    /// Files that are neither before nor after: someone else changed them since; left alone.
    pub kept: Vec<String>,
}

/// Rolls back the transaction of the journal in `state`, if there is one: each file that holds
/// its after-bytes gets its before-bytes back (or is deleted when it did not exist). The caller
/// holds the lock of `state`.
pub fn recover(state: &Path) -> Result<Option<Recovered>> {
    let text = match std::fs::read_to_string(path(state)) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e).context("cannot read the transaction journal"),
    };
    let journal: Journal = match serde_json::from_str(&text) {
        Ok(j) => j,
        // A journal torn while being written means no file was replaced yet.
        Err(_) => {
            remove(state)?;
            return Ok(Some(Recovered::default()));
        }
    };
    let store = Store::new(state);
    let mut out = Recovered {
        command: journal.command.clone(),
        ..Recovered::default()
    };
    for file in journal.files.iter().rev() {
        let current = std::fs::read(&file.path).ok().map(|b| store::hash(&b));
        if current == file.before {
            continue;
        }
        if current != file.after {
            out.kept.push(file.display.clone());
            continue;
        }
        super::restore(&store, &file.path, file.before.as_deref())?;
        out.restored.push(file.display.clone());
    }
    for file in &journal.files {
        remove_temp_files(&file.path);
    }
    remove(state)?;
    Ok(Some(out))
}

/// A process killed inside `write_atomic` leaves its temporary file next to the target.
fn remove_temp_files(path: &Path) {
    let real = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let Some(dir) = real.parent() else {
        return;
    };
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        if entry
            .file_name()
            .to_string_lossy()
            .starts_with(".dotpack-tmp-")
        {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// Prints what recovery did.
pub fn report(printer: &Printer, recovered: &Recovered) {
    let command = if recovered.command.is_empty() {
        "an interrupted dotpack".to_string()
    } else {
        format!("`{}`", recovered.command.join(" "))
    };
    printer.status(
        "Recovered",
        format!(
            "{command} was interrupted; rolled it back ({} file{} restored{})",
            recovered.restored.len(),
            if recovered.restored.len() == 1 {
                ""
            } else {
                "s"
            },
            if recovered.restored.is_empty() {
                String::new()
            } else {
                format!(": {}", recovered.restored.join(", "))
            }
        ),
    );
    for file in &recovered.kept {
        printer.warning(format!(
            "{file} was changed by another program after the interrupted transaction; left as it is"
        ));
    }
}
