//! A failed command's exit code and how its error is printed (under `--json`, as one document).

use super::{Reported, UsageError};
use crate::diag::Diagnostics;
use crate::output::Printer;

/// The exit code for a failed command: 2 for bad usage, 1 for everything else.
pub fn exit_code(err: &anyhow::Error) -> u8 {
    if err.downcast_ref::<UsageError>().is_some() {
        2
    } else {
        1
    }
}

/// Prints a command's error: diagnostics with their source excerpt, anything else as a chain.
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

/// A failed command under `--json`: one document on stdout, so a script reads why as it reads a
/// result. `{"schema": 1, "error": {"code", "message", "help", "file", "key_path", "line",
/// "column"}, "diagnostics": [...]}`; the fields a message has no value for are `null`.
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
    let text = format!("{err:#}");
    // Messages say their fix after a `help:` line.
    let (message, help) = match text.split_once("\n  help: ") {
        Some((message, help)) => (message.to_string(), Some(help.to_string())),
        None => (text, None),
    };
    let code = if err.downcast_ref::<UsageError>().is_some() {
        "usage"
    } else {
        "error"
    };
    json!({
        "schema": 1,
        "error": {
            "code": code,
            "message": message,
            "help": help,
            "file": null,
            "key_path": null,
            "line": null,
            "column": null,
        },
        "diagnostics": [],
    })
}
