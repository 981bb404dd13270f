//! Applying: the file-level half of writing. A command computes the complete set of new file
//! contents (manifest, lock, claims, host files); [`preflight`] checks that every one can be
//! written before any is, and [`write_one`] replaces one atomically, keeping modes and symlinks.
//! [`crate::txn`] makes the whole set one transaction.

use std::path::{Path, PathBuf};

use anyhow::{Result, bail};

use crate::util::text::Text;

/// One file's old and new bytes (`None`: absent / to delete).
#[derive(Clone, Debug)]
pub struct FileWrite {
    pub path: PathBuf,
    /// How to name the file in messages and diffs.
    pub display: String,
    /// The host whose config file this is; `None` for dotpack's own files.
    pub host: Option<String>,
    pub before: Option<Text>,
    pub after: Option<Text>,
    /// When the file is deleted: how many of its folders dotpack created with it, removed too
    /// when they are empty.
    pub remove_dirs: u32,
    /// Variables whose values `before` and `after` hold as markers (`--resolve-env`): the
    /// values are put in when the file is written, which also makes it readable by its owner
    /// only (see [`crate::model::resolved_env`]).
    pub resolved: Vec<String>,
    /// The folder the file belongs to and must stay inside once links are followed (the
    /// project, for project files); `None` for the user's own files (`$DOTPACK_HOME`, user-scope
    /// host files), whose links lead wherever the user made them lead.
    pub fence: Option<crate::util::fence::Fence>,
}

impl FileWrite {
    pub fn is_changed(&self) -> bool {
        self.before != self.after
    }

    /// For tests: a file of dotpack's own (no host, no fence) going from `before` to `after`.
    #[cfg(test)]
    pub(crate) fn plain(path: PathBuf, before: Option<&str>, after: Option<&str>) -> FileWrite {
        FileWrite {
            display: path.display().to_string(),
            host: None,
            path,
            before: before.map(Text::from),
            after: after.map(Text::from),
            remove_dirs: 0,
            resolved: Vec::new(),
            fence: None,
        }
    }
}

/// Fails, before anything is written, when a file that must change cannot be: a folder where a
/// file should be, a symlink to nothing, a file or folder this process may not write (checked
/// for real, not from the mode bits alone: a root-owned file in your folder is refused, not
/// replaced by a rename).
pub fn preflight(writes: &[FileWrite]) -> Result<()> {
    for w in writes.iter().filter(|w| w.is_changed()) {
        crate::util::fence::check_write(&w.path, w.fence.as_ref())?;
        if let Err(err) = crate::util::fsutil::check_writable(&w.path) {
            let hint = if w.host.is_some() {
                "make it writable, or leave this host out with --host"
            } else {
                "make it writable"
            };
            crate::bail_help!(help = hint, "{err:#}; nothing was changed");
        }
    }
    Ok(())
}

/// Gives one file its `after` state: created (with its folders), replaced atomically, or
/// deleted.
pub fn write_one(w: &FileWrite) -> Result<()> {
    if let Some(dir) = write_one_unsynced(w)? {
        crate::util::fsutil::sync_dir(&dir);
    }
    Ok(())
}

/// The first half of [`write_one_unsynced`] for a file that gets new bytes: its folders created
/// and the bytes flushed under a temporary name beside it; `None` for a file to delete.
pub fn stage_one(w: &FileWrite) -> Result<Option<crate::util::fsutil::Staged>> {
    crate::util::fence::check_write(&w.path, w.fence.as_ref())?;
    let Some(text) = &w.after else {
        return Ok(None);
    };
    if let Some(parent) = w.path.parent() {
        create_dirs(parent)?;
    }
    let holds_values =
        !w.resolved.is_empty() && !crate::model::resolved_env::vars_in(text).is_empty();
    let options = crate::util::fsutil::WriteOptions {
        sync_dir: false,
        owner_only: holds_values,
        ..crate::util::fsutil::WriteOptions::SHARED
    };
    let text = if holds_values {
        std::borrow::Cow::Owned(
            crate::model::resolved_env::materialize(text, &w.resolved)
                .map_err(|e| anyhow::anyhow!("{}: {e:#}", w.display))?,
        )
    } else {
        std::borrow::Cow::Borrowed(text.as_str())
    };
    crate::util::fsutil::stage(&w.path, text.as_bytes(), options).map(Some)
}

/// The second half: the staged file renamed into place (or the file deleted); returns the
/// folder to sync, as [`write_one_unsynced`] does.
pub fn commit_one(
    w: &FileWrite,
    staged: Option<crate::util::fsutil::Staged>,
) -> Result<Option<PathBuf>> {
    match staged {
        Some(staged) => staged.commit().map(Some),
        None => {
            remove(&w.path)?;
            remove_empty_dirs(&w.path, w.remove_dirs);
            Ok(None)
        }
    }
}

/// [`write_one`] without flushing the folder's entries: returns the folder the caller must
/// [`crate::util::fsutil::sync_dir`] before it relies on the new name (a transaction syncs each folder
/// once, however many of its files it replaced). The file's bytes are flushed.
pub fn write_one_unsynced(w: &FileWrite) -> Result<Option<PathBuf>> {
    commit_one(w, stage_one(w)?)
}

/// Removes up to `levels` folders above `path`, innermost first, while they are empty: the
/// folders dotpack created for a file go with it.
fn remove_empty_dirs(path: &Path, levels: u32) {
    for dir in path.ancestors().skip(1).take(levels as usize) {
        if std::fs::remove_dir(dir).is_err() {
            break;
        }
        if let Some(parent) = dir.parent() {
            crate::util::fsutil::sync_dir(parent);
        }
    }
}

fn create_dirs(dir: &Path) -> Result<()> {
    if dir.as_os_str().is_empty() || dir.is_dir() {
        return Ok(());
    }
    fs_err::create_dir_all(dir)?;
    Ok(())
}

/// Deletes `path`. A symlink is not deleted through: dotpack never created one.
fn remove(path: &Path) -> Result<()> {
    if std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) {
        crate::bail_help!(
            help = "remove it yourself if it should go",
            file = path,
            "{} is a symbolic link; dotpack does not delete links",
            path.display()
        );
    }
    match std::fs::remove_file(path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => bail!("cannot remove {}: {e}", path.display()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn preflight_refuses_read_only_files_and_folders() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let ro = dir.path().join("ro.json");
        std::fs::write(&ro, "{}").unwrap();
        std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o444)).unwrap();
        let err = preflight(&[FileWrite::plain(ro.clone(), Some("{}"), Some("{ }"))]).unwrap_err();
        assert!(err.to_string().contains("read-only"));
        // An unchanged read-only file is fine.
        preflight(&[FileWrite::plain(ro, Some("{}"), Some("{}"))]).unwrap();
        let folder = dir.path().join("sub");
        std::fs::create_dir(&folder).unwrap();
        let err = preflight(&[FileWrite::plain(folder, None, Some("{}"))]).unwrap_err();
        assert!(err.to_string().contains("is a folder"));
    }

    #[test]
    fn write_one_creates_replaces_and_deletes() {
        let dir = tempfile::tempdir().unwrap();
        let new = dir.path().join("a/b/new.json");
        let gone = dir.path().join("gone.json");
        std::fs::write(&gone, "x").unwrap();
        write_one(&FileWrite::plain(new.clone(), None, Some("{}\n"))).unwrap();
        write_one(&FileWrite::plain(gone.clone(), Some("x"), None)).unwrap();
        assert_eq!(std::fs::read_to_string(new).unwrap(), "{}\n");
        assert!(!gone.exists());
    }
}
