//! Deterministic package archives (`.tar.gz`): writing them byte-for-byte reproducibly, and
//! reading them safely into memory.
//!
//! The index pins each archive by sha256, so packing the same folder must give the same bytes on
//! every machine and every run: fixed entry order, fixed metadata, fixed gzip header. Reading
//! never touches the disk (no `Archive::unpack`): packages are a few small text files, so they are
//! read into a map, with every path, type and size checked first.

use std::collections::BTreeMap;
use std::io::{self, Read, Write};
use std::path::{Component, Path};

use flate2::{Compression, GzBuilder, read::GzDecoder};
use sha2::{Digest, Sha256};
use tar::{EntryType, Header};

use super::RegistryError;
use crate::model::manifest::MANIFEST_FILE;

/// Most entries an archive may hold; a package is a handful of files.
pub const MAX_ENTRIES: usize = 1_000;
/// Most bytes an archive may hold once decompressed (guards against decompression bombs).
pub const MAX_UNPACKED_BYTES: u64 = 16 * 1024 * 1024;

/// Packs the package folder `dir` as a `.tar.gz` whose entries all live under `prefix/`.
///
/// Entries are sorted by path (so a directory precedes its contents), with mtime 0, uid/gid 0,
/// empty owner names, mode 0644 (files) or 0755 (directories) and GNU headers; gzip has mtime 0,
/// no file name, OS byte 255 and the default level. Hidden files and folders and editor leftovers
/// are skipped, and so is any subfolder holding its own `dotpack.toml` (it is another package
/// version). Symlinks and other special files are refused, since their meaning is not portable.
pub fn pack(dir: &Path, prefix: &str) -> Result<Vec<u8>, RegistryError> {
    let mut entries = Vec::new();
    collect(dir, "", &mut entries)?;
    let fence = crate::util::fence::Fence::package(dir);
    entries.sort();

    let gz = GzBuilder::new()
        .mtime(0)
        .operating_system(255)
        .write(Vec::new(), Compression::new(6));
    let mut tar = tar::Builder::new(gz);
    let io_err = |e: io::Error| RegistryError::Io {
        path: dir.display().to_string(),
        reason: e.to_string(),
    };
    append(&mut tar, prefix, None).map_err(io_err)?;
    for (rel, is_dir) in &entries {
        let path = format!("{prefix}/{rel}");
        let data = if *is_dir {
            None
        } else {
            Some(read(&fence, &dir.join(rel))?)
        };
        append(&mut tar, &path, data.as_deref()).map_err(io_err)?;
    }
    let gz = tar.into_inner().map_err(io_err)?;
    gz.finish().map_err(io_err)
}

/// Appends one entry with fixed metadata: a directory when `data` is `None`.
fn append<W: Write>(tar: &mut tar::Builder<W>, path: &str, data: Option<&[u8]>) -> io::Result<()> {
    let mut header = Header::new_gnu();
    header.set_mtime(0);
    header.set_uid(0);
    header.set_gid(0);
    header.set_username("")?;
    header.set_groupname("")?;
    match data {
        None => {
            header.set_entry_type(EntryType::Directory);
            header.set_mode(0o755);
            header.set_size(0);
            tar.append_data(&mut header, format!("{path}/"), io::empty())
        }
        Some(bytes) => {
            header.set_entry_type(EntryType::Regular);
            header.set_mode(0o644);
            header.set_size(bytes.len() as u64);
            tar.append_data(&mut header, path, bytes)
        }
    }
}

/// Collects `(relative path with '/', is_dir)` for everything under `dir` that belongs in the
/// package.
fn collect(dir: &Path, rel: &str, out: &mut Vec<(String, bool)>) -> Result<(), RegistryError> {
    let io_err = |path: &Path, e: io::Error| RegistryError::Io {
        path: path.display().to_string(),
        reason: e.to_string(),
    };
    let here = dir.join(rel);
    for entry in fs_err::read_dir(&here).map_err(|e| io_err(&here, e))? {
        let entry = entry.map_err(|e| io_err(&here, e))?;
        let path = entry.path();
        let Some(name) = entry.file_name().to_str().map(str::to_string) else {
            return Err(RegistryError::Io {
                path: path.display().to_string(),
                reason: "file name is not valid UTF-8; rename it".to_string(),
            });
        };
        if is_skipped(&name) {
            continue;
        }
        let child = if rel.is_empty() {
            name
        } else {
            format!("{rel}/{name}")
        };
        let kind = fs_err::symlink_metadata(&path)
            .map_err(|e| io_err(&path, e))?
            .file_type();
        if kind.is_dir() {
            if path.join(MANIFEST_FILE).exists() {
                continue;
            }
            out.push((child.clone(), true));
            collect(dir, &child, out)?;
        } else if kind.is_file() {
            out.push((child, false));
        } else {
            return Err(RegistryError::Io {
                path: path.display().to_string(),
                reason: "only regular files and folders can be packed (symlinks and special files are not portable); replace it with a copy".to_string(),
            });
        }
    }
    Ok(())
}

/// Hidden files and the leftovers of common editors and file managers.
fn is_skipped(name: &str) -> bool {
    name.starts_with('.')
        || name.ends_with('~')
        || name.ends_with(".swp")
        || name.ends_with(".swo")
        || name.ends_with(".bak")
        || name.ends_with(".orig")
        || (name.starts_with('#') && name.ends_with('#'))
        || name == "Thumbs.db"
        || name == "desktop.ini"
}

/// A file of the package folder (found a regular file by [`collect`]), read as one: never
/// through a link, and at most [`MAX_UNPACKED_BYTES`], which no archive may exceed anyway.
fn read(fence: &crate::util::fence::Fence, path: &Path) -> Result<Vec<u8>, RegistryError> {
    let not_there = || RegistryError::Io {
        path: path.display().to_string(),
        reason: "it is gone".to_string(),
    };
    crate::util::fence::read(path, Some(fence), MAX_UNPACKED_BYTES)
        .map_err(|e| RegistryError::Other(format!("{e:#}")))?
        .ok_or_else(not_there)
}

/// Lowercase hex sha256 of `bytes`, as written in index lines.
pub fn sha256_hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    let digest = Sha256::digest(bytes);
    let mut hex = String::with_capacity(64);
    for byte in digest.iter() {
        let _ = write!(hex, "{byte:02x}");
    }
    hex
}

/// Reads every regular file of the archive `bytes` into memory, keyed by its `/`-separated path.
/// `label` names the archive in errors.
///
/// Only regular files and directories are accepted; links, devices and sparse files, absolute
/// paths, `..`, duplicate paths, more than [`MAX_ENTRIES`] entries and more than
/// [`MAX_UNPACKED_BYTES`] decompressed bytes are each a [`RegistryError::BadArchive`].
pub fn read_files(bytes: &[u8], label: &str) -> Result<BTreeMap<String, Vec<u8>>, RegistryError> {
    let bad = |reason: String| RegistryError::BadArchive {
        file: label.to_string(),
        reason,
    };
    let limited = Limited {
        inner: GzDecoder::new(bytes),
        left: MAX_UNPACKED_BYTES,
    };
    let mut archive = tar::Archive::new(limited);
    let mut files = BTreeMap::new();
    let entries = archive.entries().map_err(|e| bad(e.to_string()))?;
    for (count, entry) in entries.enumerate() {
        if count >= MAX_ENTRIES {
            return Err(bad(format!("more than {MAX_ENTRIES} entries")));
        }
        let mut entry = entry.map_err(|e| bad(e.to_string()))?;
        let raw_path = entry.path().map_err(|e| bad(e.to_string()))?.into_owned();
        let path =
            normalize(&raw_path).map_err(|why| bad(format!("{}: {why}", raw_path.display())))?;
        match entry.header().entry_type() {
            EntryType::Directory => continue,
            EntryType::Regular | EntryType::Continuous => {}
            other => {
                return Err(bad(format!(
                    "{path}: entry type {other:?} is not allowed (only regular files and folders)"
                )));
            }
        }
        let size = entry.header().size().map_err(|e| bad(e.to_string()))?;
        if size > MAX_UNPACKED_BYTES {
            return Err(bad(format!("{path}: {size} bytes is too large")));
        }
        let mut data = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
        (&mut entry)
            .take(size)
            .read_to_end(&mut data)
            .map_err(|e| bad(format!("{path}: {e}")))?;
        if files.insert(path.clone(), data).is_some() {
            return Err(bad(format!("{path} appears twice")));
        }
    }
    Ok(files)
}

/// The text of the package's manifest: the one `<prefix>/dotpack.toml` at the archive's top.
pub fn package_manifest(bytes: &[u8], label: &str) -> Result<String, RegistryError> {
    let bad = |reason: String| RegistryError::BadArchive {
        file: label.to_string(),
        reason,
    };
    let files = read_files(bytes, label)?;
    let mut manifests = files.into_iter().filter(|(path, _)| {
        path.split_once('/')
            .is_some_and(|(_, rest)| rest == MANIFEST_FILE)
    });
    let Some((path, data)) = manifests.next() else {
        return Err(bad(format!("no top-level <package>/{MANIFEST_FILE}")));
    };
    if let Some((other, _)) = manifests.next() {
        return Err(bad(format!("two top-level manifests: {path} and {other}")));
    }
    String::from_utf8(data).map_err(|_| bad(format!("{path} is not valid UTF-8")))
}

/// Turns an entry path into a relative `/`-separated path, refusing anything that could point
/// outside the package.
fn normalize(path: &Path) -> Result<String, &'static str> {
    let mut parts = Vec::new();
    for component in path.components() {
        match component {
            Component::Normal(part) => parts.push(part.to_str().ok_or("path is not valid UTF-8")?),
            Component::CurDir => {}
            Component::ParentDir => return Err("path contains `..`"),
            Component::RootDir | Component::Prefix(_) => return Err("path is absolute"),
        }
    }
    if parts.is_empty() {
        return Err("path is empty");
    }
    Ok(parts.join("/"))
}

/// A reader that fails once more than `left` bytes have been read, so an oversized archive is a
/// clear error instead of a truncated-looking one.
struct Limited<R> {
    inner: R,
    left: u64,
}

impl<R: Read> Read for Limited<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.left = self.left.checked_sub(n as u64).ok_or_else(|| {
            io::Error::other(format!(
                "archive is larger than {} MiB when decompressed",
                MAX_UNPACKED_BYTES / (1024 * 1024)
            ))
        })?;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn package_dir() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(root.join("dotpack.toml"), "[package]\nname = \"x\"\n").unwrap();
        std::fs::create_dir_all(root.join("docs/deep")).unwrap();
        std::fs::write(root.join("docs/README.md"), "hello\n").unwrap();
        std::fs::write(root.join("docs/deep/b.txt"), "b\n").unwrap();
        std::fs::write(root.join(".hidden"), "no").unwrap();
        std::fs::write(root.join("notes.md~"), "no").unwrap();
        std::fs::create_dir_all(root.join("v2")).unwrap();
        std::fs::write(root.join("v2/dotpack.toml"), "other version").unwrap();
        dir
    }

    /// A `.tar.gz` whose single entry has exactly the raw name `name`, bypassing the checks
    /// `tar::Header::set_path` makes, as an attacker's archive would.
    fn raw_archive(name: &str, kind: EntryType, data: &[u8]) -> Vec<u8> {
        let mut header = Header::new_gnu();
        header.as_old_mut().name[..name.len()].copy_from_slice(name.as_bytes());
        header.set_entry_type(kind);
        header.set_size(data.len() as u64);
        header.set_mode(0o644);
        if kind == EntryType::Symlink {
            header.set_link_name("/etc/passwd").unwrap();
        }
        header.set_cksum();
        let mut tar = tar::Builder::new(Vec::new());
        tar.append(&header, data).unwrap();
        gzip(&tar.into_inner().unwrap())
    }

    fn gzip(bytes: &[u8]) -> Vec<u8> {
        let mut gz = GzBuilder::new().write(Vec::new(), Compression::default());
        gz.write_all(bytes).unwrap();
        gz.finish().unwrap()
    }

    fn bad_reason(bytes: &[u8]) -> String {
        match read_files(bytes, "x.tar.gz") {
            Err(RegistryError::BadArchive { file, reason }) => {
                assert_eq!(file, "x.tar.gz");
                reason
            }
            other => panic!("expected BadArchive, got {other:?}"),
        }
    }

    #[test]
    fn packing_twice_gives_identical_bytes() {
        let dir = package_dir();
        let a = pack(dir.path(), "x-1.0.0").unwrap();
        let b = pack(dir.path(), "x-1.0.0").unwrap();
        assert_eq!(a, b);
        assert_eq!(sha256_hex(&a), sha256_hex(&b));
    }

    #[test]
    fn packing_ignores_mtimes_and_permissions() {
        let dir = package_dir();
        let before = pack(dir.path(), "x-1.0.0").unwrap();
        let later = std::time::SystemTime::now() + std::time::Duration::from_secs(3600);
        for rel in ["dotpack.toml", "docs/README.md", "docs"] {
            let file = std::fs::File::options()
                .read(true)
                .open(dir.path().join(rel))
                .unwrap();
            file.set_modified(later).unwrap();
        }
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let path = dir.path().join("docs/README.md");
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        assert_eq!(pack(dir.path(), "x-1.0.0").unwrap(), before);
    }

    #[test]
    fn packed_archive_holds_package_files_only_in_sorted_order() {
        let dir = package_dir();
        let bytes = pack(dir.path(), "x-1.0.0").unwrap();
        let files = read_files(&bytes, "x").unwrap();
        let names: Vec<&str> = files.keys().map(String::as_str).collect();
        assert_eq!(
            names,
            [
                "x-1.0.0/docs/README.md",
                "x-1.0.0/docs/deep/b.txt",
                "x-1.0.0/dotpack.toml"
            ]
        );
        let mut archive = tar::Archive::new(GzDecoder::new(bytes.as_slice()));
        let order: Vec<String> = archive
            .entries()
            .unwrap()
            .map(|e| e.unwrap().path().unwrap().display().to_string())
            .collect();
        let mut sorted = order.clone();
        sorted.sort();
        assert_eq!(order, sorted);
        assert_eq!(
            package_manifest(&bytes, "x").unwrap(),
            "[package]\nname = \"x\"\n"
        );
    }

    #[test]
    fn sha256_is_lowercase_hex() {
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn reading_refuses_parent_dir_paths() {
        let reason = bad_reason(&raw_archive("x/../../evil", EntryType::Regular, b"x"));
        assert!(reason.contains(".."), "{reason}");
    }

    #[test]
    fn reading_refuses_absolute_paths() {
        let reason = bad_reason(&raw_archive("/etc/evil", EntryType::Regular, b"x"));
        assert!(reason.contains("absolute"), "{reason}");
    }

    #[test]
    fn reading_refuses_symlinks_and_hardlinks() {
        for kind in [EntryType::Symlink, EntryType::Link] {
            let reason = bad_reason(&raw_archive("x/link", kind, b""));
            assert!(reason.contains("not allowed"), "{reason}");
        }
    }

    #[test]
    fn reading_refuses_too_many_entries() {
        let mut tar = tar::Builder::new(Vec::new());
        for i in 0..=MAX_ENTRIES {
            let mut header = Header::new_gnu();
            header.set_size(0);
            header.set_mode(0o644);
            tar.append_data(&mut header, format!("x/{i}"), io::empty())
                .unwrap();
        }
        let reason = bad_reason(&gzip(&tar.into_inner().unwrap()));
        assert!(reason.contains("more than 1000 entries"), "{reason}");
    }

    #[test]
    fn reading_refuses_decompression_bombs() {
        // Each entry is under the cap, together they are over it: only the running total of
        // decompressed bytes catches this.
        let half = vec![0u8; (MAX_UNPACKED_BYTES / 2) as usize + 1024];
        let mut tar = tar::Builder::new(Vec::new());
        for name in ["x/a", "x/b"] {
            let mut header = Header::new_gnu();
            header.set_size(half.len() as u64);
            header.set_mode(0o644);
            tar.append_data(&mut header, name, half.as_slice()).unwrap();
        }
        let reason = bad_reason(&gzip(&tar.into_inner().unwrap()));
        assert!(reason.contains("larger than 16 MiB"), "{reason}");
    }

    #[test]
    fn reading_refuses_garbage() {
        bad_reason(b"not a gzip file at all");
    }

    #[test]
    fn package_manifest_requires_a_top_level_manifest() {
        let bytes = raw_archive("x/docs/dotpack.toml", EntryType::Regular, b"a");
        assert!(matches!(
            package_manifest(&bytes, "x"),
            Err(RegistryError::BadArchive { .. })
        ));
    }
}
