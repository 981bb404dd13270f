//! `dotpack yank NAME@VERSION`: mark a version in a registry folder as not to be chosen (or
//! clear the mark with `--undo`).

use std::path::PathBuf;

use anyhow::Result;
use clap::Args;

use crate::ops::Settings;
use crate::ops::publish::{build_error, index_folder};
use crate::registry::publish::{self, YankOutcome};
use crate::ui::printer::Printer;

#[derive(Debug, Args, Clone)]
pub struct YankArgs {
    /// The version to yank, as NAME@VERSION
    #[arg(value_name = "NAME@VERSION")]
    pub package: String,
    /// The registry folder. Default: --registry or DOTPACK_REGISTRY when it is a folder
    #[arg(long, value_name = "DIR")]
    pub index: Option<PathBuf>,
    /// Clear the yanked mark instead
    #[arg(long)]
    pub undo: bool,
}

pub fn yank(settings: &Settings, args: &YankArgs, printer: &Printer) -> Result<()> {
    let Some((name, version)) = args.package.split_once('@') else {
        return Err(crate::util::error::Error::usage(format!(
            "`{}` names no version: write NAME@VERSION, like figma@0.3.1",
            args.package
        ))
        .into());
    };
    let version: semver::Version = version.trim_start_matches('=').parse().map_err(|e| {
        crate::util::error::Error::usage(format!(
            "`{version}` in `{}` is not a version ({e}): write NAME@VERSION, like figma@0.3.1",
            args.package
        ))
    })?;
    let index = index_folder(settings, args.index.as_deref(), "yank")?;
    let outcome = publish::yank(&index, name, &version, !args.undo).map_err(build_error)?;
    let (verb, state) = if args.undo {
        ("Unyanked", "not yanked")
    } else {
        ("Yanked", "already yanked")
    };
    match outcome {
        YankOutcome::Changed(_) => printer.status(verb, format!("{name} {version}")),
        YankOutcome::Unchanged => {
            printer.note(format!("{name} {version} is {state}; nothing to do"))
        }
    }
    Ok(())
}
