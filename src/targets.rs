//! Which host files a project writes, and which of its servers go into each.
//!
//! `[project] hosts` names the hosts, each at its scope (`{ host = "windsurf", scope = "user" }`,
//! else `[project] scope`, else project scope where the host has a project file). A dependency
//! may send its servers (and its own dependencies') to the user scope instead (`scope = "user"`),
//! and `exclude` lists, for the project or for one host, take packages or servers out. Claims add
//! the files that hold dotpack's entries even when no declared host names them any more, so that
//! every command finds its entries wherever they are.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use anyhow::{Result, bail};

use crate::claims::Claim;
use crate::hosts::{self, HostAdapter, HostEnv, Scope};
use crate::lock::Lockfile;
use crate::manifest::Manifest;

/// One host file at one scope.
#[derive(Clone, Debug)]
pub struct Target {
    pub host: &'static HostAdapter,
    pub scope: Scope,
    /// Where the file is on disk.
    pub path: PathBuf,
    /// How claims name the file: relative to the project root for project scope, absolute for
    /// user scope.
    pub claim_file: String,
    /// How many of the file's folders do not exist yet (below the project root or the home
    /// folder): writing the file creates them, and they are recorded so they can go with it.
    pub missing_dirs: u32,
}

impl Target {
    /// The target of `host` at `scope` for the project at `root`, or an error when the host has
    /// no file at that scope.
    pub fn new(
        host: &'static HostAdapter,
        scope: Scope,
        root: &Path,
        env: &HostEnv,
    ) -> Result<Target> {
        let Some(path) = host.path(scope, root, env) else {
            bail!(
                "{} has no {scope}-scope config file\n  help: give it the other scope: `{{ host = \"{}\", scope = \"{}\" }}` under [project] hosts",
                host.name(),
                host.id,
                other(scope)
            );
        };
        let claim_file = match scope {
            Scope::Project => path
                .strip_prefix(root)
                .map(|p| p.to_string_lossy().replace('\\', "/"))
                .unwrap_or_else(|_| path.display().to_string()),
            Scope::User => path.display().to_string(),
        };
        let base = match scope {
            Scope::Project => root,
            Scope::User => env.home.as_path(),
        };
        Ok(Target {
            host,
            scope,
            missing_dirs: missing_dirs(&path, base),
            path,
            claim_file,
        })
    }

    /// The target a claim names, when it is exactly a file dotpack writes for that host now:
    /// a claim in a cloned lock cannot point dotpack at any other path.
    pub fn of_claim(claim: &Claim, root: &Path, env: &HostEnv) -> Option<Target> {
        let host = hosts::adapter(&claim.host)?;
        let scope = match claim.scope.as_str() {
            "project" => Scope::Project,
            "user" => Scope::User,
            _ => return None,
        };
        let target = Target::new(host, scope, root, env).ok()?;
        (target.claim_file == claim.file).then_some(target)
    }
}

/// The folders between `base` and `path` that do not exist, counted up from the file.
fn missing_dirs(path: &Path, base: &Path) -> u32 {
    let mut count = 0;
    for dir in path.ancestors().skip(1) {
        if dir == base || !dir.starts_with(base) || dir.exists() {
            break;
        }
        count += 1;
    }
    count
}

fn other(scope: Scope) -> Scope {
    match scope {
        Scope::Project => Scope::User,
        Scope::User => Scope::Project,
    }
}

/// The adapter of host `id`, or an error listing the hosts (with a close match).
pub fn host_adapter(id: &str) -> Result<&'static HostAdapter> {
    if let Some(host) = hosts::adapter(id) {
        return Ok(host);
    }
    let known: Vec<&str> = hosts::ADAPTERS.iter().map(|a| a.id).collect();
    let hint = match crate::suggest::closest(id, known.iter().copied()) {
        Some(close) => format!("did you mean `{close}`? "),
        None => String::new(),
    };
    bail!(
        "`{id}` is not a host dotpack can install into\n  help: {hint}hosts are: {}",
        known.join(", ")
    )
}

/// A declared host, resolved: its adapter, its scope and what it does not get.
#[derive(Clone, Debug)]
pub struct HostPlace {
    pub host: &'static HostAdapter,
    pub scope: Scope,
    pub exclude: BTreeSet<String>,
}

/// Where a project's servers go.
#[derive(Clone, Debug, Default)]
pub struct Layout {
    pub hosts: Vec<HostPlace>,
    /// Packages and servers installed nowhere (`[project] exclude`).
    pub exclude: BTreeSet<String>,
    /// Packages whose servers go to another scope than their hosts' (from `scope` on the root
    /// dependencies that pull them in).
    pub package_scope: BTreeMap<String, Scope>,
}

impl Layout {
    /// The layout `manifest` declares, for the packages of `lock`. With `global` (the user-level
    /// manifest) every host is at user scope.
    pub fn new(manifest: &Manifest, lock: Option<&Lockfile>, global: bool) -> Result<Layout> {
        let project = manifest.project.clone().unwrap_or_default();
        let mut hosts: Vec<HostPlace> = Vec::new();
        for decl in &project.hosts {
            let host = host_adapter(decl.id())?;
            if hosts.iter().any(|h| h.host.id == host.id) {
                continue;
            }
            let scope = if global {
                Scope::User
            } else {
                match decl.scope().or(project.scope) {
                    Some(scope) => scope,
                    None if host.project_file.is_none() => Scope::User,
                    None => Scope::Project,
                }
            };
            hosts.push(HostPlace {
                host,
                scope,
                exclude: decl.exclude().iter().cloned().collect(),
            });
        }
        let package_scope = if global {
            BTreeMap::new()
        } else {
            package_scopes(manifest, lock)
        };
        Ok(Layout {
            hosts,
            exclude: project.exclude.iter().cloned().collect(),
            package_scope,
        })
    }

    /// Where server `server` of package `package` goes: one `(host, scope)` per host that
    /// takes it.
    pub fn places_of(&self, package: &str, server: &str) -> Vec<(&'static HostAdapter, Scope)> {
        if self.exclude.contains(package) || self.exclude.contains(server) {
            return Vec::new();
        }
        self.hosts
            .iter()
            .filter(|h| !h.exclude.contains(package) && !h.exclude.contains(server))
            .map(|h| {
                let scope = self.package_scope.get(package).copied().unwrap_or(h.scope);
                (h.host, scope)
            })
            .collect()
    }
}

/// The scope each locked package is sent to by the root dependencies that reach it, when they
/// all agree on one.
fn package_scopes(manifest: &Manifest, lock: Option<&Lockfile>) -> BTreeMap<String, Scope> {
    let Some(lock) = lock else {
        return BTreeMap::new();
    };
    let deps: BTreeMap<&str, &[String]> = lock
        .packages
        .iter()
        .map(|p| (p.name.as_str(), p.dependencies.as_slice()))
        .collect();
    // For each package, the scopes of the roots reaching it (`None`: a root with no override).
    let mut reached: BTreeMap<&str, BTreeSet<Option<Scope>>> = BTreeMap::new();
    for (root, spec) in &manifest.dependencies {
        let mut stack = vec![root.as_str()];
        let mut seen = BTreeSet::new();
        while let Some(name) = stack.pop() {
            if !seen.insert(name) {
                continue;
            }
            reached.entry(name).or_default().insert(spec.scope());
            stack.extend(
                deps.get(name)
                    .into_iter()
                    .flat_map(|d| d.iter().map(String::as_str)),
            );
        }
    }
    reached
        .into_iter()
        .filter_map(
            |(name, scopes)| match scopes.into_iter().collect::<Vec<_>>()[..] {
                [Some(scope)] => Some((name.to_string(), scope)),
                _ => None,
            },
        )
        .collect()
}

/// The targets of a command, in a stable order: declared hosts first (in the order of
/// `[project] hosts`), then files only claims name.
#[derive(Clone, Debug, Default)]
pub struct TargetSet {
    pub targets: Vec<Target>,
}

impl TargetSet {
    /// The index of the target for `host` at `scope`, adding it when new.
    pub fn place(
        &mut self,
        host: &'static HostAdapter,
        scope: Scope,
        root: &Path,
        env: &HostEnv,
    ) -> Result<usize> {
        if let Some(i) = self
            .targets
            .iter()
            .position(|t| t.host.id == host.id && t.scope == scope)
        {
            return Ok(i);
        }
        self.targets.push(Target::new(host, scope, root, env)?);
        Ok(self.targets.len() - 1)
    }

    /// Adds the file of a claim (when it is one dotpack writes); returns whether it was added.
    pub fn add_claimed(&mut self, claim: &Claim, root: &Path, env: &HostEnv) -> bool {
        if self
            .targets
            .iter()
            .any(|t| t.host.id == claim.host && t.claim_file == claim.file)
        {
            return true;
        }
        match Target::of_claim(claim, root, env) {
            Some(target) => {
                self.targets.push(target);
                true
            }
            None => false,
        }
    }

    pub fn position(&self, claim_file: &str) -> Option<usize> {
        self.targets.iter().position(|t| t.claim_file == claim_file)
    }
}
