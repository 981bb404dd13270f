//! An MCP client: JSON-RPC 2.0 over stdio (a child process) or streamable HTTP.
//!
//! It knows nothing of manifests or hosts: a caller describes how to reach a server
//! ([`Endpoint`]), and [`Client::connect`] runs the `initialize` handshake, after which tools
//! can be listed and called. Every step has a timeout; a server that writes something that is
//! not JSON-RPC, exits, floods its output or does not answer fails with an error naming the
//! server, what happened and the end of its stderr. A child process is always reaped: closing
//! the client, dropping it, and every error path end the process (and its process group).
//!
//! Errors never show a secret: every value the caller lists in the endpoint's `secrets` (the
//! resolved `{{env.X}}` references) and every header value is replaced in them (the server's
//! stderr included), and URLs are shown without user information or query values.

pub mod bridge;
mod cancel;
mod http;
pub mod jsonrpc;
pub mod proxy;
pub mod serve;
pub mod serve_http;
mod shared;
mod stdio;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use serde::Serialize;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use jsonrpc::{Incoming, Outcome};

/// Locks `mutex`, taking over its value when another thread panicked while holding it: every
/// value kept behind a lock here stays valid between statements, so a panic elsewhere does not
/// make it unusable.
pub(crate) fn lock<T>(mutex: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

pub use cancel::Cancel;
pub use dotpack_urls::Secrets;
pub use shared::{Notices, SharedClient};
pub use stdio::BASE_ENV;

/// The protocol revisions this client speaks, newest first; it offers the first.
pub const PROTOCOL_VERSIONS: &[&str] = &["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

/// At most this many pages of `tools/list` (a server whose cursor never ends is an error).
const MAX_PAGES: usize = 1000;

/// How to reach a server.
#[derive(Clone, Debug)]
pub enum Endpoint {
    /// Spawn `command` with `args` in `cwd`, with `env` added to a small base environment
    /// ([`stdio::BASE_ENV`]), never dotpack's whole environment.
    Stdio {
        command: String,
        args: Vec<String>,
        env: BTreeMap<String, String>,
        cwd: Option<PathBuf>,
        /// Values kept out of every message.
        secrets: Secrets,
    },
    /// POST JSON-RPC to `url` with `headers`.
    Http {
        url: String,
        headers: BTreeMap<String, String>,
        /// Values kept out of every message.
        secrets: Secrets,
    },
}

impl Endpoint {
    /// Every value that must not appear in a message: the listed secrets and header values.
    fn all_secrets(&self) -> Secrets {
        let mut all = Secrets::default();
        match self {
            Endpoint::Stdio { secrets, .. } => all.extend(secrets),
            Endpoint::Http {
                headers, secrets, ..
            } => {
                all.extend(secrets);
                for (name, value) in headers {
                    all.add(value, format!("<header {name}>"));
                    if let Some((_, token)) = value.split_once(' ') {
                        all.add(token, format!("<header {name}>"));
                    }
                }
            }
        }
        all
    }
}

/// How long each step may take.
#[derive(Clone, Copy, Debug)]
pub struct Timeouts {
    /// Starting the server and answering `initialize`.
    pub initialize: Duration,
    /// Every later request (`tools/list`, one page; `tools/call`).
    pub request: Duration,
    /// After closing stdin, how long a server may take to exit before it is terminated.
    pub grace: Duration,
}

impl Default for Timeouts {
    fn default() -> Self {
        Timeouts {
            initialize: Duration::from_secs(10),
            request: Duration::from_secs(30),
            grace: Duration::from_secs(2),
        }
    }
}

/// Why talking to a server failed.
#[derive(Debug, thiserror::Error)]
pub enum McpError {
    /// The transport failed: the server could not start, exited, wrote junk, flooded its output,
    /// did not answer in time, or the HTTP request failed.
    #[error("MCP server `{server}` {what}{}", stderr_lines(.stderr))]
    Failed {
        server: String,
        what: String,
        /// The end of the server's stderr (stdio only), possibly empty.
        stderr: String,
    },
    /// The server answered a request with a JSON-RPC error.
    #[error("MCP server `{server}` answered `{method}` with error {code}: {message}")]
    Rpc {
        server: String,
        method: String,
        code: i64,
        message: String,
    },
    /// A request of a [`SharedClient`] to a stdio server was not answered in time: the caller
    /// stopped waiting and the server was told to stop working on it
    /// (`notifications/cancelled`), so its other requests may go on.
    #[error("MCP server `{server}` {what}{}", stderr_lines(.stderr))]
    TimedOut {
        server: String,
        what: String,
        stderr: String,
    },
    /// The request was cancelled before the server answered (the server was told).
    #[error("MCP server `{server}`: the request was cancelled")]
    Cancelled { server: String },
}

fn stderr_lines(stderr: &str) -> String {
    let stderr = stderr.trim_end();
    if stderr.is_empty() {
        return String::new();
    }
    let lines: Vec<String> = stderr.lines().map(|l| format!("\n    {l}")).collect();
    format!("\n  its stderr ended with:{}", lines.concat())
}

/// A transport failure before the server name and stderr are attached.
#[derive(Debug)]
pub(crate) struct Failure(pub String);

/// What both transports do: send a request and wait for its response (answering the server's
/// own requests meanwhile), send a notification, and end the connection.
pub(crate) trait Transport: Send {
    fn request(&mut self, id: u64, message: &Value, timeout: Duration) -> Result<Value, Failure>;
    fn notify(&mut self, message: &Value) -> Result<(), Failure>;
    /// The end of the server's stderr, for errors.
    fn stderr_tail(&mut self) -> String;
    /// Ends the connection; the transport is unusable afterwards. `graceful`: let a child exit
    /// on its own first (after a failure it is terminated at once).
    fn close(&mut self, graceful: bool);
}

/// What the server said about itself in `initialize`.
#[derive(Clone, Debug, Default, Serialize)]
pub struct ServerInfo {
    pub name: String,
    pub version: String,
    pub protocol_version: String,
    pub capabilities: Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
}

/// One tool as `tools/list` gives it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Tool {
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(rename = "inputSchema")]
    pub input_schema: Value,
}

impl Tool {
    /// `sha256:<hex>` of the tool's canonical JSON: name, description and input schema, keys
    /// sorted at every level. What `dotpack lock --pin-tools` records.
    pub fn pin(&self) -> String {
        let value = json!({
            "name": self.name,
            "description": self.description.clone().unwrap_or_default(),
            "inputSchema": self.input_schema,
        });
        let digest = Sha256::digest(jsonrpc::canonical(&value).as_bytes());
        let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
        format!("sha256:{hex}")
    }

    /// The first line of the description, for listings.
    pub fn summary(&self) -> &str {
        self.description
            .as_deref()
            .and_then(|d| d.trim().lines().next())
            .unwrap_or("")
            .trim()
    }
}

/// A connected, initialized MCP session.
pub struct Client {
    name: String,
    transport: Box<dyn Transport>,
    timeouts: Timeouts,
    next_id: u64,
    info: ServerInfo,
    failed: bool,
    /// Kept out of every error.
    secrets: Secrets,
}

impl Client {
    /// Starts or reaches the server at `endpoint` (called `name` in errors) and runs the
    /// handshake: `initialize` offering the newest protocol revision, accepting the server's
    /// choice when it is one this client speaks, then `notifications/initialized`.
    pub fn connect(
        name: &str,
        endpoint: &Endpoint,
        timeouts: Timeouts,
    ) -> Result<Client, McpError> {
        let secrets = endpoint.all_secrets();
        let transport: Box<dyn Transport> = match endpoint {
            Endpoint::Stdio {
                command,
                args,
                env,
                cwd,
                ..
            } => Box::new(
                stdio::Stdio::spawn(command, args, env, cwd.as_deref(), timeouts.grace).map_err(
                    |Failure(what)| McpError::Failed {
                        server: name.to_string(),
                        what: secrets.scrub(&what),
                        stderr: String::new(),
                    },
                )?,
            ),
            Endpoint::Http { url, headers, .. } => Box::new(http::Http::new(url, headers)),
        };
        let mut client = Client {
            name: name.to_string(),
            transport,
            timeouts,
            next_id: 1,
            info: ServerInfo::default(),
            failed: false,
            secrets,
        };
        let result = client.call("initialize", Some(initialize_params()), timeouts.initialize)?;
        client.info = client.server_info(&result)?;
        client
            .transport
            .notify(&jsonrpc::notification("notifications/initialized", None))
            .map_err(|f| client.failure(f))?;
        Ok(client)
    }

    /// What the server said about itself.
    pub fn info(&self) -> &ServerInfo {
        &self.info
    }

    /// Every tool, following `nextCursor` through every page.
    pub fn list_tools(&mut self) -> Result<Vec<Tool>, McpError> {
        let timeout = self.timeouts.request;
        match list_pages(|params| self.call("tools/list", params, timeout)) {
            Ok(Ok(tools)) => Ok(tools),
            Ok(Err(why)) => Err(self.broken(&why)),
            Err(e) => Err(e),
        }
    }

    /// Calls tool `tool` with `arguments` and returns the result object as the server sent it
    /// (`content`, `structuredContent`, `isError`). A tool that fails is a result with
    /// `isError: true`, not an error.
    pub fn call_tool(&mut self, tool: &str, arguments: Value) -> Result<Value, McpError> {
        let params = json!({ "name": tool, "arguments": arguments });
        self.call("tools/call", Some(params), self.timeouts.request)
    }

    /// Ends the session: stdin closed, then the process terminated after the grace period
    /// (an HTTP session is deleted).
    pub fn close(mut self) {
        let graceful = !self.failed;
        self.transport.close(graceful);
    }

    fn call(
        &mut self,
        method: &str,
        params: Option<Value>,
        timeout: Duration,
    ) -> Result<Value, McpError> {
        let id = self.next_id;
        self.next_id += 1;
        let message = jsonrpc::request(id, method, params);
        let raw = self
            .transport
            .request(id, &message, timeout)
            .map_err(|f| self.failure(f))?;
        response_outcome(raw, &self.name, method, &self.secrets)
            .unwrap_or_else(|| Err(self.broken(&format!("sent no response to `{method}`"))))
    }

    fn server_info(&mut self, result: &Value) -> Result<ServerInfo, McpError> {
        server_info(result).map_err(|why| self.broken(&why))
    }

    fn failure(&mut self, Failure(what): Failure) -> McpError {
        self.failed = true;
        McpError::Failed {
            server: self.name.clone(),
            what: self.secrets.scrub(&what),
            stderr: self.secrets.scrub(&self.transport.stderr_tail()),
        }
    }

    fn broken(&mut self, what: &str) -> McpError {
        self.failure(Failure(what.to_string()))
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        // `close` already ran when it was called; closing twice does nothing.
        self.transport.close(!self.failed);
    }
}

/// Every tool `call` (one `tools/list` request with its params) gives, following `nextCursor`
/// through every page; the inner `Err` says how the server broke the protocol.
fn list_pages(
    mut call: impl FnMut(Option<Value>) -> Result<Value, McpError>,
) -> Result<Result<Vec<Tool>, String>, McpError> {
    let mut tools = Vec::new();
    let mut cursor: Option<String> = None;
    for _ in 0..MAX_PAGES {
        let result = call(cursor.as_ref().map(|c| json!({ "cursor": c })))?;
        let Some(items) = result.get("tools").and_then(Value::as_array) else {
            return Ok(Err(
                "answered `tools/list` without a `tools` array".to_string()
            ));
        };
        for item in items {
            match tool(item) {
                Ok(tool) => tools.push(tool),
                Err(why) => return Ok(Err(why)),
            }
        }
        match result.get("nextCursor").and_then(Value::as_str) {
            Some(next) if !next.is_empty() => cursor = Some(next.to_string()),
            _ => return Ok(Ok(tools)),
        }
    }
    Ok(Err(format!(
        "gave more than {MAX_PAGES} pages of tools (a `nextCursor` that never ends?)"
    )))
}

/// What server `server` answered to `method`: its result, or its error as [`McpError::Rpc`]
/// with any secret scrubbed; `None` when `raw` is no response at all.
pub(crate) fn response_outcome(
    raw: Value,
    server: &str,
    method: &str,
    secrets: &Secrets,
) -> Option<Result<Value, McpError>> {
    match jsonrpc::classify(raw) {
        Ok(Incoming::Response {
            outcome: Outcome::Result(result),
            ..
        }) => Some(Ok(result)),
        Ok(Incoming::Response {
            outcome: Outcome::Error { code, message },
            ..
        }) => Some(Err(McpError::Rpc {
            server: server.to_string(),
            method: method.to_string(),
            code,
            message: secrets.scrub(&message),
        })),
        Ok(_) | Err(_) => None,
    }
}

/// What `initialize`'s `result` says of the server; `Err` says how it broke the protocol.
fn server_info(result: &Value) -> Result<ServerInfo, String> {
    let Some(version) = result.get("protocolVersion").and_then(Value::as_str) else {
        return Err("answered `initialize` without a `protocolVersion`".to_string());
    };
    if !PROTOCOL_VERSIONS.contains(&version) {
        return Err(format!(
            "chose protocol version {version}, which dotpack does not speak (it speaks {})",
            PROTOCOL_VERSIONS.join(", ")
        ));
    }
    let text = |key: &str| {
        result
            .get("serverInfo")
            .and_then(|i| i.get(key))
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string()
    };
    Ok(ServerInfo {
        name: text("name"),
        version: text("version"),
        protocol_version: version.to_string(),
        capabilities: result.get("capabilities").cloned().unwrap_or(json!({})),
        instructions: result
            .get("instructions")
            .and_then(Value::as_str)
            .map(str::to_string),
    })
}

/// One tool of a `tools/list` page.
fn tool(item: &Value) -> Result<Tool, String> {
    let Some(name) = item.get("name").and_then(Value::as_str) else {
        return Err("listed a tool without a `name`".to_string());
    };
    Ok(Tool {
        name: name.to_string(),
        description: item
            .get("description")
            .and_then(Value::as_str)
            .map(str::to_string),
        input_schema: item.get("inputSchema").cloned().unwrap_or(json!({})),
    })
}

/// The `initialize` request's params: the newest protocol revision, no capabilities.
fn initialize_params() -> Value {
    json!({
        "protocolVersion": PROTOCOL_VERSIONS[0],
        "capabilities": {},
        "clientInfo": { "name": "dotpack", "version": env!("CARGO_PKG_VERSION") },
    })
}

/// The text of a `tools/call` result for people: its text content, one block per line; other
/// content (images, resources) summarised; `structuredContent` as JSON when there is no text.
pub fn result_text(result: &Value) -> String {
    let mut out = Vec::new();
    for block in result
        .get("content")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        match block.get("type").and_then(Value::as_str) {
            Some("text") => out.push(
                block
                    .get("text")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string(),
            ),
            Some(kind) => out.push(format!(
                "[{kind} content{}]",
                block
                    .get("mimeType")
                    .and_then(Value::as_str)
                    .map(|m| format!(", {m}"))
                    .unwrap_or_default()
            )),
            None => out.push(block.to_string()),
        }
    }
    if out.is_empty()
        && let Some(structured) = result.get("structuredContent")
    {
        out.push(structured.to_string());
    }
    out.join("\n")
}

/// Whether a `tools/call` result says the tool failed.
pub fn is_error(result: &Value) -> bool {
    result.get("isError").and_then(Value::as_bool) == Some(true)
}

#[cfg(test)]
mod tests;
