//! Asking on a terminal: when both stdin and stderr are terminals (and output is for people), a
//! refusal can become a question. Elsewhere (scripts, CI, `--json`, `--quiet`) nothing is asked,
//! and the command fails with the flag that would have answered it.

use std::io::{BufRead, IsTerminal};

use super::printer::Printer;

/// Whether the user can be asked: a terminal on stdin and stderr, and neither `--json` nor
/// `--quiet`.
pub fn can_ask(printer: &Printer) -> bool {
    !printer.json
        && !printer.quiet
        && std::io::stdin().is_terminal()
        && std::io::stderr().is_terminal()
}

/// Shows `question` and reads one line. `None` for an empty answer, the end of input or an error.
pub fn line(printer: &Printer, question: &str) -> Option<String> {
    printer.prompt(question);
    read_line()
}

/// [`line`] with what is typed not shown, for a secret. `None` for an empty answer, the end of
/// input or an error.
pub fn hidden(printer: &Printer, question: &str) -> Option<String> {
    printer.prompt(question);
    rpassword::read_password()
        .ok()
        .filter(|answer| !answer.trim().is_empty())
}

/// One line from stdin, its line end taken off. `None` for an empty answer, the end of input or
/// an error.
pub fn read_line() -> Option<String> {
    let mut answer = String::new();
    match std::io::stdin().lock().read_line(&mut answer) {
        Ok(0) | Err(_) => None,
        Ok(_) => {
            let answer = answer.trim_end_matches(['\r', '\n']);
            (!answer.trim().is_empty()).then(|| answer.to_string())
        }
    }
}
