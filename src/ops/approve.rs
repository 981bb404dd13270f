//! The trust decision for writing commands: a plan that adds or changes entries in the user's
//! own (user-scope) host files goes ahead only with the user's consent (see [`crate::ops::consent`]).
//!
//! What this project writes at user scope is read off the plan: each entry or resource file it
//! adds or changes is one request, keyed by file and name, whose digest is the hash its claim
//! records. After a command commits, what the project has at user scope is recorded as approved,
//! so the user's own next command asks only about what changed since.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use anyhow::Result;

use crate::model::hosts::Scope;
use crate::model::lock::Lockfile;
use crate::model::manifest::Manifest;
use crate::ops::consent::{self, Approvals, Ask, Grant, Kind, Request};
use crate::plan::{Action, Plan};
use crate::ui::printer::Printer;

use super::{Project, Settings};

/// One user-scope entry or file of the plan: what it asks, and whether the plan writes it
/// (added or changed) or only keeps it.
pub struct Placed {
    pub ask: Ask,
    pub writes: bool,
}

/// The user-scope entries and files `plan` leaves for this project; unless `everything`, none
/// when it writes nothing there.
pub fn user_scope(
    plan: &Plan,
    settings: &Settings,
    manifest: &crate::model::manifest::LoadedManifest,
    lock: &Lockfile,
    everything: bool,
) -> Vec<Placed> {
    let root = manifest.root();
    let manifest = &manifest.manifest;
    let writes = |a: Action| matches!(a, Action::Add | Action::Update | Action::Share);
    let user_files = || plan.files.iter().filter(|f| f.target.scope == Scope::User);
    // Nothing written at user scope: nothing to ask, nothing to record (the common case, and
    // the cheap one: a large ~/.claude.json is not parsed again).
    if !everything && !user_files().any(|f| f.changes.iter().any(|c| writes(c.action))) {
        return Vec::new();
    }
    let mut kept = Vec::new();
    let hashes = written_hashes(plan);
    for file in user_files() {
        // The entries the file holds afterwards, for the command lines the requests it writes
        // show (the plan kept them: a large ~/.claude.json is not parsed again).
        let shows = everything || file.changes.iter().any(|c| writes(c.action));
        let entries = file_entries(file, shows);
        for change in &file.changes {
            let key = format!("{} {}", file.target.claim_file, change.server);
            let writes = match change.action {
                // Sharing another project's entry keeps it in the user's file after that
                // project lets it go: it asks like writing it.
                Action::Add | Action::Update | Action::Share => true,
                Action::Unchanged | Action::Adopt | Action::KeptEdited | Action::Disown => false,
                Action::Remove | Action::Forget | Action::Release => continue,
            };
            let relative = file.target.claim_file.strip_prefix("~/");
            let at = relative.unwrap_or(&file.target.claim_file);
            let Some(digest) = hashes.get(&(at.to_string(), change.server.clone())) else {
                continue;
            };
            let digest = digest.to_string();
            let shown = home_relative(&file.target.claim_file, settings);
            let what = what_is_written(file, &change.server, entries);
            let local = change.package == crate::plan::desired::LOCAL_PACKAGE;
            kept.push(Placed {
                ask: Ask {
                    request: Request::new(
                        Kind::UserScope,
                        key,
                        digest,
                        format!("{shown} ({}): {what}", file.target.host.id),
                    ),
                    package: change.package.clone(),
                    host: file.target.host.id.to_string(),
                    package_request: (!local)
                        .then(|| package_request(manifest, lock, &change.package))
                        .flatten(),
                    // A resource of the project's own is files beside the manifest.
                    declared: local && !change.server.contains('.'),
                    in_project_registry: lock
                        .packages
                        .iter()
                        .find(|p| p.name == change.package)
                        .is_some_and(|p| in_project_folder(&p.source, root)),
                },
                writes,
            });
        }
    }
    kept
}

/// The entries of a user-scope host file as the plan leaves it, by name (none unless `shows`).
/// The plan kept them, so a large `~/.claude.json` is not parsed again.
fn file_entries(file: &crate::plan::FilePlan, shows: bool) -> &BTreeMap<String, serde_json::Value> {
    static NONE: BTreeMap<String, serde_json::Value> = BTreeMap::new();
    match (shows, &file.after) {
        (true, Some(_)) => &file.entries,
        _ => &NONE,
    }
}

/// What a request shows of `server` in `file`: a resource's text, or the entry's command line.
fn what_is_written(
    file: &crate::plan::FilePlan,
    server: &str,
    entries: &BTreeMap<String, serde_json::Value>,
) -> String {
    if server.contains('.') {
        // A resource is text an agent follows: show what it says.
        let text = file.after.as_deref().unwrap_or_default();
        format!("`{server}`: {}", excerpt(text))
    } else {
        let summary = entries
            .get(server)
            .map(consent::entry_summary)
            .unwrap_or_default();
        format!("server `{server}`: {summary}")
    }
}

/// The approvals of the packages `lock` holds at another version or checksum than the project's
/// lock did, except those from a registry folder inside the project (a pull can change it).
pub fn moved_packages(project: &Project, lock: &Lockfile) -> Vec<Request> {
    let before = project.lock.as_ref();
    lock.packages
        .iter()
        .filter(|p| {
            !before.is_some_and(|old| {
                old.packages
                    .iter()
                    .any(|o| o.name == p.name && o.version == p.version && o.checksum == p.checksum)
            })
        })
        .filter(|p| !in_project_folder(&p.source, project.root()))
        .filter_map(|p| package_request(&project.manifest.manifest, lock, &p.name))
        .collect()
}

/// The start of a resource file's text on one line, for a listing: its first 240 characters,
/// line breaks shown as `\n`.
fn excerpt(text: &str) -> String {
    const SHOWN: usize = 240;
    let mut out: String = text
        .chars()
        .take(SHOWN)
        .collect::<String>()
        .replace('\n', "\\n");
    if text.chars().count() > SHOWN {
        out.push('…');
    }
    out
}

/// Whether a lock `source` is a registry folder inside the project at `root`.
fn in_project_folder(source: &str, root: &std::path::Path) -> bool {
    source.strip_prefix("registry+file:").is_some_and(|path| {
        let real = crate::util::fsutil::resolve(&root.join(path));
        real.starts_with(crate::util::fsutil::resolve(root))
    })
}

/// The approval of locked package `name` for the user scope: its version, source, checksum and
/// the inputs it is set with, so a teammate's bump or change asks again.
pub fn package_request(manifest: &Manifest, lock: &Lockfile, name: &str) -> Option<Request> {
    let locked = lock.packages.iter().find(|p| p.name == name)?;
    let inputs = manifest
        .dependencies
        .get(name)
        .and_then(|d| d.set())
        // No inputs set, however the dependency is written (or pulled in by another).
        .filter(|set| !set.is_empty())
        .map(|set| serde_json::to_string(set).unwrap_or_default())
        .unwrap_or_default();
    let version = locked.version.to_string();
    let digest = consent::digest(&[name, &version, &locked.source, &locked.checksum, &inputs]);
    // Keyed by the digest too: every version (and set of inputs) approved stays approved, so a
    // rollback to one is not a new request.
    Some(Request::new(
        Kind::UserScope,
        format!("package {name} {digest}"),
        digest,
        format!("package `{name}` {version} as locked"),
    ))
}

/// The hash each user-scope claim of the plan records, by file and name: an entry's (its file
/// absolute) or a resource file's (relative to the home folder). Built once: a plan may hold
/// thousands of claims.
fn written_hashes(plan: &Plan) -> HashMap<(String, String), &str> {
    let entries = plan
        .claims
        .iter()
        .filter(|c| c.scope == "user")
        .map(|c| ((c.file.clone(), c.server.clone()), c.entry.as_str()));
    let mut map: HashMap<(String, String), &str> = entries.collect();
    for c in plan
        .resources
        .iter()
        .flatten()
        .filter(|c| c.scope == "user")
    {
        map.entry((c.file.clone(), c.label()))
            .or_insert(c.sha256.as_str());
    }
    map
}

/// `~/x` for a path in the home folder.
fn home_relative(file: &str, settings: &Settings) -> String {
    match std::path::Path::new(file).strip_prefix(&settings.host_env.home) {
        Ok(rest) if !file.starts_with('~') => format!("~/{}", rest.display()),
        _ => file.to_string(),
    }
}

/// `names` and every package they pull in according to `lock`: what a command that names
/// packages allows at user scope.
pub fn with_dependencies(
    names: &[String],
    lock: &crate::model::lock::Lockfile,
) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut stack: Vec<&str> = names.iter().map(String::as_str).collect();
    while let Some(name) = stack.pop() {
        if !out.insert(name.to_string()) {
            continue;
        }
        if let Some(p) = lock.packages.iter().find(|p| p.name == name) {
            stack.extend(p.dependencies.iter().map(String::as_str));
        }
    }
    out
}

/// Refuses a plan that writes at user scope what neither the command line nor an approval
/// allows; with `dry_run`, warns instead. The user-level manifest (`--global`) is the user's own
/// and needs no consent.
pub fn check_user_scope(
    settings: &Settings,
    printer: &Printer,
    project: &Project,
    placed: &[Placed],
    grant: &Grant,
    dry_run: bool,
) -> Result<()> {
    if project.global {
        return Ok(());
    }
    let asked: Vec<Ask> = placed
        .iter()
        .filter(|p| p.writes)
        .map(|p| p.ask.clone())
        .collect();
    let grant = Grant {
        all: grant.all || settings.trust,
        ..grant.clone()
    };
    let open = consent::unapproved(
        &asked,
        &grant,
        &|| Approvals::load(&settings.dotpack_home),
        &project.owner,
        &project.state(),
    )?;
    if open.is_empty() {
        return Ok(());
    }
    if dry_run {
        printer.warning(consent::refusal_text(
            &open,
            "dotpack.toml",
            "A real run would refuse, and write nothing.",
        ));
        return Ok(());
    }
    if ask(settings, printer, &project.owner, &open, "dotpack.toml")? {
        return Ok(());
    }
    Err(consent::refusal(
        &open,
        "dotpack.toml",
        "Nothing was written.",
    ))
}

/// Adds `request` to what the project at `owner` approved, keeping everything else: for what
/// the user declared on the command line (`add --registry ../folder`).
pub fn record_one(settings: &Settings, owner: &str, request: Request) -> Result<()> {
    record_more(settings, owner, &[&request])
}

/// Adds `added` to what the project at `owner` approved; a request with the same kind and key
/// is replaced. Nothing is recorded with `--trust`.
pub fn record_more(settings: &Settings, owner: &str, added: &[&Request]) -> Result<()> {
    if settings.trust || added.is_empty() {
        return Ok(());
    }
    let replaced: std::collections::HashSet<(Kind, &str)> =
        added.iter().map(|r| (r.kind, r.key.as_str())).collect();
    consent::store::update(&settings.dotpack_home, |all| {
        let entry = all.projects.entry(owner.to_string()).or_default();
        entry
            .requests
            .retain(|r| !replaced.contains(&(r.kind, r.key.as_str())));
        entry.requests.extend(added.iter().map(|r| (*r).clone()));
        entry.requests.sort();
        entry.requests.dedup();
    })
}

/// On a terminal, shows `open` and asks the user to approve them for this folder; records them
/// and returns `true` on yes. Anywhere else returns `false` without asking.
pub fn ask(
    settings: &Settings,
    printer: &Printer,
    owner: &str,
    open: &[&Request],
    source: &str,
) -> Result<bool> {
    if !consent::ask::can_ask(printer) || !consent::ask::approve_here(printer, open, source) {
        return Ok(false);
    }
    record_more(settings, owner, open)?;
    Ok(true)
}

/// What a writing command leaves at user scope, and the packages its command line named.
pub struct AtUser<'a> {
    pub placed: &'a [Placed],
    /// The named packages' approvals, as locked.
    pub named: &'a [Request],
    /// The command line sent them to the user scope itself (`add NAME --scope user`).
    pub named_at_user_scope: bool,
}

/// After a command committed, one update of the approvals (none when there is nothing to say):
///
/// - when it started from a state the user's own commands (or an approval) left the project
///   in, the state it leaves (`new_state`; `None` for an import, whose content came from files)
///   is the user's own too; a clone's state never is until `dotpack trust` approves it;
/// - what it wrote at user scope is approved as it is now, with the packages as locked, so the
///   user's next command asks only about what changed since; so are the packages the command
///   line named, when it sent them to the user scope or the project is the user's own (naming
///   a package in a clone says nothing of where the clone sends it). Other approvals stay: an
///   entry removed and put back as it was is the same request.
///
/// `--trust` allows for one run and records nothing.
pub fn after_commit(
    settings: &Settings,
    printer: &Printer,
    project: &Project,
    new_state: Option<&str>,
    at_user: Option<AtUser<'_>>,
    moved_packages: &[Request],
) {
    if project.global || settings.trust {
        return;
    }
    let (placed, named, named_at_user_scope) = match at_user {
        Some(a) => (a.placed, a.named, a.named_at_user_scope),
        None => (&[][..], &[][..], false),
    };
    let wrote = placed.iter().any(|p| p.writes) || !named.is_empty() || !moved_packages.is_empty();
    let old_state = project.state();
    let moved = new_state.filter(|s| *s != old_state);
    if moved.is_none() && !wrote {
        return;
    }
    let owner = &project.owner;
    let result = consent::store::update(&settings.dotpack_home, |all| {
        let owned = all.owns_state(owner, &old_state);
        if let Some(new_state) = moved
            && owned
        {
            consent::store::push_state(all, owner, new_state);
        }
        if wrote {
            let named = named
                .iter()
                .filter(|_| owned || named_at_user_scope)
                .chain(moved_packages.iter().filter(|_| owned));
            let now: Vec<Request> = placed
                .iter()
                .flat_map(|p| {
                    std::iter::once(p.ask.request.clone()).chain(p.ask.package_request.clone())
                })
                .chain(named.cloned())
                .collect();
            let touched: BTreeSet<&str> = now.iter().map(|r| r.key.as_str()).collect();
            let entry = all.projects.entry(owner.clone()).or_default();
            entry
                .requests
                .retain(|r| r.kind != Kind::UserScope || !touched.contains(r.key.as_str()));
            entry.requests.extend(now);
            entry.requests.sort();
            entry.requests.dedup();
        }
    });
    if let Err(e) = result {
        printer.warning(format!(
            "could not record what this command did as approved: {e:#}; the next change beyond the project asks again"
        ));
    }
}
