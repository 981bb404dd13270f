//! Problems a check has already printed: exit code 1 with no further message. (Bad usage is
//! [`crate::util::error::Error::usage`], exit code 2.)

/// A check that found problems it has already printed (`dotpack status`): exit code 1 with no
/// further message.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct Reported(pub String);
