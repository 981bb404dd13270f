//! `dotpack registry build`: generate an index and archives from a folder of manifests.

use anyhow::Result;

use crate::cli::{GlobalArgs, RegistryCommand};
use crate::output::Printer;

pub fn run(global: &GlobalArgs, command: RegistryCommand, printer: &Printer) -> Result<()> {
    let _ = (global, command, printer);
    anyhow::bail!("`dotpack registry build` is not implemented yet")
}
