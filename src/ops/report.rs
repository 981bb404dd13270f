//! What a writing command changed, as `--json` prints it: one versioned shape for `add`,
//! `remove`, `update`, `install`, `uninstall`, `adopt` and `import --into`, built from the plan
//! and the lock changes (never from printed text).

use serde::Serialize;

use crate::plan::{Action, Plan};

/// `{"schema": 1, …}` on stdout after the command (`--dry-run`: what it would change).
#[derive(Debug, Default, Serialize)]
pub struct CommitReport {
    pub schema: u32,
    pub dry_run: bool,
    /// The generation recorded, `null` when nothing changed (or a dry run).
    pub generation: Option<u64>,
    /// Edits of `dotpack.toml`, as the status lines say them (`Adding figma "^0.3" …`).
    pub manifest: Vec<String>,
    /// Packages added, updated, removed or repinned in `dotpack.lock`.
    pub packages: Vec<crate::txn::PackageChange>,
    /// Host files with at least one entry changed.
    pub files: Vec<FileReport>,
    pub warnings: Vec<String>,
}

#[derive(Debug, Serialize)]
pub struct FileReport {
    pub file: String,
    pub host: &'static str,
    pub scope: crate::model::hosts::Scope,
    /// `create`, `edit`, `delete`, or `claim` (claims changed, bytes did not).
    pub action: &'static str,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub added: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub updated: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub removed: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub adopted: Vec<String>,
    /// User-scope entries another project declares the same way: this one became an owner too.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub shared: Vec<String>,
    /// User-scope entries this project no longer declares, left to their other owners.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub released: Vec<String>,
    /// Entries edited by hand that nothing declares any more, left to the user
    /// (`--keep-edited`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub disowned: Vec<String>,
    /// Fields dropped as lossy, as `server.field`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub dropped: Vec<String>,
}

/// The host files of `plan` whose entries change.
pub fn files(plan: &Plan) -> Vec<FileReport> {
    let mut out = Vec::new();
    for file in &plan.files {
        let names = |a: Action| -> Vec<String> {
            file.changes
                .iter()
                .filter(|c| c.action == a)
                .map(|c| c.server.clone())
                .collect()
        };
        let report = FileReport {
            file: file.target.claim_file.clone(),
            host: file.target.host.id,
            scope: file.target.scope,
            action: if !file.is_changed() {
                "claim"
            } else if file.before.is_none() {
                "create"
            } else if file.after.is_none() {
                "delete"
            } else {
                "edit"
            },
            added: names(Action::Add),
            updated: names(Action::Update),
            removed: names(Action::Remove),
            adopted: names(Action::Adopt),
            shared: names(Action::Share),
            released: names(Action::Release),
            disowned: names(Action::Disown),
            dropped: file
                .changes
                .iter()
                .flat_map(|c| c.dropped.iter().map(move |d| format!("{}.{d}", c.server)))
                .collect(),
        };
        if report.entries() > 0 || file.is_changed() {
            out.push(report);
        }
    }
    out
}

impl FileReport {
    /// How many entries the file's change is about.
    pub fn entries(&self) -> usize {
        self.parts().iter().map(|(names, _)| names.len()).sum()
    }

    /// Each list of entries with the word status lines use for it.
    pub fn parts(&self) -> [(&[String], &'static str); 7] {
        [
            (&self.added, "added"),
            (&self.updated, "updated"),
            (&self.removed, "removed"),
            (&self.adopted, "adopted"),
            (&self.shared, "shared with other projects"),
            (&self.released, "left to other projects"),
            (&self.disowned, "edited by hand, left to you"),
        ]
    }

    /// The status line's verb: `Created`, `Updated`, `Deleted` or `Claimed`.
    pub fn verb(&self) -> &'static str {
        match self.action {
            "create" => "Created",
            "delete" => "Deleted",
            "claim" => "Claimed",
            _ => "Updated",
        }
    }
}
