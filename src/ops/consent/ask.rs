//! Asking on a terminal: when both stdin and stderr are terminals (and output is for people), a
//! refusal can become a question. Elsewhere (scripts, CI, `--json`) nothing is asked.

use std::io::BufRead;

use crate::ui::printer::Printer;

use super::Request;

pub use crate::ui::ask::can_ask;

/// Shows what `source` asks for and asks whether to approve it for this folder; `true` only for
/// an answer starting with `y`. End of input or an error is a no.
pub fn approve_here(printer: &Printer, open: &[&Request], source: &str) -> bool {
    printer.note(super::listing(open, source));
    printer
        .note("Approve these for this folder (recorded in $DOTPACK_HOME/approvals.json)? [y/N] ");
    let mut answer = String::new();
    match std::io::stdin().lock().read_line(&mut answer) {
        Ok(0) | Err(_) => false,
        Ok(_) => answer.trim_start().to_ascii_lowercase().starts_with('y'),
    }
}
