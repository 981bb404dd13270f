//! Many edits of one TOML file from one parse: a run of upserts, or a run of removals, made on
//! one `toml_edit` document, rendered once and checked once.
//!
//! A document edited several times renders as the same edits made one by one (each on the text
//! the one before wrote) do, as long as nothing an edit reads of the document changes under it:
//! the blank-line style and the place new tables go (read once per run), and the layout
//! toml_edit gives items that have none of their own yet (a new table's blank line depends on
//! whether anything comes before it; an inline table's member on whether it is the last). So a
//! run ends, and the next starts from a parse of the text so far, after an upsert that could
//! change those: one that takes a table header away, writes into an inline-table container, or
//! adds the first table of a file where nothing comes before it. Removals read no layout, so a
//! run of them is one parse. Planning's batches (upserts, then removals) take two or three runs.

use std::collections::HashSet;

use super::{
    Layout, Loaded, Target, check, container_table_mut, no_container, outside,
    remove_created_levels, upsert_in,
};
use crate::{Container, Edit, FormatError, Op, Progress, entry_fields, guard};

/// [`crate::apply_ops`] for TOML.
/// `loaded`, when given, is `text` already parsed: the first run starts from a copy of it.
pub(crate) fn apply(
    text: &str,
    loaded: Option<&Loaded>,
    container: Container<'_>,
    ops: &[Op<'_>],
) -> Result<Edit, FormatError> {
    let mut progress = Progress::default();
    let mut current: Option<String> = None;
    let mut done = 0;
    while let Some(op) = ops.get(done) {
        let now = current.as_deref().unwrap_or(text);
        let parsed = match (&current, loaded) {
            (None, Some(loaded)) => loaded.clone(),
            _ => Loaded::new(now, container)?,
        };
        let (next, applied) = match op {
            Op::Upsert(..) => upserts(parsed, now, container, &ops[done..], &mut progress)?,
            Op::Remove(..) => removals(parsed, container, &ops[done..], &mut progress)?,
        };
        if next.is_some() {
            current = next;
        }
        done += applied.max(1);
    }
    Ok(progress.finish(current.unwrap_or_else(|| text.to_owned())))
}

/// Makes the upserts at the start of `ops` (at least one) on one document; returns the new text
/// and how many it made.
fn upserts(
    Loaded { prepared, mut doc }: Loaded,
    text: &str,
    container: Container<'_>,
    ops: &[Op<'_>],
    progress: &mut Progress,
) -> Result<(Option<String>, usize), FormatError> {
    let old = outside(&doc, container.path);
    let mut expected = guard::Changes::new(Loaded::entries_of(&doc, container));
    let layout = Layout::of(&doc, container.path);
    let first_in_file = layout.position.is_none() && doc.as_table().get_values().is_empty();
    let mut applied = 0;
    for op in ops {
        let Op::Upsert(name, value) = *op else {
            break;
        };
        let fields = entry_fields(value)?;
        let upserted = upsert_in(&mut doc, text, container, (name, value, fields), &layout)?;
        // `upsert_in` converted every field, refusing what TOML cannot hold; what is left reads
        // back as written (see `convert::expected_json`).
        expected.set(name, Some(value.clone()));
        progress.upserted(upserted.created);
        applied += 1;
        if upserted.relayout || (upserted.new_table && first_in_file) {
            break;
        }
    }
    let new_text = prepared.finish(&doc.to_string());
    check(&new_text, container, &old, &expected.into_vec())?;
    Ok((Some(new_text), applied))
}

/// Makes the removals at the start of `ops` on one document, up to the one that empties the
/// container (which may take back what was created with it); returns the new text (`None`:
/// unchanged) and how many it made.
fn removals(
    Loaded { prepared, mut doc }: Loaded,
    container: Container<'_>,
    ops: &[Op<'_>],
    progress: &mut Progress,
) -> Result<(Option<String>, usize), FormatError> {
    let old = outside(&doc, container.path);
    let mut expected = guard::Changes::new(Loaded::entries_of(&doc, container));
    let mut gone: HashSet<&str> = HashSet::new();
    let mut emptied_with = None;
    let mut applied = 0;
    for op in ops {
        let Op::Remove(name, created) = *op else {
            break;
        };
        applied += 1;
        progress.delete_file = false;
        if expected.set(name, None) {
            gone.insert(name);
            if expected.is_empty() {
                emptied_with = Some(progress.for_removal(created));
                break;
            }
        }
    }
    if gone.is_empty() {
        return Ok((None, applied));
    }
    let (target, _) = container_table_mut(doc.as_table_mut(), container.path)
        .ok_or_else(|| no_container(container))?;
    match target {
        Target::Table(t) => t.retain(|k, _| !gone.contains(k)),
        Target::Inline(t) => t.retain(|k, _| !gone.contains(k)),
    }
    if let Some(created) = emptied_with {
        remove_created_levels(doc.as_table_mut(), container.path, created.container_levels);
        if let Some(original) = created.file_content
            && doc.as_table().is_empty()
        {
            progress.delete_file = original.is_empty();
            return Ok((Some(original), applied));
        }
    }
    let new_text = prepared.finish(&doc.to_string());
    check(&new_text, container, &old, &expected.into_vec())?;
    Ok((Some(new_text), applied))
}
