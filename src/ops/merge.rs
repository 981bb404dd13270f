//! `dotpack merge`: finish a git merge of two branches that each changed what dotpack manages.
//! The manifest's conflicted lines are united (both sides' additions kept, each once; a key
//! both sides set differently stops it), the lock is read from both sides, and a host file
//! whose conflict is only in entries dotpack wrote starts again from this branch's side, so the
//! one install that follows writes every entry from the merged manifest and lock. Everything
//! else a conflict touches is the user's to settle; this names it and changes nothing.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use anyhow::Result;

use crate::model::claims::Claim;
use crate::model::lock::LOCK_FILE;
use crate::plan::targets::Target;
use crate::txn::files::FileWrite;
use crate::util::conflict;
use crate::util::error::Error;

use super::Settings;

/// What `dotpack merge` read with conflict markers and settled in memory; empty for every
/// other command.
#[derive(Debug, Default)]
pub struct Settled {
    /// dotpack.toml, when it had markers.
    pub manifest: Option<UnitedManifest>,
    /// Host files by path, when they had markers and their conflicts were dotpack's entries.
    pub files: BTreeMap<PathBuf, SettledFile>,
    /// dotpack.lock had markers (it is read from both sides by [`super::Project::load`]).
    pub lock: bool,
}

/// A conflicted manifest and the text its sides unite into.
#[derive(Debug)]
pub struct UnitedManifest {
    pub on_disk: String,
    pub united: String,
}

/// A conflicted host file and the side it is planned from.
#[derive(Debug)]
pub struct SettledFile {
    pub display: String,
    pub host: String,
    pub fence: Option<crate::util::fence::Fence>,
    pub on_disk: String,
    /// This branch's side: the same as the other's apart from dotpack's entries.
    pub start: String,
}

impl Settled {
    pub fn is_empty(&self) -> bool {
        self.manifest.is_none() && self.files.is_empty() && !self.lock
    }

    /// The text each settled host file is planned from.
    pub fn starts(&self) -> BTreeMap<PathBuf, String> {
        self.files
            .iter()
            .map(|(path, file)| (path.clone(), file.start.clone()))
            .collect()
    }

    /// Makes `writes` replace the conflicted bytes on disk: a write planned from a settled side
    /// starts from the bytes really there (so the transaction checks and rolls back those), and
    /// a settled file the plan leaves as its side is written as that side.
    pub fn replace_in(&self, writes: &mut Vec<FileWrite>) {
        for (path, file) in &self.files {
            match writes.iter_mut().find(|w| &w.path == path) {
                Some(write) => write.before = Some(file.on_disk.as_str().into()),
                None => writes.push(FileWrite {
                    path: path.clone(),
                    display: file.display.clone(),
                    host: Some(file.host.clone()),
                    before: Some(file.on_disk.as_str().into()),
                    after: Some(file.start.as_str().into()),
                    remove_dirs: 0,
                    resolved: Vec::new(),
                    fence: file.fence.clone(),
                }),
            }
        }
    }
}

/// Reads the manifest, the lock and the host files the lock's claims name, and settles what
/// has conflict markers. Returns what was settled and the status lines that say so; an error
/// names each conflict it cannot settle and what to do.
pub fn settle(settings: &Settings) -> Result<(Settled, Vec<(String, String)>)> {
    let path = match settings.global {
        true => settings.global_manifest(),
        false => super::find_manifest(settings)?,
    };
    let root = path.parent().unwrap_or(Path::new(".")).to_path_buf();
    let fence = (!settings.global).then(|| crate::util::fence::Fence::project(&root));
    let read = |path: &Path, cap| crate::util::fence::read_text(path, fence.as_ref(), cap);
    let mut settled = Settled::default();
    let mut edits = Vec::new();
    let file = crate::model::manifest::MANIFEST_FILE;
    let mut declared = BTreeSet::new();
    if let Some(text) = read(&path, crate::util::fence::PROJECT_FILE_CAP)? {
        if conflict::has_markers(&text) {
            let (united, line, merged) = unite_manifest(&path, &text)?;
            edits.push(("Merged".to_string(), format!("{file}: {line}")));
            declared = declared_entries(&merged.manifest);
            settled.manifest = Some(UnitedManifest {
                on_disk: text,
                united,
            });
        } else if let Ok(loaded) = crate::model::manifest::parse(&path, text) {
            declared = declared_entries(&loaded.manifest);
        }
    }
    let lock_path = root.join(LOCK_FILE);
    let claims = match read(&lock_path, crate::util::fence::LOCK_CAP)? {
        Some(text) => {
            settled.lock = conflict::has_markers(&text);
            lock_claims(&lock_path, &text)
        }
        None => Vec::new(),
    };
    if settled.lock {
        edits.push((
            "Merged".to_string(),
            format!("{LOCK_FILE}: read both sides and resolved again from the merged {file}"),
        ));
    }
    let mut problems = Vec::new();
    for (path, (target, names)) in owned_files(&claims, &declared, &root, settings) {
        let Some(text) = target.read()? else {
            continue;
        };
        if !conflict::has_markers(&text) {
            continue;
        }
        match settle_host_file(&target, &text, &names) {
            Ok(start) => {
                edits.push((
                    "Settled".to_string(),
                    format!(
                        "{}: its conflicts were only dotpack's entries, written again from the merged {file} and {LOCK_FILE}",
                        target.claim_file
                    ),
                ));
                settled.files.insert(
                    path,
                    SettledFile {
                        display: target.claim_file.clone(),
                        host: target.host.id.to_string(),
                        fence: target.fence.clone(),
                        on_disk: text,
                        start,
                    },
                );
            }
            Err(problem) => problems.push(problem),
        }
    }
    match Error::all(problems) {
        Some(error) => Err(error.into()),
        None => Ok((settled, edits)),
    }
}

/// The host files the lock's claims name, each with the entry names dotpack may write there:
/// the ones claimed in it and every one the merged manifest declares.
fn owned_files(
    claims: &[crate::model::claims::Claim],
    declared: &BTreeSet<String>,
    root: &Path,
    settings: &Settings,
) -> BTreeMap<PathBuf, (Target, BTreeSet<String>)> {
    let mut owned: BTreeMap<PathBuf, (Target, BTreeSet<String>)> = BTreeMap::new();
    for claim in claims {
        if let Some(target) = Target::of_claim(claim, root, &settings.host_env) {
            owned
                .entry(target.path.clone())
                .or_insert_with(|| (target, BTreeSet::new()))
                .1
                .insert(claim.server.clone());
        }
    }
    for (_, names) in owned.values_mut() {
        names.extend(declared.iter().cloned());
    }
    owned
}

/// The entry names the merged manifest declares: its own servers, and each dependency by its
/// name and the entry names it gives its servers. A lock that git did not conflict (or that
/// `dotpack rollback` put back as dotpack wrote it) may not claim the other branch's entries
/// yet; these are dotpack's to write all the same.
fn declared_entries(manifest: &crate::model::manifest::Manifest) -> BTreeSet<String> {
    let mut names: BTreeSet<String> = manifest.servers.keys().cloned().collect();
    for (name, spec) in &manifest.dependencies {
        names.insert(name.clone());
        names.extend(spec.entries().into_iter().flat_map(|e| e.values().cloned()));
    }
    names
}

/// Every claim either side of the lock holds (a conflicted lock's sides are read apart): the
/// entries dotpack wrote on either branch. A side that does not read holds none.
fn lock_claims(path: &Path, text: &str) -> Vec<Claim> {
    let texts = match conflict::sides(text) {
        Some(sides) => vec![sides.ours, sides.theirs],
        None => vec![text.to_string()],
    };
    texts
        .iter()
        .filter_map(|t| crate::model::lock::read(path, t).ok())
        .flat_map(|(lock, _)| lock.claims)
        .collect()
}

/// The manifest's sides united line by line ([`conflict::union`]), with the status line that
/// says what came from where and the united manifest parsed. A key both sides set to different values is a conflict only the
/// user can settle: every one is named with both values.
fn unite_manifest(
    path: &Path,
    text: &str,
) -> Result<(String, String, crate::model::manifest::LoadedManifest)> {
    let file = crate::model::manifest::MANIFEST_FILE;
    let settle_by_hand = |why: String| -> anyhow::Error {
        Error::new(format!("{file}: {why}"))
            .help(format!(
                "edit {file}: keep the lines you want between the markers and remove the markers, then run `dotpack merge` again"
            ))
            .file(path)
            .into()
    };
    let (Some(sides), Some(united)) = (conflict::sides(text), conflict::union(text)) else {
        return Err(settle_by_hand(
            "its merge conflict markers do not pair up".to_string(),
        ));
    };
    let table = |side: &str, which: &str| {
        side.parse::<toml::Table>().map_err(|e| {
            settle_by_hand(format!(
                "{which} side of its merge conflict is not valid TOML: {}",
                e.message()
            ))
        })
    };
    let ours = table(&sides.ours, "this branch's")?;
    let theirs = table(&sides.theirs, "the merged branch's")?;
    let mut walk = Walk::default();
    walk.compare(&ours, &theirs, "");
    if !walk.different.is_empty() {
        let list: Vec<String> = walk
            .different
            .iter()
            .map(|(key, a, b)| format!("\n  `{key}`: {a} here, {b} on the merged branch"))
            .collect();
        return Err(settle_by_hand(format!(
            "both sides of the merge set {} differently:{}",
            if list.len() == 1 { "a key" } else { "keys" },
            list.concat()
        )));
    }
    let merged = match crate::model::manifest::parse(path, united.clone()) {
        Ok(merged) => merged,
        Err(diags) => {
            return Err(settle_by_hand(format!(
                "its two sides united do not make a valid manifest: {diags}"
            )));
        }
    };
    let from_theirs = match walk.only_theirs.is_empty() {
        true => String::new(),
        false => format!("; from the merged branch: {}", walk.only_theirs.join(", ")),
    };
    let line = format!(
        "united both sides of {} conflict{}{from_theirs}",
        sides.conflicts,
        if sides.conflicts == 1 { "" } else { "s" },
    );
    Ok((united, line, merged))
}

/// Two sides of a manifest compared key by key, tables walked into.
#[derive(Default)]
struct Walk {
    /// Key paths both sides set, to different values: (path, ours, theirs).
    different: Vec<(String, String, String)>,
    /// Key paths only the merged branch has.
    only_theirs: Vec<String>,
}

impl Walk {
    fn compare(&mut self, ours: &toml::Table, theirs: &toml::Table, prefix: &str) {
        for (key, value) in theirs {
            let path = match prefix.is_empty() {
                true => key.clone(),
                false => format!("{prefix}.{key}"),
            };
            match (ours.get(key), value) {
                (None, _) => self.only_theirs.push(path),
                (Some(toml::Value::Table(a)), toml::Value::Table(b)) => self.compare(a, b, &path),
                (Some(a), b) if a != b => {
                    self.different.push((path, show(a), show(b)));
                }
                _ => {}
            }
        }
    }
}

/// A TOML value as it reads in a message, on one line.
fn show(value: &toml::Value) -> String {
    let text = value.to_string();
    let one_line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match one_line.chars().count() > 60 {
        true => format!("{}…", one_line.chars().take(60).collect::<String>()),
        false => one_line,
    }
}

/// This branch's side of a conflicted host file, when the two sides differ only in entries
/// dotpack wrote (`owned`: the names either side's lock claims there and those the merged
/// manifest declares); otherwise an error that
/// says what else the conflict touches.
fn settle_host_file(
    target: &Target,
    text: &str,
    owned: &BTreeSet<String>,
) -> Result<String, Error> {
    let file = &target.claim_file;
    let settle_by_hand = |why: String| {
        Error::new(format!("{file}: {why}"))
            .help(format!(
                "edit {file}: settle those lines by hand (keep the markers around dotpack's entries, or remove them too), then run `dotpack merge` again"
            ))
            .file(file)
    };
    let Some(sides) = conflict::sides(text) else {
        return Err(settle_by_hand(
            "its merge conflict markers do not pair up".to_string(),
        ));
    };
    let parse = |side: &'_ str, which: &str| {
        crate::formats::Document::parse(target.host.format, side, target.host.container)
            .map(|doc| (doc.outside(), doc.entries()))
            .map_err(|e| {
                settle_by_hand(format!(
                    "{which} side of its merge conflict does not read: {e}"
                ))
            })
    };
    let (ours_outside, ours_entries) = parse(&sides.ours, "this branch's")?;
    let (theirs_outside, theirs_entries) = parse(&sides.theirs, "the merged branch's")?;
    if ours_outside != theirs_outside {
        return Err(settle_by_hand(format!(
            "its conflict changes settings outside {}'s servers, which are not dotpack's",
            target.host.name()
        )));
    }
    let others =
        |entries: Vec<(String, serde_json::Value)>| -> BTreeMap<String, serde_json::Value> {
            entries
                .into_iter()
                .filter(|(name, _)| !owned.contains(name))
                .collect()
        };
    let (ours_others, theirs_others) = (others(ours_entries), others(theirs_entries));
    if ours_others != theirs_others {
        let names: BTreeSet<&String> = ours_others
            .iter()
            .chain(&theirs_others)
            .filter(|(name, value)| {
                ours_others.get(*name) != Some(value) || theirs_others.get(*name) != Some(value)
            })
            .map(|(name, _)| name)
            .collect();
        let names: Vec<String> = names.into_iter().map(|n| format!("`{n}`")).collect();
        return Err(settle_by_hand(format!(
            "its conflict changes {} {}, which dotpack did not write",
            if names.len() == 1 { "entry" } else { "entries" },
            names.join(", ")
        )));
    }
    Ok(sides.ours)
}

/// The files of the project at `root` a merge left with conflict markers: the manifest, the
/// lock and every host's project file, as the project names them (for `dotpack doctor`).
pub fn unfinished(root: &Path, env: &crate::model::hosts::HostEnv) -> Vec<String> {
    let fence = crate::util::fence::Fence::project(root);
    let mut paths: Vec<PathBuf> = vec![
        root.join(crate::model::manifest::MANIFEST_FILE),
        root.join(LOCK_FILE),
    ];
    for host in crate::model::hosts::ADAPTERS {
        if let Some(path) = host.path(crate::model::hosts::Scope::Project, root, env)
            && !paths.contains(&path)
        {
            paths.push(path);
        }
    }
    paths
        .into_iter()
        .filter(|path| {
            crate::util::fence::read_text(path, Some(&fence), crate::util::fence::USER_FILE_CAP)
                .ok()
                .flatten()
                .is_some_and(|text| conflict::has_markers(&text))
        })
        .map(|path| {
            path.strip_prefix(root)
                .unwrap_or(&path)
                .display()
                .to_string()
        })
        .collect()
}
