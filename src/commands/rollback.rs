//! `dotpack rollback [N] [--dry-run]`: restore every file to its state right after generation N
//! (default: the one before the newest), as a new generation.

use anyhow::Result;

use crate::cli::{GlobalArgs, RollbackArgs};
use crate::ops::Settings;
use crate::output::Printer;
use crate::txn::{self, rollback};

pub fn run(global: &GlobalArgs, args: RollbackArgs, printer: &Printer) -> Result<()> {
    let settings = Settings::from_global(global)?;
    let (places, keep) = crate::ops::state_places(&settings, args.state.scope)?;
    if !args.dry_run {
        // Planned under the lock: no other dotpack changes the files in between.
        places.lock(settings.wait, printer)?;
    }
    let generations = places.generations()?;
    let target = match args.generation {
        Some(n) => n,
        None => rollback::default_target(&generations)?,
    };
    let plan = rollback::plan(&places, &generations, target)?;
    for change in &plan.packages {
        let (verb, what) = describe(change);
        printer.status(verb, what);
    }
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
        crate::apply::print_diffs(printer, &plan.writes);
        printer.warning("dry run: no file was changed");
        return Ok(());
    }
    crate::apply::preflight(&plan.writes)?;
    let meta = txn::Meta {
        command: settings.command_line.clone(),
        packages: plan.packages.clone(),
        rollback_to: Some(target),
        merged: plan.merged.clone(),
        keep,
    };
    match txn::apply(&places, &plan.writes, meta, settings.wait, printer)? {
        Some(id) => printer.status(
            "Finished",
            format!("generation {id}: the files are as after generation {target}"),
        ),
        None => printer.status(
            "Finished",
            format!("nothing to change: the files are as after generation {target}"),
        ),
    }
    Ok(())
}

/// The verb and the words for one package change a rollback makes, as `add` and `remove` say
/// them.
fn describe(change: &txn::PackageChange) -> (&'static str, String) {
    match (&change.from, &change.to) {
        (None, Some(to)) => ("Adding", format!("{} v{to}", change.name)),
        (Some(from), None) => ("Removing", format!("{} v{from}", change.name)),
        (Some(from), Some(to)) => ("Restoring", format!("{} v{from} -> v{to}", change.name)),
        (None, None) => ("Restoring", change.name.clone()),
    }
}
