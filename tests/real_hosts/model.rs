//! A fake model provider on 127.0.0.1, so a real host CLI can hold a model session without
//! leaving the machine. It speaks as much of each host's wire protocol as one session needs:
//! the Anthropic Messages API (Claude Code, `ANTHROPIC_BASE_URL`), the OpenAI Responses API
//! (Codex, a `model_providers` entry with `wire_api = "responses"`) and the Gemini API (Gemini
//! CLI, `GOOGLE_GEMINI_BASE_URL`), streamed as server-sent events or as one JSON answer.
//!
//! Every session follows the test's [`Script`], a few tool calls then a final text: a request
//! that carries back the results of the first N calls and offers the tool of call N+1 is
//! answered with that call; the one that carries every result with the final text; any other
//! request (a title, a probe) with a short text. Every request is recorded, so the test can
//! check what reached the model ([`Model::tool_results`]).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};

/// The tool calls a session makes, one after the other, and what the model says once the
/// last one's result came back.
#[derive(Clone, Debug)]
pub struct Script {
    pub calls: Vec<Call>,
    pub answer: String,
}

/// One tool call of a [`Script`].
#[derive(Clone, Debug)]
pub struct Call {
    /// The tool's name as the host offers it to the model, flattened: Claude Code's
    /// `mcp__dotpack__call`, Gemini CLI's `mcp_dotpack_call`, Codex's namespace `mcp__dotpack`
    /// and function `call` as `mcp__dotpack__call`.
    pub tool: String,
    pub arguments: Value,
}

/// One request the model received.
#[derive(Clone, Debug)]
pub struct Request {
    pub method: String,
    pub path: String,
    pub body: String,
    /// The client said `Connection: close`.
    close: bool,
}

/// The listener; it stops accepting when dropped.
pub struct Model {
    addr: std::net::SocketAddr,
    script: Script,
    requests: Arc<Mutex<Vec<Request>>>,
    stop: Arc<AtomicBool>,
}

/// The id of the scripted call `n` (Anthropic's `tool_use` id, the Responses API's `call_id`).
fn call_id(n: usize) -> String {
    format!("toolu_dotpack_{n}")
}
/// What the model says to any request that is not part of the script.
const IDLE: &str = "ok";

impl Model {
    /// Listens on loopback (in the calling thread's network namespace) and answers by `script`.
    pub fn start(script: Script) -> Model {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
        listener.set_nonblocking(true).expect("nonblocking");
        let addr = listener.local_addr().expect("addr");
        let requests = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let (log, halt, plan) = (Arc::clone(&requests), Arc::clone(&stop), script.clone());
        std::thread::spawn(move || {
            while !halt.load(Ordering::SeqCst) {
                match listener.accept() {
                    Ok((stream, _)) => {
                        let (log, plan) = (Arc::clone(&log), plan.clone());
                        std::thread::spawn(move || serve(stream, &plan, &log));
                    }
                    Err(_) => std::thread::sleep(Duration::from_millis(10)),
                }
            }
        });
        Model {
            addr,
            script,
            requests,
            stop,
        }
    }

    /// `http://127.0.0.1:PORT`, without a path.
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub fn requests(&self) -> Vec<Request> {
        self.requests.lock().expect("requests").clone()
    }

    /// The results of the scripted calls as the host sent them back to the model (its
    /// protocol's JSON, as text), each from the first request that carried it; as many as
    /// came back.
    pub fn tool_results(&self) -> Vec<String> {
        let requests = self.requests();
        (0..self.script.calls.len())
            .map_while(|n| {
                requests.iter().find_map(|r| {
                    let body: Value = serde_json::from_str(&r.body).ok()?;
                    let result = result_of(protocol(&r.path)?, &body, &self.script, n)?;
                    Some(result.to_string())
                })
            })
            .collect()
    }

    /// What the model received, one line a request, for a failing assertion's message.
    pub fn summary(&self) -> String {
        self.requests()
            .iter()
            .map(|r| {
                let body: Value = serde_json::from_str(&r.body).unwrap_or(Value::Null);
                let offered = protocol(&r.path).map(|p| offered(p, &body));
                format!("{} {} offered {offered:?}", r.method, r.path)
            })
            .collect::<Vec<_>>()
            .join("\n")
    }
}

impl Drop for Model {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Protocol {
    Anthropic,
    Responses,
    Gemini,
}

/// Which API a request path belongs to; `None` for anything else a host probes.
fn protocol(path: &str) -> Option<Protocol> {
    let path = path.split('?').next().unwrap_or(path);
    if path.ends_with("/v1/messages") {
        Some(Protocol::Anthropic)
    } else if path.ends_with("/responses") {
        Some(Protocol::Responses)
    } else if path.ends_with(":streamGenerateContent") || path.ends_with(":generateContent") {
        Some(Protocol::Gemini)
    } else {
        None
    }
}

/// The tool names a request offers the model, namespaced ones flattened (`NS__NAME`).
fn offered(protocol: Protocol, body: &Value) -> Vec<String> {
    let tools = body["tools"].as_array().cloned().unwrap_or_default();
    let name = |t: &Value| t["name"].as_str().map(str::to_string);
    match protocol {
        Protocol::Anthropic => tools.iter().filter_map(name).collect(),
        Protocol::Responses => tools
            .iter()
            .flat_map(|t| match (t["type"].as_str(), t["tools"].as_array()) {
                (Some("namespace"), Some(inner)) => {
                    let ns = t["name"].as_str().unwrap_or_default();
                    inner
                        .iter()
                        .filter_map(name)
                        .map(|n| format!("{ns}__{n}"))
                        .collect::<Vec<_>>()
                }
                _ => name(t).into_iter().collect(),
            })
            .collect(),
        Protocol::Gemini => tools
            .iter()
            .flat_map(|t| {
                t["functionDeclarations"]
                    .as_array()
                    .cloned()
                    .unwrap_or_default()
            })
            .filter_map(|d| name(&d))
            .collect(),
    }
}

/// The result of scripted call `n` in a request whose history holds it, else `None`.
fn result_of(protocol: Protocol, body: &Value, script: &Script, n: usize) -> Option<Value> {
    let items = |v: &Value| v.as_array().cloned().unwrap_or_default();
    let id = call_id(n);
    match protocol {
        // A user message's `tool_result` block for the call's id.
        Protocol::Anthropic => items(&body["messages"])
            .iter()
            .flat_map(|m| items(&m["content"]))
            .find(|b| b["type"] == "tool_result" && b["tool_use_id"] == id.as_str()),
        Protocol::Responses => items(&body["input"])
            .into_iter()
            .find(|i| i["type"] == "function_call_output" && i["call_id"] == id.as_str()),
        // Gemini CLI names its own call ids: the `n`th function response, for the call's tool.
        Protocol::Gemini => {
            let tool = script.calls.get(n)?.tool.as_str();
            items(&body["contents"])
                .iter()
                .flat_map(|c| items(&c["parts"]))
                .filter(|p| p.get("functionResponse").is_some())
                .nth(n)
                .filter(|p| p["functionResponse"]["name"] == tool)
        }
    }
}

/// What the model does next in a request.
enum Turn {
    /// Scripted call `n`.
    Call(usize, Call),
    Text(String),
}

fn turn(protocol: Protocol, body: &Value, script: &Script) -> Turn {
    let done = (0..script.calls.len())
        .take_while(|n| result_of(protocol, body, script, *n).is_some())
        .count();
    match script.calls.get(done) {
        None => Turn::Text(script.answer.clone()),
        Some(call) if offered(protocol, body).contains(&call.tool) => {
            Turn::Call(done, call.clone())
        }
        Some(_) => Turn::Text(IDLE.to_string()),
    }
}

/// Answers the requests of one connection, keeping it open while the client does.
fn serve(stream: TcpStream, script: &Script, log: &Mutex<Vec<Request>>) {
    let _ = stream.set_nonblocking(false);
    let _ = stream.set_read_timeout(Some(Duration::from_secs(30)));
    let Ok(mut writer) = stream.try_clone() else {
        return;
    };
    let mut reader = BufReader::new(stream);
    while let Some(request) = read_request(&mut reader) {
        log.lock().expect("requests").push(request.clone());
        let (status, content_type, body) = answer(&request, script);
        let head = format!(
            "HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n\r\n",
            body.len()
        );
        if writer.write_all(head.as_bytes()).is_err()
            || writer.write_all(&body).is_err()
            || request.close
        {
            return;
        }
    }
}

/// One HTTP/1.1 request with a `Content-Length` body (what every host sends); `None` at the
/// end of the connection.
fn read_request(reader: &mut BufReader<TcpStream>) -> Option<Request> {
    let mut line = String::new();
    reader.read_line(&mut line).ok().filter(|n| *n > 0)?;
    let mut parts = line.split_whitespace();
    let method = parts.next()?.to_string();
    let path = parts.next()?.to_string();
    let (mut length, mut close) = (0, false);
    loop {
        let mut header = String::new();
        reader.read_line(&mut header).ok().filter(|n| *n > 0)?;
        if header == "\r\n" || header == "\n" {
            break;
        }
        let Some((k, v)) = header.split_once(':') else {
            continue;
        };
        if k.eq_ignore_ascii_case("content-length") {
            length = v.trim().parse().ok()?;
        } else if k.eq_ignore_ascii_case("connection") {
            close = v.trim().eq_ignore_ascii_case("close");
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    Some(Request {
        method,
        path,
        body: String::from_utf8_lossy(&body).into_owned(),
        close,
    })
}

/// The status, content type and body answering `request`.
fn answer(request: &Request, script: &Script) -> (&'static str, &'static str, Vec<u8>) {
    let body: Value = serde_json::from_str(&request.body).unwrap_or(Value::Null);
    let Some(protocol) = protocol(&request.path).filter(|_| request.method == "POST") else {
        let counted = request.path.contains("count_tokens");
        return if counted {
            (
                "200 OK",
                "application/json",
                br#"{"input_tokens":1}"#.to_vec(),
            )
        } else {
            ("404 Not Found", "application/json", b"{}".to_vec())
        };
    };
    let turn = turn(protocol, &body, script);
    let stream = match protocol {
        Protocol::Anthropic => body["stream"] == true,
        Protocol::Responses => true,
        Protocol::Gemini => request.path.contains(":streamGenerateContent"),
    };
    let events = match protocol {
        Protocol::Anthropic => anthropic(&body, &turn),
        Protocol::Responses => responses(&body, &turn),
        Protocol::Gemini => gemini(&turn),
    };
    if stream {
        let text: String = events
            .iter()
            .map(|(event, data)| match event {
                Some(event) => format!("event: {event}\ndata: {data}\n\n"),
                None => format!("data: {data}\n\n"),
            })
            .collect();
        ("200 OK", "text/event-stream", text.into_bytes())
    } else {
        let whole = match protocol {
            Protocol::Anthropic => anthropic_message(&body, &turn),
            // The Gemini API's one answer is the same object as each streamed chunk.
            _ => events.last().map(|(_, d)| d.clone()).unwrap_or_default(),
        };
        ("200 OK", "application/json", whole.to_string().into_bytes())
    }
}

/// The Messages API's content block and stop reason for a turn.
fn anthropic_block(turn: &Turn) -> (Value, &'static str) {
    match turn {
        Turn::Call(n, call) => (
            json!({"type": "tool_use", "id": call_id(*n), "name": call.tool, "input": call.arguments}),
            "tool_use",
        ),
        Turn::Text(text) => (json!({"type": "text", "text": text}), "end_turn"),
    }
}

fn anthropic_message(body: &Value, turn: &Turn) -> Value {
    let (block, stop) = anthropic_block(turn);
    json!({
        "id": "msg_dotpack", "type": "message", "role": "assistant", "model": body["model"],
        "content": [block], "stop_reason": stop, "stop_sequence": null,
        "usage": {"input_tokens": 1, "output_tokens": 1},
    })
}

/// `message_start`, one content block (started empty, its text or input as one delta),
/// `message_delta` with the stop reason, `message_stop`.
fn anthropic(body: &Value, turn: &Turn) -> Vec<(Option<&'static str>, Value)> {
    let (block, stop) = anthropic_block(turn);
    let mut message = anthropic_message(body, turn);
    message["content"] = json!([]);
    message["stop_reason"] = Value::Null;
    let (start, delta) = match turn {
        Turn::Call(n, call) => (
            json!({"type": "tool_use", "id": call_id(*n), "name": call.tool, "input": {}}),
            json!({"type": "input_json_delta", "partial_json": block["input"].to_string()}),
        ),
        Turn::Text(text) => (
            json!({"type": "text", "text": ""}),
            json!({"type": "text_delta", "text": text}),
        ),
    };
    vec![
        (
            Some("message_start"),
            json!({"type": "message_start", "message": message}),
        ),
        (
            Some("content_block_start"),
            json!({"type": "content_block_start", "index": 0, "content_block": start}),
        ),
        (
            Some("content_block_delta"),
            json!({"type": "content_block_delta", "index": 0, "delta": delta}),
        ),
        (
            Some("content_block_stop"),
            json!({"type": "content_block_stop", "index": 0}),
        ),
        (
            Some("message_delta"),
            json!({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": null},
                   "usage": {"output_tokens": 1}}),
        ),
        (Some("message_stop"), json!({"type": "message_stop"})),
    ]
}

/// `response.created`, one `response.output_item.done` (a function call, namespaced as the
/// host offered it, or an assistant message), `response.completed`.
fn responses(body: &Value, turn: &Turn) -> Vec<(Option<&'static str>, Value)> {
    let item = match turn {
        Turn::Call(n, call) => {
            let (id, arguments) = (call_id(*n), call.arguments.to_string());
            // The namespace the request offered the tool in, if any (a tool's own name may
            // hold `__` too: the gateway's direct `SERVER__TOOL`).
            let namespaced = body["tools"].as_array().and_then(|tools| {
                tools.iter().find_map(|t| {
                    let ns = t["name"].as_str().filter(|_| t["type"] == "namespace")?;
                    let name = call.tool.strip_prefix(ns)?.strip_prefix("__")?;
                    Some((ns, name))
                })
            });
            match namespaced {
                Some((namespace, name)) => json!({
                    "type": "function_call", "id": format!("fc_{n}"), "call_id": id,
                    "namespace": namespace, "name": name, "arguments": arguments,
                }),
                None => json!({
                    "type": "function_call", "id": format!("fc_{n}"), "call_id": id,
                    "name": call.tool, "arguments": arguments,
                }),
            }
        }
        Turn::Text(text) => json!({
            "type": "message", "id": "msg_dotpack", "role": "assistant",
            "content": [{"type": "output_text", "text": text}],
        }),
    };
    let usage = json!({"input_tokens": 1, "output_tokens": 1, "total_tokens": 2});
    vec![
        (
            Some("response.created"),
            json!({"type": "response.created", "response": {"id": "resp_dotpack"}}),
        ),
        (
            Some("response.output_item.done"),
            json!({"type": "response.output_item.done", "output_index": 0, "item": item}),
        ),
        (
            Some("response.completed"),
            json!({"type": "response.completed", "response": {"id": "resp_dotpack", "usage": usage}}),
        ),
    ]
}

/// One chunk: a candidate whose one part is the function call or the text.
fn gemini(turn: &Turn) -> Vec<(Option<&'static str>, Value)> {
    let part = match turn {
        Turn::Call(_, call) => json!({"functionCall": {"name": call.tool, "args": call.arguments}}),
        Turn::Text(text) => json!({"text": text}),
    };
    vec![(
        None,
        json!({
            "candidates": [{"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}],
            "usageMetadata": {"promptTokenCount": 1, "candidatesTokenCount": 1, "totalTokenCount": 2},
        }),
    )]
}

/// One request to the fake model over a fresh connection: the answer's body.
#[cfg(test)]
fn post(model: &Model, path: &str, body: &Value) -> String {
    let mut stream = TcpStream::connect(model.addr).expect("connect");
    let body = body.to_string();
    let head = format!(
        "POST {path} HTTP/1.1\r\nHost: x\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).expect("send head");
    stream.write_all(body.as_bytes()).expect("send body");
    let mut answer = String::new();
    stream.read_to_string(&mut answer).expect("answer");
    answer
        .split_once("\r\n\r\n")
        .map(|(_, b)| b.to_string())
        .expect("an HTTP answer")
}

/// Without a host: each protocol's first request gets the call, the one carrying its result the
/// final text, and that result is what [`Model::tool_results`] finds.
#[test]
fn the_fake_model_plays_its_script_in_each_protocol() {
    super::offline::enter();
    let script = |tool: &str| Script {
        calls: vec![Call {
            tool: tool.to_string(),
            arguments: json!({"n": 7}),
        }],
        answer: "all done".to_string(),
    };
    let id = call_id(0);

    let model = Model::start(script("mcp__s__t"));
    let first = json!({"stream": true, "tools": [{"name": "mcp__s__t"}], "messages": [{"role": "user", "content": "go"}]});
    let sse = post(&model, "/v1/messages?beta=true", &first);
    assert!(
        sse.contains("event: content_block_start") && sse.contains(&id),
        "{sse}"
    );
    assert!(sse.contains(r#"\"n\":7"#), "{sse}");
    let mut second = first.clone();
    second["messages"] = json!([{"role": "user", "content": "go"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": id, "name": "mcp__s__t", "input": {"n": 7}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": id, "content": "R-1"}]}]);
    assert!(post(&model, "/v1/messages", &second).contains("all done"));
    assert_eq!(model.tool_results().len(), 1);
    assert!(model.tool_results()[0].contains("R-1"));
    let other = json!({"stream": false, "messages": []});
    assert!(post(&model, "/v1/messages", &other).contains(r#""text":"ok""#));

    let model = Model::start(script("mcp__s__t"));
    let first = json!({"tools": [{"type": "namespace", "name": "mcp__s", "tools": [{"type": "function", "name": "t"}]}], "input": []});
    let sse = post(&model, "/v1/responses", &first);
    assert!(
        sse.contains(r#""namespace":"mcp__s""#) && sse.contains(r#""name":"t""#),
        "{sse}"
    );
    let mut second = first.clone();
    second["input"] = json!([{"type": "function_call_output", "call_id": id, "output": "R-2"}]);
    assert!(post(&model, "/v1/responses", &second).contains("all done"));
    assert!(model.tool_results()[0].contains("R-2"));

    let model = Model::start(script("mcp_s_t"));
    let path = "/v1beta/models/m:streamGenerateContent?alt=sse";
    let first = json!({"tools": [{"functionDeclarations": [{"name": "mcp_s_t"}]}], "contents": [{"role": "user", "parts": [{"text": "go"}]}]});
    assert!(post(&model, path, &first).contains(r#""functionCall""#));
    let mut second = first.clone();
    second["contents"] = json!([{"role": "user", "parts": [{"functionResponse": {"name": "mcp_s_t", "response": {"output": "R-3"}}}]}]);
    assert!(post(&model, path, &second).contains("all done"));
    assert!(model.tool_results()[0].contains("R-3"));
    assert_eq!(model.requests().len(), 2);
}
