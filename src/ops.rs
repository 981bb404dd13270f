//! The flows commands share: load the project, open its registries, resolve, and write the
//! manifest and lock. Commands decide *what* to change; this module decides *how*.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use semver::Version;

use crate::cli::GlobalArgs;
use crate::lock::{LOCK_FILE, Lockfile};
use crate::manifest::{self, LoadedManifest};
use crate::output::Printer;
use crate::registry::{self, IndexLine, IndexSource};
use crate::resolve::{self, RegistrySet, ResolveOptions, RootDep};

/// Settings every command shares, decided once from flags and the environment.
#[derive(Clone, Debug)]
pub struct Settings {
    pub cwd: PathBuf,
    pub manifest_path: Option<PathBuf>,
    pub registry: Option<PathBuf>,
    /// Fail when dotpack.lock is missing or would change.
    pub locked: bool,
    /// Use nothing but local data.
    pub offline: bool,
}

impl Settings {
    pub fn from_global(global: &GlobalArgs) -> Result<Self> {
        let cwd = std::env::current_dir().context("cannot read the current folder")?;
        Ok(Settings {
            cwd,
            manifest_path: global.manifest_path.clone(),
            registry: global.registry.clone(),
            locked: global.locked || global.frozen,
            offline: global.offline || global.frozen,
        })
    }
}

/// A loaded project: its manifest and, when present, its lock.
pub struct Project {
    pub manifest: LoadedManifest,
    pub lock_path: PathBuf,
    pub lock_text: Option<String>,
    pub lock: Option<Lockfile>,
}

impl Project {
    /// Finds and loads `dotpack.toml` and `dotpack.lock`, failing on any error in either.
    pub fn load(settings: &Settings) -> Result<Project> {
        let path = crate::project::find_manifest(settings.manifest_path.as_deref(), &settings.cwd)?;
        let manifest = manifest::load(&path)?;
        let lock_path = manifest.root().join(LOCK_FILE);
        let (lock_text, lock) = match std::fs::read_to_string(&lock_path) {
            Ok(text) => {
                let lock = crate::lock::parse(&lock_path, &text)?;
                (Some(text), Some(lock))
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => (None, None),
            Err(e) => {
                return Err(e).with_context(|| format!("cannot read {}", lock_path.display()));
            }
        };
        Ok(Project {
            manifest,
            lock_path,
            lock_text,
            lock,
        })
    }

    /// The versions currently locked, which resolution keeps where they still fit.
    pub fn locked_versions(&self) -> BTreeMap<String, Version> {
        self.lock
            .iter()
            .flat_map(|l| &l.packages)
            .map(|p| (p.name.clone(), p.version.clone()))
            .collect()
    }
}

/// The default registry (built in, or `--registry`) and the named `[registries]` of `manifest`.
pub fn registries(settings: &Settings, manifest: Option<&LoadedManifest>) -> Result<RegistrySet> {
    let default = registry::open(settings.registry.as_deref())?;
    let mut set = RegistrySet::new(default);
    if let Some(loaded) = manifest {
        for (name, spec) in &loaded.manifest.registries {
            let source = open_named(loaded.root(), name, spec)?;
            set = set.with_named(name.clone(), source);
        }
    }
    Ok(set)
}

fn open_named(
    root: &Path,
    name: &str,
    spec: &crate::manifest::RegistrySpec,
) -> Result<Box<dyn IndexSource>> {
    match (&spec.path, &spec.url) {
        (Some(path), None) => {
            let full = root.join(path);
            let source =
                registry::dir::DirIndex::open(&full, format!("registry+file:{}", path.display()))?;
            Ok(Box::new(source))
        }
        (None, Some(url)) => bail!(
            "registry `{name}` uses url = \"{url}\", but this dotpack reads only local registries\n  help: point `[registries.{name}] path` at a folder holding the index"
        ),
        _ => bail!("registry `{name}` needs exactly one of `path` or `url` in [registries.{name}]"),
    }
}

/// The root requirements of a manifest, in name order.
pub fn root_deps(manifest: &LoadedManifest) -> Vec<RootDep> {
    manifest
        .manifest
        .dependencies
        .iter()
        .map(|(name, spec)| RootDep {
            name: name.clone(),
            req: spec.req().clone(),
            registry: spec.registry().map(str::to_string),
        })
        .collect()
}

/// One package's change between two locks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Change {
    Added {
        name: String,
        version: Version,
    },
    Updated {
        name: String,
        from: Version,
        to: Version,
    },
    Removed {
        name: String,
        version: Version,
    },
}

impl Change {
    pub fn print(&self, printer: &Printer) {
        match self {
            Change::Added { name, version } => {
                printer.status("Adding", format!("{name} v{version}"))
            }
            Change::Updated { name, from, to } => {
                let verb = if to > from { "Updating" } else { "Downgrading" };
                printer.status(verb, format!("{name} v{from} -> v{to}"))
            }
            Change::Removed { name, version } => {
                printer.status("Removing", format!("{name} v{version}"))
            }
        }
    }
}

/// The differences between `old` (if any) and `new`, in name order.
pub fn lock_changes(old: Option<&Lockfile>, new: &Lockfile) -> Vec<Change> {
    let old: BTreeMap<&str, &Version> = old
        .iter()
        .flat_map(|l| &l.packages)
        .map(|p| (p.name.as_str(), &p.version))
        .collect();
    let new_map: BTreeMap<&str, &Version> = new
        .packages
        .iter()
        .map(|p| (p.name.as_str(), &p.version))
        .collect();
    let mut changes = Vec::new();
    for (name, version) in &new_map {
        match old.get(name) {
            None => changes.push(Change::Added {
                name: name.to_string(),
                version: (*version).clone(),
            }),
            Some(from) if from != version => changes.push(Change::Updated {
                name: name.to_string(),
                from: (*from).clone(),
                to: (*version).clone(),
            }),
            Some(_) => {}
        }
    }
    for (name, version) in &old {
        if !new_map.contains_key(name) {
            changes.push(Change::Removed {
                name: name.to_string(),
                version: (*version).clone(),
            });
        }
    }
    changes.sort_by(|a, b| change_name(a).cmp(change_name(b)));
    changes
}

fn change_name(c: &Change) -> &str {
    match c {
        Change::Added { name, .. }
        | Change::Updated { name, .. }
        | Change::Removed { name, .. } => name,
    }
}

/// Resolves `manifest` against `registries`, keeping `preferred` versions where they fit, and
/// checks what the new lock pins: every archive new to the lock is fetched and its sha256
/// verified, and no two packages may declare the same server name.
pub fn resolve_lock(
    manifest: &LoadedManifest,
    registries: &RegistrySet,
    preferred: BTreeMap<String, Version>,
    old: Option<&Lockfile>,
) -> Result<Lockfile> {
    let root = root_deps(manifest);
    let resolution = resolve::resolve(&root, registries, &ResolveOptions { preferred })?;
    check_server_names(resolution.packages.iter().map(|p| &p.line))?;
    for pkg in &resolution.packages {
        let already = old
            .and_then(|l| l.get(&pkg.line.name))
            .is_some_and(|locked| {
                locked.version == pkg.line.vers
                    && locked.checksum == format!("sha256:{}", pkg.line.cksum)
            });
        if !already {
            let Some(source) = registries.by_source(&pkg.source) else {
                bail!(
                    "no registry has source `{}` (needed for {})",
                    pkg.source,
                    pkg.line.name
                );
            };
            source.archive(&pkg.line)?;
        }
    }
    Ok(resolution.to_lockfile(&root))
}

/// Two packages of one resolution declaring the same server would write the same entry into
/// every host file: that is an error before anything is written.
fn check_server_names<'a>(lines: impl Iterator<Item = &'a IndexLine>) -> Result<()> {
    let mut owners: BTreeMap<&str, &IndexLine> = BTreeMap::new();
    for line in lines {
        for server in &line.servers {
            if let Some(other) = owners.insert(server, line) {
                bail!(
                    "packages `{}` {} and `{}` {} both declare a server named `{server}`\n  help: remove one of them from dotpack.toml",
                    other.name,
                    other.vers,
                    line.name,
                    line.vers
                );
            }
        }
    }
    Ok(())
}

/// What a writing command wants on disk: the new manifest text (if it changes) and the new lock.
pub struct Outcome<'a> {
    pub project: &'a Project,
    pub manifest_text: Option<String>,
    pub lock: Lockfile,
}

/// Applies an outcome: checks `--locked`, prints the changes, and writes the manifest and lock
/// (only files whose bytes change). With `dry_run`, prints unified diffs and writes nothing.
pub fn commit(
    settings: &Settings,
    printer: &Printer,
    outcome: Outcome<'_>,
    dry_run: bool,
) -> Result<()> {
    let project = outcome.project;
    let lock_text = outcome.lock.emit();
    let lock_changed = project.lock_text.as_deref() != Some(lock_text.as_str());
    let semantic_change = project.lock.as_ref() != Some(&outcome.lock);
    if settings.locked && (project.lock.is_none() || semantic_change) {
        let why = if project.lock.is_none() {
            "dotpack.lock is missing"
        } else {
            "dotpack.lock needs to be updated"
        };
        bail!(
            "{why} but --locked was passed to prevent this\n  help: run the command without --locked (or --frozen) and commit the new dotpack.lock"
        );
    }
    let changes = lock_changes(project.lock.as_ref(), &outcome.lock);
    for change in &changes {
        change.print(printer);
    }
    let manifest_path = &project.manifest.path;
    let manifest_changed = outcome
        .manifest_text
        .as_deref()
        .is_some_and(|t| t != project.manifest.text);
    if dry_run {
        if let Some(text) = outcome
            .manifest_text
            .as_deref()
            .filter(|_| manifest_changed)
        {
            printer.out(crate::fsutil::unified_diff(
                crate::manifest::MANIFEST_FILE,
                &project.manifest.text,
                text,
            ));
        }
        if lock_changed {
            printer.out(crate::fsutil::unified_diff(
                LOCK_FILE,
                project.lock_text.as_deref().unwrap_or(""),
                &lock_text,
            ));
        }
        printer.warning("dry run: no file was changed");
        return Ok(());
    }
    if let Some(text) = outcome
        .manifest_text
        .as_deref()
        .filter(|_| manifest_changed)
    {
        crate::fsutil::write_atomic(manifest_path, text.as_bytes())?;
    }
    if lock_changed {
        crate::fsutil::write_atomic(&project.lock_path, lock_text.as_bytes())?;
    }
    if changes.is_empty() && !manifest_changed {
        printer.status(
            "Locked",
            format!(
                "{} packages, nothing to change",
                outcome.lock.packages.len()
            ),
        );
    }
    Ok(())
}
