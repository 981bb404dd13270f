//! `dotpack list`: what dotpack installed where. `dotpack status`: only what drifted.

use anyhow::{Result, bail};
use serde_json::json;

use crate::cli::{GlobalArgs, InstallArgs, TargetArgs};
use crate::inspect::{self, Row, State};
use crate::install::{ClaimStore, HostSettings};
use crate::ops::{Project, Settings};
use crate::output::Printer;

/// Which rows a command shows.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum View {
    /// Everything dotpack claims.
    List,
    /// Only what is not as dotpack left it.
    Status,
}

pub fn run(global: &GlobalArgs, args: TargetArgs, view: View, printer: &Printer) -> Result<()> {
    let settings = Settings::from_global(global)?;
    let project = Project::load(&settings)?;
    let install = InstallArgs {
        targets: args,
        ..InstallArgs::default()
    };
    let hosts = HostSettings::new(&install, &project.manifest, &settings.host_env)?;
    if hosts.targets.is_empty() {
        bail!(
            "no target hosts: set `hosts = [...]` under [project] in dotpack.toml, or pass --host"
        );
    }
    let lock_claims = project
        .lock
        .as_ref()
        .map(|l| l.claims.clone())
        .unwrap_or_default();
    let store = match hosts.scope {
        crate::hosts::Scope::Project => ClaimStore::Project,
        crate::hosts::Scope::User => {
            ClaimStore::User(crate::claims::UserClaims::load(&settings.dotpack_home)?)
        }
    };
    let claims = match &store {
        ClaimStore::Project => &lock_claims,
        ClaimStore::User(user) => &user.claims,
    };
    let files = crate::install::read_targets(&hosts.targets)?;
    let rows = inspect::inspect(&hosts.targets, project.lock.as_ref(), claims, &files)?;
    let rows: Vec<Row> = rows
        .into_iter()
        .filter(|r| match view {
            View::List => matches!(r.state, State::Installed | State::Edited | State::Missing),
            View::Status => r.state != State::Installed,
        })
        .collect();
    if printer.json {
        printer.json_out(&json!({ "scope": hosts.scope.to_string(), "entries": rows }));
        return Ok(());
    }
    if rows.is_empty() {
        printer.note(match view {
            View::List => "nothing installed by dotpack in the target files",
            View::Status => "every target file matches dotpack.lock",
        });
        return Ok(());
    }
    let place = |r: &Row| format!("{}#{}", r.file, r.server);
    let package = |r: &Row| match (&r.package, &r.version) {
        (Some(p), Some(v)) => format!("{p} {v}"),
        _ => String::new(),
    };
    let width_place = rows.iter().map(|r| place(r).len()).max().unwrap_or(0);
    let width_package = rows.iter().map(|r| package(r).len()).max().unwrap_or(0);
    let mut host = "";
    for row in &rows {
        if row.host != host {
            host = &row.host;
            printer.out(host);
        }
        printer.out(format!(
            "  {:<width_place$}  {:<width_package$}  {}",
            place(row),
            package(row),
            row.state.describe()
        ));
    }
    Ok(())
}
