//! What people read: the one [`Printer`], diagnostics that point into a file, diffs, and the
//! download progress line. Lower floors receive a `&Printer` or return values; none reaches for a global.

pub(crate) mod ask;
pub(crate) mod diag;
pub(crate) mod diff;
pub(crate) mod printer;
pub(crate) mod progress;

pub use printer::Printer;
