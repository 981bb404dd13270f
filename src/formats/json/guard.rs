//! The check run after every JSON edit: the new text parses, and its document equals the old one
//! with exactly the one entry changed. A missing container counts as an empty one, so creating
//! or removing the container the entry lives in passes, and nothing else does.

use jsonc_parser::ast::{Object, ObjectProp, Value as Ast};
use serde_json::Value;

use super::{parse, to_json};
use crate::formats::{Format, FormatError};

/// Checks that `new_region` (the new text of the object `old` was) is one object, equal to `old`
/// except for entry `name` under the key path `path` (relative to that object).
pub(in crate::formats) fn check(
    format: Format,
    old: &Object<'_>,
    new_region: &str,
    path: &[&str],
    name: &str,
    expected: Option<&Value>,
) -> Result<(), FormatError> {
    let new = one_object(format, new_region)?;
    compare(Some(old), Some(&new), path, name, expected).map_err(failed)
}

/// `region` parsed again: one object spanning all of it, or the check fails.
fn one_object(format: Format, region: &str) -> Result<Object<'_>, FormatError> {
    match parse(format, region).map_err(|e| failed(format!("result does not parse: {e}")))? {
        Some(Ast::Object(o)) if o.range.start == 0 && o.range.end == region.len() => Ok(o),
        _ => Err(failed(
            "the edited object is no longer one object".to_owned(),
        )),
    }
}

/// What a member of an edited container must hold afterwards.
pub(super) enum Expected<'x, 'a, 'v> {
    /// Untouched: the same value as before.
    Same(&'x Ast<'a>),
    /// Written: a value reading back as this.
    Written(&'v Value),
}

/// Checks that `new_region` (the new text of a container a batch edited) is one object whose
/// members are exactly `expected` (`len` of them), in order.
pub(super) fn check_members<'e, 'x: 'e, 'a: 'x, 'v: 'e>(
    format: Format,
    new_region: &str,
    expected: impl Iterator<Item = (&'e str, &'e Expected<'x, 'a, 'v>)>,
    len: usize,
) -> Result<(), FormatError> {
    let new = one_object(format, new_region)?;
    if new.properties.len() != len {
        return Err(failed(format!(
            "the container holds {} entries instead of {len}",
            new.properties.len()
        )));
    }
    for (prop, (name, want)) in new.properties.iter().zip(expected) {
        if prop.name.as_str() != name {
            return Err(failed(format!(
                "entry `{}` stands where `{name}` should",
                prop.name.as_str()
            )));
        }
        let ok = match want {
            Expected::Same(old) => same(old, &prop.value),
            Expected::Written(value) => reads_as(&prop.value, value),
        };
        if !ok {
            return Err(failed(format!("entry `{name}` is not what was written")));
        }
    }
    Ok(())
}

fn failed(reason: String) -> FormatError {
    FormatError::GuardFailed { reason }
}

fn compare(
    old: Option<&Object<'_>>,
    new: Option<&Object<'_>>,
    path: &[&str],
    name: &str,
    expected: Option<&Value>,
) -> Result<(), String> {
    let (key, rest) = match path.split_first() {
        Some((key, rest)) => (*key, rest),
        None => (name, &[][..]),
    };
    if !same_members_except(old, new, key) {
        return Err(format!("members other than `{key}` changed"));
    }
    let old_child = old.and_then(|o| o.get(key));
    let new_child = new.and_then(|o| o.get(key));
    if path.is_empty() {
        let got = new_child.map(|p| to_json(&p.value));
        return match got.as_ref() == expected {
            true => Ok(()),
            false => Err(format!("entry `{name}` is not what was written")),
        };
    }
    let old_child = child_object(old_child, key)?;
    let new_child = child_object(new_child, key)?;
    compare(old_child, new_child, rest, name, expected)
}

fn child_object<'x, 'a>(
    prop: Option<&'x ObjectProp<'a>>,
    key: &str,
) -> Result<Option<&'x Object<'a>>, String> {
    match prop.map(|p| &p.value) {
        None => Ok(None),
        Some(Ast::Object(o)) => Ok(Some(o)),
        Some(_) => Err(format!("`{key}` is not an object")),
    }
}

fn same_members_except(old: Option<&Object<'_>>, new: Option<&Object<'_>>, key: &str) -> bool {
    let others = |o: Option<&Object<'_>>| {
        o.map(|o| {
            o.properties
                .iter()
                .filter(|p| p.name.as_str() != key)
                .count()
        })
        .unwrap_or(0)
    };
    if others(old) != others(new) {
        return false;
    }
    let (Some(old), Some(new)) = (old, new) else {
        return true;
    };
    let old = old.properties.iter().filter(|p| p.name.as_str() != key);
    let new = new.properties.iter().filter(|p| p.name.as_str() != key);
    old.zip(new)
        .all(|(a, b)| a.name.as_str() == b.name.as_str() && same(&a.value, &b.value))
}

/// Whether `ast` reads as `value`: `to_json(ast) == *value`, without building the JSON.
fn reads_as(ast: &Ast<'_>, value: &Value) -> bool {
    match (ast, value) {
        (Ast::StringLit(s), Value::String(t)) => s.value == t.as_str(),
        (Ast::BooleanLit(b), Value::Bool(c)) => b.value == *c,
        (Ast::NullKeyword(_), Value::Null) => true,
        (Ast::Array(a), Value::Array(items)) => {
            a.elements.len() == items.len()
                && a.elements.iter().zip(items).all(|(a, v)| reads_as(a, v))
        }
        // Distinct names (a repeated one keeps its last value in `to_json`), each reading as the
        // map's value: then the maps are equal.
        (Ast::Object(o), Value::Object(map))
            if o.properties.len() == map.len() && o.properties.len() <= 32 =>
        {
            o.properties.iter().enumerate().all(|(i, p)| {
                let name = p.name.as_str();
                o.properties[..i].iter().all(|q| q.name.as_str() != name)
                    && map.get(name).is_some_and(|v| reads_as(&p.value, v))
            })
        }
        (Ast::StringLit(_) | Ast::BooleanLit(_) | Ast::NullKeyword(_) | Ast::Array(_), _) => false,
        _ => to_json(ast) == *value,
    }
}

/// Structural equality of two AST values, ignoring positions; numbers compare by their text,
/// which is stricter than by value and right for bytes dotpack never touches.
fn same(a: &Ast<'_>, b: &Ast<'_>) -> bool {
    match (a, b) {
        (Ast::StringLit(x), Ast::StringLit(y)) => x.value == y.value,
        (Ast::NumberLit(x), Ast::NumberLit(y)) => x.value == y.value,
        (Ast::BooleanLit(x), Ast::BooleanLit(y)) => x.value == y.value,
        (Ast::NullKeyword(_), Ast::NullKeyword(_)) => true,
        (Ast::Array(x), Ast::Array(y)) => {
            x.elements.len() == y.elements.len()
                && x.elements.iter().zip(&y.elements).all(|(a, b)| same(a, b))
        }
        (Ast::Object(x), Ast::Object(y)) => {
            x.properties.len() == y.properties.len()
                && x.properties
                    .iter()
                    .zip(&y.properties)
                    .all(|(a, b)| a.name.as_str() == b.name.as_str() && same(&a.value, &b.value))
        }
        _ => false,
    }
}
