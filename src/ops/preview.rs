//! What `--dry-run` shows of a planned transaction: a line per file it would change, then the
//! diffs. Nothing is written.

use crate::txn::files::FileWrite;
use crate::ui::Printer;

/// Prints "Would create/update/delete FILE" for every changed file, then its unified diff.
pub fn dry_run(printer: &Printer, writes: &[FileWrite]) {
    let changed = || writes.iter().filter(|w| w.is_changed());
    for w in changed() {
        let verb = match (&w.before, &w.after) {
            (None, _) => "create",
            (_, None) => "delete",
            _ => "update",
        };
        printer.status("Would", format!("{verb} {}", w.display));
    }
    for w in changed() {
        let before = w.before.as_deref().unwrap_or("");
        let after = w.after.as_deref().unwrap_or("");
        printer.diff(&crate::ui::diff::unified(&w.display, before, after));
    }
}
