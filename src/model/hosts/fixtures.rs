//! Canonical servers shared by the per-host golden translation tests, so every host file shows
//! how the same inputs come out in its shape.

use crate::model::manifest::Server;
use crate::plan::to_host::{TranslateError, Translation, translate};
use crate::template::Props;

/// stdio with a prop in `args` and an env reference in `env`.
pub const STDIO: &str = r#"
command = "npx"
args = ["-y", "@acme/mcp", "--port", "{{props.port}}"]
env = { API_KEY = "{{env.API_KEY}}", LOG = "debug" }
"#;

/// Remote with headers carrying env references (bearer, whole value) and a literal.
pub const REMOTE: &str = r#"
url = "https://mcp.acme.dev/{{props.org}}/mcp"
http_headers = { Authorization = "Bearer {{env.ACME_TOKEN}}", X-Team = "{{env.ACME_TEAM}}", X-Client = "dotpack" }
"#;

/// Extensions some hosts write, some rename, some cannot express.
pub const EXTRAS: &str = r#"
command = "acme-mcp"
args = []
cwd = "/srv/acme"
enabled_tools = ["read", "search"]
trust = true
startup_timeout_sec = 20
timeout = 30000
description = "Acme tools"
"#;

/// A legacy SSE server.
pub const SSE: &str = r#"
url = "https://mcp.acme.dev/sse"
type = "sse"
"#;

pub fn server(toml: &str) -> Server {
    toml::from_str(toml).unwrap()
}

pub fn props() -> Props {
    Props::from([
        ("port".to_string(), "4000".into()),
        ("org".to_string(), "acme".into()),
    ])
}

pub fn try_run(host: &str, toml: &str) -> Result<Translation, TranslateError> {
    translate(
        super::adapter(host).unwrap(),
        "acme",
        &server(toml),
        &props(),
    )
}

pub fn run(host: &str, toml: &str) -> Translation {
    try_run(host, toml).unwrap()
}

/// `(field, security)` of every drop.
pub fn drops(t: &Translation) -> Vec<(&str, bool)> {
    t.dropped
        .iter()
        .map(|d| (d.field.as_str(), d.security))
        .collect()
}

pub fn renames(t: &Translation) -> Vec<(&str, &str)> {
    t.renamed
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect()
}

/// The rendered entry as compact JSON text, which also pins key order.
pub fn text(t: &Translation) -> String {
    t.entry.to_string()
}
