//! `dotpack registry build`: generate an index and archives from a folder of manifests.

use anyhow::Result;

use crate::commands::args::{RegistryBuildArgs, RegistryCommand};
use crate::registry::build::{BuildError, build};
use crate::ui::diag::display_path;
use crate::ui::printer::Printer;

pub fn run(command: RegistryCommand, printer: &Printer) -> Result<()> {
    match command {
        RegistryCommand::Build(args) => run_build(&args, printer),
    }
}

fn run_build(args: &RegistryBuildArgs, printer: &Printer) -> Result<()> {
    let report = build(&args.source, &args.out, args.check).map_err(|err| match err {
        // Diagnostics travel as themselves so they are printed with their source excerpt.
        BuildError::Manifest(diags) => anyhow::Error::from(diags),
        other => anyhow::Error::from(other),
    })?;
    if args.check {
        if report.changed_files.is_empty() {
            printer.status(
                "Checked",
                format!("{} is up to date", display_path(&args.out)),
            );
            return Ok(());
        }
        let files: Vec<String> = report
            .changed_files
            .iter()
            .map(|path| format!("  {}", display_path(path)))
            .collect();
        crate::bail_help!(
            help = "run `dotpack registry build` and commit the result",
            "{} is out of date; these files would change:\n{}",
            display_path(&args.out),
            files.join("\n")
        );
    }
    for line in &report.added {
        printer.status("Adding", format!("{} {}", line.name, line.vers));
    }
    printer.status(
        "Finished",
        format!(
            "{}: {} added, {} unchanged, {} file{} written",
            display_path(&args.out),
            report.added.len(),
            report.unchanged,
            report.changed_files.len(),
            if report.changed_files.len() == 1 {
                ""
            } else {
                "s"
            }
        ),
    );
    Ok(())
}
