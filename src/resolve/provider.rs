//! The pubgrub [`DependencyProvider`] over dotpack registries.
//!
//! Index files are read lazily, the first time a package is reached, and cached by name, so
//! resolving costs what the dependency closure costs, not what the registry holds. The registry a
//! package comes from is fixed when it is first reached: the one a root requirement names, else
//! the registry of the package that first depends on it when that registry has it, else the
//! default registry.

use std::cell::RefCell;
use std::cmp::Reverse;
use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::rc::Rc;
use std::sync::Arc;

use pubgrub::{
    Dependencies, DependencyConstraints, DependencyProvider, PackageResolutionStatistics,
};
use semver::{Version, VersionReq};

use super::ranges::{VersionSet, exact_ranges};
use super::{RegistrySet, ResolveError, RootDep};
use crate::registry::IndexLine;

/// A package as pubgrub sees it: the project itself, or a registry package by name.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Pkg {
    Root,
    Named(String),
}

impl fmt::Display for Pkg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Pkg::Root => f.write_str(ROOT_LABEL),
            Pkg::Named(name) => f.write_str(name),
        }
    }
}

/// How the project appears in explanations.
pub const ROOT_LABEL: &str = "your dotpack.toml";

/// The version pubgrub gives the root package; it never appears in output.
pub fn root_version() -> Version {
    Version::new(0, 0, 0)
}

/// Every version of one package, as read from the registry it was found in.
pub struct Known {
    /// `None` for the default registry, else the name under `[registries]`.
    pub registry: Option<String>,
    pub source: String,
    pub lines: Arc<Vec<IndexLine>>,
    /// Indices into `lines`, highest version first.
    order: Vec<usize>,
}

impl Known {
    fn new(registry: Option<String>, source: String, lines: Arc<Vec<IndexLine>>) -> Self {
        let mut order: Vec<usize> = (0..lines.len()).collect();
        order.sort_by(|&a, &b| lines[b].vers.cmp(&lines[a].vers));
        Known {
            registry,
            source,
            lines,
            order,
        }
    }

    /// Lines from highest version to lowest.
    pub fn descending(&self) -> impl Iterator<Item = &IndexLine> {
        self.order.iter().map(|&i| &self.lines[i])
    }

    pub fn line(&self, version: &Version) -> Option<&IndexLine> {
        self.lines.iter().find(|l| &l.vers == version)
    }
}

/// One requirement the resolver met, kept to word explanations.
pub struct Edge {
    /// Who requires it: [`ROOT_LABEL`] or `name version`.
    pub from: String,
    pub name: String,
    pub req: VersionReq,
    pub ranges: VersionSet,
}

pub struct Provider<'a> {
    registries: &'a RegistrySet,
    root: &'a [RootDep],
    preferred: &'a BTreeMap<String, Version>,
    known: RefCell<HashMap<String, Rc<Known>>>,
    edges: RefCell<Vec<Edge>>,
}

impl<'a> Provider<'a> {
    pub fn new(
        registries: &'a RegistrySet,
        root: &'a [RootDep],
        preferred: &'a BTreeMap<String, Version>,
    ) -> Self {
        Provider {
            registries,
            root,
            preferred,
            known: RefCell::new(HashMap::new()),
            edges: RefCell::new(Vec::new()),
        }
    }

    pub fn known(&self, name: &str) -> Option<Rc<Known>> {
        self.known.borrow().get(name).cloned()
    }

    /// Number of packages whose index was read.
    pub fn packages_reached(&self) -> usize {
        self.known.borrow().len()
    }

    pub fn edges(&self) -> std::cell::Ref<'_, Vec<Edge>> {
        self.edges.borrow()
    }

    pub fn is_preferred(&self, name: &str, version: &Version) -> bool {
        self.preferred.get(name) == Some(version)
    }

    /// The versions of `name`, reading its index on first use. `explicit` is the registry a root
    /// requirement names; `via` is the registry of the package that depends on it.
    fn load(
        &self,
        name: &str,
        explicit: Option<&str>,
        via: Option<&str>,
        required_by: Option<&str>,
    ) -> Result<Rc<Known>, ResolveError> {
        if let Some(known) = self.known(name) {
            return Ok(known);
        }
        let (registry, lines) =
            self.find(name, explicit, via)?
                .ok_or_else(|| ResolveError::UnknownPackage {
                    name: name.to_string(),
                    required_by: required_by.map(str::to_string),
                    suggestions: Vec::new(),
                })?;
        let source = self.registries.source_id(registry.as_deref()).to_string();
        let known = Rc::new(Known::new(registry, source, lines));
        self.known
            .borrow_mut()
            .insert(name.to_string(), Rc::clone(&known));
        Ok(known)
    }

    fn find(&self, name: &str, explicit: Option<&str>, via: Option<&str>) -> Found {
        find(self.registries, name, explicit, via)
    }
}

/// What looking a package up gives: the registry it was found in (`None`: the default one) and
/// its lines, or `None` when no registry has it.
pub(super) type Found = Result<Option<(Option<String>, Arc<Vec<IndexLine>>)>, ResolveError>;

/// The versions of `name`: from the registry a root requirement names (`explicit`), else from
/// the registry of the package that depends on it (`via`) when it has it, else from the default
/// registry.
pub(super) fn find(
    registries: &RegistrySet,
    name: &str,
    explicit: Option<&str>,
    via: Option<&str>,
) -> Found {
    if let Some(registry) = explicit {
        let index = registries.named(registry, name)?;
        return Ok(index
            .versions(name)?
            .map(|l| (Some(registry.to_string()), l)));
    }
    if let Some(registry) = via {
        let index = registries.named(registry, name)?;
        if let Some(lines) = index.versions(name)? {
            return Ok(Some((Some(registry.to_string()), lines)));
        }
    }
    Ok(registries
        .default_index()
        .versions(name)?
        .map(|l| (None, l)))
}

impl<'a> Provider<'a> {
    /// Records the edge and returns its version set over the versions the registry has.
    fn constraint(
        &self,
        from: &str,
        name: &str,
        req: &VersionReq,
        known: &Known,
    ) -> (Pkg, VersionSet) {
        let ranges = exact_ranges(req, known.lines.iter().map(|l| &l.vers));
        self.edges.borrow_mut().push(Edge {
            from: from.to_string(),
            name: name.to_string(),
            req: req.clone(),
            ranges: ranges.clone(),
        });
        (Pkg::Named(name.to_string()), ranges)
    }

    fn root_dependencies(&self) -> Result<DependencyConstraints<Pkg, VersionSet>, ResolveError> {
        let mut sorted: Vec<&RootDep> = self.root.iter().collect();
        sorted.sort_by(|a, b| a.name.cmp(&b.name));
        sorted
            .into_iter()
            .map(|dep| {
                let known = self.load(&dep.name, dep.registry.as_deref(), None, None)?;
                Ok(self.constraint(super::provider::ROOT_LABEL, &dep.name, &dep.req, &known))
            })
            .collect()
    }

    fn package_dependencies(
        &self,
        name: &str,
        version: &Version,
    ) -> Result<Option<DependencyConstraints<Pkg, VersionSet>>, ResolveError> {
        let Some(parent) = self.known(name) else {
            return Ok(None);
        };
        let Some(line) = parent.line(version) else {
            return Ok(None);
        };
        let from = format!("{name} {version}");
        merged_deps(line)
            .into_iter()
            .map(|(dep, req)| {
                let known = self.load(&dep, None, parent.registry.as_deref(), Some(&from))?;
                Ok(self.constraint(&from, &dep, &req, &known))
            })
            .collect::<Result<_, _>>()
            .map(Some)
    }

    fn candidates<'k>(
        &'k self,
        name: &'k str,
        known: &'k Known,
        range: &'k VersionSet,
    ) -> impl Iterator<Item = &'k IndexLine> + 'k {
        known
            .descending()
            .filter(move |l| range.contains(&l.vers))
            .filter(move |l| !l.yanked || self.is_preferred(name, &l.vers))
    }
}

/// The dependencies of `line` by name, sorted; repeated names are combined into one
/// requirement that must satisfy all of them.
fn merged_deps(line: &IndexLine) -> BTreeMap<String, VersionReq> {
    let mut merged: BTreeMap<String, VersionReq> = BTreeMap::new();
    for dep in &line.deps {
        merged
            .entry(dep.name.clone())
            .and_modify(|req| req.comparators.extend(dep.req.comparators.iter().cloned()))
            .or_insert_with(|| dep.req.clone());
    }
    merged
}

impl DependencyProvider for Provider<'_> {
    type P = Pkg;
    type V = Version;
    type VS = VersionSet;
    type M = String;
    type Priority = (u32, Reverse<usize>);
    type Err = ResolveError;

    /// Packages in conflicts first, then those with the fewest candidates: they are the most
    /// constrained, so deciding them early finds dead ends sooner.
    fn prioritize(
        &self,
        package: &Pkg,
        range: &VersionSet,
        stats: &PackageResolutionStatistics,
    ) -> Self::Priority {
        let Pkg::Named(name) = package else {
            return (u32::MAX, Reverse(0));
        };
        let count = self
            .known(name)
            .map_or(0, |k| self.candidates(name, &k, range).count());
        if count == 0 {
            return (u32::MAX, Reverse(0));
        }
        (stats.conflict_count(), Reverse(count))
    }

    /// The locked version when it is still allowed (even if since yanked), else the highest
    /// allowed version that is not yanked.
    fn choose_version(
        &self,
        package: &Pkg,
        range: &VersionSet,
    ) -> Result<Option<Version>, Self::Err> {
        let Pkg::Named(name) = package else {
            return Ok(Some(root_version()));
        };
        let Some(known) = self.known(name) else {
            return Ok(None);
        };
        if let Some(locked) = self.preferred.get(name)
            && range.contains(locked)
            && known.line(locked).is_some()
        {
            return Ok(Some(locked.clone()));
        }
        Ok(self
            .candidates(name, &known, range)
            .next()
            .map(|l| l.vers.clone()))
    }

    fn get_dependencies(
        &self,
        package: &Pkg,
        version: &Version,
    ) -> Result<Dependencies<Pkg, VersionSet, String>, Self::Err> {
        let deps = match package {
            Pkg::Root => Some(self.root_dependencies()?),
            Pkg::Named(name) => self.package_dependencies(name, version)?,
        };
        Ok(match deps {
            Some(deps) => Dependencies::Available(deps),
            None => Dependencies::Unavailable("is not in the registry".to_string()),
        })
    }
}
