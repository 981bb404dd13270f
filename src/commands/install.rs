//! `dotpack install`: make every target host file match dotpack.lock — write missing entries,
//! update changed ones, remove claimed entries whose package is gone. Locks first when the lock
//! is missing or stale (as `uv sync` does); `--locked` refuses that.

use anyhow::Result;

use crate::cli::{GlobalArgs, InstallCmdArgs};
use crate::ops::{self, Finish, NoTargets, Project, Settings};
use crate::output::Printer;
use crate::plan::Mode;

pub fn run(global: &GlobalArgs, args: InstallCmdArgs, printer: &Printer) -> Result<()> {
    let settings = Settings::from_global(global)?;
    let project = Project::load(&settings)?;
    let registries = ops::registries(&settings, Some(&project.manifest))?;
    let lock = ops::resolve_lock(
        &project.manifest,
        &registries,
        project.locked_versions(),
        project.lock.as_ref(),
    )?;
    ops::finish(
        &settings,
        printer,
        &project,
        &registries,
        Finish {
            manifest: &project.manifest,
            manifest_text: None,
            lock,
            args: &args.install,
            mode: Mode::Sync,
            no_targets: NoTargets::Fail,
        },
    )
}
