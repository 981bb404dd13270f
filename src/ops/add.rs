//! `dotpack add`: each package's registry and requirement written into dotpack.toml, then one
//! re-lock-and-apply. What the command line says that must hold next time is recorded too:
//! hosts given with `--host`, the registry given with `--registry`, the scope given with
//! `--scope`. Nothing is written unless everything succeeds.

use anyhow::{Result, bail};
use semver::VersionReq;

use crate::model::hosts::Scope;
use crate::model::lock::Lockfile;
use crate::model::manifest;
use crate::model::manifest_edit::ManifestEditor;
use crate::registry::IndexLine;
use crate::resolve::RegistrySet;
use crate::ui::printer::Printer;

use super::add_inputs::{SetArg, ask_missing, check_inputs, typed_inputs};
use super::declare::{self, Edits};
use super::packages::{mcp_registries, refused_message, unknown_package, versions_list};
use super::{InstallOptions, Project, RegistryFlag, Relock, Settings};

/// What `dotpack add` was asked: the packages as given (`NAME[@REQ]`), the `--set` values (for
/// one package) and the install flags.
pub struct AddOptions {
    pub packages: Vec<String>,
    pub inputs: Vec<SetArg>,
    /// `--as ENTRY`: the host entry name of the (one) package's server.
    pub entry: Option<String>,
    /// `--launcher`: the added packages' servers start through `dotpack run`.
    pub launcher: bool,
    pub install: InstallOptions,
}

/// Adds `options.packages` to the project's manifest, locks and installs them. Returns the
/// environment variables the added packages read that are not set here, for the caller to say.
pub fn add(
    settings: &Settings,
    printer: &Printer,
    project: &Project,
    options: AddOptions,
) -> Result<Vec<(String, String)>> {
    let AddOptions {
        packages,
        mut inputs,
        entry,
        launcher,
        install,
    } = options;
    let mut editor = ManifestEditor::parse(&project.manifest.path, &project.manifest.text)?;
    let mut edits = Edits::new();
    let registry = flag_registry(settings, project, &mut editor, &mut edits)?;
    let with_registry = manifest::parse(&project.manifest.path, editor.render())?;
    let registries = super::registries_with_default(
        settings,
        Some(&with_registry),
        settings.registry_env.as_deref(),
    )?;
    let requested = Requested {
        project,
        registries: &registries,
        registry,
        scope: added_scope(project, install.scope),
        file: declare::manifest_name(&project.manifest, settings.global),
        entry,
        launcher,
        printer,
    };
    let (added, from_chosen_registry) = requested.add_all(&packages, &mut editor, &mut edits)?;
    let hosts = &install.hosts;
    declare::declare_hosts(
        &mut editor,
        &project.manifest,
        hosts,
        None,
        settings.global,
        &mut edits,
    )?;
    let text = editor.render();
    let updated = project.manifest.with_text(&text)?;
    let dry_run = install.dry_run;
    let relock = Relock {
        manifest_text: Some(text),
        options: install,
        edits,
        ..Relock::sync(project, updated)
    };
    let needed = super::relock_and_apply(
        settings,
        printer,
        project,
        Some(registries),
        relock,
        |r, lock, relock| {
            let given = given_inputs(printer, r, &relock.manifest, lock, &added, &mut inputs)?;
            for (name, sets) in given.iter().filter(|(_, sets)| !sets.is_empty()) {
                record_inputs(project, r, lock, relock, &mut editor, name, sets)?;
            }
            check_inputs(r, &relock.manifest, lock, &added)?;
            // What the user names is their choice; with `--scope user` they also chose the user
            // scope for it (and what it pulls in), whatever the manifest held before.
            relock.options.grant.named = super::with_dependencies(&added, lock);
            if relock.options.scope == Some(Scope::User) {
                relock.options.grant.scope_user =
                    super::with_dependencies(&from_chosen_registry, lock);
            }
            Ok(super::environment_needed(r, &relock.manifest, lock, &added))
        },
    )?;
    if !dry_run {
        approve_registry_folder(settings, project)?;
    }
    Ok(needed)
}

/// The `--set` values of each added package: the command line's go to the first one named, and
/// on a terminal the answers to the questions `ask_missing` puts for the required inputs left.
fn given_inputs(
    printer: &Printer,
    registries: &RegistrySet,
    manifest: &manifest::LoadedManifest,
    lock: &Lockfile,
    added: &[String],
    inputs: &mut Vec<SetArg>,
) -> Result<std::collections::BTreeMap<String, Vec<SetArg>>> {
    let mut given = ask_missing(printer, registries, manifest, lock, added, inputs)?;
    if let Some(name) = added.first() {
        let mut first = std::mem::take(inputs);
        first.extend(given.remove(name).unwrap_or_default());
        given.insert(name.clone(), first);
    }
    Ok(given)
}

/// A registry named with `--registry`, recorded on the added packages: a `[registries]` name,
/// or a folder or URL declared under `[registries]` now.
fn flag_registry(
    settings: &Settings,
    project: &Project,
    editor: &mut ManifestEditor,
    edits: &mut Edits,
) -> Result<Option<String>> {
    Ok(
        match super::registry_flag(settings, Some(&project.manifest)) {
            RegistryFlag::None => None,
            RegistryFlag::Named(name) => Some(name),
            RegistryFlag::Location(location) => Some(declare::declare_registry(
                editor,
                &project.manifest,
                &settings.cwd,
                &location,
                edits,
            )?),
        },
    )
}

/// Inputs are typed by the version the lock picked, then recorded in the manifest.
fn record_inputs(
    project: &Project,
    registries: &RegistrySet,
    lock: &Lockfile,
    relock: &mut Relock<'_>,
    editor: &mut ManifestEditor,
    name: &str,
    inputs: &[SetArg],
) -> Result<()> {
    let previous = project
        .manifest
        .manifest
        .dependencies
        .get(name)
        .and_then(|d| d.set());
    let typed = typed_inputs(registries, lock, name, inputs, previous)?;
    editor.set_inputs(name, &typed)?;
    // Each input the command changes is said, as the requirement is.
    let file = declare::manifest_name(&project.manifest, project.global);
    for (input, value) in &typed {
        let was = previous.and_then(|set| set.get(input));
        if was == Some(value) {
            continue;
        }
        let verb = if was.is_some() { "Updating" } else { "Setting" };
        relock.edits.push((
            verb.to_string(),
            format!("{name} input `{input}` to {value} in {file}"),
        ));
    }
    let text = editor.render();
    let updated = project.manifest.with_text(&text)?.into_owned();
    relock.manifest = std::borrow::Cow::Owned(updated);
    relock.manifest_text = Some(text);
    Ok(())
}

/// A registry folder given with `--registry` is the user's choice, now in dotpack.toml: later
/// commands may read it though it is outside the project.
fn approve_registry_folder(settings: &Settings, project: &Project) -> Result<()> {
    if let RegistryFlag::Location(location) =
        super::registry_flag(settings, Some(&project.manifest))
        && !crate::registry::http::is_url(&location)
        && !project.global
    {
        let real = crate::util::fsutil::resolve(&settings.cwd.join(&location));
        if !real.starts_with(crate::util::fsutil::resolve(project.root())) {
            super::record_one(settings, &project.owner, super::folder_request(&real))?;
        }
    }
    Ok(())
}

/// What every added package shares: the project, the registries, the registry `--registry`
/// named, the scope `--scope` records, and how messages name the manifest.
struct Requested<'a> {
    project: &'a Project,
    registries: &'a RegistrySet,
    registry: Option<String>,
    scope: Option<Option<Scope>>,
    file: String,
    /// `--as ENTRY`, for the one package added.
    entry: Option<String>,
    /// `--launcher`: recorded on each added dependency.
    launcher: bool,
    printer: &'a Printer,
}

impl Requested<'_> {
    /// Writes every dependency `specs` ask for. Returns their names, and those whose registry
    /// the user chose (the default one, or `--registry`), not one the manifest already tied the
    /// name to.
    fn add_all(
        &self,
        specs: &[String],
        editor: &mut ManifestEditor,
        edits: &mut Edits,
    ) -> Result<(Vec<String>, Vec<String>)> {
        let mut added = Vec::new();
        let mut from_chosen_registry = Vec::new();
        for spec in specs {
            let (name, chosen) = self.add_one(spec, editor, edits)?;
            if chosen {
                from_chosen_registry.push(name.clone());
            }
            added.push(name);
        }
        Ok((added, from_chosen_registry))
    }

    /// Writes the dependency `spec` asks for into `editor`. Returns its name and whether the
    /// user chose its registry (the default one, or `--registry`).
    fn add_one(
        &self,
        spec: &str,
        editor: &mut ManifestEditor,
        edits: &mut Edits,
    ) -> Result<(String, bool)> {
        let (given, req) = parse_spec(spec)?;
        // dotpack's name is lowercase; the registry is asked with the spelling given.
        let name = declare::package_name(&given);
        let existing = self.project.manifest.manifest.dependencies.get(&name);
        let mut dep_registry = self
            .registry
            .clone()
            .or_else(|| existing.and_then(|d| d.registry()).map(str::to_string));
        let chosen = match &dep_registry {
            None => mcp_registry_for(self.registries, &name)?,
            Some(_) => None,
        };
        if chosen.is_some() {
            dep_registry = chosen.clone();
        }
        let from_chosen = self.registry.is_some() || dep_registry.is_none();
        let (versions, spelling) = self.published(&given, dep_registry.as_deref())?;
        let req = self.requirement(&name, req, existing, &versions)?;
        editor.set_dependency(&name, &req)?;
        if let Some(r) = self.registry.as_ref().or(chosen.as_ref()) {
            editor.set_dependency_key(&name, "registry", Some(r))?;
        }
        if let Some(spelling) = &spelling {
            // MCP Registry names are case-sensitive: later commands ask with this spelling.
            editor.set_dependency_key(&name, "package", Some(spelling))?;
            if *spelling != given {
                self.printer
                    .note(format!("`{given}` is spelled `{spelling}` in its registry"));
            }
        }
        if let Some(s) = self.scope {
            editor.set_dependency_key(&name, "scope", s.map(|s| s.to_string()).as_deref())?;
        }
        if self.launcher
            && !existing.is_some_and(
                |d| matches!(d, crate::model::manifest::DependencySpec::Detailed(d) if d.launcher),
            )
        {
            editor.set_dependency_launcher(&name)?;
            edits.push((
                "Starting".to_string(),
                format!(
                    "{name}'s servers through `dotpack run` (launcher = true in {})",
                    self.file
                ),
            ));
        }
        if let Some(entry) = &self.entry {
            self.name_entry(&name, entry, &req, &versions, editor, edits)?;
        }
        let file = &self.file;
        match existing {
            None => edits.push(("Adding".to_string(), format!("{name} \"{req}\" to {file}"))),
            Some(dep) if dep.req().to_string() != req => edits.push((
                "Updating".to_string(),
                format!("{name} to \"{req}\" in {file}"),
            )),
            Some(_) => {}
        }
        Ok((name, from_chosen))
    }

    /// The requirement to record for `name`: the one given (checked against what is published),
    /// else the one already declared (said so), else the default for its newest version.
    fn requirement(
        &self,
        name: &str,
        given: Option<String>,
        existing: Option<&manifest::DependencySpec>,
        versions: &[IndexLine],
    ) -> Result<String> {
        Ok(match (given, existing) {
            (Some(req), _) => {
                check_satisfiable(name, &req, versions)?;
                req
            }
            (None, Some(dep)) => {
                let file = &self.file;
                self.printer.note(format!(
                    "`{name}` is already in {file} as \"{}\"",
                    dep.req()
                ));
                dep.req().to_string()
            }
            (None, None) => default_requirement(name, versions)?,
        })
    }

    /// Gives the only server of package `name` the entry name `entry` (`--entry`) in the hosts.
    fn name_entry(
        &self,
        name: &str,
        entry: &str,
        req: &str,
        versions: &[IndexLine],
        editor: &mut ManifestEditor,
        edits: &mut Edits,
    ) -> Result<()> {
        let server = only_server(name, req, versions)?;
        if !crate::model::validate::is_valid_name(entry) {
            return Err(crate::util::error::Error::usage(format!(
                "`{entry}` is not a valid entry name: names start with a letter or digit and hold only letters, digits, `-` and `_`"
            ))
            .into());
        }
        // Its own name needs no entry of its own.
        let chosen = (entry != server).then_some(entry);
        editor.set_entry(name, &server, chosen)?;
        edits.push((
            "Naming".to_string(),
            format!("{name}'s server `{server}` `{entry}` in the hosts"),
        ));
        Ok(())
    }

    /// The versions `registry` (`None`: the default) lists for `name` (as given, in any case),
    /// and the registry's own spelling of the name when it differs from dotpack's lowercase one:
    /// an error when it has none, or when dotpack refuses every one it lists.
    fn published(
        &self,
        name: &str,
        registry: Option<&str>,
    ) -> Result<(std::sync::Arc<Vec<IndexLine>>, Option<String>)> {
        let source = self.registries.for_dependency(registry, name)?;
        let Some(versions) = source.versions(name)? else {
            bail!("{}", unknown_package(name, source)?);
        };
        if !versions.iter().any(|l| !l.yanked) {
            let refused = source.refused(name);
            if !refused.is_empty() {
                bail!("{}", refused_message(name, source, &refused));
            }
        }
        Ok((versions, source.registry_name(&declare::package_name(name))))
    }
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

/// Splits `NAME[@REQ]`, checking the name's characters and the requirement's syntax. The name
/// is returned as the registry is asked for it ([`declare::requested_name`]).
fn parse_spec(spec: &str) -> Result<(String, Option<String>)> {
    let (name, req) = match spec.split_once('@') {
        Some((name, req)) => (name, Some(req.trim())),
        None => (spec, None),
    };
    if !crate::model::validate::is_valid_package_name(name) {
        return Err(crate::util::error::Error::usage(format!(
            "`{name}` is not a valid package name: use letters, digits, `-` and `_`, starting with a letter or digit, or an MCP Registry name such as `io.github.user/weather`"
        ))
        .into());
    }
    let name = declare::requested_name(name);
    if let Some(req) = req
        && let Err(e) = VersionReq::parse(req)
    {
        return Err(crate::util::error::Error::usage(format!(
            "`{req}` in `{spec}` is not a version requirement ({e})"
        ))
        .help(format!(
            "write e.g. `{name}@^1.2`, `{name}@~1.2.3`, `{name}@=1.0.0` or `{name}@'>=1, <2'`"
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
    crate::bail_help!(
        help = format!("versions: {}", versions_list(versions)),
        "`{name}@{req}` {why}"
    )
}

/// The one server of the newest version of `name` that `req` allows, for `--as`: an error when
/// it declares several (each is named in `entries`) or none.
fn only_server(name: &str, req: &str, versions: &[IndexLine]) -> Result<String> {
    let req = VersionReq::parse(req)?;
    let newest = versions
        .iter()
        .filter(|l| !l.yanked && req.matches(&l.vers))
        .max_by(|a, b| a.vers.cmp(&b.vers));
    match newest.map(|l| l.servers.as_slice()) {
        Some([one]) => Ok(one.clone()),
        Some([]) | None => crate::bail_help!(
            help = "`--as` names a package's server in the hosts; this one has none",
            "package `{name}` declares no server"
        ),
        Some(many) => crate::bail_help!(
            help = format!(
                "name each in dotpack.toml: `entries = {{ {} = \"NEW-NAME\" }}` on `{name}` in [dependencies]",
                many[0]
            ),
            "package `{name}` declares {} servers ({}): `--as` names one",
            many.len(),
            many.join(", ")
        ),
    }
}

/// `^MAJOR.MINOR` of the newest stable, non-yanked version (`^0.0.PATCH` below 0.1). A package
/// that has published only pre-releases gets `^` and the newest of them (`^2.0.0-beta.6`, which
/// also takes 2.0.0 once it is out), as `cargo add` and `uv add` choose one when nothing else
/// exists.
fn default_requirement(name: &str, versions: &[IndexLine]) -> Result<String> {
    let unyanked = || versions.iter().filter(|l| !l.yanked).map(|l| &l.vers);
    if let Some(v) = unyanked().filter(|v| v.pre.is_empty()).max() {
        return Ok(if v.major == 0 && v.minor == 0 {
            format!("^0.0.{}", v.patch)
        } else {
            format!("^{}.{}", v.major, v.minor)
        });
    }
    match unyanked().max() {
        Some(pre) => Ok(format!("^{pre}")),
        None => crate::bail_help!(
            help = format!(
                "name a version explicitly, e.g. `dotpack add {name}@={}`",
                versions
                    .iter()
                    .map(|l| &l.vers)
                    .max()
                    .map_or("VERSION".to_string(), ToString::to_string)
            ),
            "package `{name}` has no unyanked version"
        ),
    }
}

/// For an MCP Registry name (`io.github.user/weather`) that names no registry: the first
/// `kind = "mcp-registry"` registry under `[registries]`, which `add` then records on the
/// dependency. No such registry is an error saying how to declare one.
fn mcp_registry_for(registries: &RegistrySet, name: &str) -> Result<Option<String>> {
    if !crate::registry::mcp::is_registry_name(name) {
        return Ok(None);
    }
    Ok(mcp_registries(registries, name)?
        .first()
        .map(|(registry, _)| registry.to_string()))
}
