//! `dotpack uninstall`: take entries out of the host files, and record that in dotpack.toml so
//! the next `install`, and a teammate's clone, agree: named packages or servers go into
//! `exclude` (of the project, or of the hosts given with `--host`); with no names, the hosts
//! given (or every host) leave `[project] hosts`. The lock's packages never change.

use std::collections::BTreeMap;

use anyhow::Result;

use crate::model::hosts::{HostAdapter, Scope};
use crate::model::lock::Lockfile;
use crate::model::manifest::LoadedManifest;
use crate::model::manifest_edit::ManifestEditor;
use crate::plan::Mode;
use crate::plan::targets::Layout;
use crate::ui::printer::Printer;

use super::declare::{self, Edits};
use super::{Finish, InstallOptions, Project, Settings};

/// Uninstalls `packages` (package or server names; none: the hosts themselves) from the hosts
/// `options` names. Returns the `dotpack install` commands that put back hosts that left
/// `[project] hosts`, for the caller to say.
pub fn uninstall(
    settings: &Settings,
    printer: &Printer,
    project: &Project,
    options: &InstallOptions,
    packages: &[String],
) -> Result<Vec<String>> {
    let lock = installed_lock(project)?;
    let manifest = &project.manifest;
    let layout = Layout::new(&manifest.manifest, Some(&lock), project.global)?;
    for host in &options.hosts {
        crate::plan::targets::host_adapter(host)?;
    }
    let mut names = Vec::new();
    for given in packages {
        names.push(declare::package_or_server(given, manifest, Some(&lock))?);
    }
    let mut editor = ManifestEditor::parse(&manifest.path, &manifest.text)?;
    let mut edits = Edits::new();
    let asked = Asked {
        layout: &layout,
        lock: &lock,
        manifest: &manifest.manifest,
        options,
        file: declare::manifest_name(manifest, settings.global),
    };
    let removed = if names.is_empty() {
        asked.exclude_hosts(&mut editor, &mut edits)?
    } else {
        asked.exclude_names(&names, &mut editor, &mut edits)?;
        Vec::new()
    };
    let text = editor.render();
    let edited = text != manifest.text;
    let updated = manifest.with_text(&text)?;
    let registries = super::registries(settings, Some(&updated))?;
    let lock = project.lock_to_write(lock, &updated, &registries)?;
    super::finish(
        settings,
        printer,
        project,
        &registries,
        Finish {
            manifest: &updated,
            manifest_text: edited.then_some(text),
            lock,
            options,
            mode: Mode::Uninstall,
            edits,
        },
    )?;
    Ok(match removed.is_empty() {
        true => Vec::new(),
        false => reinstall_commands(manifest, &removed, settings.global),
    })
}

/// The lock of what is installed. No lock: only the project's own servers can be installed (at
/// user scope, whose claims live in $DOTPACK_HOME), or nothing at all, which uninstall then says.
fn installed_lock(project: &Project) -> Result<Lockfile> {
    Ok(match project.lock.clone() {
        Some(lock) => lock,
        None if !project.manifest.manifest.servers.is_empty() => Lockfile::empty(),
        None => crate::bail_help!(
            help = "`dotpack install` installs the packages of dotpack.toml",
            "there is no dotpack.lock, so nothing is installed"
        ),
    })
}

/// What an uninstall is about: the hosts' layout, the lock, the flags, and how messages name
/// the manifest.
struct Asked<'a> {
    layout: &'a Layout,
    lock: &'a Lockfile,
    /// For the entry names of the locked packages' servers.
    manifest: &'a crate::model::manifest::Manifest,
    options: &'a InstallOptions,
    file: String,
}

impl Asked<'_> {
    /// No names: the declared hosts given (else all; at `--scope` only) leave `[project] hosts`.
    /// Returns those that left, with the scope they had.
    fn exclude_hosts(
        &self,
        editor: &mut ManifestEditor,
        edits: &mut Edits,
    ) -> Result<Vec<(&'static HostAdapter, Scope)>> {
        let (layout, options, file) = (self.layout, self.options, &self.file);
        let places: Vec<(&'static HostAdapter, Scope)> = layout
            .hosts
            .iter()
            .filter(|h| options.hosts.is_empty() || options.hosts.iter().any(|id| id == h.host.id))
            .filter(|h| options.scope.is_none_or(|s| s == h.scope))
            .map(|h| (h.host, h.scope))
            .collect();
        let mut removed = Vec::new();
        // With `--scope S`, a host stays when some packages go to the other scope from it: only
        // its packages at `S` are excluded from it.
        let split = options
            .scope
            .filter(|s| layout.package_scope.values().any(|at| at != s));
        for (adapter, at) in &places {
            let host = adapter.id;
            if let Some(scope) = split {
                for package in &self.lock.packages {
                    let at = layout.package_scope.get(&package.name);
                    if at.is_none_or(|at| *at == scope)
                        && editor.exclude(&package.name, Some(host))?
                    {
                        edits.push((
                            "Excluding".to_string(),
                            format!("{} from host {host} in {file}", package.name),
                        ));
                    }
                }
            } else if editor.remove_host(host)? {
                removed.push((*adapter, *at));
                edits.push((
                    "Removing".to_string(),
                    format!("host {host} from [project] hosts in {file}"),
                ));
            }
        }
        if let Some(scope) = options.scope {
            exclude_scoped(editor, layout, scope, &options.hosts, file, edits)?;
        }
        Ok(removed)
    }

    /// Names: each is excluded from every host, or from the hosts given that hold it at
    /// `--scope` (its package's own scope, or each host's).
    fn exclude_names(
        &self,
        names: &[String],
        editor: &mut ManifestEditor,
        edits: &mut Edits,
    ) -> Result<()> {
        let (layout, options, file) = (self.layout, self.options, &self.file);
        for name in names {
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
            let package = self
                .lock
                .packages
                .iter()
                .find(|p| {
                    p.name == *name
                        || self
                            .manifest
                            .entry_names(&p.name, &p.servers)
                            .contains(name)
                })
                .map_or(name.as_str(), |p| p.name.as_str());
            let name_hosts = layout
                .hosts
                .iter()
                .filter(|h| {
                    options.hosts.is_empty() || options.hosts.iter().any(|id| id == h.host.id)
                })
                .filter(|h| {
                    let at = layout
                        .package_scope
                        .get(package)
                        .copied()
                        .unwrap_or(h.scope);
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
        Ok(())
    }
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

/// `uninstall --scope S` with no names: packages sent to scope `S` on their own are excluded
/// too, the dependencies of a package declared with `scope = S` among them (they go where it
/// goes): from every host, or from the hosts given with `--host`.
fn exclude_scoped(
    editor: &mut ManifestEditor,
    layout: &Layout,
    scope: Scope,
    hosts: &[String],
    file: &str,
    edits: &mut Edits,
) -> Result<()> {
    for (name, at) in &layout.package_scope {
        if *at != scope {
            continue;
        }
        if hosts.is_empty() {
            if editor.exclude(name, None)? {
                edits.push((
                    "Excluding".to_string(),
                    format!("{name} ({scope} scope) from every host ([project] exclude in {file})"),
                ));
            }
            continue;
        }
        for host in layout.hosts.iter().map(|h| h.host.id) {
            if hosts.iter().any(|id| id == host) && editor.exclude(name, Some(host))? {
                edits.push((
                    "Excluding".to_string(),
                    format!("{name} ({scope} scope) from host {host} in {file}"),
                ));
            }
        }
    }
    Ok(())
}
