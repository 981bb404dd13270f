//! The few file-system facts dotpack's trust checks rest on that only Unix gives: who owns a
//! file, a file's identity (device and inode), whether this process may write a path
//! (`faccessat`), and a private folder's mode. Elsewhere (Windows) each has the fallback in
//! [`fallback`], said here and in `docs/security.md`:
//!
//! - ownership is not checked: a folder under the user's profile is protected by its ACL, and
//!   Windows gives no uid to compare (every file reads as the user's own);
//! - a folder's identity is its creation time (NTFS keeps it), where Unix has device and inode;
//! - writability is the read-only attribute alone; an ACL that refuses the write is reported by
//!   the write itself, naming the file, and nothing is replaced;
//! - a private folder keeps the ACL it inherits from the profile.
//!
//! [`fallback`] is compiled and tested on every platform, so the Windows code paths are
//! exercised on Linux too.

use std::path::Path;

/// This process's effective user id (`0` where there is none to compare).
pub fn my_uid() -> u32 {
    #[cfg(unix)]
    return rustix::process::geteuid().as_raw();
    #[cfg(not(unix))]
    return fallback::my_uid();
}

/// Who owns the file `meta` describes.
pub fn owner(meta: &std::fs::Metadata) -> u32 {
    #[cfg(unix)]
    return std::os::unix::fs::MetadataExt::uid(meta);
    #[cfg(not(unix))]
    return fallback::owner(meta);
}

/// What identifies the file `meta` describes on this machine: (device, inode).
pub fn identity(meta: &std::fs::Metadata) -> (u64, u64) {
    #[cfg(unix)]
    return {
        use std::os::unix::fs::MetadataExt;
        (meta.dev(), meta.ino())
    };
    #[cfg(not(unix))]
    return fallback::identity(meta);
}

/// Whether this process may write the file `path` (`folder`: create and rename files in the
/// folder `path`).
pub fn writable(path: &Path, folder: bool) -> bool {
    #[cfg(unix)]
    return {
        use rustix::fs::{Access, AtFlags, CWD, accessat};
        let how = if folder {
            Access::WRITE_OK | Access::EXEC_OK
        } else {
            Access::WRITE_OK
        };
        accessat(CWD, path, how, AtFlags::EACCESS).is_ok()
    };
    #[cfg(not(unix))]
    return fallback::writable(path, folder);
}

/// Makes the folder `path` the user's alone (`0700`), as far as the platform allows.
pub fn make_private(path: &Path) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let _ = std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o700));
    }
    #[cfg(not(unix))]
    fallback::make_private(path);
}

/// What non-Unix systems use; compiled everywhere so its tests run on Linux.
#[cfg_attr(unix, allow(dead_code))]
pub mod fallback {
    use std::path::Path;

    /// No uid to compare: every file reads as this user's.
    pub fn my_uid() -> u32 {
        0
    }

    pub fn owner(_meta: &std::fs::Metadata) -> u32 {
        my_uid()
    }

    /// The creation time, in nanoseconds since the epoch, as the "inode"; no device.
    pub fn identity(meta: &std::fs::Metadata) -> (u64, u64) {
        let created = meta
            .created()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX));
        (0, created)
    }

    /// A file: not read-only; a folder: it exists and is a folder.
    pub fn writable(path: &Path, folder: bool) -> bool {
        match std::fs::metadata(path) {
            Ok(meta) if folder => meta.is_dir(),
            Ok(meta) => !meta.permissions().readonly(),
            Err(_) => false,
        }
    }

    /// The folder keeps the ACL it inherits.
    pub fn make_private(_path: &Path) {}
}

#[cfg(test)]
mod tests {
    use super::fallback;

    #[test]
    fn the_fallbacks_judge_by_what_every_platform_has() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("f.json");
        std::fs::write(&file, "{}").unwrap();
        let meta = std::fs::metadata(&file).unwrap();
        assert_eq!(fallback::owner(&meta), fallback::my_uid());
        assert!(fallback::writable(&file, false));
        assert!(fallback::writable(dir.path(), true));
        assert!(!fallback::writable(&file, true), "a file is not a folder");
        assert!(!fallback::writable(&dir.path().join("missing"), false));
        let mut ro = meta.permissions();
        ro.set_readonly(true);
        std::fs::set_permissions(&file, ro).unwrap();
        assert!(!fallback::writable(&file, false));
        // Stable for one file, different for a file made later (where the file system keeps
        // creation times; some Linux ones do not, and give 0 for both).
        let first = fallback::identity(&std::fs::metadata(&file).unwrap());
        assert_eq!(
            first,
            fallback::identity(&std::fs::metadata(&file).unwrap())
        );
        fallback::make_private(dir.path());
    }
}
