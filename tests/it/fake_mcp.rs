//! Tiny MCP servers for tests: a stdio server written in `sh` that answers with canned JSON-RPC
//! lines, and an HTTP listener on loopback that records each request's head and answers with a
//! canned response. Neither needs anything but `sh`.

#![allow(dead_code)]

use std::io::Write;
use std::net::{SocketAddr, TcpListener};
use std::sync::{Arc, Mutex};

/// A `sh` script serving MCP on stdio: `initialize` answered with `server_info` (a JSON object
/// for `result.serverInfo`) and `instructions`, `tools/list` with `tools` (a JSON array), and
/// `tools/call` with `call_result` (a JSON object for `result`, or a whole JSON-RPC `error`
/// member when it starts with `"error"`). `before` runs first (e.g. `env > seen-env`).
pub fn stdio_script(
    before: &str,
    server_info: &str,
    instructions: &str,
    tools: &str,
    call_result: &str,
) -> String {
    let init = format!(
        r#"{{"jsonrpc":"2.0","id":1,"result":{{"protocolVersion":"2025-06-18","capabilities":{{"tools":{{}}}},"serverInfo":{server_info},"instructions":{instructions}}}}}"#
    );
    let list = format!(r#"{{"jsonrpc":"2.0","id":2,"result":{{"tools":{tools}}}}}"#);
    let call = if call_result.starts_with("\"error\"") {
        format!(r#"{{"jsonrpc":"2.0","id":2,{call_result}}}"#)
    } else {
        format!(r#"{{"jsonrpc":"2.0","id":2,"result":{call_result}}}"#)
    };
    format!(
        "{before}\nread l\nprintf '%s\\n' '{init}'\nread l\nread l\ncase \"$l\" in\n  *tools/list*) printf '%s\\n' '{list}' ;;\n  *) printf '%s\\n' '{call}' ;;\nesac\nread l\n"
    )
}

/// A project `dotpack.toml` line set declaring server `name` as `sh FILE`.
pub fn stdio_server_toml(name: &str, file: &str) -> String {
    format!("[servers.{name}]\ncommand = \"sh\"\nargs = [\"{file}\"]\n")
}

/// One HTTP request as a [`Recorder`] saw it.
#[derive(Clone, Debug)]
pub struct Request {
    pub method: String,
    pub path: String,
    /// The request line and headers.
    pub head: String,
    pub body: String,
}

impl Request {
    /// The value of header `name` (any case).
    pub fn header(&self, name: &str) -> Option<String> {
        crate::support::header(&self.head, name)
    }
}

/// Reads one request: its head, then as many body bytes as `Content-Length` says.
fn read_request(stream: &mut std::net::TcpStream) -> Option<Request> {
    use std::io::Read;
    let _ = stream.set_read_timeout(Some(std::time::Duration::from_secs(5)));
    let mut bytes = Vec::new();
    let mut buf = [0u8; 4096];
    let head_end = loop {
        if let Some(at) = bytes.windows(4).position(|w| w == b"\r\n\r\n") {
            break at + 4;
        }
        match stream.read(&mut buf) {
            Ok(0) | Err(_) => return None,
            Ok(n) => bytes.extend_from_slice(&buf[..n]),
        }
    };
    let head = String::from_utf8_lossy(&bytes[..head_end]).into_owned();
    let length: usize = crate::support::header(&head, "content-length")
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    while bytes.len() < head_end + length {
        match stream.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => bytes.extend_from_slice(&buf[..n]),
        }
    }
    let mut line = head.split(' ');
    Some(Request {
        method: line.next().unwrap_or_default().to_string(),
        path: line.next().unwrap_or_default().to_string(),
        body: String::from_utf8_lossy(&bytes[head_end..]).into_owned(),
        head,
    })
}

/// An HTTP listener on loopback that answers every request with what `respond` returns (a
/// whole HTTP/1.1 response) and records the requests. Its thread ends with the test process.
pub struct Recorder {
    pub addr: SocketAddr,
    requests: Arc<Mutex<Vec<Request>>>,
}

impl Recorder {
    pub fn start(respond: impl Fn(&Request) -> String + Send + 'static) -> Recorder {
        let respond = Mutex::new(respond);
        Recorder::listen(false, move |r| (respond.lock().expect("respond"))(r))
    }

    /// Like [`Recorder::start`], answering each connection on a thread of its own, so a slow
    /// answer holds up no other.
    pub fn concurrent(respond: impl Fn(&Request) -> String + Send + Sync + 'static) -> Recorder {
        Recorder::listen(true, respond)
    }

    fn listen(
        concurrent: bool,
        respond: impl Fn(&Request) -> String + Send + Sync + 'static,
    ) -> Recorder {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
        let addr = listener.local_addr().expect("addr");
        let requests = Arc::new(Mutex::new(Vec::new()));
        let seen = Arc::clone(&requests);
        let respond = Arc::new(respond);
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                let (seen, respond) = (Arc::clone(&seen), Arc::clone(&respond));
                let mut answer = move || {
                    let Some(request) = read_request(&mut stream) else {
                        return;
                    };
                    seen.lock().expect("requests").push(request.clone());
                    let _ = stream.write_all(respond(&request).as_bytes());
                    let _ = stream.flush();
                };
                if concurrent {
                    std::thread::spawn(answer);
                } else {
                    answer();
                }
            }
        });
        Recorder { addr, requests }
    }

    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Every request so far.
    pub fn requests(&self) -> Vec<Request> {
        self.requests.lock().expect("requests").clone()
    }
}

/// A streamable-HTTP MCP server's answer to `request`: `initialize` and `tools/list` (one tool,
/// `ping`) answered as JSON with the request's id, notifications with 202, a DELETE with 200.
pub fn mcp_answer(request: &Request) -> String {
    if request.method == "DELETE" {
        return response(200, "", "");
    }
    let message: serde_json::Value = serde_json::from_str(&request.body).unwrap_or_default();
    let id = message["id"].clone();
    let result = match message["method"].as_str() {
        Some("initialize") => serde_json::json!({
            "protocolVersion": "2025-06-18",
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "fake", "version": "1"},
        }),
        Some("tools/list") => {
            serde_json::json!({"tools": [{"name": "ping", "inputSchema": {"type": "object"}}]})
        }
        _ => return response(202, "", ""),
    };
    let body = serde_json::json!({"jsonrpc": "2.0", "id": id, "result": result}).to_string();
    response(200, "Content-Type: application/json\r\n", &body)
}

/// A loopback port nothing listens on.
pub fn closed_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .expect("bind loopback")
        .local_addr()
        .expect("addr")
        .port()
}

/// A response with `status` and extra `headers` (each ending in `\r\n`) and `body`.
pub fn response(status: u16, headers: &str, body: &str) -> String {
    format!(
        "HTTP/1.1 {status} X\r\n{headers}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
}

/// Fails unless `bytes` (what dotpack wrote to a terminal) hold no control sequence but
/// dotpack's own colours (SGR, `ESC [ ... m`): no other ESC, no BEL, no C1 control (in UTF-8,
/// `C2 80` to `C2 9F`), no carriage return that is not part of a CRLF.
pub fn assert_terminal_safe(what: &str, bytes: &[u8]) {
    let text = String::from_utf8_lossy(bytes);
    let mut rest = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' && chars.peek() == Some(&'[') {
            // Skip an SGR sequence: `[`, digits and `;`, then `m`.
            let mut probe = chars.clone();
            probe.next();
            while probe.next_if(|d| d.is_ascii_digit() || *d == ';').is_some() {}
            if probe.peek() == Some(&'m') {
                probe.next();
                chars = probe;
                continue;
            }
        }
        rest.push(c);
    }
    for (i, c) in rest.char_indices() {
        let lone_cr = c == '\r' && !rest[i + 1..].starts_with('\n');
        let bad = matches!(c, '\u{0}'..='\u{8}' | '\u{b}'..='\u{c}' | '\u{e}'..='\u{1f}' | '\u{7f}'..='\u{9f}')
            || lone_cr
            || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}');
        assert!(
            !bad,
            "{what}: control character {:?} reached the terminal in:\n{text}",
            c
        );
    }
    assert!(
        !bytes
            .windows(2)
            .any(|w| w[0] == 0xc2 && (0x80..=0x9f).contains(&w[1])),
        "{what}: a C1 control reached the terminal"
    );
}
