//! `dotpack bridge URL`: a stdio MCP server in front of a plain HTTP tool service.
//!
//! The service has two endpoints: `GET URL/tools` answers `[{name, description, schema}]`, and
//! `POST URL/call` takes `{tool, arguments}` and answers the result as JSON. The bridge serves
//! them as `tools/list` and `tools/call`. An HTTP error status, a service that is down or an
//! answer that is not JSON becomes a tool error (`isError: true`, with the status and body), and
//! the bridge keeps serving: only the end of stdin ends it.

use std::collections::BTreeMap;
use std::io::{BufRead, Read, Write};
use std::time::Duration;

use serde_json::{Value, json};

use super::PROTOCOL_VERSIONS;
use super::jsonrpc::{self, Incoming};

/// The longest request line read from the host: 16 MiB.
const MAX_LINE: usize = 16 * 1024 * 1024;
/// The largest answer read from the service: 16 MiB.
const MAX_BODY: u64 = 16 * 1024 * 1024;
/// The JSON-RPC error code for a failure inside the bridge (the service could not list tools).
const INTERNAL_ERROR: i64 = -32603;
const PARSE_ERROR: i64 = -32700;

/// Where the service is and how to talk to it.
#[derive(Clone, Debug)]
pub struct BridgeConfig {
    /// The service's base URL, without a trailing `/`.
    pub url: String,
    pub headers: BTreeMap<String, String>,
    /// How long one request to the service may take.
    pub timeout: Duration,
}

/// The service's answer to one request.
struct Answer {
    status: u16,
    body: String,
}

struct Service {
    config: BridgeConfig,
    agent: ureq::Agent,
}

impl Service {
    fn new(config: BridgeConfig) -> Service {
        let agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(config.timeout))
            .user_agent(concat!("dotpack-bridge/", env!("CARGO_PKG_VERSION")))
            .build()
            .new_agent();
        Service { config, agent }
    }

    fn url(&self, path: &str) -> String {
        format!("{}/{path}", self.config.url.trim_end_matches('/'))
    }

    fn get(&self, path: &str) -> Result<Answer, String> {
        let mut request = self.agent.get(&self.url(path));
        for (k, v) in &self.config.headers {
            request = request.header(k.as_str(), v.as_str());
        }
        Self::read(request.call(), &self.url(path))
    }

    fn post(&self, path: &str, body: &Value) -> Result<Answer, String> {
        let mut request = self
            .agent
            .post(&self.url(path))
            .header("Content-Type", "application/json");
        for (k, v) in &self.config.headers {
            request = request.header(k.as_str(), v.as_str());
        }
        Self::read(request.send(body.to_string()), &self.url(path))
    }

    fn read(
        response: Result<ureq::http::Response<ureq::Body>, ureq::Error>,
        url: &str,
    ) -> Result<Answer, String> {
        let response =
            response.map_err(|e| format!("the tool service at {url} is unreachable: {e}"))?;
        let status = response.status().as_u16();
        let mut body = String::new();
        response
            .into_body()
            .into_with_config()
            .limit(MAX_BODY)
            .reader()
            .read_to_string(&mut body)
            .map_err(|e| format!("the tool service at {url} broke off its answer: {e}"))?;
        Ok(Answer { status, body })
    }

    /// `tools/list`: the service's tools in MCP's shape.
    fn list_tools(&self) -> Result<Value, String> {
        let answer = self.get("tools")?;
        let url = self.url("tools");
        if !(200..300).contains(&answer.status) {
            return Err(format!(
                "the tool service answered GET {url} with HTTP {}: {}",
                answer.status,
                super::stdio::excerpt(&answer.body)
            ));
        }
        let items: Value = serde_json::from_str(&answer.body)
            .map_err(|e| format!("GET {url} did not answer JSON: {e}"))?;
        let Some(items) = items.as_array() else {
            return Err(format!(
                "GET {url} answered JSON that is not a list of tools"
            ));
        };
        let mut tools = Vec::with_capacity(items.len());
        for item in items {
            let Some(name) = item.get("name").and_then(Value::as_str) else {
                return Err(format!("GET {url} listed a tool without a `name`"));
            };
            let schema = match item.get("schema") {
                Some(schema @ Value::Object(map)) if !map.is_empty() => schema.clone(),
                _ => json!({ "type": "object" }),
            };
            tools.push(json!({
                "name": name,
                "description": item.get("description").and_then(Value::as_str).unwrap_or(""),
                "inputSchema": schema,
            }));
        }
        Ok(json!({ "tools": tools }))
    }

    /// `tools/call`: the service's JSON answer as the tool result, or a tool error.
    fn call_tool(&self, params: &Value) -> Value {
        let name = params.get("name").and_then(Value::as_str).unwrap_or("");
        let arguments = match params.get("arguments") {
            Some(Value::Null) | None => json!({}),
            Some(args) => args.clone(),
        };
        let url = self.url("call");
        let answer = match self.post("call", &json!({ "tool": name, "arguments": arguments })) {
            Ok(answer) => answer,
            Err(e) => return tool_error(&e),
        };
        if !(200..300).contains(&answer.status) {
            return tool_error(&format!(
                "HTTP {} from POST {url}: {}",
                answer.status,
                answer.body.trim()
            ));
        }
        match serde_json::from_str::<Value>(&answer.body) {
            Ok(value) => {
                let mut result = json!({
                    "content": [{ "type": "text", "text": value.to_string() }],
                    "isError": false,
                });
                if value.is_object()
                    && let Some(map) = result.as_object_mut()
                {
                    map.insert("structuredContent".to_string(), value);
                }
                result
            }
            Err(e) => tool_error(&format!(
                "POST {url} answered HTTP {} with something that is not JSON ({e}): {}",
                answer.status,
                super::stdio::excerpt(&answer.body)
            )),
        }
    }
}

fn tool_error(text: &str) -> Value {
    json!({ "content": [{ "type": "text", "text": text }], "isError": true })
}

/// Serves MCP on `input`/`output` until `input` ends. Diagnostics go to `log` (stderr).
pub fn serve(
    config: BridgeConfig,
    input: impl BufRead,
    mut output: impl Write,
    mut log: impl Write,
) -> std::io::Result<()> {
    let service = Service::new(config);
    let mut input = input;
    let mut buf = Vec::new();
    loop {
        buf.clear();
        let n = (&mut input)
            .take((MAX_LINE + 1) as u64)
            .read_until(b'\n', &mut buf)?;
        if n == 0 {
            return Ok(());
        }
        if buf.len() > MAX_LINE {
            let _ = writeln!(
                log,
                "dotpack bridge: a request line is longer than 16 MiB; stopping"
            );
            return Ok(());
        }
        let text = String::from_utf8_lossy(&buf);
        if text.trim().is_empty() {
            continue;
        }
        let reply = match serde_json::from_str::<Value>(&text) {
            Err(e) => Some(jsonrpc::error_response(
                Value::Null,
                PARSE_ERROR,
                &format!("not JSON: {e}"),
            )),
            Ok(message) => handle(&service, message),
        };
        if let Some(reply) = reply {
            let mut line = reply.to_string();
            line.push('\n');
            output.write_all(line.as_bytes())?;
            output.flush()?;
        }
    }
}

/// The answer to one message, if it needs one.
fn handle(service: &Service, message: Value) -> Option<Value> {
    let (id, method, params) = match jsonrpc::classify(message) {
        Ok(Incoming::Request { id, method, params }) => (id, method, params),
        Ok(_) => return None,
        Err(why) => {
            return Some(jsonrpc::error_response(
                Value::Null,
                -32600,
                &format!("invalid request: {why}"),
            ));
        }
    };
    Some(match method.as_str() {
        "initialize" => {
            let asked = params
                .get("protocolVersion")
                .and_then(Value::as_str)
                .unwrap_or("");
            let version = if PROTOCOL_VERSIONS.contains(&asked) {
                asked
            } else {
                PROTOCOL_VERSIONS[0]
            };
            jsonrpc::response(
                id,
                json!({
                    "protocolVersion": version,
                    "capabilities": { "tools": { "listChanged": false } },
                    "serverInfo": { "name": "dotpack-bridge", "version": env!("CARGO_PKG_VERSION") },
                    "instructions": format!("Tools of the HTTP tool service at {}", service.config.url),
                }),
            )
        }
        "ping" => jsonrpc::response(id, json!({})),
        "tools/list" => match service.list_tools() {
            Ok(result) => jsonrpc::response(id, result),
            Err(e) => jsonrpc::error_response(id, INTERNAL_ERROR, &e),
        },
        "tools/call" => jsonrpc::response(id, service.call_tool(&params)),
        _ => jsonrpc::answer(id, &method),
    })
}
