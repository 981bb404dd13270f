//! `dotpack uninstall [PACKAGE...]`: remove dotpack's entries from the target host files, for the
//! named packages or all of them. dotpack.toml and the locked versions stay; `dotpack install`
//! puts the entries back.

use anyhow::{Result, bail};

use crate::cli::{GlobalArgs, UninstallArgs};
use crate::ops::{self, Finish, NoTargets, Project, Settings};
use crate::output::Printer;
use crate::plan::Mode;

pub fn run(global: &GlobalArgs, args: UninstallArgs, printer: &Printer) -> Result<()> {
    let settings = Settings::from_global(global)?;
    let project = Project::load(&settings)?;
    let registries = ops::registries(&settings, Some(&project.manifest))?;
    let Some(lock) = project.lock.clone() else {
        bail!(
            "there is no dotpack.lock, so nothing is installed\n  help: `dotpack install` installs the packages of dotpack.toml"
        );
    };
    for name in &args.packages {
        if lock.get(name).is_none() {
            bail!("package `{name}` is not in dotpack.lock");
        }
    }
    let mut kept = lock.clone();
    kept.packages
        .retain(|p| !args.packages.is_empty() && !args.packages.contains(&p.name));
    ops::finish(
        &settings,
        printer,
        &project,
        &registries,
        Finish {
            manifest: &project.manifest,
            manifest_text: None,
            lock: kept,
            args: &args.install,
            mode: Mode::Uninstall,
            no_targets: NoTargets::Fail,
        },
    )
}
