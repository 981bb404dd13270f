//! `dotpack history`: the generations, oldest first. `dotpack gc`: drop generations beyond
//! `keep_generations` and the snapshots no remaining generation uses.

use anyhow::Result;

use crate::commands::args::{GcArgs, StateArgs};
use crate::ops::Settings;
use crate::txn::{generation, store::Store};
use crate::ui::printer::Printer;

pub fn history(settings: &Settings, args: StateArgs, printer: &Printer) -> Result<()> {
    let (state, generations) = crate::ops::history::generations(settings, args.scope)?;
    if printer.json {
        printer.json_out(&crate::ops::history::json_report(&state, &generations));
        return Ok(());
    }
    if generations.is_empty() {
        printer.note("no generations yet: dotpack records one each time a command changes files");
        return Ok(());
    }
    let width = generations
        .iter()
        .map(|g| g.command.join(" ").len())
        .max()
        .unwrap_or(0)
        .max(7);
    printer.out(format!(
        "{:>4}  {:<20}  {:<width$}  summary",
        "gen", "time", "command"
    ));
    for g in &generations {
        let command = g.command.join(" ");
        printer.out(format!(
            "{:>4}  {:<20}  {:<width$}  {}",
            g.id,
            g.time,
            command,
            g.summary()
        ));
    }
    Ok(())
}

pub fn gc(settings: &Settings, args: GcArgs, printer: &Printer) -> Result<()> {
    let (places, keep) = crate::ops::state_places(settings, args.state.scope)?;
    if args.dry_run {
        return gc_dry_run(&places, keep, printer);
    }
    places.lock(settings.wait, printer)?;
    let pruned = generation::prune(&places.state, keep)?;
    let referenced = generation::referenced(&generation::load_all(&places.state)?);
    let (count, bytes) = Store::new(&places.state).prune(&referenced)?;
    if printer.json {
        printer.json_out(&serde_json::json!({
            "generations_removed": pruned,
            "snapshots_removed": count,
            "bytes_freed": bytes,
        }));
        return Ok(());
    }
    printer.status(
        "Removed",
        format!(
            "{pruned} old generation{}, {count} unused snapshot{} ({bytes} bytes)",
            if pruned == 1 { "" } else { "s" },
            if count == 1 { "" } else { "s" }
        ),
    );
    Ok(())
}

/// What `gc` would delete: the oldest generations beyond `keep`, and the snapshots only they
/// (or nothing) refer to.
fn gc_dry_run(places: &crate::txn::Places, keep: usize, printer: &Printer) -> Result<()> {
    let state = &places.state;
    // An untrusted state folder is left alone (the command warned about it at start).
    let generations = if places.trusted() {
        generation::load_all(state)?
    } else {
        Vec::new()
    };
    let drop = generations.len().saturating_sub(keep.max(1));
    let referenced = generation::referenced(&generations[drop..]);
    let unused = if places.trusted() {
        Store::new(state).unused(&referenced)
    } else {
        Vec::new()
    };
    let bytes: u64 = unused.iter().map(|(_, size)| size).sum();
    if printer.json {
        printer.json_out(&serde_json::json!({
            "dry_run": true,
            "generations_removed": drop,
            "snapshots_removed": unused.len(),
            "bytes_freed": bytes,
        }));
        return Ok(());
    }
    for g in &generations[..drop] {
        printer.status(
            "Would",
            format!("remove generation {} ({})", g.id, g.command.join(" ")),
        );
    }
    printer.status(
        "Would",
        format!(
            "remove {drop} old generation{}, {} unused snapshot{} ({bytes} bytes)",
            if drop == 1 { "" } else { "s" },
            unused.len(),
            if unused.len() == 1 { "" } else { "s" }
        ),
    );
    printer.warning("dry run: no file was changed");
    Ok(())
}
