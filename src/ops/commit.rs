//! The end of every writing command: plan the host files, then commit manifest, lock, claims
//! and host files as one transaction (or print them, with `--dry-run`).

use anyhow::{Result, bail};

use crate::apply::FileWrite;
use crate::claims::UserClaims;
use crate::cli::InstallArgs;
use crate::install::{ClaimStore, HostSettings};
use crate::lock::{LOCK_FILE, Lockfile};
use crate::manifest::LoadedManifest;
use crate::output::Printer;
use crate::plan::Mode;
use crate::plan::Plan;
use crate::resolve::RegistrySet;

use super::locking::{Change, lock_changes};
use super::{Project, Settings};

/// When a command installs with no target host at all.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NoTargets {
    /// Say so and go on (add, remove, update: the manifest and lock still change).
    Warn,
    /// Fail (install, uninstall, adopt: there is nothing else to do).
    Fail,
}

/// Plans the host files for `lock`: the servers of its packages into every target. Returns
/// `None` when there is no target host (after a warning, or an error, as `no_targets` says).
/// What a command asks of the hosts.
pub struct HostRequest<'a> {
    /// The manifest as the command leaves it (with its edits).
    pub manifest: &'a LoadedManifest,
    /// The lock whose packages belong in the host files.
    pub lock: &'a Lockfile,
    pub args: &'a InstallArgs,
    pub mode: Mode,
    pub no_targets: NoTargets,
}

pub fn plan_hosts(
    settings: &Settings,
    printer: &Printer,
    project: &Project,
    registries: &RegistrySet,
    request: HostRequest<'_>,
) -> Result<Option<(Plan, ClaimStore)>> {
    let HostRequest {
        manifest,
        lock,
        args,
        mode,
        no_targets,
    } = request;
    let hosts = HostSettings::new(args, manifest, &settings.host_env)?;
    if hosts.targets.is_empty() {
        let message = "no target hosts: set `hosts = [...]` under [project] in dotpack.toml, or pass --host (claude-code, codex, gemini-cli, cursor, vscode)";
        match no_targets {
            NoTargets::Warn => {
                printer.warning(format!(
                    "{message}; only dotpack.toml and dotpack.lock were updated"
                ));
                return Ok(None);
            }
            NoTargets::Fail => bail!("{message}"),
        }
    }
    let lock_claims = project
        .lock
        .as_ref()
        .map(|l| l.claims.as_slice())
        .unwrap_or_default();
    let planned = crate::install::plan_targets(
        &hosts,
        crate::install::PlanRequest {
            lock,
            manifest: &manifest.manifest,
            registries,
            lock_claims,
            dotpack_home: &settings.dotpack_home,
            project_root: manifest.root(),
            mode,
        },
    )?;
    Ok(Some(planned))
}

/// The end of every command that changes the project and its hosts: plan the host files for the
/// new lock, then commit manifest, lock, claims and host files as one transaction.
pub struct Finish<'a> {
    /// The manifest as the command leaves it, and its new text when the command edited it.
    pub manifest: &'a LoadedManifest,
    pub manifest_text: Option<String>,
    pub lock: Lockfile,
    pub args: &'a InstallArgs,
    pub mode: Mode,
    pub no_targets: NoTargets,
}

pub fn finish(
    settings: &Settings,
    printer: &Printer,
    project: &Project,
    registries: &RegistrySet,
    finish: Finish<'_>,
) -> Result<()> {
    let hosts = plan_hosts(
        settings,
        printer,
        project,
        registries,
        HostRequest {
            manifest: finish.manifest,
            lock: &finish.lock,
            args: finish.args,
            mode: finish.mode,
            no_targets: finish.no_targets,
        },
    )?;
    commit(
        settings,
        printer,
        Outcome {
            project,
            manifest_text: finish.manifest_text,
            lock: finish.lock,
            hosts,
            dry_run: finish.args.dry_run,
        },
    )
}

/// What a writing command wants on disk: the new manifest text (if it changes), the new lock, and
/// the plan for the host files (when there are targets).
pub struct Outcome<'a> {
    pub project: &'a Project,
    pub manifest_text: Option<String>,
    pub lock: Lockfile,
    pub hosts: Option<(Plan, ClaimStore)>,
    pub dry_run: bool,
}

/// Applies an outcome: checks `--locked`, prints what changes, and writes every changed file
/// (host files, user claims, manifest, lock) after checking all of them can be written. With
/// `dry_run`, prints unified diffs and writes nothing.
pub fn commit(settings: &Settings, printer: &Printer, outcome: Outcome<'_>) -> Result<()> {
    let project = outcome.project;
    let mut lock = outcome.lock;
    let old_claims = project
        .lock
        .as_ref()
        .map(|l| l.claims.clone())
        .unwrap_or_default();
    let mut writes = Vec::new();
    let mut host_plan = None;
    let user_scope = matches!(outcome.hosts, Some((_, ClaimStore::User(_))));
    match outcome.hosts {
        Some((plan, ClaimStore::Project)) => {
            lock.claims = plan.claims.clone();
            host_plan = Some(plan);
        }
        Some((plan, ClaimStore::User(user))) => {
            lock.claims = old_claims;
            let text = UserClaims::render(&plan.claims);
            let text = if plan.claims.is_empty() && user.text.is_none() {
                None
            } else {
                Some(text)
            };
            writes.push(FileWrite {
                display: user.path.display().to_string(),
                host: None,
                path: user.path.clone(),
                before: user.text.clone(),
                after: text,
            });
            host_plan = Some(plan);
        }
        None => lock.claims = old_claims,
    }
    let lock_text = lock.emit();
    if settings.locked && project.lock.as_ref() != Some(&lock) {
        let why = if project.lock.is_none() {
            "dotpack.lock is missing"
        } else {
            "dotpack.lock needs to be updated"
        };
        bail!(
            "{why} but --locked was passed to prevent this\n  help: run the command without --locked (or --frozen) and commit the new dotpack.lock"
        );
    }
    let root = project.manifest.root();
    let changes = lock_changes(project.lock.as_ref(), &lock);
    for change in &changes {
        change.print(printer);
    }
    if let Some(plan) = &host_plan {
        print_host_summary(printer, plan);
    }
    // Host files first, in target order; their bytes move into the writes (they may be large).
    let mut host_writes: Vec<FileWrite> = host_plan
        .map(|plan| plan.files)
        .unwrap_or_default()
        .into_iter()
        .map(|file| FileWrite {
            display: file.target.claim_file,
            host: Some(file.target.host.id.to_string()),
            path: file.target.path,
            before: file.before,
            after: file.after,
        })
        .collect();
    host_writes.append(&mut writes);
    let mut writes = host_writes;
    if let Some(text) = outcome.manifest_text {
        writes.push(FileWrite {
            display: crate::manifest::MANIFEST_FILE.to_string(),
            host: None,
            path: project.manifest.path.clone(),
            before: Some(project.manifest.text.clone()),
            after: Some(text),
        });
    }
    writes.push(FileWrite {
        display: LOCK_FILE.to_string(),
        host: None,
        path: root.join(LOCK_FILE),
        before: project.lock_text.clone(),
        after: Some(lock_text),
    });
    if outcome.dry_run {
        crate::apply::print_diffs(printer, &writes);
        printer.warning("dry run: no file was changed");
        return Ok(());
    }
    crate::apply::preflight(&writes)?;
    let boundary = settings.boundary(Some(root));
    let places = if user_scope {
        crate::txn::Places::user(Some(root), boundary)
    } else {
        crate::txn::Places::project(root, boundary)
    };
    let meta = crate::txn::Meta {
        command: settings.command_line.clone(),
        packages: changes.iter().map(Change::record).collect(),
        keep: keep_generations(&project.manifest),
        ..crate::txn::Meta::default()
    };
    match crate::txn::apply(&places, &writes, meta, settings.wait, printer)? {
        Some(id) => printer.status("Finished", format!("generation {id}")),
        None => printer.status("Finished", "nothing to change"),
    }
    Ok(())
}

/// `[settings] keep_generations`, else [`crate::txn::DEFAULT_KEEP`].
pub fn keep_generations(manifest: &LoadedManifest) -> usize {
    manifest
        .manifest
        .settings
        .as_ref()
        .and_then(|s| s.keep_generations)
        .map_or(crate::txn::DEFAULT_KEEP, |k| k as usize)
}

/// One line per file that changes, grouped by host, with counts; then the warnings in one block.
fn print_host_summary(printer: &Printer, plan: &Plan) {
    use crate::plan::Action;
    for file in &plan.files {
        let count = |a: Action| file.changes.iter().filter(|c| c.action == a).count();
        let mut parts = Vec::new();
        for (action, word) in [
            (Action::Add, "added"),
            (Action::Update, "updated"),
            (Action::Remove, "removed"),
            (Action::Adopt, "adopted"),
        ] {
            let n = count(action);
            if n > 0 {
                parts.push(format!("{n} {word}"));
            }
        }
        if parts.is_empty() {
            continue;
        }
        let verb = if file.before.is_none() {
            "Created"
        } else if file.after.is_none() {
            "Deleted"
        } else if file.is_changed() {
            "Updated"
        } else {
            "Claimed"
        };
        printer.status(
            verb,
            format!(
                "{} ({}): {}",
                file.target.claim_file,
                file.target.host.id,
                parts.join(", ")
            ),
        );
    }
    // Warnings come in one block after the file lines.
    let dropped = plan.files.iter().flat_map(|file| {
        file.changes
            .iter()
            .filter(|c| !c.dropped.is_empty() && c.action != Action::Unchanged)
            .map(move |c| {
                format!(
                    "{} ({}): server `{}` dropped {}",
                    file.target.claim_file,
                    file.target.host.id,
                    c.server,
                    c.dropped.join(", ")
                )
            })
    });
    for warning in dropped.chain(plan.warnings.iter().cloned()) {
        printer.warning(warning);
    }
}
