//! `dotpack merge`: finish a git merge that left conflict markers in dotpack.toml, dotpack.lock
//! or host files dotpack writes (see [`crate::ops::merge`]), then install as `dotpack install`
//! does, in one transaction.

use std::borrow::Cow;

use anyhow::Result;
use clap::Args;

use crate::ops::{self, Project, Relock, Settings};
use crate::ui::printer::Printer;

#[derive(Debug, Args, Clone)]
pub struct MergeArgs {
    /// Drop fields a host cannot express while installing the merged state (as for `install`)
    #[arg(long, value_name = "FIELDS", num_args = 0..=1, require_equals = true, value_delimiter = ',', action = clap::ArgAction::Append, default_missing_value = "")]
    pub allow_lossy: Vec<String>,
    /// Show what merging would write, and write nothing
    #[arg(long)]
    pub dry_run: bool,
}

pub fn run(settings: &Settings, args: MergeArgs, printer: &Printer) -> Result<()> {
    let (settled, edits) = ops::merge::settle(settings)?;
    if settled.is_empty() {
        printer.status(
            "Nothing",
            "to merge: dotpack.toml, dotpack.lock and the host files dotpack wrote have no conflict markers",
        );
        return Ok(());
    }
    let project = Project::load_settled(settings, printer, false, settled)?;
    let manifest_text = project.settled.manifest.as_ref().map(|m| m.united.clone());
    let mut relock = Relock {
        manifest_text,
        edits,
        ..Relock::sync(&project, Cow::Borrowed(&project.manifest))
    };
    relock.options.dry_run = args.dry_run;
    relock.options.lossy = crate::commands::args::lossy_policy(&args.allow_lossy)?;
    ops::relock_and_apply(settings, printer, &project, None, relock, |_, _, _| Ok(()))
}
