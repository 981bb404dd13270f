//! The flows commands share: load the project, open its registries, resolve, and write the
//! manifest and lock. Commands decide *what* to change; this module decides *how*.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use semver::Version;

use crate::apply::FileWrite;
use crate::claims::UserClaims;
use crate::cli::GlobalArgs;
use crate::cli::InstallArgs;
use crate::hosts::HostEnv;
use crate::install::{ClaimStore, HostSettings};
use crate::lock::{LOCK_FILE, Lockfile};
use crate::manifest::{self, LoadedManifest};
use crate::output::Printer;
use crate::plan::Mode;
use crate::plan::Plan;
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
    /// Home folder and host-specific locations, for user-scope files.
    pub host_env: HostEnv,
    /// Where user-scope claims and generations live: `$DOTPACK_HOME`, else `~/.dotpack`.
    pub dotpack_home: PathBuf,
    /// `--no-wait`: fail instead of waiting for another dotpack's lock.
    pub wait: crate::txn::Wait,
    /// The command line, recorded in generations.
    pub command_line: Vec<String>,
}

impl Settings {
    pub fn from_global(global: &GlobalArgs) -> Result<Self> {
        let cwd = std::env::current_dir().context("cannot read the current folder")?;
        let host_env = HostEnv::from_env()?;
        let dotpack_home = match std::env::var_os("DOTPACK_HOME") {
            Some(dir) if !dir.is_empty() => PathBuf::from(dir),
            _ => host_env.home.join(".dotpack"),
        };
        Ok(Settings {
            host_env,
            dotpack_home,
            cwd,
            manifest_path: global.manifest_path.clone(),
            registry: global.registry.clone(),
            locked: global.locked || global.frozen,
            offline: global.offline || global.frozen,
            wait: if global.no_wait {
                crate::txn::Wait::NoWait
            } else {
                crate::txn::Wait::Block
            },
            command_line: std::iter::once("dotpack".to_string())
                .chain(std::env::args().skip(1))
                .collect(),
        })
    }
}

/// Where the generations of `scope` live, and how many to keep: the project's `.dotpack/`
/// (the default inside a project) or `$DOTPACK_HOME` (`--scope user`, or outside a project).
pub fn state_places(
    settings: &Settings,
    scope: Option<crate::hosts::Scope>,
) -> Result<(crate::txn::Places, usize)> {
    use crate::hosts::Scope;
    let want_project = scope == Some(Scope::Project);
    let manifest =
        match crate::project::find_manifest(settings.manifest_path.as_deref(), &settings.cwd) {
            Ok(path) => match manifest::load(&path) {
                Ok(m) => Some(m),
                Err(e) if want_project => return Err(e.into()),
                Err(_) => None,
            },
            Err(e) if want_project => return Err(e),
            Err(_) => None,
        };
    let keep = manifest
        .as_ref()
        .map_or(crate::txn::DEFAULT_KEEP, keep_generations);
    let root = manifest.as_ref().map(|m| m.root().to_path_buf());
    let places = match (scope, &root) {
        (Some(Scope::User), _) | (_, None) => {
            crate::txn::Places::user(root.as_deref(), &settings.dotpack_home)
        }
        (_, Some(root)) => crate::txn::Places::project(root),
    };
    Ok((places, keep))
}

/// The folder of the project's dotpack.toml, if there is one.
pub fn project_root(settings: &Settings) -> Option<PathBuf> {
    let path =
        crate::project::find_manifest(settings.manifest_path.as_deref(), &settings.cwd).ok()?;
    Some(path.parent()?.to_path_buf())
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
    let default = registry::open(
        settings.registry.as_deref(),
        &settings.dotpack_home,
        settings.offline,
    )?;
    let mut set = RegistrySet::new(default);
    if let Some(loaded) = manifest {
        for (name, spec) in &loaded.manifest.registries {
            let source = open_named(settings, loaded.root(), name, spec)?;
            set = set.with_named(name.clone(), source);
        }
    }
    Ok(set)
}

fn open_named(
    settings: &Settings,
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
        (None, Some(url)) => {
            let source = registry::open_url(url, &settings.dotpack_home, settings.offline)
                .with_context(|| format!("registry `{name}` in [registries]"))?;
            Ok(Box::new(source))
        }
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
    /// The change as a generation records it.
    pub fn record(&self) -> crate::txn::PackageChange {
        let (name, change, from, to) = match self {
            Change::Added { name, version } => (name, "added", None, Some(version)),
            Change::Updated { name, from, to } => (name, "updated", Some(from), Some(to)),
            Change::Removed { name, version } => (name, "removed", Some(version), None),
        };
        crate::txn::PackageChange {
            name: name.clone(),
            change: change.to_string(),
            from: from.map(ToString::to_string),
            to: to.map(ToString::to_string),
        }
    }

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

/// When a command installs with no target host at all.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NoTargets {
    /// Say so and go on (add, remove, update: the manifest and lock still change).
    Warn,
    /// Fail (install, uninstall, adopt: there is nothing else to do).
    Fail,
}

/// Plans the host files for `lock`: the servers of its packages into every target. Returns
/// `None` when there is no target host (after a warning, or an error, as `no_targets` says).
/// What a command asks of the hosts.
pub struct HostRequest<'a> {
    /// The manifest as the command leaves it (with its edits).
    pub manifest: &'a LoadedManifest,
    /// The lock whose packages belong in the host files.
    pub lock: &'a Lockfile,
    pub args: &'a InstallArgs,
    pub mode: Mode,
    pub no_targets: NoTargets,
}

pub fn plan_hosts(
    settings: &Settings,
    printer: &Printer,
    project: &Project,
    registries: &RegistrySet,
    request: HostRequest<'_>,
) -> Result<Option<(Plan, ClaimStore)>> {
    let HostRequest {
        manifest,
        lock,
        args,
        mode,
        no_targets,
    } = request;
    let hosts = HostSettings::new(args, manifest, &settings.host_env)?;
    if hosts.targets.is_empty() {
        let message = "no target hosts: set `hosts = [...]` under [project] in dotpack.toml, or pass --host (claude-code, codex, gemini-cli, cursor, vscode)";
        match no_targets {
            NoTargets::Warn => {
                printer.warning(format!(
                    "{message}; only dotpack.toml and dotpack.lock were updated"
                ));
                return Ok(None);
            }
            NoTargets::Fail => bail!("{message}"),
        }
    }
    let lock_claims = project
        .lock
        .as_ref()
        .map(|l| l.claims.as_slice())
        .unwrap_or_default();
    let planned = crate::install::plan_targets(
        &hosts,
        crate::install::PlanRequest {
            lock,
            manifest: &manifest.manifest,
            registries,
            lock_claims,
            dotpack_home: &settings.dotpack_home,
            project_root: manifest.root(),
            mode,
        },
    )?;
    Ok(Some(planned))
}

/// The end of every command that changes the project and its hosts: plan the host files for the
/// new lock, then commit manifest, lock, claims and host files as one transaction.
pub struct Finish<'a> {
    /// The manifest as the command leaves it, and its new text when the command edited it.
    pub manifest: &'a LoadedManifest,
    pub manifest_text: Option<String>,
    pub lock: Lockfile,
    pub args: &'a InstallArgs,
    pub mode: Mode,
    pub no_targets: NoTargets,
}

pub fn finish(
    settings: &Settings,
    printer: &Printer,
    project: &Project,
    registries: &RegistrySet,
    finish: Finish<'_>,
) -> Result<()> {
    let hosts = plan_hosts(
        settings,
        printer,
        project,
        registries,
        HostRequest {
            manifest: finish.manifest,
            lock: &finish.lock,
            args: finish.args,
            mode: finish.mode,
            no_targets: finish.no_targets,
        },
    )?;
    commit(
        settings,
        printer,
        Outcome {
            project,
            manifest_text: finish.manifest_text,
            lock: finish.lock,
            hosts,
            dry_run: finish.args.dry_run,
        },
    )
}

/// What a writing command wants on disk: the new manifest text (if it changes), the new lock, and
/// the plan for the host files (when there are targets).
pub struct Outcome<'a> {
    pub project: &'a Project,
    pub manifest_text: Option<String>,
    pub lock: Lockfile,
    pub hosts: Option<(Plan, ClaimStore)>,
    pub dry_run: bool,
}

/// Applies an outcome: checks `--locked`, prints what changes, and writes every changed file
/// (host files, user claims, manifest, lock) after checking all of them can be written. With
/// `dry_run`, prints unified diffs and writes nothing.
pub fn commit(settings: &Settings, printer: &Printer, outcome: Outcome<'_>) -> Result<()> {
    let project = outcome.project;
    let mut lock = outcome.lock;
    let old_claims = project
        .lock
        .as_ref()
        .map(|l| l.claims.clone())
        .unwrap_or_default();
    let mut writes = Vec::new();
    let mut host_plan = None;
    let user_scope = matches!(outcome.hosts, Some((_, ClaimStore::User(_))));
    match outcome.hosts {
        Some((plan, ClaimStore::Project)) => {
            lock.claims = plan.claims.clone();
            host_plan = Some(plan);
        }
        Some((plan, ClaimStore::User(user))) => {
            lock.claims = old_claims;
            let text = UserClaims::render(&plan.claims);
            let text = if plan.claims.is_empty() && user.text.is_none() {
                None
            } else {
                Some(text)
            };
            writes.push(FileWrite {
                display: user.path.display().to_string(),
                host: None,
                path: user.path.clone(),
                before: user.text.clone(),
                after: text,
            });
            host_plan = Some(plan);
        }
        None => lock.claims = old_claims,
    }
    let lock_text = lock.emit();
    if settings.locked && project.lock.as_ref() != Some(&lock) {
        let why = if project.lock.is_none() {
            "dotpack.lock is missing"
        } else {
            "dotpack.lock needs to be updated"
        };
        bail!(
            "{why} but --locked was passed to prevent this\n  help: run the command without --locked (or --frozen) and commit the new dotpack.lock"
        );
    }
    let root = project.manifest.root();
    let changes = lock_changes(project.lock.as_ref(), &lock);
    for change in &changes {
        change.print(printer);
    }
    if let Some(plan) = &host_plan {
        print_host_summary(printer, plan);
    }
    // Host files first, in target order; their bytes move into the writes (they may be large).
    let mut host_writes: Vec<FileWrite> = host_plan
        .map(|plan| plan.files)
        .unwrap_or_default()
        .into_iter()
        .map(|file| FileWrite {
            display: file.target.claim_file,
            host: Some(file.target.host.id.to_string()),
            path: file.target.path,
            before: file.before,
            after: file.after,
        })
        .collect();
    host_writes.append(&mut writes);
    let mut writes = host_writes;
    if let Some(text) = outcome.manifest_text {
        writes.push(FileWrite {
            display: crate::manifest::MANIFEST_FILE.to_string(),
            host: None,
            path: project.manifest.path.clone(),
            before: Some(project.manifest.text.clone()),
            after: Some(text),
        });
    }
    writes.push(FileWrite {
        display: LOCK_FILE.to_string(),
        host: None,
        path: root.join(LOCK_FILE),
        before: project.lock_text.clone(),
        after: Some(lock_text),
    });
    if outcome.dry_run {
        crate::apply::print_diffs(printer, &writes);
        printer.warning("dry run: no file was changed");
        return Ok(());
    }
    crate::apply::preflight(&writes)?;
    let places = if user_scope {
        crate::txn::Places::user(Some(root), &settings.dotpack_home)
    } else {
        crate::txn::Places::project(root)
    };
    let meta = crate::txn::Meta {
        command: settings.command_line.clone(),
        packages: changes.iter().map(Change::record).collect(),
        keep: keep_generations(&project.manifest),
        ..crate::txn::Meta::default()
    };
    match crate::txn::apply(&places, &writes, meta, settings.wait, printer)? {
        Some(id) => printer.status("Finished", format!("generation {id}")),
        None => printer.status("Finished", "nothing to change"),
    }
    Ok(())
}

/// `[settings] keep_generations`, else [`crate::txn::DEFAULT_KEEP`].
pub fn keep_generations(manifest: &LoadedManifest) -> usize {
    manifest
        .manifest
        .settings
        .as_ref()
        .and_then(|s| s.keep_generations)
        .map_or(crate::txn::DEFAULT_KEEP, |k| k as usize)
}

/// One line per file that changes, grouped by host, with counts; then the warnings in one block.
fn print_host_summary(printer: &Printer, plan: &Plan) {
    use crate::plan::Action;
    for file in &plan.files {
        let count = |a: Action| file.changes.iter().filter(|c| c.action == a).count();
        let mut parts = Vec::new();
        for (action, word) in [
            (Action::Add, "added"),
            (Action::Update, "updated"),
            (Action::Remove, "removed"),
            (Action::Adopt, "adopted"),
        ] {
            let n = count(action);
            if n > 0 {
                parts.push(format!("{n} {word}"));
            }
        }
        if parts.is_empty() {
            continue;
        }
        let verb = if file.before.is_none() {
            "Created"
        } else if file.after.is_none() {
            "Deleted"
        } else if file.is_changed() {
            "Updated"
        } else {
            "Claimed"
        };
        printer.status(
            verb,
            format!(
                "{} ({}): {}",
                file.target.claim_file,
                file.target.host.id,
                parts.join(", ")
            ),
        );
    }
    // Warnings come in one block after the file lines.
    let dropped = plan.files.iter().flat_map(|file| {
        file.changes
            .iter()
            .filter(|c| !c.dropped.is_empty() && c.action != Action::Unchanged)
            .map(move |c| {
                format!(
                    "{} ({}): server `{}` dropped {}",
                    file.target.claim_file,
                    file.target.host.id,
                    c.server,
                    c.dropped.join(", ")
                )
            })
    });
    for warning in dropped.chain(plan.warnings.iter().cloned()) {
        printer.warning(warning);
    }
}
