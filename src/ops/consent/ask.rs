//! Asking on a terminal: when both stdin and stderr are terminals (and output is for people), a
//! refusal can become a question. Elsewhere (scripts, CI, `--json`) nothing is asked.

use crate::ui::printer::Printer;

use super::Request;

pub use crate::ui::ask::can_ask;

/// Shows what `source` asks for and asks whether to approve it for this folder; `true` only for
/// an answer starting with `y`. End of input or an error is a no.
pub fn approve_here(printer: &Printer, open: &[&Request], source: &str) -> bool {
    printer.note(super::listing(open, source));
    printer
        .note("Approve these for this folder (recorded in $DOTPACK_HOME/approvals.json)? [y/N] ");
    crate::ui::ask::read_line()
        .is_some_and(|answer| answer.trim_start().to_ascii_lowercase().starts_with('y'))
}
