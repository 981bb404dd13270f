//! `dotpack list`: what dotpack installed where. `dotpack status`: a check that every declared
//! server of every declared host is installed as locked, exiting 1 with every discrepancy
//! otherwise (usable as a CI step). Both find entries through the claims, wherever they are.

use anyhow::Result;
use serde_json::json;

use crate::commands::Reported;
use crate::commands::args::TargetArgs;
pub use crate::ops::list::View;
use crate::ops::list::{self, LockState};
use crate::ops::{Project, Settings};
use crate::plan::drift::Row;
use crate::ui::printer::Printer;

pub fn run(settings: &Settings, args: TargetArgs, view: View, printer: &Printer) -> Result<()> {
    let options = args.options()?;
    let project = Project::load(settings, printer)?;
    let empty = crate::model::lock::Lockfile::empty();
    let lock = project.lock.as_ref().unwrap_or(&empty);
    let lock_state = list::lock_state(&project);
    let rows = list::rows(settings, &project, &options, view)?;
    let nowhere = (view == View::Status)
        .then(|| list::installed_nowhere(&project))
        .flatten();
    // An entry this shell cannot check (`--resolve-env` values it does not hold) is listed but
    // is no discrepancy: nothing says it is not as declared.
    let checked = rows
        .iter()
        .all(|r| r.state == crate::plan::drift::State::Unresolved);
    let ok = checked && lock_state == LockState::Ok && nowhere.is_none();
    let gateway = list::gateway(&project);
    if printer.json {
        let mut doc = json!({ "entries": rows });
        if view == View::Status {
            doc["ok"] = json!(ok);
            if let Some(gateway) = &gateway {
                doc["gateway"] = json!(gateway);
            }
            doc["lock"] = json!(lock_state);
            if let Some(nowhere) = &nowhere {
                doc["hosts"] = json!(nowhere);
            }
        }
        printer.json_out(&doc);
    } else if let Some(nowhere) = &nowhere {
        printer.out(nowhere);
    } else {
        print_rows(printer, view, &rows, lock_state);
    }
    if view == View::Status && !printer.json {
        if let Some(gateway) = &gateway {
            printer.note(gateway.to_string());
        }
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
            printer.out("dotpack.lock: has git merge conflict markers (`dotpack merge`)")
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
            row.state.describe(&row.server)
        ));
    }
}

/// Names the unset environment variables the installed servers read.
fn print_environment(
    settings: &Settings,
    printer: &Printer,
    project: &Project,
    lock: &crate::model::lock::Lockfile,
) {
    let Ok(registries) = crate::ops::registries(settings, Some(&project.manifest)) else {
        return;
    };
    let needed = crate::ops::environment_needed(&registries, &project.manifest, lock, &[]);
    crate::ops::print_environment_needed(printer, &needed);
}
