//! `dotpack lock`: resolve and write dotpack.lock, keeping locked versions that still fit. It
//! succeeds from any lock dotpack wrote, and recovers a lock with git merge conflict markers.

use anyhow::Result;

use crate::cli::DryRunArgs;
use crate::ops::{self, Outcome, Project, Settings};
use crate::output::Printer;

pub fn run(settings: &Settings, args: &DryRunArgs, printer: &Printer) -> Result<()> {
    let project = Project::load(settings, printer)?;
    let registries = ops::registries(settings, Some(&project.manifest))?;
    let lock = ops::resolve_lock(
        &project.manifest,
        &registries,
        project.locked_versions(),
        project.lock.as_ref(),
    )?;
    ops::commit(
        settings,
        printer,
        Outcome {
            project: &project,
            manifest_text: None,
            lock,
            hosts: None,
            dry_run: args.dry_run,
            edits: Vec::new(),
            no_hosts: false,
        },
    )
}
