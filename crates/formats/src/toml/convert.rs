//! Conversions between serde_json values and toml_edit items, and in-place table updates.

use serde_json::{Map, Value};
use toml_edit::{Array, InlineTable, Item, Table, Value as TomlValue};

use crate::FormatError;

/// A new `[container.NAME]` table: plain fields first, then object fields as sub-tables
/// (`[mcp_servers.NAME.env]`), the way `codex mcp add` writes them.
pub(super) fn new_entry_table(
    fields: &Map<String, Value>,
    key_path: &str,
    blank_lines: bool,
) -> Result<Table, FormatError> {
    let mut table = Table::new();
    if !blank_lines {
        table.decor_mut().set_prefix("");
    }
    for (key, value) in fields.iter().filter(|(_, v)| !v.is_object()) {
        let path = format!("{key_path}.{key}");
        table.insert(key, Item::Value(to_toml_value(value, &path)?));
    }
    for (key, value) in fields {
        if let Value::Object(sub) = value {
            let path = format!("{key_path}.{key}");
            table.insert(key, Item::Table(new_entry_table(sub, &path, blank_lines)?));
        }
    }
    Ok(table)
}

/// Updates `table` to hold exactly `fields`, leaving every key whose value does not change (and
/// its comments and formatting) as it is; new keys go at the end.
pub(super) fn update_table(
    table: &mut Table,
    fields: &Map<String, Value>,
    key_path: &str,
    blank_lines: bool,
) -> Result<(), FormatError> {
    let stale: Vec<String> = table
        .iter()
        .map(|(k, _)| k.to_owned())
        .filter(|k| !fields.contains_key(k))
        .collect();
    for key in stale {
        table.remove(&key);
    }
    for (key, value) in fields {
        let path = format!("{key_path}.{key}");
        match (table.get_mut(key), value) {
            (Some(Item::Table(sub)), Value::Object(m)) => update_table(sub, m, &path, blank_lines)?,
            (Some(Item::Value(old)), _) => {
                if value_to_json(old) != expected_json(value, &path)? {
                    let mut new = to_toml_value(value, &path)?;
                    *new.decor_mut() = old.decor().clone();
                    *old = new;
                }
            }
            (Some(item), _) => *item = Item::Value(to_toml_value(value, &path)?),
            (None, Value::Object(m)) => {
                table.insert(key, Item::Table(new_entry_table(m, &path, blank_lines)?));
            }
            (None, _) => {
                table.insert(key, Item::Value(to_toml_value(value, &path)?));
            }
        }
    }
    Ok(())
}

/// A TOML value for a JSON value. TOML has no null, and integers stop at i64.
pub(crate) fn to_toml_value(value: &Value, key_path: &str) -> Result<TomlValue, FormatError> {
    let unrepresentable = |found| FormatError::Unrepresentable {
        key_path: key_path.to_owned(),
        found,
        format: "TOML",
    };
    Ok(match value {
        Value::Null => return Err(unrepresentable("null")),
        Value::Bool(b) => TomlValue::from(*b),
        Value::String(s) => TomlValue::from(s.as_str()),
        Value::Number(n) => match (n.as_i64(), n.as_f64()) {
            (Some(i), _) => TomlValue::from(i),
            (None, Some(f)) if n.is_f64() => TomlValue::from(f),
            _ => return Err(unrepresentable("an integer larger than 64 bits")),
        },
        Value::Array(items) => {
            let mut array = Array::new();
            for (i, item) in items.iter().enumerate() {
                array.push(to_toml_value(item, &format!("{key_path}[{i}]"))?);
            }
            TomlValue::Array(array)
        }
        Value::Object(map) => {
            let mut table = InlineTable::new();
            for (k, v) in map {
                table.insert(k, to_toml_value(v, &format!("{key_path}.{k}"))?);
            }
            TomlValue::InlineTable(table)
        }
    })
}

/// What `value` reads back as after a trip through TOML (e.g. for comparing in the guard). For a
/// value [`to_toml_value`] accepts, that is the value itself: strings, booleans, arrays and
/// tables as they are, integers as `i64`, numbers that are not integers as finite `f64`.
pub(crate) fn expected_json(value: &Value, key_path: &str) -> Result<Value, FormatError> {
    Ok(value_to_json(&to_toml_value(value, key_path)?))
}

pub(super) fn item_to_json(item: &Item) -> Value {
    match item {
        Item::None => Value::Null,
        Item::Value(v) => value_to_json(v),
        Item::Table(t) => Value::Object(
            t.iter()
                .map(|(k, i)| (k.to_owned(), item_to_json(i)))
                .collect(),
        ),
        Item::ArrayOfTables(a) => Value::Array(
            a.iter()
                .map(|t| {
                    Value::Object(
                        t.iter()
                            .map(|(k, i)| (k.to_owned(), item_to_json(i)))
                            .collect(),
                    )
                })
                .collect(),
        ),
    }
}

pub(super) fn value_to_json(value: &TomlValue) -> Value {
    match value {
        TomlValue::String(s) => Value::String(s.value().clone()),
        TomlValue::Integer(i) => Value::from(*i.value()),
        TomlValue::Float(f) => serde_json::Number::from_f64(*f.value())
            .map_or_else(|| Value::String(f.to_string()), Value::Number),
        TomlValue::Boolean(b) => Value::Bool(*b.value()),
        TomlValue::Datetime(d) => Value::String(d.value().to_string()),
        TomlValue::Array(a) => Value::Array(a.iter().map(value_to_json).collect()),
        TomlValue::InlineTable(t) => Value::Object(
            t.iter()
                .map(|(k, v)| (k.to_owned(), value_to_json(v)))
                .collect(),
        ),
    }
}
