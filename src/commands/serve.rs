//! `dotpack serve`: the project's servers behind one stdio MCP server, on this process's stdin
//! and stdout, until stdin ends ([`crate::ops::gateway`]). What a host runs for the one entry
//! `[project] gateway = true` installs.

use anyhow::Result;
use clap::Args;

use crate::ops::{Project, Settings};
use crate::ui::printer::Printer;

/// `dotpack serve`: how long a server may sit unused.
#[derive(Debug, Args, Clone)]
pub struct ServeArgs {
    /// Stop a server that has had no call for this many seconds (0: keep every server running
    /// until the host closes the gateway); its next call starts it again
    #[arg(long, value_name = "SECS", default_value_t = 300.0)]
    pub idle: f64,
}

pub fn run(settings: &Settings, args: &ServeArgs, printer: &Printer) -> Result<()> {
    if !(args.idle.is_finite() && args.idle >= 0.0) {
        return Err(crate::util::error::Error::usage(
            "--idle must be a number of seconds, 0 or more",
        )
        .into());
    }
    let idle =
        (args.idle > 0.0).then(|| std::time::Duration::from_secs_f64(args.idle.min(86_400.0)));
    let project = Project::load(settings, printer)?;
    crate::ops::gateway::serve(settings, printer, &project, idle)
}
