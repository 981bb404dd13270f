//! JSON-RPC 2.0 messages as MCP uses them: building requests and notifications, sorting what a
//! server sends into responses, requests and notifications, and answering the requests a client
//! that offers no capabilities still has to answer (`ping`).

use serde_json::{Value, json};

/// The JSON-RPC error code for a method the receiver does not implement.
pub const METHOD_NOT_FOUND: i64 = -32601;

/// A request with a numeric id.
pub fn request(id: u64, method: &str, params: Option<Value>) -> Value {
    let mut message = json!({ "jsonrpc": "2.0", "id": id, "method": method });
    if let (Some(params), Some(object)) = (params, message.as_object_mut()) {
        object.insert("params".to_string(), params);
    }
    message
}

/// A notification: a request without an id, which gets no answer.
pub fn notification(method: &str, params: Option<Value>) -> Value {
    let mut message = json!({ "jsonrpc": "2.0", "method": method });
    if let (Some(params), Some(object)) = (params, message.as_object_mut()) {
        object.insert("params".to_string(), params);
    }
    message
}

/// A successful response to request `id`.
pub fn response(id: Value, result: Value) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "result": result })
}

/// An error response to request `id`.
pub fn error_response(id: Value, code: i64, message: &str) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "error": { "code": code, "message": message } })
}

/// One message received from the other side.
#[derive(Debug, PartialEq)]
pub enum Incoming {
    /// The answer to one of our requests.
    Response {
        id: Value,
        outcome: Outcome,
    },
    /// A request the other side expects an answer to.
    Request {
        id: Value,
        method: String,
        params: Value,
    },
    Notification {
        method: String,
        params: Value,
    },
}

/// What a response carries.
#[derive(Debug, PartialEq)]
pub enum Outcome {
    Result(Value),
    Error { code: i64, message: String },
}

/// Sorts `message` (one parsed JSON value) into a response, request or notification; `Err`
/// says why it is not a JSON-RPC 2.0 message.
pub fn classify(message: Value) -> Result<Incoming, String> {
    let Value::Object(mut object) = message else {
        return Err("a JSON value that is not an object".to_string());
    };
    if object.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Err("a JSON object without `\"jsonrpc\": \"2.0\"`".to_string());
    }
    let id = object.remove("id");
    if let Some(method) = object.get("method").and_then(Value::as_str) {
        let method = method.to_string();
        return Ok(match id {
            Some(id) if !id.is_null() => Incoming::Request {
                id,
                method,
                params: object.remove("params").unwrap_or(Value::Null),
            },
            _ => Incoming::Notification {
                method,
                params: object.remove("params").unwrap_or(Value::Null),
            },
        });
    }
    let Some(id) = id else {
        return Err("a JSON-RPC message with neither `method` nor `id`".to_string());
    };
    if let Some(result) = object.remove("result") {
        return Ok(Incoming::Response {
            id,
            outcome: Outcome::Result(result),
        });
    }
    match object.remove("error") {
        Some(error) => Ok(Incoming::Response {
            id,
            outcome: Outcome::Error {
                code: error.get("code").and_then(Value::as_i64).unwrap_or(0),
                message: error
                    .get("message")
                    .and_then(Value::as_str)
                    .unwrap_or("(no message)")
                    .to_string(),
            },
        }),
        None => Err("a JSON-RPC response with neither `result` nor `error`".to_string()),
    }
}

/// The answer to a request from the server: `ping` gets an empty result, everything else
/// (sampling, roots, elicitation: capabilities dotpack does not offer) "method not found".
pub fn answer(id: Value, method: &str) -> Value {
    if method == "ping" {
        response(id, json!({}))
    } else {
        error_response(
            id,
            METHOD_NOT_FOUND,
            &format!("dotpack does not implement `{method}`"),
        )
    }
}

/// Whether response id `id` answers our request number `ours`.
pub fn is_id(id: &Value, ours: u64) -> bool {
    id.as_u64() == Some(ours) || id.as_str() == Some(ours.to_string().as_str())
}

/// `value` as JSON text with every object's keys sorted, recursively, and no spaces: the same
/// value always gives the same bytes whatever order it was built or received in.
pub fn canonical(value: &Value) -> String {
    let mut out = String::new();
    write_canonical(value, &mut out);
    out
}

fn write_canonical(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push('{');
            for (i, key) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(key.clone()).to_string());
                out.push(':');
                if let Some(v) = map.get(key) {
                    write_canonical(v, out);
                }
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_canonical(item, out);
            }
            out.push(']');
        }
        other => out.push_str(&other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_responses_requests_and_notifications() {
        let r = classify(json!({"jsonrpc": "2.0", "id": 3, "result": {"a": 1}}));
        assert_eq!(
            r,
            Ok(Incoming::Response {
                id: json!(3),
                outcome: Outcome::Result(json!({"a": 1}))
            })
        );
        let e =
            classify(json!({"jsonrpc": "2.0", "id": 3, "error": {"code": -1, "message": "no"}}));
        assert!(matches!(
            e,
            Ok(Incoming::Response {
                outcome: Outcome::Error { code: -1, .. },
                ..
            })
        ));
        let q = classify(json!({"jsonrpc": "2.0", "id": "x", "method": "ping"}));
        assert!(matches!(q, Ok(Incoming::Request { .. })));
        let n = classify(json!({"jsonrpc": "2.0", "method": "notifications/message"}));
        assert!(matches!(n, Ok(Incoming::Notification { .. })));
        assert!(classify(json!([1])).is_err());
        assert!(classify(json!({"id": 1, "result": 1})).is_err());
        assert!(classify(json!({"jsonrpc": "2.0", "id": 1})).is_err());
    }

    #[test]
    fn canonical_json_sorts_keys_at_every_level() {
        let a = json!({"b": [ {"y": 1, "x": 2} ], "a": "t\"q"});
        assert_eq!(canonical(&a), r#"{"a":"t\"q","b":[{"x":2,"y":1}]}"#);
    }

    #[test]
    fn ping_is_answered_and_other_requests_refused() {
        assert_eq!(answer(json!(1), "ping")["result"], json!({}));
        assert_eq!(
            answer(json!(1), "sampling/createMessage")["error"]["code"],
            json!(METHOD_NOT_FOUND)
        );
    }
}
