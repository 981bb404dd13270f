//! The locked dependency graph, read both ways: what a package depends on (`tree`), what depends
//! on it (`tree --invert`), and every path from a declared dependency down to it (`why`).
//!
//! Built from `dotpack.lock` alone: each locked package names the locked packages it depends
//! on, and the roots are the requirements of `[dependencies]`. Names the lock does not hold are
//! left out, so a hand-edited lock cannot send a walk anywhere.

use std::collections::{BTreeMap, BTreeSet};

use crate::model::lock::{LockedPackage, Lockfile};

/// How many paths `why` lists before it says there are more: a dense graph has exponentially
/// many, and the first few already answer the question.
pub const MAX_PATHS: usize = 50;

pub struct Graph<'a> {
    packages: BTreeMap<&'a str, &'a LockedPackage>,
    roots: Vec<&'a str>,
    dependents: BTreeMap<&'a str, Vec<&'a str>>,
}

impl<'a> Graph<'a> {
    /// The graph of `lock`, rooted at the declared dependencies `roots` (those the lock holds,
    /// in name order).
    pub fn new<'r>(lock: &'a Lockfile, roots: impl IntoIterator<Item = &'r str>) -> Graph<'a> {
        let packages: BTreeMap<&str, &LockedPackage> =
            lock.packages.iter().map(|p| (p.name.as_str(), p)).collect();
        let mut roots: Vec<&str> = roots
            .into_iter()
            .filter_map(|name| packages.get_key_value(name).map(|(k, _)| *k))
            .collect();
        roots.sort_unstable();
        roots.dedup();
        let mut dependents: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
        for package in packages.values() {
            for dep in &package.dependencies {
                if let Some((name, _)) = packages.get_key_value(dep.as_str()) {
                    dependents
                        .entry(name)
                        .or_default()
                        .push(package.name.as_str());
                }
            }
        }
        for list in dependents.values_mut() {
            list.sort_unstable();
            list.dedup();
        }
        Graph {
            packages,
            roots,
            dependents,
        }
    }

    /// The declared dependencies that are locked, in name order.
    pub fn roots(&self) -> &[&'a str] {
        &self.roots
    }

    pub fn is_root(&self, name: &str) -> bool {
        self.roots.contains(&name)
    }

    pub fn get(&self, name: &str) -> Option<&'a LockedPackage> {
        self.packages.get(name).copied()
    }

    /// Every locked name, sorted (for "did you mean").
    pub fn names(&self) -> impl Iterator<Item = &'a str> + '_ {
        self.packages.keys().copied()
    }

    /// What `name` depends on, sorted; only locked packages.
    pub fn dependencies(&self, name: &str) -> Vec<&'a str> {
        let Some(package) = self.get(name) else {
            return Vec::new();
        };
        let mut deps: Vec<&str> = package
            .dependencies
            .iter()
            .filter_map(|d| self.packages.get_key_value(d.as_str()).map(|(k, _)| *k))
            .collect();
        deps.sort_unstable();
        deps.dedup();
        deps
    }

    /// What depends on `name`, sorted.
    pub fn dependents(&self, name: &str) -> Vec<&'a str> {
        self.dependents.get(name).cloned().unwrap_or_default()
    }

    /// Every path from a root down to `name` that visits no package twice, each listed root
    /// first, sorted; at most `limit` of them, and whether there were more. A root's own path is
    /// `[name]`.
    pub fn paths_to(&self, name: &str, limit: usize) -> (Vec<Vec<&'a str>>, bool) {
        let mut paths = Vec::new();
        let mut more = false;
        if let Some((start, _)) = self.packages.get_key_value(name) {
            let mut stack = vec![*start];
            self.walk_up(&mut stack, &mut paths, limit, &mut more);
        }
        for path in &mut paths {
            path.reverse();
        }
        paths.sort();
        (paths, more)
    }

    /// Depth-first from the end of `stack` towards the roots, recording each root reached.
    fn walk_up(
        &self,
        stack: &mut Vec<&'a str>,
        paths: &mut Vec<Vec<&'a str>>,
        limit: usize,
        more: &mut bool,
    ) {
        let Some(&here) = stack.last() else {
            return;
        };
        if self.is_root(here) {
            if paths.len() == limit {
                *more = true;
                return;
            }
            paths.push(stack.clone());
        }
        for parent in self.dependents(here) {
            if *more {
                return;
            }
            if stack.contains(&parent) {
                continue;
            }
            stack.push(parent);
            self.walk_up(stack, paths, limit, more);
            stack.pop();
        }
    }
}

/// One line of a drawn tree: how deep it is and the node it shows, and whether it repeats a
/// node already expanded above (`(*)`, its children not shown again).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TreeLine<'a> {
    pub prefix: String,
    pub depth: usize,
    pub name: &'a str,
    pub repeat: bool,
}

/// Lays out the trees under `roots` the way `cargo tree` does: `├──`/`└──` and `│` guides,
/// children from `children`, at most `max_depth` levels below the roots, and a node that was
/// already expanded shown once more as a repeat (with no children) when it has any. Cycles end
/// at the repeat.
pub fn layout<'a>(
    roots: &[&'a str],
    children: &dyn Fn(&str) -> Vec<&'a str>,
    max_depth: Option<usize>,
) -> Vec<TreeLine<'a>> {
    let mut lines = Vec::new();
    let mut expanded = BTreeSet::new();
    for root in roots {
        place(
            root,
            String::new(),
            String::new(),
            0,
            children,
            max_depth,
            &mut expanded,
            &mut lines,
        );
    }
    lines
}

#[allow(clippy::too_many_arguments)]
fn place<'a>(
    name: &'a str,
    prefix: String,
    guide: String,
    depth: usize,
    children: &dyn Fn(&str) -> Vec<&'a str>,
    max_depth: Option<usize>,
    expanded: &mut BTreeSet<&'a str>,
    lines: &mut Vec<TreeLine<'a>>,
) {
    let below = if max_depth.is_some_and(|max| depth >= max) {
        Vec::new()
    } else {
        children(name)
    };
    let repeat = !below.is_empty() && !expanded.insert(name);
    lines.push(TreeLine {
        prefix,
        depth,
        name,
        repeat,
    });
    if repeat {
        return;
    }
    let count = below.len();
    for (i, child) in below.into_iter().enumerate() {
        let last = i + 1 == count;
        let branch = if last { "└── " } else { "├── " };
        let next = if last { "    " } else { "│   " };
        place(
            child,
            format!("{guide}{branch}"),
            format!("{guide}{next}"),
            depth + 1,
            children,
            max_depth,
            expanded,
            lines,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn graph<'a>(lock: &'a Lockfile) -> Graph<'a> {
        Graph::new(lock, lock.requirements.keys().map(String::as_str))
    }

    fn lock(packages: &[(&str, &[&str])], roots: &[&str]) -> Lockfile {
        let mut lock = Lockfile::empty();
        for (name, deps) in packages {
            lock.packages.push(LockedPackage {
                name: name.to_string(),
                version: semver::Version::new(1, 0, 0),
                source: "registry+builtin".into(),
                checksum: String::new(),
                dependencies: deps.iter().map(|d| d.to_string()).collect(),
                servers: vec![name.to_string()],
                resources: vec![],
            });
        }
        for root in roots {
            lock.requirements.insert(root.to_string(), "^1".into());
        }
        lock
    }

    fn draw(lines: &[TreeLine<'_>]) -> String {
        lines
            .iter()
            .map(|l| {
                let star = if l.repeat { " (*)" } else { "" };
                format!("{}{}{star}\n", l.prefix, l.name)
            })
            .collect()
    }

    #[test]
    fn a_shared_dependency_is_expanded_once_and_marked_after() {
        let lock = lock(
            &[("a", &["b", "c"]), ("b", &["c"]), ("c", &["d"]), ("d", &[])],
            &["a"],
        );
        let graph = graph(&lock);
        let lines = layout(graph.roots(), &|n| graph.dependencies(n), None);
        assert_eq!(
            draw(&lines),
            "a\n├── b\n│   └── c\n│       └── d\n└── c (*)\n"
        );
    }

    #[test]
    fn depth_cuts_the_tree_without_marking_repeats() {
        let lock = lock(&[("a", &["b"]), ("b", &["c"]), ("c", &[])], &["a", "b"]);
        let graph = graph(&lock);
        let lines = layout(graph.roots(), &|n| graph.dependencies(n), Some(1));
        assert_eq!(draw(&lines), "a\n└── b\nb\n└── c\n");
    }

    #[test]
    fn a_cycle_ends_at_the_repeat() {
        let lock = lock(&[("a", &["b"]), ("b", &["a"])], &["a"]);
        let graph = graph(&lock);
        let lines = layout(graph.roots(), &|n| graph.dependencies(n), None);
        assert_eq!(draw(&lines), "a\n└── b\n    └── a (*)\n");
        let (paths, more) = graph.paths_to("b", MAX_PATHS);
        assert_eq!(paths, [vec!["a", "b"]]);
        assert!(!more);
    }

    #[test]
    fn paths_lead_from_every_root_that_pulls_a_package_in() {
        let lock = lock(
            &[("a", &["c"]), ("b", &["c", "d"]), ("c", &[]), ("d", &["c"])],
            &["a", "b", "c"],
        );
        let graph = graph(&lock);
        let (paths, more) = graph.paths_to("c", MAX_PATHS);
        assert_eq!(
            paths,
            [
                vec!["a", "c"],
                vec!["b", "c"],
                vec!["b", "d", "c"],
                vec!["c"]
            ]
        );
        assert!(!more);
        let (paths, more) = graph.paths_to("c", 2);
        assert_eq!(paths.len(), 2);
        assert!(more);
        assert_eq!(graph.dependents("c"), ["a", "b", "d"]);
        assert!(graph.paths_to("zzz", MAX_PATHS).0.is_empty());
    }

    #[test]
    fn names_the_lock_does_not_hold_are_left_out() {
        let lock = lock(&[("a", &["ghost"])], &["a", "missing"]);
        let graph = graph(&lock);
        assert_eq!(graph.roots(), ["a"]);
        assert!(graph.dependencies("a").is_empty());
    }
}
