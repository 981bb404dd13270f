//! The end of every writing command: plan the host files, then commit manifest, lock, claims
//! and host files as one transaction (or print them, with `--dry-run`). Lines that say a file
//! changed are printed only after the transaction committed.

use std::borrow::Cow;
use std::collections::BTreeSet;

use anyhow::Result;

use crate::model::claims::{Claim, UserClaims};
use crate::model::lock::{LOCK_FILE, Lockfile};
use crate::model::manifest::LoadedManifest;
use crate::plan::desired::{Placed, PlanRequest, Where};
use crate::plan::{Action, Mode, Plan};
use crate::resolve::RegistrySet;
use crate::txn::files::FileWrite;
use crate::ui::printer::Printer;
use crate::util::text::Text;

use super::locking::{Change, lock_changes};
use super::{InstallOptions, Project, Settings};

/// Plans the host files for `lock`: the servers of its packages into every target the manifest
/// declares, and out of every file this project's claims name but no longer wants.
pub fn plan_hosts(
    settings: &Settings,
    project: &Project,
    registries: &RegistrySet,
    manifest: &LoadedManifest,
    lock: &Lockfile,
    options: &InstallOptions,
    mode: Mode,
) -> Result<(Plan, Placed)> {
    let _phase = tracing::debug_span!("plan").entered();
    let claims = all_claims(project);
    let mut placed = place(settings, project, manifest, lock, &claims)?;
    check_inside_project(&mut placed, manifest.root(), options.write_outside_project)?;
    let mut plan = crate::plan::desired::plan_targets(PlanRequest {
        placed: &placed,
        lock,
        manifest: &manifest.manifest,
        registries,
        claims: &claims,
        owner: &project.owner,
        force: options.force,
        keep_edited: options.keep_edited,
        keep_adopted: false,
        originals: &Default::default(),
        lossy: &options.lossy,
        previous: project.lock.as_ref(),
        mode: mode.clone(),
        resolve_env: options.resolve_env,
        starts: project.settled.starts(),
    })?;
    let file_claims: &[crate::model::resources::FileClaim] =
        project.lock.as_ref().map_or(&[], |l| &l.files);
    let resources =
        crate::plan::resources::project::plan_project(&crate::plan::resources::project::Request {
            manifest,
            lock,
            registries,
            claims: file_claims,
            user_claims: &project.user_claims.files,
            home: &settings.host_env.home,
            owner: &project.owner,
            global: project.global,
            force: options.force,
            keep_edited: options.keep_edited,
            lossy: &options.lossy,
            mode: &mode,
            scopes: &[
                crate::model::hosts::Scope::Project,
                crate::model::hosts::Scope::User,
            ],
            staged: &options.staged,
        })?;
    plan.files.extend(resources.files);
    plan.warnings.extend(resources.warnings);
    plan.allowed.extend(resources.allowed);
    plan.resources = Some(resources.claims);
    Ok((plan, placed))
}

/// A project host file must be in the project once symlinks are resolved: a repository cannot
/// make dotpack write `~/.claude.json` (or anything else) through a link named `.mcp.json`.
/// `allowed` (`--write-outside-project`) lifts the project targets' fences instead.
fn check_inside_project(placed: &mut Placed, root: &std::path::Path, allowed: bool) -> Result<()> {
    if allowed {
        for target in &mut placed.targets {
            target.fence = None;
        }
        return Ok(());
    }
    let real_root = crate::util::fsutil::resolve(root);
    for target in placed
        .targets
        .iter()
        // An approved link out of the project had its fence lifted by `place`.
        .filter(|t| t.scope == crate::model::hosts::Scope::Project && t.fence.is_some())
    {
        let real = crate::util::fsutil::resolve(&target.path);
        if !real.starts_with(&real_root) {
            crate::bail_help!(
                help = format!(
                    "replace the link with a file, or pass --write-outside-project if you mean to write {}",
                    real.display()
                ),
                "{} resolves to {}, outside the project; dotpack writes project files only inside the project",
                target.claim_file,
                real.display()
            );
        }
    }
    Ok(())
}

/// Where the servers of `manifest` and `lock` go for `project`, with `claims` saying where its
/// entries are now.
pub fn place(
    settings: &Settings,
    project: &Project,
    manifest: &LoadedManifest,
    lock: &Lockfile,
    claims: &[Claim],
) -> Result<Placed> {
    let mut placed = crate::plan::desired::place(&Where {
        manifest,
        lock,
        claims,
        owner: &project.owner,
        env: &settings.host_env,
        global: project.global,
    })?;
    lift_approved_fences(settings, project, &mut placed)?;
    Ok(placed)
}

/// Project host files that lead out of the project through a link the user approved (by
/// writing it with `--write-outside-project`) are read and written through it, by every
/// command, while the link still leads where it did.
fn lift_approved_fences(settings: &Settings, project: &Project, placed: &mut Placed) -> Result<()> {
    let outside = outside_requests(placed, project.root());
    if outside.is_empty() {
        return Ok(());
    }
    let approvals = crate::ops::consent::Approvals::load(&settings.dotpack_home)?;
    for (i, request) in outside {
        if approvals.covers(&project.owner, &request) {
            placed.targets[i].fence = None;
        }
    }
    Ok(())
}

/// The project targets of `placed` whose file resolves outside `root`, each with the request to
/// write it there (keyed by the file, its digest the path it resolves to).
pub fn outside_requests(
    placed: &Placed,
    root: &std::path::Path,
) -> Vec<(usize, crate::ops::consent::Request)> {
    let real_root = crate::util::fsutil::resolve(root);
    placed
        .targets
        .iter()
        .enumerate()
        .filter(|(_, t)| t.scope == crate::model::hosts::Scope::Project)
        .filter_map(|(i, t)| {
            let real = crate::util::fsutil::resolve(&t.path);
            let shown = real.display().to_string();
            (!real.starts_with(&real_root)).then(|| {
                let request = crate::ops::consent::Request::new(
                    crate::ops::consent::Kind::Outside,
                    t.claim_file.clone(),
                    crate::ops::consent::digest(&[&t.claim_file, &shown]),
                    format!("{} -> {shown} ({})", t.claim_file, t.host.id),
                );
                (i, request)
            })
        })
        .collect()
}

/// The project's claims (from its lock) and every owner's user-scope claims; borrowed when
/// there is only one of the two.
pub fn all_claims(project: &Project) -> Cow<'_, [Claim]> {
    let locked: &[Claim] = project.lock.as_ref().map_or(&[], |l| &l.claims);
    let user = &project.user_claims.claims;
    match (locked.is_empty(), user.is_empty()) {
        (_, true) => Cow::Borrowed(locked),
        (true, false) => Cow::Borrowed(user),
        (false, false) => Cow::Owned(locked.iter().chain(user).cloned().collect()),
    }
}

/// The end of every command that changes the project and its hosts.
pub struct Finish<'a> {
    /// The manifest as the command leaves it, and its new text when the command edited it.
    pub manifest: &'a LoadedManifest,
    pub manifest_text: Option<String>,
    pub lock: Lockfile,
    pub options: &'a InstallOptions,
    pub mode: Mode,
    /// What the command changed in dotpack.toml, as `(verb, what)` status lines.
    pub edits: Vec<(String, String)>,
}

/// Plans the host files for the new lock, then commits manifest, lock, claims and host files as
/// one transaction.
pub fn finish(
    settings: &Settings,
    printer: &Printer,
    project: &Project,
    registries: &RegistrySet,
    finish: Finish<'_>,
) -> Result<()> {
    let (plan, placed) = plan_hosts(
        settings,
        project,
        registries,
        finish.manifest,
        &finish.lock,
        finish.options,
        finish.mode.clone(),
    )?;
    let mut finish = finish;
    if !settings.locked {
        record_lossy_choices(&plan.allowed, &mut finish)?;
    }
    for claim in &placed.ignored_claims {
        printer.warning(format!(
            "{} claims {claim}, which is not a file dotpack writes for that host now; ignored",
            project.user_claims.path.display()
        ));
    }
    let at_user = super::approve::user_scope(&plan, settings, finish.manifest, &finish.lock, false);
    super::approve::check_user_scope(
        settings,
        printer,
        project,
        &at_user,
        &finish.options.grant,
        finish.options.dry_run,
    )?;
    // Packages named on the command line are the user's choice wherever they go next.
    let named: Vec<crate::ops::consent::Request> = finish
        .options
        .grant
        .named
        .iter()
        .filter_map(|name| {
            super::approve::package_request(&finish.manifest.manifest, &finish.lock, name)
        })
        .collect();
    let no_hosts = placed.targets.is_empty()
        && finish
            .manifest
            .manifest
            .project
            .as_ref()
            .is_none_or(|p| p.hosts.is_empty());
    commit_recording(
        settings,
        printer,
        Outcome {
            project,
            manifest_text: finish.manifest_text,
            lock: finish.lock,
            hosts: Some(plan),
            dry_run: finish.options.dry_run,
            edits: finish.edits,
            no_hosts,
            staged: Vec::new(),
            imported: false,
        },
        Some(super::approve::AtUser {
            placed: &at_user,
            named: &named,
            named_at_user_scope: !finish.options.grant.scope_user.is_empty(),
        }),
    )?;
    if !finish.options.dry_run && finish.options.write_outside_project {
        // The user said so on the command line: later commands may follow these links.
        let outside = outside_requests(&placed, project.root());
        let outside: Vec<&crate::ops::consent::Request> = outside.iter().map(|(_, r)| r).collect();
        super::approve::record_more(settings, &project.owner, &outside)?;
    }
    Ok(())
}

/// Writes what only `--allow-lossy` let the plan leave out into dotpack.toml, where the thing
/// lives: the dependency's `allow_lossy`, or `[project] allow_lossy` for the project's own
/// servers and resources. The next command then agrees without the flag. Under `--locked` the
/// committed files are not changed, and the flag is needed each time.
fn record_lossy_choices(
    allowed: &std::collections::BTreeSet<(String, String)>,
    finish: &mut Finish<'_>,
) -> Result<()> {
    if allowed.is_empty() {
        return Ok(());
    }
    let manifest = finish.manifest;
    let text = finish.manifest_text.as_deref().unwrap_or(&manifest.text);
    let mut editor = crate::model::manifest_edit::ManifestEditor::parse(&manifest.path, text)?;
    let file = manifest
        .path
        .file_name()
        .map_or_else(|| "dotpack.toml".into(), |n| n.to_string_lossy());
    let mut changed = false;
    for (package, name) in allowed {
        let own = package == crate::plan::desired::LOCAL_PACKAGE;
        let added = if own {
            editor.allow_lossy_for_project(name)?
        } else if manifest.manifest.dependencies.contains_key(package) {
            editor.allow_lossy_for_dependency(package, name)?
        } else {
            false
        };
        if added {
            changed = true;
            let place = if own {
                "[project] allow_lossy".to_string()
            } else {
                format!("{package}'s allow_lossy")
            };
            finish.edits.push((
                "Allowing".to_string(),
                format!("{name} to be left out where a host cannot keep it ({place} in {file})"),
            ));
        }
    }
    if changed {
        finish.manifest_text = Some(editor.render());
    }
    Ok(())
}

/// What a writing command wants on disk: the new manifest text (if it changes), the new lock, and
/// the plan for the host files (`None`: the command does not touch them, as `dotpack lock`).
pub struct Outcome<'a> {
    pub project: &'a Project,
    pub manifest_text: Option<String>,
    pub lock: Lockfile,
    pub hosts: Option<Plan>,
    pub dry_run: bool,
    pub edits: Vec<(String, String)>,
    /// The project declares no host and holds no claim: said after the other lines.
    pub no_hosts: bool,
    /// New files written into the project (relative path, text): what `import --into` copies.
    pub staged: Vec<(String, String)>,
    /// The command took its content from files rather than from its command line (`import
    /// --into` reads host files a repository may have shipped): the state it leaves is not the
    /// user's own, whatever the state it started from.
    pub imported: bool,
}

/// Applies an outcome: checks `--locked`, writes every changed file (host files, user claims,
/// manifest, lock) as one transaction after checking all of them can be written, then prints
/// what changed. With `dry_run`, prints what would change and the unified diffs, and writes
/// nothing.
pub fn commit(settings: &Settings, printer: &Printer, outcome: Outcome<'_>) -> Result<()> {
    commit_recording(settings, printer, outcome, None)
}

/// [`commit`], then one update of the approvals: the project's new state when it started from
/// one of the user's own, and what `at_user` says it now has at user scope.
fn commit_recording(
    settings: &Settings,
    printer: &Printer,
    outcome: Outcome<'_>,
    at_user: Option<super::approve::AtUser<'_>>,
) -> Result<()> {
    let _phase = tracing::debug_span!("apply").entered();
    let Outcome {
        project,
        manifest_text,
        mut lock,
        hosts: mut host_plan,
        dry_run,
        edits,
        no_hosts,
        staged,
        imported,
    } = outcome;
    let pins = match uses_launcher(project, manifest_text.as_deref()) {
        true => launcher_pins(host_plan.as_ref()),
        false => Vec::new(),
    };
    let (user_write, user_files) = take_claims(project, &mut lock, host_plan.as_mut());
    crate::ops::tool_pins::carry(project.lock.as_ref(), &mut lock, &project.manifest.manifest);
    let lock_text = lock.emit();
    let nothing_locked = nothing_locked_now(project, &lock);
    let new_state = crate::ops::consent::state_digest(
        manifest_text.as_deref().unwrap_or(&project.manifest.text),
        (!nothing_locked).then_some(lock_text.as_str()),
    );
    // Packages this command moved to a new version or checksum: in a state of the user's own,
    // the user's command chose them (an `update`), so they may start (`verify`) as locked.
    let moved_packages = super::approve::moved_packages(project, &lock);
    check_locked(settings, project, &lock, nothing_locked)?;
    let changes = lock_changes(project.lock.as_ref(), &lock);
    let mut report = commit_report(dry_run, &edits, &changes);
    let lock_text = (!nothing_locked).then_some(lock_text);
    let gathered = gather_writes(
        project,
        host_plan,
        user_write,
        staged,
        manifest_text,
        lock_text,
    );
    report.files = gathered.files;
    let (writes, warnings) = (gathered.writes, gathered.warnings);
    trace_plan(&writes, changes.len(), warnings.len(), dry_run);
    if dry_run {
        print_dry_run(printer, &edits, &changes, &writes, &warnings);
        report.warnings = warnings;
        json_report(printer, &report);
        return Ok(());
    }
    let id = apply_writes(settings, printer, project, &writes, user_files, &changes)?;
    record_launcher_pins(settings, printer, &pins);
    let new_state = (!imported).then_some(new_state);
    super::approve::after_commit(
        settings,
        printer,
        project,
        new_state.as_deref(),
        at_user,
        &moved_packages,
    );
    // Committed: now say what changed.
    print_committed(
        printer,
        project,
        &edits,
        &changes,
        &gathered.summary,
        &warnings,
    );
    print_finished(printer, no_hosts, id);
    report.generation = id;
    report.warnings = warnings;
    json_report(printer, &report);
    Ok(())
}

/// Whether the project uses the launcher, before this command or after it (`add --launcher`):
/// reading the entries back costs a parse of each host file, which only such a project pays.
fn uses_launcher(project: &Project, manifest_text: Option<&str>) -> bool {
    project.manifest.manifest.uses_any_launcher()
        || manifest_text.is_some_and(|text| {
            toml::from_str::<crate::model::manifest::Manifest>(text)
                .is_ok_and(|m| m.uses_any_launcher())
        })
}

/// Records the launcher entries this commit leaves (see [`crate::ops::launch`]); a failure only
/// warns, since the files are written: the store serves those entries after the next install.
fn record_launcher_pins(settings: &Settings, printer: &Printer, pins: &[String]) {
    if let Err(e) = crate::ops::launch::record_pins(&settings.dotpack_home, pins) {
        printer.warning(format!(
            "could not record the launcher entries dotpack wrote ({e:#}): the credential store \
             gives them no secret until an install records them"
        ));
    }
}

/// The pins of the launcher entries (`dotpack run --pin …`) this project's claims hold in the
/// host files as `plan` leaves them, changed or not: what `dotpack run` may give secrets from
/// the store to (see [`crate::ops::launch`]).
fn launcher_pins(plan: Option<&crate::plan::Plan>) -> Vec<String> {
    let Some(plan) = plan else {
        return Vec::new();
    };
    let mut pins = Vec::new();
    for file in &plan.files {
        let Some(text) = file.after.as_deref().or(file.before.as_deref()) else {
            continue;
        };
        let claimed: Vec<&str> = plan
            .claims
            .iter()
            .filter(|c| c.file == file.target.claim_file)
            .map(|c| c.server.as_str())
            .collect();
        if claimed.is_empty() {
            continue;
        }
        for (name, entry) in file.target.entries_in(text).unwrap_or_default() {
            if !claimed.contains(&name.as_str()) {
                continue;
            }
            let args: Option<Vec<String>> = entry["args"].as_array().map(|items| {
                items
                    .iter()
                    .filter_map(|a| a.as_str().map(str::to_string))
                    .collect()
            });
            if crate::model::launcher::is_entry(entry["command"].as_str(), args.as_deref())
                && let Some(pin) = args.as_ref().and_then(|a| a.get(2))
            {
                pins.push(pin.clone());
            }
        }
    }
    pins
}

/// The `--json` report of a commit, before its files, warnings and generation are known.
fn commit_report(
    dry_run: bool,
    edits: &[(String, String)],
    changes: &[Change],
) -> super::report::CommitReport {
    super::report::CommitReport {
        schema: 1,
        dry_run,
        manifest: edits
            .iter()
            .map(|(verb, what)| format!("{verb} {what}"))
            .collect(),
        packages: changes.iter().map(Change::record).collect(),
        ..Default::default()
    }
}

/// Moves the claims of `plan` into `lock` (the project's) and the write of
/// `$DOTPACK_HOME/claims.toml` (the user-scope ones); without a plan, `lock` keeps the claims
/// it had. Returns that write and whether the commit touches the user scope.
fn take_claims(
    project: &Project,
    lock: &mut Lockfile,
    plan: Option<&mut Plan>,
) -> (Option<FileWrite>, bool) {
    let locked = project.lock.as_ref();
    let Some(plan) = plan else {
        lock.claims = locked.map(|l| l.claims.clone()).unwrap_or_default();
        lock.files = locked.map(|l| l.files.clone()).unwrap_or_default();
        return (None, false);
    };
    // Moved, not copied: a large project has tens of thousands of claims.
    let (user, claims): (Vec<Claim>, Vec<Claim>) = std::mem::take(&mut plan.claims)
        .into_iter()
        .partition(|c| c.scope == "user");
    lock.claims = claims;
    let (user_files_claims, files) = match plan.resources.take() {
        Some(all) => all.into_iter().partition(|c| c.scope == "user"),
        None => (
            project.user_claims.files.clone(),
            locked.map(|l| l.files.clone()).unwrap_or_default(),
        ),
    };
    lock.files = files;
    let write = user_claims_file(project, &user, &user_files_claims);
    let user_files = touches_user_scope(plan, write.as_slice());
    (write, user_files)
}

/// `--locked` refuses a lock that is missing, conflicted or would change.
fn check_locked(
    settings: &Settings,
    project: &Project,
    lock: &Lockfile,
    nothing_locked: bool,
) -> Result<()> {
    if !settings.locked
        || nothing_locked
        || (!project.lock_conflicted && project.lock.as_ref() == Some(lock))
    {
        return Ok(());
    }
    let why = if project.lock.is_none() {
        "dotpack.lock is missing"
    } else if project.lock_conflicted {
        "dotpack.lock has git merge conflict markers"
    } else {
        "dotpack.lock needs to be updated"
    };
    crate::bail_help!(
        help = "run the command without --locked (or --frozen) and commit the new dotpack.lock",
        "{why} but --locked was passed to prevent this"
    );
}

/// Every write of a commit, in order, with what the host files' part says.
struct Gathered {
    writes: Vec<FileWrite>,
    files: Vec<super::report::FileReport>,
    summary: Vec<(String, String)>,
    warnings: Vec<String>,
}

/// The writes of a commit in order: host files (in target order; their bytes move, they may be
/// large), the user claims, files staged into the project, the manifest, then the lock
/// (`lock_text`, `None` when nothing is locked).
fn gather_writes(
    project: &Project,
    host_plan: Option<Plan>,
    user_write: Option<FileWrite>,
    staged: Vec<(String, String)>,
    manifest_text: Option<String>,
    lock_text: Option<String>,
) -> Gathered {
    let mut gathered = Gathered {
        writes: Vec::new(),
        files: Vec::new(),
        summary: Vec::new(),
        warnings: Vec::new(),
    };
    if let Some(plan) = host_plan {
        gathered.files = super::report::files(&plan);
        gathered.summary = host_summary(&gathered.files);
        gathered.warnings = host_warnings(&plan);
        gathered.writes.extend(file_writes(plan));
    }
    project.settled.replace_in(&mut gathered.writes);
    gathered.writes.extend(user_write);
    let root = project.manifest.root();
    for (rel, text) in staged {
        gathered.writes.push(FileWrite {
            display: rel.clone(),
            host: None,
            path: root.join(&rel),
            before: None,
            after: Some(text.into()),
            remove_dirs: 0,
            resolved: Vec::new(),
            fence: Some(crate::util::fence::Fence::project(root)),
        });
    }
    gathered
        .writes
        .extend(project_writes(project, manifest_text, lock_text));
    gathered
}

/// The writes of the manifest (when its text changes) and the lock (unless `None`).
fn project_writes(
    project: &Project,
    manifest_text: Option<String>,
    lock_text: Option<String>,
) -> Vec<FileWrite> {
    let root = project.manifest.root();
    let mut writes = Vec::new();
    // The user-level manifest and lock live in $DOTPACK_HOME, the user's own.
    let fence = (!project.global).then(|| crate::util::fence::Fence::project(root));
    if let Some(text) = manifest_text {
        writes.push(FileWrite {
            display: manifest_display(project),
            host: None,
            path: project.manifest.path.clone(),
            before: (!project.new_manifest).then(|| project.manifest_on_disk().into()),
            after: Some(text.into()),
            remove_dirs: 0,
            resolved: Vec::new(),
            fence: fence.clone(),
        });
    }
    if let Some(lock_text) = lock_text {
        writes.push(FileWrite {
            display: if project.global {
                root.join(LOCK_FILE).display().to_string()
            } else {
                LOCK_FILE.to_string()
            },
            host: None,
            path: root.join(LOCK_FILE),
            before: project.lock_text.as_deref().map(Text::from),
            after: Some(lock_text.into()),
            remove_dirs: 0,
            resolved: Vec::new(),
            fence,
        });
    }
    writes
}

/// The debug trace of what a commit is about to write.
fn trace_plan(writes: &[FileWrite], lock_changes: usize, warnings: usize, dry_run: bool) {
    for w in writes.iter().filter(|w| w.is_changed()) {
        tracing::debug!(
            file = %w.display,
            action = match (&w.before, &w.after) {
                (None, _) => "create",
                (_, None) => "delete",
                _ => "edit",
            },
            "plan"
        );
    }
    tracing::debug!(
        files = writes.iter().filter(|w| w.is_changed()).count(),
        lock_changes,
        warnings,
        dry_run,
        "plan summary"
    );
}

/// `--dry-run`: what would change, the plan and its diffs (not with `--json`: the report says
/// what would change, and stdout holds only the document), then the warnings.
fn print_dry_run(
    printer: &Printer,
    edits: &[(String, String)],
    changes: &[Change],
    writes: &[FileWrite],
    warnings: &[String],
) {
    for (verb, what) in edits {
        printer.status("Would", format!("{} {what}", infinitive(verb)));
    }
    for change in changes {
        change.print_would(printer);
    }
    if !printer.json {
        crate::ops::preview::dry_run(printer, writes);
    }
    for warning in warnings {
        printer.warning(warning);
    }
    printer.warning("dry run: no file was changed");
}

/// Checks every write can be made, then applies them as one transaction, holding
/// `$DOTPACK_HOME`'s lock too when `user_files`. Returns the generation recorded, if any.
fn apply_writes(
    settings: &Settings,
    printer: &Printer,
    project: &Project,
    writes: &[FileWrite],
    user_files: bool,
    changes: &[Change],
) -> Result<Option<u64>> {
    crate::txn::files::preflight(writes)?;
    let root = project.manifest.root();
    let boundary = settings.boundary(Some(root));
    let places = if project.global {
        crate::txn::Places::user(None, boundary)
    } else {
        let mut places = crate::txn::Places::project(root, boundary);
        if user_files {
            places.locks.push(settings.dotpack_home.clone());
        }
        places
    };
    let meta = crate::txn::Meta {
        command: settings.recorded_command(&|_| false),
        packages: changes.iter().map(Change::record).collect(),
        keep: keep_generations(&project.manifest),
        ..crate::txn::Meta::default()
    };
    let id = crate::txn::apply(&places, writes, meta, settings.wait, printer)?;
    // A teammate's `install --locked` may change nothing, yet the manifest's `#:schema` line
    // names a file in the state folder: it is made then too (best effort, never in a folder
    // dotpack does not trust).
    let named = project
        .manifest
        .text
        .lines()
        .next()
        .is_some_and(|line| line.trim() == crate::model::schema::directive(project.global));
    if id.is_some()
        || (named && crate::txn::trust::prepare(&places.state, &settings.dotpack_home).is_ok())
    {
        super::schema_file::refresh(&places.state);
    }
    Ok(id)
}

/// After the commit: the manifest created, its edits, the lock's changes, the host files'
/// summary, then the warnings.
fn print_committed(
    printer: &Printer,
    project: &Project,
    edits: &[(String, String)],
    changes: &[Change],
    summary: &[(String, String)],
    warnings: &[String],
) {
    if project.new_manifest {
        printer.status("Created", project.manifest.path.display());
    }
    for (verb, what) in edits {
        printer.status(verb, what);
    }
    for change in changes {
        change.print(printer);
    }
    for (verb, what) in summary {
        printer.status(verb, what);
    }
    for warning in warnings {
        printer.warning(warning);
    }
}

/// The last lines of a commit: the generation recorded, after one line for a project that
/// declares no host and holds no claim. With nothing recorded there, that line is the last: it
/// says why nothing was installed, where "nothing to change" would hide it.
fn print_finished(printer: &Printer, no_hosts: bool, id: Option<u64>) {
    const ADD_ONE: &str = "`dotpack install --host HOST` adds one (`dotpack hosts` lists them)";
    match (no_hosts, id) {
        (true, None) => printer.warning(format!(
            "no target hosts: dotpack.toml names none under [project] hosts, so no server was installed; {ADD_ONE}"
        )),
        (true, Some(_)) => printer.warning(format!(
            "no target hosts: dotpack.toml names none under [project] hosts; only dotpack.toml and dotpack.lock were written; {ADD_ONE}"
        )),
        (false, _) => {}
    }
    match id {
        Some(id) => printer.status("Finished", format!("generation {id}")),
        None if no_hosts => {}
        None => printer.status("Finished", "nothing to change"),
    }
}

/// A project that locks nothing (no dependency, no claim) needs no lock file: none is written,
/// and `--locked` has nothing to hold.
fn nothing_locked_now(project: &Project, lock: &Lockfile) -> bool {
    project.lock.is_none()
        && lock.packages.is_empty()
        && lock.claims.is_empty()
        && lock.files.is_empty()
        && lock.tools.is_empty()
        && lock.requirements.is_empty()
}

/// With `--json`, the report on stdout (the status lines stay on stderr).
fn json_report(printer: &Printer, report: &super::report::CommitReport) {
    if printer.json
        && let Ok(value) = serde_json::to_value(report)
    {
        printer.json_out(&value);
    }
}

/// The write of `$DOTPACK_HOME/claims.toml` for the user-scope claims of `plan`, when they
/// change.
pub fn user_claims_write(project: &Project, plan: &Plan) -> Option<FileWrite> {
    let user: Vec<Claim> = plan
        .claims
        .iter()
        .filter(|c| c.scope == "user")
        .cloned()
        .collect();
    let files: Vec<crate::model::resources::FileClaim> = match &plan.resources {
        Some(all) => all.iter().filter(|c| c.scope == "user").cloned().collect(),
        None => project.user_claims.files.clone(),
    };
    user_claims_file(project, &user, &files)
}

/// The write of `$DOTPACK_HOME/claims.toml` holding `user` (every user-scope claim), when that
/// changes the file.
fn user_claims_file(
    project: &Project,
    user: &[Claim],
    files: &[crate::model::resources::FileClaim],
) -> Option<FileWrite> {
    let current = &project.user_claims;
    let text = (!user.is_empty() || !files.is_empty() || current.text.is_some())
        .then(|| UserClaims::render(user, files));
    (text != current.text).then(|| FileWrite {
        display: current.path.display().to_string(),
        host: None,
        path: current.path.clone(),
        before: current.text.as_deref().map(Text::from),
        after: text.map(Text::from),
        remove_dirs: 0,
        resolved: Vec::new(),
        fence: None,
    })
}

/// Whether committing `plan` (and `writes`) changes anything at user scope, so the transaction
/// must also hold `$DOTPACK_HOME`'s lock.
pub fn touches_user_scope(plan: &Plan, writes: &[FileWrite]) -> bool {
    !writes.is_empty()
        || plan
            .files
            .iter()
            .any(|f| f.is_changed() && f.target.scope == crate::model::hosts::Scope::User)
}

/// The writes of a plan's host files, in target order; their bytes move into the writes (they
/// may be large).
pub fn file_writes(plan: Plan) -> Vec<FileWrite> {
    plan.files
        .into_iter()
        .map(|file| FileWrite {
            display: file.target.claim_file,
            host: Some(file.target.host.id.to_string()),
            path: file.target.path,
            before: file.before,
            after: file.after,
            remove_dirs: file.remove_dirs,
            resolved: file.resolved,
            fence: file.target.fence,
        })
        .collect()
}

/// "Adding" -> "add", for "Would add ...".
fn infinitive(verb: &str) -> &str {
    match verb {
        "Adding" => "add",
        "Removing" => "remove",
        "Updating" => "update",
        "Excluding" => "exclude",
        "Including" => "include",
        other => other,
    }
}

/// How messages name the manifest: `dotpack.toml` in a project, its path for the user-level one.
fn manifest_display(project: &Project) -> String {
    if project.global {
        project.manifest.path.display().to_string()
    } else {
        crate::model::manifest::MANIFEST_FILE.to_string()
    }
}

/// `[settings] keep_generations`, else [`crate::txn::DEFAULT_KEEP`].
pub fn keep_generations(manifest: &LoadedManifest) -> usize {
    manifest
        .manifest
        .settings
        .as_ref()
        .and_then(|s| s.keep_generations)
        .map_or(crate::txn::DEFAULT_KEEP, |k| k as usize)
}

/// One `(verb, line)` per file that changes, with counts.
fn host_summary(files: &[super::report::FileReport]) -> Vec<(String, String)> {
    files
        .iter()
        .filter(|file| file.entries() > 0)
        .map(|file| {
            let parts: Vec<String> = file
                .parts()
                .iter()
                .filter(|(names, _)| !names.is_empty())
                .map(|(names, word)| format!("{} {word}", names.len()))
                .collect();
            (
                file.verb().to_string(),
                format!("{} ({}): {}", file.file, file.host, parts.join(", ")),
            )
        })
        .collect()
}

/// The warnings of a plan: dropped fields, then hand edits kept.
fn host_warnings(plan: &Plan) -> Vec<String> {
    let mut seen = BTreeSet::new();
    let dropped = plan.files.iter().flat_map(|file| {
        file.changes
            .iter()
            .filter(|c| !c.dropped.is_empty() && c.action != Action::Unchanged)
            .map(move |c| {
                // Resources are named `skills.NAME`; server names hold no dot.
                let what = if c.server.contains('.') {
                    format!("`{}`", c.server)
                } else {
                    format!("server `{}`", c.server)
                };
                format!(
                    "{} ({}): {what} dropped {}",
                    file.target.claim_file,
                    file.target.host.id,
                    c.dropped.join(", ")
                )
            })
    });
    dropped
        .chain(plan.warnings.iter().cloned())
        .filter(|w| seen.insert(w.clone()))
        .collect()
}
