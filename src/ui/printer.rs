//! The one place that prints. Quiet, colour and JSON are decided once, from the command line and
//! the environment, and every command talks to a [`Printer`].
//!
//! Colour is decided per stream by `anstream`, as Cargo does: `--color always|never` wins;
//! with `auto` (the default) `NO_COLOR` (set and not empty) turns it off, else `FORCE_COLOR` (read by
//! `cli`) or `CLICOLOR_FORCE`
//! turns it on, else `CLICOLOR=0` turns it off, else a stream gets colour when it is a terminal.
//! Styles are `anstyle` values; a stream without colour gets its escapes stripped.
//!
//! Human output goes to stderr as short status lines (as Cargo does); stdout carries the result a
//! script may read: `--json` documents, search hits, info.
//!
//! Every write goes through one of two functions (for stderr and stdout) that ignore errors: a
//! closed pipe or a full disk behind stdout or stderr must not turn a finished command into a
//! panic (exit 101). The command's exit code still says how it went. `print!`, `println!`,
//! `eprint!` and `eprintln!` panic on such errors, so clippy denies them in this crate.
//!
//! Messages carry text from registries, host files and MCP servers, which may hold terminal
//! control sequences. Every method escapes the text it is given ([`terminal_safe`]) and only
//! then adds its own colours, so no caller can forget to, and dotpack's own styling still works.
//! `--json` documents are exact ([`json_safe`] only changes how characters are written). Only
//! [`Printer::out_bytes`] writes bytes as they are, for the scripts dotpack generates itself.

mod escape;

use std::io::Write;

use anstyle::{AnsiColor, Style};

use crate::ui::diag::{Diagnostic, Severity};

pub use escape::{json_safe, terminal_safe, terminal_safe_span};

const GREEN: Style = AnsiColor::Green.on_default().bold();
const RED: Style = AnsiColor::Red.on_default().bold();
const YELLOW: Style = AnsiColor::Yellow.on_default().bold();
const DIFF_ADDED: Style = AnsiColor::Green.on_default();
const DIFF_REMOVED: Style = AnsiColor::Red.on_default();
const DIFF_HUNK: Style = AnsiColor::Cyan.on_default();
const DIFF_HEADER: Style = Style::new().bold();

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
    /// Colour on stderr (status lines, warnings, diagnostics).
    pub color: bool,
    /// Colour on stdout (diffs of `--dry-run`).
    pub color_out: bool,
}

impl Printer {
    pub fn new(quiet: bool, json: bool, choice: ColorChoice) -> Self {
        let decide = |auto: fn() -> anstream::ColorChoice| match choice {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => auto() != anstream::ColorChoice::Never,
        };
        Printer {
            quiet,
            json,
            color: decide(|| anstream::AutoStream::choice(&std::io::stderr())),
            color_out: !json && decide(|| anstream::AutoStream::choice(&std::io::stdout())),
        }
    }

    /// A plain printer for tests and library callers.
    pub fn plain() -> Self {
        Printer {
            quiet: false,
            json: false,
            color: false,
            color_out: false,
        }
    }

    /// `text` in `style` when stderr has colour.
    fn paint(&self, style: Style, text: &str) -> String {
        if self.color {
            format!("{style}{text}{style:#}")
        } else {
            text.to_string()
        }
    }

    /// A right-aligned green verb and a message, Cargo style: `      Adding figma ^0.3`.
    pub fn status(&self, verb: &str, message: impl std::fmt::Display) {
        if self.quiet {
            return;
        }
        let verb = format!("{verb:>12}");
        let message = safe(message);
        self.to_stderr(format_args!("{} {message}", self.paint(GREEN, &verb)));
    }

    /// A note to stderr, suppressed by `--quiet`.
    pub fn note(&self, message: impl std::fmt::Display) {
        if !self.quiet {
            self.to_stderr(format_args!("{}", safe(message)));
        }
    }

    /// A question on stderr with no newline after it, so the answer is typed on the same line.
    pub fn prompt(&self, question: &str) {
        let choice = if self.color {
            anstream::ColorChoice::AlwaysAnsi
        } else {
            anstream::ColorChoice::Never
        };
        let mut stderr = anstream::AutoStream::new(std::io::stderr().lock(), choice);
        let _ = write!(stderr, "{}", safe(question));
        let _ = stderr.flush();
    }

    /// A diagnostic with a source excerpt when the file can be read. Warnings obey `--quiet`.
    pub fn diagnostic(&self, diag: &Diagnostic) {
        if self.quiet && diag.severity == Severity::Warning {
            return;
        }
        let source = diag.span.as_ref().and_then(|_| {
            crate::util::fence::read_text(&diag.file, None, crate::util::fence::PROJECT_FILE_CAP)
                .ok()
                .flatten()
        });
        let (diag, source) = safe_diagnostic(diag, source.as_deref());
        self.to_stderr(format_args!(
            "{}",
            diag.render(source.as_deref(), self.color)
        ));
    }

    /// Diagnostics with known source text (the file may not be on disk yet).
    pub fn diagnostic_with_source(&self, diag: &Diagnostic, source: &str) {
        if self.quiet && diag.severity == Severity::Warning {
            return;
        }
        let (diag, source) = safe_diagnostic(diag, Some(source));
        self.to_stderr(format_args!(
            "{}",
            diag.render(source.as_deref(), self.color)
        ));
    }

    pub fn error(&self, message: impl std::fmt::Display) {
        let message = safe(message);
        self.to_stderr(format_args!("{} {message}", self.paint(RED, "error:")));
    }

    pub fn warning(&self, message: impl std::fmt::Display) {
        if self.quiet {
            return;
        }
        let message = safe(message);
        self.to_stderr(format_args!("{} {message}", self.paint(YELLOW, "warning:")));
    }

    /// Result lines for stdout (never suppressed: the user asked for them). A stdout that
    /// cannot be written (closed pipe, full disk) is ignored, as for stderr.
    pub fn out(&self, line: impl std::fmt::Display) {
        self.out_raw(&safe(line));
    }

    /// A line on stdout exactly as given: for text that is already safe.
    fn out_raw(&self, line: &str) {
        let mut stdout = std::io::stdout().lock();
        let _ = writeln!(stdout, "{line}");
    }

    /// Sends `tracing` events to stderr: dotpack's at debug level with `-v`, trace with `-vv`,
    /// or as the `DOTPACK_LOG` filter says (an `EnvFilter`: `debug`, `dotpack::registry=trace`).
    /// `--quiet` logs nothing. Each line carries the time since start, and each phase (load,
    /// resolve, plan, apply) says how long it took when it ends.
    ///
    /// Events name files, sizes, URLs, statuses and counts; never file contents, input values
    /// or environment values, which may be secret.
    pub fn start_logging(&self, verbose: u8) {
        use tracing_subscriber::EnvFilter;
        use tracing_subscriber::fmt::format::FmtSpan;
        if self.quiet {
            return;
        }
        let filter = match std::env::var("DOTPACK_LOG") {
            Ok(spec) if !spec.trim().is_empty() => EnvFilter::new(spec),
            _ => match verbose {
                0 => return,
                1 => EnvFilter::new("dotpack=debug"),
                _ => EnvFilter::new("dotpack=trace"),
            },
        };
        let _ = tracing_subscriber::fmt()
            .with_env_filter(filter)
            .with_writer(std::io::stderr)
            .with_ansi(self.color)
            .with_target(verbose > 1)
            .with_timer(tracing_subscriber::fmt::time::uptime())
            .with_span_events(FmtSpan::CLOSE)
            .try_init();
    }

    /// Bytes on stdout as they are (a generated completion script or man page): never text from
    /// a registry, a host file or a server.
    pub fn out_bytes(&self, bytes: &[u8]) {
        let mut stdout = std::io::stdout().lock();
        let _ = stdout.write_all(bytes);
        let _ = stdout.flush();
    }

    /// A unified diff on stdout, its added, removed, hunk and header lines coloured when stdout
    /// has colour.
    pub fn diff(&self, unified: &str) {
        let unified = terminal_safe(unified);
        if !self.color_out {
            self.out_raw(&unified);
            return;
        }
        let mut text = String::with_capacity(unified.len() + unified.len() / 4);
        for line in unified.lines() {
            let style = if line.starts_with("+++") || line.starts_with("---") {
                DIFF_HEADER
            } else if line.starts_with("@@") {
                DIFF_HUNK
            } else if line.starts_with('+') {
                DIFF_ADDED
            } else if line.starts_with('-') {
                DIFF_REMOVED
            } else {
                Style::new()
            };
            text.push_str(&format!("{style}{line}{style:#}\n"));
        }
        // As `out` does: one more line end after the diff's own.
        text.push('\n');
        let mut stdout = anstream::AutoStream::always_ansi(std::io::stdout().lock());
        let _ = stdout.write_all(text.as_bytes());
    }

    /// A JSON document on stdout, exact: the characters a terminal would obey are written as
    /// JSON escapes ([`json_safe`]).
    pub fn json_out(&self, value: &serde_json::Value) {
        let text = serde_json::to_string_pretty(value).unwrap_or_else(|_| "null".to_string());
        self.out_raw(&json_safe(text));
    }

    /// JSON or TOML text that dotpack serialised (a `server.json`, imported `[servers]`) on
    /// stdout: the characters a terminal obeys that the serialiser left as they were (DEL, C1,
    /// bidirectional controls) are written as `\uXXXX`, which both formats read back as the
    /// same character in a quoted string; anything else is escaped as [`Printer::out`] does.
    pub fn data_out(&self, text: &str) {
        self.out_raw(&safe(json_safe(text.to_string())));
    }
}

/// `message` as text a terminal shows and does not obey.
fn safe(message: impl std::fmt::Display) -> String {
    let text = message.to_string();
    match terminal_safe(&text) {
        std::borrow::Cow::Borrowed(_) => text,
        std::borrow::Cow::Owned(safe) => safe,
    }
}

/// `diag` and its source text with every part escaped, its span moved to match.
fn safe_diagnostic(diag: &Diagnostic, source: Option<&str>) -> (Diagnostic, Option<String>) {
    let mut diag = diag.clone();
    diag.message = safe(&diag.message);
    diag.key_path = diag.key_path.as_deref().map(safe);
    diag.help = diag.help.as_deref().map(safe);
    diag.file = std::path::PathBuf::from(safe(diag.file.display()));
    let source = source.map(|source| match diag.span.clone() {
        Some(span) => {
            let (text, span) = terminal_safe_span(source, span);
            diag.span = Some(span);
            text
        }
        None => safe(source),
    });
    (diag, source)
}

impl Printer {
    /// Writes one line to stderr, ignoring failure: there is nowhere left to report it. Escapes
    /// are stripped when stderr has no colour.
    fn to_stderr(&self, line: std::fmt::Arguments<'_>) {
        let choice = if self.color {
            anstream::ColorChoice::AlwaysAnsi
        } else {
            anstream::ColorChoice::Never
        };
        let mut stderr = anstream::AutoStream::new(std::io::stderr().lock(), choice);
        let _ = writeln!(stderr, "{line}");
    }
}
