//! Integration tests: drive the built `dotpack` binary in a temporary HOME and project.

mod support;

mod registry;
mod validate;
