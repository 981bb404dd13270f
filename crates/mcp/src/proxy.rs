//! A stdio MCP server that forwards every JSON-RPC message to a streamable-HTTP server: what a
//! host that speaks only stdio (or cannot send a header carrying a secret) starts to reach a
//! remote server. Each line read is one message, sent as it is over the HTTP transport (with the
//! caller's headers, the session id and the protocol version); each message the server answers
//! with (a JSON body, or every event of an event stream: responses, the server's requests and
//! notifications) is written back as one line. Requests run side by side, so a slow tool call
//! does not hold up the others; `initialize`, notifications and responses are sent in the order
//! read, each before the next line is read, so the session exists and
//! `notifications/initialized` reaches the server before the requests that follow it.
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
        let method = message.get("method").and_then(Value::as_str);
        let is_request = method.is_some() && message.get("id").is_some();
        // `initialize` too, in place: its answer gives the session id every later message
        // carries, even from a client that does not wait for it.
        if !is_request || method == Some("initialize") {
            let timeout = if is_request { REQUEST } else { SHORT };
            proxy.forward(&mut http, &message, timeout);
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

#[cfg(test)]
mod tests {
    use std::io::{BufReader, Read};
    use std::net::TcpListener;

    use super::*;

    /// Output the test reads back.
    #[derive(Clone, Default)]
    struct Captured(Arc<Mutex<Vec<u8>>>);

    impl Write for Captured {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(bytes);
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    /// One HTTP request as the server read it: its head (lowercase) and body.
    fn read_request(reader: &mut BufReader<std::net::TcpStream>) -> Option<(String, String)> {
        let mut head = String::new();
        loop {
            let mut line = String::new();
            if reader.read_line(&mut line).ok()? == 0 {
                return None;
            }
            if line == "\r\n" {
                break;
            }
            head.push_str(&line.to_ascii_lowercase());
        }
        let length = head
            .lines()
            .find_map(|l| l.strip_prefix("content-length: "))
            .and_then(|n| n.trim().parse().ok())
            .unwrap_or(0);
        let mut body = vec![0; length];
        reader.read_exact(&mut body).ok()?;
        Some((head, String::from_utf8(body).ok()?))
    }

    /// A server answering `initialize` with JSON and a session id, a notification with an empty
    /// 202, and `tools/list` with an event stream holding a notification before the response;
    /// it records each request's head.
    fn serve(listener: TcpListener, heads: Arc<Mutex<Vec<String>>>) {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { return };
            let mut writer = stream.try_clone().unwrap();
            let mut reader = BufReader::new(stream);
            let Some((head, body)) = read_request(&mut reader) else {
                continue;
            };
            heads.lock().unwrap().push(head.clone());
            let message: Value = serde_json::from_str(&body).unwrap_or(Value::Null);
            let id = message["id"].clone();
            let (status, kind, extra, body) = match message["method"].as_str() {
                Some("initialize") => (
                    "200 OK",
                    "application/json",
                    "Mcp-Session-Id: s-1\r\n",
                    json!({"jsonrpc": "2.0", "id": id, "result": {"protocolVersion": "2025-06-18"}}).to_string(),
                ),
                Some("tools/list") => (
                    "200 OK",
                    "text/event-stream",
                    "",
                    format!(
                        "event: message\ndata: {}\n\ndata: {}\n\n",
                        json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {}}),
                        json!({"jsonrpc": "2.0", "id": id, "result": {"tools": []}})
                    ),
                ),
                _ if head.starts_with("delete") => ("200 OK", "text/plain", "", String::new()),
                _ => ("202 Accepted", "text/plain", "", String::new()),
            };
            let _ = write!(
                writer,
                "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\n{extra}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    }

    #[test]
    fn forwards_each_message_with_the_headers_and_session_and_writes_every_answer() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/mcp", listener.local_addr().unwrap());
        let heads = Arc::new(Mutex::new(Vec::new()));
        let seen = heads.clone();
        std::thread::spawn(move || serve(listener, seen));
        let input = [
            json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}),
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
            json!({"jsonrpc": "2.0", "id": "two", "method": "tools/list"}),
        ]
        .map(|m| format!("{m}\n"))
        .concat();
        let out = Captured::default();
        let headers = BTreeMap::from([("Authorization".to_string(), "Bearer t0ken".to_string())]);
        stdio_to_http("test", "", &url, &headers, input.as_bytes(), out.clone());
        let text = String::from_utf8(out.0.lock().unwrap().clone()).unwrap();
        let lines: Vec<Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines.len(), 3, "{text}");
        assert_eq!(lines[0]["id"], 1);
        assert_eq!(lines[1]["method"], "notifications/message");
        assert_eq!(lines[2]["id"], "two");
        let heads = heads.lock().unwrap();
        // initialize, the notification, tools/list, and the DELETE that ends the session.
        assert_eq!(heads.len(), 4, "{heads:?}");
        assert!(
            heads
                .iter()
                .all(|h| h.contains("authorization: bearer t0ken"))
        );
        assert!(!heads[0].contains("mcp-session-id"));
        for head in &heads[1..] {
            assert!(head.contains("mcp-session-id: s-1"), "{head}");
        }
        assert!(heads[2].contains("mcp-protocol-version: 2025-06-18"));
        assert!(heads[3].starts_with("delete"));
    }

    #[test]
    fn a_request_the_server_refuses_is_answered_with_an_error_that_shows_no_header() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/mcp", listener.local_addr().unwrap());
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let mut writer = stream.try_clone().unwrap();
                let _ = read_request(&mut BufReader::new(stream));
                let _ = write!(
                    writer,
                    "HTTP/1.1 401 Unauthorized\r\nContent-Length: 17\r\nConnection: close\r\n\r\nbad token s3cr3t!"
                );
            }
        });
        let out = Captured::default();
        let headers = BTreeMap::from([("Authorization".to_string(), "Bearer s3cr3t!".to_string())]);
        let input = format!(
            "{}\n",
            json!({"jsonrpc": "2.0", "id": 7, "method": "initialize"})
        );
        stdio_to_http(
            "test",
            "check the secret",
            &url,
            &headers,
            input.as_bytes(),
            out.clone(),
        );
        let text = String::from_utf8(out.0.lock().unwrap().clone()).unwrap();
        let answer: Value = serde_json::from_str(text.trim()).unwrap();
        assert_eq!(answer["id"], 7);
        let message = answer["error"]["message"].as_str().unwrap();
        assert!(
            message.contains("HTTP 401") && message.contains("check the secret"),
            "{message}"
        );
        assert!(!message.contains("s3cr3t"), "{message}");
    }
}
