//! The streamable HTTP transport: every message is a POST of JSON to the server's URL, answered
//! by JSON (`application/json`) or by a stream of server-sent events (`text/event-stream`) that
//! carries the response among the server's own requests and notifications. The session id the
//! server gives in `initialize`'s answer (`Mcp-Session-Id`) goes with every later message, and
//! closing deletes the session.
//!
//! Redirects: a 307 or 308 that stays on the server's origin (scheme, host and port) is
//! followed, and later messages go to the new URL (a server mounted at `/mcp/` answers `/mcp`
//! so). A redirect to another origin is an error naming both: the server's headers are its
//! credentials, and they go nowhere else. A 301, 302 or 303 would turn the POST into a GET and
//! is an error too.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;

use super::jsonrpc::{self, Incoming};
use super::{Failure, Transport};

/// The largest response body read: 64 MiB.
const MAX_BODY: u64 = 64 * 1024 * 1024;
/// How long a notification or the closing DELETE may take.
const SHORT: Duration = Duration::from_secs(5);
/// Most redirects followed for one message.
const MAX_REDIRECTS: usize = 10;

/// A value the clones of one connection share (the proxy sends messages from several threads).
#[derive(Clone, Default)]
struct Shared(Arc<Mutex<Option<String>>>);

impl Shared {
    fn get(&self) -> Option<String> {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    fn set(&self, value: &str) {
        *self.0.lock().unwrap_or_else(|p| p.into_inner()) = Some(value.to_string());
    }

    fn is_some(&self) -> bool {
        self.get().is_some()
    }
}

/// One connection to a server; its clones share the session and the protocol version.
#[derive(Clone)]
pub struct Http {
    url: String,
    headers: BTreeMap<String, String>,
    agent: ureq::Agent,
    session: Shared,
    protocol_version: Shared,
    closed: bool,
    /// Told the method of each notification the server sends in its answers.
    notices: Option<crate::Notices>,
}

impl Http {
    pub fn new(url: &str, headers: &BTreeMap<String, String>) -> Http {
        let agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .max_redirects(0)
            .user_agent(concat!("dotpack/", env!("CARGO_PKG_VERSION")))
            .build()
            .new_agent();
        Http {
            url: url.to_string(),
            headers: headers.clone(),
            agent,
            session: Shared::default(),
            protocol_version: Shared::default(),
            closed: false,
            notices: None,
        }
    }

    /// This connection, telling `notices` of each notification the server sends.
    pub(crate) fn with_notices(mut self, notices: crate::Notices) -> Http {
        self.notices = Some(notices);
        self
    }

    /// The URL as messages show it: no user information, no query values.
    fn shown(&self) -> String {
        dotpack_urls::redacted(&self.url)
    }

    /// POSTs `message`, following a 307 or 308 that stays on the server's origin (the new URL
    /// is kept for later messages).
    fn post(
        &mut self,
        message: &Value,
        timeout: Duration,
    ) -> Result<ureq::http::Response<ureq::Body>, Failure> {
        for _ in 0..MAX_REDIRECTS {
            let response = self.post_once(message, timeout)?;
            let status = response.status().as_u16();
            if !dotpack_urls::is_redirect(status) {
                return Ok(response);
            }
            let Some(next) = response
                .headers()
                .get("location")
                .and_then(|v| v.to_str().ok())
                .and_then(|location| dotpack_urls::resolve(&self.url, location))
            else {
                return Ok(response);
            };
            let (from, to) = (dotpack_urls::origin(&self.url), dotpack_urls::origin(&next));
            if from.is_none() || from != to {
                return Err(Failure(format!(
                    "answered HTTP {status}, a redirect from {} to another origin, {}; dotpack follows no redirect away from a server's origin, as it would send the server's headers there\n  help: if the server moved, set its `url` to the new address",
                    from.as_deref().unwrap_or("its URL"),
                    to.unwrap_or_else(|| dotpack_urls::redacted(&next)),
                )));
            }
            if !matches!(status, 307 | 308) {
                return Err(Failure(format!(
                    "answered HTTP {status}, a redirect from {} to {} that would turn the POST into a GET\n  help: set the server's `url` to {}",
                    self.shown(),
                    dotpack_urls::redacted(&next),
                    dotpack_urls::redacted(&next),
                )));
            }
            // Origins only: a path can hold a resolved reference.
            tracing::debug!(status, origin = %to.as_deref().unwrap_or(""), "MCP server redirected on its origin");
            self.url = next;
        }
        Err(Failure(format!(
            "redirected more than {MAX_REDIRECTS} times, last to {}",
            self.shown()
        )))
    }

    fn post_once(
        &self,
        message: &Value,
        timeout: Duration,
    ) -> Result<ureq::http::Response<ureq::Body>, Failure> {
        let mut request = self
            .agent
            .post(&self.url)
            .config()
            .timeout_global(Some(timeout))
            .build()
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream");
        for (name, value) in &self.headers {
            request = request.header(name.as_str(), value.as_str());
        }
        if let Some(session) = self.session.get() {
            request = request.header("Mcp-Session-Id", session.as_str());
        }
        if let Some(version) = self.protocol_version.get() {
            request = request.header("MCP-Protocol-Version", version.as_str());
        }
        request
            .send(message.to_string())
            .map_err(|e| Failure(format!("could not be reached at {}: {e}", self.shown())))
    }

    fn status_failure(&self, response: ureq::http::Response<ureq::Body>) -> Failure {
        let status = response.status().as_u16();
        let mut body = String::new();
        let _ = response
            .into_body()
            .into_with_config()
            .limit(4096)
            .reader()
            .read_to_string(&mut body);
        let hint = match status {
            401 | 403 => " (it wants credentials: set the server's `http_headers`)",
            404 if self.session.is_some() => " (the session expired)",
            _ => "",
        };
        Failure(format!(
            "answered HTTP {status}{hint} at {}{}",
            self.shown(),
            if body.trim().is_empty() {
                String::new()
            } else {
                format!(": {}", super::stdio::excerpt(&body))
            }
        ))
    }
}

impl Transport for Http {
    fn request(&mut self, id: u64, message: &Value, timeout: Duration) -> Result<Value, Failure> {
        let response = self.post(message, timeout)?;
        if !response.status().is_success() {
            return Err(self.status_failure(response));
        }
        self.keep_session(&response);
        let kind = content_type(&response);
        let body = response
            .into_body()
            .into_with_config()
            .limit(MAX_BODY)
            .reader();
        let found = if kind.starts_with("text/event-stream") {
            self.find_in_events(id, body)?
        } else if kind.starts_with("application/json") {
            let value: Value = serde_json::from_reader(body)
                .map_err(|e| Failure(format!("answered with JSON that does not parse: {e}")))?;
            self.find_in_messages(id, value)?
        } else {
            return Err(Failure(format!(
                "answered with Content-Type `{kind}`; an MCP server answers with application/json or text/event-stream"
            )));
        };
        let Some(found) = found else {
            return Err(Failure(format!(
                "ended its answer without a response to `{}`",
                message.get("method").and_then(Value::as_str).unwrap_or("?")
            )));
        };
        self.keep_protocol_version(message, &found);
        Ok(found)
    }

    fn notify(&mut self, message: &Value) -> Result<(), Failure> {
        let response = self.post(message, SHORT)?;
        if response.status().is_success() {
            Ok(())
        } else {
            Err(self.status_failure(response))
        }
    }

    fn stderr_tail(&mut self) -> String {
        String::new()
    }

    fn close(&mut self, _graceful: bool) {
        if std::mem::replace(&mut self.closed, true) {
            return;
        }
        if let Some(session) = self.session.get() {
            let mut request = self
                .agent
                .delete(&self.url)
                .config()
                .timeout_global(Some(SHORT))
                .build()
                .header("Mcp-Session-Id", session.as_str());
            for (name, value) in &self.headers {
                request = request.header(name.as_str(), value.as_str());
            }
            let _ = request.call();
        }
    }
}

impl Http {
    /// The response to request `id` among `value` (one message or a batch), answering the
    /// server's requests on the way.
    fn find_in_messages(&mut self, id: u64, value: Value) -> Result<Option<Value>, Failure> {
        let messages = match value {
            Value::Array(batch) => batch,
            one => vec![one],
        };
        for message in messages {
            match jsonrpc::classify(message.clone()) {
                Ok(Incoming::Response { id: got, .. }) if jsonrpc::is_id(&got, id) => {
                    return Ok(Some(message));
                }
                Ok(Incoming::Request { id, method, .. }) => {
                    let answer = jsonrpc::answer(id, &method);
                    let _ = self.post(&answer, SHORT);
                }
                Ok(Incoming::Notification { method, .. }) => {
                    if let Some(notices) = &self.notices {
                        notices(&method);
                    }
                }
                Ok(_) => {}
                Err(why) => return Err(Failure(format!("answered with {why}"))),
            }
        }
        Ok(None)
    }

    /// Reads server-sent events until one carries the response to request `id`.
    fn find_in_events(&mut self, id: u64, body: impl Read) -> Result<Option<Value>, Failure> {
        let mut found = None;
        read_events(body, &mut |value| {
            found = self.find_in_messages(id, value)?;
            Ok(found.is_some())
        })?;
        Ok(found)
    }

    /// Keeps the session id the server gave (`Mcp-Session-Id`) for every later message.
    fn keep_session(&self, response: &ureq::http::Response<ureq::Body>) {
        if let Some(session) = response
            .headers()
            .get("mcp-session-id")
            .and_then(|v| v.to_str().ok())
        {
            self.session.set(session);
        }
    }

    /// Keeps the protocol version `answer`, the response to `message`, agreed on when
    /// `message` is `initialize`: later messages carry it (`MCP-Protocol-Version`).
    fn keep_protocol_version(&self, message: &Value, answer: &Value) {
        if message.get("method").and_then(Value::as_str) != Some("initialize")
            || answer.get("id") != message.get("id")
        {
            return;
        }
        if let Some(version) = answer
            .get("result")
            .and_then(|r| r.get("protocolVersion"))
            .and_then(Value::as_str)
        {
            self.protocol_version.set(version);
        }
    }

    /// Sends a client's `message` as it is, and hands every message the server answers with to
    /// `out`: the response, and on an event stream the server's own requests and notifications
    /// too. A notification or response the server accepts with `202 Accepted` (no body) gives
    /// nothing. The session id and protocol version are kept as [`Transport::request`] keeps
    /// them, so a proxy passes them on without its client knowing of them.
    pub fn forward(
        &mut self,
        message: &Value,
        timeout: Duration,
        out: &mut dyn FnMut(Value),
    ) -> Result<(), Failure> {
        let response = self.post(message, timeout)?;
        if !response.status().is_success() {
            return Err(self.status_failure(response));
        }
        self.keep_session(&response);
        let kind = content_type(&response);
        let mut body = response
            .into_body()
            .into_with_config()
            .limit(MAX_BODY)
            .reader();
        let mut hand = |value: Value| {
            let messages = match value {
                Value::Array(batch) => batch,
                one => vec![one],
            };
            for one in messages {
                self.keep_protocol_version(message, &one);
                out(one);
            }
        };
        if kind.starts_with("text/event-stream") {
            return read_events(body, &mut |value| {
                hand(value);
                Ok(false)
            })
            .map(|_| ());
        }
        let mut text = String::new();
        body.read_to_string(&mut text)
            .map_err(|e| Failure(format!("broke off its answer: {e}")))?;
        if text.trim().is_empty() {
            return Ok(());
        }
        if !kind.starts_with("application/json") {
            return Err(Failure(format!(
                "answered with Content-Type `{kind}`; an MCP server answers with application/json or text/event-stream"
            )));
        }
        let value: Value = serde_json::from_str(&text)
            .map_err(|e| Failure(format!("answered with JSON that does not parse: {e}")))?;
        hand(value);
        Ok(())
    }

    /// Reads the server's standing event stream (a `GET` of its URL in the session) and hands
    /// each notification on it to the connection's notices, until the stream ends: the server
    /// closes it, the session is deleted, or the server offers none (405). Runs on a thread of
    /// its own; the server's requests on it are answered as in a response.
    pub(crate) fn listen(mut self) {
        let Some(session) = self.session.get() else {
            return;
        };
        let mut request = self
            .agent
            .get(&self.url)
            .header("Accept", "text/event-stream")
            .header("Mcp-Session-Id", session.as_str());
        for (name, value) in &self.headers {
            request = request.header(name.as_str(), value.as_str());
        }
        if let Some(version) = self.protocol_version.get() {
            request = request.header("MCP-Protocol-Version", version.as_str());
        }
        let Ok(response) = request.call() else {
            return;
        };
        if !response.status().is_success()
            || !content_type(&response).starts_with("text/event-stream")
        {
            return;
        }
        let body = response
            .into_body()
            .into_with_config()
            .limit(MAX_BODY)
            .reader();
        let _ = read_events(body, &mut |value| {
            // No request of ours is answered here: id 0 is never sent.
            self.find_in_messages(0, value).map(|_| false)
        });
    }

    /// Ends the session (`DELETE` with its id), as [`Transport::close`] does.
    pub fn end(&mut self) {
        self.close(true);
    }
}

/// The response's Content-Type, lowercase; empty when it has none.
fn content_type(response: &ureq::http::Response<ureq::Body>) -> String {
    response
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_ascii_lowercase()
}

/// Reads server-sent events and hands each one's data, parsed, to `f` until `f` says it is done
/// (returns `true`) or the stream ends. Returns whether `f` was done.
fn read_events(
    body: impl Read,
    f: &mut dyn FnMut(Value) -> Result<bool, Failure>,
) -> Result<bool, Failure> {
    let mut reader = BufReader::new(body);
    let mut data = String::new();
    let mut line = String::new();
    loop {
        line.clear();
        let n = reader
            .read_line(&mut line)
            .map_err(|e| Failure(format!("broke off its event stream: {e}")))?;
        let text = line.trim_end_matches(['\r', '\n']);
        if n == 0 || text.is_empty() {
            if !data.is_empty() {
                let value: Value = serde_json::from_str(&data).map_err(|_| {
                    Failure(format!(
                        "sent an event that is not JSON: {}",
                        super::stdio::excerpt(&data)
                    ))
                })?;
                data.clear();
                if f(value)? {
                    return Ok(true);
                }
            }
            if n == 0 {
                return Ok(false);
            }
            continue;
        }
        if let Some(rest) = text.strip_prefix("data:") {
            if !data.is_empty() {
                data.push('\n');
            }
            data.push_str(rest.strip_prefix(' ').unwrap_or(rest));
        }
    }
}
