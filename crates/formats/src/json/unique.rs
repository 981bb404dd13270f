//! Duplicate keys. JSON allows them syntactically, but every reader the hosts use (Node's
//! `JSON.parse`, Python's `json`, serde_json in its default map) keeps only the last one. An edit
//! of the first would be invisible to the host while dotpack's own listing saw it, so a file with
//! a duplicate key on the container's path, or a server name twice in the container, is refused.

use std::collections::HashMap;

use jsonc_parser::ast::{Object, ObjectProp, Value as Ast};

use crate::FormatError;
use crate::text::line_column;

/// Checks that each key of `path` appears once in its object, and each name once in the
/// container at `path`. `body` is the text `root` was parsed from (BOM removed). Objects off the
/// path are not looked at, and a key on the path holding something else than an object ends the
/// walk (the caller reports that).
pub(super) fn check(body: &str, root: Option<&Ast<'_>>, path: &[&str]) -> Result<(), FormatError> {
    let Some(Ast::Object(root)) = root else {
        return Ok(());
    };
    let mut obj = root;
    for (depth, key) in path.iter().enumerate() {
        let mut found = obj.properties.iter().filter(|p| p.name.as_str() == *key);
        let Some(first) = found.next() else {
            return Ok(());
        };
        if let Some(second) = found.next() {
            return Err(duplicate(body, path[..=depth].join("."), first, second));
        }
        let Ast::Object(child) = &first.value else {
            return Ok(());
        };
        obj = child;
    }
    check_names(body, obj, path)
}

/// Every member name of the container once.
fn check_names(body: &str, container: &Object<'_>, path: &[&str]) -> Result<(), FormatError> {
    let mut seen: HashMap<&str, &ObjectProp<'_>> = HashMap::new();
    for prop in &container.properties {
        if let Some(first) = seen.insert(prop.name.as_str(), prop) {
            let key_path = path
                .iter()
                .copied()
                .chain([prop.name.as_str()])
                .collect::<Vec<_>>()
                .join(".");
            return Err(duplicate(body, key_path, first, prop));
        }
    }
    Ok(())
}

fn duplicate(
    body: &str,
    key_path: String,
    first: &ObjectProp<'_>,
    second: &ObjectProp<'_>,
) -> FormatError {
    FormatError::DuplicateKey {
        key_path,
        first_line: line_column(body, first.range.start).0,
        second_line: line_column(body, second.range.start).0,
    }
}
