//! `dotpack uninstall [NAME...]`: take entries out of the host files, and record that in
//! dotpack.toml so the next `install`, and a teammate's clone, agree: named packages or servers
//! go into `exclude` (of the project, or of the hosts given with `--host`); with no names, the
//! hosts given (or every host) leave `[project] hosts`. The lock's packages never change:
//! `dotpack install NAME` or `dotpack install --host HOST` puts the entries back
//! ([`crate::ops::uninstall`]).

use anyhow::Result;
use clap::Args;

use crate::commands::args::InstallArgs;
use crate::ops::{Project, Settings};
use crate::ui::printer::Printer;

#[derive(Debug, Args, Clone)]
pub struct UninstallArgs {
    /// Packages or servers to take out (default: all, from the hosts given or every host)
    #[arg(value_name = "NAME")]
    pub packages: Vec<String>,
    #[command(flatten)]
    pub install: InstallArgs,
}

pub fn run(settings: &Settings, args: UninstallArgs, printer: &Printer) -> Result<()> {
    let options = args.install.options()?;
    let project = Project::load(settings, printer)?;
    let commands =
        crate::ops::uninstall::uninstall(settings, printer, &project, &options, &args.packages)?;
    if !options.dry_run && !commands.is_empty() {
        let verb = if commands.len() == 1 { "puts" } else { "put" };
        printer.note(format!("`{}` {verb} them back", commands.join("` and `")));
    }
    Ok(())
}
