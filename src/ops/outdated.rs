//! `dotpack outdated`: each locked package with the newest version its requirements allow (what
//! `dotpack update` would move it to, if nothing else moved) and the newest published one.

use std::collections::BTreeMap;
use std::sync::Arc;

use anyhow::Result;
use semver::{Version, VersionReq};
use serde::Serialize;

use crate::model::lock::{LockedPackage, Lockfile};
use crate::registry::IndexLine;
use crate::resolve::graph::Graph;
use crate::ui::printer::Printer;

use super::search::newest;
use super::{Project, Settings};

/// One requirement on a package: from `dotpack.toml` or from a locked package that depends on
/// it.
#[derive(Clone, Debug, Serialize)]
pub struct Requirement {
    /// `dotpack.toml`, or the name of the dependent package.
    pub from: String,
    pub req: String,
}

#[derive(Debug, Serialize)]
pub struct Row {
    pub name: String,
    pub source: String,
    pub locked: String,
    /// The newest version every requirement allows; `None` when the registry does not have the
    /// package (or none of its versions fits).
    pub compatible: Option<String>,
    /// The newest version published (not yanked; a pre-release only when nothing else is).
    pub newest: Option<String>,
    pub requirements: Vec<Requirement>,
    /// Whether a newer version than the locked one fits the requirements.
    pub outdated: bool,
}

/// The `outdated --json` shape, version 1.
#[derive(Serialize)]
pub struct Report {
    pub schema: u32,
    pub packages: Vec<Row>,
}

/// Every package of `lock`, with its requirements and the versions its registry has.
pub fn outdated(
    settings: &Settings,
    printer: &Printer,
    project: &Project,
    lock: &Lockfile,
) -> Result<Vec<Row>> {
    let registries = super::registries(settings, Some(&project.manifest))?;
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
    Ok(lock
        .packages
        .iter()
        .map(|package| row(project, &graph, &lines, package))
        .collect())
}

/// One package's row: its requirements (from dotpack.toml and its dependents' locked versions)
/// and the newest versions that fit them and that exist.
fn row(
    project: &Project,
    graph: &Graph<'_>,
    lines: &BTreeMap<&str, Option<Arc<Vec<IndexLine>>>>,
    package: &LockedPackage,
) -> Row {
    let declared = &project.manifest.manifest.dependencies;
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
    Row {
        name: package.name.clone(),
        source: package.source.clone(),
        locked: package.version.to_string(),
        outdated: compatible.as_ref().is_some_and(|c| *c > package.version),
        compatible: compatible.map(|v| v.to_string()),
        newest: newest.map(|v| v.to_string()),
        requirements,
    }
}

/// The newest version that is not yanked and that every requirement allows.
fn newest_matching(lines: &[IndexLine], reqs: &[VersionReq]) -> Option<Version> {
    lines
        .iter()
        .filter(|l| !l.yanked && reqs.iter().all(|r| r.matches(&l.vers)))
        .map(|l| l.vers.clone())
        .max()
}
