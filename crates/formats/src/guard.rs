//! The check run after every edit, for every format: the new text parses again (with the
//! backend's full parser), everything outside the container reads as it did, and the container
//! holds exactly the entries the edit meant, in order. A missing container counts as an empty
//! one, so creating or removing the container the entries live in passes, and nothing else does.
//!
//! Backends compare what their parser reads (serde_json values), not bytes: the bytes outside an
//! edit are copied by construction, and this check catches an edit that reached past them or wrote
//! something that reads back differently.

use std::collections::HashMap;

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

/// The entries a container holds after a run of edits, kept as [`with_change`] keeps them, each
/// edit found by name in constant time: a batch of `n` edits costs `n`, not `n²`.
pub(crate) struct Changes {
    /// In container order; a removed entry leaves a hole, so the places of the others stand.
    entries: Vec<Option<(String, Value)>>,
    /// Where each live name stands (the first of its name, as [`with_change`] finds it).
    places: HashMap<String, usize>,
    /// Live entries whose name an earlier entry also holds: none in a container a parser read
    /// (names are unique there), but kept exact whatever the input.
    shadowed: usize,
}

impl Changes {
    pub(crate) fn new(entries: Vec<(String, Value)>) -> Self {
        let mut places = HashMap::with_capacity(entries.len());
        let mut shadowed = 0;
        for (i, (name, _)) in entries.iter().enumerate() {
            if places.contains_key(name.as_str()) {
                shadowed += 1;
            } else {
                places.insert(name.clone(), i);
            }
        }
        Changes {
            entries: entries.into_iter().map(Some).collect(),
            places,
            shadowed,
        }
    }

    /// How many entries the container holds.
    pub(crate) fn len(&self) -> usize {
        self.places.len() + self.shadowed
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// [`with_change`] in place: sets `name` to `value`, or removes it (`None`). Returns whether
    /// the container held `name`.
    pub(crate) fn set(&mut self, name: &str, value: Option<Value>) -> bool {
        if self.shadowed > 0 {
            return self.set_slowly(name, value);
        }
        match (self.places.get(name).copied(), value) {
            (Some(i), Some(value)) => {
                if let Some(entry) = &mut self.entries[i] {
                    entry.1 = value;
                }
                true
            }
            (None, Some(value)) => {
                self.places.insert(name.to_owned(), self.entries.len());
                self.entries.push(Some((name.to_owned(), value)));
                false
            }
            (Some(i), None) => {
                self.entries[i] = None;
                self.places.remove(name);
                true
            }
            (None, None) => false,
        }
    }

    /// [`Self::set`] where names repeat: exactly [`with_change`] on the entries.
    fn set_slowly(&mut self, name: &str, value: Option<Value>) -> bool {
        let held = self.places.contains_key(name);
        *self = Changes::new(with_change(self.take_entries(), name, value));
        held
    }

    fn take_entries(&mut self) -> Vec<(String, Value)> {
        std::mem::take(&mut self.entries)
            .into_iter()
            .flatten()
            .collect()
    }

    /// The entries, in order.
    pub(crate) fn into_vec(mut self) -> Vec<(String, Value)> {
        self.take_entries()
    }
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
