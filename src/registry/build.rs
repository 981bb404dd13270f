//! `dotpack registry build`: turn a folder of package manifests into an append-only index.
//!
//! Like every real registry the index only grows: a published line is never rewritten (a
//! maintainer may flip `yanked` by hand), a package removed from the source stays published, and
//! changing the content of a published version is refused, because lock files elsewhere pin its
//! checksum. Rebuilding unchanged sources writes nothing, so CI can run `--check`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use semver::Version;

use super::archive::{pack, read_files, sha256_hex};
use super::index::{index_path, is_plain_name, parse_index_file, render_index_file};
use super::{IndexDep, IndexLine, RegistryConfig, RegistryError};
use crate::model::manifest::{self, LoadedManifest, MANIFEST_FILE};
use crate::ui::diag::{Diagnostics, display_path};
use crate::util::error::{Error, Fix};

/// What a build added, left alone, and wrote.
#[derive(Debug, Default)]
pub struct BuildReport {
    /// Newly published versions, by name then version.
    pub added: Vec<IndexLine>,
    /// Versions found in the source that were already published with the same content.
    pub unchanged: usize,
    /// Files written, or with `check` the files that building would write, sorted.
    pub changed_files: Vec<PathBuf>,
}

/// Why a build stopped. Nothing is written when any of these is returned.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    /// A manifest in the source is invalid; its diagnostics, unchanged.
    #[error(transparent)]
    Manifest(#[from] Diagnostics),
    #[error(transparent)]
    Registry(#[from] RegistryError),
    #[error("{}", self.error())]
    Republished {
        file: String,
        name: String,
        version: Version,
    },
    #[error("{}", self.error())]
    Duplicate {
        name: String,
        version: Version,
        first: String,
        second: String,
    },
    #[error("{}", self.error())]
    AlreadyPublished {
        name: String,
        version: Version,
        index: String,
    },
    #[error("{}", self.error())]
    Dependency {
        file: String,
        reason: String,
        help: Option<&'static str>,
    },
    #[error("{file}: package name `{name}` may only contain ASCII letters, digits, `-` and `_`")]
    BadName { file: String, name: String },
}

impl Fix for BuildError {
    fn error(&self) -> Error {
        match self {
            BuildError::Registry(e) => e.error(),
            BuildError::Republished {
                file,
                name,
                version,
            } => Error::new(format!(
                "{file}: {name} {version} is already published with different content; bump the version"
            ))
            .help("a published version is immutable because lock files pin its checksum")
            .file(file),
            BuildError::Duplicate {
                name,
                version,
                first,
                second,
            } => Error::new(format!(
                "{name} {version} is declared twice: {first} and {second}"
            ))
            .help("keep one of them, or give one a new version"),
            BuildError::AlreadyPublished {
                name,
                version,
                index,
            } => Error::new(format!(
                "{name} {version} is already published in {index}; nothing was written"
            ))
            .help(format!(
                "a published version never changes, because lock files pin its checksum; raise `version` in [package] and publish again (or `dotpack yank {name}@{version}` to withdraw it)"
            )),
            BuildError::Dependency { file, reason, help } => {
                let error = Error::new(format!("{file}: {reason}")).file(file);
                match help {
                    Some(help) => error.help(*help),
                    None => error,
                }
            }
            other => Error::new(other.to_string()),
        }
    }
}

/// One package version found in the source, packed.
pub(super) struct Candidate {
    pub(super) manifest: LoadedManifest,
    pub(super) line: IndexLine,
    pub(super) archive: Vec<u8>,
}

/// Builds (or extends) the index at `out` from the package manifests under `source`. With
/// `check`, writes nothing and reports in [`BuildReport::changed_files`] what would change.
pub fn build(source: &Path, out: &Path, check: bool) -> Result<BuildReport, BuildError> {
    let candidates = load_candidates(source)?;
    write_index(candidates, source, out, check)
}

/// Adds `candidates` (packed package versions, sorted by name and version) to the index at
/// `out`: archives first, then index files, then `names.txt`, each written atomically and only
/// when its bytes change. `source` names where the candidates came from, in messages.
pub(super) fn write_index(
    mut candidates: Vec<Candidate>,
    source: &Path,
    out: &Path,
    check: bool,
) -> Result<BuildReport, BuildError> {
    let fence = crate::util::fence::Fence::registry(out);
    let (config, config_text) = read_or_default_config(out)?;
    let mut published = Published::new(out);
    let mut report = BuildReport::default();
    let mut new_lines: BTreeMap<String, Vec<IndexLine>> = BTreeMap::new();
    for candidate in &mut candidates {
        let existing = published.lines(&candidate.line.name)?;
        let Some(old) = existing
            .iter()
            .find(|l| same_version(&l.vers, &candidate.line.vers))
        else {
            new_lines
                .entry(candidate.line.name.to_ascii_lowercase())
                .or_default()
                .push(candidate.line.clone());
            continue;
        };
        if !old.cksum.eq_ignore_ascii_case(&candidate.line.cksum) {
            // Same files but different compressed bytes (another gzip implementation) is not an
            // edit: keep what was published, whose checksum lock files already pin.
            let Some(bytes) = published_copy(candidate, old, &config, out) else {
                return Err(BuildError::Republished {
                    file: display_path(&candidate.manifest.path),
                    name: candidate.line.name.clone(),
                    version: candidate.line.vers.clone(),
                });
            };
            candidate.archive = bytes;
        }
        report.unchanged += 1;
    }
    check_dependencies(&candidates, &mut published, source)?;

    let mut files: Vec<(PathBuf, Vec<u8>)> = Vec::new();
    for candidate in &candidates {
        let rel = config.archive_path(&candidate.line.name, &candidate.line.vers);
        files.push((join(out, &rel), candidate.archive.clone()));
    }
    if let Some(text) = config_text {
        files.push((out.join(super::sparse::CONFIG_FILE), text.into_bytes()));
    }
    let mut names = published_names(out)?;
    names.extend(new_lines.keys().cloned());
    for (key, mut lines) in new_lines {
        lines.sort_by(|a, b| a.vers.cmp(&b.vers));
        let mut text = published.text(&key).to_string();
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        text.push_str(&render_index_file(&lines));
        files.push((join(out, &index_path(&key)), text.into_bytes()));
        report.added.extend(lines);
    }

    // The listing for registries that cannot list folders (HTTP): every published name, sorted,
    // so publishing only ever adds lines.
    let names_text: String = names.iter().map(|name| format!("{name}\n")).collect();
    files.push((out.join(super::http::NAMES_FILE), names_text.into_bytes()));

    // Only files whose bytes change are written; the index files go last so they never point at
    // an archive that is not there yet, and the names file after them.
    // Every file is checked before the first is written: one that would be written through a
    // link out of the folder stops the build with nothing written.
    for (path, _) in &files {
        crate::util::fence::check_write(path, Some(&fence)).map_err(fence_error)?;
    }
    files.retain(|(path, bytes)| {
        read_in(&fence, path).ok().flatten().as_deref() != Some(bytes.as_slice())
    });
    if !check {
        for (path, bytes) in &files {
            write_file(&fence, path, bytes)?;
        }
    }
    report.changed_files = files.into_iter().map(|(path, _)| path).collect();
    report.changed_files.sort();
    Ok(report)
}

/// Finds, loads and packs every package version under `source`, refusing duplicates.
fn load_candidates(source: &Path) -> Result<Vec<Candidate>, BuildError> {
    if !source.is_dir() {
        return Err(RegistryError::Io {
            path: display_path(source),
            reason: "source folder not found; pass the folder holding the package manifests (default: manifests)".to_string(),
        }
        .into());
    }
    let mut paths = Vec::new();
    find_manifests(source, &mut paths)?;
    paths.sort();
    let mut problems = Vec::new();
    let mut candidates: Vec<Candidate> = Vec::new();
    let mut seen: BTreeMap<(String, Version), PathBuf> = BTreeMap::new();
    for path in paths {
        let loaded = match manifest::load_in(
            &path,
            Some(&crate::util::fence::Fence::package(
                path.parent().unwrap_or(Path::new(".")),
            )),
        ) {
            Ok(loaded) => loaded,
            Err(Diagnostics(diags)) => {
                problems.extend(diags);
                continue;
            }
        };
        let Some(package) = loaded.manifest.package.clone() else {
            continue;
        };
        let mut key_version = package.version.clone();
        key_version.build = semver::BuildMetadata::EMPTY;
        let key = (package.name.to_ascii_lowercase(), key_version);
        if let Some(first) = seen.get(&key) {
            return Err(BuildError::Duplicate {
                name: package.name,
                version: package.version,
                first: display_path(first),
                second: display_path(&path),
            });
        }
        seen.insert(key, path.clone());
        candidates.push(pack_manifest(loaded)?);
    }
    if !problems.is_empty() {
        return Err(Diagnostics(problems).into());
    }
    candidates.sort_by(|a, b| (&a.line.name, &a.line.vers).cmp(&(&b.line.name, &b.line.vers)));
    Ok(candidates)
}

/// Packs the package whose manifest is `loaded` (it must have `[package]`) and describes it as
/// the index line that publishes it.
pub(super) fn pack_manifest(loaded: LoadedManifest) -> Result<Candidate, BuildError> {
    let path = loaded.path.clone();
    let Some(package) = loaded.manifest.package.clone() else {
        return Err(RegistryError::from(
            Error::new(format!(
                "{}: not a package: it has no [package] section",
                display_path(&path)
            ))
            .help("add `[package]` with `name` and `version`")
            .file(&path),
        )
        .into());
    };
    if !is_plain_name(&package.name) {
        return Err(BuildError::BadName {
            file: display_path(&path),
            name: package.name,
        });
    }
    let archive = pack(
        loaded.root(),
        &format!("{}-{}", package.name, package.version),
    )?;
    let m = &loaded.manifest;
    let line = IndexLine {
        name: package.name.clone(),
        vers: package.version.clone(),
        deps: m
            .dependencies
            .iter()
            .map(|(name, spec)| IndexDep {
                name: name.clone(),
                req: spec.req().clone(),
            })
            .collect(),
        cksum: sha256_hex(&archive),
        yanked: false,
        servers: m.servers.keys().cloned().collect(),
        resources: m
            .resources()
            .into_iter()
            .map(|(kind, name, _)| crate::model::resources::label(kind, name))
            .collect(),
        description: package.description.clone(),
        keywords: package.keywords.clone(),
        v: 1,
    };
    Ok(Candidate {
        manifest: loaded,
        line,
        archive,
    })
}

/// The names of the packages already published in `out` (none when it is not an index yet).
fn published_names(out: &Path) -> Result<BTreeSet<String>, BuildError> {
    if !out.join(super::sparse::CONFIG_FILE).is_file() {
        return Ok(BTreeSet::new());
    }
    use super::IndexSource;
    let index = super::DirIndex::open(out, "registry+file:build")?;
    Ok(index.names()?.into_iter().collect())
}

/// Every `dotpack.toml` under `dir`, skipping hidden folders. Folders below a package are
/// searched too: they may hold other versions of it.
fn find_manifests(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), BuildError> {
    let io = |e: std::io::Error| RegistryError::Io {
        path: display_path(dir),
        reason: e.to_string(),
    };
    for entry in std::fs::read_dir(dir).map_err(io)? {
        let entry = entry.map_err(io)?;
        let hidden = entry
            .file_name()
            .to_str()
            .is_none_or(|n| n.starts_with('.'));
        let kind = entry.file_type().map_err(io)?;
        if hidden {
            continue;
        }
        if kind.is_dir() {
            find_manifests(&entry.path(), out)?;
        } else if entry.file_name() == MANIFEST_FILE {
            out.push(entry.path());
        }
    }
    Ok(())
}

/// Every dependency must name a package that is published or being published, with a version
/// its requirement accepts; otherwise the package could never be installed.
fn check_dependencies(
    candidates: &[Candidate],
    published: &mut Published,
    source: &Path,
) -> Result<(), BuildError> {
    let mut known: BTreeMap<String, BTreeSet<Version>> = BTreeMap::new();
    for c in candidates {
        known
            .entry(c.line.name.to_ascii_lowercase())
            .or_default()
            .insert(c.line.vers.clone());
    }
    for c in candidates {
        let file = display_path(&c.manifest.path);
        for (name, spec) in &c.manifest.manifest.dependencies {
            if let Some(registry) = spec.registry() {
                return Err(BuildError::Dependency {
                    file,
                    reason: format!(
                        "dependency `{name}` comes from registry `{registry}`, but a published package may only depend on packages of its own registry"
                    ),
                    help: None,
                });
            }
            let mut versions: BTreeSet<Version> = published
                .lines(name)?
                .iter()
                .map(|l| l.vers.clone())
                .collect();
            versions.extend(
                known
                    .get(&name.to_ascii_lowercase())
                    .into_iter()
                    .flatten()
                    .cloned(),
            );
            let (reason, help) = if versions.is_empty() {
                (
                    format!(
                        "dependency `{name}` is neither in the index nor in {}",
                        display_path(source)
                    ),
                    Some("add its manifest to the source folder, or fix the name"),
                )
            } else if !versions.iter().any(|v| spec.req().matches(v)) {
                let list: Vec<String> = versions.iter().map(ToString::to_string).collect();
                (
                    format!(
                        "dependency `{name} = \"{}\"` matches no version of it (there are: {})",
                        spec.req(),
                        list.join(", ")
                    ),
                    None,
                )
            } else {
                continue;
            };
            return Err(BuildError::Dependency { file, reason, help });
        }
    }
    Ok(())
}

/// The index files already in `out`, read on first use.
pub(super) struct Published {
    out: PathBuf,
    files: BTreeMap<String, (String, Vec<IndexLine>)>,
}

impl Published {
    pub(super) fn new(out: &Path) -> Self {
        Published {
            out: out.to_path_buf(),
            files: BTreeMap::new(),
        }
    }

    fn load(&mut self, name: &str) -> Result<&(String, Vec<IndexLine>), BuildError> {
        let key = name.to_ascii_lowercase();
        if !self.files.contains_key(&key) {
            let path = join(&self.out, &index_path(&key));
            let text = if is_plain_name(&key) {
                read_optional(&self.out, &path)?.unwrap_or_default()
            } else {
                String::new()
            };
            let lines = parse_index_file(&text, &display_path(&path))?;
            self.files.insert(key.clone(), (text, lines));
        }
        self.files
            .get(&key)
            .ok_or_else(|| RegistryError::Other(format!("index file of {key} vanished")).into())
    }

    pub(super) fn lines(&mut self, name: &str) -> Result<&[IndexLine], BuildError> {
        Ok(&self.load(name)?.1)
    }

    /// The current text of a file already loaded through [`Published::lines`].
    fn text(&self, key: &str) -> &str {
        self.files.get(key).map_or("", |(text, _)| text.as_str())
    }
}

/// The index's `config.json`, or the default one with the text to write when there is none.
fn read_or_default_config(out: &Path) -> Result<(RegistryConfig, Option<String>), BuildError> {
    let path = out.join(super::sparse::CONFIG_FILE);
    let Some(text) = read_optional(out, &path)? else {
        let config = RegistryConfig::default();
        let text = serde_json::to_string_pretty(&config)
            .map_err(|e| RegistryError::Other(e.to_string()))?;
        return Ok((config, Some(text + "\n")));
    };
    let bad = |reason: String| {
        RegistryError::from(
            Error::new(format!("{}: {reason}", display_path(&path))).help(
                "--out must be a dotpack registry index, or a folder without config.json to create one",
            ),
        )
    };
    let config: RegistryConfig =
        serde_json::from_str(&text).map_err(|e| bad(format!("does not parse: {e}")))?;
    config.check().map_err(bad)?;
    Ok((config, None))
}

/// The published archive of `old` when it holds exactly the files `candidate` would publish.
/// Checksums are of compressed bytes, which a different gzip implementation may change even
/// when no file did; that must not look like an edit of a published version.
fn published_copy(
    candidate: &Candidate,
    old: &IndexLine,
    config: &RegistryConfig,
    out: &Path,
) -> Option<Vec<u8>> {
    let path = join(out, &config.archive_path(&old.name, &old.vers));
    let published = read_in(&crate::util::fence::Fence::registry(out), &path).ok()??;
    if !sha256_hex(&published).eq_ignore_ascii_case(&old.cksum) {
        return None;
    }
    let label = display_path(&path);
    let same =
        read_files(&published, &label).ok()? == read_files(&candidate.archive, &label).ok()?;
    same.then_some(published)
}

/// Same version for a registry: build metadata is ignored, as Cargo does.
pub(super) fn same_version(a: &Version, b: &Version) -> bool {
    (a.major, a.minor, a.patch, &a.pre) == (b.major, b.minor, b.patch, &b.pre)
}

pub(super) fn join(root: &Path, rel: &str) -> PathBuf {
    rel.split('/')
        .fold(root.to_path_buf(), |path, part| path.join(part))
}

/// The text of the file `path` of the registry folder `index` (`None`: absent), never read
/// through a link out of the folder.
pub(super) fn read_optional(index: &Path, path: &Path) -> Result<Option<String>, BuildError> {
    let fence = crate::util::fence::Fence::registry(index);
    crate::util::fence::read_text(path, Some(&fence), crate::util::fence::REGISTRY_FILE_CAP)
        .map_err(fence_error)
}

fn read_in(fence: &crate::util::fence::Fence, path: &Path) -> Result<Option<Vec<u8>>, BuildError> {
    crate::util::fence::read(path, Some(fence), crate::util::fence::REGISTRY_FILE_CAP)
        .map_err(fence_error)
}

/// A refusal of [`crate::util::fence`] as a build error (its message names the file).
pub(super) fn fence_error(e: anyhow::Error) -> BuildError {
    RegistryError::Other(format!("{e:#}")).into()
}

/// Writes through a temporary file and a rename ([`crate::util::fence::write_atomic`]), so a reader
/// never sees half a file, and never through a link out of the registry folder. Not flushed to
/// disk: an index is rebuilt from its manifests.
pub(super) fn write_file(
    fence: &crate::util::fence::Fence,
    path: &Path,
    bytes: &[u8],
) -> Result<(), BuildError> {
    let options = crate::util::fsutil::WriteOptions {
        sync_file: false,
        sync_dir: false,
        ..crate::util::fsutil::WriteOptions::SHARED
    };
    crate::util::fence::write_atomic(path, bytes, fence, options).map_err(fence_error)
}
