//! Small file-system helpers with the guarantees the rest of dotpack relies on. Every file
//! dotpack writes goes through [`write_atomic`] (or [`write_atomic_with`]): host files, the
//! manifest and lock, journals, generation records, snapshots and registry index files.

use std::io::Write;
use std::path::{Component, Path, PathBuf};

use anyhow::{Context, Result, bail};

/// How [`write_atomic_with`] creates and flushes a file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WriteOptions {
    /// Permission bits of a file that did not exist (less the umask). An existing file always
    /// keeps its own.
    pub new_mode: u32,
    /// fsync the file before the rename, so its bytes survive a power loss.
    pub sync_file: bool,
    /// fsync the folder after the rename, so the new name survives a power loss. A caller
    /// writing many files into one folder can skip it and call [`sync_dir`] once.
    pub sync_dir: bool,
    /// The file holds a secret: readable and writable by its owner only (0600), whatever its
    /// mode was.
    pub owner_only: bool,
}

impl WriteOptions {
    /// Files people and hosts read: the mode any editor gives a new file (0666 less the
    /// umask), durable.
    pub const SHARED: WriteOptions = WriteOptions {
        new_mode: 0o666,
        sync_file: true,
        sync_dir: true,
        owner_only: false,
    };

    /// Files only dotpack reads that may hold secrets (snapshots of `~/.claude.json`): 0600.
    pub const PRIVATE: WriteOptions = WriteOptions {
        new_mode: 0o600,
        ..WriteOptions::SHARED
    };
}

/// The most items [`par_map`] works on at once (so also the most requests in flight when it
/// fetches).
pub const PAR_MAP_THREADS: usize = 8;

/// Runs `f` on every item on a few threads and returns the results in order. fsync is the cost
/// of every writing command: flushes issued together are committed together by the file system
/// (one journal commit for many files), so a transaction flushes its files side by side instead
/// of one after the other.
pub fn par_map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    const THREADS: usize = PAR_MAP_THREADS;
    if items.len() < 2 {
        return items.iter().map(f).collect();
    }
    let next = std::sync::atomic::AtomicUsize::new(0);
    let mut results: Vec<Option<R>> = Vec::with_capacity(items.len());
    results.resize_with(items.len(), || None);
    let slots = std::sync::Mutex::new(&mut results);
    let work = || {
        loop {
            let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let Some(item) = items.get(i) else { break };
            let r = f(item);
            if let Ok(mut slots) = slots.lock() {
                slots[i] = Some(r);
            }
        }
    };
    // The calling thread works too: one thread fewer to start.
    std::thread::scope(|scope| {
        for _ in 1..THREADS.min(items.len()) {
            scope.spawn(work);
        }
        work();
    });
    results.into_iter().flatten().collect()
}

/// A file written and flushed under a temporary name in its target's folder, not yet in place:
/// [`Staged::commit`] renames it over the target. Dropped uncommitted, it is deleted.
pub struct Staged {
    tmp: tempfile::NamedTempFile,
    target: PathBuf,
    dir: PathBuf,
}

impl Staged {
    /// Renames the file into place; returns the folder to [`sync_dir`] for the name to last.
    pub fn commit(self) -> Result<PathBuf> {
        let target = self.target;
        self.tmp
            .persist(&target)
            .map_err(|e| e.error)
            .with_context(|| format!("cannot replace {}", target.display()))?;
        Ok(self.dir)
    }
}

/// The first half of [`write_atomic_with`]: the bytes written (and flushed, per `options`) next
/// to `path`'s real target, with the target's permission bits.
pub fn stage(path: &Path, bytes: &[u8], options: WriteOptions) -> Result<Staged> {
    let target = real_target(path)?;
    let dir = match target.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let old_perms = std::fs::metadata(&target).ok().map(|m| m.permissions());
    let mut builder = tempfile::Builder::new();
    builder.prefix(TEMP_PREFIX);
    #[cfg(unix)]
    if old_perms.is_none() {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(options.new_mode));
    }
    let mut tmp = builder
        .tempfile_in(&dir)
        .with_context(|| format!("cannot create a temporary file in {}", dir.display()))?;
    tmp.write_all(bytes)
        .and_then(|()| {
            if options.sync_file && durable() {
                tmp.as_file().sync_all()
            } else {
                Ok(())
            }
        })
        .with_context(|| format!("cannot write {}", target.display()))?;
    #[cfg(unix)]
    let old_perms = if options.owner_only {
        use std::os::unix::fs::PermissionsExt;
        Some(std::fs::Permissions::from_mode(0o600))
    } else {
        old_perms
    };
    if let Some(perms) = old_perms {
        std::fs::set_permissions(tmp.path(), perms)
            .with_context(|| format!("cannot set permissions on {}", target.display()))?;
    }
    Ok(Staged { tmp, target, dir })
}

/// Replaces `path` with `bytes` atomically: a temporary file in the same folder, fsync, rename,
/// fsync of the folder. A reader sees the old bytes or the new, never a torn file. The file's
/// permission bits are kept, and a symlink is written through to its target; a symlink whose
/// target does not exist is an error (it is never replaced by a regular file).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    write_atomic_with(path, bytes, WriteOptions::SHARED)
}

/// [`write_atomic`] with the mode of a new file and the flushing chosen by the caller.
pub fn write_atomic_with(path: &Path, bytes: &[u8], options: WriteOptions) -> Result<()> {
    let dir = stage(path, bytes, options)?.commit()?;
    if options.sync_dir {
        sync_dir(&dir);
    }
    Ok(())
}

/// The prefix of the temporary files [`write_atomic`] leaves when it is killed midway.
pub const TEMP_PREFIX: &str = ".dotpack-tmp-";

/// The file a write to `path` lands in: `path` itself, or the target of the symlink at `path`.
/// A symlink to nothing is an error naming both: writing would replace the link by a file.
pub fn real_target(path: &Path) -> Result<PathBuf> {
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => match std::fs::canonicalize(path) {
            Ok(real) => Ok(real),
            Err(_) => Err(dangling(path).into()),
        },
        _ => Ok(path.to_path_buf()),
    }
}

fn dangling(path: &Path) -> crate::util::error::Error {
    let to = std::fs::read_link(path)
        .map(|t| t.display().to_string())
        .unwrap_or_else(|_| "?".into());
    crate::util::error::Error::new(format!(
        "{} is a symbolic link to {to}, which does not exist; dotpack does not replace a link with a file",
        path.display()
    ))
    .help("create the file the link points to, or remove the link")
    .file(path)
}

/// Fails unless dotpack can give `path` new bytes (or delete it) by writing a temporary file
/// beside it and renaming it over: the file (when it exists) must be writable by this process,
/// not only by its mode bits, and so must the folder the rename happens in. A symlink is checked
/// at its target; a symlink to nothing fails.
pub fn check_writable(path: &Path) -> Result<()> {
    let target = real_target(path)?;
    let meta = match std::fs::metadata(&target) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            // Created: the nearest folder that exists must let us create entries.
            let dir = nearest_existing(target.parent().unwrap_or(Path::new(".")));
            if !dir.is_dir() {
                bail!(
                    "{} is not a folder, so dotpack cannot create {} in it",
                    dir.display(),
                    path.display()
                );
            }
            return check_folder(&dir, path);
        }
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
    };
    if meta.is_dir() {
        bail!(
            "{} is a folder, but dotpack needs to write a file there",
            path.display()
        );
    }
    if meta.permissions().readonly() || !super::portable::writable(&target, false) {
        bail!(
            "{} is read-only for you, so dotpack cannot update it",
            target.display()
        );
    }
    check_folder(target.parent().unwrap_or(Path::new(".")), path)
}

fn check_folder(dir: &Path, path: &Path) -> Result<()> {
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    if !super::portable::writable(dir, true) {
        bail!(
            "the folder {} is read-only for you, so dotpack cannot replace {} (it writes a new file beside it and renames it over)",
            dir.display(),
            path.display()
        );
    }
    Ok(())
}

/// The longest prefix of `path` that exists (`path` itself when it does).
fn nearest_existing(path: &Path) -> PathBuf {
    let mut dir = path;
    loop {
        if dir.as_os_str().is_empty() {
            return PathBuf::from(".");
        }
        if std::fs::symlink_metadata(dir).is_ok() {
            return dir.to_path_buf();
        }
        match dir.parent() {
            Some(parent) => dir = parent,
            None => return dir.to_path_buf(),
        }
    }
}

/// Where `path` really is: its longest existing prefix with every symlink resolved, followed by
/// the components that do not exist yet. A dangling symlink resolves to the path the link names.
/// `..` components are kept as they are in the part that does not exist (callers that care
/// reject them first).
pub fn resolve(path: &Path) -> PathBuf {
    resolve_within(path, 40)
}

/// [`resolve`], following at most `links` dangling links (a loop of links stops there).
fn resolve_within(path: &Path, links: u32) -> PathBuf {
    let mut rest: Vec<std::ffi::OsString> = Vec::new();
    let mut at = path;
    let finish =
        |base: PathBuf, rest: &[std::ffi::OsString]| rest.iter().rev().fold(base, |p, c| p.join(c));
    loop {
        // One `lstat` tells a missing component from one that exists, before the walk over every
        // component that resolving a path costs (host files often sit in folders not made yet).
        let here = std::fs::symlink_metadata(at);
        if here.is_ok()
            && let Ok(real) = std::fs::canonicalize(at)
        {
            return finish(real, &rest);
        }
        if here.is_ok_and(|m| m.file_type().is_symlink())
            && let Ok(target) = std::fs::read_link(at)
            && links > 0
        {
            // A dangling link: where it points, resolved against its folder.
            let base = at.parent().unwrap_or(Path::new("/"));
            return finish(resolve_within(&base.join(target), links - 1), &rest);
        }
        match (at.file_name(), at.parent()) {
            (Some(name), Some(parent)) => {
                rest.push(name.to_os_string());
                at = parent;
            }
            _ => return path.to_path_buf(),
        }
    }
}

/// Where `path` really is, following symlinks in its folders but not a symlink at `path`
/// itself: the place whose folder a write to `path` changes.
pub fn resolve_parent(path: &Path) -> PathBuf {
    match (path.parent(), path.file_name()) {
        (Some(parent), Some(name)) => resolve(parent).join(name),
        _ => resolve(path),
    }
}

/// Whether `path` has a `..` component.
pub fn has_parent_component(path: &Path) -> bool {
    path.components().any(|c| c == Component::ParentDir)
}

/// Whether writes are flushed to disk: yes, unless `DOTPACK_FSYNC=0`, read once. Turning it off
/// (as git's test suite does with `GIT_TEST_FSYNC=0`) keeps every ordering and rename, so a killed
/// process still leaves each file before or after, and gives up only surviving a power loss: for
/// test suites and throwaway machines, where the flushes are most of a command's time.
pub fn durable() -> bool {
    static DURABLE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *DURABLE.get_or_init(|| std::env::var_os("DOTPACK_FSYNC").is_none_or(|v| v != "0"))
}

/// Flushes a folder's entries so a rename survives power loss. Best effort: not every platform
/// or file system allows opening a directory.
pub fn sync_dir(dir: &Path) {
    if !durable() {
        return;
    }
    if let Ok(d) = std::fs::File::open(dir) {
        let _ = d.sync_all();
    }
}

/// Shortens `path` for messages: relative to the current directory when it is inside it.
pub fn display_path(path: &Path) -> String {
    match std::env::current_dir() {
        Ok(cwd) => path
            .strip_prefix(&cwd)
            .unwrap_or(path)
            .display()
            .to_string(),
        Err(_) => path.display().to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolve_follows_dangling_links_and_stops_in_a_loop() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
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

    #[test]
    fn a_symlink_to_nothing_is_an_error_and_stays_a_link() {
        let dir = tempfile::tempdir().unwrap();
        let link = dir.path().join("mcp.json");
        std::os::unix::fs::symlink(dir.path().join("missing.json"), &link).unwrap();
        let err = write_atomic(&link, b"{}").unwrap_err();
        assert!(format!("{err:#}").contains("does not exist"), "{err:#}");
        assert!(check_writable(&link).is_err());
        assert!(link.symlink_metadata().unwrap().file_type().is_symlink());
        assert!(!dir.path().join("missing.json").exists());
    }

    #[test]
    fn a_symlink_is_written_at_its_target() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real.json");
        std::fs::write(&real, "a").unwrap();
        let link = dir.path().join("link.json");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        check_writable(&link).unwrap();
        write_atomic(&link, b"b").unwrap();
        assert_eq!(std::fs::read_to_string(&real).unwrap(), "b");
        assert!(link.symlink_metadata().unwrap().file_type().is_symlink());
    }

    #[test]
    fn writability_is_checked_for_the_file_and_its_folder() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("f");
        std::fs::write(&file, "x").unwrap();
        // A file where a folder is needed.
        assert!(check_writable(&file.join("new.json")).is_err());
        check_writable(&dir.path().join("a/b/new.json")).unwrap();
        // Mode bits first (they bind root too), then what the kernel says for this user.
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o444)).unwrap();
        assert!(check_writable(&file).is_err());
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
        let sub = dir.path().join("ro");
        std::fs::create_dir(&sub).unwrap();
        std::fs::write(sub.join("g"), "x").unwrap();
        std::fs::set_permissions(&sub, std::fs::Permissions::from_mode(0o555)).unwrap();
        if rustix::process::geteuid().is_root() {
            // root may write anywhere: nothing more to see.
            check_writable(&sub.join("g")).unwrap();
        } else {
            let err = check_writable(&sub.join("g")).unwrap_err();
            assert!(err.to_string().contains("folder"), "{err}");
        }
        std::fs::set_permissions(&sub, std::fs::Permissions::from_mode(0o755)).unwrap();
    }

    #[test]
    fn resolve_follows_links_in_the_part_that_exists() {
        let dir = tempfile::tempdir().unwrap();
        let real = std::fs::canonicalize(dir.path()).unwrap();
        std::os::unix::fs::symlink(&real, dir.path().join("link")).unwrap();
        assert_eq!(
            resolve(&dir.path().join("link/not/yet.json")),
            real.join("not/yet.json")
        );
        assert_eq!(resolve_parent(&dir.path().join("link")), real.join("link"));
    }
}

#[cfg(test)]
mod par_map_tests {
    #[test]
    fn results_keep_the_items_order() {
        let items: Vec<u32> = (0..100).collect();
        assert_eq!(
            super::par_map(&items, |i| i * 2),
            (0..100).map(|i| i * 2).collect::<Vec<_>>()
        );
        assert_eq!(super::par_map(&[7u32], |i| *i), [7]);
        assert!(super::par_map(&[] as &[u32], |i| *i).is_empty());
    }
}

/// An exclusive advisory lock on the file at `path` (created when missing), held until dropped:
/// for read-modify-write of dotpack's own bookkeeping files in `$DOTPACK_HOME`. Where the file
/// system cannot lock, it is taken without one.
pub struct ExclusiveLock(std::fs::File);

impl ExclusiveLock {
    pub fn take(path: &Path) -> Result<ExclusiveLock> {
        let file = std::fs::File::options()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)
            .with_context(|| format!("cannot open {}", path.display()))?;
        match file.lock() {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::Unsupported => {}
            Err(e) => return Err(e).with_context(|| format!("cannot lock {}", path.display())),
        }
        Ok(ExclusiveLock(file))
    }
}

impl Drop for ExclusiveLock {
    fn drop(&mut self) {
        let _ = self.0.unlock();
    }
}
