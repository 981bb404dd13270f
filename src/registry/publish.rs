//! Publishing one package to a static registry folder: `dotpack package`, `dotpack publish
//! --index DIR` and `dotpack yank`.
//!
//! A registry folder is what `dotpack registry build` writes and any static web server serves;
//! publishing adds one version to it with the same writer ([`super::build`]), so both commands
//! keep the same guarantees: archives land before the index lines that point at them, every file
//! is replaced atomically, `config.json` is kept, and `names.txt` only grows. Unlike `registry
//! build`, which skips a version already published with the same files, `publish` refuses any
//! version already in the index: publishing is a deliberate act, and a second one of the same
//! version is almost always a forgotten version bump.

use std::path::{Path, PathBuf};

use semver::Version;

use super::build::{
    BuildError, BuildReport, Candidate, Published, fence_error, join, pack_manifest, read_optional,
    same_version, write_file, write_index,
};
use super::index::{index_path, is_plain_name};
use super::{IndexLine, RegistryError};
use crate::model::manifest;
use crate::ui::diag::display_path;
use crate::util::error::Error;

/// A package packed from its folder, not yet written anywhere.
pub struct Packed {
    pub name: String,
    pub version: Version,
    /// The deterministic `.tar.gz`: the same folder always gives the same bytes.
    pub archive: Vec<u8>,
    /// Lowercase hex sha256 of `archive`, as the index records it.
    pub sha256: String,
}

impl Packed {
    /// The archive's file name, `NAME-VERSION.tar.gz`.
    pub fn file_name(&self) -> String {
        format!("{}-{}.tar.gz", self.name, self.version)
    }
}

/// Loads (with every check of `dotpack validate`) and packs the package whose manifest is
/// `manifest_path`.
pub fn package(manifest_path: &Path) -> Result<Packed, BuildError> {
    let candidate = load(manifest_path)?;
    Ok(Packed {
        name: candidate.line.name.clone(),
        version: candidate.line.vers.clone(),
        sha256: candidate.line.cksum.clone(),
        archive: candidate.archive,
    })
}

/// Publishes the package of `manifest_path` into the registry folder `index` (created when it
/// does not exist yet). Refuses, writing nothing, a version the index already lists (yanked or
/// not), an invalid manifest, and dependencies the index cannot satisfy. Returns the new line.
pub fn publish(manifest_path: &Path, index: &Path) -> Result<(IndexLine, BuildReport), BuildError> {
    let candidate = load(manifest_path)?;
    let _lock = lock_index(index)?;
    let mut published = Published::new(index);
    if published
        .lines(&candidate.line.name)?
        .iter()
        .any(|l| same_version(&l.vers, &candidate.line.vers))
    {
        return Err(BuildError::AlreadyPublished {
            name: candidate.line.name.clone(),
            version: candidate.line.vers.clone(),
            index: display_path(index),
        });
    }
    let line = candidate.line.clone();
    let source = manifest_path.parent().unwrap_or(Path::new("."));
    let report = write_index(vec![candidate], source, index, false)?;
    Ok((line, report))
}

/// The file whose exclusive lock makes publishers of one folder (on one machine or a shared
/// file system that supports locks) take turns; hidden, so it is never served as a package.
const LOCK_FILE: &str = ".dotpack-publish.lock";

/// Waits for, and holds until dropped, the publish lock of the registry folder `index`
/// (created when missing). A file system without locks is used unlocked, as Cargo does.
fn lock_index(index: &Path) -> Result<std::fs::File, BuildError> {
    let io = |e: std::io::Error| RegistryError::Io {
        path: display_path(&index.join(LOCK_FILE)),
        reason: e.to_string(),
    };
    std::fs::create_dir_all(index).map_err(io)?;
    let path = index.join(LOCK_FILE);
    crate::util::fence::check_write(&path, Some(&crate::util::fence::Fence::registry(index)))
        .map_err(fence_error)?;
    // Never through a link: one could make dotpack create a file anywhere. (Windows: the
    // fence check above is all; creating a link there needs a privilege users rarely have.)
    let mut options = std::fs::File::options();
    options.read(true).write(true).create(true).truncate(false);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(rustix::fs::OFlags::NOFOLLOW.bits() as i32);
    }
    let file = options.open(&path).map_err(io)?;
    match file.lock() {
        Ok(()) => Ok(file),
        Err(e) if e.kind() == std::io::ErrorKind::Unsupported => Ok(file),
        Err(e) => Err(io(e).into()),
    }
}

fn load(manifest_path: &Path) -> Result<Candidate, BuildError> {
    let loaded = manifest::load_in(
        manifest_path,
        Some(&crate::util::fence::Fence::package(
            manifest_path.parent().unwrap_or(Path::new(".")),
        )),
    )?;
    pack_manifest(loaded)
}

/// What [`yank`] did.
#[derive(Debug, PartialEq, Eq)]
pub enum YankOutcome {
    /// The flag changed; this index file was rewritten.
    Changed(PathBuf),
    /// The version already had the requested flag; nothing was written.
    Unchanged,
}

/// Sets (`yanked`) or clears the `yanked` flag of `name` `version` in the registry folder
/// `index`. Only that line of the package's index file changes; every other byte stays.
pub fn yank(
    index: &Path,
    name: &str,
    version: &Version,
    yanked: bool,
) -> Result<YankOutcome, BuildError> {
    let not_found = || {
        RegistryError::from(
            Error::new(format!(
                "{name} {version} is not published in {}",
                display_path(index)
            ))
            .help(format!(
                "check the name and version (`dotpack info {name} --registry {}` lists the versions)",
                display_path(index)
            )),
        )
    };
    if !is_plain_name(name) {
        return Err(not_found().into());
    }
    let path = join(index, &index_path(name));
    let label = display_path(&path);
    if !path.is_file() {
        return Err(not_found().into());
    }
    let _lock = lock_index(index)?;
    let fence = crate::util::fence::Fence::registry(index);
    crate::util::fence::check_write(&path, Some(&fence)).map_err(fence_error)?;
    let text = read_optional(index, &path)?.ok_or_else(not_found)?;
    let mut found = false;
    let mut changed = false;
    let mut out = String::with_capacity(text.len() + 16);
    for (i, raw) in text.split_inclusive('\n').enumerate() {
        let body = raw.trim_end_matches(['\n', '\r']);
        if body.trim().is_empty() {
            out.push_str(raw);
            continue;
        }
        let mut line: IndexLine =
            serde_json::from_str(body).map_err(|e| RegistryError::BadIndexLine {
                file: label.clone(),
                line: i + 1,
                reason: e.to_string(),
            })?;
        if !line.name.eq_ignore_ascii_case(name) || !same_version(&line.vers, version) {
            out.push_str(raw);
            continue;
        }
        found = true;
        if line.yanked == yanked {
            out.push_str(raw);
            continue;
        }
        line.yanked = yanked;
        let json = serde_json::to_string(&line).map_err(|e| RegistryError::Other(e.to_string()))?;
        out.push_str(&json);
        out.push_str(&raw[body.len()..]);
        changed = true;
    }
    if !found {
        return Err(not_found().into());
    }
    if !changed {
        return Ok(YankOutcome::Unchanged);
    }
    write_file(&fence, &path, out.as_bytes())?;
    Ok(YankOutcome::Changed(path))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write_package(dir: &Path, name: &str, version: &str) -> PathBuf {
        std::fs::create_dir_all(dir).unwrap();
        let path = dir.join("dotpack.toml");
        std::fs::write(
            &path,
            format!(
                "[package]\nname = \"{name}\"\nversion = \"{version}\"\n\n[servers.{name}]\ncommand = \"{name}-mcp\"\nargs = []\n"
            ),
        )
        .unwrap();
        path
    }

    #[test]
    fn yank_rewrites_only_its_line_and_undo_restores_the_bytes() {
        let tmp = tempfile::tempdir().unwrap();
        let index = tmp.path().join("index");
        publish(
            &write_package(&tmp.path().join("a1"), "alpha", "1.0.0"),
            &index,
        )
        .unwrap();
        publish(
            &write_package(&tmp.path().join("a2"), "alpha", "1.1.0"),
            &index,
        )
        .unwrap();
        let file = index.join(index_path("alpha"));
        let before = std::fs::read_to_string(&file).unwrap();
        let v1: Version = "1.0.0".parse().unwrap();

        assert_eq!(
            yank(&index, "alpha", &v1, true).unwrap(),
            YankOutcome::Changed(file.clone())
        );
        let yanked = std::fs::read_to_string(&file).unwrap();
        let lines: Vec<&str> = yanked.lines().collect();
        assert!(lines[0].contains("\"yanked\":true"), "{yanked}");
        assert_eq!(lines[1], before.lines().nth(1).unwrap());
        assert_eq!(
            yank(&index, "alpha", &v1, true).unwrap(),
            YankOutcome::Unchanged
        );

        yank(&index, "alpha", &v1, false).unwrap();
        assert_eq!(std::fs::read_to_string(&file).unwrap(), before);
    }

    #[test]
    fn yank_of_an_unknown_version_names_the_index() {
        let tmp = tempfile::tempdir().unwrap();
        let index = tmp.path().join("index");
        publish(
            &write_package(&tmp.path().join("a"), "alpha", "1.0.0"),
            &index,
        )
        .unwrap();
        for (name, version) in [("alpha", "2.0.0"), ("beta", "1.0.0"), ("../x", "1.0.0")] {
            let err = yank(&index, name, &version.parse().unwrap(), true)
                .unwrap_err()
                .to_string();
            assert!(err.contains("is not published in"), "{err}");
        }
    }

    #[test]
    fn publishing_a_version_twice_is_refused_and_writes_nothing() {
        let tmp = tempfile::tempdir().unwrap();
        let index = tmp.path().join("index");
        let manifest = write_package(&tmp.path().join("a"), "alpha", "1.0.0");
        let (line, report) = publish(&manifest, &index).unwrap();
        assert_eq!(line.name, "alpha");
        assert!(
            report
                .changed_files
                .iter()
                .any(|p| p.ends_with("names.txt"))
        );
        let file = index.join(index_path("alpha"));
        let before = std::fs::read(&file).unwrap();
        let err = publish(&manifest, &index).unwrap_err();
        assert!(matches!(err, BuildError::AlreadyPublished { .. }), "{err}");
        assert_eq!(std::fs::read(&file).unwrap(), before);
    }

    #[test]
    fn packing_twice_gives_the_same_bytes() {
        let tmp = tempfile::tempdir().unwrap();
        let manifest = write_package(&tmp.path().join("a"), "alpha", "1.0.0");
        let first = package(&manifest).unwrap();
        let second = package(&manifest).unwrap();
        assert_eq!(first.sha256, second.sha256);
        assert_eq!(first.file_name(), "alpha-1.0.0.tar.gz");
    }
}
