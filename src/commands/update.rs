//! `dotpack update [NAME...]`: move locked packages to the newest versions their requirements
//! allow. With names, only those packages move; everything else stays locked.

use anyhow::{Result, bail};

use crate::cli::{GlobalArgs, UpdateArgs};
use crate::ops::{self, Finish, NoTargets, Project, Settings};
use crate::output::Printer;
use crate::plan::Mode;

pub fn run(global: &GlobalArgs, args: UpdateArgs, printer: &Printer) -> Result<()> {
    let settings = Settings::from_global(global)?;
    let project = Project::load(&settings)?;
    let mut preferred = project.locked_versions();
    if args.packages.is_empty() {
        preferred.clear();
    } else {
        for name in &args.packages {
            if preferred.remove(name).is_none() {
                bail!(
                    "package `{name}` is not in dotpack.lock\n  help: `dotpack add {name}` adds it; `dotpack update` with no names updates everything"
                );
            }
        }
    }
    let registries = ops::registries(&settings, Some(&project.manifest))?;
    let lock = ops::resolve_lock(
        &project.manifest,
        &registries,
        preferred,
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
            no_targets: NoTargets::Warn,
        },
    )
}
