//! The stdio loop's [`Handler`] served over MCP's streamable HTTP on a loopback address: each
//! `POST` of a JSON-RPC message to `/mcp` is answered with JSON (a request's response) or
//! `202 Accepted` (a notification); a `GET` opens the session's event stream, where the
//! handler's notifications go; `DELETE` ends the session. One thread per connection.
//!
//! Only loopback is served, and a browser page cannot reach it by a name it controls (DNS
//! rebinding): a request whose `Host` is not a loopback name or address with this port, or whose
//! `Origin` is not a loopback origin, is refused with 403. A request other than `initialize`
//! must carry the `Mcp-Session-Id` `initialize`'s answer gave.

use std::collections::HashSet;
use std::hash::{BuildHasher, RandomState};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;

use crate::lock;
use crate::serve::{Handler, InFlight, MAX_IN_FLIGHT, Slots, Work, answer_from_service, triage};

/// The path of the MCP endpoint.
pub const PATH: &str = "/mcp";
/// The largest request body read: 16 MiB.
const MAX_BODY: usize = 16 * 1024 * 1024;
/// The longest request line or header line, and the most headers.
const MAX_HEAD_LINE: usize = 8 * 1024;
const MAX_HEADERS: usize = 100;
/// How long a connection may sit without a request.
const IDLE: Duration = Duration::from_secs(300);

/// One request's method, path, headers (names lowercased) and body.
struct Request {
    method: String,
    path: String,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Request {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// What every connection shares.
struct Shared<'a, H> {
    service: &'a H,
    port: u16,
    sessions: Mutex<HashSet<String>>,
    in_flight: InFlight,
    running: Slots,
    /// The open event streams (`GET`), each written every notification.
    streams: Arc<Mutex<Vec<TcpStream>>>,
}

/// Serves `service` on `listener` (bound to a loopback address) until accepting fails.
pub fn serve(service: &impl Handler, listener: TcpListener) -> std::io::Result<()> {
    let port = listener.local_addr()?.port();
    let shared = Shared {
        service,
        port,
        sessions: Mutex::default(),
        in_flight: InFlight::default(),
        running: Slots::new(MAX_IN_FLIGHT),
        streams: Arc::default(),
    };
    let (notices, noticed) = mpsc::channel::<Value>();
    if let Some(notifier) = service.notifier() {
        notifier.connect(Some(notices));
    }
    let streams = Arc::clone(&shared.streams);
    std::thread::spawn(move || {
        for notice in noticed {
            let event = format!("event: message\ndata: {notice}\n\n");
            lock(&streams).retain_mut(|s| s.write_all(event.as_bytes()).is_ok());
        }
    });
    std::thread::scope(|scope| {
        for stream in listener.incoming() {
            let stream = stream?;
            let shared = &shared;
            scope.spawn(move || {
                let _ = connection(shared, stream);
            });
        }
        Ok(())
    })
}

/// Answers the requests of one connection until it closes.
fn connection<H: Handler>(shared: &Shared<'_, H>, stream: TcpStream) -> std::io::Result<()> {
    stream.set_read_timeout(Some(IDLE))?;
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut out = stream;
    loop {
        let request = match read_request(&mut reader) {
            Ok(Some(request)) => request,
            Ok(None) => return Ok(()),
            Err(why) => return respond(&mut out, 400, "text/plain", why.as_bytes(), None),
        };
        if let Err(why) = allowed(&request, shared.port) {
            return respond(&mut out, 403, "text/plain", why.as_bytes(), None);
        }
        if request.method == "GET" && request.path == PATH {
            return open_stream(shared, &request, out);
        }
        answer(shared, &request, &mut out)?;
        if request
            .header("connection")
            .is_some_and(|c| c.eq_ignore_ascii_case("close"))
        {
            return Ok(());
        }
    }
}

/// Whether a request may be served: a loopback `Host` with this port, a loopback `Origin`.
fn allowed(request: &Request, port: u16) -> Result<(), String> {
    let loopback = |host: &str| {
        let name = match host.strip_prefix("[::1]") {
            Some(_) => "[::1]",
            None => host.rsplit_once(':').map_or(host, |(name, _)| name),
        };
        matches!(name, "127.0.0.1" | "localhost" | "[::1]")
    };
    let host = request.header("host").unwrap_or("");
    if !loopback(host) || !host.ends_with(&format!(":{port}")) {
        return Err(format!(
            "Host `{host}` is not this loopback server (127.0.0.1:{port}, localhost:{port})"
        ));
    }
    if let Some(origin) = request.header("origin") {
        let rest = origin.strip_prefix("http://").unwrap_or("");
        if !loopback(rest) {
            return Err(format!("Origin `{origin}` is not a loopback origin"));
        }
    }
    Ok(())
}

/// The session a request names; `Err` is the status and why.
fn session<H>(shared: &Shared<'_, H>, request: &Request) -> Result<String, (u16, &'static str)> {
    match request.header("mcp-session-id") {
        None => Err((
            400,
            "a request other than initialize needs its Mcp-Session-Id",
        )),
        Some(id) if lock(&shared.sessions).contains(id) => Ok(id.to_string()),
        Some(_) => Err((404, "no such session (it ended): initialize again")),
    }
}

fn answer<H: Handler>(
    shared: &Shared<'_, H>,
    request: &Request,
    out: &mut TcpStream,
) -> std::io::Result<()> {
    if request.path != PATH {
        return respond(out, 404, "text/plain", b"the MCP endpoint is /mcp", None);
    }
    let text = String::from_utf8_lossy(&request.body);
    let is_initialize = serde_json::from_str::<Value>(&text)
        .is_ok_and(|m| m.get("method").and_then(Value::as_str) == Some("initialize"));
    let session = if is_initialize && request.method == "POST" {
        let id = new_session_id();
        lock(&shared.sessions).insert(id.clone());
        id
    } else {
        match session(shared, request) {
            Ok(id) => id,
            Err((status, why)) => return respond(out, status, "text/plain", why.as_bytes(), None),
        }
    };
    match request.method.as_str() {
        "POST" => {}
        "DELETE" => {
            lock(&shared.sessions).remove(&session);
            return respond(out, 200, "text/plain", b"", None);
        }
        _ => return respond(out, 405, "text/plain", b"POST, GET or DELETE", None),
    }
    let reply = match triage(shared.service, &text) {
        Work::Answer(reply) => reply,
        Work::Cancel(params) => {
            shared.in_flight.cancel(&session, &params);
            None
        }
        Work::Service { id, method, params } => {
            let _slot = shared.running.take();
            let cancel = shared.in_flight.start(&session, &id);
            let reply = answer_from_service(shared.service, &id, &method, &params, &cancel);
            shared.in_flight.end(&session, &id);
            if cancel.is_cancelled() {
                // No response to a cancelled request: an event stream that ends without one.
                return respond(out, 200, "text/event-stream", b"", Some(&session));
            }
            Some(reply)
        }
    };
    match reply {
        Some(reply) => respond(
            out,
            200,
            "application/json",
            reply.to_string().as_bytes(),
            Some(&session),
        ),
        None => respond(out, 202, "text/plain", b"", Some(&session)),
    }
}

/// Keeps `out` as an event stream of the session's notifications.
fn open_stream<H>(
    shared: &Shared<'_, H>,
    request: &Request,
    mut out: TcpStream,
) -> std::io::Result<()> {
    let session = match session(shared, request) {
        Ok(id) => id,
        Err((status, why)) => return respond(&mut out, status, "text/plain", why.as_bytes(), None),
    };
    let head = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\nMcp-Session-Id: {session}\r\n\r\n"
    );
    out.write_all(head.as_bytes())?;
    lock(&shared.streams).push(out);
    Ok(())
}

fn respond(
    out: &mut TcpStream,
    status: u16,
    kind: &str,
    body: &[u8],
    session: Option<&str>,
) -> std::io::Result<()> {
    let reason = match status {
        200 => "OK",
        202 => "Accepted",
        400 => "Bad Request",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        411 => "Length Required",
        _ => "Payload Too Large",
    };
    let session = session
        .map(|s| format!("Mcp-Session-Id: {s}\r\n"))
        .unwrap_or_default();
    let head = format!(
        "HTTP/1.1 {status} {reason}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\n{session}\r\n",
        body.len()
    );
    out.write_all(head.as_bytes())?;
    out.write_all(body)?;
    out.flush()
}

/// A session id no other process can guess: 128 bits from the OS's random hash keys.
fn new_session_id() -> String {
    let (a, b) = (
        RandomState::new().hash_one(1u8),
        RandomState::new().hash_one(2u8),
    );
    format!("{a:016x}{b:016x}")
}

/// The next request on a connection; `None` when it closed; `Err` why it is not HTTP/1.1 that
/// this server reads (no chunked bodies, bounded head and body).
fn read_request(reader: &mut impl BufRead) -> Result<Option<Request>, String> {
    let Some(first) = head_line(reader)? else {
        return Ok(None);
    };
    let mut parts = first.split(' ');
    let (Some(method), Some(target), Some(_version)) = (parts.next(), parts.next(), parts.next())
    else {
        return Err(format!("not an HTTP request line: {first}"));
    };
    let path = target.split('?').next().unwrap_or("").to_string();
    let mut headers = Vec::new();
    loop {
        let line = head_line(reader)?.ok_or("the connection closed in the headers")?;
        if line.is_empty() {
            break;
        }
        if headers.len() == MAX_HEADERS {
            return Err("too many headers".to_string());
        }
        let (name, value) = line.split_once(':').ok_or("a header line without `:`")?;
        headers.push((name.trim().to_ascii_lowercase(), value.trim().to_string()));
    }
    let mut request = Request {
        method: method.to_string(),
        path,
        headers,
        body: Vec::new(),
    };
    if request.header("transfer-encoding").is_some() {
        return Err("a chunked body: send Content-Length".to_string());
    }
    let length: usize = match request.header("content-length") {
        Some(n) => n
            .parse()
            .map_err(|_| "a Content-Length that is not a number")?,
        None => 0,
    };
    if length > MAX_BODY {
        return Err("a body larger than 16 MiB".to_string());
    }
    request.body.resize(length, 0);
    reader
        .read_exact(&mut request.body)
        .map_err(|e| format!("the body ended early: {e}"))?;
    Ok(Some(request))
}

/// One line of a request's head, without its line end; `None` at the end of the connection.
fn head_line(reader: &mut impl BufRead) -> Result<Option<String>, String> {
    let mut line = Vec::new();
    let n = reader
        .take(MAX_HEAD_LINE as u64 + 1)
        .read_until(b'\n', &mut line)
        .map_err(|e| e.to_string())?;
    if n == 0 {
        return Ok(None);
    }
    if line.len() > MAX_HEAD_LINE {
        return Err("a head line longer than 8 KiB".to_string());
    }
    let text = String::from_utf8(line).map_err(|_| "a head line that is not UTF-8")?;
    Ok(Some(text.trim_end_matches(['\r', '\n']).to_string()))
}

#[cfg(test)]
mod tests {
    use super::{Request, allowed, read_request};

    fn request(headers: &[(&str, &str)]) -> Request {
        Request {
            method: "POST".into(),
            path: "/mcp".into(),
            headers: headers
                .iter()
                .map(|(n, v)| (n.to_string(), v.to_string()))
                .collect(),
            body: Vec::new(),
        }
    }

    #[test]
    fn only_this_loopback_host_and_loopback_origins_are_served() {
        for host in ["127.0.0.1:7000", "localhost:7000", "[::1]:7000"] {
            assert!(allowed(&request(&[("host", host)]), 7000).is_ok(), "{host}");
        }
        for host in [
            "rebind.example:7000",
            "127.0.0.1:7001",
            "127.0.0.1",
            "",
            "[::1]",
        ] {
            assert!(
                allowed(&request(&[("host", host)]), 7000).is_err(),
                "{host}"
            );
        }
        for (origin, ok) in [
            ("http://localhost:5173", true),
            ("http://[::1]", true),
            ("http://127.0.0.1", true),
            ("https://evil.example", false),
            ("http://evil.example:7000", false),
            ("null", false),
        ] {
            let r = request(&[("host", "127.0.0.1:7000"), ("origin", origin)]);
            assert_eq!(allowed(&r, 7000).is_ok(), ok, "{origin}");
        }
    }

    #[test]
    fn requests_are_read_with_their_bodies_and_bounded() {
        let mut two: &[u8] =
            b"POST /mcp?x=1 HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\n\r\n{}GET /mcp HTTP/1.1\r\n\r\n";
        let first = read_request(&mut two).unwrap().unwrap();
        assert_eq!(
            (first.method.as_str(), first.path.as_str()),
            ("POST", "/mcp")
        );
        assert_eq!(first.body, b"{}");
        assert_eq!(read_request(&mut two).unwrap().unwrap().method, "GET");
        assert!(read_request(&mut two).unwrap().is_none());
        let mut chunked: &[u8] = b"POST /mcp HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n";
        assert!(read_request(&mut chunked).is_err());
        let mut huge: &[u8] = b"POST /mcp HTTP/1.1\r\nContent-Length: 99999999999\r\n\r\n";
        assert!(read_request(&mut huge).is_err());
        let long = format!("GET /{} HTTP/1.1\r\n\r\n", "a".repeat(9000));
        assert!(read_request(&mut long.as_bytes()).is_err());
    }
}
