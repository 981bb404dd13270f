//! Integration tests: drive the built `dotpack` binary in a temporary HOME and project.

mod fake_mcp;
mod support;
mod support_mcp;

mod completions;
mod every_host;
mod help;
mod hosts;
mod http_registry;
mod http_secrets;
mod import;
mod json_writers;
mod mcp_registry;
mod model;
mod model_regressions;
mod network;
mod output;
mod probe;
mod project_cmds;
mod publish;
mod registry;
mod registry_trust;
mod resolve_env;
mod resources;
mod resources_import;
mod search_info;
mod state_model;
mod templates;
mod terminal_text;
mod tree;
mod trust;
mod trust_props;
mod txn;
mod txn_props;
mod validate;
mod verbose;
