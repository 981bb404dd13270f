//! The files a package's resources come from: its folder on disk (a project, or a package being
//! built), or its archive. Every path is checked before it is used, so nothing a package declares
//! can make dotpack read (or, later, write) outside it.

use std::collections::BTreeMap;
use std::path::Path;

use super::Kind;
use crate::model::manifest::Manifest;

/// A package's files by `/`-separated path relative to the package's folder.
pub type Files = BTreeMap<String, Vec<u8>>;

/// Most bytes one resource may hold: resources are a few text files.
const MAX_RESOURCE_BYTES: u64 = 4 * 1024 * 1024;

/// Why a resource path is refused, or `Ok` for a relative path that stays inside the package:
/// no absolute path, drive, `..`, `.`, empty segment or backslash.
pub fn check_path(path: &str) -> Result<(), String> {
    if path.is_empty() {
        return Err("the path is empty".to_string());
    }
    if path.starts_with('/') || path.contains(':') {
        return Err(format!(
            "`{path}` is absolute; resource paths are relative to the package's folder"
        ));
    }
    if path.contains('\\') {
        return Err(format!("`{path}` holds a backslash; write paths with `/`"));
    }
    for segment in path.trim_end_matches('/').split('/') {
        match segment {
            ".." => {
                return Err(format!(
                    "`{path}` leaves the package (`..`); a resource must be inside the package's folder"
                ));
            }
            "" | "." => {
                return Err(format!(
                    "`{path}` has an empty or `.` segment; write it as `dir/file.md`"
                ));
            }
            _ => {}
        }
    }
    Ok(())
}

/// The files of an archive (paths under one top-level folder), keyed without that folder.
pub fn files_of_archive(files: BTreeMap<String, Vec<u8>>) -> Files {
    files
        .into_iter()
        .filter_map(|(path, data)| {
            let (_, rest) = path.split_once('/')?;
            (!rest.is_empty()).then(|| (rest.to_string(), data))
        })
        .collect()
}

/// The files the resources of `manifest` declare, read from the package folder `root`: each
/// declared file, and every file inside each declared skill folder (hidden files left out, as
/// packing leaves them out). A symbolic link anywhere on the way, a special file, or a path that
/// leaves `root` is an error naming it: a link could point anywhere, and archives cannot carry
/// links. Missing paths are simply absent (loading says what is missing).
pub fn files_of_dir(
    root: &Path,
    manifest: &Manifest,
) -> Result<Files, Vec<(Kind, String, String)>> {
    let mut files = Files::new();
    let mut problems = Vec::new();
    for (kind, name, decl) in manifest.resources() {
        if let Err(why) = check_path(&decl.path) {
            problems.push((kind, name.to_string(), why));
            continue;
        }
        let rel = decl.path.trim_end_matches('/');
        // Every folder on the way must be a real folder, not a link.
        let mut walked = root.to_path_buf();
        let mut ok = true;
        for segment in rel.split('/') {
            walked.push(segment);
            match std::fs::symlink_metadata(&walked) {
                Ok(meta) if meta.file_type().is_symlink() => {
                    problems.push((
                        kind,
                        name.to_string(),
                        format!(
                            "{} is a symbolic link; resources must be real files inside the package (links could point outside it)",
                            walked.display()
                        ),
                    ));
                    ok = false;
                    break;
                }
                Ok(_) => {}
                Err(_) => {
                    ok = false;
                    break;
                }
            }
        }
        if !ok {
            continue;
        }
        let mut total = 0;
        if let Err(why) = collect(root, rel, kind, &mut files, &mut total) {
            problems.push((kind, name.to_string(), why));
        }
    }
    if problems.is_empty() {
        Ok(files)
    } else {
        Err(problems)
    }
}

/// Reads `rel` under `root` into `files`: the file, or for a skill every file below the folder.
fn collect(
    root: &Path,
    rel: &str,
    kind: Kind,
    files: &mut Files,
    total: &mut u64,
) -> Result<(), String> {
    let path = root.join(rel);
    let meta = std::fs::symlink_metadata(&path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    if meta.file_type().is_symlink() {
        return Err(format!(
            "{} is a symbolic link; resources must be real files inside the package (links could point outside it)",
            path.display()
        ));
    }
    if meta.is_dir() {
        if !kind.is_folder() {
            return Err(format!(
                "{} is a folder; a {kind} is one markdown file",
                path.display()
            ));
        }
        let mut entries: Vec<_> = std::fs::read_dir(&path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?
            .filter_map(Result::ok)
            .collect();
        entries.sort_by_key(|e| e.file_name());
        for entry in entries {
            let name = entry.file_name();
            let Some(name) = name.to_str() else {
                return Err(format!(
                    "{} has a name that is not UTF-8",
                    entry.path().display()
                ));
            };
            if name.starts_with('.') {
                continue;
            }
            collect(root, &format!("{rel}/{name}"), kind, files, total)?;
        }
        return Ok(());
    }
    if !meta.is_file() {
        return Err(format!("{} is not a regular file", path.display()));
    }
    *total += meta.len();
    if *total > MAX_RESOURCE_BYTES {
        return Err(format!(
            "{} makes the resource larger than {} MiB",
            path.display(),
            MAX_RESOURCE_BYTES / 1024 / 1024
        ));
    }
    let data = crate::util::fence::read(&path, None, MAX_RESOURCE_BYTES)
        .map_err(|e| format!("{e:#}"))?
        .ok_or_else(|| format!("cannot read {}: it is gone", path.display()))?;
    files.insert(rel.to_string(), data);
    Ok(())
}
