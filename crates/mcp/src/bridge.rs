//! `dotpack bridge URL`: a stdio MCP server in front of a plain HTTP tool service.
//!
//! The service has two endpoints: `GET URL/tools` answers `[{name, description, schema}]`, and
//! `POST URL/call` takes `{tool, arguments}` and answers the result as JSON. The bridge serves
//! them as `tools/list` and `tools/call`. An HTTP error status, a service that is down or an
//! answer that is not JSON becomes a tool error (`isError: true`, with the status and body), and
//! the bridge keeps serving: only the end of stdin ends it. Requests to the service run
//! side by side, so a slow call holds up no other ([`serve`]), and the bridge serves only the
//! tools its [`ToolFilter`] allows.
//!
//! The service's headers (often its credentials) go to the service's own origin only: a
//! redirect is followed while it stays on that origin (scheme, host and port), and one to
//! another origin is an error naming both. Messages show the URL without user information or
//! query values, and never a header's value.

mod filter;

pub use crate::serve::MAX_IN_FLIGHT;
pub use filter::{ToolFilter, matches as tool_pattern_matches};

use std::collections::BTreeMap;
use std::io::Read;
use std::time::Duration;

use serde_json::{Value, json};

use dotpack_urls::{self as urls, Secrets};

/// The largest answer read from the service: 16 MiB.
const MAX_BODY: u64 = 16 * 1024 * 1024;
/// Most redirects followed for one request.
const MAX_REDIRECTS: usize = 10;

/// Where the service is and how to talk to it.
#[derive(Clone, Debug)]
pub struct BridgeConfig {
    /// The service's base URL, without a trailing `/`.
    pub url: String,
    pub headers: BTreeMap<String, String>,
    /// How long one request to the service may take.
    pub timeout: Duration,
    /// The tools served: `tools/list` lists only these, and `tools/call` of another is refused.
    pub tools: ToolFilter,
}

/// The service's answer to one request.
struct Answer {
    status: u16,
    body: String,
}

/// Serves the tool service `config` names as MCP on `input`/`output` until `input` ends and
/// every call in flight is answered. Diagnostics go to `log` (stderr).
pub fn serve(
    config: BridgeConfig,
    input: impl std::io::BufRead,
    output: impl std::io::Write + Send,
    log: impl std::io::Write,
) -> std::io::Result<()> {
    crate::serve::serve(&Service::new(config), input, output, log)
}

struct Service {
    config: BridgeConfig,
    agent: ureq::Agent,
    /// The header values, kept out of every message.
    secrets: Secrets,
}

impl Service {
    fn new(config: BridgeConfig) -> Service {
        let agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            // Redirects are followed by `Service::send`, which checks where each one goes.
            .max_redirects(0)
            .timeout_global(Some(config.timeout))
            .user_agent(concat!("dotpack-bridge/", env!("CARGO_PKG_VERSION")))
            .build()
            .new_agent();
        let mut secrets = Secrets::default();
        for (name, value) in &config.headers {
            secrets.add(value, format!("<header {name}>"));
        }
        Service {
            config,
            agent,
            secrets,
        }
    }

    fn url(&self, path: &str) -> String {
        format!("{}/{path}", self.config.url.trim_end_matches('/'))
    }

    /// `url` as messages show it.
    fn shown(&self, url: &str) -> String {
        self.secrets.scrub(&urls::redacted(url))
    }

    fn get(&self, path: &str) -> Result<Answer, String> {
        self.send(&self.url(path), None)
    }

    fn post(&self, path: &str, body: &Value) -> Result<Answer, String> {
        self.send(&self.url(path), Some(body.to_string()))
    }

    /// GET `url` (POST `body` when given) with the service's headers, following redirects that
    /// stay on the service's origin; a POST follows only 307 and 308, which keep it a POST.
    fn send(&self, url: &str, body: Option<String>) -> Result<Answer, String> {
        let method = if body.is_some() { "POST" } else { "GET" };
        let own = urls::origin(&self.config.url);
        let mut url = url.to_string();
        for _ in 0..=MAX_REDIRECTS {
            let response = match &body {
                Some(body) => {
                    let mut request = self
                        .agent
                        .post(&url)
                        .header("Content-Type", "application/json");
                    for (k, v) in &self.config.headers {
                        request = request.header(k.as_str(), v.as_str());
                    }
                    request.send(body.as_str())
                }
                None => {
                    let mut request = self.agent.get(&url);
                    for (k, v) in &self.config.headers {
                        request = request.header(k.as_str(), v.as_str());
                    }
                    request.call()
                }
            };
            let response = response.map_err(|e| {
                self.secrets.scrub(&format!(
                    "the tool service at {} is unreachable: {e}",
                    self.shown(&url)
                ))
            })?;
            let status = response.status().as_u16();
            if !urls::is_redirect(status) {
                return self.read(response, &url);
            }
            let next = response
                .headers()
                .get("location")
                .and_then(|v| v.to_str().ok())
                .and_then(|location| urls::resolve(&url, location));
            let Some(next) = next else {
                return self.read(response, &url);
            };
            let to = urls::origin(&next);
            if own.is_none() || to != own {
                return Err(format!(
                    "the tool service redirected {method} {} to another origin, {}; the bridge follows no redirect away from {}, as it would send the service's headers there\n  help: if the service moved, give the bridge its new URL",
                    self.shown(&url),
                    self.shown(&next),
                    own.as_deref().unwrap_or("the service's origin"),
                ));
            }
            if method == "POST" && !matches!(status, 307 | 308) {
                return Err(format!(
                    "the tool service answered POST {} with HTTP {status}, a redirect that would turn it into a GET\n  help: give the bridge the URL it redirects to, {}",
                    self.shown(&url),
                    self.shown(&next)
                ));
            }
            url = next;
        }
        Err(format!(
            "the tool service redirected {method} {} more than {MAX_REDIRECTS} times",
            self.shown(&url)
        ))
    }

    fn read(
        &self,
        response: ureq::http::Response<ureq::Body>,
        url: &str,
    ) -> Result<Answer, String> {
        let url = self.shown(url);
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
        let url = self.shown(&self.url("tools"));
        if !(200..300).contains(&answer.status) {
            return Err(self.secrets.scrub(&format!(
                "the tool service answered GET {url} with HTTP {}: {}",
                answer.status,
                super::stdio::excerpt(&answer.body)
            )));
        }
        let items: Value = serde_json::from_str(&answer.body)
            .map_err(|e| format!("GET {url} did not answer JSON: {e}"))?;
        let Some(items) = items.as_array() else {
            return Err(format!(
                "GET {url} answered JSON that is not a list of tools"
            ));
        };
        let mut tools = Vec::with_capacity(items.len());
        let mut names = std::collections::BTreeSet::new();
        for item in items {
            let Some(name) = item.get("name").and_then(Value::as_str) else {
                return Err(format!("GET {url} listed a tool without a `name`"));
            };
            // Two tools of one name: a client could not tell which one it calls.
            if !names.insert(name) {
                return Err(format!(
                    "GET {url} listed the tool `{name}` twice; a client could not tell which one it calls"
                ));
            }
            if !self.config.tools.allows(name) {
                continue;
            }
            let schema = input_schema(item.get("schema"));
            tools.push(json!({
                "name": name,
                "description": item.get("description").and_then(Value::as_str).unwrap_or(""),
                "inputSchema": schema,
            }));
        }
        Ok(json!({ "tools": tools }))
    }

    /// `tools/call`: the service's JSON answer as the tool result, or a tool error.
    ///
    /// (The schema each tool is listed with is [`input_schema`].)
    fn call_tool(&self, params: &Value) -> Value {
        let name = params.get("name").and_then(Value::as_str).unwrap_or("");
        let arguments = match params.get("arguments") {
            Some(Value::Null) | None => json!({}),
            Some(args) => args.clone(),
        };
        let url = self.shown(&self.url("call"));
        let answer = match self.post("call", &json!({ "tool": name, "arguments": arguments })) {
            Ok(answer) => answer,
            Err(e) => return tool_error(&e),
        };
        if !(200..300).contains(&answer.status) {
            return tool_error(&self.secrets.scrub(&format!(
                "HTTP {} from POST {url}: {}",
                answer.status,
                answer.body.trim()
            )));
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
            Err(e) => tool_error(&self.secrets.scrub(&format!(
                "POST {url} answered HTTP {} with something that is not JSON ({e}): {}",
                answer.status,
                super::stdio::excerpt(&answer.body)
            ))),
        }
    }
}

impl crate::serve::Handler for Service {
    fn name(&self) -> &str {
        "dotpack-bridge"
    }

    fn instructions(&self) -> String {
        format!(
            "Tools of the HTTP tool service at {}",
            self.shown(&self.config.url)
        )
    }

    fn refuse(&self, tool: &str) -> Option<String> {
        (!self.config.tools.allows(tool)).then(|| {
            format!(
                "the tool `{tool}` is not enabled: this server serves only the tools its \
                 `enabled_tools` and `disabled_tools` allow"
            )
        })
    }

    fn list_tools(&self) -> Result<Value, String> {
        Service::list_tools(self)
    }

    /// A cancelled call's answer is dropped by the loop; the service's request runs to its end
    /// (an HTTP tool service has no way to be told).
    fn call_tool(&self, params: &Value, _cancel: &crate::Cancel) -> Value {
        Service::call_tool(self, params)
    }
}

/// A tool result that says the tool failed, with `text`.
pub fn tool_error(text: &str) -> Value {
    json!({ "content": [{ "type": "text", "text": text }], "isError": true })
}

/// A tool service's schema as MCP clients accept an `inputSchema`: an object schema. One
/// without `type` gets `"type": "object"` (its `properties` stay); one of another type, or no
/// schema at all, is `{"type": "object"}`, which takes any arguments. The official Python SDK
/// refuses a whole `tools/list` that holds one schema of another shape, which would fail every
/// other tool of the service too.
fn input_schema(schema: Option<&Value>) -> Value {
    match schema {
        Some(Value::Object(map)) if map.get("type") == Some(&json!("object")) => {
            Value::Object(map.clone())
        }
        Some(Value::Object(map)) if !map.contains_key("type") && !map.is_empty() => {
            let mut object = map.clone();
            object.insert("type".to_string(), json!("object"));
            Value::Object(object)
        }
        _ => json!({ "type": "object" }),
    }
}

#[cfg(test)]
mod schema_tests {
    use super::*;

    #[test]
    fn every_listed_schema_is_an_object_schema() {
        let props = json!({"properties": {"q": {"type": "string"}}, "required": ["q"]});
        assert_eq!(
            input_schema(Some(&props)),
            json!({"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]})
        );
        let object = json!({"type": "object", "properties": {}});
        assert_eq!(input_schema(Some(&object)), object);
        for other in [json!({"type": "string"}), json!([]), json!("x"), json!({})] {
            assert_eq!(
                input_schema(Some(&other)),
                json!({"type": "object"}),
                "{other}"
            );
        }
        assert_eq!(input_schema(None), json!({"type": "object"}));
    }
}
