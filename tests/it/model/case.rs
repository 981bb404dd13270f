//! One case: two projects in a temporary HOME, and each step run against them and the model.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Output;

use proptest::sample::Index;
use proptest::test_runner::TestCaseError;

use super::checks::{everything, state};
use super::observe::{self, Paths};
use super::ops::{Edit, Op};
use super::reference::{
    self, Entries, FileId, HOSTS, Lock, NAMES, PACKAGES, Scope, Val, all_files,
};
use super::setup::{SECRET, count, describe, dotpack, fast_tempdir};
use super::world::{Expect, Prediction, Set, World};

/// Where a case is and what the test knows about it.
pub struct Case {
    pub root: tempfile::TempDir,
    pub paths: Paths,
    pub world: World,
    /// Every lock A had, with its model, for conflicts.
    pub locks: Vec<(String, Lock)>,
    /// The state and expectation last checked with processes, to skip checking them again.
    pub checked: Option<(u64, bool, bool)>,
    pub clones: usize,
    pub log: Vec<String>,
}

impl Case {
    pub fn new() -> Case {
        let dir = fast_tempdir();
        let home = dir.path().join("home");
        let paths = Paths {
            a: home.join("a"),
            b: home.join("b"),
            home,
        };
        std::fs::create_dir_all(&paths.a).expect("project A");
        std::fs::create_dir_all(&paths.b).expect("project B");
        std::fs::write(
            paths.b.join("dotpack.toml"),
            "[project]\nhosts = []\n\n[dependencies]\n",
        )
        .expect("B's manifest");
        Case {
            root: dir,
            paths,
            world: World::default(),
            locks: Vec::new(),
            checked: None,
            clones: 0,
            log: Vec::new(),
        }
    }

    pub fn fail(&self, message: String) -> TestCaseError {
        TestCaseError::fail(format!(
            "{message}\n--- steps so far\n{}",
            self.log.join("\n")
        ))
    }

    /// Hosts `init` finds: their files or folders, here or in HOME.
    pub fn detected(&self) -> Vec<usize> {
        let a = &self.paths.a;
        let home = &self.paths.home;
        let markers: [&[PathBuf]; 3] = [
            &[
                home.join(".claude.json"),
                home.join(".claude"),
                a.join(".mcp.json"),
                a.join(".claude"),
                a.join("CLAUDE.md"),
            ],
            &[home.join(".codex"), a.join(".codex")],
            &[
                home.join(".cursor"),
                a.join(".cursor"),
                a.join(".cursorrules"),
            ],
        ];
        (0..HOSTS.len())
            .filter(|h| markers[*h].iter().any(|p| p.exists()))
            .collect()
    }

    /// `op` with its picks made among the names the projects know now.
    pub fn concrete(&self, op: &Op) -> Op {
        let w = &self.world;
        let a_known: BTreeSet<String> = match &w.a {
            None => BTreeSet::new(),
            Some(decl) => {
                let mut known: BTreeSet<String> = decl.deps.keys().cloned().collect();
                for p in w.effective_lock().into_iter().flat_map(|l| l.packages) {
                    if let Some(pkg) = reference::package(&p) {
                        known.extend(pkg.servers.iter().map(|s| s.to_string()));
                    }
                    known.insert(p);
                }
                known
            }
        };
        let a_deps: BTreeSet<String> = w.a.iter().flat_map(|d| d.deps.keys().cloned()).collect();
        match op.clone() {
            Op::Remove { package, host } => Op::Remove {
                package: package.choose(&a_deps, PACKAGES.len()),
                host,
            },
            Op::Install {
                name,
                host,
                scope,
                force,
            } => Op::Install {
                name: name.map(|n| n.choose(&a_known, NAMES.len())),
                host,
                scope,
                force,
            },
            Op::Uninstall {
                name,
                host,
                scope,
                force,
            } => Op::Uninstall {
                name: name.map(|n| n.choose(&a_known, NAMES.len())),
                host,
                scope,
                force,
            },
            Op::BRemove(p) => Op::BRemove(p.choose(&w.b, PACKAGES.len())),
            other => other,
        }
    }

    pub fn step(&mut self, op: &Op) -> Result<(), TestCaseError> {
        let (dry_run, op) = match op {
            Op::DryRun(op) => (true, op.as_ref()),
            op => (false, op),
        };
        let op = &self.concrete(op);
        let (cwd, mut args, prediction) = match op {
            Op::Edit(edit) => return self.hand_edit(edit),
            Op::Conflict(pick) => return self.plant_conflict(*pick),
            _ => self.command(op),
        };
        if dry_run {
            args.push("--dry-run".to_string());
        }
        // A dry run writes nothing at all; a failed command may leave dotpack's history.
        let files = |paths: &Paths| {
            if dry_run {
                everything(paths)
            } else {
                state(paths)
            }
        };
        let before = files(&self.paths);
        let out = dotpack(&self.paths.home, &cwd, &args);
        let code = out.status.code();
        let stderr = String::from_utf8_lossy(&out.stderr);
        self.tally(op, dry_run, &cwd, code, &stderr);
        self.log
            .push(format!("{op:?}: `dotpack {}` -> {code:?}", args.join(" ")));
        if code == Some(101) {
            return Err(self.fail(format!("dotpack panicked\n{}", describe(&args, &out))));
        }
        match (prediction.expect, code) {
            (Expect::Ok, Some(0)) if !dry_run => {
                let desired_before = self.world.a_desired();
                let previous = std::mem::replace(&mut self.world, prediction.next);
                if cwd == self.paths.a
                    && let Some(rest) = stderr.split("Finished generation ").nth(1)
                {
                    let id: u64 = rest
                        .split(|c: char| !c.is_ascii_digit())
                        .next()
                        .and_then(|n| n.parse().ok())
                        .expect("a generation number");
                    self.world.record_generation(id, &previous);
                }
                self.intent(op, &desired_before, &out, &args)?;
            }
            (expect, Some(got))
                if expect == Expect::Fail(got) || (dry_run && got == 0 && expect == Expect::Ok) =>
            {
                let after = files(&self.paths);
                if before != after {
                    return Err(self.fail(format!(
                        "a failed command or a dry run changed {:?}\n{}",
                        changed(&before, &after),
                        describe(&args, &out)
                    )));
                }
            }
            (want, _) => {
                return Err(self.fail(format!(
                    "the model expected {want:?}\n{}",
                    describe(&args, &out)
                )));
            }
        }
        self.check(&format!("after {op:?}"))
    }

    /// Counts how the step ended, and the situations worth reaching it reached.
    fn tally(&self, op: &Op, dry_run: bool, cwd: &Path, code: Option<i32>, stderr: &str) {
        let kind = format!("{op:?}");
        let kind = kind.split([' ', '(']).next().unwrap_or_default();
        let kind = if dry_run {
            format!("{kind} --dry-run")
        } else {
            kind.to_string()
        };
        count(format!("{kind} exit {}", code.unwrap_or(-1)));
        if code == Some(0) {
            if self.world.conflict.is_some() && cwd == self.paths.a {
                count(format!("{kind} read a conflicted lock"));
            }
            if stderr.contains("Merged") {
                count("rollback merged a file edited by hand");
            }
            if stderr.contains("shared with other projects") {
                count("user-scope entry shared with the other project");
            }
        } else if stderr.contains("declared differently") {
            count("refused: another owner declares it differently");
        }
        if std::env::var_os("DOTPACK_MODEL_ERRORS").is_some() && code != Some(0) {
            // The first line of the error, without the names (in backticks) and paths in it.
            let first = stderr
                .lines()
                .find(|l| l.starts_with("error"))
                .unwrap_or("?");
            let bare = first.split('`').step_by(2).collect::<Vec<_>>().join("_");
            let bare: Vec<&str> = bare
                .split(' ')
                .map(|w| if w.starts_with('/') { "PATH" } else { w })
                .collect();
            count(format!("{kind}: {}", bare.join(" ")));
        }
    }

    /// The folder, arguments and prediction of a command op.
    pub fn command(&self, op: &Op) -> (PathBuf, Vec<String>, Prediction) {
        let w = &self.world;
        let mut args: Vec<String> = Vec::new();
        let mut push = |a: &str| args.push(a.to_string());
        let flags =
            |args: &mut Vec<String>, host: &Option<usize>, scope: &Option<Scope>, force: bool| {
                if let Some(h) = host {
                    args.extend(["--host".to_string(), HOSTS[*h].to_string()]);
                }
                if let Some(s) = scope {
                    args.extend(["--scope".to_string(), s.as_str().to_string()]);
                }
                if force {
                    args.push("--force".to_string());
                }
            };
        let a = self.paths.a.clone();
        let (cwd, prediction) = match op {
            Op::Init => {
                push("init");
                (a, w.init(&self.detected()))
            }
            Op::Add {
                packages,
                host,
                scope,
                set,
            } => {
                push("add");
                for p in packages {
                    push(PACKAGES[*p].name);
                }
                match set {
                    Some(Set::Port(port)) => {
                        push("--set");
                        push(&format!("port={port}"));
                    }
                    Some(Set::Secret) => {
                        push("--set");
                        push(&format!("token={SECRET}"));
                    }
                    None => {}
                }
                flags(&mut args, host, scope, false);
                (a, w.add(packages, *host, *scope, *set))
            }
            Op::Remove { package, host } => {
                push("remove");
                push(PACKAGES[package.index()].name);
                flags(&mut args, host, &None, false);
                (a, w.remove(package.index(), *host))
            }
            Op::Install {
                name,
                host,
                scope,
                force,
            } => {
                let name = name.map(|n| NAMES[n.index()]);
                push("install");
                if let Some(n) = name {
                    push(n);
                }
                flags(&mut args, host, scope, *force);
                (a, w.install(name, *host, *scope, *force))
            }
            Op::Uninstall {
                name,
                host,
                scope,
                force,
            } => {
                let name = name.map(|n| NAMES[n.index()]);
                push("uninstall");
                if let Some(n) = name {
                    push(n);
                }
                flags(&mut args, host, scope, *force);
                (a, w.uninstall(name, *host, *scope, *force))
            }
            Op::Update => {
                push("update");
                (a, w.update())
            }
            Op::Lock => {
                push("lock");
                (a, w.lock())
            }
            Op::Rollback(target) => {
                push("rollback");
                if let Some(t) = target {
                    push(&t.to_string());
                }
                (a, w.rollback(*target))
            }
            Op::BAdd(p) => {
                for s in [
                    "add",
                    PACKAGES[*p].name,
                    "--scope",
                    "user",
                    "--host",
                    "claude-code",
                ] {
                    push(s);
                }
                (self.paths.b.clone(), w.b_add(*p))
            }
            Op::BRemove(p) => {
                push("remove");
                push(PACKAGES[p.index()].name);
                (self.paths.b.clone(), w.b_remove(p.index()))
            }
            Op::Edit(_) | Op::Conflict(_) | Op::DryRun(_) => unreachable!("not a command"),
        };
        (cwd, args, prediction)
    }

    pub fn hand_edit(&mut self, edit: &Edit) -> Result<(), TestCaseError> {
        let ours: Vec<(FileId, String, Val)> = all_files()
            .flat_map(|f| {
                self.world
                    .files
                    .get(&f)
                    .into_iter()
                    .flatten()
                    .filter(|(_, v)| **v != Val::Mine)
                    .map(move |(s, v)| (f, s.clone(), *v))
            })
            .collect();
        match edit {
            Edit::Change(pick) => {
                let clean: Vec<&(FileId, String, Val)> = ours
                    .iter()
                    .filter(|(_, _, v)| matches!(v, Val::Clean(_)))
                    .collect();
                if clean.is_empty() {
                    return Ok(());
                }
                let (file, server, val) = clean[pick.index(clean.len())].clone();
                let Val::Clean(port) = val else {
                    unreachable!()
                };
                observe::change_entry(&self.paths, file, &server);
                self.world
                    .files
                    .entry(file)
                    .or_default()
                    .insert(server.clone(), Val::Edited(port));
                self.log.push(format!(
                    "hand edit: changed {server} in {}",
                    Paths::relative(file)
                ));
            }
            Edit::Delete(pick) => {
                if ours.is_empty() {
                    return Ok(());
                }
                let (file, server, _) = ours[pick.index(ours.len())].clone();
                observe::delete_entry(&self.paths, file, &server);
                self.world.files.entry(file).or_default().remove(&server);
                self.log.push(format!(
                    "hand edit: deleted {server} from {}",
                    Paths::relative(file)
                ));
            }
            Edit::Mine(i) => {
                let file = match i {
                    3 => FileId {
                        host: 0,
                        scope: Scope::User,
                    },
                    h => FileId {
                        host: *h,
                        scope: Scope::Project,
                    },
                };
                let entries: &mut Entries = self.world.files.entry(file).or_default();
                if entries.contains_key("mine") {
                    return Ok(());
                }
                entries.insert("mine".to_string(), Val::Mine);
                observe::add_mine(&self.paths, file);
                self.log.push(format!(
                    "hand edit: added mine to {:?}",
                    self.paths.path(file)
                ));
            }
        }
        self.check("after a hand edit")
    }

    pub fn plant_conflict(&mut self, pick: Index) -> Result<(), TestCaseError> {
        let path = self.paths.a.join("dotpack.lock");
        let (Some(ours), Some(_)) = (std::fs::read_to_string(&path).ok(), &self.world.a) else {
            return Ok(());
        };
        if self.world.conflict.is_some() {
            return Ok(());
        }
        let others: Vec<&(String, Lock)> = self.locks.iter().filter(|(t, _)| *t != ours).collect();
        if others.is_empty() {
            return Ok(());
        }
        let (theirs, lock) = others[pick.index(others.len())].clone();
        std::fs::write(&path, observe::conflict_text(&ours, &theirs))
            .expect("write conflicted lock");
        self.world.conflict = Some(lock);
        self.log
            .push("dotpack.lock replaced by a git conflict with an earlier version".into());
        // A merge is not a dotpack command: the user approves what it brought, as after a pull.
        let args = vec!["trust".to_string()];
        let out = dotpack(&self.paths.home, &self.paths.a, &args);
        if out.status.code() != Some(0) {
            return Err(TestCaseError::fail(format!(
                "`dotpack trust` after a merge failed\n{}",
                describe(&args, &out)
            )));
        }
        self.check("after planting a lock conflict")
    }

    /// What the command said it would do, done: checks on the model that do not follow from
    /// replaying the command's own rules. `uninstall` takes out exactly the entries it names
    /// (by package or server, host and scope) and leaves every other one.
    pub fn intent(
        &self,
        op: &Op,
        before: &BTreeMap<FileId, BTreeMap<String, u16>>,
        out: &Output,
        args: &[String],
    ) -> Result<(), TestCaseError> {
        let Op::Uninstall {
            name, host, scope, ..
        } = op
        else {
            return Ok(());
        };
        // A package named goes with the packages only it pulls in (a bundle's).
        let only_through = |n: &str| -> BTreeSet<String> {
            let Some(decl) = &self.world.a else {
                return BTreeSet::new();
            };
            let others: Vec<&String> = decl.deps.keys().filter(|d| d.as_str() != n).collect();
            let mut kept = BTreeSet::new();
            let mut stack: Vec<String> = others.into_iter().cloned().collect();
            while let Some(p) = stack.pop() {
                if p == n || !kept.insert(p.clone()) {
                    continue;
                }
                if let Some(pkg) = reference::package(&p) {
                    stack.extend(pkg.deps.iter().map(|d| d.to_string()));
                }
            }
            reference::closure([&n.to_string()])
                .into_iter()
                .filter(|p| !kept.contains(p))
                .collect()
        };
        let selected = |file: FileId, server: &str| {
            let named = match name {
                None => true,
                Some(n) => {
                    let n = NAMES[n.index()];
                    server == n
                        || only_through(n).iter().any(|p| {
                            reference::package(p).is_some_and(|p| p.servers.contains(&server))
                        })
                }
            };
            named && host.is_none_or(|h| h == file.host) && scope.is_none_or(|s| s == file.scope)
        };
        let flat = |d: &BTreeMap<FileId, BTreeMap<String, u16>>| -> BTreeSet<(FileId, String)> {
            d.iter()
                .flat_map(|(f, servers)| servers.keys().map(move |s| (*f, s.clone())))
                .collect()
        };
        let (was, now) = (flat(before), flat(&self.world.a_desired()));
        let wrong: Vec<String> = was
            .union(&now)
            .filter(|(f, s)| {
                now.contains(&(*f, s.clone()))
                    != (was.contains(&(*f, s.clone())) && !selected(*f, s))
            })
            .map(|(f, s)| {
                let what = if now.contains(&(*f, s.clone())) {
                    "kept"
                } else {
                    "took out"
                };
                format!("{what} {s} in {}", self.paths.path(*f).display())
            })
            .collect();
        if wrong.is_empty() {
            return Ok(());
        }
        Err(self.fail(format!(
            "uninstall succeeded but {wrong:?}\n{}",
            describe(args, out)
        )))
    }
}

/// The files that differ between two snapshots.
fn changed(before: &[(PathBuf, Vec<u8>)], after: &[(PathBuf, Vec<u8>)]) -> Vec<String> {
    let mut out: Vec<String> = after
        .iter()
        .filter(|f| !before.contains(f))
        .chain(before.iter().filter(|f| !after.contains(f)))
        .map(|(p, _)| p.display().to_string())
        .collect();
    out.sort();
    out.dedup();
    out
}
