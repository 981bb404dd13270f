//! `dotpack uninstall [NAME...]`: take entries out of the host files, and record that in
//! dotpack.toml so the next `install`, and a teammate's clone, agree: named packages or servers
//! go into `exclude` (of the project, or of the hosts given with `--host`); with no names, the
//! hosts given (or every host) leave `[project] hosts`. The lock's packages never change:
//! `dotpack install NAME` or `dotpack install --host HOST` puts the entries back.

use std::collections::BTreeMap;

use anyhow::{Result, bail};

use crate::cli::UninstallArgs;
use crate::commands::declare::{self, Edits};
use crate::hosts::{HostAdapter, Scope};
use crate::manifest::LoadedManifest;
use crate::ops::{self, Finish, Project, Settings};
use crate::output::Printer;
use crate::plan::Mode;
use crate::project::ManifestEditor;
use crate::targets::Layout;

pub fn run(settings: &Settings, args: UninstallArgs, printer: &Printer) -> Result<()> {
    let options = args.install.options()?;
    let project = Project::load(settings, printer)?;
    let Some(lock) = project.lock.clone() else {
        bail!(
            "there is no dotpack.lock, so nothing is installed\n  help: `dotpack install` installs the packages of dotpack.toml"
        );
    };
    let file = declare::manifest_name(&project.manifest, settings.global);
    let manifest = &project.manifest;
    let layout = Layout::new(&manifest.manifest, Some(&lock), project.global)?;
    for host in &options.hosts {
        crate::targets::host_adapter(host)?;
    }
    let mut names = Vec::new();
    for given in &args.packages {
        names.push(declare::package_or_server(given, manifest, Some(&lock))?);
    }
    let mut editor = ManifestEditor::parse(&manifest.path, &manifest.text)?;
    let mut edits = Edits::new();
    // The declared hosts this uninstall is about: those given, else all; at `--scope` only.
    let places: Vec<(&'static HostAdapter, Scope)> = layout
        .hosts
        .iter()
        .filter(|h| options.hosts.is_empty() || options.hosts.iter().any(|id| id == h.host.id))
        .filter(|h| options.scope.is_none_or(|s| s == h.scope))
        .map(|h| (h.host, h.scope))
        .collect();
    let hosts: Vec<&str> = places.iter().map(|(h, _)| h.id).collect();
    if names.is_empty() {
        for host in &hosts {
            if editor.remove_host(host)? {
                edits.push((
                    "Removing".to_string(),
                    format!("host {host} from [project] hosts in {file}"),
                ));
            }
        }
        if let Some(scope) = options.scope {
            exclude_scoped(&mut editor, manifest, scope, &file, &mut edits)?;
        }
    } else {
        for name in &names {
            let whole = options.hosts.is_empty() && options.scope.is_none();
            if whole {
                if editor.exclude(name, None)? {
                    edits.push((
                        "Excluding".to_string(),
                        format!("{name} from every host ([project] exclude in {file})"),
                    ));
                }
                continue;
            }
            // The hosts that hold `name` at `--scope` (its own scope, or each host's).
            let name_hosts = layout
                .hosts
                .iter()
                .filter(|h| {
                    options.hosts.is_empty() || options.hosts.iter().any(|id| id == h.host.id)
                })
                .filter(|h| {
                    let at = layout.package_scope.get(name).copied().unwrap_or(h.scope);
                    options.scope.is_none_or(|s| s == at)
                })
                .map(|h| h.host.id);
            for host in name_hosts {
                if editor.exclude(name, Some(host))? {
                    edits.push((
                        "Excluding".to_string(),
                        format!("{name} from host {host} in {file}"),
                    ));
                }
            }
        }
    }
    let text = editor.render();
    let edited = text != manifest.text;
    let updated = manifest.with_text(&text)?;
    let registries = ops::registries(settings, Some(&updated))?;
    ops::finish(
        settings,
        printer,
        &project,
        &registries,
        Finish {
            manifest: &updated,
            manifest_text: edited.then_some(text),
            lock,
            options: &options,
            mode: Mode::Uninstall,
            edits,
        },
    )?;
    if !options.dry_run && names.is_empty() && !hosts.is_empty() {
        let commands = reinstall_commands(manifest, &places, settings.global);
        let verb = if commands.len() == 1 { "puts" } else { "put" };
        printer.note(format!("`{}` {verb} them back", commands.join("` and `")));
    }
    Ok(())
}

/// The `dotpack install` commands that declare `hosts` again, each at the scope it had.
/// `--scope` applies to every `--host` of a command, so hosts away from their default scope get
/// one command per scope.
fn reinstall_commands(
    manifest: &LoadedManifest,
    hosts: &[(&'static HostAdapter, Scope)],
    global: bool,
) -> Vec<String> {
    let mut by_scope: BTreeMap<Option<Scope>, Vec<&str>> = BTreeMap::new();
    for (host, scope) in hosts {
        let flag = (!global && *scope != declare::default_scope(manifest, host)).then_some(*scope);
        by_scope.entry(flag).or_default().push(host.id);
    }
    by_scope
        .into_iter()
        .map(|(scope, ids)| {
            let mut command = String::from("dotpack install");
            if global {
                command.push_str(" --global");
            }
            for id in ids {
                command.push_str(&format!(" --host {id}"));
            }
            if let Some(scope) = scope {
                command.push_str(&format!(" --scope {scope}"));
            }
            command
        })
        .collect()
}

/// `uninstall --scope S` with no names: dependencies sent to scope `S` on their own are
/// excluded too.
fn exclude_scoped(
    editor: &mut ManifestEditor,
    manifest: &LoadedManifest,
    scope: Scope,
    file: &str,
    edits: &mut Edits,
) -> Result<()> {
    for (name, spec) in &manifest.manifest.dependencies {
        if spec.scope() == Some(scope) && editor.exclude(name, None)? {
            edits.push((
                "Excluding".to_string(),
                format!("{name} ({scope} scope) from every host ([project] exclude in {file})"),
            ));
        }
    }
    Ok(())
}
