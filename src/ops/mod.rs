//! The flows commands share: load the project, open its registries, resolve, and write the
//! manifest, lock, claims and host files. Commands decide *what* to change; this module decides
//! *how*.
//!
//! - [`Settings`] and [`InstallOptions`]: flags and environment, decided once at the edge and
//!   passed down (no command-line parsing type reaches the library);
//! - [`Project`]: the loaded manifest, lock and user-scope claims;
//! - `registries`: the default and named registries;
//! - `locking`: resolution into a lock, and what changed between two locks;
//! - `commit`: planning the host files and committing everything as one transaction.

pub(crate) mod add;
mod add_inputs;
mod approve;
mod commit;
pub(crate) mod connect;
pub(crate) mod consent;
pub(crate) mod declare;
mod environment;
mod errors;
pub(crate) mod gateway;
pub(crate) mod history;
pub(crate) mod import_into;
pub(crate) mod import_resources;
pub(crate) mod import_source;
pub(crate) mod info;
pub(crate) mod init;
pub(crate) mod launch;
mod lifecycle;
pub(crate) mod list;
mod locking;
pub(crate) mod merge;
pub(crate) mod outdated;
mod owners;
pub(crate) mod packages;
pub(crate) mod preview;
pub(crate) mod probe;
pub(crate) mod proxy;
pub(crate) mod publish;
mod registries;
mod relock;
mod replan;
pub(crate) mod report;
pub(crate) mod rollback;
pub(crate) mod runtimes;
pub(crate) mod schema_file;
pub(crate) mod search;
pub(crate) mod secret_check;
pub(crate) mod secrets;
mod starts;
pub mod tokens;
pub(crate) mod tool_cache;
pub(crate) mod tool_pins;
pub(crate) mod tree;
pub(crate) mod trust;
pub(crate) mod uninstall;
pub(crate) mod validate;
pub(crate) mod verify;

pub use add::{AddOptions, add};
pub use add_inputs::{SetArg, parse_inputs};
pub use approve::{ask, check_user_scope, record_more, record_one, user_scope, with_dependencies};
pub use commit::{
    Finish, Outcome, all_claims, commit, file_writes, finish, keep_generations, outside_requests,
    place, plan_hosts, touches_user_scope, user_claims_write,
};
pub use environment::{ask_secrets, environment_needed, print_environment_needed};
pub use errors::Reported;
pub use locking::{Change, lock_changes, lock_is_fresh, resolve_lock};
pub use registries::{
    RegistryFlag, folder_request, folder_requests, registries, registries_with_default,
    registry_flag, root_deps,
};
pub use relock::{Relock, relock_and_apply};
pub use replan::replanning;
pub use starts::{check_starts, record_starts, start_request, start_requests, unapproved_starts};

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::Result;
use semver::Version;

use crate::model::claims::UserClaims;
use crate::model::hosts::{HostEnv, Scope};
use crate::model::lock::{LOCK_FILE, Lockfile};
use crate::model::manifest::{self, LoadedManifest, MANIFEST_FILE};
use crate::plan::LossyPolicy;
use crate::ui::printer::Printer;

/// Settings every command shares, decided once from flags and the environment.
#[derive(Clone, Debug)]
pub struct Settings {
    pub cwd: PathBuf,
    pub manifest_path: Option<PathBuf>,
    /// `--registry`: a `[registries]` name, a folder or a URL.
    pub registry_flag: Option<String>,
    /// `DOTPACK_REGISTRY`: the default registry's folder or URL in this environment.
    pub registry_env: Option<String>,
    /// Fail when dotpack.lock is missing or would change.
    pub locked: bool,
    /// Use nothing but local data.
    pub offline: bool,
    /// `--global`: the user-level manifest in `$DOTPACK_HOME`, installed at user scope.
    pub global: bool,
    /// Home folder and host-specific locations, for user-scope files.
    pub host_env: HostEnv,
    /// Where user-scope claims and the user-level manifest live: `$DOTPACK_HOME`, else
    /// `~/.dotpack`.
    pub dotpack_home: PathBuf,
    /// `--no-wait`: fail instead of waiting for another dotpack's lock.
    pub wait: crate::txn::Wait,
    /// The command line, recorded in generations (see [`Settings::recorded_command`]).
    pub command_line: Vec<String>,
    /// Timeout and retries of HTTP registries (`DOTPACK_HTTP_TIMEOUT`, `DOTPACK_HTTP_RETRIES`,
    /// `DOTPACK_HTTP_RETRY_DELAY_MS`); `offline` and redirects come from [`Settings::network`].
    pub http: crate::registry::Network,
    /// `--trust`: allow, for this run, everything the project asks for beyond itself.
    pub trust: bool,
}

impl Settings {
    /// How HTTP registries may use the network: `offline` from the flags, the rest as the command
    /// line decided it once from the environment (`DOTPACK_ALLOW_REDIRECTS`, timeouts, retries)
    /// and the terminal (the spinner).
    pub fn network(&self) -> crate::registry::Network {
        crate::registry::Network {
            offline: self.offline,
            ..self.http
        }
    }

    /// Settings for `home` as HOME and `cwd` as the current folder, nothing else set (tests and
    /// library callers).
    pub fn for_home(home: &Path, cwd: &Path) -> Settings {
        Settings {
            cwd: cwd.to_path_buf(),
            manifest_path: None,
            registry_flag: None,
            registry_env: None,
            locked: false,
            offline: false,
            global: false,
            host_env: HostEnv::new(home),
            dotpack_home: home.join(".dotpack"),
            wait: crate::txn::Wait::Block,
            command_line: vec!["dotpack".to_string()],
            http: crate::registry::Network::default(),
            trust: false,
        }
    }

    /// The command line as generations record it: the values of `--set` for `secret` are
    /// replaced, so a value typed by mistake never reaches the state folder.
    pub fn recorded_command(&self, secret: &dyn Fn(&str) -> bool) -> Vec<String> {
        redact_sets(&self.command_line, secret)
    }

    /// The user-level manifest, `$DOTPACK_HOME/dotpack.toml`.
    pub fn global_manifest(&self) -> PathBuf {
        self.dotpack_home.join(MANIFEST_FILE)
    }
}

/// `--set KEY=VALUE` and `--set=KEY=VALUE` with `secret(KEY)` become `--set KEY=<redacted>`.
fn redact_sets(args: &[String], secret: &dyn Fn(&str) -> bool) -> Vec<String> {
    let redact = |pair: &str| match pair.split_once('=') {
        Some((key, _)) if secret(key.trim()) => format!("{key}=<redacted>"),
        _ => pair.to_string(),
    };
    let mut out = Vec::with_capacity(args.len());
    let mut next_is_value = false;
    for arg in args {
        if next_is_value {
            out.push(redact(arg));
            next_is_value = false;
        } else if arg == "--set" {
            out.push(arg.clone());
            next_is_value = true;
        } else if let Some(pair) = arg.strip_prefix("--set=") {
            out.push(format!("--set={}", redact(pair)));
        } else {
            out.push(arg.clone());
        }
    }
    out
}

/// What a command asks of the host files, from `--host`, `--scope`, `--force`,
/// `--allow-lossy` and `--dry-run`.
#[derive(Clone, Debug, Default)]
pub struct InstallOptions {
    /// Host ids given with `--host`, lowercase.
    pub hosts: Vec<String>,
    pub scope: Option<Scope>,
    pub force: bool,
    /// `--keep-edited`: an entry or file edited by hand that nothing declares any more is left
    /// as it is and no longer claimed.
    pub keep_edited: bool,
    pub lossy: LossyPolicy,
    pub dry_run: bool,
    /// `--write-outside-project`: a project host file may resolve outside the project.
    pub write_outside_project: bool,
    /// `--resolve-env`: at user scope, write a reference a host cannot express as the
    /// variable's current value (see [`crate::model::resolved_env`]).
    pub resolve_env: bool,
    /// Files `import --into` is about to write into the project (relative, `/`-separated):
    /// the project's own resources are read from these instead of the disk.
    pub staged: crate::model::resources::Files,
    /// What the command line allows beyond the project for this run (see [`crate::ops::consent`]).
    pub grant: crate::ops::consent::Grant,
}

impl Settings {
    /// The paths transaction records may name in this run: the project's, `$DOTPACK_HOME`'s
    /// and the hosts' user config files. Built here and only here.
    pub fn boundary(&self, project_root: Option<&Path>) -> crate::txn::Boundary {
        crate::txn::Boundary::new(project_root, &self.dotpack_home, &self.host_env)
    }
}

/// Where the generations of `scope` live, and how many to keep: the project's `.dotpack/`
/// (the default inside a project) or `$DOTPACK_HOME` (`--scope user`, `--global`, or outside a
/// project).
pub fn state_places(
    settings: &Settings,
    scope: Option<Scope>,
) -> Result<(crate::txn::Places, usize)> {
    let want_user = scope == Some(Scope::User) || settings.global;
    let want_project = scope == Some(Scope::Project);
    let manifest = if want_user {
        manifest::load_in(&settings.global_manifest(), None).ok()
    } else {
        match find_manifest(settings) {
            Ok(path) => match manifest::load(&path) {
                Ok(m) => Some(m),
                Err(e) if want_project => return Err(e.into()),
                Err(_) => None,
            },
            Err(e) if want_project => return Err(e),
            Err(_) => None,
        }
    };
    let keep = manifest
        .as_ref()
        .map_or(crate::txn::DEFAULT_KEEP, keep_generations);
    let root = manifest.as_ref().map(|m| m.root().to_path_buf());
    let places = match &root {
        Some(root) if !want_user => {
            crate::txn::Places::project(root, settings.boundary(Some(root)))
        }
        _ => crate::txn::Places::user(None, settings.boundary(root.as_deref())),
    };
    Ok((places, keep))
}

/// The project's `dotpack.toml` (`--manifest-path`, else found from the current folder up),
/// refused when another user owns it and the user has not approved that (see [`owners`]).
pub fn find_manifest(settings: &Settings) -> Result<PathBuf> {
    let path = crate::model::manifest_edit::find_manifest(
        settings.manifest_path.as_deref(),
        &settings.cwd,
    )?;
    owners::check_owner(settings, &path)?;
    Ok(path)
}

/// What the project asks for because another user owns its files (none when it is yours).
pub fn owner_requests(project: &Project) -> Option<crate::ops::consent::Request> {
    owners::owner_request(
        project.root(),
        &owners::foreign_files(&project.manifest.path),
    )
}

/// The project's manifest (the user-level one with `--global`) when there is one that loads, for
/// commands that work outside a project too (search, info).
pub fn optional_manifest(settings: &Settings) -> Option<LoadedManifest> {
    let path = if settings.global {
        settings.global_manifest()
    } else {
        find_manifest(settings).ok()?
    };
    match settings.global {
        true => manifest::load_in(&path, None).ok(),
        false => manifest::load(&path).ok(),
    }
}

/// The folder of the project's dotpack.toml, if there is one.
pub fn project_root(settings: &Settings) -> Option<PathBuf> {
    if settings.global {
        return None;
    }
    let path = find_manifest(settings).ok()?;
    Some(path.parent()?.to_path_buf())
}

/// A loaded project: its manifest, its lock when present, and the user-scope claims.
pub struct Project {
    pub manifest: LoadedManifest,
    pub lock_path: PathBuf,
    pub lock_text: Option<String>,
    pub lock: Option<Lockfile>,
    /// The lock file had git merge conflict markers (recovered in memory).
    pub lock_conflicted: bool,
    /// The manifest file does not exist yet (the user-level manifest before its first `add`).
    pub new_manifest: bool,
    /// The user-level manifest (`--global`): every host at user scope.
    pub global: bool,
    /// `$DOTPACK_HOME/claims.toml`.
    pub user_claims: UserClaims,
    /// How this project names itself as an owner of user-scope entries.
    pub owner: String,
    /// What `dotpack merge` read with conflict markers and settled in memory.
    pub settled: merge::Settled,
}

impl Project {
    /// Finds and loads `dotpack.toml` and `dotpack.lock` (the user-level ones with `--global`),
    /// failing on any error in either. A lock with merge conflict markers is recovered in memory
    /// (see [`crate::model::lock::recover`]) and said so; the next writing command writes it.
    pub fn load(settings: &Settings, printer: &Printer) -> Result<Project> {
        Self::load_or_create(settings, printer, false)
    }

    /// [`Project::load`], except that with `--global` a missing user-level manifest is created
    /// in memory (written by the command's transaction), for `add --global`.
    pub fn load_or_create(settings: &Settings, printer: &Printer, create: bool) -> Result<Project> {
        Self::load_settled(settings, printer, create, merge::Settled::default())
    }

    /// [`Project::load_or_create`] with what `dotpack merge` settled: the united manifest text
    /// instead of the conflicted one, and host files' sides that claims are checked against.
    pub fn load_settled(
        settings: &Settings,
        printer: &Printer,
        create: bool,
        settled: merge::Settled,
    ) -> Result<Project> {
        let _phase = tracing::debug_span!("load").entered();
        let (path, new_manifest) = manifest_path(settings, create)?;
        let manifest = if new_manifest {
            let text = crate::model::manifest_edit::initial_global_manifest(&detected_user_hosts(
                settings,
            ));
            manifest::parse(&path, text)?
        } else if let Some(united) = &settled.manifest {
            manifest::parse_with_files(&path, united.united.clone())?
        } else if settings.global {
            manifest::load_in(&path, None)?
        } else {
            manifest::load(&path)?
        };
        tracing::debug!(path = %path.display(), bytes = manifest.text.len(), new = new_manifest, "read manifest");
        // What loading found that is not an error (an unknown key ignored, a literal secret) is
        // said by every command that reads the manifest, not only by `validate`.
        for warning in &manifest.warnings {
            printer.diagnostic_with_source(warning, &manifest.text);
        }
        let lock_path = manifest.root().join(LOCK_FILE);
        let mut lock_conflicted = false;
        // The user-level lock lives in $DOTPACK_HOME, the user's own; a project's stays in it.
        let fence = (!settings.global).then(|| crate::util::fence::Fence::project(manifest.root()));
        let (lock_text, lock) = match crate::util::fence::read_text(
            &lock_path,
            fence.as_ref(),
            crate::util::fence::LOCK_CAP,
        )? {
            Some(text) => {
                tracing::debug!(path = %lock_path.display(), bytes = text.len(), "read lock");
                let matches = |claim: &crate::model::claims::Claim| {
                    claim_matches_file(claim, manifest.root(), &settings.host_env, &settled)
                };
                let (lock, untrusted) =
                    match crate::model::lock::recover(&lock_path, &text, &matches)? {
                        Some(recovered) => {
                            printer.warning(recovered.describe(&lock_path));
                            lock_conflicted = true;
                            (recovered.lock, recovered.untrusted)
                        }
                        None => crate::model::lock::read(&lock_path, &text)?,
                    };
                if let Some(warning) = untrusted.warning() {
                    printer.warning(warning);
                }
                (Some(text), Some(lock))
            }
            None => (None, None),
        };
        let user_claims = UserClaims::load(&settings.dotpack_home)?;
        let owner = owner_id(manifest.root());
        Ok(Project {
            manifest,
            lock_path,
            lock_text,
            lock,
            lock_conflicted,
            new_manifest,
            global: settings.global,
            user_claims,
            owner,
            settled,
        })
    }

    /// The versions currently locked, which resolution keeps where they still fit.
    pub fn locked_versions(&self) -> BTreeMap<String, Version> {
        self.lock
            .as_ref()
            .map(Lockfile::preferred)
            .unwrap_or_default()
    }

    pub fn root(&self) -> &Path {
        self.manifest.root()
    }

    /// The digest of the manifest and lock as they were read: whether the user's own commands
    /// left the project in this state is what decides much of [`crate::ops::consent`].
    pub fn state(&self) -> String {
        crate::ops::consent::state_digest(self.manifest_on_disk(), self.lock_text.as_deref())
    }

    /// The manifest's bytes on disk: its text, or the conflicted text `dotpack merge` united.
    pub fn manifest_on_disk(&self) -> &str {
        match &self.settled.manifest {
            Some(united) => &united.on_disk,
            None => &self.manifest.text,
        }
    }

    /// `lock` as a command that does not resolve (`uninstall`, `adopt`) writes it back: as it is,
    /// unless it was read from a git conflict, which holds both sides' packages; then it is
    /// resolved again from `manifest`, as by every command that writes the lock.
    pub fn lock_to_write(
        &self,
        lock: Lockfile,
        manifest: &LoadedManifest,
        registries: &crate::resolve::RegistrySet,
    ) -> Result<Lockfile> {
        if !self.lock_conflicted {
            return Ok(lock);
        }
        resolve_lock(manifest, registries, self.locked_versions(), Some(&lock))
    }
}

/// The name an owner of user-scope entries goes by: its manifest's folder, absolute.
pub fn owner_id(root: &Path) -> String {
    let absolute = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    absolute.display().to_string()
}

/// Whether the entry `claim` names is in its file with the hash the claim recorded (`None`: it
/// is not in the file, or the claim names no file dotpack writes).
fn claim_matches_file(
    claim: &crate::model::claims::Claim,
    root: &Path,
    env: &HostEnv,
    settled: &merge::Settled,
) -> Option<bool> {
    let target = crate::plan::targets::Target::of_claim(claim, root, env)?;
    let text = match settled.files.get(&target.path) {
        Some(file) => file.start.clone(),
        None => target.read().ok()??,
    };
    let container = target.host.container;
    crate::formats::get_entry(target.host.format, &text, container, &claim.server)
        .ok()
        .flatten()
        .map(|entry| crate::model::claims::entry_hash(&entry) == claim.entry)
}

/// Hosts whose user-scope files or markers exist, for a new user-level manifest.
fn detected_user_hosts(settings: &Settings) -> Vec<&'static str> {
    crate::model::hosts::ADAPTERS
        .iter()
        .filter(|a| a.user_file.is_some())
        .filter(|a| a.detected(Scope::User, &settings.dotpack_home, &settings.host_env))
        .map(|a| a.id)
        .collect()
}

/// The manifest a command reads, and whether it is new: the user-level one with `--global`
/// (made in memory when `create` asks and none exists), else the project's.
fn manifest_path(settings: &Settings, create: bool) -> Result<(PathBuf, bool)> {
    if !settings.global {
        return Ok((find_manifest(settings)?, false));
    }
    let path = settings.global_manifest();
    let exists = path.is_file();
    if !exists && !create {
        crate::bail_help!(
            help = "`dotpack add --global NAME` creates it",
            "there is no user-level manifest ({})",
            path.display()
        );
    }
    Ok((path, !exists))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secret_set_values_are_redacted_in_both_spellings() {
        let args: Vec<String> = [
            "dotpack",
            "add",
            "github",
            "--set",
            "github_token=ghp_x",
            "--set=toolsets=all",
            "--set=github_token=ghp_y",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let out = redact_sets(&args, &|k| k == "github_token");
        assert_eq!(
            out[3..],
            [
                "--set",
                "github_token=<redacted>",
                "--set=toolsets=all",
                "--set=github_token=<redacted>"
            ]
        );
    }
}
