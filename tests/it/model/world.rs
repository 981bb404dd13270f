//! The model's world: both projects' declared state, A's lock, the user-scope claims and every
//! host file's entries; how a command's plan is applied to the host files (`sync`), and what
//! `status` and a clone should find.

use std::collections::{BTreeMap, BTreeSet};

use super::reference::{
    Declared, Dep, Entries, FileId, Generation, HostDecl, Lock, Owner, Scope, UserClaim, Val,
    all_files, closure, package,
};

/// Everything the test knows about the machine.
#[derive(Clone, Debug, Default)]
pub struct World {
    /// Project A's dotpack.toml (`None`: there is none).
    pub a: Option<Declared>,
    /// Project A's dotpack.lock, "ours" while it has conflict markers.
    pub a_lock: Option<Lock>,
    /// "Theirs", while dotpack.lock has git conflict markers.
    pub conflict: Option<Lock>,
    /// Project B's dependencies: all at user scope, in claude-code.
    pub b: BTreeSet<String>,
    /// Whether B declares claude-code (its first `add --host claude-code` does).
    pub b_host: bool,
    pub files: BTreeMap<FileId, Entries>,
    pub user_claims: BTreeMap<(FileId, String), UserClaim>,
    pub generations: Vec<Generation>,
}

/// How a command is expected to end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expect {
    Ok,
    Fail(i32),
}

/// A command the model predicts: how it ends, and the world after it when it succeeds.
pub struct Prediction {
    pub expect: Expect,
    pub next: World,
}

/// A value `--set` gives.
#[derive(Clone, Copy, Debug)]
pub enum Set {
    Port(u16),
    /// A value for vault's secret input: always refused.
    Secret,
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Sync,
    Uninstall,
}

/// An entry that is another owner's, or written differently by another owner: the command
/// fails before writing anything.
pub struct Refused;

impl World {
    pub fn fail(&self, code: i32) -> Prediction {
        Prediction {
            expect: Expect::Fail(code),
            next: self.clone(),
        }
    }

    pub fn ok(next: World) -> Prediction {
        Prediction {
            expect: Expect::Ok,
            next,
        }
    }

    pub fn entry(&self, file: FileId, server: &str) -> Option<Val> {
        self.files.get(&file).and_then(|e| e.get(server)).copied()
    }

    /// The lock every command of A reads: with conflict markers, both sides united; for an
    /// entry both sides claim, ours unless only theirs matches the file; a claim only one side
    /// has is kept while its entry is in the file.
    pub fn effective_lock(&self) -> Option<Lock> {
        let ours = self.a_lock.clone()?;
        let Some(theirs) = &self.conflict else {
            return Some(ours);
        };
        let matches =
            |key: &(FileId, String), def: u16| self.entry(key.0, &key.1) == Some(Val::Clean(def));
        let present = |key: &(FileId, String)| self.entry(key.0, &key.1).is_some();
        let mut claims = BTreeMap::new();
        let keys: BTreeSet<&(FileId, String)> =
            ours.claims.keys().chain(theirs.claims.keys()).collect();
        for key in keys {
            let kept = match (ours.claims.get(key), theirs.claims.get(key)) {
                (Some(&o), Some(&t)) => Some(if matches(key, t) && !matches(key, o) {
                    t
                } else {
                    o
                }),
                (Some(&one), None) | (None, Some(&one)) => present(key).then_some(one),
                (None, None) => None,
            };
            if let Some(def) = kept {
                claims.insert(key.clone(), def);
            }
        }
        Some(Lock {
            packages: ours.packages.union(&theirs.packages).cloned().collect(),
            claims,
        })
    }

    /// Names `install NAME` and `uninstall NAME` accept: dependencies, locked packages and
    /// their servers.
    pub fn known(&self, decl: &Declared, lock: Option<&Lock>, name: &str) -> bool {
        decl.deps.contains_key(name)
            || lock.is_some_and(|l| {
                l.packages
                    .iter()
                    .any(|p| p == name || package(p).is_some_and(|pkg| pkg.servers.contains(&name)))
            })
    }

    pub fn b_declared(&self) -> Declared {
        Declared {
            hosts: if self.b_host {
                vec![HostDecl {
                    host: 0,
                    scope: None,
                    exclude: BTreeSet::new(),
                }]
            } else {
                Vec::new()
            },
            scope: None,
            exclude: BTreeSet::new(),
            deps: self
                .b
                .iter()
                .map(|p| {
                    (
                        p.clone(),
                        Dep {
                            scope: Some(Scope::User),
                            port: None,
                        },
                    )
                })
                .collect(),
        }
    }

    /// Makes the host files hold what `owner` desires, as the claims allow (`Uninstall`: only
    /// removes). `claims` are A's project-scope claims (B has none).
    pub fn sync(
        &mut self,
        owner: Owner,
        desired: &BTreeMap<FileId, BTreeMap<String, u16>>,
        claims: &mut BTreeMap<(FileId, String), u16>,
        mode: Mode,
        force: bool,
        only_user: bool,
    ) -> Result<(), Refused> {
        let empty = BTreeMap::new();
        for file in all_files() {
            let want = desired.get(&file).unwrap_or(&empty);
            match file.scope {
                Scope::Project if owner == Owner::A && !only_user => {
                    self.sync_project(file, want, claims, mode, force)?
                }
                Scope::Project => {}
                Scope::User => self.sync_user(file, want, owner, mode, force)?,
            }
        }
        Ok(())
    }

    pub fn sync_project(
        &mut self,
        file: FileId,
        want: &BTreeMap<String, u16>,
        claims: &mut BTreeMap<(FileId, String), u16>,
        mode: Mode,
        force: bool,
    ) -> Result<(), Refused> {
        let entries = self.files.entry(file).or_default();
        if mode == Mode::Sync {
            for (server, &def) in want {
                let key = (file, server.clone());
                match (claims.get(&key).copied(), entries.get(server).copied()) {
                    (None, Some(_)) if !force => return Err(Refused),
                    (Some(claim), Some(val)) if val != Val::Clean(claim) && !force => {}
                    (_, val) => {
                        if val != Some(Val::Clean(def)) {
                            entries.insert(server.clone(), Val::Clean(def));
                        }
                        claims.insert(key, def);
                    }
                }
            }
        }
        let claimed: Vec<(String, u16)> = claims
            .iter()
            .filter(|((f, s), _)| *f == file && !want.contains_key(s))
            .map(|((_, s), d)| (s.clone(), *d))
            .collect();
        for (server, def) in claimed {
            match entries.get(&server).copied() {
                None => {}
                Some(val) if val == Val::Clean(def) || force => {
                    entries.remove(&server);
                }
                Some(_) => continue,
            }
            claims.remove(&(file, server));
        }
        Ok(())
    }

    pub fn sync_user(
        &mut self,
        file: FileId,
        want: &BTreeMap<String, u16>,
        owner: Owner,
        mode: Mode,
        force: bool,
    ) -> Result<(), Refused> {
        let entries = self.files.entry(file).or_default();
        if mode == Mode::Sync {
            for (server, &def) in want {
                let key = (file, server.clone());
                let entry = entries.get(server).copied();
                match self.user_claims.get_mut(&key) {
                    None => {
                        if entry.is_some() && !force {
                            return Err(Refused);
                        }
                        entries.insert(server.clone(), Val::Clean(def));
                        self.user_claims.insert(
                            key,
                            UserClaim {
                                def,
                                owners: BTreeSet::from([owner]),
                            },
                        );
                    }
                    Some(claim) => {
                        let others = claim.owners.iter().any(|o| *o != owner);
                        if claim.def != def && others && !force {
                            return Err(Refused);
                        }
                        claim.owners.insert(owner);
                        // An entry edited by hand since is kept as it is (shared as it is).
                        let edited = entry.is_some_and(|v| v != Val::Clean(claim.def));
                        if !edited || force {
                            claim.def = def;
                            entries.insert(server.clone(), Val::Clean(def));
                        }
                    }
                }
            }
        }
        let released: Vec<String> = self
            .user_claims
            .iter()
            .filter(|((f, s), c)| *f == file && c.owners.contains(&owner) && !want.contains_key(s))
            .map(|((_, s), _)| s.clone())
            .collect();
        for server in released {
            let key = (file, server.clone());
            let Some(claim) = self.user_claims.get_mut(&key) else {
                continue;
            };
            if claim.owners.len() > 1 {
                claim.owners.remove(&owner);
                continue;
            }
            // The last owner: the entry goes, unless it was edited by hand since.
            match entries.get(&server).copied() {
                Some(v) if v != Val::Clean(claim.def) && !force => continue,
                _ => {
                    entries.remove(&server);
                    self.user_claims.remove(&key);
                }
            }
        }
        Ok(())
    }

    /// Records generation `id` of A, made by the step from `before` to `self`.
    pub fn record_generation(&mut self, id: u64, before: &World) {
        let mut writes = BTreeMap::new();
        for file in all_files().filter(|f| f.scope == Scope::Project) {
            let was = before.files.get(&file).cloned().unwrap_or_default();
            let now = self.files.get(&file).cloned().unwrap_or_default();
            if was != now {
                writes.insert(file, (was, now));
            }
        }
        self.generations.push(Generation {
            id,
            declared: self.a.clone(),
            lock: self.a_lock.clone(),
            writes,
        });
    }

    /// Whether `dotpack status` in A should find the project exactly as declared.
    pub fn a_status_ok(&self) -> bool {
        let Some(decl) = &self.a else {
            return false;
        };
        if self.conflict.is_some() {
            return false;
        }
        let Some(lock) = &self.a_lock else {
            // Nothing declared, and no user-scope entry kept for A (edited by hand, say).
            return decl.deps.is_empty()
                && !self
                    .user_claims
                    .values()
                    .any(|c| c.owners.contains(&Owner::A));
        };
        if lock.packages != closure(decl.deps.keys()) {
            return false;
        }
        // Servers declared and no host to install them into: installed nowhere.
        if decl.hosts.is_empty() && !lock.packages.is_empty() {
            return false;
        }
        let desired = decl.desired(&lock.packages);
        let empty = BTreeMap::new();
        for file in all_files() {
            let want = desired.get(&file).unwrap_or(&empty);
            let have: BTreeMap<String, u16> = match file.scope {
                Scope::Project => lock
                    .claims
                    .iter()
                    .filter(|((f, _), _)| *f == file)
                    .map(|((_, s), d)| (s.clone(), *d))
                    .collect(),
                Scope::User => self
                    .user_claims
                    .iter()
                    .filter(|((f, _), c)| *f == file && c.owners.contains(&Owner::A))
                    .map(|((_, s), c)| (s.clone(), c.def))
                    .collect(),
            };
            if &have != want {
                return false;
            }
            if want
                .iter()
                .any(|(s, d)| self.entry(file, s) != Some(Val::Clean(*d)))
            {
                return false;
            }
        }
        true
    }

    /// Whether `dotpack install --locked` in a clone of A's committed files would leave every
    /// project-scope file and the lock as they are (not when an entry was deleted by hand, for
    /// example: the clone puts it back, or drops its claim).
    pub fn clone_installs_nothing(&self) -> bool {
        let (Some(decl), Some(lock)) = (&self.a, &self.a_lock) else {
            return false;
        };
        let mut world = World {
            files: self
                .files
                .iter()
                .filter(|(f, _)| f.scope == Scope::Project)
                .map(|(f, e)| (*f, e.clone()))
                .collect(),
            ..World::default()
        };
        let before = world.files.clone();
        let mut claims = lock.claims.clone();
        let claims_before = claims.clone();
        let desired: BTreeMap<FileId, BTreeMap<String, u16>> = decl
            .desired(&lock.packages)
            .into_iter()
            .filter(|(f, _)| f.scope == Scope::Project)
            .collect();
        if world
            .sync(Owner::A, &desired, &mut claims, Mode::Sync, false, false)
            .is_err()
        {
            return false;
        }
        world.files.retain(|_, e| !e.is_empty());
        let before: BTreeMap<FileId, Entries> =
            before.into_iter().filter(|(_, e)| !e.is_empty()).collect();
        world.files == before && claims == claims_before
    }

    /// A's desired entries, for the checks that a command did what it says.
    pub fn a_desired(&self) -> BTreeMap<FileId, BTreeMap<String, u16>> {
        match (&self.a, &self.a_lock) {
            (Some(decl), Some(lock)) => decl.desired(&lock.packages),
            _ => BTreeMap::new(),
        }
    }
}
