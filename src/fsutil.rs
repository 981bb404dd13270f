//! Small file-system helpers with the guarantees the rest of dotpack relies on.

use std::io::Write;
use std::path::Path;

use anyhow::{Context, Result};

/// Replaces `path` with `bytes` atomically: a temporary file in the same folder, fsync, rename,
/// fsync of the folder. A reader sees the old bytes or the new, never a torn file. The file's
/// permission bits are kept, and a symlink is written through to its target.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let target = match std::fs::canonicalize(path) {
        Ok(real) => real,
        Err(_) => path.to_path_buf(),
    };
    let dir = match target.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => std::path::PathBuf::from("."),
    };
    let old_perms = std::fs::metadata(&target).ok().map(|m| m.permissions());
    let mut builder = tempfile::Builder::new();
    builder.prefix(".dotpack-tmp-");
    // A new file gets the mode any editor would give it (0666 less the umask), not the private
    // 0600 of a temporary file.
    #[cfg(unix)]
    if old_perms.is_none() {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    let mut tmp = builder
        .tempfile_in(&dir)
        .with_context(|| format!("cannot create a temporary file in {}", dir.display()))?;
    tmp.write_all(bytes)
        .and_then(|()| tmp.as_file().sync_all())
        .with_context(|| format!("cannot write {}", target.display()))?;
    if let Some(perms) = old_perms {
        std::fs::set_permissions(tmp.path(), perms)
            .with_context(|| format!("cannot set permissions on {}", target.display()))?;
    }
    tmp.persist(&target)
        .map_err(|e| e.error)
        .with_context(|| format!("cannot replace {}", target.display()))?;
    sync_dir(&dir);
    Ok(())
}

/// Flushes a folder's entries so a rename survives power loss. Best effort: not every platform
/// or file system allows opening a directory.
pub fn sync_dir(dir: &Path) {
    if let Ok(d) = std::fs::File::open(dir) {
        let _ = d.sync_all();
    }
}

/// A unified diff of `old` -> `new` for `--dry-run`, labelled with `path`.
pub fn unified_diff(path: &str, old: &str, new: &str) -> String {
    similar::TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(3)
        .header(&format!("a/{path}"), &format!("b/{path}"))
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn write_atomic_keeps_mode() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f");
        std::fs::write(&p, "a").unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o600)).unwrap();
        write_atomic(&p, b"b").unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "b");
        let mode = std::fs::metadata(&p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
    }

    #[test]
    fn new_files_get_the_umask_mode_not_0600() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("new.json");
        write_atomic(&p, b"{}").unwrap();
        let mode = std::fs::metadata(&p).unwrap().permissions().mode() & 0o777;
        // 0666 less whatever the umask takes away: at least owner read/write, never 0600 alone
        // unless the umask asks for it.
        let umask_mode = {
            let probe = dir.path().join("probe");
            std::fs::File::create(&probe).unwrap();
            std::fs::metadata(&probe).unwrap().permissions().mode() & 0o777
        };
        assert_eq!(mode, umask_mode);
    }
}
