//! `dotpack list` and `dotpack status`: what dotpack claims in the hosts' files, entry by entry,
//! and the lock as `status` judges it.

use anyhow::Result;

use crate::plan::desired::{filter_targets, fingerprint_of};
use crate::plan::drift::{self, Row, State};

use super::{InstallOptions, Project, Settings};

/// With `[project] gateway` on, what the hosts' one entry serves: `status` says it, since the
/// servers have no entries of their own.
#[derive(serde::Serialize)]
pub struct Gateway {
    pub entry: &'static str,
    pub surface: &'static str,
    pub servers: Vec<String>,
}

impl std::fmt::Display for Gateway {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "gateway: each host's `{}` entry (`dotpack serve`) serves {} ({})",
            self.entry,
            self.servers.join(", "),
            self.surface
        )
    }
}

/// The gateway's entry and servers, when `install` writes the gateway.
pub fn gateway(project: &Project) -> Option<Gateway> {
    let manifest = &project.manifest.manifest;
    manifest.gateway().installs().then(|| Gateway {
        entry: crate::model::gateway::ENTRY,
        surface: manifest.gateway().surface().as_str(),
        servers: super::connect::server_names(manifest, project.lock.as_ref()),
    })
}

/// Which rows a command shows.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum View {
    /// Everything dotpack claims.
    List,
    /// Only what is not as it should be.
    Status,
}

/// The lock, as `status` judges it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum LockState {
    Ok,
    Missing,
    Stale,
    Conflicted,
}

/// The lock as `status` judges it: conflicted, missing, stale or fine.
pub fn lock_state(project: &Project) -> LockState {
    let manifest = &project.manifest;
    match &project.lock {
        _ if project.lock_conflicted => LockState::Conflicted,
        None if manifest.manifest.dependencies.is_empty() => LockState::Ok,
        None => LockState::Missing,
        Some(lock) if !crate::ops::lock_is_fresh(manifest, lock) => LockState::Stale,
        Some(_) => LockState::Ok,
    }
}

/// For `status`: the sentence saying the project declares servers but no host to install them
/// into (so none is installed anywhere), or `None`. The user-level manifest installs into every
/// host and is never without one.
pub fn installed_nowhere(project: &Project) -> Option<String> {
    let manifest = &project.manifest.manifest;
    if project.global || !manifest.host_ids().is_empty() {
        return None;
    }
    let locked = project
        .lock
        .iter()
        .flat_map(|l| &l.packages)
        .map(|p| p.servers.len())
        .sum::<usize>();
    let servers = locked + manifest.servers.len();
    (servers > 0).then(|| {
        format!(
            "no target hosts: {servers} server{} declared and installed nowhere, since dotpack.toml names no host under [project] hosts (`dotpack install --host HOST` adds one; `dotpack hosts` lists them)",
            if servers == 1 { " is" } else { "s are" }
        )
    })
}

/// The rows `view` shows for the hosts and scope `options` name: each host's rows together,
/// hosts in the order they first appear.
pub fn rows(
    settings: &Settings,
    project: &Project,
    options: &InstallOptions,
    view: View,
) -> Result<Vec<Row>> {
    let manifest = &project.manifest;
    let empty = crate::model::lock::Lockfile::empty();
    let lock = project.lock.as_ref().unwrap_or(&empty);
    let claims = super::all_claims(project);
    let mut placed = super::place(settings, project, manifest, lock, &claims)?;
    filter_targets(&mut placed, &options.hosts, options.scope);
    let mut files = crate::plan::desired::read_targets(&placed.targets)?;
    crate::plan::desired::redact_resolved(&placed.targets, &mut files, &claims);
    let inputs = |package: &str, server: &str| fingerprint_of(&manifest.manifest, package, server);
    let mut rows = drift::inspect(&placed, &claims, &project.owner, &inputs, &files)?;
    if options.scope != Some(crate::model::hosts::Scope::User) {
        rows.extend(drift::inspect_files(
            manifest.root(),
            &lock.files,
            lock,
            &options.hosts,
        ));
    }
    if options.scope != Some(crate::model::hosts::Scope::Project) {
        let mine: Vec<crate::model::resources::FileClaim> = project
            .user_claims
            .files
            .iter()
            .filter(|c| c.is_owned_by(&project.owner))
            .cloned()
            .collect();
        let mut user_rows =
            drift::inspect_files(&settings.host_env.home, &mine, lock, &options.hosts);
        for row in &mut user_rows {
            row.file = format!("~/{}", row.file);
        }
        rows.extend(user_rows);
    }
    {
        // Each host's rows together, hosts in the order they first appear.
        let mut order: Vec<String> = Vec::new();
        for row in &rows {
            if !order.contains(&row.host) {
                order.push(row.host.clone());
            }
        }
        rows.sort_by_key(|r| order.iter().position(|h| *h == r.host));
    }
    Ok(rows
        .into_iter()
        .filter(|r| match view {
            View::List => r.state != State::NotInstalled && r.state != State::Unclaimed,
            View::Status => r.state != State::Installed,
        })
        .collect())
}
