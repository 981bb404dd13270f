//! `dotpack tree` and `dotpack why`: the locked packages as a tree of dependencies, each with
//! its servers and the hosts they are installed in (from the claims), and every path from a
//! declared dependency down to one locked package. Both read `dotpack.lock` and the claims
//! only: no registry, no host file.

use std::collections::BTreeMap;

use anyhow::{Result, bail};
use serde::Serialize;

use crate::model::lock::{LockedPackage, Lockfile};
use crate::resolve::graph::{self, Graph, TreeLine};
use crate::ui::printer::Printer;

use super::Project;

/// The project's lock, which these commands need; a lock that no longer answers dotpack.toml is
/// shown as it is, with a warning.
pub fn locked<'p>(project: &'p Project, printer: &Printer) -> Result<&'p Lockfile> {
    let Some(lock) = &project.lock else {
        crate::bail_help!(
            help = "`dotpack lock` writes it",
            "there is no dotpack.lock next to {}",
            project.manifest.path.display()
        );
    };
    if !crate::ops::lock_is_fresh(&project.manifest, lock) {
        printer.warning(
            "dotpack.lock is out of date with dotpack.toml; this is what it locked (`dotpack lock` updates it)",
        );
    }
    Ok(lock)
}

/// The declared dependencies of the project.
fn graph_of<'l>(project: &Project, lock: &'l Lockfile) -> Graph<'l> {
    Graph::new(
        lock,
        project
            .manifest
            .manifest
            .dependencies
            .keys()
            .map(String::as_str),
    )
}

/// `name` as the lock spells it, or an error naming the closest locked name.
fn locked_name<'l>(graph: &Graph<'l>, given: &str) -> Result<&'l str> {
    let name = super::declare::package_name(given);
    if let Some(package) = graph.get(&name) {
        return Ok(package.name.as_str());
    }
    let hint = crate::util::suggest::closest(&name, graph.names())
        .map(|c| format!("did you mean `{c}`? "))
        .unwrap_or_default();
    crate::bail_help!(
        help = format!("{hint}`dotpack tree` shows every locked package"),
        "package `{name}` is not in dotpack.lock"
    )
}

/// Where one server is installed: a host at a scope, from a claim this project owns.
#[derive(Clone, Debug, Serialize, PartialEq, Eq, PartialOrd, Ord)]
struct Place {
    host: String,
    scope: String,
    file: String,
}

#[derive(Clone, Debug, Serialize)]
struct ServerNode {
    name: String,
    installed: Vec<Place>,
}

/// Every server's places, by (package, server).
fn places(project: &Project) -> BTreeMap<(String, String), Vec<Place>> {
    let mut out: BTreeMap<(String, String), Vec<Place>> = BTreeMap::new();
    for claim in crate::ops::all_claims(project).iter() {
        if !claim.is_owned_by(&project.owner) {
            continue;
        }
        out.entry((claim.package.clone(), claim.server.clone()))
            .or_default()
            .push(Place {
                host: claim.host.clone(),
                scope: claim.scope.clone(),
                file: claim.file.clone(),
            });
    }
    for list in out.values_mut() {
        list.sort();
        list.dedup();
    }
    out
}

/// The package's servers by their entry names in the hosts (its own, unless `entries` names
/// them otherwise), with where each is installed.
fn servers_of(
    package: &LockedPackage,
    places: &BTreeMap<(String, String), Vec<Place>>,
    project: &Project,
) -> Vec<ServerNode> {
    project
        .manifest
        .manifest
        .entry_names(&package.name, &package.servers)
        .into_iter()
        .map(|entry| ServerNode {
            installed: places
                .get(&(package.name.clone(), entry.clone()))
                .cloned()
                .unwrap_or_default(),
            name: entry,
        })
        .collect()
}

/// One resource of a package and the hosts it is installed in (from the lock's file claims).
#[derive(Clone, Debug, Serialize)]
struct ResourceNode {
    name: String,
    hosts: Vec<String>,
}

/// The resources of `package` the lock claims files for: `skills.pr-review`, with its hosts.
fn resources_of(package: &LockedPackage, project: &Project) -> Vec<ResourceNode> {
    let mut by_label: BTreeMap<String, std::collections::BTreeSet<String>> = BTreeMap::new();
    for claim in project.lock.iter().flat_map(|l| &l.files) {
        if claim.package == package.name {
            by_label
                .entry(claim.label())
                .or_default()
                .extend(claim.hosts.iter().cloned());
        }
    }
    by_label
        .into_iter()
        .map(|(name, hosts)| ResourceNode {
            name,
            hosts: hosts.into_iter().collect(),
        })
        .collect()
}

/// `figma v0.3.1 [figma: claude-code, codex (user)] {skills.pr-review: claude-code}`.
fn label(package: &LockedPackage, servers: &[ServerNode], resources: &[ResourceNode]) -> String {
    let mut text = label_servers(package, servers);
    if !resources.is_empty() {
        let described: Vec<String> = resources
            .iter()
            .map(|r| format!("{}: {}", r.name, r.hosts.join(", ")))
            .collect();
        text.push_str(&format!(" {{{}}}", described.join("; ")));
    }
    text
}

/// `figma v0.3.1 [figma: claude-code, codex (user)]`.
fn label_servers(package: &LockedPackage, servers: &[ServerNode]) -> String {
    let mut text = format!("{} v{}", package.name, package.version);
    if servers.is_empty() {
        return text;
    }
    let described: Vec<String> = servers
        .iter()
        .map(|s| {
            let hosts: Vec<String> = s
                .installed
                .iter()
                .map(|p| match p.scope.as_str() {
                    "user" => format!("{} (user)", p.host),
                    _ => p.host.clone(),
                })
                .collect();
            if hosts.is_empty() {
                format!("{}: not installed", s.name)
            } else {
                format!("{}: {}", s.name, hosts.join(", "))
            }
        })
        .collect();
    text.push_str(&format!(" [{}]", described.join("; ")));
    text
}

/// One package of the `--json` tree.
#[derive(Serialize)]
struct Node {
    name: String,
    version: String,
    source: String,
    declared: bool,
    servers: Vec<ServerNode>,
    /// Resources installed from it (skills, commands, …), with their hosts.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    resources: Vec<ResourceNode>,
    /// Shown earlier in full; its children are not repeated.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    repeat: bool,
    /// Dependencies, or dependents with `--invert`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    children: Vec<Node>,
}

/// The `tree --json` shape, version 1.
#[derive(Serialize)]
pub struct TreeReport {
    schema: u32,
    /// `dependencies` (children are what a package depends on) or `dependents` (`--invert`).
    direction: &'static str,
    roots: Vec<Node>,
}

/// The lines at `depth` from `next` on, each with the deeper lines under it as children.
fn nest(
    lines: &[TreeLine<'_>],
    next: &mut usize,
    depth: usize,
    graph: &Graph<'_>,
    places: &BTreeMap<(String, String), Vec<Place>>,
    project: &Project,
) -> Vec<Node> {
    let mut nodes = Vec::new();
    while let Some(line) = lines.get(*next).filter(|l| l.depth == depth) {
        *next += 1;
        let children = nest(lines, next, depth + 1, graph, places, project);
        let Some(package) = graph.get(line.name) else {
            continue;
        };
        nodes.push(Node {
            name: package.name.clone(),
            version: package.version.to_string(),
            source: package.source.clone(),
            declared: graph.is_root(line.name),
            servers: servers_of(package, places, project),
            resources: resources_of(package, project),
            repeat: line.repeat,
            children,
        });
    }
    nodes
}

/// One path of `why --json`: the declared dependency at its head, its requirement, and the
/// packages from it down to the one asked about.
#[derive(Serialize)]
struct WhyPath {
    root: String,
    requirement: String,
    path: Vec<String>,
}

/// The `why --json` shape, version 1.
#[derive(Serialize)]
pub struct WhyReport {
    schema: u32,
    name: String,
    version: String,
    paths: Vec<WhyPath>,
    /// More paths exist than are listed.
    truncated: bool,
}

/// What `dotpack tree` shows: from one package (or, with `invert`, up from it), else from every
/// declared one, at most `depth` levels down.
pub struct TreeOptions {
    pub package: Option<String>,
    pub invert: Option<String>,
    pub depth: Option<usize>,
    /// The `--json` report instead of the lines.
    pub json: bool,
}

/// The tree as `--json` reports it, or as lines of text.
pub enum TreeView {
    Report(TreeReport),
    Lines(Vec<String>),
}

/// The tree of `lock`'s packages `options` asks for.
pub fn tree(project: &Project, lock: &Lockfile, options: &TreeOptions) -> Result<TreeView> {
    let graph = graph_of(project, lock);
    let places = places(project);
    let (roots, inverted) = match (&options.invert, &options.package) {
        (Some(name), _) => (vec![locked_name(&graph, name)?], true),
        (None, Some(name)) => (vec![locked_name(&graph, name)?], false),
        (None, None) => (graph.roots().to_vec(), false),
    };
    let children = |name: &str| {
        if inverted {
            graph.dependents(name)
        } else {
            graph.dependencies(name)
        }
    };
    let lines = graph::layout(&roots, &children, options.depth);
    if options.json {
        let mut next = 0;
        let roots = nest(&lines, &mut next, 0, &graph, &places, project);
        return Ok(TreeView::Report(TreeReport {
            schema: 1,
            direction: if inverted {
                "dependents"
            } else {
                "dependencies"
            },
            roots,
        }));
    }
    let mut text = Vec::new();
    for line in &lines {
        let Some(package) = graph.get(line.name) else {
            continue;
        };
        let servers = servers_of(package, &places, project);
        let resources = resources_of(package, project);
        let repeat = if line.repeat { " (*)" } else { "" };
        text.push(format!(
            "{}{}{repeat}",
            line.prefix,
            label(package, &servers, &resources)
        ));
    }
    Ok(TreeView::Lines(text))
}

/// Why `name` is locked: its `--json` report, and the same as lines of text.
pub fn why(project: &Project, lock: &Lockfile, name: &str) -> Result<(WhyReport, Vec<String>)> {
    let graph = graph_of(project, lock);
    let name = locked_name(&graph, name)?;
    let Some(package) = graph.get(name) else {
        bail!("package `{name}` is not in dotpack.lock");
    };
    let (paths, truncated) = graph.paths_to(name, graph::MAX_PATHS);
    let requirement = |root: &str| {
        project
            .manifest
            .manifest
            .dependencies
            .get(root)
            .map(|d| d.req().to_string())
            .unwrap_or_default()
    };
    let report = WhyReport {
        schema: 1,
        name: package.name.clone(),
        version: package.version.to_string(),
        paths: paths
            .iter()
            .map(|path| WhyPath {
                root: path[0].to_string(),
                requirement: requirement(path[0]),
                path: path.iter().map(|s| s.to_string()).collect(),
            })
            .collect(),
        truncated,
    };
    let version_of = |name: &str| {
        graph
            .get(name)
            .map(|p| format!("{} v{}", p.name, p.version))
            .unwrap_or_else(|| name.to_string())
    };
    Ok((
        report,
        why_lines(
            &paths,
            truncated,
            &version_of(name),
            &version_of,
            &requirement,
        ),
    ))
}

/// `why` as text: each path from its `dotpack.toml` line down.
fn why_lines(
    paths: &[Vec<&str>],
    truncated: bool,
    shown: &str,
    version_of: &dyn Fn(&str) -> String,
    requirement: &dyn Fn(&str) -> String,
) -> Vec<String> {
    if paths.is_empty() {
        return vec![format!(
            "{shown} is locked, but no dependency declared in dotpack.toml pulls it in (`dotpack lock` drops it)"
        )];
    }
    let mut lines = vec![format!("{shown} is required by:")];
    for path in paths {
        let mut line = format!("  dotpack.toml: {} = \"{}\"", path[0], requirement(path[0]));
        if path.len() > 1 {
            for step in path {
                line.push_str(&format!(" -> {}", version_of(step)));
            }
        }
        lines.push(line);
    }
    if truncated {
        lines.push(format!(
            "  ... and more paths (the first {} are shown)",
            graph::MAX_PATHS
        ));
    }
    lines
}
