//! `dotpack validate`: every rule, with file, line and fix.
