//! `dotpack lock`: resolve and write dotpack.lock, keeping locked versions that still fit.

use anyhow::Result;

use crate::cli::GlobalArgs;
use crate::ops::{self, Outcome, Project, Settings};
use crate::output::Printer;

pub fn run(global: &GlobalArgs, printer: &Printer) -> Result<()> {
    let settings = Settings::from_global(global)?;
    let project = Project::load(&settings)?;
    let registries = ops::registries(&settings, Some(&project.manifest))?;
    let lock = ops::resolve_lock(
        &project.manifest,
        &registries,
        project.locked_versions(),
        project.lock.as_ref(),
    )?;
    ops::commit(
        &settings,
        printer,
        Outcome {
            project: &project,
            manifest_text: None,
            lock,
            hosts: None,
            dry_run: false,
        },
    )
}
