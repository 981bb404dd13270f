//! After every step: the files read back are what the model says, and the invariants hold.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::hash::{Hash, Hasher};
use std::path::PathBuf;
use std::sync::{Mutex, OnceLock};

use proptest::test_runner::TestCaseError;

use super::case::Case;
use super::observe::{self, LockSeen, Paths};
use super::reference::{self, FileId, Lock, Owner, Scope, all_files};
use super::setup::{SECRET, describe, dotpack};

/// Results of the checks that depend only on A's committed files, shared by every case:
/// key -> exit code of `lock --locked`, and the keys whose clone installed nothing.
pub static LOCK_LOCKED: OnceLock<Mutex<HashMap<u64, Option<i32>>>> = OnceLock::new();
pub static CLONE_OK: OnceLock<Mutex<BTreeSet<u64>>> = OnceLock::new();

/// The files of A a repository would hold.
pub fn committed(paths: &Paths) -> Vec<(&'static str, Option<Vec<u8>>)> {
    let mut out = vec![
        (
            "dotpack.toml",
            std::fs::read(paths.a.join("dotpack.toml")).ok(),
        ),
        (
            "dotpack.lock",
            std::fs::read(paths.a.join("dotpack.lock")).ok(),
        ),
    ];
    for file in all_files().filter(|f| f.scope == Scope::Project) {
        out.push((Paths::relative(file), std::fs::read(paths.path(file)).ok()));
    }
    out
}

pub fn key_of(files: &[(&'static str, Option<Vec<u8>>)]) -> u64 {
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    files.hash(&mut hasher);
    hasher.finish()
}

/// Every file of the case but the lock files of running dotpacks.
pub fn everything(paths: &Paths) -> Vec<(PathBuf, Vec<u8>)> {
    crate::support::snapshot(&paths.home)
        .into_iter()
        .filter(|(p, _)| !p.to_string_lossy().ends_with("/.dotpack/lock"))
        .collect()
}

/// Every file of the case dotpack or a person may change, except dotpack's history and locks
/// (which a failed command may touch).
pub fn state(paths: &Paths) -> Vec<(PathBuf, Vec<u8>)> {
    crate::support::snapshot(&paths.home)
        .into_iter()
        .filter(|(p, _)| {
            let s = p.to_string_lossy();
            !(s.contains("/.dotpack/generations/")
                || s.contains("/.dotpack/objects/")
                || s.contains("/.dotpack/journal")
                || s.ends_with("/.dotpack/lock"))
        })
        .collect()
}

impl Case {
    /// Compares the files with the model, then checks the invariants.
    pub fn check(&mut self, when: &str) -> Result<(), TestCaseError> {
        self.compare(when)?;
        // Remember every clean lock A had, as the other side of a later conflict.
        if let (Some(text), Some(model), None) = (
            std::fs::read_to_string(self.paths.a.join("dotpack.lock")).ok(),
            &self.world.a_lock,
            &self.world.conflict,
        ) && !self.locks.iter().any(|(t, _)| *t == text)
        {
            self.locks.push((text, model.clone()));
        }
        self.invariants(when)
    }

    /// The files, read back, are what the model says.
    pub fn compare(&self, when: &str) -> Result<(), TestCaseError> {
        let paths = &self.paths;
        let w = &self.world;
        let mismatch = |what: &str, seen: String, model: String| {
            self.fail(format!(
                "{when}: {what} differs from the model\n  files: {seen}\n  model: {model}"
            ))
        };
        // Declared state.
        let a = observe::declared(&paths.a.join("dotpack.toml")).map_err(|e| self.fail(e))?;
        let normal = |d: &Option<reference::Declared>| {
            d.clone().map(|mut d| {
                d.hosts.sort_by_key(|h| h.host);
                d
            })
        };
        if normal(&a) != normal(&w.a) {
            return Err(mismatch(
                "A's dotpack.toml",
                format!("{a:?}"),
                format!("{:?}", w.a),
            ));
        }
        let b = observe::b_deps(paths).map_err(|e| self.fail(e))?;
        if b != w.b {
            return Err(mismatch(
                "B's dependencies",
                format!("{b:?}"),
                format!("{:?}", w.b),
            ));
        }
        // The lock.
        let lock = observe::lock(&paths.a.join("dotpack.lock")).map_err(|e| self.fail(e))?;
        let model_lock = match (&w.a_lock, &w.conflict) {
            (None, _) => LockSeen::Absent,
            (Some(_), Some(_)) => LockSeen::Conflicted,
            (Some(l), None) => LockSeen::Clean(Lock {
                packages: l.packages.clone(),
                claims: l.claims.keys().map(|k| (k.clone(), 0)).collect(),
            }),
        };
        if lock != model_lock {
            return Err(mismatch(
                "dotpack.lock",
                format!("{lock:?}"),
                format!("{model_lock:?}"),
            ));
        }
        // Host files, entry by entry, and `mine` byte for byte.
        for file in all_files() {
            let seen = observe::entries(paths, file).map_err(|e| self.fail(e))?;
            let model = w.files.get(&file).cloned().unwrap_or_default();
            if seen != model {
                return Err(mismatch(
                    &format!("{}", paths.path(file).display()),
                    format!("{seen:?}"),
                    format!("{model:?}"),
                ));
            }
            if model.contains_key("mine") && !observe::mine_intact(paths, file) {
                return Err(self.fail(format!(
                    "{when}: the hand-written entry `mine` in {} lost its bytes:\n{}",
                    paths.path(file).display(),
                    std::fs::read_to_string(paths.path(file)).unwrap_or_default()
                )));
            }
        }
        // User-scope claims and their owners.
        let claims = observe::user_claims(paths).map_err(|e| self.fail(e))?;
        let model_claims: BTreeMap<(FileId, String), BTreeSet<Owner>> = w
            .user_claims
            .iter()
            .map(|(k, c)| (k.clone(), c.owners.clone()))
            .collect();
        if claims != model_claims {
            return Err(mismatch(
                "claims.toml",
                format!("{claims:?}"),
                format!("{model_claims:?}"),
            ));
        }
        Ok(())
    }

    /// (a) to (e).
    pub fn invariants(&mut self, when: &str) -> Result<(), TestCaseError> {
        let paths = &self.paths;
        let w = &self.world;
        // (e) No secret anywhere.
        let leaked = observe::files_containing(self.root.path(), SECRET.as_bytes());
        if !leaked.is_empty() {
            return Err(self.fail(format!("{when}: the secret is in {leaked:?}")));
        }
        // (a), (b), (c), when the state or the expectation changed since the last check.
        let status_ok = w.a_status_ok();
        let clone = w.a.is_some()
            && w.a_lock.is_some()
            && w.conflict.is_none()
            && w.clone_installs_nothing();
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        state(paths).hash(&mut hasher);
        let key = (hasher.finish(), status_ok, clone);
        if self.checked == Some(key) {
            return Ok(());
        }
        self.checked = Some(key);
        self.check_status(when, status_ok)?;
        self.check_lock_locked(when)?;
        if clone {
            self.check_clone(when)?;
        }
        Ok(())
    }

    /// (c) `dotpack status` in A exits 0 exactly when the model says A is as declared.
    pub fn check_status(&self, when: &str, ok: bool) -> Result<(), TestCaseError> {
        let args = vec!["status".to_string()];
        let out = dotpack(&self.paths.home, &self.paths.a, &args);
        let want = if ok { 0 } else { 1 };
        if out.status.code() != Some(want) {
            return Err(self.fail(format!(
                "{when}: status should exit {want}\n{}",
                describe(&args, &out)
            )));
        }
        Ok(())
    }

    /// (b) `dotpack lock --locked` passes after every successful command, and fails while the
    /// lock has conflict markers or is missing for declared dependencies (a project that
    /// declares nothing needs no lock).
    pub fn check_lock_locked(&self, when: &str) -> Result<(), TestCaseError> {
        let w = &self.world;
        let Some(decl) = &w.a else {
            return Ok(());
        };
        let missing = w.a_lock.is_none() && !decl.deps.is_empty();
        let want = if w.conflict.is_some() || missing {
            1
        } else {
            0
        };
        let key = key_of(&committed(&self.paths));
        let cache = LOCK_LOCKED.get_or_init(Default::default);
        let known = cache.lock().expect("cache").get(&key).copied();
        let (code, output) = match known {
            Some(code) => (code, String::new()),
            None => {
                let args = vec!["lock".to_string(), "--locked".to_string()];
                let out = dotpack(&self.paths.home, &self.paths.a, &args);
                cache.lock().expect("cache").insert(key, out.status.code());
                (out.status.code(), describe(&args, &out))
            }
        };
        if code != Some(want) {
            return Err(self.fail(format!(
                "{when}: `lock --locked` should exit {want}, got {code:?}\n{output}"
            )));
        }
        Ok(())
    }

    /// (a) A fresh clone of A's committed files, with its own empty HOME, installs with
    /// `--locked` and changes none of them.
    pub fn check_clone(&mut self, when: &str) -> Result<(), TestCaseError> {
        let files = committed(&self.paths);
        let key = key_of(&files);
        let cache = CLONE_OK.get_or_init(Default::default);
        if cache.lock().expect("cache").contains(&key) {
            return Ok(());
        }
        self.clones += 1;
        let root = self.root.path().join(format!("clone{}", self.clones));
        let (home, project) = (root.join("home"), root.join("project"));
        std::fs::create_dir_all(&home).expect("clone home");
        for (rel, bytes) in &files {
            if let Some(bytes) = bytes {
                let path = project.join(rel);
                std::fs::create_dir_all(path.parent().expect("parent")).expect("clone folder");
                std::fs::write(&path, bytes).expect("clone file");
            }
        }
        let args = vec!["install".to_string(), "--locked".to_string()];
        let mut out = dotpack(&home, &project, &args);
        // A clone writes the user's own host files only once the user approves: without it,
        // nothing outside the project changes.
        if out.status.code() == Some(1)
            && String::from_utf8_lossy(&out.stderr).contains("needs your approval")
        {
            let outside = observe::files_under(&home)
                .into_iter()
                .filter(|p| !p.starts_with(home.join(".dotpack")))
                .collect::<Vec<_>>();
            if !outside.is_empty() {
                return Err(self.fail(format!(
                    "{when}: a refused `install --locked` in the clone wrote {outside:?}"
                )));
            }
            let trust = dotpack(&home, &project, &["trust".to_string()]);
            if trust.status.code() != Some(0) {
                return Err(self.fail(format!(
                    "{when}: `dotpack trust` in the clone failed\n{}",
                    describe(&["trust".to_string()], &trust)
                )));
            }
            out = dotpack(&home, &project, &args);
        }
        if out.status.code() != Some(0) {
            return Err(self.fail(format!(
                "{when}: the clone does not install\n{}",
                describe(&args, &out)
            )));
        }
        for (rel, bytes) in &files {
            let now = std::fs::read(project.join(rel)).ok();
            if &now != bytes {
                return Err(self.fail(format!(
                    "{when}: `install --locked` in the clone changed {rel}:\n--- before\n{}\n--- after\n{}\n{}",
                    String::from_utf8_lossy(bytes.as_deref().unwrap_or_default()),
                    String::from_utf8_lossy(now.as_deref().unwrap_or_default()),
                    describe(&args, &out)
                )));
            }
        }
        let leaked = observe::files_containing(&root, SECRET.as_bytes());
        if !leaked.is_empty() {
            return Err(self.fail(format!("{when}: the secret is in {leaked:?}")));
        }
        let _ = std::fs::remove_dir_all(&root);
        cache.lock().expect("cache").insert(key);
        Ok(())
    }
}
