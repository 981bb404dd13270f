//! The model's data: the packages of the test registry, hosts, scopes and files, entries as the
//! test tells them apart, what a `dotpack.toml` declares and where that puts each server, locks
//! and claims.

use std::collections::{BTreeMap, BTreeSet};

/// The hosts the test installs into; every one has a project and a user file.
pub const HOSTS: [&str; 3] = ["claude-code", "codex", "cursor"];

/// The port `tuned` gets when nothing sets its input.
pub const DEFAULT_PORT: u16 = 3845;

/// A package of the test registry: its servers and dependencies.
pub struct Package {
    pub name: &'static str,
    pub servers: &'static [&'static str],
    pub deps: &'static [&'static str],
}

/// alpha and beta are plain; duo has two servers; bundle depends on beta; tuned has a required
/// input with a default (`port`); vault has a required secret input and reads `VAULT_TOKEN`.
pub const PACKAGES: [Package; 6] = [
    Package {
        name: "alpha",
        servers: &["alpha"],
        deps: &[],
    },
    Package {
        name: "beta",
        servers: &["beta"],
        deps: &[],
    },
    Package {
        name: "duo",
        servers: &["duo-read", "duo-write"],
        deps: &[],
    },
    Package {
        name: "bundle",
        servers: &["bundle"],
        deps: &["beta"],
    },
    Package {
        name: "tuned",
        servers: &["tuned"],
        deps: &[],
    },
    Package {
        name: "vault",
        servers: &["vault"],
        deps: &[],
    },
];

/// Names `install` and `uninstall` are given: packages, servers, and one that is neither.
pub const NAMES: [&str; 9] = [
    "alpha",
    "beta",
    "duo",
    "bundle",
    "tuned",
    "vault",
    "duo-read",
    "duo-write",
    "nope",
];

pub fn package(name: &str) -> Option<&'static Package> {
    PACKAGES.iter().find(|p| p.name == name)
}

/// The package a package or server name belongs to.
pub fn package_of(name: &str) -> Option<&'static Package> {
    package(name).or_else(|| PACKAGES.iter().find(|p| p.servers.contains(&name)))
}

/// Every package `roots` pull in, themselves included.
pub fn closure<'a>(roots: impl IntoIterator<Item = &'a String>) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut stack: Vec<String> = roots.into_iter().cloned().collect();
    while let Some(name) = stack.pop() {
        if out.insert(name.clone())
            && let Some(p) = package(&name)
        {
            stack.extend(p.deps.iter().map(|d| d.to_string()));
        }
    }
    out
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Scope {
    Project,
    User,
}

impl Scope {
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Project => "project",
            Scope::User => "user",
        }
    }

    pub fn parse(s: &str) -> Option<Scope> {
        match s {
            "project" => Some(Scope::Project),
            "user" => Some(Scope::User),
            _ => None,
        }
    }
}

/// One host file: a host at a scope. Project-scope files are project A's (project B installs
/// only at user scope).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FileId {
    pub host: usize,
    pub scope: Scope,
}

pub fn all_files() -> impl Iterator<Item = FileId> {
    [Scope::Project, Scope::User]
        .into_iter()
        .flat_map(|scope| (0..HOSTS.len()).map(move |host| FileId { host, scope }))
}

/// An entry as the test tells entries apart: written by dotpack for a definition (`tuned`'s
/// port, 0 for the others), changed by hand (keeping the port), or the hand-written `mine`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Val {
    Clean(u16),
    Edited(u16),
    Mine,
}

pub type Entries = BTreeMap<String, Val>;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Owner {
    A,
    B,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Dep {
    pub scope: Option<Scope>,
    pub port: Option<u16>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostDecl {
    pub host: usize,
    pub scope: Option<Scope>,
    pub exclude: BTreeSet<String>,
}

/// What a `dotpack.toml` declares.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Declared {
    pub hosts: Vec<HostDecl>,
    pub scope: Option<Scope>,
    pub exclude: BTreeSet<String>,
    pub deps: BTreeMap<String, Dep>,
}

impl Declared {
    pub fn project_scope(&self) -> Scope {
        self.scope.unwrap_or(Scope::Project)
    }

    /// The scope host `h` is written at.
    pub fn host_scope(&self, h: &HostDecl) -> Scope {
        h.scope.unwrap_or(self.project_scope())
    }

    pub fn host_mut(&mut self, host: usize) -> Option<&mut HostDecl> {
        self.hosts.iter_mut().find(|h| h.host == host)
    }

    /// `--host H` (with `--scope S` on install): H is declared, and written at S when given.
    pub fn declare_host(&mut self, host: usize, scope: Option<Scope>) {
        let default = self.project_scope();
        let own = scope.filter(|s| *s != default);
        match self.host_mut(host) {
            Some(h) => {
                if scope.is_some() {
                    h.scope = own;
                }
            }
            None => self.hosts.push(HostDecl {
                host,
                scope: own,
                exclude: BTreeSet::new(),
            }),
        }
    }

    /// The scope the root dependencies reaching each locked package send it to, when they
    /// agree on one.
    pub fn package_scopes(&self, packages: &BTreeSet<String>) -> BTreeMap<String, Scope> {
        let mut reached: BTreeMap<String, BTreeSet<Option<Scope>>> = BTreeMap::new();
        for (root, dep) in &self.deps {
            for p in closure([root]) {
                if packages.contains(&p) {
                    reached.entry(p).or_default().insert(dep.scope);
                }
            }
        }
        reached
            .into_iter()
            .filter_map(|(p, scopes)| {
                // A dependency's own scope wins over what the packages pulling it in say.
                if let Some(own) = self.deps.get(&p) {
                    return own.scope.map(|s| (p, s));
                }
                match scopes.into_iter().collect::<Vec<_>>()[..] {
                    [Some(s)] => Some((p, s)),
                    _ => None,
                }
            })
            .collect()
    }

    /// The locked packages a host with exclusions `excluded` takes: those reached from the root
    /// dependencies without going through an excluded package (a bundle's packages go with it).
    fn kept_packages(
        &self,
        packages: &BTreeSet<String>,
        excluded: &BTreeSet<String>,
    ) -> BTreeSet<String> {
        let mut kept = BTreeSet::new();
        let mut stack: Vec<String> = self
            .deps
            .keys()
            .filter(|d| !excluded.contains(*d))
            .cloned()
            .collect();
        while let Some(name) = stack.pop() {
            if excluded.contains(&name) || !packages.contains(&name) || !kept.insert(name.clone()) {
                continue;
            }
            if let Some(p) = package(&name) {
                stack.extend(p.deps.iter().map(|d| d.to_string()));
            }
        }
        kept
    }

    /// Where `packages` (the lock's) are installed: file -> server -> definition.
    pub fn desired(&self, packages: &BTreeSet<String>) -> BTreeMap<FileId, BTreeMap<String, u16>> {
        let scopes = self.package_scopes(packages);
        let mut out: BTreeMap<FileId, BTreeMap<String, u16>> = BTreeMap::new();
        for h in &self.hosts {
            let excluded: BTreeSet<String> = self.exclude.union(&h.exclude).cloned().collect();
            let kept = self.kept_packages(packages, &excluded);
            for p in packages {
                let Some(pkg) = package(p) else { continue };
                if !kept.contains(p) {
                    continue;
                }
                for server in pkg.servers {
                    if excluded.contains(*server) {
                        continue;
                    }
                    let scope = scopes.get(p).copied().unwrap_or(self.host_scope(h));
                    let def = if p == "tuned" {
                        self.deps
                            .get(p)
                            .and_then(|d| d.port)
                            .unwrap_or(DEFAULT_PORT)
                    } else {
                        0
                    };
                    out.entry(FileId {
                        host: h.host,
                        scope,
                    })
                    .or_default()
                    .insert(server.to_string(), def);
                }
            }
        }
        out
    }
}

/// A lock: its packages and its claims on project-scope files (server -> definition).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Lock {
    pub packages: BTreeSet<String>,
    pub claims: BTreeMap<(FileId, String), u16>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UserClaim {
    pub def: u16,
    pub owners: BTreeSet<Owner>,
}

/// A generation of project A, as rollback needs it: the declared state and lock after it, and
/// each project-scope host file it wrote (entries before and after).
#[derive(Clone, Debug)]
pub struct Generation {
    pub id: u64,
    pub declared: Option<Declared>,
    pub lock: Option<Lock>,
    pub writes: BTreeMap<FileId, (Entries, Entries)>,
}
