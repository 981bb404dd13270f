//! One module per command: each reads its arguments, builds settings, and calls the library.

pub(crate) mod add;
pub(crate) mod adopt;
pub(crate) mod args;
pub(crate) mod bridge;
pub(crate) mod completions;
pub(crate) mod doctor;
pub(crate) mod history;
pub(crate) mod hosts;
pub(crate) mod import;
mod import_into;
pub(crate) mod info;
pub(crate) mod init;
pub(crate) mod install;
pub(crate) mod list;
pub(crate) mod lock;
pub(crate) mod merge;
pub(crate) mod outdated;
pub(crate) mod package;
pub(crate) mod probe;
pub(crate) mod publish;
pub(crate) mod registry;
pub(crate) mod remove;
pub(crate) mod rollback;
pub(crate) mod run;
pub(crate) mod search;
pub(crate) mod secret;
pub(crate) mod serve;
pub(crate) mod tree;
pub(crate) mod trust;
pub(crate) mod uninstall;
pub(crate) mod update;
pub(crate) mod validate;
pub(crate) mod verify;
pub(crate) mod yank;

mod error;

use anyhow::Result;

pub use crate::ops::Reported;
pub use error::{error_json, exit_code, report, report_error};

/// A `--timeout SECS` flag as a duration: a positive number of seconds, at most an hour.
pub fn timeout_flag(secs: f64) -> Result<std::time::Duration> {
    if !(secs.is_finite() && secs > 0.0) {
        return Err(crate::util::error::Error::usage(
            "--timeout must be a positive number of seconds",
        )
        .into());
    }
    Ok(std::time::Duration::from_secs_f64(secs.min(3600.0)))
}
