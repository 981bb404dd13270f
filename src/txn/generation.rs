//! Generations: one JSON record per committed transaction, `<state>/generations/NNNNNN.json`,
//! never changed once written. A record names every file the transaction touched with the
//! snapshot hashes of its bytes before and after, so the state of any file "right after
//! generation K" can be read back from the store.

use crate::model::lock::changes::Change;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use serde::{Deserialize, Serialize};

use super::FileRecord;

/// One package's change in a generation.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PackageChange {
    pub name: String,
    /// `added`, `removed`, `updated` or `repinned` (same version, new archive).
    pub change: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to: Option<String>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Generation {
    pub id: u64,
    /// UTC, RFC 3339.
    pub time: String,
    pub command: Vec<String>,
    /// Set when this generation is a rollback: the generation whose state it restored.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rollback_to: Option<u64>,
    pub files: Vec<FileRecord>,
    #[serde(default)]
    pub packages: Vec<PackageChange>,
    /// Files a rollback merged entry by entry because someone else had edited them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub merged: Vec<String>,
}

impl Generation {
    /// A one-line summary for `dotpack history`.
    pub fn summary(&self) -> String {
        let mut parts: Vec<String> = self
            .packages
            .iter()
            .map(|p| match (p.change.as_str(), &p.from, &p.to) {
                ("added", _, Some(to)) => format!("+{} {to}", p.name),
                ("removed", Some(from), _) => format!("-{} {from}", p.name),
                (_, Some(from), Some(to)) => format!("{} {from} -> {to}", p.name),
                _ => p.name.clone(),
            })
            .collect();
        if let Some(k) = self.rollback_to {
            parts.insert(0, format!("state of generation {k}"));
        }
        parts.push(format!(
            "{} file{}",
            self.files.len(),
            if self.files.len() == 1 { "" } else { "s" }
        ));
        parts.join(", ")
    }
}

fn dir(state: &Path) -> PathBuf {
    state.join("generations")
}

fn file_name(id: u64) -> String {
    format!("{id:06}.json")
}

/// The path of generation `id`'s record.
pub fn record_path(state: &Path, id: u64) -> PathBuf {
    dir(state).join(file_name(id))
}

/// Whether `generations/` is a real folder; a symbolic link (or a file) there is an error,
/// never followed. `Ok(false)`: it does not exist.
fn real_dir(state: &Path) -> Result<bool> {
    let dir = dir(state);
    match std::fs::symlink_metadata(&dir) {
        Ok(meta) if meta.file_type().is_dir() => Ok(true),
        Ok(_) => crate::bail_help!(
            help = "run `dotpack doctor`",
            file = &dir,
            "{} is not a real folder (a symbolic link or a file); dotpack does not follow it",
            dir.display()
        ),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(e).with_context(|| format!("cannot read {}", dir.display())),
    }
}

/// The ids of every stored generation, oldest first: the regular files named `NNNNNN.json`.
pub fn ids(state: &Path) -> Vec<u64> {
    if !real_dir(state).unwrap_or(false) {
        return Vec::new();
    }
    let mut ids: Vec<u64> = std::fs::read_dir(dir(state))
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let id: u64 = name.strip_suffix(".json")?.parse().ok()?;
            (file_name(id) == name).then_some(id)
        })
        .collect();
    ids.sort_unstable();
    ids
}

/// The id the next generation gets: one more than the newest ever written (pruning does not
/// make numbers come back, because the newest record is never pruned; recovery deletes the
/// record of an interrupted transaction, whose number the next transaction then takes).
pub fn next_id(state: &Path) -> u64 {
    ids(state).last().map_or(1, |id| id + 1)
}

pub fn load(state: &Path, id: u64) -> Result<Generation> {
    let path = record_path(state, id);
    let text = crate::util::fence::read_text(&path, None, crate::util::fence::LOCK_CAP)?
        .with_context(|| format!("{} is missing", path.display()))?;
    let generation: Generation =
        serde_json::from_str(&text).with_context(|| format!("{} is corrupt", path.display()))?;
    if generation.id != id {
        bail!(
            "{} is corrupt: it says it is generation {}",
            path.display(),
            generation.id
        );
    }
    Ok(generation)
}

/// Every stored generation, oldest first.
pub fn load_all(state: &Path) -> Result<Vec<Generation>> {
    ids(state).into_iter().map(|id| load(state, id)).collect()
}

/// Every stored generation, oldest first, each checked against `boundary`: a record naming a
/// path dotpack could not have written for `state` (or a snapshot name that is not a hash) is
/// an error naming the record and the path, before anything acts on any record.
pub fn load_checked(state: &Path, boundary: &super::Boundary) -> Result<Vec<Generation>> {
    let generations = load_all(state)?;
    for g in &generations {
        if let Err(refused) = boundary.check_files(state, &g.files) {
            crate::bail_help!(
                help = "`dotpack doctor` lists the records that fail this check; delete the ones you do not need",
                file = record_path(state, g.id),
                "{} names {}, which dotpack could not have written for {} ({}); nothing was changed",
                record_path(state, g.id).display(),
                refused.path.display(),
                state.display(),
                refused.why
            );
        }
    }
    Ok(generations)
}

/// Writes a generation record durably.
pub fn write(state: &Path, generation: &Generation) -> Result<()> {
    if !real_dir(state)? {
        fs_err::create_dir_all(dir(state))?;
    }
    let text = serde_json::to_string_pretty(generation)?;
    crate::util::fsutil::write_atomic(&record_path(state, generation.id), text.as_bytes())
}

/// Deletes the record of generation `id` when it is the one an interrupted transaction wrote
/// (it names exactly `files`): recovery undid that transaction, so no rollback may bring it
/// back. Returns whether it did; a record with that id naming other files is kept.
pub fn remove_aborted(state: &Path, id: u64, files: &[FileRecord]) -> Result<bool> {
    let path = record_path(state, id);
    if !real_dir(state)? || std::fs::symlink_metadata(&path).is_err() {
        return Ok(false);
    }
    match load(state, id) {
        Ok(g) if g.files == files => {}
        _ => return Ok(false),
    }
    fs_err::remove_file(&path)?;
    crate::util::fsutil::sync_dir(&dir(state));
    Ok(true)
}

/// Deletes the oldest records so that at most `keep` remain (at least one always does).
pub fn prune(state: &Path, keep: usize) -> Result<usize> {
    if !real_dir(state)? {
        return Ok(0);
    }
    let ids = ids(state);
    let keep = keep.max(1);
    let drop = ids.len().saturating_sub(keep);
    // Not flushed: a record that comes back after a power loss is one more old generation, and
    // the next prune deletes it again.
    for id in &ids[..drop] {
        fs_err::remove_file(record_path(state, *id))?;
    }
    Ok(drop)
}

/// Every snapshot hash the records refer to.
pub fn referenced(generations: &[Generation]) -> BTreeSet<String> {
    generations
        .iter()
        .flat_map(|g| &g.files)
        .flat_map(|f| [f.before.clone(), f.after.clone()])
        .flatten()
        .collect()
}

/// What a file held right after generation `k` (`k = 0`: before the first generation), as far
/// as the records say: `Some(None)` absent, `Some(Some(hash))` those bytes, `None` unknown.
#[derive(Clone, Debug)]
pub struct FileState {
    pub record: FileRecord,
    /// Snapshot hash right after `k`; `None`: the file did not exist.
    pub at_k: Option<String>,
    /// Snapshot hash right after the newest generation.
    pub latest: Option<String>,
}

/// For every file any generation touched, its state right after `k` and after the newest
/// generation. At `k`, a file had the bytes its first later generation found ("before"): that
/// keeps what another program (or you) wrote into it after `k`, such as a hand-written entry.
/// A file no generation after `k` touched has the bytes of its last generation up to `k`.
pub fn states_at(generations: &[Generation], k: u64) -> BTreeMap<PathBuf, FileState> {
    let mut out: BTreeMap<PathBuf, FileState> = BTreeMap::new();
    // Files whose state at `k` a later generation's "before" has settled.
    let mut found_later: BTreeSet<PathBuf> = BTreeSet::new();
    for g in generations {
        for f in &g.files {
            let first_later = g.id > k && found_later.insert(f.path.clone());
            match out.get_mut(&f.path) {
                None => {
                    let at_k = if g.id <= k {
                        f.after.clone()
                    } else {
                        f.before.clone()
                    };
                    out.insert(
                        f.path.clone(),
                        FileState {
                            record: f.clone(),
                            at_k,
                            latest: f.after.clone(),
                        },
                    );
                }
                Some(state) => {
                    if g.id <= k {
                        state.at_k = f.after.clone();
                    } else if first_later && !is_lock(f) {
                        state.at_k = f.before.clone();
                    }
                    state.latest = f.after.clone();
                    if f.host.is_some() {
                        state.record.host = f.host.clone();
                    }
                    for var in &f.resolved {
                        if !state.record.resolved.contains(var) {
                            state.record.resolved.push(var.clone());
                        }
                    }
                }
            }
        }
    }
    out
}

/// `dotpack.lock` is dotpack's alone: its state at `k` is what dotpack wrote, never bytes someone
/// else left there after (git merge conflict markers, say).
fn is_lock(f: &FileRecord) -> bool {
    f.host.is_none()
        && f.path.file_name() == Some(std::ffi::OsStr::new(crate::model::lock::LOCK_FILE))
}

/// `time` as RFC 3339 UTC, without a date library.
pub fn rfc3339(time: std::time::SystemTime) -> String {
    let secs = time
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let (days, rem) = (secs / 86_400, secs % 86_400);
    let (y, m, d) = civil_from_days(days as i64);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// Days since 1970-01-01 to a (year, month, day) date (Howard Hinnant's algorithm).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

impl Change {
    /// The change as a generation records it.
    pub fn record(&self) -> PackageChange {
        let (name, change, from, to) = match self {
            Change::Added { name, version } => (name, "added", None, Some(version)),
            Change::Updated { name, from, to } => (name, "updated", Some(from), Some(to)),
            Change::Removed { name, version } => (name, "removed", Some(version), None),
            Change::Repinned {
                name,
                version,
                from,
                to,
            } => {
                return PackageChange {
                    name: name.clone(),
                    change: "repinned".to_string(),
                    from: Some(format!(
                        "{version} ({})",
                        crate::model::lock::changes::short(from)
                    )),
                    to: Some(format!(
                        "{version} ({})",
                        crate::model::lock::changes::short(to)
                    )),
                };
            }
        };
        PackageChange {
            name: name.clone(),
            change: change.to_string(),
            from: from.map(ToString::to_string),
            to: to.map(ToString::to_string),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(path: &str, before: Option<&str>, after: Option<&str>) -> FileRecord {
        FileRecord {
            path: PathBuf::from(path),
            display: path.into(),
            host: None,
            before: before.map(str::to_string),
            after: after.map(str::to_string),
            resolved: Vec::new(),
            outside: None,
        }
    }

    fn generation(id: u64, files: Vec<FileRecord>) -> Generation {
        Generation {
            id,
            time: String::new(),
            command: vec![],
            rollback_to: None,
            files,
            packages: vec![],
            merged: vec![],
        }
    }

    #[test]
    fn dates_are_utc_rfc3339() {
        let t = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_795_942_800);
        assert_eq!(rfc3339(t), "2026-11-29T09:00:00Z");
        assert_eq!(rfc3339(std::time::UNIX_EPOCH), "1970-01-01T00:00:00Z");
    }

    #[test]
    fn state_at_k_reads_the_last_after_or_the_first_later_before() {
        let gens = vec![
            generation(1, vec![record("a", None, Some("a1"))]),
            generation(2, vec![record("b", Some("b0"), Some("b2"))]),
            generation(3, vec![record("a", Some("a1"), Some("a3"))]),
        ];
        let s = states_at(&gens, 1);
        assert_eq!(s[Path::new("a")].at_k.as_deref(), Some("a1"));
        assert_eq!(s[Path::new("a")].latest.as_deref(), Some("a3"));
        assert_eq!(s[Path::new("b")].at_k.as_deref(), Some("b0"));
        let s = states_at(&gens, 0);
        assert_eq!(s[Path::new("a")].at_k, None);
    }

    #[test]
    fn only_records_named_by_their_id_count_and_an_aborted_one_is_removed() {
        let dir = tempfile::tempdir().unwrap();
        let state = dir.path();
        let files = vec![record("/p/a", None, Some("a1"))];
        write(state, &generation(1, files.clone())).unwrap();
        write(state, &generation(2, files.clone())).unwrap();
        for name in ["+3.json", "4.json", "000005.json.bak"] {
            std::fs::write(dir.path().join("generations").join(name), "{}").unwrap();
        }
        assert_eq!(ids(state), vec![1, 2]);
        // A record with the journal's id naming other files is not the aborted one.
        assert!(!remove_aborted(state, 2, &[record("/p/b", None, None)]).unwrap());
        assert!(remove_aborted(state, 2, &files).unwrap());
        assert_eq!(ids(state), vec![1]);
        assert_eq!(next_id(state), 2);
    }

    #[test]
    fn state_at_k_keeps_an_edit_made_after_k_by_another_program() {
        // Someone edited `a` (a1 -> a1e) between generations 1 and 2.
        let gens = vec![
            generation(1, vec![record("a", None, Some("a1"))]),
            generation(2, vec![record("a", Some("a1e"), Some("a2"))]),
            generation(3, vec![record("a", Some("a2"), Some("a3"))]),
        ];
        assert_eq!(
            states_at(&gens, 1)[Path::new("a")].at_k.as_deref(),
            Some("a1e")
        );
        assert_eq!(
            states_at(&gens, 2)[Path::new("a")].at_k.as_deref(),
            Some("a2")
        );
        assert_eq!(
            states_at(&gens, 3)[Path::new("a")].at_k.as_deref(),
            Some("a3")
        );
    }
}
