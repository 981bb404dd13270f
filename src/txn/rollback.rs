//! Planning a rollback: the writes that give every file a generation touched its state right
//! after generation K. A file still as dotpack last left it gets K's exact bytes. A host file
//! someone else edited since gets dotpack's entries only: each entry that differs between
//! dotpack's last state and K's is set (or removed) in the file's current bytes through the
//! format backend, so the other edits stay. Rollback is not destructive: it becomes a new
//! generation, so it can itself be rolled back.

use std::collections::BTreeSet;
use std::path::Path;

use anyhow::{Context, Result, bail};

use super::generation::{self, FileState, Generation, PackageChange};
use super::store::{self, Store};
use super::{FileRecord, Places};
use crate::formats::{self, Created};
use crate::txn::files::FileWrite;

/// What a rollback writes.
#[derive(Debug)]
pub struct RollbackPlan {
    pub writes: Vec<FileWrite>,
    /// Host files merged entry by entry because someone else edited them.
    pub merged: Vec<String>,
    /// dotpack's own files that someone else edited, restored to K's bytes anyway.
    pub overwritten: Vec<String>,
    pub packages: Vec<PackageChange>,
}

/// The generation `dotpack rollback` restores by default: the one before the newest.
pub fn default_target(generations: &[Generation]) -> Result<u64> {
    match generations.last() {
        None => bail!(
            "there are no generations yet: dotpack records one each time a command changes files"
        ),
        Some(newest) => Ok(newest.id.saturating_sub(1)),
    }
}

/// Plans restoring the state right after generation `target` (0: before the first), from
/// `generations` as [`super::Places::generations`] loaded and checked them. Files are named
/// from their paths ([`super::Boundary::display`]).
pub fn plan(places: &Places, generations: &[Generation], target: u64) -> Result<RollbackPlan> {
    let state = &places.state;
    let (Some(oldest), Some(newest)) = (generations.first(), generations.last()) else {
        bail!("there are no generations yet");
    };
    if target > newest.id {
        crate::bail_help!(
            help = "`dotpack history` lists them",
            "there is no generation {target}; the newest is {}",
            newest.id
        );
    }
    if target + 1 < oldest.id {
        crate::bail_help!(
            help = "raise `[settings] keep_generations` to keep more",
            "generation {target} was pruned; generations {}..={} are kept",
            oldest.id.saturating_sub(1),
            newest.id
        );
    }
    let store = Store::new(state);
    let mut out = RollbackPlan {
        writes: Vec::new(),
        merged: Vec::new(),
        overwritten: Vec::new(),
        packages: Vec::new(),
    };
    for (path, file) in generation::states_at(generations, target) {
        let display = places.boundary.display(&path);
        // Values `--resolve-env` wrote are compared, merged and planned as their markers.
        let fence = places.boundary.restore_fence(state, &file.record);
        let current = file
            .record
            .comparable(super::recover::read_regular(&path, fence.as_ref())?);
        let current_hash = current.as_deref().map(store::hash);
        if current_hash == file.at_k {
            continue;
        }
        let current = current
            .map(String::from_utf8)
            .transpose()
            .with_context(|| format!("{} is not UTF-8 text", path.display()))?;
        let wanted = text(&store, file.at_k.as_deref())?;
        let writes = later_writes(generations, &path, target);
        let after = if current_hash == file.latest && !edited_between(&writes, &file) {
            wanted
        } else if let Some(host) = &file.record.host {
            // Merged into the file as it is now; a file that is gone is merged into nothing.
            out.merged.push(display.clone());
            let now = current.as_deref().unwrap_or_default();
            let merged = merge(&store, host, &file, &writes, now, &display)?;
            (current.is_some() || !merged.is_empty()).then_some(merged)
        } else {
            out.overwritten.push(display.clone());
            wanted
        };
        if path.file_name() == Some(std::ffi::OsStr::new(crate::model::lock::LOCK_FILE))
            && file.record.host.is_none()
        {
            out.packages = package_changes(&path, current.as_deref(), after.as_deref());
        }
        out.writes.push(FileWrite {
            path: path.clone(),
            display,
            host: file.record.host.clone(),
            before: current.map(Into::into),
            after: after.map(Into::into),
            remove_dirs: 0,
            resolved: file.record.resolved.clone(),
            fence,
        });
    }
    Ok(out)
}

fn text(store: &Store, hash: Option<&str>) -> Result<Option<String>> {
    hash.map(|h| String::from_utf8(store.get(h)?).context("a snapshot is not UTF-8 text"))
        .transpose()
}

/// The records of the generations after `target` that wrote the file at `path`, oldest first.
fn later_writes<'g>(
    generations: &'g [Generation],
    path: &Path,
    target: u64,
) -> Vec<&'g FileRecord> {
    generations
        .iter()
        .filter(|g| g.id > target)
        .flat_map(|g| g.files.iter().filter(|f| f.path == path))
        .collect()
}

/// Whether someone else changed the file between two of dotpack's writes after the target: a
/// write found other bytes than the previous one left. Its bytes at the target would undo that
/// edit too, so the file is merged instead.
fn edited_between(writes: &[&FileRecord], file: &FileState) -> bool {
    let mut left = file.at_k.as_ref();
    for write in writes {
        if write.before.as_ref() != left {
            return true;
        }
        left = write.after.as_ref();
    }
    false
}

/// Applies, to `now`, the change of every entry dotpack itself changed after the target (in
/// `writes`) whose state differs between dotpack's last write and the target. Entries someone
/// else added, changed or removed stay as they are now.
fn merge(
    store: &Store,
    host: &str,
    file: &FileState,
    writes: &[&FileRecord],
    now: &str,
    display: &str,
) -> Result<String> {
    let Some(adapter) = crate::model::hosts::adapter(host) else {
        bail!("{display}: unknown host `{host}` in the generation record");
    };
    let (format, container) = (adapter.format, adapter.container);
    let entries = |text: Option<String>| -> Result<Vec<(String, serde_json::Value)>> {
        match text {
            None => Ok(Vec::new()),
            Some(t) => formats::list_entries(format, &t, container)
                .with_context(|| format!("{display}: a snapshot does not parse")),
        }
    };
    let last = entries(text(store, file.latest.as_deref())?)?;
    let wanted = entries(text(store, file.at_k.as_deref())?)?;
    let find = |list: &[(String, serde_json::Value)], name: &str| {
        list.iter().find(|(n, _)| n == name).map(|(_, v)| v.clone())
    };
    let mut touched: BTreeSet<String> = BTreeSet::new();
    for write in writes {
        let before = entries(text(store, write.before.as_deref())?)?;
        let after = entries(text(store, write.after.as_deref())?)?;
        for (name, _) in before.iter().chain(&after) {
            if find(&before, name) != find(&after, name) {
                touched.insert(name.clone());
            }
        }
    }
    let mut text = now.to_string();
    for name in &touched {
        let (was, want) = (find(&last, name), find(&wanted, name));
        if was == want {
            continue;
        }
        let edit = match &want {
            Some(value) => formats::upsert_entry(format, &text, container, name, value),
            None => formats::remove_entry(format, &text, container, name, &Created::default()),
        }
        .map_err(|e| anyhow::anyhow!("{display}: {e}"))?;
        text = edit.text;
    }
    Ok(text)
}

fn package_changes(path: &Path, now: Option<&str>, then: Option<&str>) -> Vec<PackageChange> {
    let parse = |t: Option<&str>| t.and_then(|t| crate::model::lock::parse(path, t).ok());
    let (now, then) = (parse(now), parse(then));
    match then {
        Some(then) => crate::model::lock::changes::lock_changes(now.as_ref(), &then)
            .iter()
            .map(crate::model::lock::changes::Change::record)
            .collect(),
        None => now
            .iter()
            .flat_map(|l| &l.packages)
            .map(|p| PackageChange {
                name: p.name.clone(),
                change: "removed".into(),
                from: Some(p.version.to_string()),
                to: None,
            })
            .collect(),
    }
}
