//! A registry index in a local directory.
