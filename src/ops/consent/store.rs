//! `$DOTPACK_HOME/approvals.json`: what the user approved, per project folder.
//!
//! The file lives in the user's own state folder, never in a project, so a repository cannot
//! ship an approval. Each entry is one [`Request`] exactly as it was approved (kind, key,
//! digest); a request whose digest changed is not approved any more. Reading and rewriting
//! happen under `approvals.lock`, so two dotpacks recording at once lose nothing.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

use super::{Kind, Request};
use crate::util::error::{Error, WithError};

pub const APPROVALS_FILE: &str = "approvals.json";
const APPROVALS_LOCK: &str = "approvals.lock";
const VERSION: u32 = 1;

/// Every project's approvals.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Approvals {
    pub version: u32,
    /// By project folder (absolute, symlinks resolved).
    #[serde(default)]
    pub projects: BTreeMap<String, Approved>,
}

/// How many of a project's own states are remembered: enough for `rollback` and switching
/// between recent branches to stay the user's own.
const STATES_KEPT: usize = 32;

/// One project's approved requests.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Approved {
    #[serde(default)]
    pub requests: Vec<Request>,
    /// Digests of `dotpack.toml` and `dotpack.lock` as the user's own commands (or an
    /// approval) left them, newest last: a project in one of these states is the user's own.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub states: Vec<String>,
    /// When they were last recorded (RFC 3339).
    #[serde(default)]
    pub updated: String,
}

impl Approvals {
    pub fn path(home: &Path) -> PathBuf {
        home.join(APPROVALS_FILE)
    }

    /// The approvals recorded in `home`; none when the file does not exist.
    pub fn load(home: &Path) -> Result<Approvals> {
        let path = Approvals::path(home);
        match std::fs::read_to_string(&path) {
            Ok(text) => serde_json::from_str(&text).with_error(|| {
                Error::new(format!(
                    "{} is not a file of approvals dotpack can read",
                    path.display()
                ))
                .help("delete it; every project then asks again for what it needs beyond itself")
                .file(&path)
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Approvals {
                version: VERSION,
                projects: BTreeMap::new(),
            }),
            Err(e) => Err(e).with_context(|| format!("cannot read {}", path.display())),
        }
    }

    /// What `project` has approved (nothing when it has no entry).
    pub fn of(&self, project: &str) -> &[Request] {
        self.projects
            .get(project)
            .map_or(&[], |a| a.requests.as_slice())
    }

    /// Whether `project` approved `request` as it is now.
    pub fn covers(&self, project: &str, request: &Request) -> bool {
        self.of(project).iter().any(|a| a.same(request))
    }

    /// Whether `project`'s manifest and lock are in a state the user's own commands left them
    /// in (see [`state_digest`]).
    pub fn owns_state(&self, project: &str, state: &str) -> bool {
        self.projects
            .get(project)
            .is_some_and(|a| a.states.iter().any(|s| s == state))
    }

    /// Whether `project` approved a request with `request`'s kind and key, whatever its digest
    /// (an entry `dotpack update` may move to a new version).
    pub fn knows(&self, project: &str, request: &Request) -> bool {
        self.of(project)
            .iter()
            .any(|a| a.kind == request.kind && a.key == request.key)
    }
}

/// Replaces what `project` approved of `kinds` with `requests`, under the lock, and writes the
/// file when that changes it. Other projects' approvals, and this one's of other kinds, stay.
pub fn record(home: &Path, project: &str, kinds: &[Kind], requests: &[Request]) -> Result<()> {
    update(home, |all| {
        let entry = all.projects.entry(project.to_string()).or_default();
        entry.requests.retain(|r| !kinds.contains(&r.kind));
        entry
            .requests
            .extend(requests.iter().filter(|r| kinds.contains(&r.kind)).cloned());
        entry.requests.sort();
        entry.requests.dedup();
        if entry.requests.is_empty() && entry.states.is_empty() {
            all.projects.remove(project);
        }
    })
}

/// The digest of a project's state: its `dotpack.toml` and `dotpack.lock` texts.
pub fn state_digest(manifest: &str, lock: Option<&str>) -> String {
    super::digest(&[manifest, lock.unwrap_or("\u{0}no lock")])
}

/// Remembers `state` as one the user's own command left `project` in.
pub fn remember_state(home: &Path, project: &str, state: &str) -> Result<()> {
    update(home, |all| push_state(all, project, state))
}

/// [`remember_state`] inside an [`update`].
pub fn push_state(all: &mut Approvals, project: &str, state: &str) {
    let entry = all.projects.entry(project.to_string()).or_default();
    entry.states.retain(|s| s != state);
    entry.states.push(state.to_string());
    let excess = entry.states.len().saturating_sub(STATES_KEPT);
    entry.states.drain(..excess);
}

/// Forgets everything `project` approved; returns how many requests that was.
pub fn revoke(home: &Path, project: &str) -> Result<usize> {
    let mut count = 0;
    update(home, |all| {
        count = all.projects.remove(project).map_or(0, |a| a.requests.len());
    })?;
    Ok(count)
}

/// Loads, changes and saves the approvals under `approvals.lock`; nothing is written when
/// `change` leaves them as they were.
pub fn update(home: &Path, change: impl FnOnce(&mut Approvals)) -> Result<()> {
    std::fs::create_dir_all(home).with_context(|| format!("cannot create {}", home.display()))?;
    let _lock = crate::util::fsutil::ExclusiveLock::take(&home.join(APPROVALS_LOCK))?;
    let mut all = Approvals::load(home)?;
    let before = all.projects.clone();
    change(&mut all);
    if all.projects == before {
        return Ok(());
    }
    let now = crate::txn::generation::rfc3339(std::time::SystemTime::now());
    for (name, approved) in &mut all.projects {
        if before.get(name) != Some(approved) {
            approved.updated = now.clone();
        }
    }
    all.version = VERSION;
    let text = serde_json::to_string_pretty(&all)?;
    // Atomic but not flushed: a power loss at worst forgets an approval, which asks again.
    crate::util::fsutil::write_atomic_with(
        &Approvals::path(home),
        format!("{text}\n").as_bytes(),
        crate::util::fsutil::WriteOptions {
            sync_file: false,
            sync_dir: false,
            ..crate::util::fsutil::WriteOptions::PRIVATE
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(key: &str, digest: &str) -> Request {
        Request {
            kind: Kind::UserScope,
            key: key.to_string(),
            digest: digest.to_string(),
            detail: format!("{key} detail"),
        }
    }

    #[test]
    fn a_recorded_request_is_approved_until_its_digest_changes() {
        let home = tempfile::tempdir().unwrap();
        let a = request("~/.codex/config.toml helper", "sha256:1");
        record(
            home.path(),
            "/p",
            &[Kind::UserScope],
            std::slice::from_ref(&a),
        )
        .unwrap();
        let all = Approvals::load(home.path()).unwrap();
        assert!(all.covers("/p", &a));
        assert!(!all.covers("/other", &a));
        let changed = request("~/.codex/config.toml helper", "sha256:2");
        assert!(!all.covers("/p", &changed));
        assert!(all.knows("/p", &changed));
    }

    #[test]
    fn recording_one_kind_keeps_the_others_and_other_projects() {
        let home = tempfile::tempdir().unwrap();
        let token = Request {
            kind: Kind::Token,
            ..request("https://corp.example/ CORP_TOKEN", "sha256:t")
        };
        record(
            home.path(),
            "/p",
            &[Kind::Token],
            std::slice::from_ref(&token),
        )
        .unwrap();
        record(home.path(), "/q", &[Kind::UserScope], &[request("x", "1")]).unwrap();
        record(home.path(), "/p", &[Kind::UserScope], &[request("y", "2")]).unwrap();
        record(home.path(), "/p", &[Kind::UserScope], &[]).unwrap();
        let all = Approvals::load(home.path()).unwrap();
        assert!(all.covers("/p", &token));
        assert!(all.covers("/q", &request("x", "1")));
        assert!(!all.covers("/p", &request("y", "2")));
        assert_eq!(revoke(home.path(), "/p").unwrap(), 1);
        assert!(Approvals::load(home.path()).unwrap().of("/p").is_empty());
    }

    #[test]
    fn a_corrupt_file_is_an_error_that_says_what_to_do() {
        let home = tempfile::tempdir().unwrap();
        std::fs::write(home.path().join(APPROVALS_FILE), "{not json").unwrap();
        let err = format!("{:#}", Approvals::load(home.path()).unwrap_err());
        assert!(
            err.contains("approvals.json") && err.contains("delete it"),
            "{err}"
        );
    }
}
