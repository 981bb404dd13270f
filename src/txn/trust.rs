//! Which state folders dotpack acts on. A journal tells dotpack to write files and a generation
//! tells rollback what to restore, so a state folder is a list of instructions: dotpack follows
//! only the ones it wrote itself, on this machine.
//!
//! - `$DOTPACK_HOME` is the user's own: trusted when the user owns it (through a symlink, the
//!   folder it points to).
//! - A project's `.dotpack/` is trusted only when dotpack made it: every one dotpack creates is
//!   recorded in `$DOTPACK_HOME/state-folders.json` with its canonical path, device and inode
//!   numbers and a random id also written inside it (`.dotpack/state-id`). A `.dotpack/` that
//!   came with a clone, a copy or an archive matches none of them; neither does one moved from
//!   elsewhere, or a new folder that happens to get a freed inode number.
//! - Either is untrusted when it is not a real folder owned by the user, or when its `objects/`,
//!   `generations/`, `journal.json` or `lock` is a symbolic link.
//!
//! An untrusted folder is never read for instructions: commands that only read go on without it
//! after a warning, commands that write refuse ([`Untrusted`]), and `dotpack doctor --repair`
//! moves it aside ([`move_aside`]).

use std::io::Read;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

use crate::util::portable;

use crate::util::error::{Error, Fix};
use crate::util::fsutil;

/// The registry of project state folders dotpack made, in `$DOTPACK_HOME`.
pub const REGISTRY_FILE: &str = "state-folders.json";
/// Serialises changes to [`REGISTRY_FILE`]; held only while it is rewritten.
pub const REGISTRY_LOCK: &str = "state-folders.lock";
/// The random id of a project state folder, also recorded in the registry.
pub const ID_FILE: &str = "state-id";
/// Entries of a state folder that must never be symbolic links.
const INNER: [&str; 4] = ["objects", "generations", "journal.json", "lock"];

#[derive(Debug, Default, Serialize, Deserialize)]
struct Registry {
    #[serde(default)]
    folders: Vec<Entry>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
struct Entry {
    /// Canonical path of the `.dotpack/` folder.
    path: PathBuf,
    dev: u64,
    ino: u64,
    /// The content of its [`ID_FILE`].
    id: String,
}

/// Why a state folder is not used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Distrust {
    /// dotpack did not make it on this machine: it came with a clone, a copy or an archive.
    NotMade,
    /// dotpack made it at another path: it was moved or copied here.
    MadeElsewhere(PathBuf),
    /// It is a symbolic link (to this target).
    Symlink(PathBuf),
    NotAFolder,
    NotOwned {
        owner: u32,
        me: u32,
    },
    /// One of its entries is a symbolic link.
    LinkInside(&'static str),
    /// Its metadata or the registry cannot be read.
    Unreadable(String),
}

impl std::fmt::Display for Distrust {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Distrust::NotMade => f.write_str(
                "dotpack did not make it on this machine (it came with a clone, a copy or an archive)",
            ),
            Distrust::MadeElsewhere(at) => write!(
                f,
                "dotpack made it at {}, and it was moved or copied here",
                at.display()
            ),
            Distrust::Symlink(to) => write!(f, "it is a symbolic link to {}", to.display()),
            Distrust::NotAFolder => f.write_str("it is not a folder"),
            Distrust::NotOwned { owner, me } => {
                write!(f, "it belongs to user id {owner}, not to you (user id {me})")
            }
            Distrust::LinkInside(name) => write!(f, "its `{name}` is a symbolic link"),
            Distrust::Unreadable(why) => write!(f, "it cannot be checked: {why}"),
        }
    }
}

/// What dotpack may do with a state folder.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// It does not exist yet.
    Absent,
    /// It exists and holds nothing but a lock file: there is nothing in it to act on, and a
    /// writing command makes it its own (a dotpack killed right after creating it leaves one).
    Empty,
    Trusted,
    Untrusted(Distrust),
}

/// A writing command met a state folder it does not trust.
#[derive(Debug, thiserror::Error)]
#[error("{}", self.error())]
pub struct Untrusted {
    pub folder: PathBuf,
    pub reason: Distrust,
    /// Whether it is `$DOTPACK_HOME` (else a project's `.dotpack/`).
    pub home: bool,
}

impl Fix for Untrusted {
    fn error(&self) -> Error {
        Error::new(format!(
            "refusing to use the state folder {}: {}; its journal and generations could make dotpack change files it never wrote",
            self.folder.display(),
            self.reason
        ))
        .help(help(self.home, &self.reason))
        .file(&self.folder)
    }
}

fn help(home: bool, reason: &Distrust) -> &'static str {
    match (home, reason) {
        (false, _) => {
            "run `dotpack doctor --repair` to move it aside (it is renamed to .dotpack.untrusted-<time>, nothing is deleted); the next command makes a fresh one"
        }
        (true, Distrust::LinkInside(_)) => {
            "run `dotpack doctor --repair` to move the link aside (nothing is deleted)"
        }
        (true, _) => {
            "point DOTPACK_HOME at a folder of your own, or make this one yours (it holds your claims and generations)"
        }
    }
}

/// The effective user id of this process.
pub fn my_uid() -> u32 {
    portable::my_uid()
}

/// Whether dotpack may act on the state folder `state`; `home` is `$DOTPACK_HOME`, which holds
/// the registry (and is judged by its owner alone when `state` is it).
pub fn verdict(state: &Path, home: &Path) -> Verdict {
    match verdict_unlocked(state, home) {
        // Another dotpack may be creating and recording this folder right now: ask again once
        // it is done (it holds the registry's lock while it does).
        Verdict::Untrusted(Distrust::NotMade) => {
            match fsutil::ExclusiveLock::take(&home.join(REGISTRY_LOCK)) {
                Ok(_guard) => verdict_unlocked(state, home),
                Err(_) => Verdict::Untrusted(Distrust::NotMade),
            }
        }
        other => other,
    }
}

/// Whether the state folder `state` is `$DOTPACK_HOME` (`home`): the same path, or the same
/// folder without a link at `state`. A project's `.dotpack` that is a link is never the user's
/// home, whatever it points at (a link to `$DOTPACK_HOME` would make a repository's `rollback`
/// roll back the user's own files).
pub fn is_home(state: &Path, home: &Path) -> bool {
    state == home
        || (!std::fs::symlink_metadata(state).is_ok_and(|m| m.file_type().is_symlink())
            && fsutil::resolve(state) == fsutil::resolve(home))
}

/// [`verdict`] without waiting for a dotpack that is recording a new folder.
fn verdict_unlocked(state: &Path, home: &Path) -> Verdict {
    let is_home = is_home(state, home);
    let meta = match std::fs::symlink_metadata(state) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Verdict::Absent,
        Err(e) => return Verdict::Untrusted(Distrust::Unreadable(e.to_string())),
    };
    let meta = if meta.file_type().is_symlink() {
        let target = std::fs::read_link(state).unwrap_or_default();
        match std::fs::metadata(state) {
            // The user's own home may live elsewhere (a dotfiles folder); a project's may not.
            Ok(real) if is_home => real,
            _ => return Verdict::Untrusted(Distrust::Symlink(target)),
        }
    } else {
        meta
    };
    if !meta.is_dir() {
        return Verdict::Untrusted(Distrust::NotAFolder);
    }
    let me = my_uid();
    let owner = portable::owner(&meta);
    if owner != me {
        return Verdict::Untrusted(Distrust::NotOwned { owner, me });
    }
    for name in INNER {
        if std::fs::symlink_metadata(state.join(name)).is_ok_and(|m| m.file_type().is_symlink()) {
            return Verdict::Untrusted(Distrust::LinkInside(name));
        }
    }
    if is_home {
        return Verdict::Trusted;
    }
    let registry = match Registry::load(home) {
        Ok(r) => r,
        Err(e) => return Verdict::Untrusted(Distrust::Unreadable(format!("{e:#}"))),
    };
    let id = read_id(state);
    let path = fsutil::resolve(state);
    let made_here = registry.folders.iter().any(|e| {
        e.path == path && (e.dev, e.ino) == portable::identity(&meta) && Some(&e.id) == id.as_ref()
    });
    if made_here {
        return Verdict::Trusted;
    }
    if is_empty(state) {
        return Verdict::Empty;
    }
    match registry
        .folders
        .iter()
        .find(|e| Some(&e.id) == id.as_ref() && e.path != path)
    {
        Some(e) => Verdict::Untrusted(Distrust::MadeElsewhere(e.path.clone())),
        None => Verdict::Untrusted(Distrust::NotMade),
    }
}

/// Makes `state` ready for a writing command: creates it when absent (a project's is recorded
/// in the registry), makes an empty one dotpack's own, and fails with [`Untrusted`] for one it
/// does not trust. `$DOTPACK_HOME` is prepared first, as it holds the registry.
pub fn prepare(state: &Path, home: &Path) -> Result<()> {
    let is_home = is_home(state, home);
    match verdict(home, home) {
        Verdict::Absent => create_home(home)?,
        Verdict::Untrusted(reason) => {
            return Err(Untrusted {
                folder: home.to_path_buf(),
                reason,
                home: true,
            }
            .into());
        }
        Verdict::Empty | Verdict::Trusted => {}
    }
    if is_home {
        return Ok(());
    }
    if verdict(state, home) == Verdict::Trusted {
        return Ok(());
    }
    // Creating and recording a folder happen under the registry's lock, so two dotpacks
    // starting in one project agree on its id.
    let _guard = fsutil::ExclusiveLock::take(&home.join(REGISTRY_LOCK))?;
    match verdict_unlocked(state, home) {
        Verdict::Trusted => Ok(()),
        Verdict::Absent => {
            match std::fs::create_dir(state) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
                Err(e) => {
                    return Err(e).with_context(|| {
                        format!("cannot create the state folder {}", state.display())
                    });
                }
            }
            match verdict_unlocked(state, home) {
                Verdict::Absent | Verdict::Empty => register(state, home),
                Verdict::Trusted => Ok(()),
                Verdict::Untrusted(reason) => Err(untrusted(state, reason)),
            }
        }
        Verdict::Empty => register(state, home),
        Verdict::Untrusted(reason) => Err(untrusted(state, reason)),
    }
}

fn untrusted(state: &Path, reason: Distrust) -> anyhow::Error {
    Untrusted {
        folder: state.to_path_buf(),
        reason,
        home: false,
    }
    .into()
}

fn create_home(home: &Path) -> Result<()> {
    fs_err::create_dir_all(home)?;
    // Snapshots of user config files may hold tokens: the folder is the user's alone.
    portable::make_private(home);
    Ok(())
}

/// Records the (empty) project state folder `state` as dotpack's own: a new id in the registry
/// first, then in the folder, so a dotpack killed in between leaves an empty folder that the
/// next one records again. The caller holds the registry lock.
fn register(state: &Path, home: &Path) -> Result<()> {
    let meta = fs_err::symlink_metadata(state)?;
    let id = new_id(state, &meta);
    let path = fsutil::resolve(state);
    let mut registry = Registry::load(home)?;
    registry.folders.retain(|e| e.path != path);
    let (dev, ino) = portable::identity(&meta);
    registry.folders.push(Entry {
        path,
        dev,
        ino,
        id: id.clone(),
    });
    registry.save(home)?;
    fsutil::write_atomic(&state.join(ID_FILE), format!("{id}\n").as_bytes())
}

/// A random id, unguessable from outside this machine: 16 bytes of the system's random
/// source, mixed with the time and the folder's identity in case it cannot be read.
fn new_id(state: &Path, meta: &std::fs::Metadata) -> String {
    let mut random = [0u8; 16];
    let _ = std::fs::File::open("/dev/urandom").and_then(|mut f| f.read_exact(&mut random));
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    let (dev, ino) = portable::identity(meta);
    let seed = format!(
        "{random:?} {now} {} {dev} {ino} {}",
        std::process::id(),
        state.display()
    );
    super::store::hash(seed.as_bytes())[..32].to_string()
}

fn read_id(state: &Path) -> Option<String> {
    let path = state.join(ID_FILE);
    let meta = std::fs::symlink_metadata(&path).ok()?;
    if !meta.file_type().is_file() || meta.len() > 256 {
        return None;
    }
    Some(std::fs::read_to_string(path).ok()?.trim().to_string())
}

/// Whether `state` holds nothing but a regular `lock` file.
fn is_empty(state: &Path) -> bool {
    let Ok(entries) = std::fs::read_dir(state) else {
        return false;
    };
    entries
        .flatten()
        .all(|e| e.file_name() == "lock" && e.file_type().is_ok_and(|t| t.is_file()))
}

/// The roots of the projects whose state folders dotpack made (and that are still there).
pub fn known_projects(home: &Path) -> Vec<PathBuf> {
    Registry::load(home)
        .map(|r| r.folders)
        .unwrap_or_default()
        .into_iter()
        .filter(|e| {
            std::fs::symlink_metadata(&e.path)
                .is_ok_and(|m| portable::identity(&m) == (e.dev, e.ino))
        })
        .filter_map(|e| e.path.parent().map(Path::to_path_buf))
        .collect()
}

/// Renames `path` (a state folder, or a link or journal in one) to
/// `<name>.untrusted-<UTC time>` beside it, never deleting anything; returns the new path.
pub fn move_aside(path: &Path, tag: &str) -> Result<PathBuf> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let stamp: String = super::generation::rfc3339(std::time::SystemTime::now())
        .chars()
        .filter(|c| !matches!(c, '-' | ':'))
        .collect();
    let base = path.with_file_name(format!("{name}.{tag}-{stamp}"));
    let mut target = base.clone();
    let mut n = 1;
    while std::fs::symlink_metadata(&target).is_ok() {
        n += 1;
        target = PathBuf::from(format!("{}-{n}", base.display()));
    }
    fs_err::rename(path, &target)?;
    if let Some(parent) = path.parent() {
        fsutil::sync_dir(parent);
    }
    Ok(target)
}

impl Registry {
    fn path(home: &Path) -> PathBuf {
        home.join(REGISTRY_FILE)
    }

    fn load(home: &Path) -> Result<Registry> {
        let path = Registry::path(home);
        match std::fs::read_to_string(&path) {
            Ok(text) => serde_json::from_str(&text).with_context(|| {
                format!(
                    "{} is corrupt; delete it (every project's .dotpack/ is then untrusted until `dotpack doctor --repair` moves it aside)",
                    path.display()
                )
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Registry::default()),
            Err(e) => Err(e).with_context(|| format!("cannot read {}", path.display())),
        }
    }

    fn save(&self, home: &Path) -> Result<()> {
        let text = serde_json::to_string_pretty(self)?;
        fsutil::write_atomic(&Registry::path(home), text.as_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_dotpack_made_is_trusted_and_a_copy_of_it_is_not() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        let state = dir.path().join("p/.dotpack");
        std::fs::create_dir_all(state.parent().unwrap()).unwrap();
        assert_eq!(verdict(&state, &home), Verdict::Absent);
        prepare(&state, &home).unwrap();
        assert_eq!(verdict(&state, &home), Verdict::Trusted);
        std::fs::create_dir(state.join("generations")).unwrap();
        // A copy elsewhere: same id, other inode and path.
        let copy = dir.path().join("q/.dotpack");
        std::fs::create_dir_all(&copy).unwrap();
        std::fs::copy(state.join(ID_FILE), copy.join(ID_FILE)).unwrap();
        assert!(matches!(
            verdict(&copy, &home),
            Verdict::Untrusted(Distrust::MadeElsewhere(_))
        ));
        assert!(prepare(&copy, &home).is_err());
        // Replaced at the same path by another folder.
        let moved = move_aside(&state, "untrusted").unwrap();
        assert!(moved.to_string_lossy().contains(".dotpack.untrusted-"));
        std::fs::create_dir(&state).unwrap();
        std::fs::copy(moved.join(ID_FILE), state.join(ID_FILE)).unwrap();
        assert!(matches!(verdict(&state, &home), Verdict::Untrusted(_)));
    }

    #[test]
    fn dotpack_home_is_trusted_when_it_is_the_user_s_even_through_a_link() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("dotfiles/dotpack");
        std::fs::create_dir_all(&real).unwrap();
        let home = dir.path().join("home");
        std::os::unix::fs::symlink(&real, &home).unwrap();
        assert_eq!(verdict(&home, &home), Verdict::Trusted);
        prepare(&home, &home).unwrap();
        std::os::unix::fs::symlink(dir.path(), real.join("generations")).unwrap();
        assert_eq!(
            verdict(&home, &home),
            Verdict::Untrusted(Distrust::LinkInside("generations"))
        );
        assert!(prepare(&home, &home).is_err());
    }

    #[test]
    fn an_empty_folder_is_made_dotpack_s_own_and_links_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        let state = dir.path().join("p/.dotpack");
        std::fs::create_dir_all(&state).unwrap();
        std::fs::write(state.join("lock"), "").unwrap();
        assert_eq!(verdict(&state, &home), Verdict::Empty);
        prepare(&state, &home).unwrap();
        assert_eq!(verdict(&state, &home), Verdict::Trusted);
        std::os::unix::fs::symlink(dir.path(), state.join("objects")).unwrap();
        assert_eq!(
            verdict(&state, &home),
            Verdict::Untrusted(Distrust::LinkInside("objects"))
        );
        // A project's `.dotpack` linking to $DOTPACK_HOME is not the user's home.
        let project = dir.path().join("q");
        std::fs::create_dir_all(&project).unwrap();
        std::os::unix::fs::symlink(&home, project.join(".dotpack")).unwrap();
        assert!(!is_home(&project.join(".dotpack"), &home));
        assert!(matches!(
            verdict(&project.join(".dotpack"), &home),
            Verdict::Untrusted(Distrust::Symlink(_))
        ));
        assert!(prepare(&project.join(".dotpack"), &home).is_err());
        let link = dir.path().join("r/.dotpack");
        std::fs::create_dir_all(link.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink(&state, &link).unwrap();
        assert!(matches!(
            verdict(&link, &home),
            Verdict::Untrusted(Distrust::Symlink(_))
        ));
    }
}
