//! Transactions: the one way dotpack writes. [`apply`] takes every file a command changes
//! (manifest, lock, claims, host files) and replaces all of them or none:
//!
//! 1. take the exclusive lock of each state folder, in a fixed order ([`lock`]);
//! 2. re-read every file: one that differs from the bytes the plan was computed on was changed
//!    by another program, and the command plans again ([`Conflict`]);
//! 3. store every file's before- and after-bytes as content-addressed snapshots ([`store`]);
//! 4. write the journal naming every file with its before/after hashes ([`journal`]). Meanwhile,
//!    from step 2 on, each file's new bytes are written and flushed under a temporary name
//!    beside it (a file whose folder is missing: after step 2, so a conflict creates no
//!    folder); a failure before step 5 deletes them;
//! 5. replace each file by renaming (modes and symlinks kept); a failure restores the files
//!    already replaced;
//! 6. flush each folder's new names while writing the generation record ([`generation`]), then
//!    delete the journal: committed.
//!
//! A process that dies between 4 and 6 leaves the journal; the next dotpack run finds it and
//! rolls the files back ([`recover_at_start`], [`recover`]).
//!
//! State folders are data, never instructions from outside: dotpack acts only on one it made
//! itself ([`trust`]), and every path a journal or generation names must be one dotpack could
//! have written for it ([`Boundary`]).

pub(crate) mod boundary;
pub(crate) mod doctor;
pub(crate) mod fault;
pub(crate) mod files;
pub(crate) mod generation;
pub(crate) mod journal;
pub(crate) mod lock;
pub(crate) mod recover;
pub(crate) mod rollback;
pub(crate) mod store;
pub(crate) mod trust;

use std::path::{Path, PathBuf};

use anyhow::Result;
use serde::{Deserialize, Serialize};

use crate::txn::files::FileWrite;
use crate::ui::printer::Printer;
pub use boundary::Boundary;
pub use generation::{Generation, PackageChange};
pub use lock::Wait;
use store::Store;

/// The name of dotpack's state folder inside a project.
pub const PROJECT_STATE: &str = ".dotpack";

/// Generations kept when `[settings] keep_generations` does not say.
pub const DEFAULT_KEEP: usize = 50;

/// One file of a journal or generation: where it is and the snapshot hashes of its bytes
/// before and after (`None`: absent).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileRecord {
    /// Absolute path.
    pub path: PathBuf,
    /// How the writing command named the file. Informational only: messages and diffs name a
    /// file from its path ([`Boundary::display`]), as a record is read back from disk.
    pub display: String,
    /// The host whose config file this is (`None` for dotpack's own files): rollback merges
    /// a host file entry by entry when someone else edited it since.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
    pub before: Option<String>,
    pub after: Option<String>,
    /// Variables whose values the file holds and its snapshots hold as markers
    /// (`--resolve-env`): restoring a snapshot writes their current values, and the file is
    /// compared with a snapshot after replacing those values with markers again.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resolved: Vec<String>,
    /// Where a project file really was when the command wrote it through a link out of the
    /// project (`--write-outside-project`): restoring it follows the link only while it still
    /// leads there, so a link changed since (a `git pull`) cannot aim a rollback elsewhere.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outside: Option<PathBuf>,
}

impl FileRecord {
    /// `bytes` as this record's snapshots hold them: the values of its resolved variables
    /// replaced by markers.
    pub fn comparable(&self, bytes: Option<Vec<u8>>) -> Option<Vec<u8>> {
        crate::model::resolved_env::redact_bytes(bytes, &self.resolved)
    }
}

/// Where a transaction keeps its journal and generation, which locks it takes, and which paths
/// its records may name.
#[derive(Clone, Debug)]
pub struct Places {
    /// The state folder holding journal, generations and snapshots.
    pub state: PathBuf,
    /// State folders to lock, in order (the project's first, then `$DOTPACK_HOME`).
    pub locks: Vec<PathBuf>,
    pub boundary: Boundary,
}

impl Places {
    /// Project scope: everything in the project's `.dotpack/`.
    pub fn project(root: &Path, boundary: Boundary) -> Places {
        let state = root.join(PROJECT_STATE);
        Places {
            locks: vec![state.clone()],
            state,
            boundary,
        }
    }

    /// User scope: generations in `$DOTPACK_HOME`; the project (whose manifest and lock change
    /// too) is locked first.
    pub fn user(root: Option<&Path>, boundary: Boundary) -> Places {
        let home = boundary.dotpack_home.clone();
        let mut locks: Vec<PathBuf> = root.iter().map(|r| r.join(PROJECT_STATE)).collect();
        locks.push(home.clone());
        Places {
            state: home,
            locks,
            boundary,
        }
    }

    /// Takes the lock of every state folder, after checking that dotpack trusts each one
    /// (creating and recording it when missing): an untrusted folder fails with
    /// [`trust::Untrusted`].
    pub fn lock(&self, wait: Wait, printer: &Printer) -> Result<()> {
        for dir in &self.locks {
            trust::prepare(dir, &self.boundary.dotpack_home)?;
        }
        for dir in &self.locks {
            lock::acquire(dir, wait, printer)?;
        }
        Ok(())
    }

    /// Whether dotpack may read the instructions in this scope's state folder.
    pub fn trusted(&self) -> bool {
        matches!(
            trust::verdict(&self.state, &self.boundary.dotpack_home),
            trust::Verdict::Trusted | trust::Verdict::Empty | trust::Verdict::Absent
        )
    }

    /// The generations of this scope, oldest first, every record checked against the
    /// boundary; none from a state folder dotpack does not trust (the command warned at start).
    pub fn generations(&self) -> Result<Vec<Generation>> {
        if !self.trusted() {
            return Ok(Vec::new());
        }
        generation::load_checked(&self.state, &self.boundary)
    }
}

/// Whether a command changes state (and so refuses an untrusted state folder) or only reads
/// (and goes on without it, after a warning).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    Read,
    Write,
}

/// A file changed on disk between planning and applying: the command plans again on the new
/// bytes instead of overwriting the other writer's change.
#[derive(Debug, thiserror::Error)]
#[error("{display} was changed by another program while dotpack was planning; nothing was written")]
pub struct Conflict {
    pub display: String,
}

/// What a transaction records besides the files.
#[derive(Clone, Debug, Default)]
pub struct Meta {
    pub command: Vec<String>,
    pub packages: Vec<PackageChange>,
    pub rollback_to: Option<u64>,
    pub merged: Vec<String>,
    pub keep: usize,
}

/// Replaces every changed file of `writes` as one transaction and records a generation; returns
/// its id, or `None` when nothing changes. See the module documentation for the steps.
pub fn apply(
    places: &Places,
    writes: &[FileWrite],
    meta: Meta,
    wait: Wait,
    printer: &Printer,
) -> Result<Option<u64>> {
    let changed: Vec<&FileWrite> = writes.iter().filter(|w| w.is_changed()).collect();
    if changed.is_empty() {
        return Ok(None);
    }
    fault::before_commit();
    places.lock(wait, printer)?;
    recover_locked(places, printer)?;
    // The new bytes are written and flushed under temporary names once the locks are held (a
    // wait for another dotpack leaves nothing behind), while the files are compared and the
    // snapshots and the journal written: the file system flushes them together, and nothing is
    // in place until all of it is on disk. A file whose folder does not exist yet is staged once
    // the comparison passed, so a conflict leaves no folder behind; it deletes the temporary
    // files.
    let (prepared, early) = std::thread::scope(|scope| {
        let early = scope.spawn(|| {
            Ok(crate::util::fsutil::par_map(&changed, |w| {
                folder_exists(w).then(|| crate::txn::files::stage_one(w))
            }))
        });
        let prepared = prepare(places, &changed, &meta.command);
        (prepared, join(early))
    });
    let (stamps, id, files) = prepared?;
    let state = &places.state;
    let staged: Vec<Result<_>> = changed
        .iter()
        .zip(early?)
        .map(|(w, early)| early.unwrap_or_else(|| crate::txn::files::stage_one(w)))
        .collect();
    let generation = Generation {
        id,
        time: generation::rfc3339(std::time::SystemTime::now()),
        command: meta.command,
        rollback_to: meta.rollback_to,
        files,
        packages: meta.packages,
        merged: meta.merged,
    };
    let mut done = 0;
    let mut dirs = std::collections::BTreeSet::new();
    let result = (|| -> Result<()> {
        // The renames below put the staged files in place, one file at a time.
        let staged = staged.into_iter().collect::<Result<Vec<_>>>()?;
        for ((w, stamp), staged) in changed.iter().zip(&stamps).zip(staged) {
            fault::at_write(done)?;
            // Again right before replacing: a host rewriting its file meanwhile is not lost. The
            // bytes were compared under the lock; size and modification time tell whether
            // anything wrote the file since, without reading a large file twice.
            if Stamp::of(&w.path) != *stamp {
                return Err(Conflict {
                    display: w.display.clone(),
                }
                .into());
            }
            if let Some(dir) = crate::txn::files::commit_one(w, staged)? {
                dirs.insert(dir);
            }
            done += 1;
        }
        fault::at_write(done)?;
        // Each folder's new names are flushed once, and the record written beside them: the
        // journal is deleted only after both. A crash before that leaves the journal, and
        // recovery reads what each file holds and deletes a record naming exactly these files.
        let dirs: Vec<_> = dirs.into_iter().collect();
        std::thread::scope(|scope| {
            let recorded = scope.spawn(|| generation::write(state, &generation));
            crate::util::fsutil::par_map(&dirs, |dir| crate::util::fsutil::sync_dir(dir));
            join(recorded)
        })
    })();
    if let Err(err) = result {
        return Err(undo(state, &changed[..done], err));
    }
    fault::after_record();
    journal::remove(state)?;
    generation::prune(state, meta.keep)?;
    Ok(Some(id))
}

/// Whether the folder of `w`'s file exists (a file to delete needs none).
fn folder_exists(w: &FileWrite) -> bool {
    w.after.is_none() || w.path.parent().is_some_and(Path::is_dir)
}

/// Everything before the new bytes go in place, under the locks: the check that every file still
/// holds what the plan read (with its stamp for the check right before replacing it), the
/// snapshots and the journal. Returns the stamps, the generation's id and its file records.
fn prepare(
    places: &Places,
    changed: &[&FileWrite],
    command: &[String],
) -> Result<(Vec<Stamp>, u64, Vec<FileRecord>)> {
    let mut stamps = Vec::with_capacity(changed.len());
    for w in changed {
        check_unchanged(w)?;
        stamps.push(Stamp::of(&w.path));
    }
    let (id, files) = record_snapshots(places, changed, command)?;
    Ok((stamps, id, files))
}

/// Stores the before- and after-bytes of every file as snapshots, flushes them, and writes the
/// journal naming them; returns the generation's id and its file records.
fn record_snapshots(
    places: &Places,
    changed: &[&FileWrite],
    command: &[String],
) -> Result<(u64, Vec<FileRecord>)> {
    let state = &places.state;
    let store = Store::new(state);
    let texts: Vec<&crate::util::text::Text> = changed
        .iter()
        .flat_map(|w| [w.before.as_ref(), w.after.as_ref()])
        .flatten()
        .collect();
    let mut ids = store.put_all(&texts)?.into_iter();
    let mut files = Vec::with_capacity(changed.len());
    for w in changed {
        let before = w.before.as_ref().and_then(|_| ids.next());
        let after = w.after.as_ref().and_then(|_| ids.next());
        let unfenced = w.fence.is_none() && places.boundary.fence(state, &w.path).is_some();
        files.push(FileRecord {
            path: w.path.clone(),
            display: w.display.clone(),
            host: w.host.clone(),
            before,
            after,
            resolved: w.resolved.clone(),
            outside: unfenced.then(|| crate::util::fsutil::resolve(&w.path)),
        });
    }
    let id = generation::next_id(state);
    store.sync();
    journal::write(
        state,
        &journal::Journal {
            id,
            command: command.to_vec(),
            files: files.clone(),
        },
    )?;
    Ok((id, files))
}

/// The result of a scoped thread; its panic as an error.
fn join<T>(handle: std::thread::ScopedJoinHandle<'_, Result<T>>) -> Result<T> {
    handle
        .join()
        .unwrap_or_else(|_| Err(anyhow::anyhow!("a thread of the transaction panicked")))
}

/// What the file system says about a file without reading it: absent, or its size and
/// modification time.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Stamp(Option<(u64, Option<std::time::SystemTime>)>);

impl Stamp {
    fn of(path: &Path) -> Stamp {
        Stamp(
            std::fs::metadata(path)
                .ok()
                .map(|m| (m.len(), m.modified().ok())),
        )
    }
}

/// Fails with [`Conflict`] when `w`'s file no longer holds the bytes the plan was made on.
fn check_unchanged(w: &FileWrite) -> Result<()> {
    let (fence, cap) = (w.fence.as_ref(), crate::util::fence::USER_FILE_CAP);
    let before = w.before.as_deref().map(str::as_bytes);
    let unchanged = if w.resolved.is_empty() {
        crate::util::fence::holds(&w.path, fence, cap, before)?
    } else {
        // The file holds values where the plan holds their markers: compared once redacted.
        let now = crate::util::fence::read(&w.path, fence, cap)?;
        crate::model::resolved_env::redact_bytes(now, &w.resolved).as_deref() == before
    };
    if !unchanged {
        return Err(Conflict {
            display: w.display.clone(),
        }
        .into());
    }
    Ok(())
}

/// Puts back the files a failed transaction replaced and drops its journal; the error says so.
fn undo(state: &Path, replaced: &[&FileWrite], err: anyhow::Error) -> anyhow::Error {
    let mut failed = Vec::new();
    for w in replaced.iter().rev() {
        let back = FileWrite {
            before: w.after.clone(),
            after: w.before.clone(),
            ..(*w).clone()
        };
        if let Err(e) = crate::txn::files::write_one(&back) {
            failed.push(format!("{}: {e:#}", w.display));
        }
    }
    if failed.is_empty() {
        let _ = journal::remove(state);
        err.context(format!(
            "the transaction failed after replacing {} file{}; restored {}, so nothing was changed",
            replaced.len(),
            if replaced.len() == 1 { "" } else { "s" },
            if replaced.len() == 1 { "it" } else { "them" }
        ))
    } else {
        // The journal stays: the next run retries the restore.
        err.context(format!(
            "the transaction failed and these files could not be restored yet (the next dotpack run retries): {}",
            failed.join("; ")
        ))
    }
}

/// Rolls back a transaction whose journal is in one of `places`' state folders (the caller
/// holds their locks), printing what it recovered.
fn recover_locked(places: &Places, printer: &Printer) -> Result<()> {
    for dir in &places.locks {
        if let Some(plan) = recover::plan(dir, &places.boundary)? {
            recover::report(printer, &plan.apply()?);
        }
    }
    Ok(())
}

/// At the start of every command: a journal left in the project's state folder or in
/// `$DOTPACK_HOME` means a dotpack died midway; take the locks and roll it back before doing
/// anything else. A state folder dotpack does not trust is never recovered: a command that
/// only reads says so once and goes on without it, one that writes fails with
/// [`trust::Untrusted`]. Costs a few `stat` calls when there is nothing to recover.
pub fn recover_at_start(
    boundary: &Boundary,
    access: Access,
    wait: Wait,
    printer: &Printer,
) -> Result<()> {
    let places = Places::user(boundary.project_root.as_deref(), boundary.clone());
    let mut trusted = Vec::new();
    for dir in &places.locks {
        match trust::verdict(dir, &boundary.dotpack_home) {
            trust::Verdict::Untrusted(reason) => {
                let home = boundary.is_home(dir);
                if access == Access::Write {
                    return Err(trust::Untrusted {
                        folder: dir.clone(),
                        reason,
                        home,
                    }
                    .into());
                }
                printer.warning(
                    crate::util::error::Error::new(format!(
                        "ignoring the state folder {}: {reason}; its journal and generations are not used",
                        dir.display()
                    ))
                    .help("`dotpack doctor` explains, `dotpack doctor --repair` moves it aside"),
                );
            }
            trust::Verdict::Trusted => trusted.push(dir.clone()),
            trust::Verdict::Absent | trust::Verdict::Empty => {}
        }
    }
    if !trusted.iter().any(|d| journal::path(d).exists()) {
        return Ok(());
    }
    // Only the trusted folders, in the usual order.
    let places = Places {
        locks: trusted,
        ..places
    };
    places.lock(wait, printer)?;
    recover_locked(&places, printer)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_conflict_leaves_no_temporary_file_no_new_folder_and_no_journal() {
        let dir = tempfile::tempdir().unwrap();
        let (root, home) = (dir.path().join("project"), dir.path().join("home"));
        std::fs::create_dir_all(&root).unwrap();
        std::fs::create_dir_all(&home).unwrap();
        let env = crate::model::hosts::HostEnv::new(&home);
        let boundary = Boundary::new(Some(&root), &home.join(".dotpack"), &env);
        let places = Places::project(&root, boundary);
        // The plan read `{}`, but another program wrote the file since.
        std::fs::write(root.join(".mcp.json"), "{\"theirs\": 1}").unwrap();
        let writes = [
            FileWrite::plain(root.join(".mcp.json"), Some("{}"), Some("{\"a\": 1}")),
            FileWrite::plain(root.join(".cursor/mcp.json"), None, Some("{\"a\": 1}")),
        ];
        let printer = Printer::new(true, false, crate::ui::printer::ColorChoice::Never);
        let err = apply(&places, &writes, Meta::default(), Wait::NoWait, &printer).unwrap_err();
        assert!(err.downcast_ref::<Conflict>().is_some(), "{err:#}");
        assert_eq!(
            std::fs::read_to_string(root.join(".mcp.json")).unwrap(),
            "{\"theirs\": 1}"
        );
        assert!(!root.join(".cursor").exists());
        let names: Vec<String> = std::fs::read_dir(&root)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n != PROJECT_STATE)
            .collect();
        assert_eq!(names, [".mcp.json"]);
        assert!(!journal::path(&places.state).exists());
    }
}
