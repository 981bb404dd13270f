//! What is on disk for the files a resource plan looks at, read once before planning, with
//! every path checked to stay below its base folder.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use anyhow::{Result, bail};

use super::want::DesiredFile;
use crate::model::resources::claim::FileClaim;

/// What is on disk for the paths a plan looks at, read once.
#[derive(Clone, Debug, Default)]
pub struct Disk {
    /// Each file's text (`None`: absent).
    pub files: BTreeMap<String, Option<String>>,
    /// How many folders above each absent file do not exist (below the project root).
    pub missing_dirs: BTreeMap<String, u32>,
    /// Whether each skill folder exists.
    pub folders: BTreeMap<String, bool>,
}

/// The folder the resource files of `scope` stay inside: the project, or the home folder.
pub fn fence(root: &Path, scope: crate::model::hosts::Scope) -> crate::util::fence::Fence {
    match scope {
        crate::model::hosts::Scope::Project => crate::util::fence::Fence::project(root),
        crate::model::hosts::Scope::User => crate::util::fence::Fence::new(root, "the home folder"),
    }
}

/// The paths a plan must read: every wanted file, every claimed file, and every skill folder.
pub fn paths_to_read(
    desired: &[DesiredFile],
    claims: &[FileClaim],
) -> (BTreeSet<String>, BTreeSet<String>) {
    let files = desired
        .iter()
        .map(|d| d.file.clone())
        .chain(claims.iter().map(|c| c.file.clone()))
        .collect();
    let folders = desired.iter().filter_map(|d| d.folder.clone()).collect();
    (files, folders)
}

/// Reads what is on disk for `files` and `folders` (relative to `root`). A path that resolves
/// outside the project (through a link) is refused: a repository cannot make dotpack write
/// elsewhere. A folder where a file should be, or a file that is not UTF-8, is an error naming it.
pub fn read_disk(
    root: &Path,
    scope: crate::model::hosts::Scope,
    files: &BTreeSet<String>,
    folders: &BTreeSet<String>,
) -> Result<Disk> {
    let fence = fence(root, scope);
    let mut disk = Disk::default();
    let inside = |rel: &str| -> Result<PathBuf> {
        if crate::model::resources::check_path(rel).is_err() {
            bail!(
                "a file claim names `{rel}`, which is not a path below {}; restore dotpack.lock (or $DOTPACK_HOME/claims.toml) from version control or a backup",
                root.display()
            );
        }
        let path = root.join(rel);
        fence.check(&path)?;
        Ok(path)
    };
    for rel in files {
        let path = inside(rel)?;
        if path.is_dir() {
            crate::bail_help!(
                help = "move the folder away, or leave this host out with --host",
                "{rel} is a folder where dotpack would write a file"
            );
        }
        let text = match crate::util::fence::read(
            &path,
            Some(&fence),
            crate::util::fence::PROJECT_FILE_CAP,
        )? {
            Some(bytes) => Some(String::from_utf8(bytes).map_err(|_| {
                crate::util::error::Error::new(format!(
                    "{rel} is not UTF-8 text; dotpack leaves it alone"
                ))
                .help("move it away, or leave this host out with --host")
            })?),
            None => None,
        };
        if text.is_none() {
            let mut missing = 0;
            for dir in path.ancestors().skip(1) {
                if dir == root || !dir.starts_with(root) || dir.exists() {
                    break;
                }
                missing += 1;
            }
            disk.missing_dirs.insert(rel.clone(), missing);
        }
        disk.files.insert(rel.clone(), text);
    }
    for rel in folders {
        let path = inside(rel)?;
        disk.folders
            .insert(rel.clone(), std::fs::symlink_metadata(&path).is_ok());
    }
    Ok(disk)
}
