//! `dotpack add NAME[@REQ]...`: add packages to dotpack.toml (edited in place), lock them and
//! install them into the target hosts ([`ops::add`]).
//!
//! Without a requirement, the newest stable version decides it: `figma` 0.3.1 is written as
//! `figma = "^0.3"`, as `cargo add` and `uv add` do.

use anyhow::Result;
use clap::Args;

use crate::commands::args::{InstallArgs, ResolveEnvArgs};
use crate::model::hosts::Scope;
use crate::ops::{self, AddOptions, Project, Settings};
use crate::ui::printer::Printer;

#[derive(Debug, Args, Clone)]
pub struct AddArgs {
    /// Packages to add, as NAME or NAME@REQUIREMENT (e.g. figma, github@^1.2, time@=0.2.0)
    #[arg(required = true, value_name = "NAME[@REQ]")]
    pub packages: Vec<String>,
    /// Set an input of the added package: --set port=4000 (repeatable)
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
    /// The name the package's server gets in the hosts, instead of its own (records
    /// `entries = { SERVER = "ENTRY" }`): two packages whose servers share a name can both be
    /// installed
    #[arg(long = "as", value_name = "ENTRY")]
    pub entry: Option<String>,
    /// Start the added packages' servers through `dotpack run`, which gives them their secrets
    /// from the OS credential store (`dotpack secret set`), in every host, even one that passes
    /// no environment (records `launcher = true` on each)
    #[arg(long)]
    pub launcher: bool,
    #[command(flatten)]
    pub install: InstallArgs,
    #[command(flatten)]
    pub resolve: ResolveEnvArgs,
}

pub fn run(settings: &Settings, args: AddArgs, printer: &Printer) -> Result<()> {
    let install = crate::ops::InstallOptions {
        resolve_env: args.resolve.resolve_env,
        ..args.install.options()?
    };
    let inputs = ops::parse_inputs(&args.set)?;
    if !inputs.is_empty() && args.packages.len() != 1 {
        return Err(crate::util::error::Error::usage(
            "--set needs exactly one package: `dotpack add NAME --set KEY=VALUE`",
        )
        .into());
    }
    if args.entry.is_some() && args.packages.len() != 1 {
        return Err(crate::util::error::Error::usage(
            "--as needs exactly one package: `dotpack add NAME --as ENTRY`",
        )
        .into());
    }
    if settings.global && install.scope == Some(Scope::Project) {
        return Err(crate::util::error::Error::usage(
            "--global installs into your user-scope files; --scope project does not apply",
        )
        .into());
    }
    let project = Project::load_or_create(settings, printer, settings.global)?;
    let dry_run = install.dry_run;
    let options = AddOptions {
        packages: args.packages,
        inputs,
        entry: args.entry,
        launcher: args.launcher,
        install,
    };
    let needed = ops::add(settings, printer, &project, options)?;
    if !dry_run {
        let needed = ops::ask_secrets(printer, &project.manifest.manifest, needed)?;
        ops::print_environment_needed(printer, &needed);
    }
    Ok(())
}
