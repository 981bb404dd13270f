//! The check run after every edit, for every format: the new text parses again (with the
//! backend's full parser), everything outside the container reads as it did, and the container
//! holds exactly the entries the edit meant, in order. A missing container counts as an empty
//! one, so creating or removing the container the entries live in passes, and nothing else does.
//!
//! Backends compare what their parser reads (serde_json values), not bytes: the bytes outside an
//! edit are copied by construction, and this check catches an edit that reached past them or wrote
//! something that reads back differently.

use serde_json::Value;

use super::{Container, Format, FormatError, Parse};

/// What a document holds outside the container at a path: at each level down to it, the members
/// other than the next key of the path, in order (a missing level holds none).
pub(crate) type Outside = Vec<Vec<(String, Value)>>;

/// The entries a container holds after setting `name` to `value` (`None`: removing it): a new
/// name goes at the end, an existing one stays where it stands.
pub(crate) fn with_change(
    mut entries: Vec<(String, Value)>,
    name: &str,
    value: Option<Value>,
) -> Vec<(String, Value)> {
    let at = entries.iter().position(|(n, _)| n == name);
    match (at, value) {
        (Some(i), Some(value)) => entries[i].1 = value,
        (None, Some(value)) => entries.push((name.to_owned(), value)),
        (Some(i), None) => {
            entries.remove(i);
        }
        (None, None) => {}
    }
    entries
}

/// Checks `new_text`, the result of an edit of a document whose [`super::Backend::outside`] was
/// `outside`: it parses as `B`, reads the same outside the container, and its container holds
/// exactly `expected`.
pub(crate) fn check<'n, B: Parse<'n>>(
    format: Format,
    new_text: &'n str,
    container: Container<'n>,
    outside: &Outside,
    expected: &[(String, Value)],
) -> Result<(), FormatError> {
    let new = B::reparse(format, new_text, container)
        .map_err(|e| failed(format!("result does not parse: {e}")))?;
    if new.outside() != *outside {
        return Err(failed(format!(
            "members outside `{}` changed",
            container.display()
        )));
    }
    compare(&new.entries(), expected).map_err(failed)
}

fn compare(got: &[(String, Value)], expected: &[(String, Value)]) -> Result<(), String> {
    if got.len() != expected.len() {
        return Err(format!(
            "the container holds {} entries instead of {}",
            got.len(),
            expected.len()
        ));
    }
    for ((name, value), (want, want_value)) in got.iter().zip(expected) {
        if name != want {
            return Err(format!("entry `{name}` stands where `{want}` should"));
        }
        if value != want_value {
            return Err(format!("entry `{name}` is not what was written"));
        }
    }
    Ok(())
}

fn failed(reason: String) -> FormatError {
    FormatError::GuardFailed { reason }
}
