//! The manifest's JSON Schema beside dotpack's state. `dotpack init` points a new manifest's
//! `#:schema` line at it (a path relative to the manifest, the same on every machine; see
//! [`crate::model::schema::directive`]), and every transaction puts there the schema of the
//! dotpack that ran it, so an editor reads the fields this dotpack knows, offline, from a file
//! nobody has to publish. `dotpack schema` prints it.

use std::path::Path;

/// The schema `tools/docgen` generates (a test keeps the file current).
pub const TEXT: &str = include_str!("../../docs/dotpack.schema.json");

/// Writes the schema into the state folder `state` unless it is there already. Best effort: an
/// editor aid never fails the command that wrote the files.
pub fn refresh(state: &Path) {
    let path = state.join(crate::model::schema::SCHEMA_FILE);
    if std::fs::read(&path).is_ok_and(|bytes| bytes == TEXT.as_bytes()) {
        return;
    }
    if let Err(e) = crate::util::fsutil::write_atomic(&path, TEXT.as_bytes()) {
        tracing::debug!(path = %path.display(), error = %e, "could not write the schema");
    }
}
