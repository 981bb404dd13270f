//! `dotpack add NAME[@REQ]...`: add packages to dotpack.toml (edited in place) and lock them.
//!
//! Without a requirement, the newest stable version decides it: `figma` 0.3.1 is written as
//! `figma = "^0.3"`, as `cargo add` and `uv add` do. Nothing is written unless resolution succeeds.

use anyhow::{Result, bail};
use semver::{Version, VersionReq};

use crate::cli::{AddArgs, GlobalArgs};
use crate::commands::UsageError;
use crate::lock::Lockfile;
use crate::manifest;
use crate::ops::{self, Finish, NoTargets, Project, Settings};
use crate::output::Printer;
use crate::plan::Mode;
use crate::project::ManifestEditor;
use crate::registry::{IndexLine, IndexSource};

pub fn run(global: &GlobalArgs, args: AddArgs, printer: &Printer) -> Result<()> {
    let settings = Settings::from_global(global)?;
    let inputs = parse_inputs(&args.set)?;
    if !inputs.is_empty() && args.packages.len() != 1 {
        return Err(UsageError(
            "--set needs exactly one package: `dotpack add NAME --set KEY=VALUE`".into(),
        )
        .into());
    }
    let project = Project::load(&settings)?;
    let registries = ops::registries(&settings, Some(&project.manifest))?;
    let mut editor = ManifestEditor::parse(&project.manifest.path, &project.manifest.text)?;
    let mut added = Vec::new();
    for spec in &args.packages {
        let (name, req) = parse_spec(spec)?;
        let existing = project.manifest.manifest.dependencies.get(name);
        let source = registries.for_dependency(existing.and_then(|d| d.registry()), name)?;
        let Some(versions) = source.versions(name)? else {
            bail!("{}", unknown_package(name, source)?);
        };
        let req = match (req, existing) {
            (Some(req), _) => req.to_string(),
            (None, Some(dep)) => {
                printer.note(format!(
                    "`{name}` is already in dotpack.toml as \"{}\"",
                    dep.req()
                ));
                dep.req().to_string()
            }
            (None, None) => default_requirement(name, &versions)?,
        };
        editor.set_dependency(name, &req)?;
        editor.set_inputs(name, &inputs)?;
        printer.status("Adding", format!("{name} \"{req}\" to dotpack.toml"));
        added.push(name.to_string());
    }
    let text = editor.render();
    let updated = manifest::parse(&project.manifest.path, text.clone())?;
    let lock = ops::resolve_lock(
        &updated,
        &registries,
        project.locked_versions(),
        project.lock.as_ref(),
    )?;
    if !inputs.is_empty() {
        check_inputs(&registries, &updated, &lock, &added[0], &inputs)?;
    }
    let needed = environment_needed(&registries, &updated, &lock, &added);
    ops::finish(
        &settings,
        printer,
        &project,
        &registries,
        Finish {
            manifest: &updated,
            manifest_text: Some(text),
            lock,
            args: &args.install,
            mode: Mode::Sync,
            no_targets: NoTargets::Warn,
        },
    )?;
    for (package, var) in needed {
        printer.note(format!(
            "note: {package} reads {var} from the environment, which is not set here"
        ));
    }
    Ok(())
}

/// The environment variables the added packages' servers read (`{{env.X}}`) that are not set in
/// this environment, so the user learns about a missing token now rather than when the host
/// starts the server. Best effort: a package that cannot be read here is skipped.
fn environment_needed(
    registries: &crate::resolve::RegistrySet,
    manifest: &crate::manifest::LoadedManifest,
    lock: &Lockfile,
    added: &[String],
) -> Vec<(String, String)> {
    let mut needed = Vec::new();
    for name in added {
        let Some(locked) = lock.get(name) else {
            continue;
        };
        let spec = manifest.manifest.dependencies.get(name);
        let Ok(source) = registries.for_dependency(spec.and_then(|d| d.registry()), name) else {
            continue;
        };
        let Ok(package) = crate::registry::load_package(source, name, &locked.version) else {
            continue;
        };
        let mut vars: Vec<String> = package
            .servers
            .values()
            .flat_map(server_strings)
            .flat_map(|s| crate::template::env_refs(&s))
            .filter(|var| std::env::var_os(var).is_none())
            .collect();
        vars.sort();
        vars.dedup();
        needed.extend(vars.into_iter().map(|var| (name.clone(), var)));
    }
    needed
}

/// Every string of a server definition: command, args, env values, url and extension values.
fn server_strings(server: &crate::manifest::Server) -> Vec<String> {
    fn walk(value: &toml::Value, out: &mut Vec<String>) {
        match value {
            toml::Value::String(s) => out.push(s.clone()),
            toml::Value::Array(items) => items.iter().for_each(|v| walk(v, out)),
            toml::Value::Table(t) => t.values().for_each(|v| walk(v, out)),
            _ => {}
        }
    }
    let mut out: Vec<String> = server.command.iter().chain(&server.url).cloned().collect();
    out.extend(server.args.iter().flatten().cloned());
    out.extend(server.env.values().cloned());
    for value in server.extensions.values() {
        walk(value, &mut out);
    }
    out
}

/// Splits `NAME[@REQ]`, checking the name's characters and the requirement's syntax.
fn parse_spec(spec: &str) -> Result<(&str, Option<&str>)> {
    let (name, req) = match spec.split_once('@') {
        Some((name, req)) => (name, Some(req.trim())),
        None => (spec, None),
    };
    if !crate::validate::is_valid_name(name) {
        return Err(UsageError(format!(
            "`{name}` is not a valid package name: use letters, digits, `-` and `_`, starting with a letter or digit"
        ))
        .into());
    }
    if let Some(req) = req
        && let Err(e) = VersionReq::parse(req)
    {
        return Err(UsageError(format!(
            "`{req}` in `{spec}` is not a version requirement ({e})\n  help: write e.g. `{name}@^1.2`, `{name}@~1.2.3`, `{name}@=1.0.0` or `{name}@'>=1, <2'`"
        ))
        .into());
    }
    Ok((name, req))
}

fn parse_inputs(sets: &[String]) -> Result<Vec<(String, String)>> {
    sets.iter()
        .map(|s| match s.split_once('=') {
            Some((k, v)) if !k.trim().is_empty() => Ok((k.trim().to_string(), v.to_string())),
            _ => Err(UsageError(format!("--set `{s}` must look like KEY=VALUE")).into()),
        })
        .collect()
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

/// The error for a package the registry does not have, with close names when there are some.
pub fn unknown_package(name: &str, source: &dyn IndexSource) -> Result<String> {
    let names = source.names()?;
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
        "package `{name}` was not found in the registry\n  help: {help}"
    ))
}

/// `--set KEY=VALUE` must name inputs the locked package declares.
fn check_inputs(
    registries: &crate::resolve::RegistrySet,
    manifest: &crate::manifest::LoadedManifest,
    lock: &Lockfile,
    name: &str,
    inputs: &[(String, String)],
) -> Result<()> {
    let Some(locked) = lock.get(name) else {
        return Ok(());
    };
    let spec = manifest.manifest.dependencies.get(name);
    let source = registries.for_dependency(spec.and_then(|d| d.registry()), name)?;
    let package = crate::registry::load_package(source, name, &locked.version)?;
    for (key, _) in inputs {
        if !package.inputs.contains_key(key) {
            let declared: Vec<&str> = package.inputs.keys().map(String::as_str).collect();
            let help = if declared.is_empty() {
                format!("{name} declares no inputs")
            } else {
                format!("{name} declares: {}", declared.join(", "))
            };
            bail!("package `{name}` has no input `{key}`\n  help: {help}");
        }
    }
    Ok(())
}
