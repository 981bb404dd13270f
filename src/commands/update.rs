//! `dotpack update [NAME...]`: move locked packages to the newest versions their requirements
//! allow, and reinstall. With names, only those packages move; everything else stays locked.

use std::borrow::Cow;

use crate::commands::args::{InstallArgs, ResolveEnvArgs};
use anyhow::Result;
use clap::Args;

use crate::ops::declare;
use crate::ops::{self, Project, Relock, Settings};
use crate::ui::printer::Printer;

#[derive(Debug, Args, Clone)]
pub struct UpdateArgs {
    /// Only update these packages (default: all)
    #[arg(value_name = "NAME")]
    pub packages: Vec<String>,
    #[command(flatten)]
    pub install: InstallArgs,
    #[command(flatten)]
    pub resolve: ResolveEnvArgs,
}

pub fn run(settings: &Settings, args: UpdateArgs, printer: &Printer) -> Result<()> {
    let mut options = crate::ops::InstallOptions {
        resolve_env: args.resolve.resolve_env,
        ..args.install.options()?
    };
    if !options.hosts.is_empty() || options.scope.is_some() {
        return Err(crate::util::error::Error::usage(
            "`update` moves the locked versions for every host that holds them",
        )
        .help("to install into a host or at a scope, use `dotpack install --host HOST [--scope SCOPE]`")
        .into());
    }
    let project = Project::load(settings, printer)?;
    let mut preferred = project.locked_versions();
    if args.packages.is_empty() {
        preferred.clear();
    } else {
        for given in &args.packages {
            let name = declare::package_name(given);
            if preferred.remove(&name).is_none() {
                crate::bail_help!(
                    help = format!(
                        "`dotpack add {name}` adds it; `dotpack update` with no names updates everything"
                    ),
                    "package `{name}` is not in dotpack.lock"
                );
            }
        }
    }
    // Approved user-scope entries may move to their new versions; packages named are the
    // user's choice.
    options.grant.updating = true;
    let named: Vec<String> = args
        .packages
        .iter()
        .map(|p| declare::package_name(p))
        .collect();
    let relock = Relock {
        preferred,
        options,
        ..Relock::sync(&project, Cow::Borrowed(&project.manifest))
    };
    ops::relock_and_apply(
        settings,
        printer,
        &project,
        None,
        relock,
        |_, lock, relock| {
            relock.options.grant.named = ops::with_dependencies(&named, lock);
            Ok(())
        },
    )
}
