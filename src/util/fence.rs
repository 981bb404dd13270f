//! Reading and writing the files of a folder a repository controls (a project, a registry
//! folder, a package folder) without being led out of it. Whoever made the folder chose every
//! byte and every file type in it, links and FIFOs included, so every file dotpack reads or
//! writes there goes through this module:
//!
//! - a link is followed only while it stays inside its [`Fence`] (a link in a folder on the way
//!   too); one that leads out is refused, naming the link and where it points;
//! - only a regular file is read: a FIFO, a device or a socket is refused before it is opened
//!   for reading, and the file is opened with `O_NONBLOCK` and checked again with `fstat`, so
//!   nothing can make a read block;
//! - at most a size cap is read ([`PROJECT_FILE_CAP`] and its siblings); a larger file is
//!   refused, so memory stays bounded whatever the file is.
//!
//! The user's own files (`$DOTPACK_HOME`, the hosts' user config files such as
//! `~/.claude.json`) have no fence: a link there is the user's own (a dotfiles repository), and
//! is followed anywhere. They are still read only when they are regular files, up to
//! [`USER_FILE_CAP`].

use std::io::Read;
use std::path::{Path, PathBuf};

use anyhow::{Result, bail};

use crate::util::error::Error;
use crate::util::fsutil;

/// The most dotpack reads of a project file it parses (manifest, project host file, resource
/// file, `.gitignore`) or of a registry or package folder's file: far above any file dotpack
/// writes, far below what would hurt.
pub const PROJECT_FILE_CAP: u64 = 16 * MIB;
/// The most dotpack reads of a file in a registry folder, archives included: an archive holds
/// at most 16 MiB unpacked ([`crate::registry::archive::MAX_UNPACKED_BYTES`]).
pub const REGISTRY_FILE_CAP: u64 = 32 * MIB;
/// The most dotpack reads of `dotpack.lock`: a lock of ten thousand packages is a few MiB.
pub const LOCK_CAP: u64 = 64 * MIB;
/// The most dotpack reads of one of the user's own files: Claude Code keeps its history in
/// `~/.claude.json`, which people have reported at 65 and 101 MB.
pub const USER_FILE_CAP: u64 = 512 * MIB;

const MIB: u64 = 1024 * 1024;

/// A folder whose links dotpack follows only while they stay inside it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fence {
    /// The folder as the caller named it.
    given: PathBuf,
    /// The folder with its own links resolved: what "inside" means.
    root: PathBuf,
    /// How messages name it ("the project", "the registry folder", ...).
    what: &'static str,
}

impl Fence {
    pub fn new(root: &Path, what: &'static str) -> Fence {
        let given = absolute(root);
        Fence {
            root: fsutil::resolve(&given),
            given,
            what,
        }
    }

    /// A project: the folder of its `dotpack.toml`.
    pub fn project(root: &Path) -> Fence {
        Fence::new(root, "the project")
    }

    /// A registry folder `publish`, `yank` and `registry build` write, or a folder registry.
    pub fn registry(root: &Path) -> Fence {
        Fence::new(root, "the registry folder")
    }

    /// The folder of a package's `dotpack.toml`, which `package` and `publish` pack.
    pub fn package(root: &Path) -> Fence {
        Fence::new(root, "the package folder")
    }

    /// Where `path` really is once every link in it is followed, or an error naming the link
    /// that leads out of the fence.
    pub fn check(&self, path: &Path) -> Result<PathBuf> {
        let real = fsutil::resolve(&absolute(path));
        if real.starts_with(&self.root) && !fsutil::has_parent_component(&real) {
            return Ok(real);
        }
        Err(self.escape(path))
    }

    /// The error for `path`, which leads out of the fence: the first link on its way that does
    /// (links on the way to the fence's own folder are not its business).
    fn escape(&self, path: &Path) -> anyhow::Error {
        let mut at = PathBuf::new();
        for part in absolute(path).components() {
            at.push(part);
            if self.given.starts_with(&at) || self.root.starts_with(&at) {
                continue;
            }
            let is_link = std::fs::symlink_metadata(&at).is_ok_and(|m| m.file_type().is_symlink());
            if !is_link || fsutil::resolve(&at).starts_with(&self.root) {
                continue;
            }
            let to = std::fs::read_link(&at)
                .map(|t| t.display().to_string())
                .unwrap_or_else(|_| "?".into());
            let what = self.what;
            return if at == absolute(path) {
                Error::new(format!(
                    "{} is a symbolic link to {to}, outside {what} ({}); dotpack does not follow links out of {what}, so nothing was changed",
                    shown(path),
                    self.root.display()
                ))
                .help("replace the link with a copy of the file it points to")
                .file(path)
                .into()
            } else {
                Error::new(format!(
                    "{}: its folder {} is a symbolic link to {to}, outside {what} ({}); dotpack does not follow links out of {what}, so nothing was changed",
                    shown(path),
                    shown(&at),
                    self.root.display()
                ))
                .help("replace the link with a real folder")
                .file(path)
                .into()
            };
        }
        anyhow::anyhow!(
            "{} is outside {} ({}); nothing was changed",
            shown(path),
            self.what,
            self.root.display()
        )
    }
}

/// `path` made absolute against the current folder (so a folder that does not exist yet is
/// still compared as the path it will have).
fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

/// How a path is named in messages: relative to the current folder when inside it.
fn shown(path: &Path) -> String {
    super::fsutil::display_path(path)
}

/// The bytes of the regular file `path` (`None` when it does not exist, or is a link to nothing
/// inside the fence), read without following a link out of `fence` and up to `cap` bytes. A
/// FIFO, device, socket or folder is refused without being read.
pub fn read(path: &Path, fence: Option<&Fence>, cap: u64) -> Result<Option<Vec<u8>>> {
    let Some((file, size)) = open_regular(path, fence, cap)? else {
        return Ok(None);
    };
    let mut bytes = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
    file.take(cap.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", shown(path)))?;
    if bytes.len() as u64 > cap {
        return Err(too_large(path, bytes.len() as u64, cap).into());
    }
    Ok(Some(bytes))
}

/// Whether the file `path` holds exactly `expected` (`None`: the file is absent), checked as
/// [`read`] reads it but without holding the file in memory: a transaction asks this of every
/// file it is about to replace, some of them the user's multi-megabyte host files.
pub fn holds(
    path: &Path,
    fence: Option<&Fence>,
    cap: u64,
    expected: Option<&[u8]>,
) -> Result<bool> {
    let (mut file, size, mut expected) = match (open_regular(path, fence, cap)?, expected) {
        (Some((file, size)), Some(expected)) => (file, size, expected),
        (None, None) => return Ok(true),
        _ => return Ok(false),
    };
    if size != expected.len() as u64 {
        return Ok(false);
    }
    let mut chunk = vec![0u8; 64 * 1024];
    loop {
        let n = file
            .read(&mut chunk)
            .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", shown(path)))?;
        if n == 0 {
            return Ok(expected.is_empty());
        }
        match expected.split_at_checked(n) {
            Some((head, tail)) if head == &chunk[..n] => expected = tail,
            _ => return Ok(false),
        }
    }
}

/// The regular file `path`, opened for reading as [`read`] describes, with its size; `None`
/// when it does not exist.
fn open_regular(
    path: &Path,
    fence: Option<&Fence>,
    cap: u64,
) -> Result<Option<(std::fs::File, u64)>> {
    let real = match fence {
        Some(fence) => fence.check(path)?,
        None => path.to_path_buf(),
    };
    let meta = match std::fs::metadata(&real) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => bail!("cannot read {}: {e}", shown(path)),
    };
    if !meta.is_file() {
        return Err(not_a_file(path, &real, kind(&meta.file_type())).into());
    }
    if meta.len() > cap {
        return Err(too_large(path, meta.len(), cap).into());
    }
    open_checked(path, &real, fence.is_some(), cap)
}

/// Opens `real` (what `path` leads to), checked again once open: a regular file within `cap`.
#[cfg(unix)]
fn open_checked(
    path: &Path,
    real: &Path,
    no_follow: bool,
    cap: u64,
) -> Result<Option<(std::fs::File, u64)>> {
    // Opened without blocking (a FIFO put there since would block an open for reading) and
    // without following a link at the end (the path has none left once checked).
    let mut flags = rustix::fs::OFlags::RDONLY | rustix::fs::OFlags::NONBLOCK;
    if no_follow {
        flags |= rustix::fs::OFlags::NOFOLLOW;
    }
    let fd = match rustix::fs::open(
        real,
        flags | rustix::fs::OFlags::CLOEXEC,
        rustix::fs::Mode::empty(),
    ) {
        Ok(fd) => fd,
        Err(rustix::io::Errno::NOENT) => return Ok(None),
        Err(rustix::io::Errno::LOOP) => bail!(
            "{} became a symbolic link while dotpack was reading it; nothing was changed",
            shown(path)
        ),
        Err(e) => bail!("cannot read {}: {e}", shown(path)),
    };
    let stat =
        rustix::fs::fstat(&fd).map_err(|e| anyhow::anyhow!("cannot read {}: {e}", shown(path)))?;
    let file_type = rustix::fs::FileType::from_raw_mode(stat.st_mode);
    if file_type != rustix::fs::FileType::RegularFile {
        return Err(not_a_file(path, real, raw_kind(file_type)).into());
    }
    let size = u64::try_from(stat.st_size).unwrap_or(0);
    if size > cap {
        return Err(too_large(path, size, cap).into());
    }
    Ok(Some((std::fs::File::from(fd), size)))
}

#[cfg(not(unix))]
fn open_checked(
    path: &Path,
    real: &Path,
    _no_follow: bool,
    cap: u64,
) -> Result<Option<(std::fs::File, u64)>> {
    open_plain(path, real, cap)
}

/// [`open_checked`] where there is no `O_NOFOLLOW`/`O_NONBLOCK` (Windows): a plain open, then
/// the same checks on the open file. A link put at the end of the path between the fence check
/// and the open is followed there (a documented fallback: making one needs a privilege most
/// Windows users lack); FIFOs do not live in Windows folders.
#[cfg_attr(unix, allow(dead_code))]
fn open_plain(path: &Path, real: &Path, cap: u64) -> Result<Option<(std::fs::File, u64)>> {
    let file = match std::fs::File::open(real) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => bail!("cannot read {}: {e}", shown(path)),
    };
    let meta = file
        .metadata()
        .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", shown(path)))?;
    if !meta.is_file() {
        return Err(not_a_file(path, real, kind(&meta.file_type())).into());
    }
    if meta.len() > cap {
        return Err(too_large(path, meta.len(), cap).into());
    }
    Ok(Some((file, meta.len())))
}

/// [`read`] as UTF-8 text; a file that is not is an error naming it.
pub fn read_text(path: &Path, fence: Option<&Fence>, cap: u64) -> Result<Option<String>> {
    match read(path, fence, cap)? {
        Some(bytes) => match String::from_utf8(bytes) {
            Ok(text) => Ok(Some(text)),
            Err(_) => bail!("{} is not UTF-8 text; dotpack leaves it alone", shown(path)),
        },
        None => Ok(None),
    }
}

/// Fails unless a write to `path` stays inside `fence` (its folders and a link at its end
/// followed) and lands on a regular file or a new one; nothing is written when it fails.
pub fn check_write(path: &Path, fence: Option<&Fence>) -> Result<()> {
    let real = match fence {
        Some(fence) => fence.check(path)?,
        None => path.to_path_buf(),
    };
    if let Ok(meta) = std::fs::metadata(&real)
        && !meta.is_file()
        && !meta.is_dir()
    {
        return Err(not_a_file(path, &real, kind(&meta.file_type())).into());
    }
    Ok(())
}

/// Replaces `path` atomically ([`fsutil::write_atomic_with`]), after [`check_write`], creating
/// its missing folders (which the check found inside the fence).
pub fn write_atomic(
    path: &Path,
    bytes: &[u8],
    fence: &Fence,
    options: fsutil::WriteOptions,
) -> Result<()> {
    check_write(path, Some(fence))?;
    if let Some(parent) = path.parent()
        && !parent.as_os_str().is_empty()
        && !parent.is_dir()
    {
        fs_err::create_dir_all(parent)?;
    }
    fsutil::write_atomic_with(path, bytes, options)
}

/// What a file that is not a regular file is, for messages.
fn kind(t: &std::fs::FileType) -> &'static str {
    if t.is_dir() {
        return "a folder";
    }
    #[cfg(unix)]
    return unix_kind(t);
    #[cfg(not(unix))]
    return "not a regular file";
}

#[cfg(unix)]
fn unix_kind(t: &std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if t.is_fifo() {
        "a FIFO (named pipe)"
    } else if t.is_char_device() {
        "a character device"
    } else if t.is_block_device() {
        "a block device"
    } else if t.is_socket() {
        "a socket"
    } else {
        "not a regular file"
    }
}

#[cfg(unix)]
fn raw_kind(t: rustix::fs::FileType) -> &'static str {
    match t {
        rustix::fs::FileType::Directory => "a folder",
        rustix::fs::FileType::Fifo => "a FIFO (named pipe)",
        rustix::fs::FileType::CharacterDevice => "a character device",
        rustix::fs::FileType::BlockDevice => "a block device",
        rustix::fs::FileType::Socket => "a socket",
        _ => "not a regular file",
    }
}

fn not_a_file(path: &Path, real: &Path, kind: &str) -> Error {
    let is_link = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
    let what = if is_link {
        let to = std::fs::canonicalize(path).unwrap_or_else(|_| real.to_path_buf());
        format!("a symbolic link to {}, {kind}", to.display())
    } else {
        kind.to_string()
    };
    Error::new(format!(
        "{} is {what}, not a regular file; dotpack reads and writes only regular files, so nothing was changed",
        shown(path)
    ))
    .help("replace it with a regular file, or remove it")
    .file(path)
}

fn too_large(path: &Path, size: u64, cap: u64) -> Error {
    Error::new(format!(
        "{} is larger than {} MiB ({} bytes); dotpack reads at most {} MiB of it, so nothing was changed",
        shown(path),
        cap / MIB,
        size,
        cap / MIB
    ))
    .help("check what wrote it (no file dotpack writes is this large), and shrink it or move it away")
    .file(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree() -> (tempfile::TempDir, PathBuf, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("project");
        let outside = dir.path().join("outside");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(outside.join("secret"), "secret\n").unwrap();
        (dir, root, outside)
    }

    #[test]
    fn holds_compares_the_whole_file_chunk_by_chunk() {
        let (_dir, root, outside) = tree();
        let fence = Fence::project(&root);
        let path = root.join("big.json");
        let text: Vec<u8> = (0..200_000u32).map(|i| (i % 251) as u8).collect();
        std::fs::write(&path, &text).unwrap();
        let cap = PROJECT_FILE_CAP;
        assert!(holds(&path, Some(&fence), cap, Some(&text)).unwrap());
        let mut last = text.clone();
        *last.last_mut().unwrap() ^= 1;
        assert!(!holds(&path, Some(&fence), cap, Some(&last)).unwrap());
        let mut first_chunk = text.clone();
        first_chunk[10] ^= 1;
        assert!(!holds(&path, Some(&fence), cap, Some(&first_chunk)).unwrap());
        assert!(!holds(&path, Some(&fence), cap, Some(&text[..text.len() - 1])).unwrap());
        assert!(!holds(&path, Some(&fence), cap, None).unwrap());
        let absent = root.join("absent.json");
        assert!(holds(&absent, Some(&fence), cap, None).unwrap());
        assert!(!holds(&absent, Some(&fence), cap, Some(b"")).unwrap());
        std::fs::write(root.join("empty.json"), "").unwrap();
        assert!(holds(&root.join("empty.json"), Some(&fence), cap, Some(b"")).unwrap());
        std::os::unix::fs::symlink(outside.join("secret"), root.join("out.json")).unwrap();
        assert!(holds(&root.join("out.json"), Some(&fence), cap, Some(b"secret\n")).is_err());
    }

    #[test]
    fn links_are_followed_inside_and_refused_out() {
        let (_dir, root, outside) = tree();
        let fence = Fence::project(&root);
        std::fs::write(root.join("real.json"), "{}").unwrap();
        std::os::unix::fs::symlink("real.json", root.join("inside.json")).unwrap();
        std::os::unix::fs::symlink(outside.join("secret"), root.join("out.json")).unwrap();
        std::os::unix::fs::symlink(&outside, root.join("dir")).unwrap();
        assert_eq!(
            read(&root.join("inside.json"), Some(&fence), 100).unwrap(),
            Some(b"{}".to_vec())
        );
        let err = read(&root.join("out.json"), Some(&fence), 100).unwrap_err();
        assert!(format!("{err}").contains("outside the project"), "{err}");
        let err = read(&root.join("dir/secret"), Some(&fence), 100).unwrap_err();
        assert!(format!("{err}").contains("its folder"), "{err}");
        assert!(check_write(&root.join("dir/new.json"), Some(&fence)).is_err());
        assert!(check_write(&root.join("out.json"), Some(&fence)).is_err());
        check_write(&root.join("inside.json"), Some(&fence)).unwrap();
        check_write(&root.join("a/b/new.json"), Some(&fence)).unwrap();
        // Unfenced (the user's own files), a link is followed anywhere.
        assert!(read(&root.join("out.json"), None, 100).unwrap().is_some());
        assert_eq!(
            read(&root.join("missing"), Some(&fence), 100).unwrap(),
            None
        );
    }

    #[test]
    fn special_files_and_large_files_are_refused_without_blocking() {
        let (_dir, root, _outside) = tree();
        let fifo = root.join("fifo");
        rustix::fs::mknodat(
            rustix::fs::CWD,
            &fifo,
            rustix::fs::FileType::Fifo,
            rustix::fs::Mode::from_raw_mode(0o600),
            0,
        )
        .unwrap();
        let err = read(&fifo, None, 100).unwrap_err();
        assert!(format!("{err}").contains("FIFO"), "{err}");
        assert!(check_write(&fifo, None).is_err());
        let err = read(Path::new("/dev/null"), None, 100).unwrap_err();
        assert!(format!("{err}").contains("character device"), "{err}");
        std::fs::write(root.join("big"), vec![b'x'; 101]).unwrap();
        let err = read(&root.join("big"), None, 100).unwrap_err();
        assert!(format!("{err}").contains("larger than"), "{err}");
        assert_eq!(
            read(&root.join("big"), None, 101).unwrap().unwrap().len(),
            101
        );
    }

    /// The Windows open ([`open_plain`]), run here: the same answers as the Unix one.
    #[test]
    fn the_plain_open_checks_what_it_opened() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("f.json");
        std::fs::write(&file, "{}").unwrap();
        let (_, size) = open_plain(&file, &file, 10).unwrap().unwrap();
        assert_eq!(size, 2);
        assert!(
            open_plain(&dir.path().join("none"), &dir.path().join("none"), 10)
                .unwrap()
                .is_none()
        );
        let err = open_plain(dir.path(), dir.path(), 10)
            .unwrap_err()
            .to_string();
        assert!(err.contains("a folder"), "{err}");
        assert!(open_plain(&file, &file, 1).is_err(), "over the cap");
    }
}
