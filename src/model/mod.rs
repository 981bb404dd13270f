//! The model: what dotpack's files and the hosts' files mean, as data. The manifest, the lock,
//! claims, hosts, the concept table, resources and inputs, with their parsing and validation.
//! Nothing here prints or touches the disk beyond reading what it is handed.

pub mod bridge_server;
pub mod claims;
pub mod concepts;
pub mod gateway;
pub(crate) mod host_lint;
pub mod hosts;
pub(crate) mod inputs;
pub mod launcher;
pub mod lock;
pub mod manifest;
pub(crate) mod manifest_edit;
pub(crate) mod resolved_env;
pub mod resources;
pub mod schema;
pub(crate) mod validate;
