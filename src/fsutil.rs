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

/// Where `path` really is: its longest existing prefix with every symlink resolved, followed by
/// the components that do not exist yet. A file that is a dangling symlink resolves to the path
/// the link names.
pub fn resolve(path: &Path) -> std::path::PathBuf {
    resolve_within(path, 40)
}

/// [`resolve`], following at most `links` dangling links (a loop of links stops there).
fn resolve_within(path: &Path, links: u32) -> std::path::PathBuf {
    let mut rest = Vec::new();
    let mut at = path;
    loop {
        if let Ok(real) = std::fs::canonicalize(at) {
            let mut out = real;
            for part in rest.iter().rev() {
                out.push(part);
            }
            return out;
        }
        if let Ok(target) = std::fs::read_link(at)
            && links > 0
        {
            // A dangling link: where it points, resolved against its folder.
            let base = at.parent().unwrap_or(Path::new("/"));
            let mut out = resolve_within(&base.join(target), links - 1);
            for part in rest.iter().rev() {
                out.push(part);
            }
            return out;
        }
        match (at.parent(), at.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_os_string());
                at = parent;
            }
            _ => return path.to_path_buf(),
        }
    }
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
    fn resolve_follows_links_of_existing_folders_and_keeps_the_rest() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir(root.join("real")).unwrap();
        std::os::unix::fs::symlink(root.join("real"), root.join("link")).unwrap();
        assert_eq!(
            resolve(&root.join("link/a/b.json")),
            root.join("real/a/b.json")
        );
        std::os::unix::fs::symlink("/nowhere/x.json", root.join("dangling")).unwrap();
        assert_eq!(
            resolve(&root.join("dangling")),
            Path::new("/nowhere/x.json")
        );
        std::os::unix::fs::symlink(root.join("loop-b"), root.join("loop-a")).unwrap();
        std::os::unix::fs::symlink(root.join("loop-a"), root.join("loop-b")).unwrap();
        let _ = resolve(&root.join("loop-a"));
    }

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
