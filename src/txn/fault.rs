//! Test-only switches, honoured only in debug builds (tests run those; release builds compile
//! them out):
//!
//! - `DOTPACK_FAULT=fail-after:K` makes a transaction fail after its K-th file replacement
//!   (K = 0: before the first), and `abort-after:K` kills the process there
//!   (`std::process::abort`, as a `kill -9` or power loss would), so tests can prove every
//!   interruption point leaves files all-before or all-after.
//! - `abort-after-record` kills the process once every file is replaced and the generation
//!   record is written, before the journal is deleted: recovery must then delete that record.
//! - `shell-after:K` runs `DOTPACK_FAULT_SHELL` once there instead: another program editing a
//!   file in the middle of the transaction.
//! - `DOTPACK_TEST_BEFORE_COMMIT=SHELL` runs a shell command once, after planning and before
//!   the transaction takes its lock: another program editing a host file at the worst moment.

use anyhow::Result;

/// Called with the number of files replaced so far, before each replacement and once after
/// the last.
pub fn at_write(done: usize) -> Result<()> {
    #[cfg(debug_assertions)]
    if let Ok(spec) = std::env::var("DOTPACK_FAULT") {
        let parse = |prefix: &str| {
            spec.strip_prefix(prefix)
                .and_then(|k| k.parse::<usize>().ok())
        };
        if parse("fail-after:") == Some(done) {
            anyhow::bail!("injected fault after {done} file writes (DOTPACK_FAULT)");
        }
        if parse("abort-after:") == Some(done) {
            std::process::abort();
        }
        if parse("shell-after:") == Some(done) {
            static ONCE: std::sync::Once = std::sync::Once::new();
            ONCE.call_once(|| run_shell("DOTPACK_FAULT_SHELL"));
        }
    }
    let _ = done;
    Ok(())
}

/// Called after the generation record is written, before the journal is deleted.
pub fn after_record() {
    #[cfg(debug_assertions)]
    if std::env::var("DOTPACK_FAULT").is_ok_and(|spec| spec == "abort-after-record") {
        std::process::abort();
    }
}

/// Runs `DOTPACK_TEST_BEFORE_COMMIT` the first time it is called in this process.
pub fn before_commit() {
    #[cfg(debug_assertions)]
    {
        static ONCE: std::sync::Once = std::sync::Once::new();
        ONCE.call_once(|| run_shell("DOTPACK_TEST_BEFORE_COMMIT"));
    }
}

#[cfg(debug_assertions)]
fn run_shell(var: &str) {
    if let Ok(cmd) = std::env::var(var) {
        let _ = std::process::Command::new("sh").arg("-c").arg(cmd).status();
    }
}
