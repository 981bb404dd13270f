//! What is installed where, and how it drifted: the read side of claims, for `list` and
//! `status`. Compares each target file's entries with the claims and the locked packages.

use std::collections::BTreeMap;

use anyhow::Result;
use semver::Version;
use serde::Serialize;

use crate::claims::{Claim, entry_hash};
use crate::formats::{self, Container};
use crate::lock::Lockfile;
use crate::plan::Target;

/// The state of one server name in one file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum State {
    /// Claimed, and the entry is as dotpack wrote it.
    Installed,
    /// Claimed, but edited by hand since.
    Edited,
    /// Claimed, but the entry is gone.
    Missing,
    /// An entry dotpack does not own, with a name a locked package uses.
    Unclaimed,
    /// A locked package's server with no entry here.
    NotInstalled,
}

impl State {
    pub fn describe(self) -> &'static str {
        match self {
            State::Installed => "installed",
            State::Edited => "edited by hand",
            State::Missing => "missing (removed by hand)",
            State::Unclaimed => "not dotpack's (`dotpack adopt` or `--force`)",
            State::NotInstalled => "not installed (`dotpack install`)",
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

/// One row per (file, server) that dotpack claims or that a locked package declares.
pub fn inspect(
    targets: &[Target],
    lock: Option<&Lockfile>,
    claims: &[Claim],
    files: &BTreeMap<std::path::PathBuf, Option<String>>,
) -> Result<Vec<Row>> {
    let mut wanted: BTreeMap<&str, (&str, &Version)> = BTreeMap::new();
    for p in lock.iter().flat_map(|l| &l.packages) {
        for server in &p.servers {
            wanted.insert(server, (&p.name, &p.version));
        }
    }
    let mut rows = Vec::new();
    for target in targets {
        let text = files
            .get(&target.path)
            .and_then(Option::as_deref)
            .unwrap_or_default();
        let entries: BTreeMap<String, serde_json::Value> = formats::list_entries(
            target.host.format,
            text,
            Container::new(target.host.container),
        )
        .map_err(|e| anyhow::anyhow!("{}: {e}", target.claim_file))?
        .into_iter()
        .collect();
        let file_claims: BTreeMap<&str, &Claim> = claims
            .iter()
            .filter(|c| c.file == target.claim_file)
            .map(|c| (c.server.as_str(), c))
            .collect();
        let row = |server: &str, package: Option<&str>, version: Option<&Version>, state| Row {
            host: target.host.id.to_string(),
            file: target.claim_file.clone(),
            server: server.to_string(),
            package: package.map(str::to_string),
            version: version.cloned(),
            state,
        };
        for (server, claim) in &file_claims {
            let state = match entries.get(*server) {
                None => State::Missing,
                Some(entry) if entry_hash(entry) == claim.entry => State::Installed,
                Some(_) => State::Edited,
            };
            rows.push(row(
                server,
                Some(&claim.package),
                Some(&claim.version),
                state,
            ));
        }
        for (server, (package, version)) in &wanted {
            if file_claims.contains_key(server) {
                continue;
            }
            let state = if entries.contains_key(*server) {
                State::Unclaimed
            } else {
                State::NotInstalled
            };
            rows.push(row(server, Some(package), Some(version), state));
        }
    }
    rows.sort_by(|a, b| (&a.host, &a.file, &a.server).cmp(&(&b.host, &b.file, &b.server)));
    Ok(rows)
}
