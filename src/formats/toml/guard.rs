//! The check run after every TOML edit: the new text parses, and its document equals the old
//! one with exactly the one entry changed. A missing container counts as an empty one.

use serde_json::{Map, Value};

use super::convert::{doc_to_json, expected_json};
use super::{Prepared, parse};
use crate::formats::FormatError;

pub(super) fn check(
    old: &Value,
    new_text: &str,
    path: &[&str],
    name: &str,
    written: Option<&Value>,
) -> Result<(), FormatError> {
    let prepared = Prepared::new(new_text)?;
    let new_doc =
        parse(&prepared.body).map_err(|e| failed(format!("result does not parse: {e}")))?;
    let new = doc_to_json(&new_doc);
    let expected = written.map(|v| expected_json(v, name)).transpose()?;
    compare(
        old.as_object(),
        new.as_object(),
        path,
        name,
        expected.as_ref(),
    )
    .map_err(failed)
}

/// Checks a batch's result: `new_text` parses, its container holds exactly `expected` (a
/// missing container counting as an empty one), and nothing outside the container changed.
pub(super) fn check_container(
    old: &Value,
    new_text: &str,
    path: &[&str],
    expected: &Map<String, Value>,
) -> Result<(), FormatError> {
    let prepared = Prepared::new(new_text)?;
    let new_doc =
        parse(&prepared.body).map_err(|e| failed(format!("result does not parse: {e}")))?;
    let new = doc_to_json(&new_doc);
    compare_container(old.as_object(), new.as_object(), path, expected).map_err(failed)
}

fn compare_container(
    old: Option<&Map<String, Value>>,
    new: Option<&Map<String, Value>>,
    path: &[&str],
    expected: &Map<String, Value>,
) -> Result<(), String> {
    let Some((key, rest)) = path.split_first() else {
        let empty = Map::new();
        return match new.unwrap_or(&empty) == expected {
            true => Ok(()),
            false => Err("the entries are not what was written".to_owned()),
        };
    };
    if others(old, key) != others(new, key) {
        return Err(format!("members other than `{key}` changed"));
    }
    compare_container(child(old, key), child(new, key), rest, expected)
}

fn child<'m>(map: Option<&'m Map<String, Value>>, key: &str) -> Option<&'m Map<String, Value>> {
    map?.get(key)?.as_object()
}

/// The members of `map` other than `key`.
fn others<'m>(map: Option<&'m Map<String, Value>>, key: &str) -> Vec<(&'m String, &'m Value)> {
    map.map(|m| m.iter().filter(|(k, _)| k.as_str() != key).collect())
        .unwrap_or_default()
}

fn failed(reason: String) -> FormatError {
    FormatError::GuardFailed { reason }
}

fn compare(
    old: Option<&Map<String, Value>>,
    new: Option<&Map<String, Value>>,
    path: &[&str],
    name: &str,
    expected: Option<&Value>,
) -> Result<(), String> {
    let (key, rest) = match path.split_first() {
        Some((key, rest)) => (*key, rest),
        None => (name, &[][..]),
    };
    let others = |m: Option<&Map<String, Value>>| -> Vec<(String, Value)> {
        m.map(|m| {
            m.iter()
                .filter(|(k, _)| k.as_str() != key)
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect()
        })
        .unwrap_or_default()
    };
    if others(old) != others(new) {
        return Err(format!("members other than `{key}` changed"));
    }
    let old_child = old.and_then(|m| m.get(key));
    let new_child = new.and_then(|m| m.get(key));
    if path.is_empty() {
        return match new_child == expected {
            true => Ok(()),
            false => Err(format!("entry `{name}` is not what was written")),
        };
    }
    compare(
        old_child.and_then(Value::as_object),
        new_child.and_then(Value::as_object),
        rest,
        name,
        expected,
    )
}
