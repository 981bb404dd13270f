//! `dotpack list`: what dotpack installed where. `dotpack status`: a check that every declared
//! server of every declared host is installed as locked, exiting 1 with every discrepancy
//! otherwise (usable as a CI step). Both find entries through the claims, wherever they are.

use anyhow::Result;
use serde_json::json;

use crate::cli::TargetArgs;
use crate::commands::Reported;
use crate::inspect::{self, Row, State};
use crate::install::{filter_targets, fingerprint_of};
use crate::ops::{Project, Settings};
use crate::output::Printer;

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
enum LockState {
    Ok,
    Missing,
    Stale,
    Conflicted,
}

pub fn run(settings: &Settings, args: TargetArgs, view: View, printer: &Printer) -> Result<()> {
    let options = args.options();
    let project = Project::load(settings, printer)?;
    let manifest = &project.manifest;
    let empty = crate::lock::Lockfile::empty();
    let lock = project.lock.as_ref().unwrap_or(&empty);
    let lock_state = match &project.lock {
        _ if project.lock_conflicted => LockState::Conflicted,
        None if manifest.manifest.dependencies.is_empty() => LockState::Ok,
        None => LockState::Missing,
        Some(lock) if !crate::ops::lock_is_fresh(manifest, lock) => LockState::Stale,
        Some(_) => LockState::Ok,
    };
    let claims = crate::ops::all_claims(&project);
    let mut placed = crate::ops::place(settings, &project, manifest, lock, &claims)?;
    filter_targets(&mut placed, &options.hosts, options.scope);
    let mut files = crate::install::read_targets(&placed.targets)?;
    crate::install::redact_resolved(&placed.targets, &mut files, &claims);
    let inputs = |package: &str, server: &str| fingerprint_of(&manifest.manifest, package, server);
    let mut rows = inspect::inspect(&placed, &claims, &project.owner, &inputs, &files)?;
    if options.scope != Some(crate::hosts::Scope::User) {
        rows.extend(inspect::inspect_files(
            manifest.root(),
            &lock.files,
            lock,
            &options.hosts,
        ));
    }
    if options.scope != Some(crate::hosts::Scope::Project) {
        let mine: Vec<crate::resources::FileClaim> = project
            .user_claims
            .files
            .iter()
            .filter(|c| c.is_owned_by(&project.owner))
            .cloned()
            .collect();
        let mut user_rows =
            inspect::inspect_files(&settings.host_env.home, &mine, lock, &options.hosts);
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
    let rows: Vec<Row> = rows
        .into_iter()
        .filter(|r| match view {
            View::List => r.state != State::NotInstalled && r.state != State::Unclaimed,
            View::Status => r.state != State::Installed,
        })
        .collect();
    let ok = rows.is_empty() && lock_state == LockState::Ok;
    if printer.json {
        let mut doc = json!({ "entries": rows });
        if view == View::Status {
            doc["ok"] = json!(ok);
            doc["lock"] = json!(lock_state);
        }
        printer.json_out(&doc);
    } else {
        print_rows(printer, view, &rows, lock_state);
    }
    if view == View::Status && !printer.json {
        print_environment(settings, printer, &project, lock);
    }
    if view == View::Status && !ok {
        return Err(Reported("status found discrepancies".into()).into());
    }
    Ok(())
}

fn print_rows(printer: &Printer, view: View, rows: &[Row], lock_state: LockState) {
    match lock_state {
        LockState::Ok => {}
        LockState::Missing => printer.out("dotpack.lock: missing (`dotpack lock`)"),
        LockState::Stale => {
            printer.out("dotpack.lock: out of date with dotpack.toml (`dotpack lock`)")
        }
        LockState::Conflicted => {
            printer.out("dotpack.lock: has git merge conflict markers (`dotpack lock`)")
        }
    }
    if rows.is_empty() {
        if lock_state == LockState::Ok {
            printer.note(match view {
                View::List => "nothing installed by dotpack in the target files",
                View::Status => "every declared server is installed as locked",
            });
        }
        return;
    }
    let place = |r: &Row| format!("{}#{}", r.file, r.server);
    let package = |r: &Row| match (&r.package, &r.version) {
        (Some(p), Some(v)) => format!("{p} {v}"),
        _ => String::new(),
    };
    let width_place = rows.iter().map(|r| place(r).len()).max().unwrap_or(0);
    let width_package = rows.iter().map(|r| package(r).len()).max().unwrap_or(0);
    let mut host = "";
    for row in rows {
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
}

/// Names the unset environment variables the installed servers read.
fn print_environment(
    settings: &Settings,
    printer: &Printer,
    project: &Project,
    lock: &crate::lock::Lockfile,
) {
    let Ok(registries) = crate::ops::registries(settings, Some(&project.manifest)) else {
        return;
    };
    let needed = crate::ops::environment_needed(&registries, &project.manifest, lock, &[]);
    crate::ops::print_environment_needed(printer, &needed);
}
