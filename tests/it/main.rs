//! Integration tests: drive the built `dotpack` binary in a temporary HOME and project.

mod support;

mod every_host;
mod hosts;
mod http_registry;
mod import;
mod model;
mod model_regressions;
mod probe;
mod project_cmds;
mod registry;
mod registry_trust;
mod search_info;
mod state_model;
mod trust;
mod trust_props;
mod txn;
mod txn_props;
mod validate;
