//! `dotpack validate [PATH]`: print every problem of a manifest; exit 1 on errors.

use anyhow::Result;

use crate::cli::{GlobalArgs, ValidateArgs};
use crate::output::Printer;

pub fn run(global: &GlobalArgs, args: ValidateArgs, printer: &Printer) -> Result<()> {
    let _ = (global, args, printer);
    anyhow::bail!("`dotpack validate` is not implemented yet")
}
