//! `dotpack import HOST --into` and `dotpack init --import`: the servers of one or more host
//! files become the project's own `[servers.NAME]`, and their entries are claimed as they are
//! (the `adopt` path, [`Mode::Adopt`]) in one transaction. Each host joins `[project] hosts` at
//! the scope it was read from, so the next `dotpack install` fans the servers out to the other
//! declared hosts; the files read are not changed.
//!
//! The same name in two files is one server when both define the same thing, and a conflict
//! that stops everything otherwise: dotpack never picks one of two definitions.

use std::collections::{BTreeMap, BTreeSet};

use anyhow::{Result, bail};
use serde_json::{Map, Value};

use super::declare::{self, Edits};
use super::import_resources::{Found, scan};
use super::import_source::{Source, print_warnings};
use crate::model::hosts::Scope;
use crate::model::manifest_edit::ManifestEditor;
use crate::ops::{self, Outcome, Project, Settings};
use crate::plan::from_host::{ManifestServer, manifest_server_reading};
use crate::plan::targets::Target;
use crate::plan::{Action, Mode};
use crate::ui::printer::Printer;

/// One server to own: its manifest form and the files (indexes into the sources) holding it.
pub struct Candidate {
    pub server: ManifestServer,
    pub sources: Vec<usize>,
}

/// A server defined differently in two files.
pub struct Conflict {
    pub server: String,
    pub files: Vec<String>,
}

/// The servers of `sources` to own, by name: the same name with the same definition in several
/// files is one server; with different definitions, a [`Conflict`]. Entries `claimed` says
/// dotpack owns already are left out, and so are entries the manifest cannot hold (reported
/// when `report` is set, with the import warnings).
pub fn candidates(
    printer: &Printer,
    sources: &[Source],
    claimed: &dyn Fn(&Source, &str) -> bool,
    report: bool,
) -> Result<(BTreeMap<String, Candidate>, Vec<Conflict>)> {
    let mut out: BTreeMap<String, Candidate> = BTreeMap::new();
    let mut conflicts: BTreeMap<String, BTreeSet<usize>> = BTreeMap::new();
    for (i, source) in sources.iter().enumerate() {
        let imported = source.import()?;
        if report {
            print_warnings(printer, &imported);
        }
        for (name, fields) in &imported.servers {
            if claimed(source, name) {
                if report {
                    printer.note(format!(
                        "{}: `{name}` is dotpack's already; left as it is",
                        source.display
                    ));
                }
                continue;
            }
            let runs_command = imported
                .warnings
                .iter()
                .any(|w| w.server == *name && w.code == crate::plan::from_host::HOST_COMMAND);
            if runs_command {
                if report {
                    printer.note(format!(
                        "{}: `{name}` holds a command {} runs, which a dotpack server cannot declare; left unclaimed, as it is",
                        source.display,
                        source.host.name()
                    ));
                }
                continue;
            }
            let server = manifest_server_reading(name, fields, &source.host.reference_syntaxes());
            if let Some(problem) = &server.problem {
                if report {
                    printer.warning(format!(
                        "{}: `{name}` is not imported: {problem}; fix the entry, then import again",
                        source.display
                    ));
                }
                continue;
            }
            match out.get_mut(name) {
                Some(c) if c.server.fields == server.fields => c.sources.push(i),
                Some(c) => {
                    let files = conflicts.entry(name.clone()).or_default();
                    files.extend(c.sources.iter().copied());
                    files.insert(i);
                }
                None => {
                    out.insert(
                        name.clone(),
                        Candidate {
                            server,
                            sources: vec![i],
                        },
                    );
                }
            }
        }
    }
    let conflicts = conflicts
        .into_iter()
        .map(|(server, files)| Conflict {
            server,
            files: files
                .into_iter()
                .map(|i| sources[i].display.clone())
                .collect(),
        })
        .collect();
    Ok((out, conflicts))
}

/// The error for servers defined differently in two files.
pub fn conflict_error(conflicts: &[Conflict], sources: &[Source]) -> anyhow::Error {
    let mut message = String::from("servers defined differently in two host files:");
    for c in conflicts {
        message.push_str(&format!("\n  `{}`: {}", c.server, c.files.join(" and ")));
    }
    let hosts: BTreeSet<&str> = sources.iter().map(|s| s.host.id).collect();
    let example = hosts.iter().next().copied().unwrap_or("HOST");
    crate::util::error::Error::new(message)
        .help(format!(
            "make the definitions the same or rename one in its file, or import one host at a time (`dotpack import {example} --into`)"
        ))
        .into()
}

/// Where a server read from a user-scope file goes.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Personal {
    /// Only into the hosts it was read from (`hosts` on the server): `init --import`, which
    /// takes in whatever the user's own files hold.
    StaysInItsHost,
    /// Into every declared host: `import HOST --into`, which the user asks for by name.
    FansOut,
}

/// Makes the servers of `sources` the project's own and claims their entries, in one
/// transaction; `dry_run` prints what would change.
pub fn into(
    settings: &Settings,
    printer: &Printer,
    project: &Project,
    sources: Vec<Source>,
    personal: Personal,
    dry_run: bool,
) -> Result<()> {
    let claims = ops::all_claims(project);
    let claimed = |source: &Source, name: &str| {
        let file = source
            .scope
            .and_then(|s| Target::new(source.host, s, project.root(), &settings.host_env).ok())
            .map(|t| t.claim_file);
        claims
            .iter()
            .any(|c| Some(&c.file) == file.as_ref() && c.server == name)
    };
    let (candidates, conflicts) = candidates(printer, &sources, &claimed, true)?;
    if !conflicts.is_empty() {
        return Err(conflict_error(&conflicts, &sources));
    }
    let resources = resources_of(printer, project, &sources);
    if candidates.is_empty() && resources.is_empty() {
        printer.note("nothing to import: no server or resource file that is not dotpack's already");
        return Ok(());
    }
    check_names(project, &candidates)?;
    let Edited {
        text,
        edits,
        staged,
    } = edit_manifest(
        settings,
        project,
        &sources,
        &candidates,
        &resources,
        personal,
    )?;
    let updated = imported_manifest(printer, project, &text)?;
    let servers: BTreeSet<String> = candidates
        .keys()
        .cloned()
        .chain(resources.iter().map(|(_, r)| r.label()))
        .collect();
    let (lock, plan) = plan_adoption(settings, project, &updated, servers, &staged, dry_run)?;
    check_adopted(&plan, &candidates, &sources)?;
    let claimed: Vec<bool> = resources
        .iter()
        .map(|(_, r)| resource_adopted(&plan, project.root(), r))
        .collect();
    ops::commit(
        settings,
        printer,
        Outcome {
            project,
            manifest_text: Some(text),
            lock,
            hosts: Some(plan),
            dry_run,
            edits,
            no_hosts: false,
            staged,
            // Imported servers come from host files, which a repository may have shipped.
            imported: true,
        },
    )?;
    report(printer, &candidates, dry_run);
    report_resources(printer, &resources, &claimed, dry_run);
    Ok(())
}

/// The project's manifest with the import's `text`; its problems are printed against that
/// text, and the import stops before anything is written.
fn imported_manifest<'p>(
    printer: &Printer,
    project: &'p Project,
    text: &str,
) -> Result<std::borrow::Cow<'p, crate::model::manifest::LoadedManifest>> {
    match project.manifest.with_text(text) {
        Ok(updated) => Ok(updated),
        Err(diags) => {
            for diag in &diags.0 {
                printer.diagnostic_with_source(diag, text);
            }
            bail!("the imported servers would make dotpack.toml invalid; nothing was changed");
        }
    }
}

/// The lock (as it is, else resolved) and the plan that claims `servers` as they are.
fn plan_adoption(
    settings: &Settings,
    project: &Project,
    updated: &crate::model::manifest::LoadedManifest,
    servers: BTreeSet<String>,
    staged: &[(String, String)],
    dry_run: bool,
) -> Result<(crate::model::lock::Lockfile, crate::plan::Plan)> {
    let registries = ops::registries(settings, Some(updated))?;
    let lock = match project.lock.clone() {
        Some(lock) => project.lock_to_write(lock, updated, &registries)?,
        None => ops::resolve_lock(updated, &registries, project.locked_versions(), None)?,
    };
    let options = ops::InstallOptions {
        dry_run,
        staged: staged
            .iter()
            .map(|(k, v)| (k.clone(), v.as_bytes().to_vec()))
            .collect(),
        ..ops::InstallOptions::default()
    };
    let mode = Mode::Adopt(servers);
    let (plan, _) = ops::plan_hosts(
        settings,
        project,
        &registries,
        updated,
        &lock,
        &options,
        mode,
    )?;
    Ok((lock, plan))
}

/// The manifest as an import leaves it.
struct Edited {
    text: String,
    edits: Edits,
    /// Resource files to copy into the project (relative path, text).
    staged: Vec<(String, String)>,
}

/// The manifest with the hosts read declared, the servers and resources added: its text, the
/// edits made, and the resource files to copy into the project (relative path, text).
fn edit_manifest(
    settings: &Settings,
    project: &Project,
    sources: &[Source],
    candidates: &BTreeMap<String, Candidate>,
    resources: &[(usize, Found)],
    personal: Personal,
) -> Result<Edited> {
    let manifest = &project.manifest;
    let file = declare::manifest_name(manifest, settings.global);
    let mut editor = ManifestEditor::parse(&manifest.path, &manifest.text)?;
    let mut edits = Edits::new();
    let used: BTreeSet<usize> = candidates
        .values()
        .flat_map(|c| c.sources.clone())
        .chain(resources.iter().map(|(i, _)| *i))
        .collect();
    for source in used.iter().map(|&i| &sources[i]) {
        declare_host(settings, &mut editor, project, source, &mut edits)?;
    }
    for (name, c) in candidates {
        let mut table = crate::plan::from_host::toml_table(&c.server.fields);
        let hosts = match personal {
            Personal::StaysInItsHost => personal_hosts(settings, sources, c),
            Personal::FansOut => Vec::new(),
        };
        if !hosts.is_empty() {
            let list: toml_edit::Array = hosts.iter().collect();
            table.insert("hosts", toml_edit::value(list));
        }
        editor.add_server(name, table)?;
        edits.push((
            "Adding".to_string(),
            format!("server {name} to [servers] in {file}"),
        ));
        if !hosts.is_empty() {
            edits.push((
                "Keeping".to_string(),
                format!(
                    "{name} in {} only (`hosts` in [servers.{name}]): it was read from your own user-scope file; `dotpack install {name} --host HOST` adds another",
                    hosts.join(", ")
                ),
            ));
        }
    }
    let mut staged = Vec::new();
    for (_, r) in resources {
        editor.add_resource(r.kind.section(), &r.name, &r.path)?;
        edits.push((
            "Adding".to_string(),
            format!(
                "{} {} to [{}] in {file}, from {}",
                r.kind,
                r.name,
                r.kind.section(),
                r.origin
            ),
        ));
        staged.extend(r.files.iter().map(|(k, v)| (k.clone(), v.clone())));
    }
    allow_kinds_left_out(project, resources, &mut editor, &mut edits, &file)?;
    Ok(Edited {
        text: editor.render(),
        edits,
        staged,
    })
}

/// A kind a declared host cannot keep is left out of it, and that choice is recorded, so the
/// next `install` does not refuse what this import did.
fn allow_kinds_left_out(
    project: &Project,
    resources: &[(usize, Found)],
    editor: &mut ManifestEditor,
    edits: &mut Edits,
    file: &str,
) -> Result<()> {
    let declared = crate::model::manifest::parse(&project.manifest.path, editor.render())?;
    let layout = crate::plan::targets::Layout::new(&declared.manifest, None, project.global)?;
    for (_, r) in resources {
        let kind = r.kind.section();
        let kept_everywhere = layout
            .places_of(crate::plan::desired::LOCAL_PACKAGE, &r.name)
            .iter()
            .all(|(host, scope)| {
                crate::model::resources::layout_of(host.id, r.kind).is_some_and(|l| match scope {
                    crate::model::hosts::Scope::Project => l.project.is_some(),
                    crate::model::hosts::Scope::User => l.user.is_some(),
                })
            });
        if !kept_everywhere && editor.allow_lossy_for_project(kind)? {
            edits.push((
                "Allowing".to_string(),
                format!("{kind} to be left out where a host cannot keep them ([project] allow_lossy in {file})"),
            ));
        }
    }
    Ok(())
}

/// The hosts a server read from user-scope files only stays in, for a project's manifest: a
/// personal server (a path in the home folder, the user's own token) must not spread into the
/// project's other hosts, whose files are committed. Empty for the user-level manifest, whose
/// hosts are all the user's own, and for a server a project file holds too.
fn personal_hosts(settings: &Settings, sources: &[Source], candidate: &Candidate) -> Vec<String> {
    let all_user = candidate
        .sources
        .iter()
        .all(|&i| sources[i].scope == Some(Scope::User));
    if settings.global || !all_user {
        return Vec::new();
    }
    let hosts: BTreeSet<String> = candidate
        .sources
        .iter()
        .map(|&i| sources[i].host.id.to_string())
        .collect();
    hosts.into_iter().collect()
}

/// After the import: where each resource file was copied, and whether its file is claimed.
fn report_resources(
    printer: &Printer,
    resources: &[(usize, Found)],
    claimed: &[bool],
    dry_run: bool,
) {
    for ((_, r), claimed) in resources.iter().zip(claimed) {
        let verb = if dry_run { "would be" } else { "is" };
        let how = if *claimed {
            format!("{} {verb} claimed as it is", r.origin)
        } else {
            format!("{} stays unclaimed", r.origin)
        };
        printer.note(format!(
            "{} `{}`: copied to {}; {how}",
            r.kind, r.name, r.path
        ));
    }
}

/// A name the manifest or a locked package has already stops the import before anything is
/// written.
fn check_names(project: &Project, candidates: &BTreeMap<String, Candidate>) -> Result<()> {
    let manifest = &project.manifest.manifest;
    for name in candidates.keys() {
        if manifest.servers.contains_key(name) {
            crate::bail_help!(
                help =
                    format!("rename the entry in the host file, or remove [servers.{name}] first"),
                "dotpack.toml already has a server named `{name}`"
            );
        }
        if let Some(p) = project.lock.iter().flat_map(|l| &l.packages).find(|p| {
            project
                .manifest
                .manifest
                .entry_names(&p.name, &p.servers)
                .contains(name)
        }) {
            crate::bail_help!(
                help = format!("`dotpack adopt {name}` claims the entry for that package instead"),
                "package `{}` in dotpack.lock already declares a server named `{name}`",
                p.name
            );
        }
    }
    Ok(())
}

/// Declares the host of `source` at the scope it was read from; a host declared at the other
/// scope stays there and the import stops, since one host is written at one scope.
fn declare_host(
    settings: &Settings,
    editor: &mut ManifestEditor,
    project: &Project,
    source: &Source,
    edits: &mut Edits,
) -> Result<()> {
    let manifest = &project.manifest;
    let Some(scope) = source.scope else {
        bail!("a file given with --file cannot be claimed: import it without --into");
    };
    if let Some(decl) = declare::declared(manifest, source.host.id) {
        let current = decl
            .scope()
            .unwrap_or_else(|| declare::default_scope(manifest, source.host));
        if current != scope && !settings.global {
            crate::bail_help!(
                help = format!(
                    "import from the declared scope (`--scope {current}`), or change the host's scope first (`dotpack install --host {} --scope {scope}`)",
                    source.host.id
                ),
                "{} is declared at {current} scope in dotpack.toml, and {} is its {scope}-scope file",
                source.host.name(),
                source.display
            );
        }
        return Ok(());
    }
    declare::declare_hosts(
        editor,
        manifest,
        &[source.host.id.to_string()],
        Some(scope),
        settings.global,
        edits,
    )
}

/// Every server was claimed in each file it came from; a declared host's file holding the same
/// name must hold the same definition.
fn check_adopted(
    plan: &crate::plan::Plan,
    candidates: &BTreeMap<String, Candidate>,
    sources: &[Source],
) -> Result<()> {
    let mut conflicts = Vec::new();
    for (name, c) in candidates {
        for &i in &c.sources {
            let source = &sources[i];
            let adopted = plan.files.iter().any(|f| {
                f.target.path == source.path
                    && f.changes
                        .iter()
                        .any(|ch| &ch.server == name && ch.action == Action::Adopt)
            });
            if !adopted {
                crate::bail_help!(
                    help = "check [project] hosts in dotpack.toml",
                    "{}#{name} could not be claimed: the project does not write that file",
                    source.display
                );
            }
        }
        for f in &plan.files {
            let from_source = c.sources.iter().any(|&i| sources[i].path == f.target.path);
            let adopted = f
                .changes
                .iter()
                .any(|ch| &ch.server == name && ch.action == Action::Adopt);
            if from_source || !adopted {
                continue;
            }
            if entry_in(f, name).as_ref() != Some(&c.server.fields) {
                conflicts.push(Conflict {
                    server: name.clone(),
                    files: c
                        .sources
                        .iter()
                        .map(|&i| sources[i].display.clone())
                        .chain([crate::ui::diag::display_path(&f.target.path)])
                        .collect(),
                });
            }
        }
    }
    if conflicts.is_empty() {
        Ok(())
    } else {
        Err(conflict_error(&conflicts, sources))
    }
}

/// The manifest form of entry `name` of a planned file, as it was read.
fn entry_in(f: &crate::plan::FilePlan, name: &str) -> Option<Map<String, Value>> {
    let host = f.target.host;
    let text = f.before.as_deref()?;
    let entries = crate::formats::list_entries(host.format, text, host.container).ok()?;
    let entry = entries.into_iter().find(|(n, _)| n == name)?;
    let imported = crate::plan::from_host::import_entries(host, vec![entry]);
    let fields = imported.servers.get(name)?;
    Some(manifest_server_reading(name, fields, &host.reference_syntaxes()).fields)
}

/// What the user must do now: export the variables secrets moved into, and what was left out.
fn report(printer: &Printer, candidates: &BTreeMap<String, Candidate>, dry_run: bool) {
    let mut vars = BTreeSet::new();
    for (name, c) in candidates {
        for moved in &c.server.moved {
            printer.note(format!(
                "server `{name}`: the literal secret in `{}` is now `{{{{env.{}}}}}` in dotpack.toml",
                moved.path, moved.var
            ));
            vars.insert(moved.var.clone());
        }
        for kept in &c.server.kept_secrets {
            printer.warning(format!(
                "server `{name}`: `{}` still holds a literal secret ({}); move it out by hand",
                kept.path, kept.reason
            ));
        }
        if !c.server.left_out.is_empty() {
            printer.warning(format!(
                "server `{name}`: left out of dotpack.toml (not canonical fields; the host's entry keeps them): {}",
                c.server.left_out.join(", ")
            ));
        }
    }
    if !vars.is_empty() {
        let verb = if dry_run { "would need" } else { "needs" };
        printer.note(format!(
            "`dotpack install` {verb} these variables in the environment the hosts start servers in: {}",
            vars.into_iter().collect::<Vec<_>>().join(", ")
        ));
        printer.note(
            "the host files read keep their literal values: remove them there once the variables are set",
        );
    }
}

/// The resource files of the project-scope sources no claim owns, each with the index of its
/// source; what is left out is warned about. A name two hosts both have comes from the first.
pub fn resources_of(
    printer: &Printer,
    project: &Project,
    sources: &[Source],
) -> Vec<(usize, Found)> {
    let claims: &[crate::model::resources::FileClaim] =
        project.lock.as_ref().map_or(&[], |l| &l.files);
    let mut out: Vec<(usize, Found)> = Vec::new();
    for (i, source) in sources.iter().enumerate() {
        if source.scope != Some(Scope::Project) {
            continue;
        }
        let scan = scan(
            source.host,
            project.root(),
            &project.manifest.manifest,
            claims,
        );
        for warning in scan.warnings {
            printer.warning(warning);
        }
        for found in scan.found {
            if let Some((_, first)) = out
                .iter()
                .find(|(_, f)| f.kind == found.kind && f.name == found.name)
            {
                printer.warning(format!(
                    "{}: not imported: {} is imported from {} already",
                    found.origin,
                    found.label(),
                    first.origin
                ));
                continue;
            }
            out.push((i, found));
        }
    }
    out
}

/// Whether the plan claims the host file (or every file of the skill folder) `r` came from.
fn resource_adopted(plan: &crate::plan::Plan, root: &std::path::Path, r: &Found) -> bool {
    let origin = root.join(&r.origin);
    let label = r.label();
    plan.files.iter().any(|f| {
        f.target.path.starts_with(&origin)
            && f.changes
                .iter()
                .any(|ch| ch.server == label && ch.action == Action::Adopt)
    })
}
