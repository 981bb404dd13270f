//! One module per command: each reads its arguments, builds settings, and calls the library.

pub mod add;
pub mod adopt;
pub mod args;
pub mod bridge;
pub mod completions;
pub mod doctor;
pub mod history;
pub mod hosts;
pub mod import;
mod import_into;
pub mod info;
pub mod init;
pub mod install;
pub mod list;
pub mod lock;
pub mod outdated;
pub mod probe;
pub mod publish;
pub mod registry;
pub mod remove;
pub mod rollback;
pub mod search;
pub mod tree;
pub mod trust;
pub mod uninstall;
pub mod update;
pub mod validate;
pub mod verify;

mod error;

use anyhow::Result;

pub use crate::ops::{Reported, UsageError};
pub use error::{error_json, exit_code, report, report_error};

/// A `--timeout SECS` flag as a duration: a positive number of seconds, at most an hour.
pub fn timeout_flag(secs: f64) -> Result<std::time::Duration> {
    if !(secs.is_finite() && secs > 0.0) {
        return Err(
            UsageError("--timeout must be a positive number of seconds".to_string()).into(),
        );
    }
    Ok(std::time::Duration::from_secs_f64(secs.min(3600.0)))
}
