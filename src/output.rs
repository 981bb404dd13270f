//! The one place that prints. Quiet, colour and JSON are decided once, from the command line and
//! the environment, and every command talks to a [`Printer`].
//!
//! Human output goes to stderr as short status lines (as Cargo does); stdout carries the result a
//! script may read: `--json` documents, search hits, info.
//!
//! Every write goes through one of two functions (for stderr and stdout) that ignore errors: a
//! closed pipe or a full disk behind stdout or stderr must not turn a finished command into a
//! panic (exit 101). The command's exit code still says how it went. `print!`, `println!`,
//! `eprint!` and `eprintln!` panic on such errors, so clippy denies them in this crate.

use std::io::{IsTerminal, Write};

use owo_colors::OwoColorize;

use crate::diag::{Diagnostic, Severity};

/// `--color`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum ColorChoice {
    #[default]
    Auto,
    Always,
    Never,
}

#[derive(Clone, Debug)]
pub struct Printer {
    pub quiet: bool,
    pub json: bool,
    pub color: bool,
}

impl Printer {
    pub fn new(quiet: bool, json: bool, choice: ColorChoice) -> Self {
        let color = match choice {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => {
                std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
                    && std::io::stderr().is_terminal()
            }
        };
        Printer { quiet, json, color }
    }

    /// A plain printer for tests and library callers.
    pub fn plain() -> Self {
        Printer {
            quiet: false,
            json: false,
            color: false,
        }
    }

    /// A right-aligned green verb and a message, Cargo style: `      Adding figma ^0.3`.
    pub fn status(&self, verb: &str, message: impl std::fmt::Display) {
        if self.quiet {
            return;
        }
        let verb = format!("{verb:>12}");
        if self.color {
            to_stderr(format_args!("{} {message}", verb.green().bold()));
        } else {
            to_stderr(format_args!("{verb} {message}"));
        }
    }

    /// A note to stderr, suppressed by `--quiet`.
    pub fn note(&self, message: impl std::fmt::Display) {
        if !self.quiet {
            to_stderr(format_args!("{message}"));
        }
    }

    /// A diagnostic with a source excerpt when the file can be read. Warnings obey `--quiet`.
    pub fn diagnostic(&self, diag: &Diagnostic) {
        if self.quiet && diag.severity == Severity::Warning {
            return;
        }
        let source = diag
            .span
            .as_ref()
            .and_then(|_| std::fs::read_to_string(&diag.file).ok());
        to_stderr(format_args!(
            "{}",
            diag.render(source.as_deref(), self.color)
        ));
    }

    /// Diagnostics with known source text (the file may not be on disk yet).
    pub fn diagnostic_with_source(&self, diag: &Diagnostic, source: &str) {
        if self.quiet && diag.severity == Severity::Warning {
            return;
        }
        to_stderr(format_args!("{}", diag.render(Some(source), self.color)));
    }

    pub fn error(&self, message: impl std::fmt::Display) {
        if self.color {
            to_stderr(format_args!("{} {message}", "error:".red().bold()));
        } else {
            to_stderr(format_args!("error: {message}"));
        }
    }

    pub fn warning(&self, message: impl std::fmt::Display) {
        if self.quiet {
            return;
        }
        if self.color {
            to_stderr(format_args!("{} {message}", "warning:".yellow().bold()));
        } else {
            to_stderr(format_args!("warning: {message}"));
        }
    }

    /// Result lines for stdout (never suppressed: the user asked for them). A stdout that
    /// cannot be written (closed pipe, full disk) is ignored, as for stderr.
    pub fn out(&self, line: impl std::fmt::Display) {
        let mut stdout = std::io::stdout().lock();
        let _ = writeln!(stdout, "{line}");
    }

    /// Bytes on stdout as they are (a generated completion script or man page).
    pub fn out_bytes(&self, bytes: &[u8]) {
        let mut stdout = std::io::stdout().lock();
        let _ = stdout.write_all(bytes);
        let _ = stdout.flush();
    }

    /// A JSON document on stdout.
    pub fn json_out(&self, value: &serde_json::Value) {
        let text = serde_json::to_string_pretty(value).unwrap_or_else(|_| "null".to_string());
        self.out(text);
    }
}

/// Writes one line to stderr, ignoring failure: there is nowhere left to report it.
fn to_stderr(line: std::fmt::Arguments<'_>) {
    let mut stderr = std::io::stderr().lock();
    let _ = writeln!(stderr, "{line}");
}
