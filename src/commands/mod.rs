//! One module per command: each reads its arguments, builds settings, and calls the library.

pub mod registry;
pub mod validate;

use anyhow::Result;

use crate::cli::{Command, GlobalArgs};
use crate::diag::Diagnostics;
use crate::output::Printer;

/// Runs one parsed command.
pub fn run(global: &GlobalArgs, command: Command, printer: &Printer) -> Result<()> {
    match command {
        Command::Validate(args) => validate::run(global, args, printer),
        Command::Registry(cmd) => registry::run(global, cmd, printer),
        _ => anyhow::bail!("not implemented yet"),
    }
}

/// Prints a command's error: diagnostics with their source excerpt, anything else as a chain.
pub fn report_error(printer: &Printer, err: &anyhow::Error) {
    if let Some(diags) = err.downcast_ref::<Diagnostics>() {
        for diag in &diags.0 {
            printer.diagnostic(diag);
        }
        return;
    }
    printer.error(format!("{err:#}"));
}
