//! The plan: every edit of every host file, every claim and every warning, computed from bytes
//! in memory. Planning never touches the disk; printing a plan is `--dry-run`, applying it is
//! [`crate::txn::files`].
//!
//! For each target file, the entries dotpack should own there (the servers of the locked
//! packages) are compared with what the file holds and what the claims say:
//!
//! | in the file | claim | outcome |
//! | --- | --- | --- |
//! | absent | none | add |
//! | present | none | collision: refused unless `--force` |
//! | present | another package | collision naming both packages |
//! | as claimed | this package | unchanged, or updated when the package's entry changed |
//! | edited by hand | this package | kept and reported, unless `--force` |
//! | absent | this package | added again |
//!
//! Claimed entries whose package is gone are removed, unless edited by hand since.

pub mod desired;
pub(crate) mod drift;
pub(crate) mod from_host;
pub(crate) mod keys;
pub(crate) mod resources;
pub(crate) mod targets;
pub mod to_host;

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::PathBuf;

use semver::Version;

use crate::formats::{self, Container, Created, Document, FormatError, Op};
use crate::model::claims::{Claim, entry_hash};
use crate::model::hosts::Scope;
use crate::model::manifest::Server;
use crate::template::Props;
use crate::util::error::{Error, Fix};
use crate::util::text::Text;
use to_host::Dropped;

pub use crate::plan::targets::Target;

impl Target {
    fn container(&self) -> Container<'static> {
        self.host.container
    }

    fn format(&self) -> formats::Format {
        self.host.format
    }

    /// Whether texts `a` and `b` of this target's file read the same: the same entries and the
    /// same settings outside them, however they are spaced. `false` when either does not parse.
    pub fn reads_the_same(&self, a: &str, b: &str) -> bool {
        let parse = |text| formats::Document::parse(self.format(), text, self.container()).ok();
        match (parse(a), parse(b)) {
            (Some(a), Some(b)) => a.entries() == b.entries() && a.outside() == b.outside(),
            _ => false,
        }
    }

    /// The entries `text` (this target's file) holds, by name; `None` when it does not parse.
    pub fn entries_in(&self, text: &str) -> Option<Vec<(String, serde_json::Value)>> {
        formats::list_entries(self.format(), text, self.container()).ok()
    }
}

/// A server dotpack should own in the targets that take it.
#[derive(Clone, Debug)]
pub struct Desired {
    pub server: String,
    pub package: String,
    pub version: Version,
    /// The server's canonical definition; `None` when the package was not loaded because every
    /// target already holds its entry as claimed for this version and inputs (see
    /// [`is_current`]).
    pub def: Option<Server>,
    pub props: Props,
    /// Fingerprint of what, besides the package version, shapes the entry: the inputs set in
    /// `dotpack.toml` and the translation revision. Recorded in claims.
    pub inputs: String,
    /// Lossy fields the project accepts dropping for this package (`allow_lossy` in
    /// `dotpack.toml`).
    pub allow_lossy: Vec<String>,
    /// An entry whose claim is current (this package, version and inputs; untouched since) is
    /// kept as it is rather than translated again. The project's own servers: `inputs` covers
    /// their whole definition, and an entry adopted for one (`dotpack import --into`) is the
    /// definition, in the host's own words, which translating back may spell differently.
    pub keep_current: bool,
    /// The host would load the server from a shared file it also reads, though the project
    /// keeps it from this host: its entry here only switches it off (pi's `"disabled": true`).
    pub switched_off: bool,
    /// A stdio server that starts through `dotpack run`, which gives it its secrets from the OS
    /// credential store, in the hosts it covers (see `Manifest::launcher_for`).
    pub launcher: crate::model::manifest::Launcher,
}

/// Entries the user wrote before dotpack adopted them, as they were in the state a rollback
/// restores, keyed by (claim file, server) with the claim they had there. An entry of these
/// that the plan adds again while its definition is unchanged (same package and inputs) is
/// written with its own value, not translated again, and stays adopted: the user's bytes come
/// back.
pub type Originals = BTreeMap<(String, String), Original>;

/// One entry of [`Originals`].
#[derive(Clone, Debug)]
pub struct Original {
    pub entry: serde_json::Value,
    pub claim: Claim,
}

/// `--allow-lossy`: absent, bare (drop anything that is not security-relevant), or a list of
/// named fields or concepts.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LossyPolicy {
    pub bare: bool,
    pub named: BTreeSet<String>,
}

impl LossyPolicy {
    pub fn allows(&self, dropped: &Dropped, per_dependency: &[String]) -> bool {
        let names = |n: &String| {
            *n == dropped.field || n == dropped.concept || field_root(&dropped.field) == n
        };
        self.named.iter().any(names)
            || per_dependency.iter().any(names)
            || (self.bare && !dropped.security)
    }

    /// Whether the command line alone allows `dropped`: what the dependency's `allow_lossy`
    /// does not already allow. Such a choice is recorded in dotpack.toml, so the next command
    /// agrees without the flag.
    pub fn allows_by_flag_only(&self, dropped: &Dropped, per_dependency: &[String]) -> bool {
        self.allows(dropped, &[]) && !LossyPolicy::default().allows(dropped, per_dependency)
    }
}

/// The name a recorded `allow_lossy` gives a dropped field: the field when `allow_lossy`
/// accepts it, else its root (`env` for `env.API_KEY`), else its concept.
pub fn recorded_lossy_name(dropped: &Dropped) -> String {
    let root = field_root(&dropped.field);
    if crate::model::concepts::is_lossy_name(&dropped.field) {
        dropped.field.clone()
    } else if crate::model::concepts::is_lossy_name(root) {
        root.to_string()
    } else {
        dropped.concept.to_string()
    }
}

/// `env.API_KEY` is allowed by naming `env` too.
fn field_root(field: &str) -> &str {
    field.split('.').next().unwrap_or(field)
}

/// What the plan does to one entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Action {
    Add,
    Update,
    Remove,
    /// Claimed as it stands (`dotpack adopt`).
    Adopt,
    Unchanged,
    /// Edited by hand since dotpack wrote it: left as it is.
    KeptEdited,
    /// Claimed, but already removed by hand: only the claim goes.
    Forget,
    /// A user-scope entry another owner declared with the same definition: this project
    /// becomes an owner too; the file does not change.
    Share,
    /// This project no longer declares a user-scope entry other owners still declare: it stops
    /// being an owner; the entry stays.
    Release,
    /// Edited by hand and no longer declared, with `--keep-edited`: left as it is, and no longer
    /// dotpack's (the claim goes).
    Disown,
}

#[derive(Clone, Debug, serde::Serialize)]
pub struct EntryChange {
    pub server: String,
    pub package: String,
    pub action: Action,
    pub dropped: Vec<String>,
}

/// The new state of one file.
#[derive(Clone, Debug)]
pub struct FilePlan {
    pub target: Target,
    /// The bytes read, `None` when the file does not exist.
    pub before: Option<Text>,
    /// The bytes to write, `None` to delete the file (or leave it absent).
    pub after: Option<Text>,
    pub changes: Vec<EntryChange>,
    /// When the file is deleted: how many of its folders dotpack created with it, to remove too
    /// when they are empty.
    pub remove_dirs: u32,
    /// Variables whose values `before` and `after` hold as markers (`--resolve-env`): the
    /// claims' before and after the change.
    pub resolved: Vec<String>,
    /// At user scope: the entry each change leaves in `after` (those it removes have none), as
    /// parsing `after` would read it, so consent can show what is written without parsing a large
    /// user file again. Empty at project scope.
    pub entries: BTreeMap<String, serde_json::Value>,
}

impl FilePlan {
    pub fn is_changed(&self) -> bool {
        self.before != self.after
    }
}

/// What a command will do, complete: apply it or print it.
#[derive(Clone, Debug, Default)]
pub struct Plan {
    pub files: Vec<FilePlan>,
    /// The full new set of claims for the planned scope (old claims on other files kept).
    pub claims: Vec<Claim>,
    pub warnings: Vec<String>,
    /// What only the command's `--allow-lossy` let the plan leave out, as (package, name): the
    /// command records each in dotpack.toml (the dependency's `allow_lossy`, or `[project]
    /// allow_lossy` for the project's own servers and resources).
    pub allowed: BTreeSet<(String, String)>,
    /// The new project-scope resource file claims, when the command planned resources (`None`:
    /// the lock's stay as they are).
    pub resources: Option<Vec<crate::model::resources::FileClaim>>,
}

/// Why a plan cannot be made. All problems are collected so the user sees every one at once.
#[derive(Debug)]
pub struct PlanError(pub Vec<Problem>);

#[derive(Debug)]
pub enum Problem {
    /// A host file that does not parse, or whose container has the wrong type.
    File { file: String, error: FormatError },
    /// A host file a git merge left with conflict markers (it does not parse with them).
    Conflicted { file: String },
    /// A name in the file that dotpack does not own.
    Unclaimed {
        file: String,
        key: String,
        server: String,
        package: String,
    },
    /// A name another package owns.
    OtherPackage {
        file: String,
        key: String,
        owner: String,
        package: String,
    },
    /// A user-scope entry other projects (or the user-level manifest) declared differently.
    OwnedElsewhere {
        file: String,
        key: String,
        server: String,
        owners: Vec<String>,
    },
    /// A field the host cannot express, not allowed to be dropped.
    Lossy {
        file: String,
        host: String,
        server: String,
        /// The package the server is of (`dotpack.toml` for the project's own).
        package: String,
        dropped: Dropped,
    },
    /// A server that cannot be written for a host at all.
    Translate {
        host: String,
        server: String,
        error: to_host::TranslateError,
    },
}

impl fmt::Display for PlanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.error().fmt(f)
    }
}

impl Fix for PlanError {
    /// Every problem with its fix, the fields a host cannot express gathered into one last.
    fn error(&self) -> Error {
        let lossy: Vec<&Problem> = self
            .0
            .iter()
            .filter(|p| matches!(p, Problem::Lossy { .. }))
            .collect();
        let mut all: Vec<Error> = self
            .0
            .iter()
            .filter(|p| !matches!(p, Problem::Lossy { .. }))
            .map(Problem::error)
            .collect();
        if !lossy.is_empty() {
            all.push(lossy_error(&lossy));
        }
        Error::all(all).unwrap_or_default()
    }
}

/// Where the choice to leave `names` out is recorded for `packages` (the project's own servers
/// and resources under `[project]`, a dependency's on the dependency), as the help says it.
pub fn where_to_record_lossy(packages: &BTreeSet<&str>, names: &str) -> String {
    let own = packages.contains(crate::plan::desired::LOCAL_PACKAGE);
    let deps: Vec<String> = packages
        .iter()
        .filter(|p| **p != crate::plan::desired::LOCAL_PACKAGE)
        .map(|p| format!("`{p}`"))
        .collect();
    let mut places = Vec::new();
    if own {
        places.push(format!(
            "`allow_lossy = [{names}]` under [project] in dotpack.toml to record it for the project's own servers and resources"
        ));
    }
    if !deps.is_empty() {
        places.push(format!(
            "`allow_lossy = [{names}]` on the dependency ({}) in dotpack.toml to record it",
            deps.join(", ")
        ));
    }
    places.join("; ")
}

fn lossy_error(lossy: &[&Problem]) -> Error {
    let mut message = "installing would drop fields these hosts cannot express:".to_string();
    let mut security = BTreeSet::new();
    let mut plain = BTreeSet::new();
    let mut wrapped_hosts = BTreeSet::new();
    for problem in lossy {
        if let Problem::Lossy {
            file,
            host,
            server,
            dropped,
            ..
        } = problem
        {
            let supported = if dropped.supported_on.is_empty() {
                "no known host".to_string()
            } else {
                dropped.supported_on.join(", ")
            };
            let tag = if dropped.security {
                " (security-relevant)"
            } else {
                ""
            };
            message.push_str(&format!(
                "\n  {host} {file}: server `{server}` field `{}`{tag}, concept {}; supported on {supported}",
                dropped.field, dropped.concept
            ));
            if dropped.concept == "remote_via_wrapper" {
                wrapped_hosts.insert(host.clone());
            }
            if dropped.security {
                security.insert(dropped.field.clone());
            } else {
                plain.insert(dropped.field.clone());
            }
        }
    }
    let mut help = Vec::new();
    if !plain.is_empty() {
        help.push(
            "`--allow-lossy` to drop the fields that are not security-relevant (recorded in dotpack.toml)"
                .to_string(),
        );
    }
    if !security.is_empty() {
        let names: Vec<String> = security.into_iter().collect();
        help.push(format!(
            "`--allow-lossy={}` to drop security-relevant fields (they must be named; recorded in dotpack.toml)",
            names.join(",")
        ));
    }
    let packages: BTreeSet<&str> = lossy
        .iter()
        .filter_map(|p| match p {
            Problem::Lossy { package, .. } => Some(package.as_str()),
            _ => None,
        })
        .collect();
    // A remote server in a host that starts stdio servers only: the launcher serves it there
    // itself (`dotpack run --url`), with no wrapper to fetch and nothing dropped.
    if let Some(host) = wrapped_hosts.first() {
        help.push(format!(
            "`{{ host = \"{host}\", launcher = true }}` in [project] hosts (or `launcher = true`) to serve remote servers to {} over stdio through `dotpack run`",
            wrapped_hosts.iter().cloned().collect::<Vec<_>>().join(", ")
        ));
    }
    help.push(where_to_record_lossy(&packages, "..."));
    help.push("or `--host` to leave those hosts out".to_string());
    Error::new(message).help(format!("use {}", help.join("; ")))
}

impl Problem {
    /// The problem as an error: what is wrong in which file, and the fix.
    pub fn error(&self) -> Error {
        match self {
            Problem::File { file, error } => Error::new(format!("{file}: {error}"))
                .help("fix the file by hand; dotpack never rewrites a file it cannot read")
                .file(file),
            Problem::Conflicted { file } => Error::new(format!(
                "{file} has git merge conflict markers: a merge is not finished"
            ))
            .help("run `dotpack merge`: where the conflicting lines are only dotpack's entries it writes them again from the merged dotpack.toml and dotpack.lock; settle any other conflicting lines by hand first")
            .file(file),
            Problem::Unclaimed {
                file,
                key,
                server,
                package,
            } => Error::new(format!(
                "{file}#{key} already exists and was not written by dotpack (package `{package}` wants server `{server}` there)"
            ))
            .help(format!(
                "`--force` replaces it, or `dotpack adopt {server}` takes ownership of the entry as it is"
            ))
            .file(file)
            .key(key),
            Problem::OtherPackage {
                file,
                key,
                owner,
                package,
            } => Error::new(format!(
                "{file}#{key} belongs to package `{owner}`, and package `{package}` declares the same server"
            ))
            .help("remove one of the two packages from dotpack.toml")
            .file(file)
            .key(key),
            Problem::OwnedElsewhere {
                file,
                key,
                server,
                owners,
            } => Error::new(format!(
                "{file}#{key} is declared differently by {}",
                owners
                    .iter()
                    .map(|o| format!("`{o}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
            .help(format!(
                "user-scope entries are shared: use the same version and inputs of `{server}` there, remove it there first, or install this project's at project scope"
            ))
            .file(file)
            .key(key),
            Problem::Lossy { .. } => lossy_error(&[self]),
            Problem::Translate {
                host,
                server,
                error,
            } => {
                let inner = error.error();
                let outer = Error::new(format!(
                    "server `{server}` cannot be written for {host}: {}",
                    inner.message()
                ));
                match inner.fix() {
                    Some(fix) => outer.help(fix),
                    None => outer,
                }
            }
        }
    }
}

impl Problem {
    /// A host file that does not parse: a merge left unfinished when it has conflict markers.
    pub fn unreadable(file: &str, text: &str, error: FormatError) -> Problem {
        if crate::util::conflict::has_markers(text) {
            Problem::Conflicted {
                file: file.to_string(),
            }
        } else {
            Problem::File {
                file: file.to_string(),
                error,
            }
        }
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.error().fmt(f)
    }
}

impl std::error::Error for PlanError {}

/// What the command wants from the targets.
#[derive(Clone, Debug)]
pub enum Mode {
    /// Make every target hold exactly the desired entries.
    Sync,
    /// Claim existing entries of these servers as they are, for the desired package declaring
    /// each.
    Adopt(BTreeSet<String>),
    /// Remove the claimed entries of every package that is not desired; leave the desired ones
    /// exactly as they are (no adds, no updates).
    Uninstall,
}

/// A target file parsed once: the entries it holds, and the document its edits are made on.
pub struct ParsedFile<'a> {
    pub document: Document<'a>,
    pub entries: BTreeMap<String, serde_json::Value>,
}

impl<'a> ParsedFile<'a> {
    /// Parses the current `text` of `target` (empty when the file is absent).
    pub fn parse(target: &Target, text: &'a str) -> Result<Self, FormatError> {
        let document = Document::parse(target.format(), text, target.container())?;
        let entries = document.entries().into_iter().collect();
        Ok(ParsedFile { document, entries })
    }
}

/// One target file and the servers that belong in it.
pub struct TargetInput<'a> {
    pub target: Target,
    pub desired: Vec<&'a Desired>,
}

/// Everything a plan is computed from.
pub struct PlanInput<'a> {
    pub targets: &'a [TargetInput<'a>],
    /// Current bytes of every target file (`None`: absent).
    pub files: &'a BTreeMap<PathBuf, Option<Text>>,
    /// The target files already parsed by the caller, from the bytes in `files` (files missing
    /// here are parsed by the planner, which reports those that do not parse).
    pub parsed: &'a BTreeMap<PathBuf, ParsedFile<'a>>,
    /// Every claim: the project's (from `dotpack.lock`) and every owner's user-scope ones.
    pub claims: &'a [Claim],
    /// How this project names itself as an owner of user-scope entries.
    pub owner: &'a str,
    pub force: bool,
    /// `--keep-edited`: see [`Action::Disown`].
    pub keep_edited: bool,
    /// An adopted entry nothing declares any more is given back to the user, not removed
    /// (`dotpack rollback` past the adoption: the entry was there before).
    pub keep_adopted: bool,
    /// Adopted entries a rollback brings back, as they were: see [`Originals`].
    pub originals: &'a Originals,
    pub lossy: &'a LossyPolicy,
    pub mode: Mode,
    /// `--resolve-env`: at user scope, write a reference a host cannot express as the
    /// variable's current value (see [`crate::model::resolved_env`]).
    pub resolve_env: bool,
}

/// Computes the plan. Pure: reads only its input.
pub fn plan(input: &PlanInput<'_>) -> Result<Plan, PlanError> {
    let mut problems = Vec::new();
    let mut plan = Plan::default();
    let target_files: BTreeSet<&str> = input
        .targets
        .iter()
        .map(|t| t.target.claim_file.as_str())
        .collect();
    plan.claims = input
        .claims
        .iter()
        .filter(|c| !target_files.contains(c.file.as_str()))
        .cloned()
        .collect();
    for target in input.targets {
        let mut file = FileEdit::new(input, target);
        file.run(target);
        match file.finish() {
            Ok((file_plan, claims, mut warnings, mut allowed)) => {
                plan.files.push(file_plan);
                plan.claims.extend(claims);
                plan.warnings.append(&mut warnings);
                plan.allowed.append(&mut allowed);
            }
            Err(mut more) => problems.append(&mut more),
        }
    }
    plan.warnings.extend(shadowed(input));
    if problems.is_empty() {
        crate::model::claims::sort(&mut plan.claims);
        Ok(plan)
    } else {
        Err(PlanError(problems))
    }
}

/// A warning for each target whose host will not read it, because another file of the plan that
/// the host reads first will exist ([`crate::model::hosts::precedence`]): Copilot CLI reads the
/// project's `.mcp.json`, which Claude Code's target writes, instead of `.github/mcp.json`.
fn shadowed(input: &PlanInput<'_>) -> Vec<String> {
    let mut warnings = Vec::new();
    for t in input.targets {
        let target = &t.target;
        let Some(shadow) = crate::model::hosts::precedence::shadow_of(target.host, target.scope)
        else {
            continue;
        };
        let Some(by) = input
            .targets
            .iter()
            .find(|o| o.target.scope == Scope::Project && o.target.claim_file == shadow.by)
        else {
            continue;
        };
        let exists = !by.desired.is_empty()
            || input
                .files
                .get(&by.target.path)
                .is_some_and(Option::is_some);
        if t.desired.is_empty() || !exists {
            continue;
        }
        let there: BTreeSet<&str> = by.desired.iter().map(|d| d.server.as_str()).collect();
        let (seen, unseen): (Vec<&str>, Vec<&str>) = t
            .desired
            .iter()
            .map(|d| d.server.as_str())
            .partition(|s| there.contains(s));
        let mut what = Vec::new();
        if !seen.is_empty() {
            what.push(format!(
                "it reads {} as {} wrote {} there, without what was written for it alone (such as its `tools` allow list)",
                seen.join(", "),
                by.target.host.name(),
                if seen.len() == 1 { "it" } else { "them" },
            ));
        }
        if !unseen.is_empty() {
            what.push(format!("it does not see {}", unseen.join(", ")));
        }
        warnings.push(format!(
            "{host} reads `{by}` instead of `{file}` whenever `{by}` exists, so the entries written for it in `{file}` take no effect: {what}. To have {host} read its own entries, declare it at user scope (`{{ host = \"{id}\", scope = \"user\" }}`) or keep {other} out of the project scope",
            host = target.host.name(),
            by = shadow.by,
            file = shadow.file,
            what = what.join("; "),
            id = target.host.id,
            other = by.target.host.name(),
        ));
    }
    warnings
}

/// An entry edit planned for a file, made with the file's other edits in [`FileEdit::finish`].
enum Pending {
    Upsert(String, serde_json::Value),
    Remove(String),
}

/// The planning of one file: the edits it needs, and what they add up to.
struct FileEdit<'i, 'a> {
    input: &'i PlanInput<'a>,
    target: &'i Target,
    file: String,
    before: Option<Text>,
    /// The entries of the file as read.
    existing: Cow<'i, BTreeMap<String, serde_json::Value>>,
    /// The parsed document of the original text, which every edit is made on.
    document: Option<&'i Document<'a>>,
    /// The entry edits, in order; made together, from one parse, when planning the file ends.
    edits: Vec<Pending>,
    /// This file's claims before the command, whoever owns them.
    old_claims: BTreeMap<&'i str, &'i Claim>,
    created: Created,
    created_file: bool,
    created_dirs: u32,
    changes: Vec<EntryChange>,
    claims: Vec<Claim>,
    problems: Vec<Problem>,
    warnings: Vec<String>,
    /// See [`Plan::allowed`].
    allowed: BTreeSet<(String, String)>,
}

/// A file's plan, its claims, its warnings and what only the flag allowed leaving out.
type FileOutcome = (
    FilePlan,
    Vec<Claim>,
    Vec<String>,
    BTreeSet<(String, String)>,
);

impl<'i, 'a> FileEdit<'i, 'a> {
    fn new(input: &'i PlanInput<'a>, target: &'i TargetInput<'a>) -> Self {
        let t = &target.target;
        let before = input.files.get(&t.path).cloned().flatten();
        let old_claims: BTreeMap<&str, &Claim> = input
            .claims
            .iter()
            .filter(|c| c.file == t.claim_file)
            .map(|c| (c.server.as_str(), c))
            .collect();
        let created = old_claims
            .values()
            .fold(Created::default(), |acc, c| acc.merge(c.created.clone()));
        let created_file = before.is_none() || old_claims.values().any(|c| c.created_file);
        let created_dirs = old_claims
            .values()
            .map(|c| c.created_dirs)
            .max()
            .unwrap_or(0);
        let mut problems = Vec::new();
        let parsed = input.parsed.get(&t.path);
        let existing = match parsed {
            Some(parsed) => Cow::Borrowed(&parsed.entries),
            None => {
                let text = before.as_deref().unwrap_or_default();
                match formats::list_entries(t.format(), text, t.container()) {
                    Ok(entries) => Cow::Owned(entries.into_iter().collect()),
                    Err(error) => {
                        problems.push(Problem::unreadable(&t.claim_file, text, error));
                        Cow::Owned(BTreeMap::new())
                    }
                }
            }
        };
        FileEdit {
            input,
            target: t,
            file: t.claim_file.clone(),
            before,
            existing,
            document: parsed.map(|p| &p.document),
            edits: Vec::new(),
            old_claims,
            created,
            created_file,
            created_dirs,
            changes: Vec::new(),
            claims: Vec::new(),
            problems,
            warnings: Vec::new(),
            allowed: BTreeSet::new(),
        }
    }

    /// Plans every entry of the file for the command's mode.
    fn run(&mut self, target: &TargetInput<'_>) {
        if !self.problems.is_empty() {
            return;
        }
        let desired: BTreeMap<&str, &Desired> = target
            .desired
            .iter()
            .map(|d| (d.server.as_str(), *d))
            .collect();
        match &self.input.mode {
            Mode::Adopt(servers) => {
                for server in servers {
                    if let Some(d) = desired.get(server.as_str()) {
                        self.adopt(d);
                    }
                }
                let keep: Vec<&Claim> = self
                    .old_claims
                    .values()
                    .filter(|c| {
                        !servers.contains(&c.server) || !desired.contains_key(c.server.as_str())
                    })
                    .copied()
                    .collect();
                self.claims.extend(keep.into_iter().cloned());
                return;
            }
            Mode::Sync => {
                for d in desired.values() {
                    self.sync(d);
                }
            }
            Mode::Uninstall => {
                for d in desired.values() {
                    if let Some(claim) = self.old_claims.get(d.server.as_str()) {
                        self.claims.push((*claim).clone());
                    }
                }
            }
        }
        let owner = self.input.owner;
        let undesired: Vec<&Claim> = self
            .old_claims
            .iter()
            .filter(|(server, _)| !desired.contains_key(*server))
            .map(|(_, c)| *c)
            .collect();
        for claim in undesired {
            if claim.is_owned_by(owner) {
                self.release(claim);
            } else {
                // Another owner's user-scope entry: not this project's to touch.
                self.claims.push(claim.clone());
            }
        }
    }

    fn key(&self, server: &str) -> String {
        format!("{}.{server}", self.target.container().display())
    }

    /// Claims the entry of `d.server` as it stands (`dotpack adopt`).
    fn adopt(&mut self, d: &Desired) {
        let claim = self.old_claims.get(d.server.as_str()).copied();
        let Some(entry) = self.existing.get(&d.server) else {
            if let Some(claim) = claim {
                self.claims.push(claim.clone());
            }
            return;
        };
        if let Some(claim) = claim
            && claim.package != d.package
        {
            self.problems.push(Problem::OtherPackage {
                file: self.file.clone(),
                key: self.key(&d.server),
                owner: claim.package.clone(),
                package: d.package.clone(),
            });
            return;
        }
        let owners = self.owners_with_me(claim);
        let hash = entry_hash(entry);
        let mut adopted = self.make_claim(d, hash, Vec::new(), owners);
        // Claimed where dotpack had not written it: the user's entry.
        adopted.adopted |= claim.is_none();
        self.claims.push(adopted);
        self.changes.push(change(d, Action::Adopt, Vec::new()));
    }

    /// Makes the file hold `d`'s entry, as the claims allow.
    fn sync(&mut self, d: &Desired) {
        let claim = self.old_claims.get(d.server.as_str()).copied();
        // An entry `--resolve-env` wrote, holding values this shell's environment does not,
        // cannot be checked: while nothing about it changes it is left as it is, so only a
        // command that changes it needs the variables.
        if let Some(c) = claim
            && !c.resolved_env.is_empty()
            && c.is_owned_by(self.input.owner)
            && written_for(c, &d.package, &d.version, &d.inputs)
            && !self.input.force
            && self
                .existing
                .get(&d.server)
                .is_some_and(|e| entry_hash(e) != c.entry)
        {
            self.claims.push(c.clone());
            self.changes
                .push(change(d, Action::Unchanged, c.dropped.clone()));
            return;
        }
        if d.switched_off {
            self.switch_off(d, claim);
            return;
        }
        let Some(def) = &d.def else {
            // Not loaded: the caller saw that this entry is current (see `is_current`).
            if let Some(claim) = claim {
                self.claims.push(claim.clone());
                self.changes
                    .push(change(d, Action::Unchanged, claim.dropped.clone()));
            }
            return;
        };
        if d.keep_current
            && let Some(c) = claim
            && c.is_owned_by(self.input.owner)
            && is_current(
                c,
                &d.package,
                &d.version,
                &d.inputs,
                self.existing.get(&d.server),
            )
        {
            self.claims.push(c.clone());
            self.changes
                .push(change(d, Action::Unchanged, c.dropped.clone()));
            return;
        }
        if claim.is_none() && self.restore_original(d) {
            return;
        }
        // The user's `--resolve-env` is remembered by the claim: the entry is written the same
        // way when it is updated later.
        let resolve = self.target.scope == crate::model::hosts::Scope::User
            && (self.input.resolve_env || claim.is_some_and(|c| !c.resolved_env.is_empty()));
        let bridged = crate::model::bridge_server::url_of(def).is_some();
        let gateway = d.package == crate::model::gateway::PACKAGE;
        let prepared = self.prepared(d, def);
        if (bridged || gateway)
            && prepared.as_ref().is_ok_and(|p| {
                p.command.as_deref() == Some(crate::model::bridge_server::PORTABLE_COMMAND)
            })
            && !crate::util::program::on_path(crate::model::bridge_server::PORTABLE_COMMAND)
        {
            self.warnings.push(format!(
                "{}#{}: runs `dotpack {}` with `dotpack` from the PATH, which has no `dotpack` here: put dotpack on your PATH (as every teammate's is), or set DOTPACK_BRIDGE_COMMAND",
                self.file,
                self.key(&d.server),
                if gateway { "serve" } else { "bridge" }
            ));
        }
        let translation = match prepared
            .and_then(|def| {
                let (host, platform) = (self.target.host, self.target.platform);
                to_host::translate_with(host, &d.server, &def, &d.props, resolve, platform)
            })
            .and_then(|t| {
                let (host, scope) = (self.target.host, self.target.scope);
                to_host::check_command_readers(host, scope, &self.file, &t.entry).map(|()| t)
            }) {
            Ok(t) => t,
            Err(error) => {
                self.problems.push(Problem::Translate {
                    host: self.target.host.id.to_string(),
                    server: d.server.clone(),
                    error,
                });
                return;
            }
        };
        self.check_lossy(d, claim, &translation.dropped);
        let dropped: Vec<String> = translation
            .dropped
            .iter()
            .map(|x| x.field.clone())
            .collect();
        let new_hash = entry_hash(&translation.entry);
        let Some(action) = self.sync_action(d, claim, &new_hash) else {
            return;
        };
        if matches!(action, Action::Add | Action::Update) {
            self.edits
                .push(Pending::Upsert(d.server.clone(), translation.entry));
        }
        let owners = self.owners_with_me(claim);
        let mut made = self.make_claim(d, new_hash, dropped.clone(), owners);
        made.resolved_env = translation.resolved;
        self.claims.push(made);
        self.changes.push(change(d, action, dropped));
    }

    /// The definition `d`'s entry is translated from at this target: a bridged server as the
    /// `dotpack bridge URL` it runs (`dotpack` from the PATH in a project's files, this
    /// dotpack's own path in the user's), its tool filters rendered into the bridge's
    /// arguments; a server that starts through the launcher as its pinned `dotpack run`; any
    /// other as declared.
    fn prepared(&self, d: &Desired, def: &Server) -> Result<Server, to_host::TranslateError> {
        use crate::model::bridge_server;
        let (host, scope) = (self.target.host, self.target.scope);
        if d.package == crate::model::gateway::PACKAGE {
            return Ok(crate::model::gateway::for_scope(def, scope));
        }
        if bridge_server::url_of(def).is_some() {
            let listed = to_host::with_filter_lists(host, def, &d.props);
            return Ok(bridge_server::expand(&listed, scope));
        }
        if d.launcher.covers(host.id) {
            return to_host::through_launcher(host, def, &d.props, bridge_server::command(scope));
        }
        Ok(def.clone())
    }

    /// Writes `d`'s entry back as the user had it before (see [`Originals`]), when the state a
    /// rollback restores held it adopted, with the same definition, and nothing holds the name
    /// now. Returns whether it did.
    fn restore_original(&mut self, d: &Desired) -> bool {
        let key = (self.target.claim_file.clone(), d.server.clone());
        let Some(original) = self.input.originals.get(&key) else {
            return false;
        };
        let was = &original.claim;
        if !was.adopted
            || was.package != d.package
            || was.inputs != d.inputs
            || self.existing.contains_key(&d.server)
        {
            return false;
        }
        self.edits
            .push(Pending::Upsert(d.server.clone(), original.entry.clone()));
        let owners = self.owners_with_me(None);
        let mut made = self.make_claim(d, entry_hash(&original.entry), was.dropped.clone(), owners);
        made.adopted = true;
        self.claims.push(made);
        self.changes
            .push(change(d, Action::Add, was.dropped.clone()));
        true
    }

    /// Makes the file hold the entry that switches `d` off in this host, which would otherwise
    /// load it from a shared file. An entry of the user's that switches it off already is left
    /// as it is (`/mcp disable` in pi writes one), unclaimed.
    fn switch_off(&mut self, d: &Desired, claim: Option<&Claim>) {
        let Some(entry) = switched_off_entry(self.target.host) else {
            return;
        };
        if claim.is_none()
            && self
                .existing
                .get(&d.server)
                .is_some_and(|e| switched_off_entry_of(self.target.host, e))
        {
            return;
        }
        let new_hash = entry_hash(&entry);
        let Some(action) = self.sync_action(d, claim, &new_hash) else {
            return;
        };
        if matches!(action, Action::Add | Action::Update) {
            self.edits.push(Pending::Upsert(d.server.clone(), entry));
        }
        let owners = self.owners_with_me(claim);
        let made = self.make_claim(d, new_hash, Vec::new(), owners);
        self.claims.push(made);
        self.changes.push(change(d, action, Vec::new()));
    }

    /// Refuses fields the host cannot express unless allowed: by `--allow-lossy`, by the
    /// dependency's `allow_lossy`, or when the entry was written with that drop before.
    fn check_lossy(&mut self, d: &Desired, claim: Option<&Claim>, dropped: &[Dropped]) {
        let allowed_before: &[String] = claim
            .filter(|c| c.package == d.package)
            .map(|c| c.dropped.as_slice())
            .unwrap_or_default();
        for drop in dropped {
            if allowed_before.contains(&drop.field) {
                continue;
            }
            if self.input.lossy.allows_by_flag_only(drop, &d.allow_lossy) {
                self.allowed
                    .insert((d.package.clone(), recorded_lossy_name(drop)));
            }
            if !self.input.lossy.allows(drop, &d.allow_lossy) {
                self.problems.push(Problem::Lossy {
                    file: self.file.clone(),
                    host: self.target.host.id.to_string(),
                    server: d.server.clone(),
                    package: d.package.clone(),
                    dropped: drop.clone(),
                });
            }
        }
    }

    /// What syncing `d` (whose entry hashes to `new_hash`) does, from what the file holds and
    /// what the claim says; `None` when it cannot (a problem or a kept hand edit is recorded).
    fn sync_action(
        &mut self,
        d: &Desired,
        claim: Option<&Claim>,
        new_hash: &str,
    ) -> Option<Action> {
        let force = self.input.force;
        let owner = self.input.owner;
        let current = self.existing.get(&d.server).map(entry_hash);
        let Some(c) = claim else {
            return match current {
                None => Some(Action::Add),
                Some(_) if force => Some(Action::Update),
                Some(_) => {
                    self.problems.push(Problem::Unclaimed {
                        file: self.file.clone(),
                        key: self.key(&d.server),
                        server: d.server.clone(),
                        package: d.package.clone(),
                    });
                    None
                }
            };
        };
        let others = if c.is_owned_by(owner) {
            c.other_owners(owner)
        } else {
            c.owners.clone()
        };
        if !others.is_empty() && c.entry != new_hash && !force {
            self.problems.push(Problem::OwnedElsewhere {
                file: self.file.clone(),
                key: self.key(&d.server),
                server: d.server.clone(),
                owners: others,
            });
            return None;
        }
        if !c.is_owned_by(owner) {
            // Another owner's entry of another package (or of a project's own server) is not
            // shared, however alike: the claim says which package the entry is, and taking it
            // over would leave its owner's next install refused.
            if c.package != d.package && !force {
                self.problems.push(Problem::OtherPackage {
                    file: self.file.clone(),
                    key: self.key(&d.server),
                    owner: c.package.clone(),
                    package: d.package.clone(),
                });
                return None;
            }
            // Another owner's entry with this very definition: share it, as it is when it was
            // edited by hand since dotpack wrote it.
            return match current {
                None => Some(Action::Add),
                Some(on_disk) if on_disk == new_hash => Some(Action::Share),
                Some(on_disk) if on_disk != c.entry && !force => {
                    self.warnings.push(format!(
                        "{}#{}: edited by hand since dotpack wrote it; kept as it is (`--force` replaces it)",
                        self.file,
                        self.key(&d.server)
                    ));
                    let mut shared = c.clone();
                    shared.owners = self.owners_with_me(Some(c));
                    self.claims.push(shared);
                    self.changes.push(change(d, Action::KeptEdited, Vec::new()));
                    None
                }
                Some(_) => Some(Action::Update),
            };
        }
        if c.package != d.package && current.is_some() && !force {
            self.problems.push(Problem::OtherPackage {
                file: self.file.clone(),
                key: self.key(&d.server),
                owner: c.package.clone(),
                package: d.package.clone(),
            });
            return None;
        }
        match current {
            None => Some(Action::Add),
            Some(on_disk) if on_disk != c.entry && !force => {
                self.warnings.push(format!(
                    "{}#{}: edited by hand since dotpack wrote it; kept as it is (`--force` replaces it)",
                    self.file,
                    self.key(&d.server)
                ));
                self.claims.push(c.clone());
                self.changes.push(change(d, Action::KeptEdited, Vec::new()));
                None
            }
            Some(on_disk) if on_disk == new_hash => Some(Action::Unchanged),
            Some(_) => Some(Action::Update),
        }
    }

    /// This project no longer wants the claimed entry of `claim`: it goes, unless other owners
    /// still declare it or it was edited by hand since.
    fn release(&mut self, claim: &Claim) {
        let server = claim.server.as_str();
        let entry_change = |action| EntryChange {
            server: server.to_string(),
            package: claim.package.clone(),
            action,
            dropped: Vec::new(),
        };
        let others = claim.other_owners(self.input.owner);
        if claim.scope == "user" && !others.is_empty() {
            let mut kept = claim.clone();
            kept.owners = others;
            self.claims.push(kept);
            self.changes.push(entry_change(Action::Release));
            return;
        }
        let Some(entry) = self.existing.get(server) else {
            self.changes.push(entry_change(Action::Forget));
            return;
        };
        // An entry `--resolve-env` wrote that does not match its claim holds values this shell
        // does not: it is removed as planned, and the plan refuses to change its file until the
        // variables are exported (see `check_resolved`).
        let edited = entry_hash(entry) != claim.entry && claim.resolved_env.is_empty();
        if edited && self.input.keep_edited {
            self.changes.push(entry_change(Action::Disown));
            return;
        }
        if edited && !self.input.force {
            self.warnings.push(format!(
                "{}#{}: edited by hand since dotpack wrote it; kept (`--force` removes it, `--keep-edited` leaves it to you)",
                self.file,
                self.key(server)
            ));
            self.claims.push(claim.clone());
            self.changes.push(entry_change(Action::KeptEdited));
            return;
        }
        if claim.adopted && self.input.keep_adopted {
            self.warnings.push(format!(
                "{}#{}: you wrote it before dotpack adopted it; left as it is, and dotpack no longer tracks it",
                self.file,
                self.key(server)
            ));
            self.changes.push(entry_change(Action::Disown));
            return;
        }
        if claim.adopted {
            self.warnings.push(format!(
                "{}#{}: removing an entry you wrote before dotpack adopted it (`dotpack rollback` puts it back)",
                self.file,
                self.key(server)
            ));
        }
        self.edits.push(Pending::Remove(server.to_string()));
        self.changes.push(entry_change(Action::Remove));
    }

    /// Makes every planned entry edit of the file from one parse (see [`formats::apply_ops`]):
    /// the new text and what the edits created, or why they could not be made.
    fn edit(&self) -> Result<Option<formats::Edit>, FormatError> {
        if self.edits.is_empty() {
            return Ok(None);
        }
        let ops: Vec<Op<'_>> = self
            .edits
            .iter()
            .map(|e| match e {
                Pending::Upsert(server, entry) => Op::Upsert(server, entry),
                Pending::Remove(server) => Op::Remove(server, &self.created),
            })
            .collect();
        let t = self.target;
        let edit = match self.document {
            Some(document) if self.before.is_some() => document.apply(&ops),
            // A file created from nothing starts as the host needs it.
            _ => formats::apply_ops(
                t.format(),
                self.before.as_deref().unwrap_or(t.host.new_file),
                t.container(),
                &ops,
            ),
        };
        edit.map(Some)
    }

    /// The owners of a user-scope entry once this project declares it too.
    fn owners_with_me(&self, claim: Option<&Claim>) -> Vec<String> {
        if self.target.scope != Scope::User {
            return Vec::new();
        }
        let mut owners = claim.map(|c| c.owners.clone()).unwrap_or_default();
        if !owners.iter().any(|o| o == self.input.owner) {
            owners.push(self.input.owner.to_string());
        }
        owners.sort();
        owners
    }

    fn make_claim(
        &self,
        d: &Desired,
        entry: String,
        dropped: Vec<String>,
        owners: Vec<String>,
    ) -> Claim {
        Claim {
            file: self.target.claim_file.clone(),
            host: self.target.host.id.to_string(),
            scope: self.target.scope.to_string(),
            key: self.key(&d.server),
            server: d.server.clone(),
            package: d.package.clone(),
            version: d.version.clone(),
            entry,
            inputs: d.inputs.clone(),
            dropped,
            created: Created::default(),
            created_file: false,
            created_dirs: 0,
            owners,
            resolved_env: Vec::new(),
            // An entry the user wrote stays the user's while dotpack updates it.
            adopted: self
                .old_claims
                .get(d.server.as_str())
                .is_some_and(|c| c.adopted),
            project: None,
        }
    }

    /// The file's plan, its claims and warnings; or every problem found in it.
    fn finish(self) -> Result<FileOutcome, Vec<Problem>> {
        if !self.problems.is_empty() {
            return Err(self.problems);
        }
        let edit = self.edit().map_err(|error| {
            vec![Problem::File {
                file: self.file.clone(),
                error,
            }]
        })?;
        let (edited, created) = match edit {
            Some(edit) => (Some(edit.text), self.created.merge(edit.created)),
            None => (None, self.created),
        };
        let entries = match self.target.scope {
            Scope::User => left_entries(self.edits, &self.changes, &self.existing),
            Scope::Project => BTreeMap::new(),
        };
        let mut claims = self.claims;
        // Every claim of a file carries what dotpack created in it, so any one of them can take
        // it back when it is the last to go.
        for claim in &mut claims {
            claim.created = created.clone();
            claim.created_file = self.created_file;
            // How many folders dotpack created for the file is recorded once, when it creates
            // the file: a teammate whose clone lacks the folder (`.cursor/`) installs the same
            // lock, so the lock does not depend on which folders a machine had.
            claim.created_dirs = match (self.created_file, self.old_claims.is_empty()) {
                (false, _) => 0,
                (true, true) => self.target.missing_dirs,
                (true, false) => self.created_dirs,
            };
        }
        // A file dotpack created goes when nothing is left in it, even while a claim remains
        // for an entry someone deleted by hand (an empty file is not valid JSON).
        let gone = self.before.is_none() || self.created_file;
        let text = edited.map_or_else(|| self.before.clone().unwrap_or_default(), Text::from);
        let emptied = text.is_empty() || (gone && text == self.target.host.new_file);
        let after = if emptied && gone { None } else { Some(text) };
        let remove_dirs = if after.is_none() && self.before.is_some() {
            self.created_dirs
        } else {
            0
        };
        let mut resolved: Vec<String> = self
            .old_claims
            .values()
            .flat_map(|c| c.resolved_env.iter())
            .chain(claims.iter().flat_map(|c| c.resolved_env.iter()))
            .cloned()
            .collect();
        resolved.sort();
        resolved.dedup();
        Ok((
            FilePlan {
                target: self.target.clone(),
                before: self.before,
                after,
                changes: self.changes,
                remove_dirs,
                resolved,
                entries,
            },
            claims,
            self.warnings,
            self.allowed,
        ))
    }
}

/// The entry each of `changes` leaves in the edited file: what an upsert in `edits` wrote (the
/// guard checked that it reads back so), else what the file held (`existing`).
fn left_entries(
    edits: Vec<Pending>,
    changes: &[EntryChange],
    existing: &BTreeMap<String, serde_json::Value>,
) -> BTreeMap<String, serde_json::Value> {
    let mut written: BTreeMap<String, serde_json::Value> = edits
        .into_iter()
        .filter_map(|e| match e {
            Pending::Upsert(server, entry) => Some((server, entry)),
            Pending::Remove(_) => None,
        })
        .collect();
    let mut left = BTreeMap::new();
    for change in changes {
        if matches!(
            change.action,
            Action::Remove | Action::Forget | Action::Release
        ) {
            continue;
        }
        let entry = written
            .remove(&change.server)
            .or_else(|| existing.get(&change.server).cloned());
        if let Some(entry) = entry {
            left.insert(change.server.clone(), entry);
        }
    }
    left
}

fn change(d: &Desired, action: Action, dropped: Vec<String>) -> EntryChange {
    EntryChange {
        server: d.server.clone(),
        package: d.package.clone(),
        action,
        dropped,
    }
}

/// Whether `claim` shows the entry of `server` (package `package` at `version`, inputs
/// fingerprint `inputs`) as current in a file whose entry hashes to `on_disk`: then the entry
/// needs no translation, and the package need not even be loaded.
pub fn is_current(
    claim: &Claim,
    package: &str,
    version: &Version,
    inputs: &str,
    on_disk: Option<&serde_json::Value>,
) -> bool {
    written_for(claim, package, version, inputs)
        && on_disk.is_some_and(|entry| entry_hash(entry) == claim.entry)
        && !claims_switch_off(claim)
}

/// Whether `claim` is of an entry that only switches its server off ([`Desired::switched_off`]):
/// never the entry of the server itself, which has a transport.
fn claims_switch_off(claim: &Claim) -> bool {
    crate::model::hosts::adapter(&claim.host)
        .and_then(switched_off_entry)
        .is_some_and(|off| entry_hash(&off) == claim.entry)
}

/// Whether `claim` was written for this package, version and inputs.
fn written_for(claim: &Claim, package: &str, version: &Version, inputs: &str) -> bool {
    claim.package == package && &claim.version == version && claim.inputs == inputs
}

#[cfg(test)]
mod tests;

/// The entry that switches a server off in `host`, by its spelling of `enabled` (pi:
/// `{"disabled": true}`); `None` when it has none.
fn switched_off_entry(host: &crate::model::hosts::HostAdapter) -> Option<serde_json::Value> {
    let cell = crate::model::concepts::concept_of("enabled").and_then(|c| host.spelling(c))?;
    let off = match cell.form {
        crate::model::concepts::Form::Inverted => true,
        crate::model::concepts::Form::Same => false,
        _ => return None,
    };
    let mut entry = serde_json::Map::new();
    entry.insert(cell.field.to_string(), serde_json::Value::Bool(off));
    // The host's other readers' spelling too (built-in pi's `"enabled": false`).
    (host.hooks.to_host)("", &mut entry).ok()?;
    Some(serde_json::Value::Object(entry))
}

/// Whether `entry` switches its server off in `host`, whatever else it holds: in any of the
/// host's spellings (pi's adapter's `disabled`, built-in pi's `enabled`).
fn switched_off_entry_of(
    host: &crate::model::hosts::HostAdapter,
    entry: &serde_json::Value,
) -> bool {
    let Some(serde_json::Value::Object(off)) = switched_off_entry(host) else {
        return false;
    };
    off.iter().any(|(k, v)| entry.get(k) == Some(v))
}
