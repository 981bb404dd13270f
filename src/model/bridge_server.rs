//! Servers that declare `bridge = "http://…"`: a plain HTTP tool service (`GET /tools`,
//! `POST /call`) reached through `dotpack bridge URL`, a stdio MCP server every host can run.
//!
//! Such a server is expanded into an ordinary stdio server before it is translated for a host
//! (and before `dotpack probe` starts it): `command` is this dotpack and `args` are
//! `["bridge", URL, …]`. A header of `http_headers` never puts a secret in `args`:
//!
//! - a literal value (`X-Team = "blue"`) is `--header X-Team=blue`;
//! - a value that is an env reference after some text (`"Bearer {{env.TOKEN}}"`, or just
//!   `"{{env.TOKEN}}"`) is `--header-env Authorization=TOKEN --header-prefix "Authorization=Bearer "`
//!   with `env.TOKEN = "{{env.TOKEN}}"`: the variable is passed through under its own name, which
//!   every host can write (Codex as `env_vars`);
//! - any other template travels whole in `DOTPACK_HEADER_<NAME>` (`--header-env
//!   NAME=DOTPACK_HEADER_<NAME>`), rendered in the host's own interpolation syntax.

use std::collections::BTreeMap;

use crate::model::hosts::Scope;
use crate::model::manifest::Server;

/// The canonical field naming the HTTP tool service.
pub const FIELD: &str = "bridge";

/// The environment variable that replaces the absolute path of the running dotpack as the
/// command written for bridged servers (e.g. `dotpack`, found on the host's PATH).
pub const COMMAND_ENV: &str = "DOTPACK_BRIDGE_COMMAND";

/// The URL a bridged server declares, when it declares one.
pub fn url_of(server: &Server) -> Option<&str> {
    server.extensions.get(FIELD).and_then(toml::Value::as_str)
}

/// The command written for bridged servers into a file at `scope`: `$DOTPACK_BRIDGE_COMMAND`
/// when set; else, in a project's files, which the team commits and every teammate's dotpack
/// lives elsewhere, `dotpack` as found on the PATH; in the user's own files, the absolute path
/// of the running dotpack (a host started from a desktop may not have the user's PATH).
pub fn command(scope: Scope) -> String {
    match std::env::var(COMMAND_ENV) {
        Ok(command) if !command.trim().is_empty() => command,
        _ if scope == Scope::Project => PORTABLE_COMMAND.to_string(),
        _ => std::env::current_exe()
            .ok()
            .and_then(|p| p.to_str().map(str::to_string))
            .unwrap_or_else(|| PORTABLE_COMMAND.to_string()),
    }
}

/// The command every teammate can run: dotpack on the PATH.
pub const PORTABLE_COMMAND: &str = "dotpack";

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

/// `server` as the stdio server hosts run from a file at `scope`: unchanged when it declares no
/// `bridge`. Its `enabled_tools` and `disabled_tools` become the bridge's `--enable-tool` and
/// `--disable-tool` arguments and leave the entry: the bridge enforces them on every host, so
/// a host that has no such field drops nothing, and every host's entry says the same.
pub fn expand(server: &Server, scope: Scope) -> Server {
    let Some(mut out) = expand_unfiltered(server, scope) else {
        return server.clone();
    };
    let mut args = out.args.take().unwrap_or_default();
    args.extend(filter_args(&mut out));
    out.args = Some(args);
    out
}

/// `server` as [`expand`] writes it but serving every tool of the service, its tool filters
/// kept as fields: what `probe` and `verify` start, to see all the service's tools and check
/// the filters' names against them. `None` when it declares no `bridge`.
pub fn expand_unfiltered(server: &Server, scope: Scope) -> Option<Server> {
    let url = url_of(server)?;
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
        let parts =
            crate::template::parse_parts(&value, &crate::template::Context::new(&BTreeMap::new()))
                .unwrap_or_default();
        match parts.as_slice() {
            _ if !value.contains("{{") && !value.contains('@') => {
                args.extend(["--header".to_string(), format!("{name}={value}")]);
            }
            [
                crate::template::Part::Env {
                    names,
                    default: None,
                },
            ] if names.len() == 1 => {
                passthrough(&mut out, &mut args, &name, &names[0], None);
            }
            [
                crate::template::Part::Text(prefix),
                crate::template::Part::Env {
                    names,
                    default: None,
                },
            ] if names.len() == 1 => {
                passthrough(&mut out, &mut args, &name, &names[0], Some(prefix));
            }
            _ => {
                let var = header_var(&name);
                args.extend(["--header-env".to_string(), format!("{name}={var}")]);
                out.env.insert(var, value);
            }
        }
    }
    out.command = Some(command(scope));
    out.args = Some(args);
    out.url = None;
    Some(out)
}

/// The bridge's arguments for `server`'s `enabled_tools` and `disabled_tools`, which are taken
/// out of it (a value that is not a list of strings, which `validate` refuses, stays). An empty
/// `enabled_tools` enables no tool: `--disable-tool *`.
fn filter_args(server: &mut Server) -> Vec<String> {
    let mut names = |field: &str| -> Option<Vec<String>> {
        let toml::Value::Array(items) = server.extensions.get(field)? else {
            return None;
        };
        let names = items
            .iter()
            .map(|v| v.as_str().map(str::to_string))
            .collect::<Option<Vec<String>>>()?;
        server.extensions.remove(field);
        Some(names)
    };
    let enabled = names("enabled_tools");
    let disabled = names("disabled_tools").unwrap_or_default();
    let mut args = Vec::new();
    match enabled {
        Some(enabled) if enabled.is_empty() => {
            args.extend(["--disable-tool".to_string(), "*".to_string()]);
        }
        Some(enabled) => {
            for name in enabled {
                args.extend(["--enable-tool".to_string(), name]);
            }
        }
        None => {}
    }
    for name in disabled {
        args.extend(["--disable-tool".to_string(), name]);
    }
    args
}

/// Header `name` read from `var`, passed through the environment under its own name.
fn passthrough(
    out: &mut Server,
    args: &mut Vec<String>,
    name: &str,
    var: &str,
    prefix: Option<&str>,
) {
    args.extend(["--header-env".to_string(), format!("{name}={var}")]);
    if let Some(prefix) = prefix {
        args.extend(["--header-prefix".to_string(), format!("{name}={prefix}")]);
    }
    out.env
        .insert(var.to_string(), format!("{{{{env.{var}}}}}"));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bridged_server_becomes_dotpack_bridge_with_headers_in_env() {
        let server: Server = toml::from_str(
            r#"
bridge = "http://127.0.0.1:8000"
http_headers = { Authorization = "Bearer {{env.TOKEN}}", X-Team = "blue", X-Both = "{{env.A}}:{{env.B}}" }
enabled_tools = ["search"]
"#,
        )
        .unwrap();
        let out = expand(&server, Scope::User);
        assert_eq!(
            out.args.unwrap(),
            [
                "bridge",
                "http://127.0.0.1:8000",
                "--header-env",
                "Authorization=TOKEN",
                "--header-prefix",
                "Authorization=Bearer ",
                "--header-env",
                "X-Both=DOTPACK_HEADER_X_BOTH",
                "--header",
                "X-Team=blue",
                "--enable-tool",
                "search",
            ]
        );
        assert_eq!(out.env["TOKEN"], "{{env.TOKEN}}");
        assert_eq!(out.env["DOTPACK_HEADER_X_BOTH"], "{{env.A}}:{{env.B}}");
        assert!(!out.extensions.contains_key("bridge"));
        assert!(!out.extensions.contains_key("http_headers"));
        assert!(!out.extensions.contains_key("enabled_tools"));
        assert!(out.command.is_some());
        let probed = expand_unfiltered(&server, Scope::User).unwrap();
        assert!(!probed.args.unwrap().contains(&"--enable-tool".to_string()));
        assert!(probed.extensions.contains_key("enabled_tools"));
    }

    #[test]
    fn tool_filters_become_bridge_arguments() {
        let args = |toml: &str| {
            let server: Server = toml::from_str(toml).unwrap();
            let out = expand(&server, Scope::Project);
            assert!(!out.extensions.contains_key("enabled_tools"), "{toml}");
            assert!(!out.extensions.contains_key("disabled_tools"), "{toml}");
            out.args.unwrap()[2..].to_vec()
        };
        assert_eq!(
            args(
                "bridge = \"http://x\"\nenabled_tools = [\"read_*\", \"search\"]\ndisabled_tools = [\"read_secret\"]"
            ),
            [
                "--enable-tool",
                "read_*",
                "--enable-tool",
                "search",
                "--disable-tool",
                "read_secret"
            ]
        );
        assert_eq!(
            args("bridge = \"http://x\"\nenabled_tools = []"),
            ["--disable-tool", "*"]
        );
        assert!(args("bridge = \"http://x\"").is_empty());
    }

    #[test]
    fn other_servers_are_unchanged() {
        let server = Server {
            url: Some("https://x/mcp".to_string()),
            ..Server::default()
        };
        assert_eq!(expand(&server, Scope::Project), server);
    }
}
