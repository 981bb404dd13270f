//! A stdio MCP server loop for a tool [`Handler`] (the bridge, the gateway): one thread reads
//! requests, `tools/list` and `tools/call` run on their own threads (at most [`MAX_IN_FLIGHT`]
//! at once), and one thread writes every response.
//!
//! A slow call does not hold up the others: each response is written when it is ready, whole,
//! as one line, with its request's id, so responses may come in another order than their
//! requests (JSON-RPC allows it; clients match them by id). Everything that does not reach the
//! service (`initialize`, `ping`, notifications, refusals) is answered in order on the reading
//! thread, before the next line is read: `initialize` is answered before any request after it.
//!
//! The reading thread keeps reading while calls run, so a `notifications/cancelled` reaches a
//! call in flight: its [`Cancel`] is cancelled, and no response is written for it (the MCP
//! specification: the receiver of a cancellation should not answer the cancelled request).
//! Requests beyond [`MAX_IN_FLIGHT`] wait their turn without holding up the reading, up to
//! [`MAX_WAITING`]; only then does reading wait. A handler that has a [`Notifier`] can send its
//! client notifications (`notifications/tools/list_changed`) while the loop serves.

use std::collections::HashMap;
use std::io::{BufRead, Read, Write};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Condvar, Mutex, PoisonError};

use serde_json::{Value, json};

use crate::jsonrpc::{self, Incoming};
use crate::{Cancel, PROTOCOL_VERSIONS, lock};

/// The longest request line read from the host: 16 MiB.
const MAX_LINE: usize = 16 * 1024 * 1024;
/// Most requests to the service in flight at once; reading the next request waits for one of
/// them to finish.
pub const MAX_IN_FLIGHT: usize = 16;
/// Most requests read and not answered yet (running or waiting to); reading the next request
/// waits for one of them to finish.
pub const MAX_WAITING: usize = 256;
const PARSE_ERROR: i64 = -32700;
const INVALID_REQUEST: i64 = -32600;
/// MCP's code for a call of a tool the server does not offer.
pub const INVALID_PARAMS: i64 = -32602;
/// The JSON-RPC error code for a failure inside the server (its tools could not be listed).
pub const INTERNAL_ERROR: i64 = -32603;

/// What a stdio MCP server serves: its name, its tools, and their calls. Called from several
/// threads at once.
pub trait Handler: Sync {
    /// `serverInfo.name` in `initialize`, also the prefix of the loop's own diagnostics.
    fn name(&self) -> &str;
    /// `instructions` in `initialize`.
    fn instructions(&self) -> String;
    /// Why a `tools/call` of `tool` is refused at once (a tool not served), or `None` to call it.
    fn refuse(&self, tool: &str) -> Option<String>;
    /// The `tools/list` result (`{"tools": [...]}`), or why it could not be made.
    fn list_tools(&self) -> Result<Value, String>;
    /// The `tools/call` result for `params` (`name`, `arguments`); a failure is a tool error.
    /// When `cancel` is cancelled the result is not sent, so a handler may stop early.
    fn call_tool(&self, params: &Value, cancel: &Cancel) -> Value;
    /// Where the handler sends its notifications, which the loop writes while it serves; with
    /// one, `initialize` says the tool list may change (`tools.listChanged`).
    fn notifier(&self) -> Option<&Notifier> {
        None
    }
}

/// Notifications from a [`Handler`] to its client, from any thread; sent only while the loop
/// serves (dropped before and after).
#[derive(Clone, Default)]
pub struct Notifier(Arc<Mutex<Option<Sender<Value>>>>);

impl Notifier {
    /// Sends notification `method` (no params) to the client, if the loop serves.
    pub fn notify(&self, method: &str) {
        if let Some(out) = lock(&self.0).as_ref() {
            let _ = out.send(jsonrpc::notification(method, None));
        }
    }

    /// Connects the notifier to the loop's writer (`None`: disconnects it, so the writer ends).
    pub(crate) fn connect(&self, out: Option<Sender<Value>>) {
        *lock(&self.0) = out;
    }
}

/// The requests in flight, by session and id (as canonical JSON), each with its cancellation.
#[derive(Default)]
pub(crate) struct InFlight(Mutex<HashMap<String, Arc<Cancel>>>);

fn key(session: &str, id: &Value) -> String {
    format!("{session} {}", jsonrpc::canonical(id))
}

impl InFlight {
    pub(crate) fn start(&self, session: &str, id: &Value) -> Arc<Cancel> {
        let cancel = Arc::new(Cancel::default());
        lock(&self.0).insert(key(session, id), Arc::clone(&cancel));
        cancel
    }

    pub(crate) fn end(&self, session: &str, id: &Value) {
        lock(&self.0).remove(&key(session, id));
    }

    /// Cancels the request of `session` that `params.requestId` names, if it is in flight.
    pub(crate) fn cancel(&self, session: &str, params: &Value) {
        let Some(id) = params.get("requestId") else {
            return;
        };
        let reason = params
            .get("reason")
            .and_then(Value::as_str)
            .unwrap_or("cancelled by the client");
        let cancel = lock(&self.0).get(&key(session, id)).cloned();
        if let Some(cancel) = cancel {
            cancel.cancel(reason);
        }
    }
}

/// Serves MCP on `input`/`output` until `input` ends and every call in flight is answered.
/// Diagnostics go to `log` (stderr).
pub fn serve(
    service: &impl Handler,
    input: impl BufRead,
    output: impl Write + Send,
    mut log: impl Write,
) -> std::io::Result<()> {
    let (running, waiting) = (Slots::new(MAX_IN_FLIGHT), Slots::new(MAX_WAITING));
    let in_flight = InFlight::default();
    std::thread::scope(|scope| {
        let (replies, written) = mpsc::channel::<Value>();
        let writer = scope.spawn(move || write_lines(written, output));
        if let Some(notifier) = service.notifier() {
            notifier.connect(Some(replies.clone()));
        }
        let read = (|| -> std::io::Result<()> {
            let mut lines = Lines::new(input);
            while let Some(text) = lines.next(service.name(), &mut log)? {
                let sent = match triage(service, &text) {
                    Work::Answer(None) => Ok(()),
                    Work::Answer(Some(reply)) => replies.send(reply),
                    Work::Cancel(params) => {
                        in_flight.cancel("", &params);
                        Ok(())
                    }
                    Work::Service { id, method, params } => {
                        let (queued, replies) = (waiting.take(), replies.clone());
                        let (running, in_flight) = (&running, &in_flight);
                        let cancel = in_flight.start("", &id);
                        scope.spawn(move || {
                            let _queued = queued;
                            let _slot = running.take();
                            let answer = (!cancel.is_cancelled()).then(|| {
                                answer_from_service(service, &id, &method, &params, &cancel)
                            });
                            in_flight.end("", &id);
                            // The writer is gone only when output failed; its error is returned.
                            if let Some(answer) = answer.filter(|_| !cancel.is_cancelled()) {
                                let _ = replies.send(answer);
                            }
                        });
                        Ok(())
                    }
                };
                if sent.is_err() {
                    // The writer stopped: output failed, and its error is what `serve` returns.
                    break;
                }
            }
            Ok(())
        })();
        if let Some(notifier) = service.notifier() {
            notifier.connect(None);
        }
        drop(replies);
        let written = writer
            .join()
            .unwrap_or_else(|_| Err(std::io::Error::other("the server's writer stopped")));
        read.and(written)
    })
}

/// Writes each reply as one line, flushed, until every sender is gone.
fn write_lines(replies: Receiver<Value>, mut output: impl Write) -> std::io::Result<()> {
    for reply in replies {
        let mut line = reply.to_string();
        line.push('\n');
        output.write_all(line.as_bytes())?;
        output.flush()?;
    }
    Ok(())
}

/// Request lines from the host, blank ones skipped.
struct Lines<R> {
    input: R,
    buf: Vec<u8>,
}

impl<R: BufRead> Lines<R> {
    fn new(input: R) -> Self {
        Lines {
            input,
            buf: Vec::new(),
        }
    }

    /// The next line; `None` at the end of input or after a line longer than [`MAX_LINE`].
    fn next(&mut self, name: &str, log: &mut impl Write) -> std::io::Result<Option<String>> {
        loop {
            self.buf.clear();
            let n = (&mut self.input)
                .take((MAX_LINE + 1) as u64)
                .read_until(b'\n', &mut self.buf)?;
            if n == 0 {
                return Ok(None);
            }
            if self.buf.len() > MAX_LINE {
                let _ = writeln!(
                    log,
                    "{name}: a request line is longer than 16 MiB; stopping"
                );
                return Ok(None);
            }
            let text = String::from_utf8_lossy(&self.buf);
            if !text.trim().is_empty() {
                return Ok(Some(text.into_owned()));
            }
        }
    }
}

/// What one message needs.
pub(crate) enum Work {
    /// Answered at once (or, for a notification, not at all).
    Answer(Option<Value>),
    /// `notifications/cancelled`: the request its params name is cancelled.
    Cancel(Value),
    /// Answered by the service, on a thread of its own.
    Service {
        id: Value,
        method: String,
        params: Value,
    },
}

pub(crate) fn triage(service: &impl Handler, text: &str) -> Work {
    let message = match serde_json::from_str::<Value>(text) {
        Ok(message) => message,
        Err(e) => {
            return Work::Answer(Some(jsonrpc::error_response(
                Value::Null,
                PARSE_ERROR,
                &format!("not JSON: {e}"),
            )));
        }
    };
    let (id, method, params) = match jsonrpc::classify(message) {
        Ok(Incoming::Request { id, method, params }) => (id, method, params),
        Ok(Incoming::Notification { method, params }) if method == "notifications/cancelled" => {
            return Work::Cancel(params);
        }
        Ok(_) => return Work::Answer(None),
        Err(why) => {
            return Work::Answer(Some(jsonrpc::error_response(
                Value::Null,
                INVALID_REQUEST,
                &format!("invalid request: {why}"),
            )));
        }
    };
    let reply = match method.as_str() {
        "initialize" => jsonrpc::response(id, initialize_result(service, &params)),
        "ping" => jsonrpc::response(id, json!({})),
        "tools/call" => {
            let name = params.get("name").and_then(Value::as_str).unwrap_or("");
            match service.refuse(name) {
                None => return Work::Service { id, method, params },
                Some(why) => jsonrpc::error_response(id, INVALID_PARAMS, &why),
            }
        }
        "tools/list" => return Work::Service { id, method, params },
        _ => jsonrpc::answer(id, &method),
    };
    Work::Answer(Some(reply))
}

fn initialize_result(service: &impl Handler, params: &Value) -> Value {
    let asked = params
        .get("protocolVersion")
        .and_then(Value::as_str)
        .unwrap_or("");
    let version = if PROTOCOL_VERSIONS.contains(&asked) {
        asked
    } else {
        PROTOCOL_VERSIONS[0]
    };
    json!({
        "protocolVersion": version,
        "capabilities": { "tools": { "listChanged": service.notifier().is_some() } },
        "serverInfo": { "name": service.name(), "version": env!("CARGO_PKG_VERSION") },
        "instructions": service.instructions(),
    })
}

/// The response to a request [`triage`] sent to the service.
pub(crate) fn answer_from_service(
    service: &impl Handler,
    id: &Value,
    method: &str,
    params: &Value,
    cancel: &Cancel,
) -> Value {
    let id = id.clone();
    match method {
        "tools/list" => match service.list_tools() {
            Ok(result) => jsonrpc::response(id, result),
            Err(e) => jsonrpc::error_response(id, INTERNAL_ERROR, &e),
        },
        _ => jsonrpc::response(id, service.call_tool(params, cancel)),
    }
}

/// A counting semaphore: at most `n` [`Slot`]s taken at once.
pub(crate) struct Slots {
    free: Mutex<usize>,
    freed: Condvar,
}

impl Slots {
    pub(crate) fn new(n: usize) -> Slots {
        Slots {
            free: Mutex::new(n),
            freed: Condvar::new(),
        }
    }

    /// A slot, once one is free; it is given back when dropped.
    pub(crate) fn take(&self) -> Slot<'_> {
        let mut free = lock(&self.free);
        while *free == 0 {
            free = self
                .freed
                .wait(free)
                .unwrap_or_else(PoisonError::into_inner);
        }
        *free -= 1;
        Slot(self)
    }
}

pub(crate) struct Slot<'a>(&'a Slots);

impl Drop for Slot<'_> {
    fn drop(&mut self) {
        let mut free = lock(&self.0.free);
        *free += 1;
        self.0.freed.notify_one();
    }
}

#[cfg(test)]
mod tests {
    use std::io::{BufRead, BufReader, Write};
    use std::sync::mpsc;
    use std::time::Duration;

    use serde_json::{Value, json};

    use super::{Handler, Notifier, serve};
    use crate::Cancel;

    /// `wait` blocks until cancelled; `quick` answers at once; `announce` says the tools changed.
    struct Tools {
        notifier: Notifier,
    }

    impl Handler for Tools {
        fn name(&self) -> &str {
            "t"
        }
        fn instructions(&self) -> String {
            String::new()
        }
        fn refuse(&self, _tool: &str) -> Option<String> {
            None
        }
        fn list_tools(&self) -> Result<Value, String> {
            Ok(json!({"tools": []}))
        }
        fn call_tool(&self, params: &Value, cancel: &Cancel) -> Value {
            match params["name"].as_str() {
                Some("wait") => {
                    let (done, cancelled) = mpsc::channel();
                    cancel.on_cancel(move |why| {
                        let _ = done.send(why.to_string());
                    });
                    let why = cancelled.recv_timeout(Duration::from_secs(30));
                    json!({"content": [{"type": "text", "text": format!("{why:?}")}]})
                }
                Some("announce") => {
                    self.notifier.notify("notifications/tools/list_changed");
                    json!({"content": []})
                }
                _ => json!({"content": [{"type": "text", "text": "quick"}]}),
            }
        }
        fn notifier(&self) -> Option<&Notifier> {
            Some(&self.notifier)
        }
    }

    #[test]
    fn a_cancelled_call_is_not_answered_while_later_calls_and_notifications_are() {
        let (input, mut to_server) = std::io::pipe().unwrap();
        let (from_server, output) = std::io::pipe().unwrap();
        let service = Tools {
            notifier: Notifier::default(),
        };
        let server = std::thread::spawn(move || {
            serve(&service, BufReader::new(input), output, std::io::sink())
        });
        let mut lines = BufReader::new(from_server).lines();
        let mut next =
            || -> Value { serde_json::from_str(&lines.next().unwrap().unwrap()).unwrap() };
        let mut send = move |message: Value| writeln!(to_server, "{message}").unwrap();
        let call = |id: u64, name: &str| json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name}});
        send(json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}));
        assert_eq!(
            next()["result"]["capabilities"]["tools"]["listChanged"],
            true
        );
        send(call(2, "wait"));
        send(call(3, "quick"));
        assert_eq!(next()["id"], 3, "answered while call 2 waits");
        send(
            json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 2}}),
        );
        send(call(4, "announce"));
        assert_eq!(next()["method"], "notifications/tools/list_changed");
        assert_eq!(next()["id"], 4);
        drop(send);
        server.join().unwrap().unwrap();
        let rest: Vec<Value> = std::iter::from_fn(|| lines.next())
            .map(|l| serde_json::from_str(&l.unwrap()).unwrap())
            .collect();
        assert_eq!(rest, Vec::<Value>::new(), "no answer to the cancelled call");
    }
}
