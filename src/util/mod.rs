//! The bottom floor: small helpers every other floor may use and that use nothing of dotpack's
//! own (atomic writes, reading inside a fenced folder, "did you mean"), and the one error type
//! whose fix lives in a field.

pub(crate) mod conflict;
pub mod error;
pub(crate) mod fence;
pub(crate) mod fsutil;
pub(crate) mod portable;
pub(crate) mod program;
pub(crate) mod suggest;
pub(crate) mod text;
