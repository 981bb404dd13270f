//! `dotpack outdated`: each locked package with the newest version its requirements allow (what
//! `dotpack update` would move it to, if nothing else moved) and the newest published one.
//!
//! Reads the registries as `update` and `info` do: with `--offline`, HTTP registries answer from
//! their cache. Always exits 0: a newer version is news, not a failure.

use anyhow::Result;

use crate::ops::outdated::{self, Report, Row};
use crate::ops::tree::locked;
use crate::ops::{Project, Settings};
use crate::ui::printer::Printer;

pub fn run(settings: &Settings, printer: &Printer) -> Result<()> {
    let project = Project::load(settings, printer)?;
    let lock = locked(&project, printer)?;
    let rows = outdated::outdated(settings, printer, &project, lock)?;
    if printer.json {
        printer.json_out(&serde_json::to_value(Report {
            schema: 1,
            packages: rows,
        })?);
        return Ok(());
    }
    print_table(printer, &rows);
    Ok(())
}

fn print_table(printer: &Printer, rows: &[Row]) {
    if rows.is_empty() {
        printer.note("dotpack.lock holds no packages");
        return;
    }
    let header = ["name", "locked", "compatible", "newest", "requirement"];
    let cells: Vec<[String; 5]> = rows
        .iter()
        .map(|r| {
            let reqs: Vec<String> = r
                .requirements
                .iter()
                .map(|q| match q.from.as_str() {
                    "dotpack.toml" => q.req.clone(),
                    from => format!("{} ({from})", q.req),
                })
                .collect();
            [
                r.name.clone(),
                r.locked.clone(),
                r.compatible.clone().unwrap_or_else(|| "-".into()),
                r.newest.clone().unwrap_or_else(|| "-".into()),
                reqs.join(", "),
            ]
        })
        .collect();
    let mut widths = header.map(str::len);
    for row in &cells {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.len());
        }
    }
    let line = |cells: [&str; 5]| {
        let mut text = String::new();
        for (i, (cell, w)) in cells.iter().zip(widths).enumerate() {
            if i + 1 == cells.len() {
                text.push_str(cell);
            } else {
                text.push_str(&format!("{cell:<w$}  "));
            }
        }
        text.trim_end().to_string()
    };
    printer.out(line(header));
    for row in &cells {
        printer.out(line(row.each_ref().map(String::as_str)));
    }
    let behind = rows.iter().filter(|r| r.outdated).count();
    if behind > 0 {
        printer.note(format!(
            "{behind} of {} locked packages can move to a newer compatible version (`dotpack update`)",
            rows.len()
        ));
    } else {
        printer.note("every locked package is the newest version its requirements allow");
    }
}
