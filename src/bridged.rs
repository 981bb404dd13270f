//! Servers that declare `bridge = "http://…"`: a plain HTTP tool service (`GET /tools`,
//! `POST /call`) reached through `dotpack bridge URL`, a stdio MCP server every host can run.
//!
//! Such a server is expanded into an ordinary stdio server before it is translated for a host
//! (and before `dotpack probe` starts it): `command` is this dotpack, `args` are
//! `["bridge", URL, "--header-env", "NAME=VAR", …]`, and each header of `http_headers` travels in
//! the environment variable VAR, so a header written `"Bearer {{env.TOKEN}}"` becomes an env
//! reference in the host's own syntax and never a literal secret in `args`.

use std::collections::BTreeMap;

use crate::manifest::Server;

/// The canonical field naming the HTTP tool service.
pub const FIELD: &str = "bridge";

/// The environment variable that replaces the absolute path of the running dotpack as the
/// command written for bridged servers (e.g. `dotpack`, found on the host's PATH).
pub const COMMAND_ENV: &str = "DOTPACK_BRIDGE_COMMAND";

/// The URL a bridged server declares, when it declares one.
pub fn url_of(server: &Server) -> Option<&str> {
    server.extensions.get(FIELD).and_then(toml::Value::as_str)
}

/// The command written for bridged servers: `$DOTPACK_BRIDGE_COMMAND` when set, else the
/// absolute path of the running dotpack, else `dotpack`.
pub fn command() -> String {
    match std::env::var(COMMAND_ENV) {
        Ok(command) if !command.trim().is_empty() => command,
        _ => std::env::current_exe()
            .ok()
            .and_then(|p| p.to_str().map(str::to_string))
            .unwrap_or_else(|| "dotpack".to_string()),
    }
}

/// The environment variable carrying header `name` to the bridge: `DOTPACK_HEADER_` and the
/// name in capitals with every other character as `_` (`X-Api-Key` -> `DOTPACK_HEADER_X_API_KEY`).
pub fn header_var(name: &str) -> String {
    let tail: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_uppercase()
            } else {
                '_'
            }
        })
        .collect();
    format!("DOTPACK_HEADER_{tail}")
}

/// `server` as the stdio server hosts run: unchanged when it declares no `bridge`.
pub fn expand(server: &Server) -> Server {
    let Some(url) = url_of(server) else {
        return server.clone();
    };
    let mut out = server.clone();
    out.extensions.remove(FIELD);
    let headers: BTreeMap<String, String> = match out.extensions.remove("http_headers") {
        Some(toml::Value::Table(table)) => table
            .into_iter()
            .filter_map(|(k, v)| v.as_str().map(|v| (k, v.to_string())))
            .collect(),
        _ => BTreeMap::new(),
    };
    let mut args = vec!["bridge".to_string(), url.to_string()];
    for (name, value) in headers {
        let var = header_var(&name);
        args.push("--header-env".to_string());
        args.push(format!("{name}={var}"));
        out.env.insert(var, value);
    }
    out.command = Some(command());
    out.args = Some(args);
    out.url = None;
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bridged_server_becomes_dotpack_bridge_with_headers_in_env() {
        let server: Server = toml::from_str(
            r#"
bridge = "http://127.0.0.1:8000"
http_headers = { Authorization = "Bearer {{env.TOKEN}}", X-Team = "blue" }
enabled_tools = ["search"]
"#,
        )
        .unwrap();
        let out = expand(&server);
        assert_eq!(
            out.args.unwrap(),
            [
                "bridge",
                "http://127.0.0.1:8000",
                "--header-env",
                "Authorization=DOTPACK_HEADER_AUTHORIZATION",
                "--header-env",
                "X-Team=DOTPACK_HEADER_X_TEAM"
            ]
        );
        assert_eq!(
            out.env["DOTPACK_HEADER_AUTHORIZATION"],
            "Bearer {{env.TOKEN}}"
        );
        assert!(!out.extensions.contains_key("bridge"));
        assert!(!out.extensions.contains_key("http_headers"));
        assert!(out.extensions.contains_key("enabled_tools"));
        assert!(out.command.is_some());
    }

    #[test]
    fn other_servers_are_unchanged() {
        let server = Server {
            url: Some("https://x/mcp".to_string()),
            ..Server::default()
        };
        assert_eq!(expand(&server), server);
    }
}
