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

use anyhow::Result;

use crate::model::claims::Claim;
use crate::model::hosts::{self, HostAdapter, HostEnv, Scope};
use crate::model::lock::Lockfile;
use crate::model::manifest::Manifest;

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
    /// The folder the file must stay inside once links are followed: the project, for a
    /// project-scope file (lifted by `--write-outside-project`); `None` at user scope, where a
    /// link is the user's own.
    pub fence: Option<crate::util::fence::Fence>,
    /// The platform the host reads the file on: how its entries start a batch shim (`npx`).
    pub platform: hosts::Platform,
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
            crate::bail_help!(
                help = format!(
                    "give it the other scope: `{{ host = \"{}\", scope = \"{}\" }}` under [project] hosts",
                    host.id,
                    other(scope)
                ),
                "{} has no {scope}-scope config file",
                host.name()
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
            fence: (scope == Scope::Project).then(|| crate::util::fence::Fence::project(root)),
            platform: env.platform,
        })
    }

    /// The file's text (`None` when absent), read without following a link out of its fence,
    /// only when it is a regular file, and up to the cap of its scope.
    pub fn read(&self) -> Result<Option<String>> {
        let cap = match self.scope {
            Scope::Project => crate::util::fence::PROJECT_FILE_CAP,
            Scope::User => crate::util::fence::USER_FILE_CAP,
        };
        crate::util::fence::read_text(&self.path, self.fence.as_ref(), cap)
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

/// The scope a declared host is written at: its own `scope`, else the project's where the host
/// has a file there, else project scope where it has a project file, else user scope. The one
/// rule every command uses (placing servers, declaring hosts, importing).
pub fn scope_of(host: &HostAdapter, own: Option<Scope>, project: Option<Scope>) -> Scope {
    match (own, project) {
        (Some(scope), _) => scope,
        (None, Some(scope)) if host.has_scope(scope) => scope,
        _ if host.has_scope(Scope::Project) => Scope::Project,
        _ => Scope::User,
    }
}

/// The adapter of host `id`, or an error listing the hosts (with a close match).
pub fn host_adapter(id: &str) -> Result<&'static HostAdapter> {
    hosts::adapter(id).ok_or_else(|| unknown_host(id).into())
}

/// The error for a host id dotpack does not know, listing the hosts (with a close match).
pub fn unknown_host(id: &str) -> crate::util::error::Error {
    let known: Vec<&str> = hosts::ADAPTERS.iter().map(|a| a.id).collect();
    let hint = match crate::util::suggest::closest(id, known.iter().copied()) {
        Some(close) => format!("did you mean `{close}`? "),
        None => String::new(),
    };
    crate::util::error::Error::new(format!("`{id}` is not a host dotpack can install into"))
        .help(format!("{hint}hosts are: {}", known.join(", ")))
}

/// A declared host, resolved: its adapter, its scope and what it does not get.
#[derive(Clone, Debug)]
pub struct HostPlace {
    pub host: &'static HostAdapter,
    pub scope: Scope,
    pub exclude: BTreeSet<String>,
    /// Packages this host takes no server of: its own and the project's exclusions, and the
    /// packages only excluded ones pull in.
    pub without: BTreeSet<String>,
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
                scope_of(host, decl.scope(), project.scope)
            };
            hosts.push(HostPlace {
                host,
                scope,
                exclude: decl.exclude().iter().cloned().collect(),
                without: BTreeSet::new(),
            });
        }
        for (i, h) in hosts.iter().enumerate() {
            if let Some(first) = hosts[..i]
                .iter()
                .find(|g| g.scope == h.scope && g.host.same_file(h.host, h.scope))
            {
                crate::bail_help!(
                    help = format!(
                        "keep one of `{}` and `{}` in [project] hosts",
                        first.host.id, h.host.id
                    ),
                    "{} and {} keep their {}-scope servers in the same file; one file has one writer",
                    first.host.id,
                    h.host.id,
                    h.scope
                );
            }
        }
        let package_scope = if global {
            BTreeMap::new()
        } else {
            package_scopes(manifest, lock)
        };
        // A server of the project's own that names its hosts stays out of the others.
        for (name, server) in manifest.servers.iter().filter(|(_, s)| !s.hosts.is_empty()) {
            for host in hosts.iter_mut() {
                if !server.hosts.iter().any(|id| id == host.host.id) {
                    host.exclude.insert(name.clone());
                }
            }
        }
        let exclude: BTreeSet<String> = project.exclude.iter().cloned().collect();
        for host in &mut hosts {
            let excluded: BTreeSet<String> = exclude.union(&host.exclude).cloned().collect();
            host.without = left_out(manifest, lock, &excluded);
        }
        Ok(Layout {
            hosts,
            exclude,
            package_scope,
        })
    }

    /// The declared hosts that do not take server `server` of package `package` but would load
    /// it anyway from a file it goes to (`places`, from [`Layout::places_of`]) that they also
    /// read (pi reads `.mcp.json`): one `(host, scope)` per such host, for the host's own file
    /// that is read after that one, where the server is switched off. That is the host's
    /// project file (pi's `.pi/mcp.json`, read last), unless both the host and the shared file
    /// are at user scope: pi's `~/.pi/agent/mcp.json` comes after the user's shared files only.
    pub fn switched_off_in(
        &self,
        package: &str,
        server: &str,
        places: &[(&'static HostAdapter, Scope)],
    ) -> Vec<(&'static HostAdapter, Scope)> {
        let mut out: Vec<(&'static HostAdapter, Scope)> = Vec::new();
        for h in &self.hosts {
            if !h.without.contains(package) && !h.exclude.contains(server) {
                continue;
            }
            for (other, scope) in places {
                let at = match (h.scope, *scope) {
                    (Scope::User, Scope::User) => Scope::User,
                    _ => Scope::Project,
                };
                if h.host.has_scope(at)
                    && h.host.loads_file_of(other, *scope)
                    && !out.iter().any(|(o, s)| o.id == h.host.id && *s == at)
                {
                    out.push((h.host, at));
                }
            }
        }
        out
    }

    /// Where server `server` of package `package` goes: one `(host, scope)` per host that
    /// takes it.
    pub fn places_of(&self, package: &str, server: &str) -> Vec<(&'static HostAdapter, Scope)> {
        if self.exclude.contains(server) {
            return Vec::new();
        }
        self.hosts
            .iter()
            .filter(|h| !h.without.contains(package) && !h.exclude.contains(server))
            .map(|h| {
                let scope = match self.package_scope.get(package) {
                    // A package sent to a scope the host has no file at stays at the host's.
                    Some(&scope) if h.host.has_scope(scope) => scope,
                    _ => h.scope,
                };
                (h.host, scope)
            })
            .collect()
    }
}

/// The locked packages `excluded` leaves out: the excluded ones, and those only they pull in (a
/// bundle's packages go with the bundle, unless another dependency still needs them).
fn left_out(
    manifest: &Manifest,
    lock: Option<&Lockfile>,
    excluded: &BTreeSet<String>,
) -> BTreeSet<String> {
    let Some(lock) = lock else {
        return excluded.clone();
    };
    if excluded.is_empty() {
        return BTreeSet::new();
    }
    let deps: BTreeMap<&str, &[String]> = lock
        .packages
        .iter()
        .map(|p| (p.name.as_str(), p.dependencies.as_slice()))
        .collect();
    let mut kept = BTreeSet::new();
    let mut stack: Vec<&str> = manifest
        .dependencies
        .keys()
        .map(String::as_str)
        .filter(|name| !excluded.contains(*name))
        .collect();
    while let Some(name) = stack.pop() {
        if excluded.contains(name) || !kept.insert(name) {
            continue;
        }
        stack.extend(
            deps.get(name)
                .into_iter()
                .flat_map(|d| d.iter().map(String::as_str)),
        );
    }
    lock.packages
        .iter()
        .map(|p| p.name.as_str())
        .filter(|name| !kept.contains(name))
        .map(str::to_string)
        .chain(excluded.iter().cloned())
        .collect()
}

/// The scope each locked package is sent to: its own `scope` when it is a dependency of the
/// project, else the one the root dependencies that reach it agree on.
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
        .filter_map(|(name, scopes)| {
            // A dependency's own `scope` wins over what the packages pulling it in say.
            if let Some(own) = manifest.dependencies.get(name) {
                return own.scope().map(|scope| (name.to_string(), scope));
            }
            match scopes.into_iter().collect::<Vec<_>>()[..] {
                [Some(scope)] => Some((name.to_string(), scope)),
                _ => None,
            }
        })
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::lock::LockedPackage;

    fn lock(packages: &[(&str, &[&str])]) -> Lockfile {
        Lockfile {
            version: crate::model::lock::LOCK_VERSION,
            requirements: BTreeMap::new(),
            packages: packages
                .iter()
                .map(|(name, deps)| LockedPackage {
                    name: name.to_string(),
                    version: semver::Version::new(1, 0, 0),
                    source: "registry+builtin".into(),
                    checksum: format!("sha256:{}", "a".repeat(64)),
                    dependencies: deps.iter().map(|d| d.to_string()).collect(),
                    servers: vec![name.to_string()],
                    resources: vec![],
                })
                .collect(),
            claims: Vec::new(),
            files: Vec::new(),
            tools: Default::default(),
        }
    }

    fn manifest(text: &str) -> Manifest {
        toml::from_str(text).unwrap()
    }

    #[test]
    fn excluding_a_bundle_leaves_out_what_only_it_pulls_in() {
        let lock = lock(&[
            ("bundle", &["a", "b"]),
            ("a", &[]),
            ("b", &[]),
            ("c", &["b"]),
        ]);
        let m = manifest("[dependencies]\nbundle = \"^1\"\nc = \"^1\"\n");
        let excluded: BTreeSet<String> = ["bundle".to_string()].into();
        let out = left_out(&m, Some(&lock), &excluded);
        assert_eq!(out, ["a", "bundle"].iter().map(|s| s.to_string()).collect());
        assert!(left_out(&m, Some(&lock), &BTreeSet::new()).is_empty());
    }

    #[test]
    fn a_host_with_its_own_scope_and_a_package_with_its_own() {
        let lock = lock(&[("x", &[]), ("y", &[])]);
        let m = manifest(
            "[project]\nhosts = [\"claude-code\", { host = \"codex\", scope = \"user\", exclude = [\"x\"] }]\n\n[dependencies]\nx = \"^1\"\ny = { version = \"^1\", scope = \"user\" }\n",
        );
        let layout = Layout::new(&m, Some(&lock), false).unwrap();
        let at = |p: &str| -> Vec<(&str, Scope)> {
            layout
                .places_of(p, p)
                .into_iter()
                .map(|(h, s)| (h.id, s))
                .collect()
        };
        assert_eq!(at("x"), [("claude-code", Scope::Project)]);
        assert_eq!(
            at("y"),
            [("claude-code", Scope::User), ("codex", Scope::User)]
        );
    }

    #[test]
    fn a_server_kept_from_pi_is_switched_off_in_the_pi_file_read_after_the_shared_one() {
        let lock = lock(&[("x", &[]), ("y", &[])]);
        let switched = |hosts: &str, package: &str| -> Vec<(&'static str, Scope)> {
            let m = manifest(&format!(
                "[project]\nhosts = {hosts}\n\n[dependencies]\nx = \"^1\"\ny = {{ version = \"^1\", scope = \"user\" }}\n"
            ));
            let layout = Layout::new(&m, Some(&lock), false).unwrap();
            let places = layout.places_of(package, package);
            layout
                .switched_off_in(package, package, &places)
                .into_iter()
                .map(|(h, s)| (h.id, s))
                .collect()
        };
        let pi_without_x = "{ host = \"pi\", exclude = [\"x\", \"y\"] }";
        // `.mcp.json` (Claude Code's): pi's project file comes after it.
        assert_eq!(
            switched(&format!("[\"claude-code\", {pi_without_x}]"), "x"),
            [("pi", Scope::Project)]
        );
        // A file pi does not read: nothing to switch off.
        assert!(switched(&format!("[\"cursor\", {pi_without_x}]"), "x").is_empty());
        // `~/.config/mcp/mcp.json` for the user-scope package: still pi's project file, as pi
        // is declared for the project...
        assert_eq!(
            switched(&format!("[\"mcp-json\", {pi_without_x}]"), "y"),
            [("pi", Scope::Project)]
        );
        // ...and pi's user file when pi is declared at user scope.
        let pi_user = "{ host = \"pi\", scope = \"user\", exclude = [\"x\", \"y\"] }";
        assert_eq!(
            switched(&format!("[\"mcp-json\", {pi_user}]"), "y"),
            [("pi", Scope::User)]
        );
        // `.mcp.json` comes after pi's user file: the switch goes to pi's project file.
        assert_eq!(
            switched(&format!("[\"claude-code\", {pi_user}]"), "x"),
            [("pi", Scope::Project)]
        );
        // Taken by pi itself: nothing to switch off.
        assert!(switched("[\"claude-code\", \"pi\"]", "x").is_empty());
    }
}
