//! An MCP Registry on loopback for tests: the REST API of the official registry
//! (`/v0.1/servers`, `/v0.1/servers/{name}/versions`, `/v0.1/servers/{name}/versions/{version}`)
//! over `server.json` documents, with `search`, `version=latest` and cursor pagination
//! (`metadata.nextCursor`), responses wrapped as `{"server": ..., "_meta": ...}` and pretty
//! printed, an `ETag` per response (a matching `If-None-Match` gets 304) and a log of every
//! request with its query. It stops when dropped.

#![allow(dead_code)]

use std::collections::HashMap;
use std::io::Write;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use serde_json::{Value, json};

pub struct McpServer {
    addr: SocketAddr,
    state: Arc<Mutex<State>>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

struct State {
    /// Documents in publication order.
    docs: Vec<Value>,
    /// Largest page the server returns, whatever `limit` asks.
    max_page: usize,
    /// `(path?query, status)` of every request.
    log: Vec<(String, u16)>,
    /// `(name, version, statusMessage)` of the versions whose status is `deleted`.
    deleted: Vec<(String, String, String)>,
    /// `(name, version, statusMessage)` of the versions whose status is `deprecated`.
    deprecated: Vec<(String, String, String)>,
    /// Whether deleted versions are left out unless a request says `include_deleted=true`, as
    /// the official registry does (a mirror may list them with their status).
    hide_deleted: bool,
    /// Whether `version=latest` is ignored, as by a subregistry that does not implement it.
    ignore_latest: bool,
    /// When set, a request without exactly this `Authorization` header gets 401.
    require_authorization: Option<String>,
}

/// The documents under `tests/fixtures/mcp-registry/`, in file name order.
pub fn fixtures() -> Vec<Value> {
    let dir = crate::support::repo_root().join("tests/fixtures/mcp-registry");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("fixtures")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    files
        .iter()
        .map(|f| serde_json::from_slice(&std::fs::read(f).expect("read")).expect("json"))
        .collect()
}

impl McpServer {
    pub fn start(docs: Vec<Value>, max_page: usize) -> McpServer {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
        let addr = listener.local_addr().expect("addr");
        let state = Arc::new(Mutex::new(State {
            docs,
            max_page,
            log: Vec::new(),
            deleted: Vec::new(),
            deprecated: Vec::new(),
            hide_deleted: false,
            ignore_latest: false,
            require_authorization: None,
        }));
        let stop = Arc::new(AtomicBool::new(false));
        let thread = {
            let (state, stop) = (Arc::clone(&state), Arc::clone(&stop));
            std::thread::spawn(move || {
                for stream in listener.incoming() {
                    if stop.load(Ordering::SeqCst) {
                        break;
                    }
                    if let Ok(stream) = stream {
                        serve(stream, &state);
                    }
                }
            })
        };
        McpServer {
            addr,
            state,
            stop,
            thread: Some(thread),
        }
    }

    /// The fixtures, two servers a page.
    pub fn fixtures() -> McpServer {
        McpServer::start(fixtures(), 2)
    }

    /// The base URL (the API is under `v0.1/`).
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub fn requests(&self) -> Vec<String> {
        let state = self.state.lock().expect("state");
        state
            .log
            .iter()
            .map(|(path, status)| format!("{status} {path}"))
            .collect()
    }

    /// Answer 401 to every request that does not carry exactly `value` as `Authorization`.
    pub fn require_authorization(&self, value: &str) {
        self.state.lock().expect("state").require_authorization = Some(value.to_string());
    }

    pub fn clear_requests(&self) {
        self.state.lock().expect("state").log.clear();
    }

    /// Replaces the document of `name` at `version` (a registry that changed a published
    /// version).
    pub fn replace(&self, name: &str, version: &str, doc: Value) {
        let mut state = self.state.lock().expect("state");
        for d in &mut state.docs {
            if d["name"] == name && d["version"] == version {
                *d = doc.clone();
            }
        }
    }

    /// Marks `name` at `version` as deleted in its `_meta`, as the registry does.
    pub fn delete(&self, name: &str, version: &str) {
        self.delete_because(name, version, "");
    }

    /// Marks `name` at `version` as deleted, with `message` as its `statusMessage`.
    pub fn delete_because(&self, name: &str, version: &str, message: &str) {
        let mut state = self.state.lock().expect("state");
        let entry = (name.to_string(), version.to_string(), message.to_string());
        state.deleted.push(entry);
    }

    /// Marks `name` at `version` as deprecated, with `message` as its `statusMessage`.
    pub fn deprecate(&self, name: &str, version: &str, message: &str) {
        let mut state = self.state.lock().expect("state");
        let entry = (name.to_string(), version.to_string(), message.to_string());
        state.deprecated.push(entry);
    }

    /// Leaves deleted versions out of every answer unless it asks `include_deleted=true`, as
    /// the official registry does.
    pub fn hide_deleted(&self) {
        self.state.lock().expect("state").hide_deleted = true;
    }

    /// Removes `name` at `version` from every answer, as a registry that no longer has it.
    pub fn forget(&self, name: &str, version: &str) {
        let mut state = self.state.lock().expect("state");
        state
            .docs
            .retain(|d| !(d["name"] == name && d["version"] == version));
    }

    /// Lists every version, whatever `version=latest` asks.
    pub fn ignore_latest(&self) {
        self.state.lock().expect("state").ignore_latest = true;
    }

    pub fn document(&self, name: &str, version: &str) -> Value {
        let state = self.state.lock().expect("state");
        state
            .docs
            .iter()
            .find(|d| d["name"] == name && d["version"] == version)
            .cloned()
            .expect("document")
    }
}

impl Drop for McpServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(self.addr);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && let Some(hex) = text.get(i + 1..i + 3)
            && let Ok(b) = u8::from_str_radix(hex, 16)
        {
            out.push(b);
            i += 3;
            continue;
        }
        out.push(if bytes[i] == b'+' { b' ' } else { bytes[i] });
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn entry(doc: &Value, latest: bool, state: &State) -> Value {
    let marked = |list: &[(String, String, String)]| {
        list.iter()
            .find(|(n, v, _)| doc["name"] == n.as_str() && doc["version"] == v.as_str())
            .map(|(_, _, message)| message.clone())
    };
    let (status, message) = match (marked(&state.deleted), marked(&state.deprecated)) {
        (Some(message), _) => ("deleted", message),
        (None, Some(message)) => ("deprecated", message),
        (None, None) => ("active", String::new()),
    };
    let mut official = json!({
        "status": status,
        "publishedAt": "2025-10-01T00:00:00Z",
        "isLatest": latest,
    });
    if !message.is_empty() {
        official["statusMessage"] = json!(message);
    }
    json!({
        "server": doc,
        "_meta": { "io.modelcontextprotocol.registry/official": official }
    })
}

/// Whether `doc` is left out of an answer: deleted, on a registry that hides deleted versions,
/// to a request that did not ask for them.
fn hidden(doc: &Value, state: &State, include_deleted: bool) -> bool {
    state.hide_deleted
        && !include_deleted
        && state
            .deleted
            .iter()
            .any(|(n, v, _)| doc["name"] == n.as_str() && doc["version"] == v.as_str())
}

/// The version of the newest document of each name, by publication order.
fn latest<'a>(docs: impl Iterator<Item = &'a Value>) -> HashMap<&'a str, &'a str> {
    let mut out = HashMap::new();
    for doc in docs {
        if let (Some(name), Some(version)) = (doc["name"].as_str(), doc["version"].as_str()) {
            out.insert(name, version);
        }
    }
    out
}

fn route(target: &str, state: &State) -> (u16, Value) {
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    let params: Vec<(String, String)> = query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            (decode(k), decode(v))
        })
        .collect();
    let param = |name: &str| {
        params
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
    };
    let not_found = (404, json!({"error": "Server not found"}));
    let include_deleted = param("include_deleted").as_deref() == Some("true");
    // `v0.1` is the stable API; `v0` serves the same, as the official registry does.
    let Some(rest) = path
        .strip_prefix("/v0.1/servers")
        .or_else(|| path.strip_prefix("/v0/servers"))
    else {
        return not_found;
    };
    // A hidden version is not the latest: the newest one still shown is.
    let newest = latest(
        state
            .docs
            .iter()
            .filter(|d| !hidden(d, state, include_deleted)),
    );
    let is_latest = |doc: &Value| {
        doc["name"]
            .as_str()
            .and_then(|n| newest.get(n))
            .is_some_and(|v| doc["version"].as_str() == Some(*v))
    };
    if rest.is_empty() || rest == "/" {
        let word = param("search").unwrap_or_default().to_lowercase();
        let only_latest = param("version").as_deref() == Some("latest") && !state.ignore_latest;
        let matching: Vec<&Value> = state
            .docs
            .iter()
            .filter(|d| !only_latest || is_latest(d))
            .filter(|d| !hidden(d, state, include_deleted))
            .filter(|d| {
                d["name"]
                    .as_str()
                    .is_some_and(|n| n.to_lowercase().contains(&word))
            })
            .collect();
        let start: usize = param("cursor").and_then(|c| c.parse().ok()).unwrap_or(0);
        let limit: usize = param("limit")
            .and_then(|l| l.parse().ok())
            .unwrap_or(30)
            .min(state.max_page);
        let page: Vec<Value> = matching
            .iter()
            .skip(start)
            .take(limit)
            .map(|d| entry(d, is_latest(d), state))
            .collect();
        let next = (start + limit < matching.len()).then(|| (start + limit).to_string());
        let count = page.len();
        let mut metadata = json!({"count": count});
        if let Some(next) = next {
            metadata["nextCursor"] = json!(next);
        }
        return (200, json!({"servers": page, "metadata": metadata}));
    }
    let parts: Vec<&str> = rest.trim_start_matches('/').split('/').collect();
    let name = decode(parts[0]);
    let versions: Vec<&Value> = state
        .docs
        .iter()
        .filter(|d| d["name"] == name && !hidden(d, state, include_deleted))
        .collect();
    if versions.is_empty() {
        return not_found;
    }
    match parts.as_slice() {
        [_, "versions"] => {
            let list: Vec<Value> = versions
                .iter()
                .map(|d| entry(d, is_latest(d), state))
                .collect();
            let count = list.len();
            (200, json!({"servers": list, "metadata": {"count": count}}))
        }
        [_, "versions", version] => {
            let version = decode(version);
            match versions.iter().find(|d| d["version"] == version.as_str()) {
                Some(doc) => (200, entry(doc, is_latest(doc), state)),
                None => not_found,
            }
        }
        _ => not_found,
    }
}

fn serve(mut stream: TcpStream, state: &Mutex<State>) {
    let text = crate::support::read_head(&mut stream);
    let mut lines = text.lines();
    let Some(target) = lines.next().and_then(|l| l.split(' ').nth(1)) else {
        return;
    };
    let if_none_match = crate::support::header(&text, "if-none-match");
    let authorization = crate::support::header(&text, "authorization");
    let mut state = state.lock().expect("state");
    let (status, value) = match &state.require_authorization {
        Some(wanted) if authorization.as_ref() != Some(wanted) => {
            (401, serde_json::json!({"error": "unauthorized"}))
        }
        _ => route(target, &state),
    };
    let body = serde_json::to_vec_pretty(&value).expect("json");
    let etag = format!(
        "\"{}\"",
        &dotpack::registry::archive::sha256_hex(&body)[..16]
    );
    let status = if status == 200 && if_none_match.as_deref() == Some(etag.as_str()) {
        304
    } else {
        status
    };
    state.log.push((target.to_string(), status));
    drop(state);
    let reason = match status {
        200 => "OK",
        304 => "Not Modified",
        401 => "Unauthorized",
        _ => "Not Found",
    };
    let (length, body) = if status == 304 {
        (String::new(), Vec::new())
    } else {
        (format!("Content-Length: {}\r\n", body.len()), body)
    };
    let head = format!(
        "HTTP/1.1 {status} {reason}\r\nETag: {etag}\r\nContent-Type: application/json\r\n{length}Connection: close\r\n\r\n"
    );
    let _ = stream.write_all(head.as_bytes());
    let _ = stream.write_all(&body);
    let _ = stream.flush();
}
