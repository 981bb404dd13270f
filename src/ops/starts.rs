//! Starting the project's servers (`verify`, `lock` with `[settings] pin_tools`) is a request
//! beyond the project: the programs and URLs come from its committed files. Each server is one
//! request, keyed by its name, whose digest is its launch definition with every `{{env.X}}`
//! left as a reference, so a changed command, argument, variable or URL asks again.

use anyhow::Result;

use crate::mcp::Endpoint;
use crate::model::lock::Lockfile;
use crate::model::manifest::Manifest;
use crate::ops::consent::{self, Approvals, Kind, Request};
use crate::resolve::RegistrySet;

use super::{Project, Settings};

/// The request to start `server`, or `None` when it cannot be located or rendered (starting it
/// fails with that error anyway).
pub fn start_request(
    manifest: &Manifest,
    lock: Option<&Lockfile>,
    registries: &RegistrySet,
    server: &str,
) -> Option<Request> {
    let located = crate::ops::connect::locate(manifest, lock, registries, server).ok()?;
    // References stay references: the approval covers what is asked, not a secret's value.
    let endpoint =
        crate::ops::connect::endpoint(&located, &|name| Some(format!("${{{name}}}"))).ok()?;
    let described = match &endpoint {
        Endpoint::Stdio {
            command,
            args,
            env,
            cwd,
            ..
        } => serde_json::json!({"command": command, "args": args, "env": env, "cwd": cwd}),
        Endpoint::Http { url, headers, .. } => serde_json::json!({"url": url, "headers": headers}),
    };
    Some(Request::new(
        Kind::Start,
        server,
        consent::digest(&[server, &described.to_string()]),
        format!("server `{server}`: {}", consent::launch_summary(&endpoint)),
    ))
}

/// The start requests of `servers`, in their order.
pub fn start_requests(
    manifest: &Manifest,
    lock: Option<&Lockfile>,
    registries: &RegistrySet,
    servers: &[String],
) -> Vec<Request> {
    servers
        .iter()
        .filter_map(|s| start_request(manifest, lock, registries, s))
        .collect()
}

/// Starts `servers` only with the user's consent: approved, in a state of the user's own, or
/// `--trust`; on a terminal the user is asked. Otherwise the error lists what would start, with
/// `what_happened` saying that nothing did.
pub fn check_starts(
    settings: &Settings,
    printer: &crate::ui::printer::Printer,
    project: &Project,
    registries: &RegistrySet,
    lock: Option<&Lockfile>,
    servers: &[String],
    what_happened: &str,
) -> Result<()> {
    let open = unapproved_starts(settings, project, registries, lock, servers)?;
    let open: Vec<&Request> = open.iter().collect();
    if open.is_empty() || super::ask(settings, printer, &project.owner, &open, "dotpack.toml")? {
        return Ok(());
    }
    Err(consent::refusal(&open, "dotpack.toml", what_happened))
}

/// The requests of `servers` the user has not approved for `project` (none with `--trust`).
pub fn unapproved_starts(
    settings: &Settings,
    project: &Project,
    registries: &RegistrySet,
    lock: Option<&Lockfile>,
    servers: &[String],
) -> Result<Vec<Request>> {
    if settings.trust || project.global {
        return Ok(Vec::new());
    }
    let asked = start_requests(&project.manifest.manifest, lock, registries, servers);
    if asked.is_empty() {
        return Ok(Vec::new());
    }
    let approvals = Approvals::load(&settings.dotpack_home)?;
    // In a state the user's own commands left, the manifest's own servers and the packages
    // approved exactly as locked are the user's own choice; a version never approved (what a
    // registry answered after the state was approved) still asks.
    let own = approvals.owns_state(&project.owner, &project.state());
    let manifest = &project.manifest.manifest;
    let chosen = |server: &str| -> bool {
        if manifest.servers.contains_key(server) {
            return true;
        }
        let Some(lock) = lock else { return false };
        lock.packages
            .iter()
            .filter(|p| {
                manifest
                    .entry_names(&p.name, &p.servers)
                    .iter()
                    .any(|s| s == server)
            })
            .filter_map(|p| super::approve::package_request(manifest, lock, &p.name))
            .any(|r| approvals.covers(&project.owner, &r))
    };
    Ok(asked
        .into_iter()
        .filter(|r| !(own && chosen(&r.key)))
        .filter(|r| !approvals.covers(&project.owner, r))
        .collect())
}

/// Records `servers` as approved to start, after the command line asked for it (`lock
/// --pin-tools`): while they stay as they are, `verify` may start them again.
/// Approvals of other servers stay.
pub fn record_starts(
    settings: &Settings,
    project: &Project,
    registries: &RegistrySet,
    lock: &Lockfile,
    servers: &[String],
) -> Result<()> {
    if settings.trust || project.global {
        return Ok(());
    }
    let started = start_requests(&project.manifest.manifest, Some(lock), registries, servers);
    let home = &settings.dotpack_home;
    let mut requests: Vec<Request> = Approvals::load(home)?
        .of(&project.owner)
        .iter()
        .filter(|r| r.kind == Kind::Start && !servers.contains(&r.key))
        .cloned()
        .collect();
    requests.extend(started);
    consent::store::record(home, &project.owner, &[Kind::Start], &requests)
}
