//! `dotpack serve`: the project's servers behind one stdio MCP endpoint (see docs/gateway.md).
//!
//! Each server is offered on the surface `dotpack.toml` chooses for it ([`Surface`]): behind the
//! three proxy tools, or as its own tools named `SERVER__TOOL`. Nothing starts when the gateway
//! does: `search` and `describe` answer from the tool cache the pins fill, and a server starts on
//! its first call ([`backend`]). Starting a server is a request beyond the project, so only the
//! servers the user approved (or `--trust`) start; the others answer why, and how to approve.

mod backend;
pub mod behind;
mod proxy;

use std::sync::mpsc::RecvTimeoutError;
use std::time::Duration;

use anyhow::{Context as _, Result};
use serde_json::{Value, json};

use crate::mcp::bridge::{ToolFilter, tool_error};
use crate::mcp::serve::Handler;
use crate::model::gateway::{Lifecycle, Surface};
use crate::model::manifest::Server;
use crate::ui::printer::Printer;

use super::{Project, Settings};
use crate::mcp::Cancel;
use crate::mcp::serve::Notifier;
use crate::mcp::serve_http;
use backend::{Backend, Context, Start};

/// Between a server's name and its tool's in a direct tool name.
pub const SEPARATOR: &str = "__";

/// The project's servers, ready to serve.
pub struct Gateway {
    backends: Vec<Backend>,
    /// The gateway's client, while it is served: told when a direct server's tools change.
    notifier: Notifier,
}

impl Gateway {
    /// Every server of `project` that its surface does not turn off. Nothing is started.
    pub fn load(settings: &Settings, printer: &Printer, project: &Project) -> Result<Gateway> {
        let manifest = &project.manifest.manifest;
        let lock = project.lock.as_ref();
        let registries = super::registries(settings, Some(&project.manifest))?;
        let names = super::connect::server_names(manifest, lock);
        let unapproved = super::unapproved_starts(settings, project, &registries, lock, &names)?;
        let mut backends = Vec::new();
        let notifier = Notifier::default();
        let served = behind::served(manifest, lock, &registries, &names, |name, e| {
            printer.warning(format!(
                "dotpack serve: server `{name}` is not served: {e:#}"
            ));
        });
        for located in served {
            let name = located.server.clone();
            let surface = manifest.gateway_surface(&located.package);
            let start = match unapproved.iter().find(|r| r.key == name) {
                Some(request) => Start::Refused(super::consent::refusal_text(
                    &[request],
                    "dotpack.toml",
                    "`dotpack serve` did not start it.",
                )),
                None => Start::Ready(
                    Box::new(located.clone()),
                    super::connect::timeouts(&located.def, None),
                ),
            };
            let pins = lock.and_then(|l| l.tools.get(&name)).cloned();
            let lifecycle = manifest.gateway_lifecycle(&located.package);
            backends.push(Backend::new(
                name,
                (surface, lifecycle),
                filter(&located.def),
                pins,
                start,
                Context {
                    home: settings.dotpack_home.clone(),
                    notifier: notifier.clone(),
                },
            ));
        }
        Ok(Gateway { backends, notifier })
    }

    fn backend(&self, name: &str) -> Result<&Backend, String> {
        self.backends
            .iter()
            .find(|b| b.name == name)
            .ok_or_else(|| {
                let names: Vec<&str> = self.backends.iter().map(|b| b.name.as_str()).collect();
                format!(
                    "there is no server `{name}` behind this gateway; its servers are: {}",
                    names.join(", ")
                )
            })
    }

    fn proxied(&self) -> impl Iterator<Item = &Backend> {
        self.backends.iter().filter(|b| b.surface == Surface::Proxy)
    }

    /// `search`: matches from every proxied server whose tools are known, and the servers
    /// whose tools are not (never pinned, never started).
    fn search(&self, args: &Value) -> Result<String, String> {
        let query = args.get("query").and_then(Value::as_str).unwrap_or("");
        let only = args.get("server").and_then(Value::as_str);
        let mut known = Vec::new();
        let mut unknown = Vec::new();
        for b in self.proxied().filter(|b| only.is_none_or(|s| s == b.name)) {
            match b.known_tools() {
                Some(tools) => known.extend(tools.into_iter().map(|t| (b.name.as_str(), t))),
                None => unknown.push(b.name.as_str()),
            }
        }
        let refs: Vec<(&str, &crate::mcp::Tool)> = known.iter().map(|(s, t)| (*s, t)).collect();
        let found = proxy::search(query, &refs);
        let mut lines: Vec<String> = found.iter().map(|(s, t)| proxy::line(s, t)).collect();
        if lines.is_empty() {
            lines.push(format!("no tool matches `{query}`"));
        }
        if !unknown.is_empty() {
            lines.push(format!(
                "not searched (tools not known until the server starts; `describe` with its server lists them): {}",
                unknown.join(", ")
            ));
        }
        Ok(lines.join("\n"))
    }

    /// `describe`: one tool's definition, or every tool of a server (starting it if its tools
    /// are not known), as `{"server", "tools": [...]}`.
    fn describe(&self, args: &Value) -> Result<String, String> {
        let server = args.get("server").and_then(Value::as_str).unwrap_or("");
        let backend = self.backend(server)?;
        let tools = match backend.known_tools() {
            Some(tools) => tools,
            None => backend.tools()?,
        };
        let chosen: Vec<&crate::mcp::Tool> = match args.get("tool").and_then(Value::as_str) {
            None => tools.iter().collect(),
            Some(name) => match tools.iter().find(|t| t.name == name) {
                Some(tool) => vec![tool],
                None => {
                    return Err(format!(
                        "server `{server}` has no tool `{name}`; its tools are: {}",
                        tools
                            .iter()
                            .map(|t| t.name.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ));
                }
            },
        };
        // An object, not a bare list: a client may read a JSON text as the result's structured
        // content, which MCP requires to be an object (Gemini CLI does, and refuses a list).
        serde_json::to_string_pretty(&json!({ "server": server, "tools": chosen }))
            .map_err(|e| e.to_string())
    }

    /// The backend and tool of a direct tool name, `SERVER__TOOL`.
    fn direct(&self, name: &str) -> Option<(&Backend, String)> {
        self.backends
            .iter()
            .filter(|b| b.surface == Surface::Direct)
            .find_map(|b| {
                let tool = name.strip_prefix(&b.name)?.strip_prefix(SEPARATOR)?;
                Some((b, tool.to_string()))
            })
    }

    /// Whether any server is behind the proxy tools.
    fn has_proxy(&self) -> bool {
        self.proxied().next().is_some()
    }
}

fn text_result(result: Result<String, String>) -> Value {
    match result {
        Ok(text) => json!({ "content": [{ "type": "text", "text": text }], "isError": false }),
        Err(why) => tool_error(&why),
    }
}

fn forwarded(result: Result<Value, String>) -> Value {
    result.unwrap_or_else(|why| tool_error(&why))
}

impl Handler for Gateway {
    fn name(&self) -> &str {
        "dotpack"
    }

    fn instructions(&self) -> String {
        let names: Vec<&str> = self.backends.iter().map(|b| b.name.as_str()).collect();
        format!(
            "The tools of this project's MCP servers ({}). Use `search` to find a tool by words, `describe` for its input schema, and `call` to run it.",
            names.join(", ")
        )
    }

    fn refuse(&self, tool: &str) -> Option<String> {
        let proxy =
            self.has_proxy() && [proxy::SEARCH, proxy::DESCRIBE, proxy::CALL].contains(&tool);
        (!proxy && self.direct(tool).is_none())
            .then(|| format!("this gateway has no tool `{tool}`"))
    }

    fn list_tools(&self) -> Result<Value, String> {
        let mut tools = Vec::new();
        if self.has_proxy() {
            let names: Vec<&str> = self.proxied().map(|b| b.name.as_str()).collect();
            tools.extend(proxy::tools(&names));
        }
        for b in self
            .backends
            .iter()
            .filter(|b| b.surface == Surface::Direct)
        {
            // A server that cannot start costs its own tools, not every other server's.
            let own = match b.known_tools().map_or_else(|| b.tools(), Ok) {
                Ok(tools) => tools,
                Err(e) => {
                    tracing::warn!(
                        "dotpack serve: the tools of server `{}` are not listed: {e}",
                        b.name
                    );
                    continue;
                }
            };
            for tool in own {
                tools.push(json!({
                    "name": format!("{}{SEPARATOR}{}", b.name, tool.name),
                    "description": tool.description.unwrap_or_default(),
                    "inputSchema": tool.input_schema,
                }));
            }
        }
        Ok(json!({ "tools": tools }))
    }

    fn notifier(&self) -> Option<&Notifier> {
        Some(&self.notifier)
    }

    fn call_tool(&self, params: &Value, cancel: &Cancel) -> Value {
        let name = params.get("name").and_then(Value::as_str).unwrap_or("");
        let args = match params.get("arguments") {
            Some(Value::Null) | None => json!({}),
            Some(args) => args.clone(),
        };
        if let Some((backend, tool)) = self.direct(name) {
            return forwarded(backend.call(&tool, args, cancel));
        }
        match name {
            proxy::SEARCH => text_result(self.search(&args)),
            proxy::DESCRIBE => text_result(self.describe(&args)),
            _ => {
                let server = args.get("server").and_then(Value::as_str).unwrap_or("");
                let tool = args.get("tool").and_then(Value::as_str).unwrap_or("");
                let arguments = match args.get("arguments") {
                    Some(Value::Null) | None => json!({}),
                    Some(Value::String(text)) => {
                        serde_json::from_str(text).unwrap_or(Value::String(text.clone()))
                    }
                    Some(a) => a.clone(),
                };
                forwarded(
                    self.backend(server)
                        .and_then(|b| b.call(tool, arguments, cancel)),
                )
            }
        }
    }
}

/// A server's `enabled_tools` and `disabled_tools`.
fn filter(def: &Server) -> ToolFilter {
    let names = |field: &str| -> Option<Vec<String>> {
        let toml::Value::Array(items) = def.extensions.get(field)? else {
            return None;
        };
        items
            .iter()
            .map(|v| v.as_str().map(str::to_string))
            .collect()
    };
    ToolFilter {
        enabled: names("enabled_tools"),
        disabled: names("disabled_tools").unwrap_or_default(),
    }
}

/// A server's `{{env.X}}`: the environment `dotpack serve` runs in, else the credential store
/// (as `dotpack run` gives a launcher entry), so a host's one gateway entry needs no secrets.
fn secret_or_env(name: &str) -> Option<String> {
    if let Some(value) = std::env::var(name).ok().filter(|v| !v.is_empty()) {
        return Some(value);
    }
    super::secrets::get(name).ok().flatten()
}

/// Serves `project`'s servers on stdin and stdout until stdin ends (with `http`, on that
/// loopback address until the process is ended); every server it started is stopped then, and
/// any that has had no call for `idle` before (never, when `None`).
pub fn serve(
    settings: &Settings,
    printer: &Printer,
    project: &Project,
    (idle, http): (Option<Duration>, Option<std::net::SocketAddr>),
) -> Result<()> {
    let gateway = Gateway::load(settings, printer, project)?;
    let listener = match http {
        Some(addr) => {
            let listener = std::net::TcpListener::bind(addr)
                .with_context(|| format!("dotpack serve: could not listen on {addr}"))?;
            let url = format!("http://{}{}", listener.local_addr()?, serve_http::PATH);
            printer.status("Serving", format!("the gateway at {url}"));
            Some(listener)
        }
        None => None,
    };
    let (done, stopped) = std::sync::mpsc::channel::<()>();
    std::thread::scope(|scope| {
        // Eager servers start beside the session, so its first messages wait for none of them.
        for backend in &gateway.backends {
            if backend.lifecycle != Lifecycle::Lazy {
                scope.spawn(|| backend.start());
            }
        }
        if let Some(idle) = idle {
            let gateway = &gateway;
            // Looks a few times per idle period, so a server stops soon after it is due.
            let tick = (idle / 4).clamp(Duration::from_millis(50), Duration::from_secs(5));
            scope.spawn(move || {
                while let Err(RecvTimeoutError::Timeout) = stopped.recv_timeout(tick) {
                    for backend in &gateway.backends {
                        backend.stop_if_idle(idle);
                    }
                }
            });
        }
        let served = match listener {
            Some(listener) => serve_http::serve(&gateway, listener),
            None => crate::mcp::serve::serve(
                &gateway,
                std::io::stdin().lock(),
                std::io::stdout(),
                std::io::stderr(),
            ),
        };
        drop(done);
        served
    })?;
    Ok(())
}
