//! The registries a project resolves from: the default one and those under `[registries]`.

use std::path::Path;

use anyhow::{Context, Result, bail};

use crate::model::manifest::{LoadedManifest, RegistryKind};
use crate::registry::{self, IndexSource};
use crate::resolve::{RegistrySet, RootDep};

use super::Settings;

/// What `--registry` names, read against the project's `[registries]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RegistryFlag {
    /// No `--registry`.
    None,
    /// A registry declared under `[registries]`.
    Named(String),
    /// A folder or an http(s) URL.
    Location(String),
}

/// How to read `--registry` for `manifest`: a declared name wins over a folder of that name.
pub fn registry_flag(settings: &Settings, manifest: Option<&LoadedManifest>) -> RegistryFlag {
    match &settings.registry_flag {
        None => RegistryFlag::None,
        Some(value)
            if manifest.is_some_and(|m| m.manifest.registries.contains_key(value.as_str())) =>
        {
            RegistryFlag::Named(value.clone())
        }
        Some(value) => RegistryFlag::Location(value.clone()),
    }
}

/// The default registry (built in; `--registry PATH|URL` or `DOTPACK_REGISTRY` replace it) and
/// the named `[registries]` of `manifest`.
pub fn registries(settings: &Settings, manifest: Option<&LoadedManifest>) -> Result<RegistrySet> {
    let default = match registry_flag(settings, manifest) {
        RegistryFlag::Location(location) => Some(location),
        _ => settings.registry_env.clone(),
    };
    registries_with_default(settings, manifest, default.as_deref())
}

/// [`registries`] with an explicit default location (`None`: the built-in registry).
pub fn registries_with_default(
    settings: &Settings,
    manifest: Option<&LoadedManifest>,
    default: Option<&str>,
) -> Result<RegistrySet> {
    // A registry URL the user gave (`--registry`, DOTPACK_REGISTRY) gets the user's own token.
    let default: Box<dyn IndexSource> = match default {
        Some(url) if registry::http::is_url(url) => Box::new(registry::open_url_with_auth(
            url,
            &settings.dotpack_home,
            settings.network(),
            super::tokens::users_own(settings, url)?,
        )?),
        other => registry::open(
            other.map(Path::new),
            &settings.dotpack_home,
            settings.network(),
        )?,
    };
    let mut set = RegistrySet::new(default);
    if let Some(loaded) = manifest {
        for (name, spec) in &loaded.manifest.registries {
            let source = open_named(settings, loaded, name, spec)?;
            set = set.with_named(name.clone(), source);
        }
    }
    Ok(set)
}

fn open_named(
    settings: &Settings,
    loaded: &LoadedManifest,
    name: &str,
    spec: &crate::model::manifest::RegistrySpec,
) -> Result<Box<dyn IndexSource>> {
    let kind = spec.kind.unwrap_or_default();
    match (&spec.path, &spec.url) {
        (None, Some(url)) if kind == RegistryKind::McpRegistry => {
            let auth = super::tokens::auth_for(settings, loaded, url, spec.token_env.as_deref())?;
            let source = registry::mcp::McpRegistry::open_with_auth(
                url,
                &settings.dotpack_home,
                settings.network(),
                auth,
            )
            .with_context(|| format!("registry `{name}` in [registries]"))?;
            // The registry's names are case-sensitive: ask with the spelling `add` recorded.
            for (dependency, spec) in &loaded.manifest.dependencies {
                if spec.registry() == Some(name)
                    && let Some(spelling) = spec.package()
                {
                    source.remember_spelling(dependency, spelling);
                }
            }
            Ok(Box::new(source))
        }
        (Some(_), None) if kind == RegistryKind::McpRegistry => bail!(
            "registry `{name}` in [registries] is an `mcp-registry`, which is an API: give its `url` (https://registry.modelcontextprotocol.io or a mirror), not a `path`"
        ),
        (Some(path), None) => {
            let full = loaded.root().join(path);
            check_folder(settings, loaded, name, &full)?;
            let source =
                registry::dir::DirIndex::open(&full, format!("registry+file:{}", path.display()))
                    .with_context(|| format!("registry `{name}` in [registries]"))?;
            Ok(Box::new(source))
        }
        (None, Some(url)) => {
            let auth = super::tokens::auth_for(settings, loaded, url, spec.token_env.as_deref())?;
            let source =
                registry::open_url_with_auth(url, &settings.dotpack_home, settings.network(), auth)
                    .with_context(|| format!("registry `{name}` in [registries]"))?;
            Ok(Box::new(source))
        }
        _ => bail!("registry `{name}` needs exactly one of `path` or `url` in [registries.{name}]"),
    }
}

/// A registry folder outside the project is read only with the user's consent: named with
/// `--registry` on this command line, approved for this project, or `--trust`. The user-level
/// manifest is the user's own.
fn check_folder(
    settings: &Settings,
    loaded: &LoadedManifest,
    name: &str,
    folder: &Path,
) -> Result<()> {
    let real = crate::util::fsutil::resolve(folder);
    if settings.trust
        || loaded.path == settings.global_manifest()
        || real.starts_with(crate::util::fsutil::resolve(loaded.root()))
    {
        return Ok(());
    }
    let given = settings
        .registry_flag
        .as_deref()
        .filter(|flag| !crate::registry::http::is_url(flag))
        .map(|flag| crate::util::fsutil::resolve(&settings.cwd.join(flag)));
    if given.as_ref() == Some(&real) {
        return Ok(());
    }
    let request = folder_request(&real);
    let owner = super::owner_id(loaded.root());
    if crate::ops::consent::Approvals::load(&settings.dotpack_home)?.covers(&owner, &request) {
        return Ok(());
    }
    Err(crate::ops::consent::refusal(
        &[&request],
        &format!("dotpack.toml (registry `{name}`)"),
        "Nothing was read from it.",
    ))
}

/// The request to read the registry folder `real` (symlinks resolved).
pub fn folder_request(real: &Path) -> crate::ops::consent::Request {
    let shown = real.display().to_string();
    crate::ops::consent::Request::new(
        crate::ops::consent::Kind::Folder,
        shown.clone(),
        crate::ops::consent::digest(&[&shown]),
        shown,
    )
}

/// The registry folders outside the project `manifest` declares, as requests.
pub fn folder_requests(manifest: &LoadedManifest) -> Vec<crate::ops::consent::Request> {
    let root = crate::util::fsutil::resolve(manifest.root());
    manifest
        .manifest
        .registries
        .values()
        .filter_map(|spec| spec.path.as_ref())
        .map(|path| crate::util::fsutil::resolve(&manifest.root().join(path)))
        .filter(|real| !real.starts_with(&root))
        .map(|real| folder_request(&real))
        .collect()
}

/// The root requirements of a manifest, in name order.
pub fn root_deps(manifest: &LoadedManifest) -> Vec<RootDep> {
    manifest
        .manifest
        .dependencies
        .iter()
        .map(|(name, spec)| RootDep {
            name: name.clone(),
            req: spec.req().clone(),
            registry: spec.registry().map(str::to_string),
        })
        .collect()
}
