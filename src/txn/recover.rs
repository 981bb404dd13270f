//! Crash recovery: a journal left in a state folder means a dotpack died midway, and its
//! transaction is rolled back before anything else happens. Recovery either completes or
//! changes nothing: [`plan`] reads and checks everything first (every path the journal names is
//! inside the [`Boundary`], every snapshot it needs is present and matches its hash, every file
//! can be written), and only then [`Plan::apply`] writes. It also deletes the generation record
//! the interrupted transaction may have written, so a later rollback never brings it back.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use super::boundary::Boundary;
use super::journal::{self, Journal};
use super::store::{self, Store};
use super::{FileRecord, generation};
use crate::txn::files::FileWrite;
use crate::ui::printer::Printer;
use crate::util::error::{Error, Fix};

/// Where a file a journal names stands now.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Now {
    /// As before the interrupted transaction: nothing to do.
    Before,
    /// As the interrupted transaction left it: recovery restores its before-bytes.
    After,
    /// Changed by someone else since: left as it is.
    Changed,
    /// A path dotpack could not have written for this state folder: never read or written.
    Outside(&'static str),
}

/// One file of a journal, with where it stands.
#[derive(Clone, Debug)]
pub struct FileNow {
    pub path: PathBuf,
    /// From the path, never from the journal's `display` field.
    pub display: String,
    pub now: Now,
}

/// A journal read and checked; nothing is written until [`Plan::apply`].
#[derive(Debug)]
pub struct Plan {
    state: PathBuf,
    journal: Journal,
    pub files: Vec<FileNow>,
    writes: Vec<FileWrite>,
}

/// What recovery did.
#[derive(Debug, Default)]
pub struct Recovered {
    pub command: Vec<String>,
    pub restored: Vec<String>,
    /// Files that are neither before nor after: someone else changed them since; left alone.
    pub kept: Vec<String>,
}

/// A journal that recovery cannot act on.
#[derive(Debug, thiserror::Error)]
#[error("{}", self.error())]
pub struct Stuck {
    pub journal: PathBuf,
    /// `` `dotpack add x` ``, or "transaction" when the journal does not say.
    pub command: String,
    pub why: String,
}

impl Fix for Stuck {
    fn error(&self) -> Error {
        Error::new(format!(
            "cannot recover the interrupted {} from {}: {}; nothing was changed",
            self.command,
            self.journal.display(),
            self.why
        ))
        .help("`dotpack doctor` shows the files it names; `dotpack doctor --repair` moves it aside so dotpack can run again (the files stay as they are now)")
        .file(&self.journal)
    }
}

/// What the journal of `state` names and where each file stands, without judging whether it can
/// be recovered; `None` when there is no journal. Paths outside the boundary are not read.
pub fn inspect(
    state: &Path,
    boundary: &Boundary,
) -> Result<Option<(Journal, Vec<FileNow>)>, Stuck> {
    let stuck = |command: &str, why: String| Stuck {
        journal: journal::path(state),
        command: command.to_string(),
        why,
    };
    let text = journal::read(state).map_err(|e| stuck("transaction", format!("{e:#}")))?;
    let Some(text) = text else {
        return Ok(None);
    };
    let journal: Journal = serde_json::from_str(&text)
        .map_err(|e| stuck("transaction", format!("it does not parse ({e})")))?;
    let mut files = Vec::with_capacity(journal.files.len());
    for file in &journal.files {
        let display = boundary.display(&file.path);
        let now = match boundary.check_files(state, std::slice::from_ref(file)) {
            Err(refused) => Now::Outside(refused.why),
            Ok(()) => {
                let current =
                    read_regular(&file.path, boundary.restore_fence(state, file).as_ref())
                        .map_err(|e| stuck(&describe(&journal), format!("{e:#}")))?;
                let hash = file.comparable(current).as_deref().map(store::hash);
                if hash == file.before {
                    Now::Before
                } else if hash == file.after {
                    Now::After
                } else {
                    Now::Changed
                }
            }
        };
        files.push(FileNow {
            path: file.path.clone(),
            display,
            now,
        });
    }
    Ok(Some((journal, files)))
}

/// Reads and checks the journal of `state` and every snapshot its recovery needs; `None` when
/// there is no journal. Fails with [`Stuck`], having changed nothing, when any path is outside
/// `boundary`, a snapshot is missing or corrupt, or a file cannot be written.
pub fn plan(state: &Path, boundary: &Boundary) -> Result<Option<Plan>, Stuck> {
    let Some((journal, files)) = inspect(state, boundary)? else {
        return Ok(None);
    };
    let stuck = |why: String| Stuck {
        journal: journal::path(state),
        command: describe(&journal),
        why,
    };
    let outside = files.iter().find_map(|f| match f.now {
        Now::Outside(why) => Some((f, why)),
        _ => None,
    });
    if let Some((file, why)) = outside {
        return Err(stuck(format!(
            "it names {}, which dotpack could not have written for {} ({why})",
            file.path.display(),
            state.display()
        )));
    }
    let store = Store::new(state);
    let mut writes = Vec::new();
    // Last replaced first: the reverse of the transaction's order.
    for (record, file) in journal.files.iter().zip(&files).rev() {
        if file.now != Now::After {
            continue;
        }
        let fence = boundary.restore_fence(state, record);
        writes
            .push(restore_write(&store, record, file, fence).map_err(|e| stuck(format!("{e:#}")))?);
    }
    crate::txn::files::preflight(&writes).map_err(|e| stuck(format!("{e:#}")))?;
    Ok(Some(Plan {
        state: state.to_path_buf(),
        journal,
        files,
        writes,
    }))
}

/// The write that gives `record`'s file its before-bytes back, read from the store (checked
/// against their hash).
fn restore_write(
    store: &Store,
    record: &FileRecord,
    file: &FileNow,
    fence: Option<crate::util::fence::Fence>,
) -> Result<FileWrite> {
    let before = match &record.before {
        Some(h) => Some(
            String::from_utf8(store.get(h)?)
                .with_context(|| format!("snapshot {h} is not UTF-8"))?,
        ),
        None => None,
    };
    Ok(FileWrite {
        path: record.path.clone(),
        display: file.display.clone(),
        host: None,
        // Only compared with `after` to see that the file changes.
        before: record.after.as_deref().map(Into::into),
        after: before.map(Into::into),
        remove_dirs: 0,
        resolved: record.resolved.clone(),
        fence,
    })
}

impl Plan {
    /// Restores every file the interrupted transaction replaced, deletes the generation record
    /// it may have written and the temporary files it may have left, then the journal. A write
    /// that fails leaves the journal, so the next run tries again (files already restored are
    /// then as before, and skipped).
    pub fn apply(self) -> Result<Recovered> {
        for w in &self.writes {
            crate::txn::files::write_one(w)?;
        }
        generation::remove_aborted(&self.state, self.journal.id, &self.journal.files)?;
        for file in &self.files {
            remove_temp_files(&file.path);
        }
        journal::remove(&self.state)?;
        Ok(Recovered {
            command: self.journal.command.clone(),
            restored: self.writes.iter().map(|w| w.display.clone()).collect(),
            kept: self
                .files
                .iter()
                .filter(|f| f.now == Now::Changed)
                .map(|f| f.display.clone())
                .collect(),
        })
    }
}

/// `` `dotpack add x` `` for messages.
fn describe(journal: &Journal) -> String {
    if journal.command.is_empty() {
        "transaction".to_string()
    } else {
        format!("`{}`", journal.command.join(" "))
    }
}

/// The bytes of the regular file at `path` (through a symlink that stays inside `fence`),
/// `None` when there is none. A FIFO or device is an error: reading it could block or never end.
pub(crate) fn read_regular(
    path: &Path,
    fence: Option<&crate::util::fence::Fence>,
) -> Result<Option<Vec<u8>>> {
    crate::util::fence::read(path, fence, crate::util::fence::USER_FILE_CAP)
}

/// A process killed inside `write_atomic` leaves its temporary file next to the target: the
/// regular files named `.dotpack-tmp-*` in the folder of a file the journal names (a path
/// already checked against the boundary).
fn remove_temp_files(path: &Path) {
    let Ok(real) = crate::util::fsutil::real_target(path) else {
        return;
    };
    let Some(dir) = real.parent() else {
        return;
    };
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let is_temp = entry
            .file_name()
            .to_string_lossy()
            .starts_with(crate::util::fsutil::TEMP_PREFIX);
        if is_temp && entry.file_type().is_ok_and(|t| t.is_file()) {
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
