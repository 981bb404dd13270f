//! `dotpack trust`: everything the project asks for beyond itself, listed and recorded as the
//! user's approval for this folder (as `direnv allow` does for an `.envrc`).
//!
//! The list is what the project would do now: the user-scope entries and files `install` would
//! leave (planned from the lock, resolving first when it is stale, as `install` does), the
//! tokens its registries name, every server `verify` would start, its registry folders outside
//! the project, and whether another user owns its files. Approving records exactly these
//! requests; any later change to one of them asks again.

use anyhow::Result;

use crate::ops::consent::{self, Approvals, Kind, Request};
use crate::plan::Mode;
use crate::ui::printer::Printer;

use super::{InstallOptions, Project, Settings};

/// The project's requests beyond itself, and those of them already approved.
pub struct Asked {
    pub project: Project,
    pub requests: Vec<Request>,
    pub approved: Vec<bool>,
    /// Why the list is short: what the project asks through its registries could not be read
    /// without sending what is not approved yet (a private registry's token).
    pub incomplete: Option<String>,
}

/// Lists what the project at the current folder asks for beyond itself. Listing sends nothing
/// and reads no folder that is not approved: the project's own token, folder and owner requests
/// come first, from the manifest alone, and the registries are read only as already approved.
pub fn asked(settings: &Settings, printer: &Printer) -> Result<Asked> {
    // Another user's project is listed (that is a request too), not refused.
    let loading = Settings {
        trust: true,
        ..settings.clone()
    };
    let project = Project::load(&loading, printer)?;
    if project.global {
        crate::bail_help!(
            help = "run `dotpack trust` in a project folder",
            "the user-level manifest is your own and needs no approval"
        );
    }
    let mut requests = Vec::new();
    requests.extend(super::owner_requests(&project));
    requests.extend(super::folder_requests(&project.manifest));
    for spec in project.manifest.manifest.registries.values() {
        if let (Some(url), Some(var)) = (&spec.url, &spec.token_env) {
            requests.push(super::tokens::token_request(url, var));
        }
    }
    let incomplete = match through_registries(settings, &project) {
        Ok(more) => {
            requests.extend(more);
            None
        }
        Err(e) => {
            // The project's own servers can still be listed.
            let registries = crate::resolve::RegistrySet::new(Box::new(
                crate::registry::EmbeddedIndex::builtin(),
            ));
            let servers: Vec<String> = project.manifest.manifest.servers.keys().cloned().collect();
            requests.extend(super::start_requests(
                &project.manifest.manifest,
                None,
                &registries,
                &servers,
            ));
            Some(format!("{e:#}"))
        }
    };
    requests.sort();
    requests.dedup();
    let approvals = Approvals::load(&settings.dotpack_home)?;
    let approved = requests
        .iter()
        .map(|r| approvals.covers(&project.owner, r))
        .collect();
    Ok(Asked {
        project,
        requests,
        approved,
        incomplete,
    })
}

/// What the project asks for once its packages are resolved and its hosts planned: user-scope
/// entries and files, links out of the project, and the servers `verify` would start. Read with
/// `settings` as they are: a token or folder not approved is not used.
fn through_registries(settings: &Settings, project: &Project) -> Result<Vec<Request>> {
    let registries = super::registries(settings, Some(&project.manifest))?;
    let lock = super::resolve_lock(
        &project.manifest,
        &registries,
        project.locked_versions(),
        project.lock.as_ref(),
    )?;
    // Links out of the project are listed, not refused.
    let options = InstallOptions {
        write_outside_project: true,
        ..InstallOptions::default()
    };
    let (plan, placed) = super::plan_hosts(
        settings,
        project,
        &registries,
        &project.manifest,
        &lock,
        &options,
        Mode::Sync,
    )?;
    let mut requests: Vec<Request> = super::outside_requests(&placed, project.root())
        .into_iter()
        .map(|(_, r)| r)
        .collect();
    let at_user = super::approve::user_scope(&plan, settings, &project.manifest, &lock, true);
    for placed in at_user {
        requests.push(placed.ask.request);
        requests.extend(placed.ask.package_request);
    }
    requests.extend(declared_user_scope(&project.manifest.manifest, &lock));
    let servers = crate::ops::connect::server_names(&project.manifest.manifest, Some(&lock));
    requests.extend(super::start_requests(
        &project.manifest.manifest,
        Some(&lock),
        &registries,
        &servers,
    ));
    Ok(requests)
}

/// The requests a listing can show without the registries: the tokens, folders and owners the
/// manifest names. When the rest could not be read, these are approved first, alone.
pub fn before_registries(asked: &Asked) -> Vec<&Request> {
    asked
        .requests
        .iter()
        .filter(|r| matches!(r.kind, Kind::Token | Kind::Folder | Kind::Owner))
        .collect()
}

/// Records `asked` as approved for the project (a request with the same kind and key replaced,
/// the others kept), and the project's state as the user's own.
pub fn approve(settings: &Settings, asked: &Asked) -> Result<()> {
    let home = &settings.dotpack_home;
    // Approvals add up: what was approved before and is not asked now (a package removed for a
    // while) stays approved, so putting it back is not a new request.
    let requests: Vec<&Request> = asked.requests.iter().collect();
    super::approve::record_more(settings, &asked.project.owner, &requests)?;
    // From here on the user's own commands carry the approval forward.
    consent::store::remember_state(home, &asked.project.owner, &asked.project.state())
}

/// Forgets every approval of the project at the current folder; returns how many there were.
pub fn revoke(settings: &Settings) -> Result<(String, usize)> {
    // Another user's project can be revoked too.
    let loading = Settings {
        trust: true,
        ..settings.clone()
    };
    let root = super::project_root(&loading).ok_or_else(|| {
        anyhow::Error::from(
            crate::util::error::Error::new("there is no dotpack.toml here or in a parent folder")
                .help("run `dotpack trust --revoke` in the project folder"),
        )
    })?;
    let owner = super::owner_id(&root);
    let count = consent::store::revoke(&settings.dotpack_home, &owner)?;
    Ok((owner, count))
}

/// What the manifest sends to the user scope even where no entry is written yet (no host takes
/// it so far): approving the project's state approves these too, so they are listed.
fn declared_user_scope(
    manifest: &crate::model::manifest::Manifest,
    lock: &crate::model::lock::Lockfile,
) -> Vec<Request> {
    use crate::model::hosts::Scope;
    let mut out = Vec::new();
    let project = manifest.project.clone().unwrap_or_default();
    if project.scope == Some(Scope::User) {
        out.push(Request::new(
            Kind::UserScope,
            "project scope",
            consent::digest(&["project scope user"]),
            "[project] scope = \"user\": every host without a scope of its own, now or added later"
                .to_string(),
        ));
    }
    for host in project
        .hosts
        .iter()
        .filter(|h| h.scope() == Some(Scope::User))
    {
        out.push(Request::new(
            Kind::UserScope,
            format!("host {}", host.id()),
            consent::digest(&["host scope user", host.id()]),
            format!("host `{}` at user scope", host.id()),
        ));
    }
    for (name, spec) in &manifest.dependencies {
        if spec.scope() == Some(Scope::User)
            && let Some(request) = super::approve::package_request(manifest, lock, name)
        {
            out.push(request);
        }
    }
    out
}

/// The `--json` document of `dotpack trust`: every request, whether it is approved, and
/// whether this run records them (not with `show`).
pub fn json_report(asked: &Asked, show: bool) -> serde_json::Value {
    let requests: Vec<_> = asked
        .requests
        .iter()
        .zip(&asked.approved)
        .map(|(r, approved)| {
            serde_json::json!({
                "kind": r.kind.label(),
                "key": r.key,
                "digest": r.digest,
                "detail": r.detail,
                "approved": *approved || !show,
            })
        })
        .collect();
    serde_json::json!({
        "schema": 1,
        "project": asked.project.owner,
        "recorded": !show,
        "requests": requests,
        "incomplete": asked.incomplete,
    })
}
