//! A project whose files another user owns is not used without the user's approval, the way git
//! refuses a repository another user owns (CVE-2022-24765, `safe.directory`): on a shared
//! machine anyone may put a `dotpack.toml` in a folder above yours (`/tmp` is world-writable),
//! and its servers would land in your host files.
//!
//! What is checked: the manifest, its folder and its lock. The user-level manifest lives in
//! `$DOTPACK_HOME`, whose ownership the state folder checks already hold to.

use std::path::{Path, PathBuf};

use anyhow::Result;

use crate::model::lock::LOCK_FILE;
use crate::ops::consent::{self, Approvals, Kind, Request};

use super::Settings;

/// The files of the project at `manifest` that another user owns, with their owners' ids.
pub fn foreign_files(manifest: &Path) -> Vec<(PathBuf, u32)> {
    let me = crate::txn::trust::my_uid();
    let folder = manifest.parent().unwrap_or(Path::new("."));
    [
        manifest.to_path_buf(),
        folder.to_path_buf(),
        folder.join(LOCK_FILE),
    ]
    .into_iter()
    .filter_map(|path| owner_of(&path).map(|uid| (path, uid)))
    .filter(|(_, uid)| *uid != me)
    .collect()
}

#[cfg(unix)]
fn owner_of(path: &Path) -> Option<u32> {
    use std::os::unix::fs::MetadataExt;
    std::fs::symlink_metadata(path).ok().map(|m| m.uid())
}

#[cfg(not(unix))]
fn owner_of(_path: &Path) -> Option<u32> {
    None
}

/// The request to use the project at `root` although `foreign` files belong to other users.
pub fn owner_request(root: &Path, foreign: &[(PathBuf, u32)]) -> Option<Request> {
    if foreign.is_empty() {
        return None;
    }
    let root_shown = root.display().to_string();
    let mut parts = vec![root_shown.clone()];
    parts.extend(
        foreign
            .iter()
            .map(|(p, uid)| format!("{}:{uid}", p.display())),
    );
    let parts: Vec<&str> = parts.iter().map(String::as_str).collect();
    let owners: Vec<String> = foreign
        .iter()
        .map(|(p, uid)| format!("{} (uid {uid})", p.display()))
        .collect();
    Some(Request::new(
        Kind::Owner,
        root_shown,
        consent::digest(&parts),
        format!("owned by another user: {}", owners.join(", ")),
    ))
}

/// Refuses the manifest at `path` when another user owns it, its folder or its lock, unless the
/// user approved that for the folder or passed `--trust`.
pub fn check_owner(settings: &Settings, path: &Path) -> Result<()> {
    if settings.trust {
        return Ok(());
    }
    let foreign = foreign_files(path);
    let root = path.parent().unwrap_or(Path::new("."));
    let Some(request) = owner_request(root, &foreign) else {
        return Ok(());
    };
    let owner = super::owner_id(root);
    if Approvals::load(&settings.dotpack_home)?.covers(&owner, &request) {
        return Ok(());
    }
    let (file, uid) = &foreign[0];
    crate::bail_help!(
        help = format!(
            "if you trust it, `dotpack trust` in {} approves it for this folder; otherwise work in a folder of your own, or give --manifest-path",
            root.display()
        ),
        "{} is owned by another user (uid {uid}), not by you (uid {}); dotpack does not act on a project another user can change, since its dotpack.toml chooses what goes into your host files",
        file.display(),
        crate::txn::trust::my_uid()
    )
}
