//! One module per command: each reads its arguments, builds settings, and calls the library.

pub mod add;
pub mod adopt;
pub mod bridge;
pub mod completions;
mod declare;
pub mod doctor;
pub mod history;
pub mod hosts;
pub mod import;
mod import_into;
mod import_resources;
pub mod info;
pub mod init;
pub mod install;
pub mod list;
pub mod lock;
pub mod outdated;
pub mod probe;
pub mod publish;
pub mod registry;
pub mod remove;
pub mod rollback;
pub mod search;
pub mod tree;
pub mod trust;
pub mod uninstall;
pub mod update;
pub mod validate;
pub mod verify;

use anyhow::Result;

use crate::cli::Command;
use crate::diag::Diagnostics;
use crate::ops::Settings;
use crate::output::Printer;

pub use crate::ops::{Reported, UsageError};

/// Runs one parsed command, after rolling back any transaction a dead dotpack left half done
/// (except `doctor`, which examines and repairs what stops recovery, and `completions` and
/// `man`, which touch no state).
pub fn run(settings: &Settings, command: Command, printer: &Printer) -> Result<()> {
    // Completions and man pages describe the command line only: they work anywhere, whatever
    // state a folder is in.
    if !matches!(
        command,
        Command::Doctor(_)
            | Command::Completions(_)
            | Command::Man(_)
            | Command::CompletePackages
            | Command::Bridge(_)
    ) {
        recover(settings, access(&command), printer)?;
    }
    match command {
        Command::Init(args) => init::run(settings, args, printer),
        Command::Add(args) => replanning(printer, || add::run(settings, args.clone(), printer)),
        Command::Remove(args) => {
            replanning(printer, || remove::run(settings, args.clone(), printer))
        }
        Command::Lock(args) => replanning(printer, || lock::run(settings, &args, printer)),
        Command::Update(args) => {
            replanning(printer, || update::run(settings, args.clone(), printer))
        }
        Command::Search(args) => search::run(settings, args, printer),
        Command::Info(args) => info::run(settings, args, printer),
        Command::Install(args) => {
            replanning(printer, || install::run(settings, args.clone(), printer))
        }
        Command::Uninstall(args) => {
            replanning(printer, || uninstall::run(settings, args.clone(), printer))
        }
        Command::Adopt(args) => replanning(printer, || adopt::run(settings, args.clone(), printer)),
        Command::Import(args) => {
            replanning(printer, || import::run(settings, args.clone(), printer))
        }
        Command::History(args) => history::history(settings, args, printer),
        Command::Rollback(args) => {
            replanning(printer, || rollback::run(settings, args.clone(), printer))
        }
        Command::Gc(args) => history::gc(settings, args, printer),
        Command::List(args) => list::run(settings, args, list::View::List, printer),
        Command::Status(args) => list::run(settings, args, list::View::Status, printer),
        Command::Validate(args) => validate::run(settings, args, printer),
        Command::Tree(args) => tree::tree(settings, args, printer),
        Command::Why(args) => tree::why(settings, args, printer),
        Command::Outdated => outdated::run(settings, printer),
        Command::Registry(cmd) => registry::run(cmd, printer),
        Command::Package(args) => publish::package(settings, &args, printer),
        Command::Publish(args) => publish::publish(settings, &args, printer),
        Command::Yank(args) => publish::yank(settings, &args, printer),
        Command::Doctor(args) => doctor::run(settings, args, printer),
        Command::Hosts => hosts::run(settings, printer),
        Command::Trust(args) => trust::run(settings, &args, printer),
        Command::Completions(args) => completions::completions(args, printer),
        Command::Man(args) => completions::man(args, printer),
        Command::CompletePackages => completions::packages(settings, printer),
        Command::Probe(args) => probe::probe(settings, args, printer),
        Command::Call(args) => probe::call(settings, args, printer),
        Command::Bridge(args) => bridge::run(args, printer),
        Command::Verify(args) => replanning(printer, || verify::run(settings, &args, printer)),
    }
}

/// Whether `command` changes dotpack's state (generations, snapshots, claims), so that an
/// untrusted state folder stops it before it starts, or only reads.
fn access(command: &Command) -> crate::txn::Access {
    use crate::txn::Access::{Read, Write};
    let writes = |dry_run: bool| if dry_run { Read } else { Write };
    match command {
        Command::Add(a) => writes(a.install.dry_run),
        Command::Remove(a) => writes(a.install.dry_run),
        Command::Update(a) => writes(a.install.dry_run),
        Command::Install(a) => writes(a.install.dry_run),
        Command::Uninstall(a) => writes(a.install.dry_run),
        Command::Adopt(a) => writes(a.install.dry_run),
        Command::Import(a) if a.into => writes(a.dry_run),
        Command::Rollback(a) => writes(a.dry_run),
        Command::Init(a) => writes(a.dry_run),
        Command::Lock(a) => writes(a.dry.dry_run),
        Command::Verify(a) => writes(!a.update),
        Command::Gc(a) => writes(a.dry_run),
        _ => Read,
    }
}

/// Before anything else: a journal left by a dotpack that died midway is rolled back.
fn recover(settings: &Settings, access: crate::txn::Access, printer: &Printer) -> Result<()> {
    let root = crate::ops::project_root(settings);
    crate::txn::recover_at_start(
        &settings.boundary(root.as_deref()),
        access,
        settings.wait,
        printer,
    )
}

/// Runs a writing command, and runs it again (planning on the new bytes) when another program
/// changed one of its files between planning and applying. The lock taken by the first attempt
/// is kept, so the next attempt plans with no other dotpack in between.
fn replanning(printer: &Printer, mut command: impl FnMut() -> Result<()>) -> Result<()> {
    const ATTEMPTS: usize = 5;
    for _ in 1..ATTEMPTS {
        match command() {
            Err(err) if err.downcast_ref::<crate::txn::Conflict>().is_some() => {
                printer.status("Replanning", format!("{err}"));
            }
            other => return other,
        }
    }
    command()
}

/// A `--timeout SECS` flag as a duration: a positive number of seconds, at most an hour.
pub fn timeout_flag(secs: f64) -> Result<std::time::Duration> {
    if !(secs.is_finite() && secs > 0.0) {
        return Err(
            UsageError("--timeout must be a positive number of seconds".to_string()).into(),
        );
    }
    Ok(std::time::Duration::from_secs_f64(secs.min(3600.0)))
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
    if err.downcast_ref::<Reported>().is_some() {
        return;
    }
    if printer.json {
        printer.json_out(&error_json(err));
    }
    if let Some(diags) = err.downcast_ref::<Diagnostics>() {
        for diag in &diags.0 {
            printer.diagnostic(diag);
        }
        return;
    }
    printer.error(format!("{err:#}"));
}

/// A failed command under `--json`: one document on stdout, so a script reads why as it reads a
/// result. `{"schema": 1, "error": {"code", "message", "help", "file", "key_path", "line",
/// "column"}, "diagnostics": [...]}`; the fields a message has no value for are `null`.
pub fn error_json(err: &anyhow::Error) -> serde_json::Value {
    use serde_json::json;
    if let Some(diags) = err.downcast_ref::<Diagnostics>() {
        let first = diags.0.iter().find(|d| d.is_error()).or(diags.0.first());
        return json!({
            "schema": 1,
            "error": first.map(|d| json!({
                "code": d.code,
                "message": d.message,
                "help": d.help,
                "file": d.file.display().to_string(),
                "key_path": d.key_path,
                "line": d.line,
                "column": d.column,
            })),
            "diagnostics": diags.0,
        });
    }
    let text = format!("{err:#}");
    // Messages say their fix after a `help:` line.
    let (message, help) = match text.split_once("\n  help: ") {
        Some((message, help)) => (message.to_string(), Some(help.to_string())),
        None => (text, None),
    };
    let code = if err.downcast_ref::<UsageError>().is_some() {
        "usage"
    } else {
        "error"
    };
    json!({
        "schema": 1,
        "error": {
            "code": code,
            "message": message,
            "help": help,
            "file": null,
            "key_path": null,
            "line": null,
            "column": null,
        },
        "diagnostics": [],
    })
}
