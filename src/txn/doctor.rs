//! `dotpack doctor`: the health of the state folders a command in this place uses (the
//! project's `.dotpack/` and `$DOTPACK_HOME`), and with `--repair` the way out of what stops
//! dotpack: an untrusted folder or a journal recovery cannot act on is moved aside (renamed,
//! never deleted), and a journal that can be recovered is.

use std::path::{Path, PathBuf};

use anyhow::Result;
use serde::Serialize;

use super::recover::{self, Now};
use super::trust::{self, Distrust, Verdict};
use super::{Boundary, PROJECT_STATE, Wait, generation, journal, lock, store::Store};
use crate::ui::printer::Printer;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Ok,
    /// dotpack refuses or fails because of it until it is repaired.
    Problem,
    /// Worth knowing; nothing refuses because of it.
    Warning,
    /// Found and repaired by `--repair`.
    Repaired,
}

/// One thing doctor found about one state folder.
#[derive(Clone, Debug, Serialize)]
pub struct Finding {
    pub folder: PathBuf,
    /// `project` or `user`.
    pub scope: &'static str,
    pub status: Status,
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub help: Option<String>,
    /// The files an interrupted transaction's journal names and where each stands.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<JournalFile>,
}

#[derive(Clone, Debug, Serialize)]
pub struct JournalFile {
    pub path: PathBuf,
    /// Relative to the project when inside it.
    pub display: String,
    /// `before`, `after` (as the interrupted command left it), `changed` (by someone else since)
    /// or `outside` (a path dotpack could not have written; not read).
    pub now: &'static str,
}

/// Examines the project's state folder (when there is a project) and `$DOTPACK_HOME`; with
/// `repair`, repairs what it can (taking each folder's lock first).
pub fn run(
    boundary: &Boundary,
    repair: bool,
    wait: Wait,
    printer: &Printer,
) -> Result<Vec<Finding>> {
    // The project's folder is `$DOTPACK_HOME` itself for a project in the home folder.
    let mut folders: Vec<(PathBuf, &'static str)> = boundary
        .project_root
        .iter()
        .map(|root| root.join(PROJECT_STATE))
        .filter(|f| !boundary.is_home(f))
        .map(|f| (f, "project"))
        .collect();
    folders.push((boundary.dotpack_home.clone(), "user"));
    let mut findings = Vec::new();
    for (folder, scope) in folders {
        let mut doctor = Doctor {
            folder: &folder,
            scope,
            boundary,
            findings: Vec::new(),
        };
        doctor.examine(repair, wait, printer)?;
        findings.append(&mut doctor.findings);
    }
    Ok(findings)
}

struct Doctor<'a> {
    folder: &'a Path,
    scope: &'static str,
    boundary: &'a Boundary,
    findings: Vec<Finding>,
}

impl Doctor<'_> {
    fn push(&mut self, status: Status, message: String, help: Option<&str>) -> &mut Finding {
        self.findings.push(Finding {
            folder: self.folder.to_path_buf(),
            scope: self.scope,
            status,
            message,
            help: help.map(str::to_string),
            files: Vec::new(),
        });
        let last = self.findings.len() - 1;
        &mut self.findings[last]
    }

    fn examine(&mut self, repair: bool, wait: Wait, printer: &Printer) -> Result<()> {
        let home = self.boundary.is_home(self.folder);
        match trust::verdict(self.folder, &self.boundary.dotpack_home) {
            Verdict::Absent => {
                self.push(Status::Ok, "not created yet".into(), None);
                return Ok(());
            }
            Verdict::Empty => {
                self.push(
                    Status::Ok,
                    "empty; the next writing command uses it".into(),
                    None,
                );
                return Ok(());
            }
            Verdict::Untrusted(reason) => return self.untrusted(reason, home, repair),
            Verdict::Trusted => {}
        }
        let before = self.findings.len();
        self.journal(repair, wait, printer)?;
        self.generations();
        if !self.findings[before..]
            .iter()
            .any(|f| f.status == Status::Problem)
        {
            let generations = generation::ids(self.folder).len();
            let snapshots = Store::new(self.folder).len();
            self.push(
                Status::Ok,
                format!(
                    "{}; {generations} generation{}, {snapshots} snapshot{}",
                    if home {
                        "yours"
                    } else {
                        "made by dotpack on this machine"
                    },
                    plural(generations),
                    plural(snapshots)
                ),
                None,
            );
        }
        Ok(())
    }

    fn untrusted(&mut self, reason: Distrust, home: bool, repair: bool) -> Result<()> {
        let message = format!("{reason}; dotpack does not use its journal or generations");
        let error = trust::Untrusted {
            folder: self.folder.to_path_buf(),
            reason: reason.clone(),
            home,
        };
        let help = crate::util::error::Fix::error(&error)
            .fix()
            .map(str::to_string);
        // What moving aside applies to: a project's whole folder, or a link inside the home.
        let target = match (&reason, home) {
            (_, false) => Some(self.folder.to_path_buf()),
            (Distrust::LinkInside(name), true) => Some(self.folder.join(name)),
            _ => None,
        };
        match target {
            Some(target) if repair => {
                let moved = trust::move_aside(&target, "untrusted")?;
                self.push(
                    Status::Repaired,
                    format!(
                        "{message}; moved {} to {} (nothing was deleted)",
                        target.display(),
                        moved.display()
                    ),
                    None,
                );
            }
            _ => {
                self.push(Status::Problem, message, help.as_deref());
            }
        }
        Ok(())
    }

    /// An interrupted transaction: recovered with `repair` when it can be, else shown and (with
    /// `repair`) moved aside.
    fn journal(&mut self, repair: bool, wait: Wait, printer: &Printer) -> Result<()> {
        if !journal::path(self.folder).exists() {
            return Ok(());
        }
        if repair {
            lock::acquire(self.folder, wait, printer)?;
        }
        match recover::plan(self.folder, self.boundary) {
            Ok(None) => {}
            Ok(Some(plan)) if repair => {
                let recovered = plan.apply()?;
                recover::report(printer, &recovered);
                self.push(
                    Status::Repaired,
                    "rolled back an interrupted transaction".into(),
                    None,
                );
            }
            Ok(Some(plan)) => {
                let files = describe(&plan.files);
                self.push(
                    Status::Problem,
                    "an interrupted transaction: the next dotpack command rolls it back".into(),
                    Some("run any dotpack command, or `dotpack doctor --repair`"),
                )
                .files = files;
            }
            Err(stuck) => {
                let files = recover::inspect(self.folder, self.boundary)
                    .ok()
                    .flatten()
                    .map(|(_, files)| describe(&files))
                    .unwrap_or_default();
                if repair {
                    let moved = trust::move_aside(&journal::path(self.folder), "unrecovered")?;
                    self.push(
                        Status::Repaired,
                        format!(
                            "{}; moved the journal to {} (the files it names stay as they are now: `dotpack status` shows what differs from dotpack.lock)",
                            stuck.why,
                            moved.display()
                        ),
                        None,
                    )
                    .files = files;
                } else {
                    self.push(
                        Status::Problem,
                        format!("an interrupted transaction that cannot be recovered: {}", stuck.why),
                        Some("`dotpack doctor --repair` moves the journal aside (nothing is deleted); check the files it names"),
                    )
                    .files = files;
                }
            }
        }
        Ok(())
    }

    /// Generation records rollback would refuse, and snapshots they need that are gone.
    fn generations(&mut self) {
        let store = Store::new(self.folder);
        let mut missing = std::collections::BTreeSet::new();
        for id in generation::ids(self.folder) {
            let path = generation::record_path(self.folder, id);
            let g = match generation::load(self.folder, id) {
                Ok(g) => g,
                Err(e) => {
                    self.push(Status::Problem, format!("{e:#}"), Some(DELETE_RECORD));
                    continue;
                }
            };
            if let Err(refused) = self.boundary.check_files(self.folder, &g.files) {
                self.push(
                    Status::Problem,
                    format!(
                        "{} names {} ({}): rollback refuses while it is there",
                        path.display(),
                        refused.path.display(),
                        refused.why
                    ),
                    Some(DELETE_RECORD),
                );
                continue;
            }
            missing.extend(
                g.files
                    .iter()
                    .flat_map(|f| [&f.before, &f.after])
                    .flatten()
                    .filter(|h| !store.contains(h))
                    .cloned(),
            );
        }
        let missing = missing.len();
        if missing > 0 {
            self.push(
                Status::Warning,
                format!(
                    "{missing} snapshot{} the generations refer to {} missing: rolling back to those generations fails",
                    plural(missing),
                    if missing == 1 { "is" } else { "are" }
                ),
                Some("`dotpack gc` never deletes a snapshot a kept generation uses; something else did"),
            );
        }
    }
}

const DELETE_RECORD: &str = "delete the record if you do not need it: rollback checks every record before it changes anything";

fn describe(files: &[recover::FileNow]) -> Vec<JournalFile> {
    files
        .iter()
        .map(|f| JournalFile {
            path: f.path.clone(),
            display: f.display.clone(),
            now: match f.now {
                Now::Before => "before",
                Now::After => "after",
                Now::Changed => "changed",
                Now::Outside(_) => "outside",
            },
        })
        .collect()
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}
