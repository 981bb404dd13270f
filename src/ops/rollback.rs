//! `dotpack rollback`: the project restored to its state right after a generation, as a new
//! generation. The project's own files get their bytes back, host files edited by someone else
//! since are merged entry by entry; user-scope files are shared with other projects, so the
//! restored manifest and lock are installed again at user scope, through the claims and their
//! owners, as `dotpack install` would.

use std::path::Path;

use anyhow::Result;

use crate::model::hosts::Scope;
use crate::model::lock::{LOCK_FILE, Lockfile};
use crate::model::manifest::{self, MANIFEST_FILE};
use crate::plan::Mode;
use crate::txn::files::FileWrite;
use crate::txn::{self, rollback};
use crate::ui::printer::Printer;

use super::{Project, Settings};

/// What `dotpack rollback` was asked.
pub struct RollbackOptions {
    /// The generation to restore; `None`: the one before the newest.
    pub generation: Option<u64>,
    /// Whose generations: the project's, or (`--scope user`) the user's.
    pub scope: Option<Scope>,
    /// Restore dotpack.toml even when it was edited since dotpack last wrote it.
    pub force: bool,
    pub dry_run: bool,
}

/// A rollback planned: where it commits, the generation it restores, and what it writes.
pub struct Planned {
    pub places: txn::Places,
    pub keep: usize,
    pub target: u64,
    pub plan: rollback::RollbackPlan,
    /// The project's folder (`$DOTPACK_HOME` for the user-level manifest).
    pub root: Option<std::path::PathBuf>,
}

/// Plans the rollback `options` asks for (under the state lock unless `dry_run`): the
/// project's files by bytes, the user-scope ones planned from the restored manifest and lock.
pub fn plan(settings: &Settings, printer: &Printer, options: &RollbackOptions) -> Result<Planned> {
    let (mut places, keep) = super::state_places(settings, options.scope)?;
    if !options.dry_run {
        // Planned under the lock: no other dotpack changes the files in between.
        places.lock(settings.wait, printer)?;
    }
    let generations = places.generations()?;
    let target = match options.generation {
        Some(n) => n,
        None => rollback::default_target(&generations)?,
    };
    let mut plan = rollback::plan(&places, &generations, target)?;
    let root = project_root(settings, &places.state);
    let user_state = drop_user_writes(settings, root.as_deref(), &mut plan);
    if let Some(edited) = plan.overwritten.iter().find(|f| f.ends_with(MANIFEST_FILE))
        && !options.force
    {
        crate::bail_help!(
            help = "save your edits elsewhere and run `dotpack rollback --force`, or make the change you want with `dotpack add`/`remove`",
            "{edited} was edited since dotpack last wrote it; rolling back would lose those edits"
        );
    }
    if let Some(root) = &root {
        remove_created_dirs(root, &mut plan.writes);
        let dry_run = options.dry_run;
        let restoring = Restoring {
            writes: &plan.writes,
            user_state: &user_state,
            dry_run,
        };
        let mut user = user_scope_writes(settings, printer, root, &restoring)?;
        if !user.is_empty() && !places.locks.contains(&settings.dotpack_home) {
            places.locks.push(settings.dotpack_home.clone());
            if !dry_run {
                places.lock(settings.wait, printer)?;
            }
        }
        plan.writes.append(&mut user);
    }
    Ok(Planned {
        places,
        keep,
        target,
        plan,
        root,
    })
}

/// User-scope files are shared: they are planned from the restored manifest, not restored by
/// bytes, so their writes (and what was said of them) leave the plan. Returns those writes: the
/// user-scope state the rollback restores, which adopted entries come back from.
fn drop_user_writes(
    settings: &Settings,
    root: Option<&Path>,
    plan: &mut rollback::RollbackPlan,
) -> Vec<UserState> {
    let user_claims = settings.dotpack_home.join("claims.toml");
    let is_user = |path: &Path, host: bool| {
        path == user_claims || (host && !root.is_some_and(|r| path.starts_with(r)))
    };
    let user_names: Vec<String> = plan
        .writes
        .iter()
        .filter(|w| is_user(&w.path, w.host.is_some()))
        .map(|w| w.display.clone())
        .collect();
    let (user, project): (Vec<FileWrite>, Vec<FileWrite>) = std::mem::take(&mut plan.writes)
        .into_iter()
        .partition(|w| is_user(&w.path, w.host.is_some()));
    plan.writes = project;
    let state = user
        .into_iter()
        .map(|write| UserState {
            // Not merged: the file is as dotpack last left it, and `after` is the generation's
            // exact bytes.
            as_left: !plan.merged.contains(&write.display),
            write,
        })
        .collect();
    plan.merged.retain(|f| !user_names.contains(f));
    plan.overwritten.retain(|f| !user_names.contains(f));
    state
}

/// A user-scope file as the generation a rollback restores left it.
struct UserState {
    write: FileWrite,
    /// The file is as dotpack last left it now, so nobody else's edits are in it.
    as_left: bool,
}

/// What a rollback restores: the project's files by bytes (`writes`), and the user-scope state
/// of the generation (`user_state`), planned again rather than written.
struct Restoring<'a> {
    writes: &'a [FileWrite],
    user_state: &'a [UserState],
    dry_run: bool,
}

/// Commits a planned rollback as a new generation. Returns its id (`None`: nothing changed).
pub fn apply(settings: &Settings, printer: &Printer, planned: &Planned) -> Result<Option<u64>> {
    let plan = &planned.plan;
    crate::txn::files::preflight(&plan.writes)?;
    let meta = txn::Meta {
        command: settings.recorded_command(&|_| false),
        packages: plan.packages.clone(),
        rollback_to: Some(planned.target),
        merged: plan.merged.clone(),
        keep: planned.keep,
    };
    txn::apply(&planned.places, &plan.writes, meta, settings.wait, printer)
}

/// What a rollback does to the entries of one host file.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct EntryChanges {
    pub file: String,
    pub host: String,
    pub added: Vec<String>,
    pub updated: Vec<String>,
    pub removed: Vec<String>,
}

impl EntryChanges {
    /// `1 added, 2 removed`, as the status lines of other commands say it.
    pub fn summary(&self) -> String {
        [
            (&self.added, "added"),
            (&self.updated, "updated"),
            (&self.removed, "removed"),
        ]
        .iter()
        .filter(|(names, _)| !names.is_empty())
        .map(|(names, word)| format!("{} {word} ({})", names.len(), names.join(", ")))
        .collect::<Vec<_>>()
        .join(", ")
    }
}

/// The entries each host file of `writes` gains, changes and loses: its text before and after,
/// parsed in the host's format. A file that does not parse is left out (its bytes are restored
/// all the same).
pub fn entry_changes(planned: &Planned, settings: &Settings) -> Vec<EntryChanges> {
    let (Some(root), writes) = (planned.root.as_deref(), &planned.plan.writes) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for write in writes.iter().filter(|w| w.is_changed()) {
        let Some(host) = write.host.as_deref().and_then(crate::model::hosts::adapter) else {
            continue;
        };
        let target = [
            crate::model::hosts::Scope::Project,
            crate::model::hosts::Scope::User,
        ]
        .into_iter()
        .filter_map(|scope| {
            crate::plan::targets::Target::new(host, scope, root, &settings.host_env).ok()
        })
        .find(|t| t.path == write.path || t.claim_file == write.display);
        let Some(target) = target else {
            continue;
        };
        let entries = |text: Option<&str>| {
            crate::plan::ParsedFile::parse(&target, text.unwrap_or(""))
                .ok()
                .map(|p| p.entries)
        };
        let (Some(before), Some(after)) = (
            entries(write.before.as_deref()),
            entries(write.after.as_deref()),
        ) else {
            continue;
        };
        let mut change = EntryChanges {
            file: write.display.clone(),
            host: host.id.to_string(),
            ..EntryChanges::default()
        };
        for (name, value) in &after {
            match before.get(name) {
                None => change.added.push(name.clone()),
                Some(old) if old != value => change.updated.push(name.clone()),
                Some(_) => {}
            }
        }
        change.removed = before
            .keys()
            .filter(|name| !after.contains_key(*name))
            .cloned()
            .collect();
        out.push(change);
    }
    out
}

/// `--json`: `{"schema": 1, "dry_run", "rolled_back_to", "generation", "files", "packages"}`.
pub fn rollback_json(
    target: u64,
    id: Option<u64>,
    writes: &[crate::txn::files::FileWrite],
    packages: &[txn::PackageChange],
    dry_run: bool,
) -> serde_json::Value {
    serde_json::json!({
        "schema": 1,
        "dry_run": dry_run,
        "rolled_back_to": target,
        "generation": id,
        "files": writes
            .iter()
            .filter(|w| w.is_changed())
            .map(|w| &w.display)
            .collect::<Vec<_>>(),
        "packages": packages,
    })
}

/// The folder of the manifest whose generations live in `state`: the project's (its
/// `.dotpack/`), or `$DOTPACK_HOME` for the user-level manifest.
fn project_root(settings: &Settings, state: &Path) -> Option<std::path::PathBuf> {
    if state == settings.dotpack_home {
        return Some(settings.dotpack_home.clone());
    }
    state.parent().map(Path::to_path_buf)
}

/// A project host file the rollback deletes takes along the folders dotpack created for it
/// (`.codex/` for `.codex/config.toml`), as `remove` and `uninstall` do: the current lock's
/// claims on the file say how many. Never more than the folders between the project and the file.
fn remove_created_dirs(root: &Path, writes: &mut [FileWrite]) {
    let path = root.join(LOCK_FILE);
    let fence = crate::util::fence::Fence::project(root);
    let Some(lock) =
        crate::util::fence::read_text(&path, Some(&fence), crate::util::fence::LOCK_CAP)
            .ok()
            .flatten()
            .and_then(|text| crate::model::lock::parse(&path, &text).ok())
    else {
        return;
    };
    for write in writes
        .iter_mut()
        .filter(|w| w.host.is_some() && w.before.is_some() && w.after.is_none())
    {
        let inside = Path::new(&write.display)
            .components()
            .count()
            .saturating_sub(1);
        let created = lock
            .claims
            .iter()
            .filter(|c| c.file == write.display && write.host.as_deref() == Some(c.host.as_str()))
            .map(|c| c.created_dirs)
            .max()
            .unwrap_or(0);
        write.remove_dirs = created.min(u32::try_from(inside).unwrap_or(u32::MAX));
    }
}

/// The user-scope writes that make this project's user-scope entries what the restored
/// manifest and lock declare: planned like `dotpack install`, with every owner's claims.
fn user_scope_writes(
    settings: &Settings,
    printer: &Printer,
    root: &Path,
    restoring: &Restoring<'_>,
) -> Result<Vec<FileWrite>> {
    let dry_run = restoring.dry_run;
    let Some(project) = restored_project(settings, root, restoring.writes)? else {
        let owner = super::owner_id(root);
        let user = crate::model::claims::UserClaims::load(&settings.dotpack_home)?;
        if user.claims.iter().any(|c| c.owners.contains(&owner)) {
            printer.warning(format!(
                "the restored {MANIFEST_FILE} has git merge conflict markers: this project's user-scope entries stay as they are until `dotpack merge` settles it"
            ));
        }
        return Ok(Vec::new());
    };
    let registries = super::registries(settings, Some(&project.manifest))?;
    let plan = user_plan(settings, &project, &registries, restoring.user_state)?;
    for warning in &plan.warnings {
        printer.warning(warning);
    }
    // What a restored manifest sends to the user scope needs the same consent as `install`: a
    // generation a clone made (an `uninstall`, say) must not bring its servers in by the back door.
    let empty = Lockfile::empty();
    let lock = project.lock.as_ref().unwrap_or(&empty);
    let at_user = super::user_scope(&plan, settings, &project.manifest, lock, false);
    super::check_user_scope(
        settings,
        printer,
        &project,
        &at_user,
        &Default::default(),
        dry_run,
    )?;
    let claims_write = super::user_claims_write(&project, &plan);
    let mut out = super::file_writes(plan);
    out.extend(claims_write);
    Ok(out)
}

/// The project as the rollback restores it: its manifest and lock from `writes` (else as they
/// are on disk), with every owner's user-scope claims; `None` when the restored manifest is one a
/// merge left with conflict markers (rolling back `dotpack merge`), which plans nothing.
fn restored_project(
    settings: &Settings,
    root: &Path,
    writes: &[FileWrite],
) -> Result<Option<Project>> {
    let global = root == settings.dotpack_home;
    // A project's manifest and lock stay in it; the user-level ones are the user's own.
    let fence = (!global).then(|| crate::util::fence::Fence::project(root));
    let restored = |name: &str| -> Result<Option<String>> {
        let path = root.join(name);
        match writes.iter().find(|w| w.path == path) {
            Some(w) => Ok(w.after.as_deref().map(str::to_owned)),
            None => {
                crate::util::fence::read_text(&path, fence.as_ref(), crate::util::fence::LOCK_CAP)
            }
        }
    };
    let manifest_path = root.join(MANIFEST_FILE);
    let manifest_text = restored(MANIFEST_FILE)?.unwrap_or_default();
    if crate::util::conflict::has_markers(&manifest_text) {
        return Ok(None);
    }
    let manifest = manifest::parse(&manifest_path, manifest_text)?;
    let lock_text = restored(LOCK_FILE)?;
    let lock = match &lock_text {
        Some(text) => crate::model::lock::parse(&root.join(LOCK_FILE), text)?,
        None => Lockfile::empty(),
    };
    let project = Project {
        lock_path: root.join(LOCK_FILE),
        // The restored texts: a state the user's own commands once left is theirs again.
        lock_text,
        lock: Some(lock),
        lock_conflicted: false,
        new_manifest: false,
        global,
        user_claims: crate::model::claims::UserClaims::load(&settings.dotpack_home)?,
        owner: super::owner_id(root),
        manifest,
        settled: Default::default(),
    };
    Ok(Some(project))
}

/// The user-scope host and resource files the restored project plans, as `dotpack install`
/// would, with every owner's claims.
fn user_plan(
    settings: &Settings,
    project: &Project,
    registries: &crate::resolve::RegistrySet,
    user_state: &[UserState],
) -> Result<crate::plan::Plan> {
    let manifest = &project.manifest;
    let empty = Lockfile::empty();
    let lock = project.lock.as_ref().unwrap_or(&empty);
    let global = project.global;
    // Only the user-scope files: the project's own come back by bytes, and what is in them
    // (an entry dotpack does not own, say) does not stop the rollback.
    let claims = super::all_claims(project);
    let placed = crate::plan::desired::place(&crate::plan::desired::Where {
        manifest,
        lock,
        claims: &claims,
        owner: &project.owner,
        env: &settings.host_env,
        global,
    })?
    .at_scope(Scope::User);
    let originals = adopted_originals(settings, &project.owner, &placed, user_state);
    let mut plan = crate::plan::desired::plan_targets(crate::plan::desired::PlanRequest {
        placed: &placed,
        lock,
        manifest: &manifest.manifest,
        registries,
        claims: &claims,
        owner: &project.owner,
        force: false,
        keep_edited: false,
        // Rolling back past an adoption gives the entry back to the user: it was there before.
        keep_adopted: true,
        originals: &originals,
        lossy: &Default::default(),
        previous: project.lock.as_ref(),
        mode: Mode::Sync,
        // An entry of the restored state was written before, so one that needs a value
        // resolved was written with `--resolve-env`, whose claim this rollback may have undone.
        resolve_env: true,
        starts: Default::default(),
    })?;
    keep_bytes_of_then(&mut plan, user_state);
    let (files, claims) = user_resources(settings, project, registries)?;
    plan.files.extend(files);
    plan.resources = Some(claims);
    Ok(plan)
}

/// A file dotpack alone changed since, planned to read as it did then, gets its bytes back:
/// an adopted entry comes back spaced as the user wrote it.
fn keep_bytes_of_then(plan: &mut crate::plan::Plan, user_state: &[UserState]) {
    for file in &mut plan.files {
        let Some(state) = user_state
            .iter()
            .find(|s| s.as_left && s.write.path == file.target.path)
        else {
            continue;
        };
        if let (Some(planned), Some(then)) = (&file.after, &state.write.after)
            && planned != then
            && file.target.reads_the_same(planned, then)
        {
            file.after = Some(then.clone());
        }
    }
}

/// The user-scope resource files the restored project plans, and their claims; what the restored
/// manifest left out before is left out again (nothing is refused as lossy here).
fn user_resources(
    settings: &Settings,
    project: &Project,
    registries: &crate::resolve::RegistrySet,
) -> Result<(
    Vec<crate::plan::FilePlan>,
    Vec<crate::model::resources::FileClaim>,
)> {
    let manifest = &project.manifest;
    let empty = Lockfile::empty();
    let lock = project.lock.as_ref().unwrap_or(&empty);
    let global = project.global;
    let keep_out = crate::plan::LossyPolicy {
        bare: true,
        named: crate::model::resources::lossy_names()
            .map(str::to_string)
            .collect(),
    };
    let resources =
        crate::plan::resources::project::plan_project(&crate::plan::resources::project::Request {
            manifest,
            lock,
            registries,
            claims: &lock.files,
            user_claims: &project.user_claims.files,
            home: &settings.host_env.home,
            owner: &project.owner,
            global,
            force: false,
            keep_edited: false,
            lossy: &keep_out,
            mode: &Mode::Sync,
            scopes: &[Scope::User],
            staged: &Default::default(),
        })?;
    let files = resources
        .files
        .into_iter()
        .filter(|f| f.target.scope == Scope::User)
        .collect();
    let claims = resources
        .claims
        .into_iter()
        .filter(|c| c.scope == "user")
        .collect();
    Ok((files, claims))
}

/// The entries this project had adopted in the user-scope state the rollback restores, with
/// their values there: an adopted entry an uninstall took out comes back as the user wrote it.
/// A state that cannot be read gives none, and the entries are written from their definitions.
fn adopted_originals(
    settings: &Settings,
    owner: &str,
    placed: &crate::plan::desired::Placed,
    user_state: &[UserState],
) -> crate::plan::Originals {
    let mut originals = crate::plan::Originals::new();
    let claims_path = settings.dotpack_home.join("claims.toml");
    let Some(text) = user_state
        .iter()
        .find(|s| s.write.path == claims_path)
        .and_then(|s| s.write.after.as_deref().map(str::to_owned))
    else {
        return originals;
    };
    let Ok(restored) = crate::model::claims::UserClaims::from_text(claims_path, text) else {
        return originals;
    };
    for target in &placed.targets {
        let adopted: Vec<&crate::model::claims::Claim> = restored
            .claims
            .iter()
            .filter(|c| c.adopted && c.file == target.claim_file && c.is_owned_by(owner))
            .collect();
        let Some(after) = adopted
            .first()
            .and_then(|_| user_state.iter().find(|s| s.write.path == target.path))
            .and_then(|s| s.write.after.as_deref())
        else {
            continue;
        };
        let Some(entries) = target.entries_in(after) else {
            continue;
        };
        for claim in adopted {
            if let Some((_, entry)) = entries.iter().find(|(name, _)| *name == claim.server) {
                originals.insert(
                    (claim.file.clone(), claim.server.clone()),
                    crate::plan::Original {
                        entry: entry.clone(),
                        claim: claim.clone(),
                    },
                );
            }
        }
    }
    originals
}

/// The verb (and its infinitive, for "Would …") and the words for one package change a rollback
/// makes, as `add` and `remove` say them.
pub fn describe(change: &txn::PackageChange) -> (&'static str, &'static str, String) {
    match (&change.from, &change.to) {
        (None, Some(to)) => ("Adding", "add", format!("{} v{to}", change.name)),
        (Some(from), None) => ("Removing", "remove", format!("{} v{from}", change.name)),
        (Some(from), Some(to)) => (
            "Restoring",
            "restore",
            format!("{} v{from} -> v{to}", change.name),
        ),
        (None, None) => ("Restoring", "restore", change.name.clone()),
    }
}
