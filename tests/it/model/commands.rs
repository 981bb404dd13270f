//! What each command does to the model's world, written from `docs/state.md`: the prediction
//! of how it ends, and the world after it.

use std::collections::{BTreeMap, BTreeSet};

use super::reference::{
    Declared, Entries, HostDecl, Lock, Owner, PACKAGES, Scope, all_files, closure, package_of,
};
use super::world::{Expect, Mode, Prediction, Set, World};

impl World {
    /// A's command ends with `decl` and a lock of `packages`: plan the host files (refused:
    /// exit 1), then commit.
    pub fn finish_a(
        mut self,
        decl: Declared,
        packages: BTreeSet<String>,
        mode: Mode,
        force: bool,
    ) -> Prediction {
        let mut claims = self.effective_lock().map(|l| l.claims).unwrap_or_default();
        let desired = decl.desired(&packages);
        if self
            .sync(Owner::A, &desired, &mut claims, mode, force, false)
            .is_err()
        {
            return Prediction {
                expect: Expect::Fail(1),
                next: self,
            };
        }
        // A project that locks nothing (no dependency, no claim) gets no lock file.
        let nothing = self.a_lock.is_none()
            && self.conflict.is_none()
            && packages.is_empty()
            && claims.is_empty()
            && decl.deps.is_empty();
        self.a = Some(decl);
        if !nothing {
            self.a_lock = Some(Lock { packages, claims });
        }
        self.conflict = None;
        World::ok(self)
    }

    pub fn init(&self, detected: &[usize]) -> Prediction {
        if self.a.is_some() {
            return self.fail(1);
        }
        let mut next = self.clone();
        next.a = Some(Declared {
            hosts: detected
                .iter()
                .map(|&host| HostDecl {
                    host,
                    scope: None,
                    exclude: BTreeSet::new(),
                })
                .collect(),
            scope: Some(Scope::Project),
            ..Declared::default()
        });
        World::ok(next)
    }

    pub fn add(
        &self,
        packages: &[usize],
        host: Option<usize>,
        scope: Option<Scope>,
        set: Option<Set>,
    ) -> Prediction {
        if set.is_some() && packages.len() != 1 {
            return self.fail(2);
        }
        let Some(mut decl) = self.a.clone() else {
            return self.fail(1);
        };
        let project_scope = decl.project_scope();
        for &p in packages {
            let name = PACKAGES[p].name;
            let dep = decl.deps.entry(name.to_string()).or_default();
            if let Some(s) = scope {
                dep.scope = (s != project_scope).then_some(s);
            }
            match set {
                Some(Set::Port(port)) if name == "tuned" => dep.port = Some(port),
                Some(_) => return self.fail(2),
                None => {}
            }
        }
        if let Some(h) = host {
            decl.declare_host(h, None);
        }
        let packages = closure(decl.deps.keys());
        self.clone().finish_a(decl, packages, Mode::Sync, false)
    }

    pub fn remove(&self, package: usize, host: Option<usize>) -> Prediction {
        if host.is_some() {
            return self.fail(2);
        }
        let Some(mut decl) = self.a.clone() else {
            return self.fail(1);
        };
        let name = PACKAGES[package].name;
        if decl.deps.remove(name).is_none() {
            return self.fail(1);
        }
        // Exclusions of the package and of its servers go with it.
        let servers = super::reference::package(name)
            .map(|p| p.servers.to_vec())
            .unwrap_or_default();
        for excluded in std::iter::once(name).chain(servers) {
            decl.exclude.remove(excluded);
            for h in &mut decl.hosts {
                h.exclude.remove(excluded);
            }
        }
        let packages = closure(decl.deps.keys());
        self.clone().finish_a(decl, packages, Mode::Sync, false)
    }

    pub fn install(
        &self,
        name: Option<&str>,
        host: Option<usize>,
        scope: Option<Scope>,
        force: bool,
    ) -> Prediction {
        let Some(mut decl) = self.a.clone() else {
            return self.fail(1);
        };
        if let Some(name) = name {
            if !self.known(&decl, self.effective_lock().as_ref(), name) {
                return self.fail(1);
            }
            decl.exclude.remove(name);
            for h in &mut decl.hosts {
                if host.is_none_or(|given| given == h.host) {
                    h.exclude.remove(name);
                }
            }
        }
        match host {
            Some(h) => decl.declare_host(h, scope),
            None => {
                if scope.is_some() {
                    decl.scope = scope;
                }
            }
        }
        let packages = closure(decl.deps.keys());
        self.clone().finish_a(decl, packages, Mode::Sync, force)
    }

    pub fn uninstall(
        &self,
        name: Option<&str>,
        host: Option<usize>,
        scope: Option<Scope>,
        force: bool,
    ) -> Prediction {
        let Some(mut decl) = self.a.clone() else {
            return self.fail(1);
        };
        let Some(lock) = self.effective_lock() else {
            return self.fail(1);
        };
        if let Some(name) = name
            && !self.known(&decl, Some(&lock), name)
        {
            return self.fail(1);
        }
        let scopes = decl.package_scopes(&lock.packages);
        let at_scope = |decl: &Declared, h: &HostDecl| {
            scope.is_none_or(|s| {
                let of_name = name
                    .and_then(package_of)
                    .and_then(|p| scopes.get(p.name).copied());
                of_name.unwrap_or(decl.host_scope(h)) == s
            })
        };
        match name {
            None => {
                let leaving: Vec<usize> = decl
                    .hosts
                    .iter()
                    .filter(|h| host.is_none_or(|given| given == h.host) && at_scope(&decl, h))
                    .map(|h| h.host)
                    .collect();
                // A host some packages of which go to the other scope stays, without its
                // packages at this scope.
                match scope.filter(|s| scopes.values().any(|at| at != s)) {
                    Some(s) => {
                        for h in &mut decl.hosts {
                            if leaving.contains(&h.host) {
                                for p in &lock.packages {
                                    if scopes.get(p).is_none_or(|at| *at == s) {
                                        h.exclude.insert(p.clone());
                                    }
                                }
                            }
                        }
                    }
                    None => decl.hosts.retain(|h| !leaving.contains(&h.host)),
                }
                if let Some(s) = scope {
                    for (p, at) in &scopes {
                        if *at != s {
                            continue;
                        }
                        match host {
                            None => {
                                decl.exclude.insert(p.clone());
                            }
                            Some(given) => {
                                if let Some(h) = decl.host_mut(given) {
                                    h.exclude.insert(p.clone());
                                }
                            }
                        }
                    }
                }
            }
            Some(name) if host.is_none() && scope.is_none() => {
                decl.exclude.insert(name.to_string());
            }
            Some(name) => {
                let chosen: Vec<usize> = decl
                    .hosts
                    .iter()
                    .filter(|h| host.is_none_or(|given| given == h.host) && at_scope(&decl, h))
                    .map(|h| h.host)
                    .collect();
                for h in &mut decl.hosts {
                    if chosen.contains(&h.host) {
                        h.exclude.insert(name.to_string());
                    }
                }
            }
        }
        // A lock read from a git conflict is resolved again when written back.
        let packages = match self.conflict {
            Some(_) => closure(decl.deps.keys()),
            None => lock.packages.clone(),
        };
        self.clone()
            .finish_a(decl, packages, Mode::Uninstall, force)
    }

    pub fn update(&self) -> Prediction {
        let Some(decl) = self.a.clone() else {
            return self.fail(1);
        };
        let packages = closure(decl.deps.keys());
        self.clone().finish_a(decl, packages, Mode::Sync, false)
    }

    pub fn lock(&self) -> Prediction {
        let Some(decl) = &self.a else {
            return self.fail(1);
        };
        let mut next = self.clone();
        let lock = Lock {
            packages: closure(decl.deps.keys()),
            claims: self.effective_lock().map(|l| l.claims).unwrap_or_default(),
        };
        // A project that locks nothing gets no lock file.
        let nothing = self.a_lock.is_none()
            && self.conflict.is_none()
            && lock.packages.is_empty()
            && lock.claims.is_empty();
        if !nothing {
            next.a_lock = Some(lock);
        }
        next.conflict = None;
        World::ok(next)
    }

    /// `rollback [K]`: A's dotpack.toml and dotpack.lock as after generation K; in each
    /// project-scope host file, every entry dotpack changed after K gets its value at K back
    /// while everything else stays as it is now; user-scope files are planned from the restored
    /// manifest, as `install` would.
    pub fn rollback(&self, target: Option<u64>) -> Prediction {
        if self.a.is_none() {
            return self.fail(1);
        }
        let Some(newest) = self.generations.last() else {
            return self.fail(1);
        };
        let k = target.unwrap_or(newest.id.saturating_sub(1));
        if k > newest.id {
            return self.fail(1);
        }
        let (declared, lock) = match k {
            0 => (None, None),
            k => {
                let g = &self.generations[k as usize - 1];
                assert_eq!(g.id, k, "generations are numbered from 1 without gaps");
                (g.declared.clone(), g.lock.clone())
            }
        };
        let mut next = self.clone();
        for file in all_files().filter(|f| f.scope == Scope::Project) {
            let writes: Vec<(u64, &Entries, &Entries)> = self
                .generations
                .iter()
                .filter_map(|g| g.writes.get(&file).map(|(b, a)| (g.id, b, a)))
                .collect();
            let Some(latest) = writes.last().map(|w| w.2) else {
                continue;
            };
            // A file's state after k is what the next generation that wrote it found there (a
            // hand edit made after k is part of it), else what the last one up to k wrote.
            let at_k = writes
                .iter()
                .find(|w| w.0 > k)
                .map(|w| w.1)
                .or_else(|| writes.iter().rev().find(|w| w.0 <= k).map(|w| w.2))
                .expect("a file with writes has a state at k");
            let mut touched = BTreeSet::new();
            for (_, before, after) in writes.iter().filter(|w| w.0 > k) {
                for name in before.keys().chain(after.keys()) {
                    if before.get(name) != after.get(name) {
                        touched.insert(name.clone());
                    }
                }
            }
            let entries = next.files.entry(file).or_default();
            for name in touched {
                if latest.get(&name) == at_k.get(&name) {
                    continue;
                }
                match at_k.get(&name) {
                    Some(v) => entries.insert(name, *v),
                    None => entries.remove(&name),
                };
            }
        }
        let decl = declared.clone().unwrap_or_default();
        let packages = lock
            .as_ref()
            .map(|l| l.packages.clone())
            .unwrap_or_default();
        let mut claims = lock.as_ref().map(|l| l.claims.clone()).unwrap_or_default();
        if next
            .sync(
                Owner::A,
                &decl.desired(&packages),
                &mut claims,
                Mode::Sync,
                false,
                true,
            )
            .is_err()
        {
            return self.fail(1);
        }
        next.a = declared;
        next.a_lock = lock;
        next.conflict = None;
        World::ok(next)
    }

    pub fn b_add(&self, package: usize) -> Prediction {
        let mut next = self.clone();
        next.b.insert(PACKAGES[package].name.to_string());
        next.b_host = true;
        next.finish_b()
    }

    pub fn b_remove(&self, package: usize) -> Prediction {
        let mut next = self.clone();
        if !next.b.remove(PACKAGES[package].name) {
            return self.fail(1);
        }
        next.finish_b()
    }

    pub fn finish_b(mut self) -> Prediction {
        let decl = self.b_declared();
        let desired = decl.desired(&closure(decl.deps.keys()));
        let mut none = BTreeMap::new();
        if self
            .sync(Owner::B, &desired, &mut none, Mode::Sync, false, true)
            .is_err()
        {
            return Prediction {
                expect: Expect::Fail(1),
                next: self,
            };
        }
        World::ok(self)
    }
}
