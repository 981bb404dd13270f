//! Codex (hosts.md §4).
//!
//! - TOML: `.codex/config.toml` (project; Codex loads it only for trusted projects) and
//!   `$CODEX_HOME/config.toml`, default `~/.codex/config.toml`; table `mcp_servers`.
//! - No `type` key: `command` ⇒ stdio, `url` ⇒ streamable HTTP. Its schema disallows unknown keys,
//!   so `type` is never written. No SSE support at all.
//! - No interpolation: `${VAR}` stays literal. Environment references are forwarded by name
//!   instead (`env_vars`, `env_http_headers`, `bearer_token_env_var`; see `crate::translate`).

use super::{FileFormat, HostAdapter, TransportTypes, UserPath};
use crate::template::EnvSyntax;

pub(super) const ADAPTER: HostAdapter = HostAdapter {
    id: "codex",
    format: FileFormat::Toml,
    container: &["mcp_servers"],
    project_file: Some(".codex/config.toml"),
    user_file: Some(UserPath::EnvDir {
        var: "CODEX_HOME",
        default: ".codex",
        file: "config.toml",
    }),
    project_markers: &[".codex"],
    user_markers: &[UserPath::EnvDir {
        var: "CODEX_HOME",
        default: ".codex",
        file: "",
    }],
    env_syntax: EnvSyntax::None,
    transport_types: TransportTypes {
        stdio: None,
        http: None,
        sse: None,
        speaks_sse: false,
    },
};
