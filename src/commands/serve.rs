//! `dotpack serve`: the project's servers behind one stdio MCP server, on this process's stdin
//! and stdout, until stdin ends ([`crate::ops::gateway`]). What a host runs for the one entry
//! `[project] gateway = true` installs.

use anyhow::Result;

use crate::ops::{Project, Settings};
use crate::ui::printer::Printer;

pub fn run(settings: &Settings, printer: &Printer) -> Result<()> {
    let project = Project::load(settings, printer)?;
    crate::ops::gateway::serve(settings, printer, &project)
}
