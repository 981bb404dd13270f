//! `dotpack init [PATH]`: create a dotpack.toml targeting the hosts found on this machine, and
//! keep dotpack's own state folder out of version control. Written as a transaction, so
//! `dotpack history` shows it and `dotpack rollback` undoes it ([`crate::ops::init`]).

use std::path::PathBuf;

use anyhow::Result;
use clap::Args;

use crate::ops::Settings;
use crate::ops::init::{self, InitOptions};
use crate::ui::printer::Printer;

#[derive(Debug, Args, Clone)]
pub struct InitArgs {
    /// Folder to create dotpack.toml in (default: the current folder)
    pub path: Option<PathBuf>,
    /// Show the files init would write, and write nothing
    #[arg(long)]
    pub dry_run: bool,
    /// Also make the servers the detected hosts already have the project's own servers
    /// (`dotpack import HOST --into` for each)
    #[arg(long)]
    pub import: bool,
}

pub fn run(settings: &Settings, args: InitArgs, printer: &Printer) -> Result<()> {
    let options = InitOptions {
        path: args.path,
        import: args.import,
    };
    let planned = init::plan(settings, printer, &options)?;
    if args.dry_run {
        if printer.json {
            printer.json_out(&init::report(&planned, true, None));
        } else {
            crate::ops::preview::dry_run(printer, &planned.writes);
        }
        for source in &planned.sources {
            printer.status("Would", format!("import the servers of {}", source.display));
        }
        printer.warning("dry run: no file was changed");
        return Ok(());
    }
    let id = init::apply(settings, printer, &planned)?;
    printer.status("Created", crate::ui::diag::display_path(&planned.path));
    if let Some(ignore) = planned.writes.get(1) {
        let verb = if ignore.before.is_none() {
            "Created"
        } else {
            "Updated"
        };
        printer.status(verb, ".gitignore: ignoring .dotpack/");
    }
    if planned.detected.is_empty() {
        printer.note(
            "no AI host found here or in your home folder; add the hosts to install into with `dotpack install --host HOST` (or `--host` on `dotpack add`)",
        );
    } else {
        printer.note(format!("installing into: {}", planned.detected.join(", ")));
    }
    if let Some(id) = id {
        printer.status("Finished", format!("generation {id}"));
    }
    if printer.json && planned.sources.is_empty() {
        printer.json_out(&init::report(&planned, false, id));
    }
    if !planned.sources.is_empty() {
        init::import(settings, printer, planned)?;
    }
    Ok(())
}
