//! `bridge = "http://…"` on a server: a plain HTTP tool service reached through `dotpack bridge`
//! (see [`crate::model::bridge_server`]). Such a server has no transport of its own: `command`, `args`, `url`,
//! `type` and the process fields are written by dotpack, and of the HTTP fields only
//! `http_headers` (sent to the service through the environment) applies.

use toml_edit::{Item, Key, TableLike};

use super::Checker;
use super::sections::is_http_url;

/// Fields a bridged server cannot have: dotpack writes the transport itself.
const NOT_WITH_BRIDGE: &[&str] = &[
    "command",
    "args",
    "url",
    "type",
    "env",
    "cwd",
    "env_file",
    "env_http_headers",
    "bearer_token_env_var",
    "headers_helper",
];

impl Checker<'_> {
    /// The value of `bridge`: an http(s) URL.
    pub(super) fn bridge_url(&mut self, key: &Key, item: &Item, at: &str) {
        match item.as_str() {
            Some(url) if is_http_url(url) => {}
            _ => self.error(
                "invalid-url",
                "`bridge` must be the http(s) URL of a tool service".to_string(),
                item.span().or(key.span()),
                at,
                "write `bridge = \"http://127.0.0.1:8000\"` (the service's GET /tools and POST /call)",
            ),
        }
    }

    /// A bridged server declares none of the fields dotpack writes for it.
    pub(super) fn bridge_transport(&mut self, at: &str, table: &dyn TableLike) {
        for field in NOT_WITH_BRIDGE {
            if let Some((k, _)) = table.get_key_value(field) {
                self.error(
                    "bridge-transport",
                    format!("`{field}` does not apply to a server with `bridge`"),
                    k.span(),
                    &format!("{at}.{field}"),
                    "dotpack runs `dotpack bridge URL` for it; remove the field (headers go in `http_headers`)",
                );
            }
        }
    }
}
