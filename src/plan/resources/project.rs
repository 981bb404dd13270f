//! The resources of a project: its locked packages' (from their archives) and its own (from its
//! folder), wanted at every host the project installs into, planned against the lock's file
//! claims. What `ops::plan_hosts` adds to the servers' plan.

use anyhow::Result;
use semver::Version;

use super::disk::{paths_to_read, read_disk};
use super::plan::{PlanInput, PlanOutput, plan};
use super::want::{Want, desired_files};
use crate::model::hosts::Scope;
use crate::model::lock::Lockfile;
use crate::model::manifest::LoadedManifest;
use crate::model::resources::{FileClaim, Resource, load_all};
use crate::plan::targets::Layout;
use crate::plan::{LossyPolicy, Mode};
use crate::resolve::RegistrySet;

/// What to plan the project's resources from.
pub struct Request<'a> {
    pub manifest: &'a LoadedManifest,
    pub lock: &'a Lockfile,
    pub registries: &'a RegistrySet,
    /// The project's file claims (from its current `dotpack.lock`).
    pub claims: &'a [FileClaim],
    /// Every owner's user-scope file claims (from `$DOTPACK_HOME/claims.toml`).
    pub user_claims: &'a [FileClaim],
    /// The home folder user-scope resources go below.
    pub home: &'a std::path::Path,
    /// How this project names itself as an owner of user-scope files.
    pub owner: &'a str,
    /// The user-level manifest: every host at user scope.
    pub global: bool,
    pub force: bool,
    pub keep_edited: bool,
    pub lossy: &'a LossyPolicy,
    pub mode: &'a Mode,
    /// Plan only these scopes (rollback plans the user scope alone: the project's files come
    /// back by bytes).
    pub scopes: &'a [Scope],
    /// Files about to be written into the project: read from here instead of the disk.
    pub staged: &'a crate::model::resources::Files,
}

/// One package's resources.
struct Carried {
    package: String,
    version: Version,
    resources: Vec<Resource>,
    allow_lossy: Vec<String>,
}

/// Plans every resource file of the project.
pub fn plan_project(req: &Request<'_>) -> Result<PlanOutput> {
    let manifest = &req.manifest.manifest;
    let root = req.manifest.root();
    let mut carried = Vec::new();
    for locked in &req.lock.packages {
        // The lock lists each package's resources (from its index line): packages without any
        // are not read at all.
        if locked.resources.is_empty() {
            continue;
        }
        let Some(source) = req.registries.by_source(&locked.source) else {
            crate::bail_help!(
                help = format!(
                    "run `dotpack update {}` to pick it from the current registries",
                    locked.name
                ),
                "dotpack.lock pins {} {} from `{}`, which is not a configured registry",
                locked.name,
                locked.version,
                locked.source
            );
        };
        let (package, files) = crate::registry::package::load_locked_with_files(
            source,
            &locked.name,
            &locked.version,
            &locked.checksum,
        )?;
        let resources = load_all(&package, &files).map_err(|problems| {
            anyhow::anyhow!(
                "package `{}` {}: {}",
                locked.name,
                locked.version,
                problems
                    .into_iter()
                    .map(|(_, _, why)| why)
                    .collect::<Vec<_>>()
                    .join("; ")
            )
        })?;
        carried.push(Carried {
            package: locked.name.clone(),
            version: locked.version.clone(),
            resources,
            allow_lossy: manifest
                .dependencies
                .get(&locked.name)
                .map(|d| d.allow_lossy().to_vec())
                .unwrap_or_default(),
        });
    }
    if !manifest.resources().is_empty() {
        let files = own_files(root, manifest, req.staged).map_err(manifest_problems)?;
        let resources = load_all(manifest, &files).map_err(manifest_problems)?;
        carried.push(Carried {
            package: crate::plan::desired::LOCAL_PACKAGE.to_string(),
            version: manifest
                .package
                .as_ref()
                .map_or_else(|| Version::new(0, 0, 0), |p| p.version.clone()),
            resources,
            allow_lossy: manifest.own_allow_lossy().to_vec(),
        });
    }
    let mut out = PlanOutput::default();
    let layout = Layout::new(manifest, Some(req.lock), req.global)?;
    let mut wants = Vec::new();
    for c in &carried {
        for r in &c.resources {
            for (host, scope) in layout.places_of(&c.package, &r.name) {
                let scope = if req.global { Scope::User } else { scope };
                wants.push(Want {
                    host: host.id,
                    scope,
                    package: &c.package,
                    version: &c.version,
                    resource: r,
                    allow_lossy: &c.allow_lossy,
                });
            }
        }
    }
    // Only installing decides what is left out; the other modes keep what is there.
    let keep_all = LossyPolicy {
        bare: true,
        named: Default::default(),
    };
    let lossy = if matches!(req.mode, Mode::Sync) {
        req.lossy
    } else {
        &keep_all
    };
    for &scope in req.scopes {
        let (base, claims) = match scope {
            Scope::Project => (root, req.claims),
            Scope::User => (req.home, req.user_claims),
        };
        let wants: Vec<Want<'_>> = wants.iter().filter(|w| w.scope == scope).cloned().collect();
        let mut problems = Vec::new();
        let desired = desired_files(
            &wants,
            lossy,
            claims,
            &mut problems,
            &mut out.warnings,
            &mut out.allowed,
        );
        if let Some(problems) = crate::util::error::Error::all(problems) {
            return Err(problems.into());
        }
        let (files, folders) = paths_to_read(&desired, claims);
        let disk = read_disk(base, scope, &files, &folders)?;
        let planned = plan(&PlanInput {
            root: base,
            scope,
            owner: req.owner,
            desired: &desired,
            disk: &disk,
            claims,
            force: req.force,
            keep_edited: req.keep_edited,
            mode: req.mode,
        })
        .map_err(|problems| {
            anyhow::Error::from(crate::util::error::Error::all(problems).unwrap_or_default())
        })?;
        out.files.extend(planned.files);
        out.claims.extend(planned.claims);
        out.warnings.extend(planned.warnings);
    }
    if !matches!(req.mode, Mode::Sync) {
        // Nothing was chosen: the other modes keep whatever is there.
        out.allowed.clear();
    }
    Ok(out)
}

/// The files of the project's own resources: the staged ones, and the others read from `root`.
/// The problems found in the project's own resources, as one error naming dotpack.toml.
fn manifest_problems(
    problems: Vec<(crate::model::resources::Kind, String, String)>,
) -> anyhow::Error {
    let whys: Vec<String> = problems.into_iter().map(|(_, _, why)| why).collect();
    anyhow::anyhow!("dotpack.toml: {}", whys.join("; "))
}

fn own_files(
    root: &std::path::Path,
    manifest: &crate::model::manifest::Manifest,
    staged: &crate::model::resources::Files,
) -> Result<crate::model::resources::Files, Vec<(crate::model::resources::Kind, String, String)>> {
    if staged.is_empty() {
        return crate::model::resources::files_of_dir(root, manifest);
    }
    let is_staged = |path: &str| {
        let path = path.trim_end_matches('/');
        staged
            .keys()
            .any(|k| k == path || k.starts_with(&format!("{path}/")))
    };
    let mut on_disk = manifest.clone();
    for kind in crate::model::resources::Kind::ALL {
        on_disk
            .resources_of_mut(kind)
            .retain(|_, decl| !is_staged(&decl.path));
    }
    let mut files = crate::model::resources::files_of_dir(root, &on_disk)?;
    files.extend(staged.iter().map(|(k, v)| (k.clone(), v.clone())));
    Ok(files)
}
