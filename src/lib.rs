//! dotpack: a declarative manifest and package manager for MCP servers.
//!
//! The binary is a thin front over this library: `cli` parses arguments, `commands` run them,
//! and everything they need (manifest, registry, resolver, lock) lives in modules here.

pub mod apply;
pub mod bridged;
pub mod claims;
pub mod cli;
pub mod commands;
pub mod concepts;
pub mod consent;
pub mod diag;
pub mod error;
pub mod fence;
pub mod footguns;
pub use dotpack_formats as formats;
pub mod fsutil;
pub mod graph;
pub mod hosts;
pub mod import;
pub mod inputs;
pub mod inspect;
pub mod install;
pub mod lock;
pub mod manifest;
pub use dotpack_mcp as mcp;
pub mod ops;
pub mod output;
pub mod pins;
pub mod plan;
pub mod probe;
pub mod project;
pub mod registry;
pub mod resolve;
pub mod resolved;
pub mod resources;
pub mod schema;
pub mod suggest;
pub mod targets;
pub use dotpack_template as template;
pub mod translate;
pub mod txn;
pub use dotpack_urls as urls;
pub mod validate;
