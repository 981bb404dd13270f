//! From a lock to host files: which files are targeted, which servers belong in them (with the
//! values of their inputs), and the plan that makes the files match.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

use crate::claims::{Claim, UserClaims};
use crate::cli::InstallArgs;
use crate::hosts::{self, HostEnv, Scope};
use crate::lock::{LockedPackage, Lockfile};
use crate::manifest::{DependencySpec, LoadedManifest, Manifest};
use crate::plan::{self, Desired, LossyPolicy, Mode, ParsedFile, Plan, PlanInput, Target};
use crate::resolve::RegistrySet;
use crate::template::Props;

/// The host side of a command's settings, decided once from flags and `dotpack.toml`.
#[derive(Clone, Debug)]
pub struct HostSettings {
    pub targets: Vec<Target>,
    pub scope: Scope,
    pub force: bool,
    pub lossy: LossyPolicy,
    pub dry_run: bool,
}

impl HostSettings {
    /// Reads `--host`, `--scope`, `--force`, `--allow-lossy` and `--dry-run`, falling back to
    /// `[project] hosts` and `scope`. No host at all gives no targets; the caller decides whether
    /// that is an error.
    pub fn new(args: &InstallArgs, manifest: &LoadedManifest, env: &HostEnv) -> Result<Self> {
        let project = manifest.manifest.project.clone().unwrap_or_default();
        let ids = if args.targets.hosts.is_empty() {
            project.hosts.clone()
        } else {
            args.targets.hosts.clone()
        };
        let scope = match (args.targets.scope, project.scope.as_deref()) {
            (Some(scope), _) => scope,
            (None, Some("user")) => Scope::User,
            _ => Scope::Project,
        };
        let targets = targets(&ids, scope, manifest.root(), env)?;
        let lossy = match &args.allow_lossy {
            None => LossyPolicy::default(),
            Some(names) if names.is_empty() => LossyPolicy {
                bare: true,
                named: BTreeSet::new(),
            },
            Some(names) => LossyPolicy {
                bare: false,
                named: names.iter().map(|n| n.trim().to_string()).collect(),
            },
        };
        Ok(HostSettings {
            targets,
            scope,
            force: args.force,
            lossy,
            dry_run: args.dry_run,
        })
    }
}

/// The target file of each host at `scope`, in the order given (duplicates dropped).
pub fn targets(ids: &[String], scope: Scope, root: &Path, env: &HostEnv) -> Result<Vec<Target>> {
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for id in ids {
        if !seen.insert(id.as_str()) {
            continue;
        }
        let Some(host) = hosts::adapter(id) else {
            let known: Vec<&str> = hosts::ADAPTERS.iter().map(|a| a.id).collect();
            let hint = match crate::suggest::closest(id, known.iter().copied()) {
                Some(close) => format!("did you mean `{close}`? "),
                None => String::new(),
            };
            bail!(
                "`{id}` is not a host dotpack can install into\n  help: {hint}hosts are: {}",
                known.join(", ")
            );
        };
        let Some(path) = host.path(scope, root, env) else {
            bail!(
                "{} has no {scope}-scope config file\n  help: use --scope {}",
                host.name(),
                other(scope)
            );
        };
        let claim_file = match scope {
            Scope::Project => path
                .strip_prefix(root)
                .map(|p| p.to_string_lossy().replace('\\', "/"))
                .unwrap_or_else(|_| path.display().to_string()),
            Scope::User => path.display().to_string(),
        };
        out.push(Target {
            host,
            scope,
            path,
            claim_file,
        });
    }
    Ok(out)
}

fn other(scope: Scope) -> &'static str {
    match scope {
        Scope::Project => "user",
        Scope::User => "project",
    }
}

/// Bump when translation writes different entries for the same package and inputs, so entries
/// written by an older dotpack are translated again instead of being taken as current.
const TRANSLATION_REVISION: u32 = 1;

/// The fingerprint of what, besides the package version, decides a package's entries: the inputs
/// set in `dotpack.toml` and the translation revision.
pub fn inputs_fingerprint(spec: Option<&DependencySpec>) -> String {
    let set = match spec {
        Some(DependencySpec::Detailed(d)) => d.set.clone(),
        _ => BTreeMap::new(),
    };
    crate::claims::entry_hash(&serde_json::json!({ "rev": TRANSLATION_REVISION, "set": set }))
}

/// Every server of every locked package, with its inputs' values: what `dependencies.NAME.set`
/// gives, else the input's default. Each package's manifest comes from its verified archive,
/// except where `is_current(package, inputs)` says every target already holds its entries as
/// claimed: then only the names are needed (from the lock), and the archive is not read.
pub fn desired(
    lock: &Lockfile,
    manifest: &Manifest,
    registries: &RegistrySet,
    is_current: impl Fn(&LockedPackage, &str) -> bool,
) -> Result<Vec<Desired>> {
    let mut out = Vec::new();
    for locked in &lock.packages {
        let spec = manifest.dependencies.get(&locked.name);
        let inputs = inputs_fingerprint(spec);
        let allow_lossy = match spec {
            Some(DependencySpec::Detailed(d)) => d.allow_lossy.clone(),
            _ => Vec::new(),
        };
        if is_current(locked, &inputs) {
            for server in &locked.servers {
                out.push(Desired {
                    server: server.clone(),
                    package: locked.name.clone(),
                    version: locked.version.clone(),
                    def: None,
                    props: Props::new(),
                    inputs: inputs.clone(),
                    allow_lossy: allow_lossy.clone(),
                });
            }
            continue;
        }
        let Some(source) = registries.by_source(&locked.source) else {
            bail!(
                "dotpack.lock pins {} {} from `{}`, which is not a configured registry\n  help: run `dotpack update {}` to pick it from the current registries",
                locked.name,
                locked.version,
                locked.source,
                locked.name
            );
        };
        check_locked_checksum(source, locked)?;
        let package = crate::registry::load_package(source, &locked.name, &locked.version)?;
        let props = props_for(&locked.name, &package, spec)?;
        for (server, def) in &package.servers {
            out.push(Desired {
                server: server.clone(),
                package: locked.name.clone(),
                version: locked.version.clone(),
                def: Some(def.clone()),
                props: props.clone(),
                inputs: inputs.clone(),
                allow_lossy: allow_lossy.clone(),
            });
        }
    }
    out.extend(local_servers(manifest, &out)?);
    Ok(out)
}

/// The package name claims record for servers declared in the project's own `dotpack.toml`.
pub const LOCAL_PACKAGE: &str = "dotpack.toml";

/// The project's own `[servers]`, with its own `[inputs]` at their defaults. A name that a
/// locked package also declares is an error: both would write the same entry.
fn local_servers(manifest: &Manifest, packaged: &[Desired]) -> Result<Vec<Desired>> {
    let mut out = Vec::new();
    if manifest.servers.is_empty() {
        return Ok(out);
    }
    let props = props_for(LOCAL_PACKAGE, manifest, None)?;
    let version = manifest
        .package
        .as_ref()
        .map_or_else(|| semver::Version::new(0, 0, 0), |p| p.version.clone());
    for (server, def) in &manifest.servers {
        if let Some(other) = packaged.iter().find(|d| &d.server == server) {
            bail!(
                "dotpack.toml declares a server named `{server}`, and so does package `{}`\n  help: rename the server in [servers.{server}], or remove `{}` from [dependencies]",
                other.package,
                other.package
            );
        }
        out.push(Desired {
            server: server.clone(),
            package: LOCAL_PACKAGE.to_string(),
            version: version.clone(),
            def: Some(def.clone()),
            props: props.clone(),
            inputs: inputs_fingerprint(None),
            allow_lossy: Vec::new(),
        });
    }
    Ok(out)
}

/// A lock pins an archive by checksum: the index must still agree, or the package changed after
/// it was locked.
fn check_locked_checksum(
    source: &dyn crate::registry::IndexSource,
    locked: &LockedPackage,
) -> Result<()> {
    let lines = source.versions(&locked.name)?;
    let line = lines
        .as_deref()
        .and_then(|l| l.iter().find(|l| l.vers == locked.version));
    match line {
        Some(line) if format!("sha256:{}", line.cksum) == locked.checksum => Ok(()),
        Some(line) => bail!(
            "{} {} in the registry has checksum sha256:{}, but dotpack.lock pins {}\n  help: the published package changed; if you trust the registry, run `dotpack update {}`",
            locked.name,
            locked.version,
            line.cksum,
            locked.checksum,
            locked.name
        ),
        None => bail!(
            "{} {} (pinned in dotpack.lock) is not in the registry {}\n  help: run `dotpack update {}`",
            locked.name,
            locked.version,
            source.source_id(),
            locked.name
        ),
    }
}

/// Input values of `name`: `set` from the dependency, else defaults. A required input without a
/// value is an error saying how to set it. Secret inputs come from the environment and are never
/// stored, so they are not asked for here.
fn props_for(name: &str, package: &Manifest, spec: Option<&DependencySpec>) -> Result<Props> {
    let set = match spec {
        Some(DependencySpec::Detailed(d)) => d.set.clone(),
        _ => BTreeMap::new(),
    };
    let mut props = Props::new();
    for (input, def) in &package.inputs {
        let value = set
            .get(input)
            .cloned()
            .or_else(|| def.default.as_ref().map(value_text));
        match value {
            Some(v) => {
                props.insert(input.clone(), v);
            }
            None if def.required && !def.secret => bail!(
                "package `{name}` needs a value for input `{input}`{}\n  help: dotpack add {name} --set {input}=VALUE",
                def.description
                    .as_deref()
                    .map(|d| format!(" ({d})"))
                    .unwrap_or_default()
            ),
            None => {}
        }
    }
    for key in set.keys() {
        if !package.inputs.contains_key(key) {
            bail!("dotpack.toml sets input `{key}` of `{name}`, but the package has no such input");
        }
    }
    Ok(props)
}

fn value_text(v: &toml::Value) -> String {
    match v {
        toml::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Where the claims of a scope live.
pub enum ClaimStore {
    /// In `dotpack.lock`.
    Project,
    /// In `$DOTPACK_HOME/claims.toml`.
    User(UserClaims),
}

/// What to plan: the lock whose packages belong in the targets, for the manifest's inputs.
pub struct PlanRequest<'a> {
    pub lock: &'a Lockfile,
    pub manifest: &'a Manifest,
    pub registries: &'a RegistrySet,
    /// Project-scope claims (from the current `dotpack.lock`).
    pub lock_claims: &'a [Claim],
    pub dotpack_home: &'a Path,
    pub project_root: &'a Path,
    pub mode: Mode,
}

/// Reads the claims of the targets' scope and the current bytes of every target, loads the
/// packages whose entries may change, and plans.
pub fn plan_targets(
    settings: &HostSettings,
    request: PlanRequest<'_>,
) -> Result<(Plan, ClaimStore)> {
    let store = match settings.scope {
        Scope::Project => ClaimStore::Project,
        Scope::User => ClaimStore::User(UserClaims::load(request.dotpack_home)?),
    };
    let claims: &[Claim] = match &store {
        ClaimStore::Project => request.lock_claims,
        ClaimStore::User(user) => &user.claims,
    };
    let files = read_targets(&settings.targets)?;
    let parsed = parse_targets(&settings.targets, &files);
    let sync = matches!(request.mode, Mode::Sync);
    let by_entry: BTreeMap<(&str, &str), &Claim> = claims
        .iter()
        .map(|c| ((c.file.as_str(), c.server.as_str()), c))
        .collect();
    let is_current = |locked: &LockedPackage, inputs: &str| {
        !sync
            || settings.targets.iter().all(|t| {
                let Some(file_entries) = parsed.get(&t.path).map(|p| &p.entries) else {
                    return false;
                };
                locked.servers.iter().all(|server| {
                    by_entry
                        .get(&(t.claim_file.as_str(), server.as_str()))
                        .is_some_and(|c| {
                            plan::is_current(
                                c,
                                &locked.name,
                                &locked.version,
                                inputs,
                                file_entries.get(server),
                            )
                        })
                })
            })
    };
    let desired = desired(
        request.lock,
        request.manifest,
        request.registries,
        is_current,
    )?;
    let input = PlanInput {
        targets: &settings.targets,
        desired: &desired,
        files: &files,
        parsed: &parsed,
        claims,
        project: Some(request.project_root.display().to_string()),
        force: settings.force,
        lossy: &settings.lossy,
        mode: request.mode,
    };
    let plan = plan::plan(&input)?;
    Ok((plan, store))
}

/// Each target file that parses, parsed once for its entries and its first edit (files that do
/// not are left out; planning reports them).
fn parse_targets<'f>(
    targets: &[Target],
    files: &'f BTreeMap<PathBuf, Option<String>>,
) -> BTreeMap<PathBuf, ParsedFile<'f>> {
    let mut out = BTreeMap::new();
    for t in targets {
        let text = files
            .get(&t.path)
            .and_then(Option::as_deref)
            .unwrap_or_default();
        if let Ok(parsed) = ParsedFile::parse(t, text) {
            out.insert(t.path.clone(), parsed);
        }
    }
    out
}

/// The current text of every target (`None` when absent). A folder where the file should be, or
/// a file that is not UTF-8, is an error naming it.
pub fn read_targets(targets: &[Target]) -> Result<BTreeMap<PathBuf, Option<String>>> {
    let mut files = BTreeMap::new();
    for t in targets {
        let text = match std::fs::read(&t.path) {
            Ok(bytes) => Some(String::from_utf8(bytes).ok().with_context(|| {
                format!(
                    "{} is not UTF-8 text; dotpack leaves it alone",
                    t.path.display()
                )
            })?),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) if t.path.is_dir() => bail!(
                "{} is a folder, but {} keeps its config in a file there ({e})\n  help: move the folder away, or leave {} out with --host",
                t.path.display(),
                t.host.name(),
                t.host.id
            ),
            Err(e) => bail!("cannot read {}: {e}", t.path.display()),
        };
        files.insert(t.path.clone(), text);
    }
    Ok(files)
}
