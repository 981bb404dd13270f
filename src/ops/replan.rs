//! Retrying a writing command whose files another program changed under it.

use anyhow::Result;

use crate::ui::printer::Printer;

/// Runs a writing command, and runs it again (planning on the new bytes) when another program
/// changed one of its files between planning and applying. The lock taken by the first attempt
/// is kept, so the next attempt plans with no other dotpack in between.
pub fn replanning(printer: &Printer, mut command: impl FnMut() -> Result<()>) -> Result<()> {
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
