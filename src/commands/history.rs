//! `dotpack history`: the generations, oldest first. `dotpack gc`: drop generations beyond
//! `keep_generations` and the snapshots no remaining generation uses.

use anyhow::Result;

use crate::cli::{GlobalArgs, StateArgs};
use crate::ops::Settings;
use crate::output::Printer;
use crate::txn::{generation, store::Store};

pub fn history(global: &GlobalArgs, args: StateArgs, printer: &Printer) -> Result<()> {
    let settings = Settings::from_global(global)?;
    let (places, _) = crate::ops::state_places(&settings, args.scope)?;
    // An untrusted state folder shows nothing (the command warned about it at start).
    let generations = if places.trusted() {
        generation::load_all(&places.state)?
    } else {
        Vec::new()
    };
    if printer.json {
        printer.json_out(&serde_json::json!({
            "state": places.state.display().to_string(),
            "generations": generations,
        }));
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

pub fn gc(global: &GlobalArgs, args: StateArgs, printer: &Printer) -> Result<()> {
    let settings = Settings::from_global(global)?;
    let (places, keep) = crate::ops::state_places(&settings, args.scope)?;
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
