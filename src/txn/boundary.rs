//! Which paths a journal or generation record may name. A record is data read back from disk, so
//! before recovery or rollback acts on one, every path in it must be one dotpack could have
//! written for that state folder: inside the project (for a project's `.dotpack/`), inside
//! `$DOTPACK_HOME`, or one of the hosts' user-scope config files. Messages name files from the
//! real path, never from the record's `display` field.

use std::path::{Path, PathBuf};

use crate::model::hosts::{ADAPTERS, HostEnv};
use crate::util::fsutil;

use super::{FileRecord, PROJECT_STATE, store};

/// The places a record may name, built once per command from the settings
/// (`ops::Settings::boundary`).
#[derive(Clone, Debug)]
pub struct Boundary {
    /// The project of this command, if any: messages name its files relative to it.
    pub project_root: Option<PathBuf>,
    pub dotpack_home: PathBuf,
    /// The user-scope config file of every host (`~/.claude.json`, `~/.codex/config.toml`, …).
    pub host_files: Vec<PathBuf>,
    /// The folders below the home folder that hold user-scope resources (`~/.claude/skills`, …;
    /// see [`crate::model::resources::user_places`]): records may name files inside them.
    pub resource_dirs: Vec<PathBuf>,
    /// The roots of the projects whose state folders dotpack made on this machine: user-scope
    /// generations in `$DOTPACK_HOME` name their `dotpack.toml` and `dotpack.lock`.
    pub known_projects: Vec<PathBuf>,
    /// Where the places above really are, resolved on first use: a transaction asks about each
    /// of its files, and resolving every host's file for each would walk the same links again.
    real: std::sync::OnceLock<Real>,
}

/// The boundary's places with their links resolved ([`fsutil::resolve_parent`] for files,
/// [`fsutil::resolve`] for folders).
#[derive(Clone, Debug)]
struct Real {
    host_files: Vec<PathBuf>,
    resource_dirs: Vec<PathBuf>,
    dotpack_home: PathBuf,
}

impl PartialEq for Boundary {
    /// Two boundaries are equal when they name the same places; the resolved cache is not part
    /// of what a boundary is.
    fn eq(&self, other: &Boundary) -> bool {
        self.project_root == other.project_root
            && self.dotpack_home == other.dotpack_home
            && self.host_files == other.host_files
            && self.resource_dirs == other.resource_dirs
            && self.known_projects == other.known_projects
    }
}

impl Eq for Boundary {}

/// The first file of a record that the boundary refuses, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refused {
    pub path: PathBuf,
    pub why: &'static str,
}

impl Boundary {
    pub fn new(project_root: Option<&Path>, dotpack_home: &Path, host_env: &HostEnv) -> Boundary {
        let (resource_dirs, resource_files) = crate::model::resources::user_places(&host_env.home);
        Boundary {
            project_root: project_root.map(Path::to_path_buf),
            dotpack_home: dotpack_home.to_path_buf(),
            host_files: ADAPTERS
                .iter()
                .filter_map(|a| a.user_file.map(|u| u.resolve(host_env)))
                .chain(resource_files)
                .collect(),
            resource_dirs,
            known_projects: super::trust::known_projects(dotpack_home),
            real: std::sync::OnceLock::new(),
        }
    }

    fn real(&self) -> &Real {
        self.real.get_or_init(|| Real {
            host_files: self
                .host_files
                .iter()
                .map(|h| fsutil::resolve_parent(h))
                .collect(),
            resource_dirs: self
                .resource_dirs
                .iter()
                .map(|d| fsutil::resolve(d))
                .collect(),
            dotpack_home: fsutil::resolve(&self.dotpack_home),
        })
    }

    /// Whether `path` (whose folders resolve to `real`) is one of the hosts' user files.
    fn is_host_file(&self, path: &Path, real: &Path) -> bool {
        self.host_files.iter().any(|h| h == path)
            || self.real().host_files.iter().any(|h| h == real)
    }

    /// Whether `state` is `$DOTPACK_HOME` (else it is a project's `.dotpack/`).
    pub fn is_home(&self, state: &Path) -> bool {
        super::trust::is_home(state, &self.dotpack_home)
    }

    /// Why `path` may not appear in a record of the state folder `state`, or `None` when it may.
    pub fn why_not(&self, state: &Path, path: &Path) -> Option<&'static str> {
        if !path.is_absolute() {
            return Some("not an absolute path");
        }
        if fsutil::has_parent_component(path) {
            return Some("it contains `..`");
        }
        let real = fsutil::resolve_parent(path);
        if self.is_host_file(path, &real) {
            return None;
        }
        if self
            .real()
            .resource_dirs
            .iter()
            .any(|d| real.starts_with(d) && real != *d)
        {
            return None;
        }
        if let Ok(rel) = real.strip_prefix(&self.real().dotpack_home) {
            return home_bookkeeping(rel).then_some("it is one of dotpack's own state files");
        }
        let roots: Vec<&Path> = if self.is_home(state) {
            self.project_root
                .iter()
                .chain(&self.known_projects)
                .map(PathBuf::as_path)
                .collect()
        } else {
            state.parent().into_iter().collect()
        };
        for root in roots {
            if let Ok(rel) = real.strip_prefix(fsutil::resolve(root)) {
                return (rel.starts_with(PROJECT_STATE))
                    .then_some("it is inside dotpack's own state folder");
            }
        }
        Some(
            "it is outside the project, $DOTPACK_HOME and the hosts' user config files; a record naming it was not written by dotpack",
        )
    }

    /// The fence of a file a record of `state` names (a path [`Boundary::why_not`] accepted):
    /// the project it is in, whose links a restore may follow only inside it; `None` for the
    /// user's own files ($DOTPACK_HOME, the hosts' user files), whose links are the user's.
    pub fn fence(&self, state: &Path, path: &Path) -> Option<crate::util::fence::Fence> {
        let real = fsutil::resolve_parent(path);
        let users = self.is_host_file(path, &real)
            || self
                .real()
                .resource_dirs
                .iter()
                .any(|d| real.starts_with(d))
            || real.starts_with(&self.real().dotpack_home);
        if users {
            return None;
        }
        let roots: Vec<&Path> = if self.is_home(state) {
            self.project_root
                .iter()
                .chain(&self.known_projects)
                .map(PathBuf::as_path)
                .collect()
        } else {
            state.parent().into_iter().collect()
        };
        roots
            .into_iter()
            .find(|root| real.starts_with(fsutil::resolve(root)))
            .map(crate::util::fence::Fence::project)
    }

    /// The fence a restore of `record` (of the state folder `state`) writes and reads within:
    /// [`Boundary::fence`], lifted for a file the command was allowed to write outside its
    /// project as long as its link still leads where it led then ([`FileRecord::outside`]).
    pub fn restore_fence(
        &self,
        state: &Path,
        record: &FileRecord,
    ) -> Option<crate::util::fence::Fence> {
        let fence = self.fence(state, &record.path)?;
        match &record.outside {
            Some(real) if fsutil::resolve(&record.path) == *real => None,
            _ => Some(fence),
        }
    }

    /// Checks every file of one record (a journal or a generation of the state folder `state`):
    /// its path with [`Boundary::why_not`], its snapshot names as hashes.
    pub fn check_files(&self, state: &Path, files: &[FileRecord]) -> Result<(), Refused> {
        for file in files {
            let bad_hash = [&file.before, &file.after]
                .into_iter()
                .flatten()
                .any(|h| !store::is_hash(h));
            let why = if bad_hash {
                Some("its snapshot names are not sha256 hashes")
            } else {
                self.why_not(state, &file.path)
            };
            if let Some(why) = why {
                return Err(Refused {
                    path: file.path.clone(),
                    why,
                });
            }
        }
        Ok(())
    }

    /// How messages and diff labels name `path`: relative to the project root when inside it,
    /// else absolute. Computed from the path itself, never from a record's `display` field.
    pub fn display(&self, path: &Path) -> String {
        if let Some(root) = &self.project_root {
            if let Ok(rel) = path.strip_prefix(root) {
                return rel.display().to_string();
            }
            if let Ok(rel) = fsutil::resolve_parent(path).strip_prefix(fsutil::resolve(root)) {
                return rel.display().to_string();
            }
        }
        path.display().to_string()
    }
}

/// Whether `rel` (relative to `$DOTPACK_HOME`) is dotpack's bookkeeping rather than a file a
/// transaction writes (`claims.toml`).
fn home_bookkeeping(rel: &Path) -> bool {
    let Some(first) = rel.components().next() else {
        return true;
    };
    let first = first.as_os_str().to_string_lossy();
    matches!(
        first.as_ref(),
        "journal.json" | "lock" | "objects" | "generations" | "cache"
    ) || first == super::trust::REGISTRY_FILE
        || first == super::trust::REGISTRY_LOCK
        || first == super::trust::ID_FILE
}

#[cfg(test)]
mod tests {
    use super::*;

    fn boundary(root: &Path, home: &Path) -> Boundary {
        Boundary {
            project_root: Some(root.to_path_buf()),
            dotpack_home: home.to_path_buf(),
            host_files: vec![root.parent().unwrap().join(".claude.json")],
            resource_dirs: Vec::new(),
            known_projects: vec![],
            real: std::sync::OnceLock::new(),
        }
    }

    #[test]
    fn records_may_name_files_inside_the_hosts_resource_folders_only() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().to_path_buf();
        let b = Boundary::new(None, &home.join(".dotpack"), &HostEnv::new(&home));
        let state = home.join(".dotpack");
        for ok in [
            ".claude/skills/pr-review/SKILL.md",
            ".claude/commands/review.md",
            ".agents/skills/x/scripts/run.sh",
            ".gemini/commands/review.toml",
            ".codex/AGENTS.md",
            ".claude/CLAUDE.md",
        ] {
            assert_eq!(b.why_not(&state, &home.join(ok)), None, "{ok}");
        }
        for refused in [
            ".claude/settings.json",
            ".claude/skills",
            ".bashrc",
            ".claude/skills/../../.bashrc",
            ".ssh/authorized_keys",
        ] {
            assert!(
                b.why_not(&state, &home.join(refused)).is_some(),
                "{refused}"
            );
        }
    }

    #[test]
    fn records_may_name_the_project_home_and_host_files_only() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("p");
        let home = dir.path().join("h");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::create_dir_all(&home).unwrap();
        let b = boundary(&root, &home);
        let state = root.join(".dotpack");
        assert_eq!(b.why_not(&state, &root.join(".mcp.json")), None);
        assert_eq!(b.why_not(&state, &root.join("new/dir/x.json")), None);
        assert_eq!(b.why_not(&state, &home.join("claims.toml")), None);
        assert_eq!(b.why_not(&state, &dir.path().join(".claude.json")), None);
        assert!(b.why_not(&state, &dir.path().join("other.json")).is_some());
        assert!(b.why_not(&state, Path::new("relative.json")).is_some());
        assert!(b.why_not(&state, &root.join("../other.json")).is_some());
        assert!(
            b.why_not(&state, &root.join(".dotpack/generations/000001.json"))
                .is_some()
        );
        assert!(
            b.why_not(&state, &home.join("state-folders.json"))
                .is_some()
        );
        // A folder in the project that links outside it.
        std::os::unix::fs::symlink(dir.path(), root.join("out")).unwrap();
        assert!(b.why_not(&state, &root.join("out/other.json")).is_some());
        // Home records may name this project's files, not another's.
        assert_eq!(b.why_not(&home, &root.join("dotpack.lock")), None);
        assert!(
            b.why_not(&home, &dir.path().join("q/dotpack.lock"))
                .is_some()
        );
    }

    #[test]
    fn display_is_relative_to_the_project_or_absolute() {
        let b = boundary(Path::new("/p"), Path::new("/h"));
        assert_eq!(b.display(Path::new("/p/.mcp.json")), ".mcp.json");
        assert_eq!(b.display(Path::new("/x/keys")), "/x/keys");
    }
}
