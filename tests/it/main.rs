//! Integration tests: drive the built `dotpack` binary in a temporary HOME and project.

mod fake_mcp;
mod support;
#[cfg(target_os = "linux")]
mod support_keyring;
mod support_mcp;

mod adopted_entries;
mod bridge;
mod command_output;
mod completions;
mod consent;
#[cfg(target_os = "linux")]
mod doctor_gateway;
mod doctor_programs;
#[cfg(target_os = "linux")]
mod doctor_secrets;
mod entry_names;
mod error_output;
mod errors_json;
mod every_host;
mod gateway;
mod gateway_install;
mod help;
mod host_vars;
mod hostile_clone;
mod hosts;
mod http_registry;
mod http_secrets;
mod import;
mod import_rules;
mod json_writers;
mod launcher_hosts;
mod lossy_choices;
mod mcp_corpus;
mod mcp_published;
mod mcp_registry;
mod mcp_statuses;
mod merges;
mod model;
mod model_regressions;
mod network;
mod opencode_jsonc;
mod output;
mod pi_commands;
mod pi_options;
mod probe;
mod project_cmds;
mod prompts;
mod proxy;
mod publish;
mod registry;
mod registry_trust;
mod resolve_env;
mod resources;
mod resources_import;
mod search_info;
#[cfg(target_os = "linux")]
mod secrets;
mod server_env;
mod server_spellings;
mod shadowed_files;
mod state_model;
mod status_fixes;
mod template_rules;
mod templates;
mod terminal_text;
mod tree;
mod trust;
mod trust_links;
mod trust_lock_claims;
mod trust_props;
mod txn;
mod txn_props;
mod validate;
mod verbose;
