//! The manifest edits several commands share now live in [`crate::ops::declare`]; this module
//! keeps their old paths for the commands that name them.

pub use crate::ops::declare::*;
