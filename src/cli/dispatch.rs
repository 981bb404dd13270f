//! Runs one parsed command: recovery first, then the command's `run`, again when another
//! program changed its files between planning and applying.

use anyhow::Result;

use super::Command;
use crate::commands::*;
use crate::ops::Settings;
use crate::ops::replanning;
use crate::ui::printer::Printer;

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
            | Command::Schema
            | Command::Bridge(_)
            | Command::Secret(_)
            | Command::Run(_)
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
        Command::Merge(args) => replanning(printer, || merge::run(settings, args.clone(), printer)),
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
        Command::Package(args) => package::package(settings, &args, printer),
        Command::Publish(args) => publish::publish(settings, &args, printer),
        Command::Yank(args) => yank::yank(settings, &args, printer),
        Command::Doctor(args) => doctor::run(settings, args, printer),
        Command::Hosts => hosts::run(settings, printer),
        Command::Schema => {
            printer.out_bytes(crate::ops::schema_file::TEXT.as_bytes());
            Ok(())
        }
        Command::Trust(args) => trust::run(settings, &args, printer),
        Command::Completions(args) => completions::completions(
            args,
            <super::Cli as clap::CommandFactory>::command(),
            printer,
        ),
        Command::Man(args) => completions::man(
            args,
            <super::Cli as clap::CommandFactory>::command(),
            printer,
        ),
        Command::CompletePackages => completions::packages(settings, printer),
        Command::Probe(args) => probe::probe(settings, args, printer),
        Command::Call(args) => probe::call(settings, args, printer),
        Command::Bridge(args) => bridge::run(args, printer),
        Command::Serve(args) => serve::run(settings, &args, printer),
        Command::Secret(cmd) => secret::run(cmd, printer),
        Command::Run(args) => run::run(args).map(|_| ()),
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
        Command::Merge(a) => writes(a.dry_run),
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
