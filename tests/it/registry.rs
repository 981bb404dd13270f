//! `dotpack registry build` and registry reading.
