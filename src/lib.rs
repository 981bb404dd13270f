//! dotpack: a declarative manifest and package manager for MCP servers.
//!
//! The crate is built in floors, and a module uses only the floors below its own
//! (`tests/arrows.rs` checks it; `docs/architecture.md` tells what lives where):
//!
//! `cli` → `commands` → `ops` → `txn` → `plan` → `resolve` → `registry` → `model` → `ui` →
//! `util`, then the leaf crates (`formats`, `template`, `mcp`, `urls`), which use nothing of
//! dotpack.

pub mod cli;
pub mod commands;
pub mod model;
pub mod ops;
pub mod plan;
pub mod registry;
pub mod resolve;
pub mod txn;
pub mod ui;
pub mod util;

pub use dotpack_formats as formats;
pub use dotpack_mcp as mcp;
pub use dotpack_template as template;
pub use dotpack_urls as urls;
