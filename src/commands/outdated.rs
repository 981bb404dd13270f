//! `dotpack outdated`: each locked package with the newest version its requirements allow (what
//! `dotpack update` would move it to, if nothing else moved) and the newest published one.
//!
//! Reads the registries as `update` and `info` do: with `--offline`, HTTP registries answer from
//! their cache. Always exits 0: a newer version is news, not a failure.

use std::collections::BTreeMap;
use std::sync::Arc;

use anyhow::Result;
use semver::{Version, VersionReq};
use serde::Serialize;

use crate::commands::search::newest;
use crate::graph::Graph;
use crate::ops::tree::locked;
use crate::ops::{self, Project, Settings};
use crate::output::Printer;
use crate::registry::IndexLine;

/// One requirement on a package: from `dotpack.toml` or from a locked package that depends on
/// it.
#[derive(Clone, Debug, Serialize)]
struct Requirement {
    /// `dotpack.toml`, or the name of the dependent package.
    from: String,
    req: String,
}

#[derive(Debug, Serialize)]
struct Row {
    name: String,
    source: String,
    locked: String,
    /// The newest version every requirement allows; `None` when the registry does not have the
    /// package (or none of its versions fits).
    compatible: Option<String>,
    /// The newest version published (not yanked; a pre-release only when nothing else is).
    newest: Option<String>,
    requirements: Vec<Requirement>,
    /// Whether a newer version than the locked one fits the requirements.
    outdated: bool,
}

/// The `outdated --json` shape, version 1.
#[derive(Serialize)]
struct Report {
    schema: u32,
    packages: Vec<Row>,
}

pub fn run(settings: &Settings, printer: &Printer) -> Result<()> {
    let project = Project::load(settings, printer)?;
    let lock = locked(&project, printer)?;
    let registries = ops::registries(settings, Some(&project.manifest))?;
    let declared = &project.manifest.manifest.dependencies;
    let graph = Graph::new(lock, declared.keys().map(String::as_str));
    // Every locked package's index lines, read once.
    let mut lines: BTreeMap<&str, Option<Arc<Vec<IndexLine>>>> = BTreeMap::new();
    for package in &lock.packages {
        let found = match registries.by_source(&package.source) {
            Some(source) => source.versions(&package.name)?,
            None => {
                printer.warning(format!(
                    "{} {}: its registry `{}` is not one this project reads",
                    package.name, package.version, package.source
                ));
                None
            }
        };
        lines.insert(package.name.as_str(), found);
    }
    let mut rows = Vec::new();
    for package in &lock.packages {
        let mut requirements = Vec::new();
        if let Some(spec) = declared.get(&package.name) {
            requirements.push(Requirement {
                from: "dotpack.toml".to_string(),
                req: spec.req().to_string(),
            });
        }
        for dependent in graph.dependents(&package.name) {
            let Some(parent) = graph.get(dependent) else {
                continue;
            };
            let edge = lines
                .get(dependent)
                .and_then(Option::as_ref)
                .and_then(|ls| ls.iter().find(|l| l.vers == parent.version))
                .and_then(|l| l.deps.iter().find(|d| d.name == package.name));
            if let Some(dep) = edge {
                requirements.push(Requirement {
                    from: dependent.to_string(),
                    req: dep.req.to_string(),
                });
            }
        }
        let versions = lines.get(package.name.as_str()).and_then(Option::as_ref);
        let reqs: Vec<VersionReq> = requirements
            .iter()
            .filter_map(|r| VersionReq::parse(&r.req).ok())
            .collect();
        let compatible = versions.and_then(|ls| newest_matching(ls, &reqs));
        let newest = versions.and_then(|ls| newest(ls)).map(|l| l.vers.clone());
        rows.push(Row {
            name: package.name.clone(),
            source: package.source.clone(),
            locked: package.version.to_string(),
            outdated: compatible.as_ref().is_some_and(|c| *c > package.version),
            compatible: compatible.map(|v| v.to_string()),
            newest: newest.map(|v| v.to_string()),
            requirements,
        });
    }
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

/// The newest version that is not yanked and that every requirement allows.
fn newest_matching(lines: &[IndexLine], reqs: &[VersionReq]) -> Option<Version> {
    lines
        .iter()
        .filter(|l| !l.yanked && reqs.iter().all(|r| r.matches(&l.vers)))
        .map(|l| l.vers.clone())
        .max()
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
