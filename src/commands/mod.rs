//! One module per command: each reads its arguments, builds settings, and calls the library.

pub mod add;
pub mod adopt;
pub mod info;
pub mod init;
pub mod install;
pub mod list;
pub mod lock;
pub mod registry;
pub mod remove;
pub mod search;
pub mod uninstall;
pub mod update;
pub mod validate;

use anyhow::Result;

use crate::cli::{Command, GlobalArgs};
use crate::diag::Diagnostics;
use crate::output::Printer;

/// Bad usage that clap cannot see (e.g. `--set` with two packages): exit code 2.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct UsageError(pub String);

/// Runs one parsed command.
pub fn run(global: &GlobalArgs, command: Command, printer: &Printer) -> Result<()> {
    match command {
        Command::Init(args) => init::run(global, args, printer),
        Command::Add(args) => add::run(global, args, printer),
        Command::Remove(args) => remove::run(global, args, printer),
        Command::Lock => lock::run(global, printer),
        Command::Update(args) => update::run(global, args, printer),
        Command::Search(args) => search::run(global, args, printer),
        Command::Info(args) => info::run(global, args, printer),
        Command::Install(args) => install::run(global, args, printer),
        Command::Uninstall(args) => uninstall::run(global, args, printer),
        Command::Adopt(args) => adopt::run(global, args, printer),
        Command::List(args) => list::run(global, args, list::View::List, printer),
        Command::Status(args) => list::run(global, args, list::View::Status, printer),
        Command::Validate(args) => validate::run(global, args, printer),
        Command::Registry(cmd) => registry::run(global, cmd, printer),
    }
}

/// The exit code for a failed command: 2 for bad usage, 1 for everything else.
pub fn exit_code(err: &anyhow::Error) -> u8 {
    if err.downcast_ref::<UsageError>().is_some() {
        2
    } else {
        1
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
