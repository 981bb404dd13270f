//! A stdio MCP server that forwards every JSON-RPC message to a streamable-HTTP server: what a
//! host that speaks only stdio (or cannot send a header carrying a secret) starts to reach a
//! remote server. Each line read is one message, sent as it is over the HTTP transport (with the
//! caller's headers, the session id and the protocol version); each message the server answers
//! with (a JSON body, or every event of an event stream: responses, the server's requests and
//! notifications) is written back as one line. Requests run side by side, so a slow tool call
//! does not hold up the others; notifications and responses are sent in the order read, each
//! before the next line is read, so `notifications/initialized` reaches the server before the
//! requests that follow it.
//!
//! A request the server cannot be asked (unreachable, an HTTP error such as 401) is answered
//! with a JSON-RPC error carrying the reason, and the reason goes to stderr too; no header value
//! appears in either.

use std::collections::BTreeMap;
use std::io::{BufRead, Write};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};

use crate::http::Http;
use crate::{Failure, Secrets};

/// How long one request may take (a tool call can be long).
const REQUEST: Duration = Duration::from_secs(600);
/// How long a notification or a response to the server's request may take.
const SHORT: Duration = Duration::from_secs(10);
/// The JSON-RPC error code of an answer the proxy gives itself.
const PROXY_ERROR: i64 = -32000;

/// Serves `input` and `output` (the host's stdio) until `input` ends, forwarding to `url` with
/// `headers`; then ends the server's session. `name` prefixes what goes to stderr;
/// `unauthorized` is added to the reason when the server refuses the credentials (401, 403).
pub fn stdio_to_http(
    name: &str,
    unauthorized: &str,
    url: &str,
    headers: &BTreeMap<String, String>,
    input: impl BufRead,
    output: impl Write + Send + 'static,
) {
    let mut secrets = Secrets::default();
    for (header, value) in headers {
        secrets.add(value, format!("<header {header}>"));
        if let Some((_, token)) = value.split_once(' ') {
            secrets.add(token, format!("<header {header}>"));
        }
    }
    let proxy = Proxy {
        name: name.to_string(),
        unauthorized: unauthorized.to_string(),
        secrets,
        output: Arc::new(Mutex::new(Box::new(output))),
    };
    let mut http = Http::new(url, headers);
    let mut running = Vec::new();
    for line in input.lines() {
        let Ok(line) = line else { break };
        if line.trim().is_empty() {
            continue;
        }
        let message: Value = match serde_json::from_str(&line) {
            Ok(message) => message,
            Err(e) => {
                proxy.write(&json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": format!("parse error: {e}")}}));
                continue;
            }
        };
        let is_request = message.get("method").is_some() && message.get("id").is_some();
        if !is_request {
            proxy.forward(&mut http, &message, SHORT);
            continue;
        }
        running.retain(|t: &std::thread::JoinHandle<()>| !t.is_finished());
        let (proxy, mut http) = (proxy.clone(), http.clone());
        running.push(std::thread::spawn(move || {
            proxy.forward(&mut http, &message, REQUEST)
        }));
    }
    for thread in running {
        let _ = thread.join();
    }
    http.end();
}

#[derive(Clone)]
struct Proxy {
    name: String,
    unauthorized: String,
    secrets: Secrets,
    output: Arc<Mutex<Box<dyn Write + Send>>>,
}

impl Proxy {
    /// Writes one message as one line, whole, then flushes.
    fn write(&self, message: &Value) {
        let mut out = self.output.lock().unwrap_or_else(|p| p.into_inner());
        let _ = writeln!(out, "{message}");
        let _ = out.flush();
    }

    /// Sends `message` and writes back what the server answers; a request that fails is
    /// answered with the reason.
    fn forward(&self, http: &mut Http, message: &Value, timeout: Duration) {
        let result = http.forward(message, timeout, &mut |answer| self.write(&answer));
        let Err(Failure(why)) = result else { return };
        let refused = why.starts_with("answered HTTP 401") || why.starts_with("answered HTTP 403");
        let why = self.secrets.scrub(&format!(
            "the MCP server {why}{}",
            match refused {
                true => format!("; {}", self.unauthorized),
                false => String::new(),
            }
        ));
        #[allow(clippy::print_stderr)]
        {
            eprintln!("{}: {why}", self.name);
        }
        if let (Some(id), Some(_)) = (message.get("id"), message.get("method")) {
            self.write(&json!({
                "jsonrpc": "2.0",
                "id": id,
                "error": {"code": PROXY_ERROR, "message": format!("{}: {why}", self.name)},
            }));
        }
    }
}
