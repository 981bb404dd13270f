//! Resolution: pubgrub over the registry index, one version per package name.
//!
//! One version per name is the model dotpack needs: a host config holds one entry per server
//! name, so two versions of one package could never be installed side by side.

pub(crate) mod graph;

mod prefetch;
mod provider;
pub(crate) mod ranges;
mod report;

use std::collections::BTreeMap;

use pubgrub::PubGrubError;
use semver::{Version, VersionReq};

use crate::model::lock::{LockedPackage, Lockfile};
use crate::registry::{IndexLine, IndexSource, RegistryError};
use crate::util::error::{Error, Fix};
use provider::{Pkg, Provider, root_version};

/// One requirement of the project's `[dependencies]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RootDep {
    pub name: String,
    pub req: VersionReq,
    /// A name under `[registries]`; the default registry when `None`.
    pub registry: Option<String>,
}

impl RootDep {
    pub fn new(name: impl Into<String>, req: VersionReq) -> Self {
        RootDep {
            name: name.into(),
            req,
            registry: None,
        }
    }
}

/// The registries a project can resolve from: the default one and those under `[registries]`.
pub struct RegistrySet {
    default: Box<dyn IndexSource>,
    named: BTreeMap<String, Box<dyn IndexSource>>,
}

impl RegistrySet {
    /// Only the default registry.
    pub fn new(default: Box<dyn IndexSource>) -> Self {
        RegistrySet {
            default,
            named: BTreeMap::new(),
        }
    }

    /// Adds the registry called `name` under `[registries]`.
    pub fn with_named(mut self, name: impl Into<String>, index: Box<dyn IndexSource>) -> Self {
        self.named.insert(name.into(), index);
        self
    }

    pub fn default_index(&self) -> &dyn IndexSource {
        self.default.as_ref()
    }

    /// Every registry: the default one, then the named ones in name order.
    pub fn all(&self) -> Vec<&dyn IndexSource> {
        std::iter::once(&self.default)
            .chain(self.named.values())
            .map(|b| b.as_ref())
            .collect()
    }

    /// The named registries with their names, in name order.
    pub fn named_all(&self) -> impl Iterator<Item = (&str, &dyn IndexSource)> {
        self.named.iter().map(|(n, b)| (n.as_str(), b.as_ref()))
    }

    /// The registry `registry`, or an error telling how to declare it (for package `package`).
    pub fn named(&self, registry: &str, package: &str) -> Result<&dyn IndexSource, ResolveError> {
        self.named
            .get(registry)
            .map(|b| b.as_ref())
            .ok_or_else(|| ResolveError::UnknownRegistry {
                registry: registry.to_string(),
                package: package.to_string(),
            })
    }

    /// The registry a dependency reads from: the named one when it names one, else the default.
    pub fn for_dependency(
        &self,
        registry: Option<&str>,
        package: &str,
    ) -> Result<&dyn IndexSource, ResolveError> {
        match registry {
            Some(registry) => self.named(registry, package),
            None => Ok(self.default.as_ref()),
        }
    }

    /// The registry whose `source_id` is `source` (as recorded in a resolution or a lock).
    pub fn by_source(&self, source: &str) -> Option<&dyn IndexSource> {
        std::iter::once(&self.default)
            .chain(self.named.values())
            .find(|index| index.source_id() == source)
            .map(|b| b.as_ref())
    }

    /// The `source_id` of the default registry (`None`) or of a named one.
    fn source_id(&self, registry: Option<&str>) -> &str {
        match registry.and_then(|r| self.named.get(r)) {
            Some(index) => index.source_id(),
            None => self.default.source_id(),
        }
    }

    fn index(&self, registry: Option<&str>) -> &dyn IndexSource {
        match registry.and_then(|r| self.named.get(r)) {
            Some(index) => index.as_ref(),
            None => self.default.as_ref(),
        }
    }
}

/// What the caller knows beyond the requirements.
#[derive(Clone, Debug, Default)]
pub struct ResolveOptions {
    /// Versions pinned by the existing `dotpack.lock`. Each is kept while it still satisfies
    /// every requirement, which keeps `dotpack lock` stable; `dotpack update NAME` removes NAME
    /// to let it move. A preferred version is chosen even when it has since been yanked.
    pub preferred: BTreeMap<String, Version>,
}

/// The chosen version of every package in the closure, sorted by name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Resolution {
    pub packages: Vec<ResolvedPackage>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResolvedPackage {
    pub line: IndexLine,
    /// The `source_id` of the registry it came from.
    pub source: String,
}

#[derive(Debug, thiserror::Error)]
pub enum ResolveError {
    #[error("{}", unknown_package(.name, .required_by.as_deref(), .suggestions))]
    UnknownPackage {
        name: String,
        required_by: Option<String>,
        suggestions: Vec<String>,
    },
    #[error("{}", self.error())]
    UnknownRegistry { registry: String, package: String },
    /// Why no versions fit, with the requirement to loosen.
    #[error("{explanation}")]
    NoSolution { explanation: Error },
    #[error(transparent)]
    Registry(#[from] RegistryError),
}

impl Fix for ResolveError {
    fn error(&self) -> Error {
        match self {
            ResolveError::UnknownPackage {
                name,
                required_by,
                suggestions,
            } => unknown_package(name, required_by.as_deref(), suggestions),
            ResolveError::UnknownRegistry { registry, package } => Error::new(format!(
                "`{package}` asks for registry `{registry}`, which is not declared"
            ))
            .help(format!(
                "add it under [registries] in dotpack.toml, e.g. `{registry} = {{ path = \"../index\" }}`"
            )),
            ResolveError::NoSolution { explanation } => explanation.clone(),
            ResolveError::Registry(e) => e.error(),
        }
    }
}

fn unknown_package(name: &str, required_by: Option<&str>, suggestions: &[String]) -> Error {
    let mut text = format!("no package named `{name}` in the registry");
    if let Some(by) = required_by {
        text.push_str(&format!(" (required by {by})"));
    }
    let help = match suggestions {
        [] => "run `dotpack search` to list available packages".to_string(),
        [one] => format!("did you mean `{one}`?"),
        many => format!(
            "did you mean one of: {}?",
            many.iter()
                .map(|s| format!("`{s}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    Error::new(text).help(help)
}

/// Picks one version of every package reachable from `root`: the preferred (locked) version when
/// it still fits, else the highest allowed, non-yanked version; pre-releases only where a
/// requirement names one. The same inputs always give the same resolution.
pub fn resolve(
    root: &[RootDep],
    registries: &RegistrySet,
    opts: &ResolveOptions,
) -> Result<Resolution, ResolveError> {
    resolve_counting(root, registries, opts).map(|(resolution, _)| resolution)
}

/// Like [`resolve`], also returning how many packages' index files were read: the cost of a
/// resolution, which depends on the closure, not on the registry's size.
pub fn resolve_counting(
    root: &[RootDep],
    registries: &RegistrySet,
    opts: &ResolveOptions,
) -> Result<(Resolution, usize), ResolveError> {
    if let Err(err) = prefetch::prefetch(registries, root) {
        return Err(with_suggestions(err, registries, root));
    }
    let provider = Provider::new(registries, root, &opts.preferred);
    match pubgrub::resolve(&provider, Pkg::Root, root_version()) {
        Ok(selected) => Ok((resolution(&provider, selected), provider.packages_reached())),
        Err(PubGrubError::NoSolution(tree)) => Err(ResolveError::NoSolution {
            explanation: report::explain(tree, &provider, root),
        }),
        Err(PubGrubError::ErrorRetrievingDependencies { source, .. })
        | Err(PubGrubError::ErrorChoosingVersion { source, .. })
        | Err(PubGrubError::ErrorInShouldCancel(source)) => {
            Err(with_suggestions(source, registries, root))
        }
    }
}

fn resolution(
    provider: &Provider<'_>,
    selected: pubgrub::SelectedDependencies<Pkg, Version>,
) -> Resolution {
    let mut packages: Vec<ResolvedPackage> = selected
        .into_iter()
        .filter_map(|(pkg, version)| match pkg {
            Pkg::Named(name) => {
                let known = provider.known(&name)?;
                let line = known.line(&version)?.clone();
                Some(ResolvedPackage {
                    line,
                    source: known.source.clone(),
                })
            }
            Pkg::Root => None,
        })
        .collect();
    packages.sort_by(|a, b| a.line.name.cmp(&b.line.name));
    Resolution { packages }
}

/// Fills "did you mean" for an unknown package; computed only on this error path, from what the
/// registry offers cheaply ([`crate::registry::IndexSource::suggestion_candidates`]).
fn with_suggestions(err: ResolveError, registries: &RegistrySet, root: &[RootDep]) -> ResolveError {
    match err {
        ResolveError::UnknownPackage {
            name, required_by, ..
        } => {
            let registry = root
                .iter()
                .find(|d| d.name == name)
                .and_then(|d| d.registry.as_deref());
            let names = registries
                .index(registry)
                .suggestion_candidates(&name)
                .unwrap_or_default();
            ResolveError::UnknownPackage {
                suggestions: close_names(&name, &names),
                name,
                required_by,
            }
        }
        other => other,
    }
}

/// Up to three names within a small edit distance of `name`, closest first.
fn close_names(name: &str, names: &[String]) -> Vec<String> {
    let limit = (name.chars().count() / 3).max(1);
    let mut close: Vec<(usize, &String)> = names
        .iter()
        .map(|n| (strsim::damerau_levenshtein(name, n), n))
        .filter(|(d, n)| *d <= limit || (name.len() >= 3 && n.contains(name)))
        .collect();
    close.sort();
    close.into_iter().take(3).map(|(_, n)| n.clone()).collect()
}

impl Resolution {
    /// The lockfile recording this resolution for the project `root`.
    pub fn to_lockfile(&self, root: &[RootDep]) -> Lockfile {
        Lockfile {
            version: crate::model::lock::LOCK_VERSION,
            requirements: root
                .iter()
                .map(|d| (d.name.clone(), d.req.to_string()))
                .collect(),
            packages: self.packages.iter().map(locked_package).collect(),
            claims: Vec::new(),
            files: Vec::new(),
            tools: BTreeMap::new(),
        }
    }

    pub fn get(&self, name: &str) -> Option<&ResolvedPackage> {
        self.packages
            .binary_search_by(|p| p.line.name.as_str().cmp(name))
            .ok()
            .map(|i| &self.packages[i])
    }
}

fn locked_package(p: &ResolvedPackage) -> LockedPackage {
    let mut dependencies: Vec<String> = p.line.deps.iter().map(|d| d.name.clone()).collect();
    dependencies.sort();
    dependencies.dedup();
    LockedPackage {
        name: p.line.name.clone(),
        version: p.line.vers.clone(),
        source: p.source.clone(),
        checksum: format!("sha256:{}", p.line.cksum),
        dependencies,
        servers: p.line.servers.clone(),
        resources: p.line.resources.clone(),
    }
}

#[cfg(test)]
mod tests;
