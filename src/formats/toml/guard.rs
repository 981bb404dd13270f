//! The check run after every TOML edit: the new text parses, and its document equals the old
//! one with exactly the one entry changed. A missing container counts as an empty one.

use serde_json::{Map, Value};

use toml_edit::{DocumentMut, Item, TableLike, Value as TomlValue};

use super::convert::{doc_to_json, expected_json, item_to_json, value_to_json};
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

/// What a document holds outside the container at a path: at each level down to it, the
/// members other than the next key of the path, in order (a missing level holds none).
pub(super) type Outside = Vec<Vec<(String, Value)>>;

/// [`Outside`] of `doc` for the container at `path`.
pub(super) fn outside(doc: &DocumentMut, path: &[&str]) -> Outside {
    let mut levels = Vec::with_capacity(path.len());
    let mut table: Option<&dyn TableLike> = Some(doc.as_table());
    for key in path {
        let others = table.map(|t| {
            t.iter()
                .filter(|(k, _)| k != key)
                .map(|(k, item)| (k.to_owned(), item_to_json(item)))
                .collect()
        });
        levels.push(others.unwrap_or_default());
        table = table.and_then(|t| t.get(key)).and_then(Item::as_table_like);
    }
    levels
}

/// Checks a batch's result: `new_text` parses, nothing outside the container changed (`old`,
/// from the document before), and the container holds exactly `expected` (a missing container
/// counting as an empty one).
pub(super) fn check_container(
    old: &Outside,
    new_text: &str,
    path: &[&str],
    expected: &Map<String, Value>,
) -> Result<(), FormatError> {
    let prepared = Prepared::new(new_text)?;
    let new_doc =
        parse(&prepared.body).map_err(|e| failed(format!("result does not parse: {e}")))?;
    if outside(&new_doc, path) != *old {
        return Err(failed(format!(
            "members outside `{}` changed",
            path.join(".")
        )));
    }
    let container = path
        .iter()
        .try_fold(new_doc.as_item(), |item, key| {
            item.as_table_like()?.get(key)
        })
        .and_then(Item::as_table_like);
    let holds = match container {
        None => expected.is_empty(),
        Some(t) => {
            t.len() == expected.len()
                && t.iter()
                    .all(|(k, item)| expected.get(k).is_some_and(|v| item_reads_as(item, v)))
        }
    };
    match holds {
        true => Ok(()),
        false => Err(failed("the entries are not what was written".to_owned())),
    }
}

/// Whether `item` reads as `value`: `item_to_json(item) == *value`, without building the JSON.
fn item_reads_as(item: &Item, value: &Value) -> bool {
    match (item, value) {
        (Item::Value(v), _) => value_reads_as(v, value),
        (Item::Table(t), Value::Object(map)) => {
            t.len() == map.len()
                && t.iter()
                    .all(|(k, i)| map.get(k).is_some_and(|v| item_reads_as(i, v)))
        }
        _ => item_to_json(item) == *value,
    }
}

fn value_reads_as(toml: &TomlValue, value: &Value) -> bool {
    match (toml, value) {
        (TomlValue::String(s), Value::String(t)) => s.value() == t,
        (TomlValue::Boolean(b), Value::Bool(c)) => b.value() == c,
        (TomlValue::Array(a), Value::Array(items)) => {
            a.len() == items.len() && a.iter().zip(items).all(|(x, v)| value_reads_as(x, v))
        }
        (TomlValue::InlineTable(t), Value::Object(map)) => {
            t.len() == map.len()
                && t.iter()
                    .all(|(k, x)| map.get(k).is_some_and(|v| value_reads_as(x, v)))
        }
        _ => value_to_json(toml) == *value,
    }
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

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_batch_result_that_changed_anything_else_is_refused() {
        let path: &[&str] = &["mcp_servers"];
        let before = "model = \"o3\"\n[mcp_servers.a]\ncommand = \"a\"\n";
        let old = outside(&parse(before).unwrap(), path);
        let mut expected = Map::new();
        expected.insert("a".into(), json!({"command": "a"}));
        expected.insert("b".into(), json!({"command": "b", "args": ["x"]}));
        let check = |text: &str| check_container(&old, text, path, &expected);
        let entries =
            "[mcp_servers.a]\ncommand = \"a\"\n[mcp_servers.b]\ncommand = \"b\"\nargs = [\"x\"]\n";
        assert!(check(&format!("model = \"o3\"\n{entries}")).is_ok());
        let refused = [
            format!("model = \"o4\"\n{entries}"),
            format!("model = \"o3\"\nx = 1\n{entries}"),
            format!("model = \"o3\"\n{entries}[mcp_servers.c]\ncommand = \"c\"\n"),
            "model = \"o3\"\n[mcp_servers.a]\ncommand = \"a\"\n".to_owned(),
            format!("model = \"o3\"\n{}", entries.replace("[\"x\"]", "[\"y\"]")),
            format!("model = \"o3\"\n{entries}[").to_owned(),
        ];
        for text in &refused {
            assert!(
                matches!(check(text), Err(FormatError::GuardFailed { .. })),
                "{text}"
            );
        }
        let mut none = Map::new();
        assert!(check_container(&old, "model = \"o3\"\n", path, &none).is_ok());
        none.insert("a".into(), json!({"command": "a"}));
        assert!(check_container(&old, "model = \"o3\"\n", path, &none).is_err());
    }
}
