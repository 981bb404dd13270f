//! `dotpack search WORDS`: find packages by name, keywords and description
//! ([`crate::ops::search`]).

use anyhow::Result;
use clap::Args;

use crate::ops::Settings;
use crate::ops::search::{self, Hit};
use crate::ui::printer::Printer;

#[derive(Debug, Args, Clone)]
pub struct SearchArgs {
    /// Words to look for
    #[arg(required = true)]
    pub query: Vec<String>,
    /// Show at most this many results
    #[arg(long, default_value_t = 20)]
    pub limit: usize,
}

pub fn run(settings: &Settings, args: SearchArgs, printer: &Printer) -> Result<()> {
    let hits = search::search(settings, printer, &args.query)?;
    let (hits, total) = search::best(hits, args.limit);
    if printer.json {
        printer.json_out(&search::json_report(&hits, total));
        return Ok(());
    }
    if hits.is_empty() {
        printer.note(format!("no packages match `{}`", args.query.join(" ")));
        return Ok(());
    }
    print_hits(printer, &hits);
    if total > hits.len() {
        printer.note(format!("... and {} more (use --limit)", total - hits.len()));
    }
    Ok(())
}

/// One line per hit: `NAME = "VERSION"  # description (registry R)`, aligned.
fn print_hits(printer: &Printer, hits: &[Hit]) {
    let width = hits
        .iter()
        .map(|h| h.line.name.len() + h.line.vers.to_string().len())
        .max()
        .unwrap_or(0);
    for hit in hits {
        let head = match &hit.refused {
            Some((version, _)) => format!("{} = \"{version}\"", hit.line.name),
            None => format!("{} = \"{}\"", hit.line.name, hit.line.vers),
        };
        let desc = match &hit.refused {
            Some((_, reason)) => format!("cannot be installed: {reason}"),
            None => hit.line.description.clone().unwrap_or_default(),
        };
        let from = hit
            .registry
            .as_ref()
            .map(|r| format!(" (registry {r})"))
            .unwrap_or_default();
        printer.out(format!("{head:<w$}  # {desc}{from}", w = width + 5));
    }
}
