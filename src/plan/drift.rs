//! What is installed where, and how it drifted: the read side of claims, for `list` and
//! `status`. Compares each target file's entries with the claims, the lock and the manifest.

use std::collections::{BTreeMap, BTreeSet};

use anyhow::Result;
use semver::Version;
use serde::Serialize;

use crate::formats;
use crate::model::claims::{Claim, entry_hash};
use crate::plan::desired::Placed;

/// The state of one server name in one file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum State {
    /// Claimed, and the entry is as dotpack wrote it for the locked version and inputs.
    Installed,
    /// Claimed and untouched, but written for another version or other inputs than the lock
    /// and dotpack.toml now say.
    Outdated,
    /// Claimed, but edited by hand since.
    Edited,
    /// Claimed, but the entry is gone.
    Missing,
    /// An entry dotpack does not own, with a name a declared server uses.
    Unclaimed,
    /// A declared server with no entry here.
    NotInstalled,
    /// Claimed by this project, but no longer declared for this file.
    Undeclared,
    /// No longer declared, and edited by hand since dotpack wrote it (kept unless `--force`).
    UndeclaredEdited,
    /// Written with `--resolve-env`, and the values in it are not the variables' current ones
    /// (unset or changed), so dotpack cannot tell it from a hand edit.
    Unresolved,
}

impl State {
    /// What the state is and the command that settles it, for the entry (or file) `name`.
    pub fn describe(self, name: &str) -> String {
        match self {
            // Resources are named `skills.NAME`; server names hold no dot, and only entries can
            // be adopted.
            State::Edited if name.contains('.') => {
                "edited by hand (`dotpack install --force` puts back what dotpack wrote)"
                    .to_string()
            }
            State::Edited => format!(
                "edited by hand (`dotpack install --force` puts back what dotpack wrote; `dotpack adopt {name}` keeps your edit)"
            ),
            other => other.text().to_string(),
        }
    }

    fn text(self) -> &'static str {
        match self {
            State::Installed => "installed",
            State::Outdated => "outdated (`dotpack install` updates it)",
            State::Edited => "edited by hand",
            State::Missing => "missing (removed by hand; `dotpack install`)",
            State::Unclaimed => "in the way: not dotpack's (`dotpack adopt` or `--force`)",
            State::NotInstalled => "not installed (`dotpack install`)",
            State::Undeclared => "no longer declared (`dotpack install` removes it)",
            State::UndeclaredEdited => {
                "no longer declared, edited by hand (`dotpack install --force` removes it; `dotpack install --keep-edited` leaves it to you)"
            }
            State::Unresolved => {
                "not checked: holds values `--resolve-env` wrote that this shell's environment does not (export the variables it was written with to check it, or to change it)"
            }
        }
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct Row {
    pub host: String,
    pub file: String,
    pub server: String,
    pub package: Option<String>,
    pub version: Option<Version>,
    pub state: State,
}

/// One row per (file, server) this project declares or claims. `inputs` gives each (package,
/// server)'s current inputs fingerprint, to tell an entry written with other inputs.
pub fn inspect(
    placed: &Placed,
    claims: &[Claim],
    owner: &str,
    inputs: &dyn Fn(&str, &str) -> String,
    files: &BTreeMap<std::path::PathBuf, Option<crate::util::text::Text>>,
) -> Result<Vec<Row>> {
    let mut rows = Vec::new();
    for (t, target) in placed.targets.iter().enumerate() {
        let text = files
            .get(&target.path)
            .and_then(Option::as_deref)
            .unwrap_or_default();
        let entries: BTreeMap<String, serde_json::Value> =
            formats::list_entries(target.host.format, text, target.host.container)
                .map_err(|e| {
                    anyhow::Error::from(
                        crate::plan::Problem::unreadable(&target.claim_file, text, e).error(),
                    )
                })?
                .into_iter()
                .collect();
        let file_claims: BTreeMap<&str, &Claim> = claims
            .iter()
            .filter(|c| c.file == target.claim_file)
            .map(|c| (c.server.as_str(), c))
            .collect();
        let row = |server: &str, package: &str, version: &Version, state| Row {
            host: target.host.id.to_string(),
            file: target.claim_file.clone(),
            server: server.to_string(),
            package: Some(package.to_string()),
            version: Some(version.clone()),
            state,
        };
        let mut declared = BTreeSet::new();
        for (_, s) in placed
            .assignments
            .iter()
            .chain(&placed.overrides)
            .filter(|(at, _)| *at == t)
        {
            let slot = &placed.slots[*s];
            declared.insert(slot.server.as_str());
            let entry = entries.get(&slot.server);
            let state = match file_claims.get(slot.server.as_str()) {
                Some(claim) if claim.is_owned_by(owner) => match entry {
                    None => State::Missing,
                    Some(e) if entry_hash(e) != claim.entry && !claim.resolved_env.is_empty() => {
                        State::Unresolved
                    }
                    Some(e) if entry_hash(e) != claim.entry => State::Edited,
                    Some(_)
                        if claim.version != slot.version
                            || claim.package != slot.package
                            || claim.inputs != inputs(&slot.package, &slot.server) =>
                    {
                        State::Outdated
                    }
                    Some(_) => State::Installed,
                },
                // Another owner's user-scope entry: not this project's yet.
                Some(_) => State::NotInstalled,
                None if entry.is_some() => State::Unclaimed,
                None => State::NotInstalled,
            };
            rows.push(row(&slot.server, &slot.package, &slot.version, state));
        }
        for (server, claim) in &file_claims {
            if declared.contains(server) || !claim.is_owned_by(owner) {
                continue;
            }
            let state = match entries.get(*server) {
                Some(e) if entry_hash(e) != claim.entry => State::UndeclaredEdited,
                Some(_) => State::Undeclared,
                None => State::Missing,
            };
            rows.push(row(server, &claim.package, &claim.version, state));
        }
    }
    rows.sort_by(|a, b| (&a.host, &a.file, &a.server).cmp(&(&b.host, &b.file, &b.server)));
    Ok(rows)
}

/// One row per resource file (or memory block) the project's lock claims, in host order: as
/// written, edited by hand, missing, or written for another version than the lock pins.
pub fn inspect_files(
    root: &std::path::Path,
    claims: &[crate::model::resources::FileClaim],
    lock: &crate::model::lock::Lockfile,
    hosts: &[String],
) -> Vec<Row> {
    let mut rows = Vec::new();
    for claim in claims {
        let Some(host) = claim.hosts.first() else {
            continue;
        };
        if !hosts.is_empty() && !claim.hosts.iter().any(|h| hosts.contains(h)) {
            continue;
        }
        // Paths come from a lock a repository may carry: only ones inside the project are read.
        let fence = crate::util::fence::Fence::project(root);
        let text = crate::model::resources::check_path(&claim.file)
            .ok()
            .and_then(|()| {
                crate::util::fence::read_text(
                    &root.join(&claim.file),
                    Some(&fence),
                    crate::util::fence::PROJECT_FILE_CAP,
                )
                .ok()
                .flatten()
            });
        let current = match (&claim.block, &text) {
            (Some(block), Some(text)) => crate::model::resources::block_content(text, block)
                .map(crate::model::resources::hash),
            (None, Some(text)) => Some(crate::model::resources::hash(text)),
            (_, None) => None,
        };
        let locked = lock.get(&claim.package).map(|p| &p.version);
        let declared = locked.is_some() || claim.package == crate::plan::desired::LOCAL_PACKAGE;
        let state = match current {
            None => State::Missing,
            Some(h) if h != claim.sha256 && !declared => State::UndeclaredEdited,
            Some(_) if !declared => State::Undeclared,
            Some(h) if h != claim.sha256 => State::Edited,
            Some(_) if locked.is_some_and(|v| *v != claim.version) => State::Outdated,
            Some(_) => State::Installed,
        };
        let file = match &claim.block {
            Some(block) => format!("{} (block {block})", claim.file),
            None => claim.file.clone(),
        };
        rows.push(Row {
            host: host.clone(),
            file,
            server: claim.label(),
            package: Some(claim.package.clone()),
            version: Some(claim.version.clone()),
            state,
        });
    }
    rows.sort_by(|a, b| (&a.host, &a.file).cmp(&(&b.host, &b.file)));
    rows
}
