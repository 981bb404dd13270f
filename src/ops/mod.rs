//! The flows commands share: load the project, open its registries, resolve, and write the
//! manifest, lock, claims and host files. Commands decide *what* to change; this module decides
//! *how*.
//!
//! - [`Settings`] and [`Project`]: flags, environment and the loaded project, decided once;
//! - `registries`: the default and named registries;
//! - `locking`: resolution into a lock, and what changed between two locks;
//! - `commit`: planning the host files and committing everything as one transaction.

mod commit;
mod locking;
mod registries;

pub use commit::{
    Finish, HostRequest, NoTargets, Outcome, commit, finish, keep_generations, plan_hosts,
};
pub use locking::{Change, lock_changes, resolve_lock};
pub use registries::{registries, root_deps};

use std::collections::BTreeMap;
use std::path::PathBuf;

use anyhow::{Context, Result};
use semver::Version;

use crate::cli::GlobalArgs;
use crate::hosts::HostEnv;
use crate::lock::{LOCK_FILE, Lockfile};
use crate::manifest::{self, LoadedManifest};

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

impl Settings {
    /// The paths transaction records may name in this run: the project's, `$DOTPACK_HOME`'s
    /// and the hosts' user config files. Built here and only here.
    pub fn boundary(&self, project_root: Option<&std::path::Path>) -> crate::txn::Boundary {
        crate::txn::Boundary::new(project_root, &self.dotpack_home, &self.host_env)
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
            crate::txn::Places::user(root.as_deref(), settings.boundary(root.as_deref()))
        }
        (_, Some(root)) => crate::txn::Places::project(root, settings.boundary(Some(root))),
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
            .as_ref()
            .map(Lockfile::preferred)
            .unwrap_or_default()
    }
}
