//! `dotpack add NAME[@REQ]...`: add packages to dotpack.toml (edited in place), lock them and
//! install them into the target hosts.
//!
//! Without a requirement, the newest stable version decides it: `figma` 0.3.1 is written as
//! `figma = "^0.3"`, as `cargo add` and `uv add` do. What the command line says that must hold
//! next time is recorded in dotpack.toml too: hosts given with `--host`, the registry given with
//! `--registry`, the scope given with `--scope`. Nothing is written unless everything succeeds.

use std::collections::BTreeMap;

use anyhow::{Result, bail};
use semver::{Version, VersionReq};

use crate::cli::AddArgs;
use crate::commands::UsageError;
use crate::commands::declare::{self, Edits};
use crate::hosts::Scope;
use crate::lock::Lockfile;
use crate::manifest;
use crate::ops::{self, Project, RegistryFlag, Relock, Settings};
use crate::output::Printer;
use crate::project::ManifestEditor;
use crate::registry::{ArchiveKind, IndexLine, IndexSource, Refusal};
use crate::resolve::RegistrySet;

pub fn run(settings: &Settings, args: AddArgs, printer: &Printer) -> Result<()> {
    let options = crate::ops::InstallOptions {
        resolve_env: args.resolve.resolve_env,
        ..args.install.options()?
    };
    let inputs = parse_inputs(&args.set)?;
    if !inputs.is_empty() && args.packages.len() != 1 {
        return Err(UsageError(
            "--set needs exactly one package: `dotpack add NAME --set KEY=VALUE`".into(),
        )
        .into());
    }
    if settings.global && options.scope == Some(Scope::Project) {
        return Err(UsageError(
            "--global installs into your user-scope files; --scope project does not apply".into(),
        )
        .into());
    }
    let project = Project::load_or_create(settings, printer, settings.global)?;
    let file = declare::manifest_name(&project.manifest, settings.global);
    let mut editor = ManifestEditor::parse(&project.manifest.path, &project.manifest.text)?;
    let mut edits = Edits::new();
    // A registry named with --registry is recorded on the added packages.
    let registry = match ops::registry_flag(settings, Some(&project.manifest)) {
        RegistryFlag::None => None,
        RegistryFlag::Named(name) => Some(name),
        RegistryFlag::Location(location) => Some(declare::declare_registry(
            &mut editor,
            &project.manifest,
            &settings.cwd,
            &location,
            &mut edits,
        )?),
    };
    let with_registry = manifest::parse(&project.manifest.path, editor.render())?;
    let registries = ops::registries_with_default(
        settings,
        Some(&with_registry),
        settings.registry_env.as_deref(),
    )?;
    let scope = added_scope(&project, options.scope);
    let mut added = Vec::new();
    // The added packages whose registry the user chose (the default one, or `--registry`),
    // not one the manifest already tied the name to.
    let mut from_chosen_registry = Vec::new();
    for spec in &args.packages {
        let (name, req) = parse_spec(spec)?;
        let existing = project.manifest.manifest.dependencies.get(&name);
        let mut dep_registry = registry
            .clone()
            .or_else(|| existing.and_then(|d| d.registry()).map(str::to_string));
        let chosen = match &dep_registry {
            None => mcp_registry_for(&registries, &name)?,
            Some(_) => None,
        };
        if chosen.is_some() {
            dep_registry = chosen.clone();
        }
        if registry.is_some() || dep_registry.is_none() {
            from_chosen_registry.push(name.clone());
        }
        let source = registries.for_dependency(dep_registry.as_deref(), &name)?;
        let Some(versions) = source.versions(&name)? else {
            bail!("{}", unknown_package(&name, source)?);
        };
        if !versions.iter().any(|l| !l.yanked) {
            let refused = source.refused(&name);
            if !refused.is_empty() {
                bail!("{}", refused_message(&name, source, &refused));
            }
        }
        let req = match (req, existing) {
            (Some(req), _) => {
                check_satisfiable(&name, &req, &versions)?;
                req
            }
            (None, Some(dep)) => {
                printer.note(format!(
                    "`{name}` is already in {file} as \"{}\"",
                    dep.req()
                ));
                dep.req().to_string()
            }
            (None, None) => default_requirement(&name, &versions)?,
        };
        editor.set_dependency(&name, &req)?;
        if let Some(r) = registry.as_ref().or(chosen.as_ref()) {
            editor.set_dependency_key(&name, "registry", Some(r))?;
        }
        if let Some(s) = scope {
            editor.set_dependency_key(&name, "scope", s.map(|s| s.to_string()).as_deref())?;
        }
        match existing {
            None => edits.push(("Adding".to_string(), format!("{name} \"{req}\" to {file}"))),
            Some(dep) if dep.req().to_string() != req => edits.push((
                "Updating".to_string(),
                format!("{name} to \"{req}\" in {file}"),
            )),
            Some(_) => {}
        }
        added.push(name);
    }
    declare::declare_hosts(
        &mut editor,
        &project.manifest,
        &options.hosts,
        None,
        settings.global,
        &mut edits,
    )?;
    let text = editor.render();
    let updated = project.manifest.with_text(&text)?;
    let dry_run = options.dry_run;
    let relock = Relock {
        manifest_text: Some(text),
        options,
        edits,
        ..Relock::sync(&project, updated)
    };
    let needed = ops::relock_and_apply(
        settings,
        printer,
        &project,
        Some(registries),
        relock,
        |registries, lock, relock| {
            // Inputs are typed by the version the lock picked, then recorded.
            if let Some(name) = added.first()
                && !inputs.is_empty()
            {
                let previous = project
                    .manifest
                    .manifest
                    .dependencies
                    .get(name)
                    .and_then(|d| d.set());
                let typed = typed_inputs(registries, lock, name, &inputs, previous)?;
                editor.set_inputs(name, &typed)?;
                let text = editor.render();
                let updated = project.manifest.with_text(&text)?.into_owned();
                relock.manifest = std::borrow::Cow::Owned(updated);
                relock.manifest_text = Some(text);
            }
            check_inputs(registries, &relock.manifest, lock, &added)?;
            // What the user names is their choice; with `--scope user` they also chose the user
            // scope for it (and what it pulls in), whatever the manifest held before.
            relock.options.grant.named = ops::with_dependencies(&added, lock);
            if relock.options.scope == Some(Scope::User) {
                relock.options.grant.scope_user =
                    ops::with_dependencies(&from_chosen_registry, lock);
            }
            Ok(ops::environment_needed(
                registries,
                &relock.manifest,
                lock,
                &added,
            ))
        },
    )?;
    if !dry_run {
        // A registry folder given with --registry is the user's choice, now in dotpack.toml.
        if let RegistryFlag::Location(location) =
            ops::registry_flag(settings, Some(&project.manifest))
            && !crate::registry::http::is_url(&location)
            && !project.global
        {
            let real = crate::fsutil::resolve(&settings.cwd.join(&location));
            if !real.starts_with(crate::fsutil::resolve(project.root())) {
                ops::record_one(settings, &project.owner, ops::folder_request(&real))?;
            }
        }
        ops::print_environment_needed(printer, &needed);
    }
    Ok(())
}

/// What `--scope` records on the added packages: `Some(Some(s))` sets `scope = s`;
/// `Some(None)`, for the project's own scope, takes a `scope` the package had out (it goes
/// where the project's packages go); `None` (no `--scope`) leaves it as it is.
fn added_scope(project: &Project, scope: Option<Scope>) -> Option<Option<Scope>> {
    if project.global {
        return None;
    }
    let project_scope = project
        .manifest
        .manifest
        .project
        .as_ref()
        .and_then(|p| p.scope)
        .unwrap_or(Scope::Project);
    scope.map(|s| (s != project_scope).then_some(s))
}

/// Splits `NAME[@REQ]`, checking the name's characters and the requirement's syntax. Names are
/// lowercase, as the registry's are.
fn parse_spec(spec: &str) -> Result<(String, Option<String>)> {
    let (name, req) = match spec.split_once('@') {
        Some((name, req)) => (name, Some(req.trim())),
        None => (spec, None),
    };
    if !crate::validate::is_valid_package_name(name) {
        return Err(UsageError(format!(
            "`{name}` is not a valid package name: use letters, digits, `-` and `_`, starting with a letter or digit, or an MCP Registry name such as `io.github.user/weather`"
        ))
        .into());
    }
    let name = declare::package_name(name);
    if let Some(req) = req
        && let Err(e) = VersionReq::parse(req)
    {
        return Err(UsageError(format!(
            "`{req}` in `{spec}` is not a version requirement ({e})\n  help: write e.g. `{name}@^1.2`, `{name}@~1.2.3`, `{name}@=1.0.0` or `{name}@'>=1, <2'`"
        ))
        .into());
    }
    Ok((name, req.map(str::to_string)))
}

/// A requirement no published version satisfies is an error listing the versions that exist.
fn check_satisfiable(name: &str, req: &str, versions: &[IndexLine]) -> Result<()> {
    let Ok(parsed) = VersionReq::parse(req) else {
        return Ok(());
    };
    if versions
        .iter()
        .any(|l| !l.yanked && parsed.matches(&l.vers))
    {
        return Ok(());
    }
    let why = if versions.iter().any(|l| parsed.matches(&l.vers)) {
        "matches only yanked versions"
    } else {
        "matches no published version"
    };
    bail!(
        "`{name}@{req}` {why}\n  help: versions: {}",
        crate::commands::info::versions_list(versions)
    )
}

/// `^MAJOR.MINOR` of the newest stable, non-yanked version (`^0.0.PATCH` below 0.1).
fn default_requirement(name: &str, versions: &[IndexLine]) -> Result<String> {
    let newest: Option<&Version> = versions
        .iter()
        .filter(|l| !l.yanked && l.vers.pre.is_empty())
        .map(|l| &l.vers)
        .max();
    let Some(v) = newest else {
        bail!(
            "package `{name}` has no stable, unyanked version\n  help: name a version explicitly, e.g. `dotpack add {name}@={}`",
            versions
                .iter()
                .map(|l| &l.vers)
                .max()
                .map_or("VERSION".to_string(), ToString::to_string)
        );
    };
    Ok(if v.major == 0 && v.minor == 0 {
        format!("^0.0.{}", v.patch)
    } else {
        format!("^{}.{}", v.major, v.minor)
    })
}

/// For an MCP Registry name (`io.github.user/weather`) that names no registry: the first
/// `kind = "mcp-registry"` registry under `[registries]`, which `add` then records on the
/// dependency. No such registry is an error saying how to declare one.
fn mcp_registry_for(registries: &RegistrySet, name: &str) -> Result<Option<String>> {
    if !crate::registry::mcp::is_registry_name(name) {
        return Ok(None);
    }
    let found = registries
        .named_all()
        .find(|(_, source)| source.archive_kind() == ArchiveKind::ServerJson)
        .map(|(registry, _)| registry.to_string());
    if found.is_none() {
        bail!(
            "`{name}` is an MCP Registry name, and no registry under [registries] is an MCP registry\n  help: add to dotpack.toml\n\n    [registries]\n    mcp = {{ url = \"{}\", kind = \"mcp-registry\" }}\n",
            crate::registry::mcp::OFFICIAL_URL
        );
    }
    Ok(found)
}

/// The error for a package whose every version the registry lists is one dotpack refuses.
pub fn refused_message(name: &str, source: &dyn IndexSource, refused: &[Refusal]) -> String {
    let reasons: Vec<String> = refused
        .iter()
        .map(|r| format!("  {name} {}: {}", r.version, r.reason))
        .collect();
    format!(
        "`{name}` cannot be installed from the registry {}: dotpack installs nothing it cannot map without loss\n{}",
        source.source_id(),
        reasons.join("\n")
    )
}

/// The error for a package the registry does not have, with close names when there are some.
pub fn unknown_package(name: &str, source: &dyn IndexSource) -> Result<String> {
    // A registry that searches itself is asked about the name's namespace (`io.github.user`
    // of `io.github.user/weathr`) instead of listed whole.
    let word = name.split('/').next().unwrap_or(name);
    let names = match source.search(word) {
        Ok(Some(found)) => found.into_iter().map(|f| f.name).collect(),
        Ok(None) => source.names()?,
        // Suggestions are a courtesy: offline or failing, the error stays the same.
        Err(_) => Vec::new(),
    };
    let close = crate::suggest::close_names(name, names.iter().map(String::as_str), 3);
    let help = if close.is_empty() {
        "search the registry with `dotpack search WORDS`".to_string()
    } else {
        format!(
            "did you mean {}?",
            close
                .iter()
                .map(|c| format!("`{c}`"))
                .collect::<Vec<_>>()
                .join(", ")
        )
    };
    Ok(format!(
        "package `{name}` was not found in the registry {}\n  help: {help}",
        source.source_id()
    ))
}

/// One `--set`: `KEY=VALUE` replaces, `KEY+=VALUE` appends to a list input.
pub struct SetArg {
    pub key: String,
    pub value: String,
    pub append: bool,
}

fn parse_inputs(sets: &[String]) -> Result<Vec<SetArg>> {
    sets.iter()
        .map(|s| match s.split_once('=') {
            Some((k, v)) if !k.trim().trim_end_matches('+').trim().is_empty() => {
                let k = k.trim();
                Ok(SetArg {
                    key: k.trim_end_matches('+').trim().to_string(),
                    value: v.to_string(),
                    append: k.ends_with('+'),
                })
            }
            _ => Err(UsageError(format!(
                "--set `{s}` must look like KEY=VALUE (or KEY+=VALUE to add to a list)"
            ))
            .into()),
        })
        .collect()
}

/// The values `--set` gives the inputs of package `name`, typed as its inputs are: a `--set`
/// must name an input the package declares, never a secret one, and give a value that keeps
/// the input's rules. `KEY+=VALUE` appends to what `previous` (the dependency's `set`) or an
/// earlier `--set` holds.
fn typed_inputs(
    registries: &crate::resolve::RegistrySet,
    lock: &Lockfile,
    name: &str,
    inputs: &[SetArg],
    previous: Option<&BTreeMap<String, toml::Value>>,
) -> Result<Vec<(String, toml::Value)>> {
    let Some(locked) = lock.get(name) else {
        return Ok(Vec::new());
    };
    let Some(source) = registries.by_source(&locked.source) else {
        return Ok(Vec::new());
    };
    let package = crate::registry::load_package(source, name, &locked.version)?;
    let mut values: BTreeMap<String, toml::Value> = BTreeMap::new();
    for arg in inputs {
        let key = arg.key.as_str();
        let Some(input) = package.inputs.get(key) else {
            let declared: Vec<&str> = package.inputs.keys().map(String::as_str).collect();
            let help = if declared.is_empty() {
                format!("{name} declares no inputs")
            } else {
                format!("{name} declares: {}", declared.join(", "))
            };
            return Err(UsageError(format!(
                "package `{name}` has no input `{key}`\n  help: {help}"
            ))
            .into());
        };
        if input.secret {
            return Err(UsageError(crate::install::secret_input_error(
                name,
                key,
                &package,
                "--set gives",
            ))
            .into());
        }
        let bad = |why: String| UsageError(crate::install::input_value_error(name, key, &why));
        let ty = crate::inputs::type_of(input);
        let value = if arg.append {
            if ty != crate::inputs::InputType::Array {
                return Err(bad(format!(
                    "`{key}+=` adds to a list, but `{key}` is {}: write `--set {key}=VALUE`",
                    ty.name()
                ))
                .into());
            }
            let mut list = match values
                .get(key)
                .cloned()
                .or_else(|| previous.and_then(|p| p.get(key)).cloned())
                .map(|v| crate::inputs::coerce(input, &v))
                .transpose()
                .map_err(bad)?
            {
                Some(toml::Value::Array(items)) => items,
                _ => Vec::new(),
            };
            let added = crate::inputs::coerce(input, &toml::Value::String(arg.value.clone()))
                .map_err(bad)?;
            if let toml::Value::Array(items) = added {
                list.extend(items);
            }
            toml::Value::Array(list)
        } else {
            crate::inputs::coerce(input, &toml::Value::String(arg.value.clone())).map_err(bad)?
        };
        let broken = crate::inputs::check(input, &value);
        if !broken.is_empty() {
            return Err(bad(broken.join("; ")).into());
        }
        values.insert(key.to_string(), value);
    }
    Ok(values.into_iter().collect())
}

/// Every required input of every added package that is not a secret must have a value, and
/// every value must keep its input's rules.
fn check_inputs(
    registries: &crate::resolve::RegistrySet,
    manifest: &crate::manifest::LoadedManifest,
    lock: &Lockfile,
    added: &[String],
) -> Result<()> {
    let mut problems = Vec::new();
    for name in added {
        let Some(locked) = lock.get(name) else {
            continue;
        };
        let Some(source) = registries.by_source(&locked.source) else {
            continue;
        };
        let package = crate::registry::load_package(source, name, &locked.version)?;
        let spec = manifest.manifest.dependencies.get(name);
        if let Err(mut more) = crate::install::props_for(name, &package, spec) {
            problems.append(&mut more);
        }
    }
    if !problems.is_empty() {
        bail!("{}", problems.join("\n"));
    }
    Ok(())
}
