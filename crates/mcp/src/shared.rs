//! An MCP client whose requests overlap, for the gateway's servers: several threads call tools
//! on one server at once, each response matched to its request by id; a request can be
//! cancelled (the server is sent `notifications/cancelled` with the id it knows, and the caller
//! stops waiting); and the server's notifications reach a [`Notices`] callback as they come
//! (over stdio between calls too; over streamable HTTP, those in the answers to requests and on
//! the session's standing event stream, a `GET` read on a thread of its own).
//!
//! [`crate::Client`] makes one request at a time, which is all `probe`, `call` and `verify`
//! need. The two share the handshake, the parsing of answers and the transports' limits.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use serde_json::{Value, json};

use crate::http::Http;
use crate::jsonrpc::{self, Incoming};
use crate::stdio::{Line, Stdio, excerpt, line_messages};
use crate::{
    Cancel, Endpoint, Failure, McpError, Secrets, ServerInfo, Timeouts, Tool, Transport, lock,
};

/// Told the method of every notification the server sends. It runs on the thread reading the
/// server's output, so it must return quickly.
pub type Notices = Arc<dyn Fn(&str) + Send + Sync>;

/// How a request ended, as its caller hears it.
enum Reply {
    Message(Value),
    Failed(Failure),
    Cancelled,
}

/// A connected, initialized MCP session that several threads use at once.
pub struct SharedClient {
    name: String,
    info: ServerInfo,
    timeouts: Timeouts,
    /// Kept out of every error.
    secrets: Secrets,
    next_id: AtomicU64,
    link: Link,
}

enum Link {
    Stdio(Arc<Pipe>),
    /// Each request is a POST of its own, on a clone sharing the session.
    Http(Mutex<Http>),
}

/// A stdio server, shared by its callers and the thread reading its output.
struct Pipe {
    stdio: Mutex<Stdio>,
    waiting: Mutex<Waiting>,
}

#[derive(Default)]
struct Waiting {
    /// Where each request's reply goes, by request id.
    replies: HashMap<u64, Sender<Reply>>,
    /// Why the session ended, once it has: later requests fail with it at once.
    ended: Option<String>,
}

impl Pipe {
    /// Sends request `id`; its reply goes to `reply`.
    fn send(&self, id: u64, message: &Value, reply: Sender<Reply>) {
        {
            let mut waiting = lock(&self.waiting);
            if let Some(why) = &waiting.ended {
                let _ = reply.send(Reply::Failed(Failure(why.clone())));
                return;
            }
            waiting.replies.insert(id, reply.clone());
        }
        if let Err(failure) = lock(&self.stdio).write(message) {
            self.forget(id);
            let _ = reply.send(Reply::Failed(failure));
        }
    }

    /// Stops waiting for request `id`; its reply channel, when it was still waited for.
    fn forget(&self, id: u64) -> Option<Sender<Reply>> {
        lock(&self.waiting).replies.remove(&id)
    }

    /// Fails every request waiting, and every later one, with `why`.
    fn end(&self, Failure(why): Failure) {
        let mut waiting = lock(&self.waiting);
        waiting.ended = Some(why.clone());
        for (_, reply) in waiting.replies.drain() {
            let _ = reply.send(Reply::Failed(Failure(why.clone())));
        }
    }

    /// Hands each message of one line on: a response to its caller, a request of the server
    /// answered, a notification to `notices`.
    fn dispatch(&self, text: &str, notices: &Notices) -> Result<(), Failure> {
        for message in line_messages(text)? {
            match jsonrpc::classify(message.clone()) {
                Ok(Incoming::Response { id, .. }) => {
                    let number = id.as_u64().or_else(|| id.as_str()?.parse().ok());
                    if let Some(reply) = number.and_then(|n| self.forget(n)) {
                        let _ = reply.send(Reply::Message(message));
                    }
                }
                Ok(Incoming::Request { id, method, .. }) => {
                    lock(&self.stdio).write(&jsonrpc::answer(id, &method))?;
                }
                Ok(Incoming::Notification { method, .. }) => notices(&method),
                Err(why) => {
                    return Err(Failure(format!("wrote {why} on stdout: {}", excerpt(text))));
                }
            }
        }
        Ok(())
    }
}

/// Reads the server's output until it ends or the client is gone.
fn read(pipe: Weak<Pipe>, lines: Receiver<Line>, notices: Notices) {
    for line in lines {
        let Some(pipe) = pipe.upgrade() else { return };
        let ended = match line {
            Line::Text(text) => pipe.dispatch(&text, &notices).err(),
            other => Some(lock(&pipe.stdio).failure_of(other)),
        };
        if let Some(why) = ended {
            pipe.end(why);
            return;
        }
    }
}

/// `notifications/cancelled` for request `id`.
fn cancelled(id: u64, reason: &str) -> Value {
    jsonrpc::notification(
        "notifications/cancelled",
        Some(json!({ "requestId": id, "reason": reason })),
    )
}

impl SharedClient {
    /// Starts or reaches the server at `endpoint` (called `name` in errors) and runs the
    /// handshake, as [`crate::Client::connect`] does; `notices` hears its notifications.
    pub fn connect(
        name: &str,
        endpoint: &Endpoint,
        timeouts: Timeouts,
        notices: Notices,
    ) -> Result<SharedClient, McpError> {
        let secrets = endpoint.all_secrets();
        let link = match endpoint {
            Endpoint::Stdio {
                command,
                args,
                env,
                cwd,
                ..
            } => {
                let mut stdio = Stdio::spawn(command, args, env, cwd.as_deref(), timeouts.grace)
                    .map_err(|Failure(what)| McpError::Failed {
                        server: name.to_string(),
                        what: secrets.scrub(&what),
                        stderr: String::new(),
                    })?;
                let lines = stdio.take_lines();
                let pipe = Arc::new(Pipe {
                    stdio: Mutex::new(stdio),
                    waiting: Mutex::default(),
                });
                let weak = Arc::downgrade(&pipe);
                std::thread::spawn(move || read(weak, lines, notices));
                Link::Stdio(pipe)
            }
            Endpoint::Http { url, headers, .. } => {
                Link::Http(Mutex::new(Http::new(url, headers).with_notices(notices)))
            }
        };
        let mut client = SharedClient {
            name: name.to_string(),
            info: ServerInfo::default(),
            timeouts,
            secrets,
            next_id: AtomicU64::new(1),
            link,
        };
        let params = Some(crate::initialize_params());
        let result = client.request("initialize", params, timeouts.initialize, None)?;
        client.info = crate::server_info(&result).map_err(|why| client.broken(why))?;
        client
            .notify(&jsonrpc::notification("notifications/initialized", None))
            .map_err(|f| client.failure(f))?;
        if let Link::Http(http) = &client.link {
            // The server's notifications outside any answer come on its standing stream.
            let http = lock(http).clone();
            std::thread::spawn(move || http.listen());
        }
        Ok(client)
    }

    /// What the server said about itself.
    pub fn info(&self) -> &ServerInfo {
        &self.info
    }

    /// Every tool, following `nextCursor` through every page.
    pub fn list_tools(&self) -> Result<Vec<Tool>, McpError> {
        let timeout = self.timeouts.request;
        match crate::list_pages(|params| self.request("tools/list", params, timeout, None)) {
            Ok(Ok(tools)) => Ok(tools),
            Ok(Err(why)) => Err(self.broken(why)),
            Err(e) => Err(e),
        }
    }

    /// Calls tool `tool` with `arguments`, as [`crate::Client::call_tool`] does; when `cancel`
    /// is cancelled first, the server is told and the call ends with [`McpError::Cancelled`].
    pub fn call_tool(
        &self,
        tool: &str,
        arguments: Value,
        cancel: Option<&Cancel>,
    ) -> Result<Value, McpError> {
        let params = json!({ "name": tool, "arguments": arguments });
        self.request("tools/call", Some(params), self.timeouts.request, cancel)
    }

    /// Ends the session: stdin closed, then the process terminated after the grace period
    /// (an HTTP session is deleted). Calls still waiting fail.
    pub fn close(&self) {
        self.end(true);
    }

    /// Ends the session at once (after a failure): the process is terminated.
    pub fn kill(&self) {
        self.end(false);
    }

    fn end(&self, graceful: bool) {
        match &self.link {
            Link::Stdio(pipe) => lock(&pipe.stdio).close(graceful),
            Link::Http(http) => lock(http).close(graceful),
        }
    }

    fn request(
        &self,
        method: &str,
        params: Option<Value>,
        timeout: Duration,
        cancel: Option<&Cancel>,
    ) -> Result<Value, McpError> {
        if cancel.is_some_and(Cancel::is_cancelled) {
            return Err(McpError::Cancelled {
                server: self.name.clone(),
            });
        }
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let message = jsonrpc::request(id, method, params);
        let (reply, replied) = mpsc::channel();
        self.send(id, message, timeout, reply.clone());
        if let Some(cancel) = cancel {
            self.on_cancel(cancel, id, reply);
        }
        let Ok(reply) = replied.recv_timeout(timeout) else {
            return Err(self.timed_out(id, method, timeout));
        };
        match reply {
            Reply::Message(raw) => self.outcome(method, raw),
            Reply::Failed(failure) => Err(self.failure(failure)),
            Reply::Cancelled => Err(McpError::Cancelled {
                server: self.name.clone(),
            }),
        }
    }

    /// Request `id` was not answered within `timeout`: the caller stops waiting, and a stdio
    /// server is told to stop working on it ([`McpError::TimedOut`]), so a caller may keep the
    /// server for its other requests. (An HTTP request has timed out on its own thread too.)
    fn timed_out(&self, id: u64, method: &str, timeout: Duration) -> McpError {
        let what = format!(
            "did not answer `{method}` within {:.1} s",
            timeout.as_secs_f64()
        );
        let Link::Stdio(pipe) = &self.link else {
            return self.broken(what);
        };
        if pipe.forget(id).is_some() {
            let _ = lock(&pipe.stdio).write(&cancelled(id, "the request timed out"));
        }
        match self.broken(what) {
            McpError::Failed {
                server,
                what,
                stderr,
            } => McpError::TimedOut {
                server,
                what,
                stderr,
            },
            other => other,
        }
    }

    fn send(&self, id: u64, message: Value, timeout: Duration, reply: Sender<Reply>) {
        match &self.link {
            Link::Stdio(pipe) => pipe.send(id, &message, reply),
            Link::Http(http) => {
                let mut http = lock(http).clone();
                std::thread::spawn(move || {
                    let answer = match http.request(id, &message, timeout) {
                        Ok(raw) => Reply::Message(raw),
                        Err(failure) => Reply::Failed(failure),
                    };
                    let _ = reply.send(answer);
                });
            }
        }
    }

    /// When `cancel` is cancelled: the server is sent `notifications/cancelled` for request
    /// `id` (unless it already answered), and the caller stops waiting.
    fn on_cancel(&self, cancel: &Cancel, id: u64, reply: Sender<Reply>) {
        match &self.link {
            Link::Stdio(pipe) => {
                let pipe = Arc::downgrade(pipe);
                cancel.on_cancel(move |reason| {
                    if let Some(pipe) = pipe.upgrade()
                        && pipe.forget(id).is_some()
                    {
                        let _ = lock(&pipe.stdio).write(&cancelled(id, reason));
                    }
                    let _ = reply.send(Reply::Cancelled);
                });
            }
            Link::Http(http) => {
                let mut http = lock(http).clone();
                cancel.on_cancel(move |reason| {
                    let _ = reply.send(Reply::Cancelled);
                    let notice = cancelled(id, reason);
                    // A POST may take a while; the canceller (the reading thread) does not wait.
                    std::thread::spawn(move || http.notify(&notice));
                });
            }
        }
    }

    fn notify(&self, message: &Value) -> Result<(), Failure> {
        match &self.link {
            Link::Stdio(pipe) => lock(&pipe.stdio).write(message),
            Link::Http(http) => {
                let mut http = lock(http).clone();
                http.notify(message)
            }
        }
    }

    fn outcome(&self, method: &str, raw: Value) -> Result<Value, McpError> {
        crate::response_outcome(raw, &self.name, method, &self.secrets)
            .unwrap_or_else(|| Err(self.broken(format!("sent no response to `{method}`"))))
    }

    fn failure(&self, Failure(what): Failure) -> McpError {
        let stderr = match &self.link {
            Link::Stdio(pipe) => lock(&pipe.stdio).stderr_tail(),
            Link::Http(_) => String::new(),
        };
        McpError::Failed {
            server: self.name.clone(),
            what: self.secrets.scrub(&what),
            stderr: self.secrets.scrub(&stderr),
        }
    }

    fn broken(&self, what: impl Into<String>) -> McpError {
        self.failure(Failure(what.into()))
    }
}

impl Drop for SharedClient {
    fn drop(&mut self) {
        // After `close` this does nothing: closing twice is a no-op.
        self.end(false);
    }
}
