//! The two errors a command's exit code reads: bad usage (2) and problems already printed (1).

/// A check that found problems it has already printed (`dotpack status`): exit code 1 with no
/// further message.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct Reported(pub String);

/// Bad usage that clap cannot see (e.g. `--set` with two packages): exit code 2.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct UsageError(pub String);
