//! A failed command's exit code and how its error is printed (under `--json`, as one document).

use super::Reported;
use crate::ui::diag::Diagnostics;
use crate::ui::printer::Printer;

/// The exit code for a failed command: 2 for bad usage, 1 for everything else.
pub fn exit_code(err: &anyhow::Error) -> u8 {
    if report(err).code == crate::util::error::USAGE {
        2
    } else {
        1
    }
}

/// Prints a command's error: diagnostics with their source excerpt, anything else as a chain
/// whose fix is on its own `  help:` line.
pub fn report_error(printer: &Printer, err: &anyhow::Error) {
    if err.downcast_ref::<Reported>().is_some() {
        return;
    }
    if printer.json {
        printer.json_out(&error_json(err));
    }
    if let Some(diags) = err.downcast_ref::<Diagnostics>() {
        for diag in &diags.0 {
            printer.diagnostic(diag);
        }
        return;
    }
    printer.error(format!("{err:#}"));
}

/// What `err` says, field by field; the typed errors that keep their own type (see
/// [`crate::util::error::Fix`]) are read through their fix.
pub fn report(err: &anyhow::Error) -> crate::util::error::Report {
    use crate::util::error::{Report, typed};
    Report::of(err, &|cause| {
        typed::<crate::registry::RegistryError>(cause)
            .or_else(|| typed::<crate::registry::build::BuildError>(cause))
            .or_else(|| typed::<crate::resolve::ResolveError>(cause))
            .or_else(|| typed::<crate::plan::PlanError>(cause))
            .or_else(|| typed::<crate::plan::to_host::TranslateError>(cause))
            .or_else(|| typed::<crate::txn::recover::Stuck>(cause))
            .or_else(|| typed::<crate::txn::trust::Untrusted>(cause))
    })
}

/// A failed command under `--json`: one document on stdout, so a script reads why as it reads a
/// result. `{"schema": 1, "error": {"code", "message", "help", "file", "key_path", "line",
/// "column"}, "diagnostics": [...]}`; the fields a message has no value for are `null`. When
/// several problems were found at once, `error` holds the first and `error.also` the others.
pub fn error_json(err: &anyhow::Error) -> serde_json::Value {
    use serde_json::json;
    if let Some(diags) = err.downcast_ref::<Diagnostics>() {
        let first = diags.0.iter().find(|d| d.is_error()).or(diags.0.first());
        return json!({
            "schema": 1,
            "error": first.map(|d| json!({
                "code": d.code,
                "message": d.message,
                "help": d.help,
                "file": d.file.display().to_string(),
                "key_path": d.key_path,
                "line": d.line,
                "column": d.column,
            })),
            "diagnostics": diags.0,
        });
    }
    json!({
        "schema": 1,
        "error": report(err).to_json(),
        "diagnostics": [],
    })
}
