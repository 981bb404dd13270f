//! What people read: the one [`Printer`], diagnostics that point into a file, and the download
//! progress line. Lower floors receive a `&Printer` or return values; none reaches for a global.

pub mod diag;
pub mod printer;
pub mod progress;

pub use printer::Printer;
