//! `dotpack rollback [N] [--dry-run]`: restore the project to its state right after generation N
//! (default: the one before the newest), as a new generation ([`crate::ops::rollback`]).
//!
//! The project's own files (dotpack.toml, dotpack.lock, project-scope host files) get their
//! bytes back, host files edited by someone else since are merged entry by entry. User-scope
//! files are shared with other projects, so they are not restored by bytes: the restored
//! manifest and lock are installed again at user scope, through the claims and their owners, as
//! `dotpack install` would. dotpack.toml edited by hand since is never overwritten silently.

use anyhow::Result;
use clap::Args;

use crate::commands::args::StateArgs;
use crate::ops::Settings;
use crate::ops::rollback::{self, RollbackOptions, describe, rollback_json};
use crate::ui::printer::Printer;

#[derive(Debug, Args, Clone)]
pub struct RollbackArgs {
    /// The generation whose state to restore (default: the one before the newest)
    #[arg(value_name = "N")]
    pub generation: Option<u64>,
    /// Show the diff of every file that would change, and write nothing
    #[arg(long)]
    pub dry_run: bool,
    /// Restore dotpack.toml even when it was edited since dotpack last wrote it (the edits are
    /// lost; rollback refuses without this)
    #[arg(long)]
    pub force: bool,
    #[command(flatten)]
    pub state: StateArgs,
}

pub fn run(settings: &Settings, args: RollbackArgs, printer: &Printer) -> Result<()> {
    let options = RollbackOptions {
        generation: args.generation,
        scope: args.state.scope,
        force: args.force,
        dry_run: args.dry_run,
    };
    let planned = rollback::plan(settings, printer, &options)?;
    let (target, plan) = (planned.target, &planned.plan);
    for file in &plan.merged {
        printer.status(
            "Merged",
            format!("{file}: edited by another program since; restored dotpack's entries only"),
        );
    }
    for file in &plan.overwritten {
        printer.warning(format!(
            "{file} was edited since dotpack last wrote it; restored generation {target}'s bytes"
        ));
    }
    if args.dry_run {
        print_dry_run(settings, printer, &planned);
        return Ok(());
    }
    let entries = rollback::entry_changes(&planned, settings);
    let id = rollback::apply(settings, printer, &planned)?;
    // Committed: now say what changed.
    for change in &plan.packages {
        let (verb, _, what) = describe(change);
        printer.status(verb, what);
    }
    for change in &entries {
        let summary = change.summary();
        let what = match summary.is_empty() {
            true => format!("{} ({})", change.file, change.host),
            false => format!("{} ({}): {summary}", change.file, change.host),
        };
        printer.status("Restored", what);
    }
    match id {
        Some(id) => printer.status(
            "Finished",
            format!("generation {id}: the files are as after generation {target}"),
        ),
        None => printer.status(
            "Finished",
            format!("nothing to change: the files are as after generation {target}"),
        ),
    }
    if printer.json {
        printer.json_out(&rollback_json(
            target,
            id,
            &plan.writes,
            &plan.packages,
            false,
        ));
    }
    Ok(())
}

/// What a `--dry-run` rollback would do, and that it wrote nothing.
fn print_dry_run(settings: &Settings, printer: &Printer, planned: &rollback::Planned) {
    let (target, plan) = (planned.target, &planned.plan);
    for change in &plan.packages {
        let (_, infinitive, what) = describe(change);
        printer.status("Would", format!("{infinitive} {what}"));
    }
    for change in rollback::entry_changes(planned, settings) {
        let summary = change.summary();
        if !summary.is_empty() {
            printer.status(
                "Would",
                format!("restore {} ({}): {summary}", change.file, change.host),
            );
        }
    }
    if printer.json {
        printer.json_out(&rollback_json(
            target,
            None,
            &plan.writes,
            &plan.packages,
            true,
        ));
    } else {
        crate::ops::preview::dry_run(printer, &plan.writes);
    }
    printer.warning("dry run: no file was changed");
}
