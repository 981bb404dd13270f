//! One error type with its fix in a field: [`Error`], and [`Report`], what a failed command
//! shows from any error chain.
//!
//! The fix ("help") is data, not a line inside the message: the human output prints it on its own
//! `  help:` line and `--json` puts it in its own field, both from the same field, so neither has
//! to find it by searching text. Typed errors that callers match on (`RegistryError`,
//! `ResolveError`, ...) keep their variants and say their message and fix through [`Fix`].
//!
//! ```
//! use dotpack::util::error::Error;
//! let err = Error::new("`nope` is not a host dotpack can install into")
//!     .help("hosts are: claude-code, codex")
//!     .file("dotpack.toml")
//!     .key("project.hosts");
//! assert_eq!(
//!     err.to_string(),
//!     "`nope` is not a host dotpack can install into\n  help: hosts are: claude-code, codex"
//! );
//! ```

use std::error::Error as StdError;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// What went wrong, where, and how to fix it.
///
/// Its `Display` is the message, then `\n  help: FIX` when there is a fix: the text people have
/// always read (`error: MESSAGE\n  help: FIX`), however the error is formatted and wherever it
/// ends up (a chain printed with `{:#}`, a warning). Scripts read the same fields through
/// [`Report`]. Carried inside `anyhow::Error` like any other error: `Err(Error::new(..).into())`,
/// [`bail_help!`](crate::bail_help), or [`WithError::with_error`] to put a message and its fix
/// above a lower error.
#[derive(Clone, Debug)]
pub struct Error(Box<Fields>);

impl Default for Error {
    /// An empty message with the generic code.
    fn default() -> Self {
        Error::new("")
    }
}

/// Boxed, so that an `Error` (and a typed error holding one) is as small as a pointer.
#[derive(Clone, Debug, Default)]
struct Fields {
    code: &'static str,
    message: String,
    help: Option<String>,
    file: Option<PathBuf>,
    key_path: Option<String>,
    line: Option<usize>,
    column: Option<usize>,
    /// Further problems found together with this one, each printed on its own lines after it.
    also: Vec<Error>,
    /// The lower error this one explains, next in the chain (see [`WithError`]).
    source: Option<Arc<anyhow::Error>>,
}

/// The code of an error that says nothing more specific.
pub const GENERIC: &str = "error";
/// The code of bad usage of the command line (exit code 2).
pub const USAGE: &str = "usage";

impl Error {
    pub fn new(message: impl Into<String>) -> Self {
        Error(Box::new(Fields {
            code: GENERIC,
            message: message.into(),
            ..Fields::default()
        }))
    }

    /// Bad usage of the command line: exit code 2.
    pub fn usage(message: impl Into<String>) -> Self {
        Error::new(message).code(USAGE)
    }

    /// Several problems found at once (each with its own fix), as one error; `None` when there
    /// are none.
    pub fn all(problems: impl IntoIterator<Item = Error>) -> Option<Self> {
        let mut problems = problems.into_iter();
        let mut first = problems.next()?;
        first.0.also.extend(problems);
        Some(first)
    }

    /// What to do about it: printed on its own `  help:` line.
    pub fn help(mut self, help: impl Into<String>) -> Self {
        self.0.help = Some(help.into());
        self
    }

    /// A short stable identifier for scripts, e.g. `usage`; [`GENERIC`] unless set.
    pub fn code(mut self, code: &'static str) -> Self {
        self.0.code = code;
        self
    }

    /// The file the error is about.
    pub fn file(mut self, file: impl Into<PathBuf>) -> Self {
        self.0.file = Some(file.into());
        self
    }

    /// The key path inside the file, e.g. `servers.figma.args`.
    pub fn key(mut self, key_path: impl Into<String>) -> Self {
        self.0.key_path = Some(key_path.into());
        self
    }

    /// The 1-based line and column in the file.
    pub fn at(mut self, line: usize, column: usize) -> Self {
        self.0.line = Some(line);
        self.0.column = Some(column);
        self
    }

    pub fn message(&self) -> &str {
        &self.0.message
    }

    pub fn fix(&self) -> Option<&str> {
        self.0.help.as_deref()
    }

    pub fn is_usage(&self) -> bool {
        self.0.code == USAGE
    }

    pub fn file_path(&self) -> Option<&Path> {
        self.0.file.as_deref()
    }

    /// The further problems found with this one.
    pub fn also(&self) -> &[Error] {
        &self.0.also
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0.message)?;
        if let Some(help) = &self.0.help {
            write!(f, "\n  help: {help}")?;
        }
        for more in &self.0.also {
            write!(f, "\n{more}")?;
        }
        Ok(())
    }
}

impl StdError for Error {
    fn source(&self) -> Option<&(dyn StdError + 'static)> {
        let source: &(dyn StdError + Send + Sync + 'static) = self.0.source.as_deref()?.as_ref();
        Some(source)
    }
}

/// Puts an [`Error`] (a message and its fix) above the error of a `Result`, which stays next in
/// the chain: `serde_json::from_str(&text).with_error(|| Error::new(..).help(..))?`.
pub trait WithError<T> {
    fn with_error(self, error: impl FnOnce() -> Error) -> anyhow::Result<T>;
}

impl<T, E: Into<anyhow::Error>> WithError<T> for Result<T, E> {
    fn with_error(self, error: impl FnOnce() -> Error) -> anyhow::Result<T> {
        self.map_err(|lower| {
            let mut error = error();
            error.0.source = Some(Arc::new(lower.into()));
            error.into()
        })
    }
}

/// A typed error, kept as its own type so callers can match on it, whose message and fix are
/// the fields of an [`Error`]. Implement `Display` as `self.error().fmt(f)`, so that it reads
/// the same as the one type; list the type in the `typed` lookup the command line hands to
/// [`Report::of`].
pub trait Fix: StdError {
    fn error(&self) -> Error;
}

/// The [`Error`] of `cause` when it is the typed error `T`: one entry of a `typed` lookup.
pub fn typed<T: Fix + 'static>(cause: &(dyn StdError + 'static)) -> Option<Error> {
    cause.downcast_ref::<T>().map(Fix::error)
}

/// Returns early with an [`Error`] that has a fix: `bail_help!(help = FIX, "format", args..)`,
/// or `bail_help!(help = FIX, file = PATH, "format", args..)` for one about a file.
#[macro_export]
macro_rules! bail_help {
    (help = $help:expr, file = $file:expr, $($message:tt)+) => {
        return Err($crate::util::error::Error::new(format!($($message)+))
            .help($help)
            .file($file)
            .into())
    };
    (help = $help:expr, $($message:tt)+) => {
        return Err($crate::util::error::Error::new(format!($($message)+)).help($help).into())
    };
}

/// What a failed command says, read from an error chain: the messages of the chain joined by
/// `: ` (as `{:#}` joins them), and the code, fix, file and place of the outermost [`Error`]
/// that has each.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Report {
    pub code: &'static str,
    pub message: String,
    pub help: Option<String>,
    pub file: Option<String>,
    pub key_path: Option<String>,
    pub line: Option<usize>,
    pub column: Option<usize>,
    /// Further problems reported with the first, with their own fixes.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub also: Vec<Report>,
}

impl Report {
    /// Reads `err`. `typed` turns a cause that is one of the typed errors (see [`Fix`]) into its
    /// fields; it is handed in from above, which knows every such type.
    pub fn of(
        err: &anyhow::Error,
        typed: &dyn Fn(&(dyn StdError + 'static)) -> Option<Error>,
    ) -> Report {
        let mut parts = Vec::new();
        let mut report = Report {
            code: GENERIC,
            message: String::new(),
            help: None,
            file: None,
            key_path: None,
            line: None,
            column: None,
            also: Vec::new(),
        };
        for cause in err.chain() {
            let Some(e) = cause
                .downcast_ref::<Error>()
                .cloned()
                .or_else(|| typed(cause))
            else {
                parts.push(cause.to_string());
                continue;
            };
            // The outermost error that has a value gives each field.
            let fields = Report::from(&e);
            parts.push(fields.message);
            if report.code == GENERIC {
                report.code = fields.code;
            }
            report.help = report.help.or(fields.help);
            report.file = report.file.or(fields.file);
            report.key_path = report.key_path.or(fields.key_path);
            if report.line.is_none() {
                (report.line, report.column) = (fields.line, fields.column);
            }
            if report.also.is_empty() {
                report.also = fields.also;
            }
        }
        report.message = parts.join(": ");
        report
    }

    /// The report as the `error` object of a failed command's `--json` document.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::to_value(self).unwrap_or(serde_json::Value::Null)
    }
}

impl From<&Error> for Report {
    fn from(e: &Error) -> Report {
        Report {
            code: e.0.code,
            message: e.0.message.clone(),
            help: e.0.help.clone(),
            file: e.0.file.as_ref().map(|f| f.display().to_string()),
            key_path: e.0.key_path.clone(),
            line: e.0.line,
            column: e.0.column,
            also: e.0.also.iter().map(Report::from).collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn none(_: &(dyn StdError + 'static)) -> Option<Error> {
        None
    }

    #[test]
    fn display_puts_the_fix_on_its_own_help_line() {
        assert_eq!(Error::new("no lock").to_string(), "no lock");
        let err = Error::new("no lock").help("run `dotpack lock`");
        assert_eq!(err.to_string(), "no lock\n  help: run `dotpack lock`");
        let chain = anyhow::Error::from(err).context("reading dotpack.lock");
        assert_eq!(
            format!("{chain:#}"),
            "reading dotpack.lock: no lock\n  help: run `dotpack lock`"
        );
    }

    #[test]
    fn several_problems_print_one_after_another() {
        let err = Error::all([
            Error::new("a is bad").help("fix a"),
            Error::new("b is bad"),
            Error::new("c is bad").help("fix c"),
        ])
        .unwrap();
        assert_eq!(
            err.to_string(),
            "a is bad\n  help: fix a\nb is bad\nc is bad\n  help: fix c"
        );
        assert!(Error::all([]).is_none());
        let report = Report::of(&err.into(), &none);
        assert_eq!(report.help.as_deref(), Some("fix a"));
        assert_eq!(report.also.len(), 2);
        assert_eq!(report.also[1].help.as_deref(), Some("fix c"));
    }

    #[test]
    fn the_report_takes_message_and_fix_from_the_fields() {
        let err = anyhow::Error::from(
            Error::new("`nope` is not a host")
                .help("hosts are: codex")
                .file("dotpack.toml")
                .key("project.hosts")
                .at(2, 10),
        )
        .context("installing");
        let json = Report::of(&err, &none).to_json();
        assert_eq!(
            json,
            serde_json::json!({
                "code": "error",
                "message": "installing: `nope` is not a host",
                "help": "hosts are: codex",
                "file": "dotpack.toml",
                "key_path": "project.hosts",
                "line": 2,
                "column": 10,
            })
        );
    }

    #[test]
    fn a_fix_above_a_lower_error_keeps_both_messages() {
        let lower: Result<(), std::io::Error> = Err(std::io::Error::other("disk full"));
        let err = lower
            .with_error(|| Error::new("cannot write x").help("free some space"))
            .unwrap_err();
        assert_eq!(
            format!("{err:#}"),
            "cannot write x\n  help: free some space: disk full"
        );
        let report = Report::of(&err, &none);
        assert_eq!(report.message, "cannot write x: disk full");
        assert_eq!(report.help.as_deref(), Some("free some space"));
    }

    #[test]
    fn a_plain_error_has_the_generic_code_and_no_fix() {
        let report = Report::of(&anyhow::anyhow!("boom"), &none);
        assert_eq!((report.code, report.help), (GENERIC, None));
        let usage = Report::of(&Error::usage("bad flag").into(), &none);
        assert_eq!(usage.code, USAGE);
        assert_eq!(Report::from(&Error::default()).code, GENERIC);
    }

    #[derive(Debug)]
    struct Typed;
    impl fmt::Display for Typed {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            self.error().fmt(f)
        }
    }
    impl StdError for Typed {}
    impl Fix for Typed {
        fn error(&self) -> Error {
            Error::new("typed").help("its fix").code("typed")
        }
    }

    #[test]
    fn a_typed_error_is_read_through_its_fix() {
        let err = anyhow::Error::from(Typed);
        assert_eq!(err.to_string(), "typed\n  help: its fix");
        let report = Report::of(&err, &typed::<Typed>);
        assert_eq!((report.code, report.message.as_str()), ("typed", "typed"));
        assert_eq!(report.help.as_deref(), Some("its fix"));
    }

    #[test]
    fn bail_help_returns_the_error() {
        fn fails(x: u8) -> anyhow::Result<()> {
            bail_help!(help = format!("use {}", x + 1), "{x} is taken");
        }
        let err = fails(1).unwrap_err();
        let e = err.downcast_ref::<Error>().unwrap();
        assert_eq!((e.message(), e.fix()), ("1 is taken", Some("use 2")));
        fn about_a_file(path: &Path) -> anyhow::Result<()> {
            bail_help!(
                help = "remove it",
                file = path,
                "{} is a link",
                path.display()
            );
        }
        let err = about_a_file(Path::new("x.json")).unwrap_err();
        let e = err.downcast_ref::<Error>().unwrap();
        assert_eq!(e.file_path(), Some(Path::new("x.json")));
        assert_eq!(e.to_string(), "x.json is a link\n  help: remove it");
    }
}
