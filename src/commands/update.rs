//! `dotpack update [NAME...]`: move locked packages to the newest versions their requirements
//! allow, and reinstall. With names, only those packages move; everything else stays locked.

use anyhow::{Result, bail};

use crate::cli::UpdateArgs;
use crate::commands::declare;
use crate::ops::{self, Finish, Project, Settings};
use crate::output::Printer;
use crate::plan::Mode;

pub fn run(settings: &Settings, args: UpdateArgs, printer: &Printer) -> Result<()> {
    let mut options = crate::ops::InstallOptions {
        resolve_env: args.resolve.resolve_env,
        ..args.install.options()?
    };
    let project = Project::load(settings, printer)?;
    let mut preferred = project.locked_versions();
    if args.packages.is_empty() {
        preferred.clear();
    } else {
        for given in &args.packages {
            let name = declare::package_name(given);
            if preferred.remove(&name).is_none() {
                bail!(
                    "package `{name}` is not in dotpack.lock\n  help: `dotpack add {name}` adds it; `dotpack update` with no names updates everything"
                );
            }
        }
    }
    let registries = ops::registries(settings, Some(&project.manifest))?;
    let lock = ops::resolve_lock(
        &project.manifest,
        &registries,
        preferred,
        project.lock.as_ref(),
    )?;
    // Approved user-scope entries may move to their new versions; packages named are the
    // user's choice.
    options.grant.updating = true;
    let named: Vec<String> = args
        .packages
        .iter()
        .map(|p| declare::package_name(p))
        .collect();
    options.grant.named = ops::with_dependencies(&named, &lock);
    ops::finish(
        settings,
        printer,
        &project,
        &registries,
        Finish {
            manifest: &project.manifest,
            manifest_text: None,
            lock,
            options: &options,
            mode: Mode::Sync,
            edits: Vec::new(),
        },
    )
}
