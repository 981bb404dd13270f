//! The plan: every edit of every host file, every claim and every warning, computed from bytes
//! in memory. Planning never touches the disk; printing a plan is `--dry-run`, applying it is
//! [`crate::apply`].
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

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::PathBuf;

use semver::Version;

use crate::claims::{Claim, entry_hash};
use crate::formats::{self, Container, Created, Document, FormatError};
use crate::hosts::{HostAdapter, Scope};
use crate::manifest::Server;
use crate::template::Props;
use crate::translate::{self, Dropped};

/// One host file at one scope.
#[derive(Clone, Debug)]
pub struct Target {
    pub host: &'static HostAdapter,
    pub scope: Scope,
    /// Where the file is on disk.
    pub path: PathBuf,
    /// How claims name the file: relative to the project root for project scope, absolute for
    /// user scope.
    pub claim_file: String,
}

impl Target {
    fn container(&self) -> Container<'static> {
        Container::new(self.host.container)
    }

    fn format(&self) -> formats::Format {
        self.host.format
    }
}

/// A server dotpack should own in every target.
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
}

/// `--allow-lossy`: absent, bare (drop anything that is not security-relevant), or a list of
/// named fields or concepts.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LossyPolicy {
    pub bare: bool,
    pub named: BTreeSet<String>,
}

impl LossyPolicy {
    fn allows(&self, dropped: &Dropped, per_dependency: &[String]) -> bool {
        let names = |n: &String| {
            *n == dropped.field || n == dropped.concept || field_root(&dropped.field) == n
        };
        self.named.iter().any(names)
            || per_dependency.iter().any(names)
            || (self.bare && !dropped.security)
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
    pub before: Option<String>,
    /// The bytes to write, `None` to delete the file (or leave it absent).
    pub after: Option<String>,
    pub changes: Vec<EntryChange>,
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
}

/// Why a plan cannot be made. All problems are collected so the user sees every one at once.
#[derive(Debug)]
pub struct PlanError(pub Vec<Problem>);

#[derive(Debug)]
pub enum Problem {
    /// A host file that does not parse, or whose container has the wrong type.
    File { file: String, error: FormatError },
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
    /// A field the host cannot express, not allowed to be dropped.
    Lossy {
        file: String,
        host: String,
        server: String,
        dropped: Dropped,
    },
    /// A server that cannot be written for a host at all.
    Translate {
        host: String,
        server: String,
        error: translate::TranslateError,
    },
}

impl fmt::Display for PlanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let lossy: Vec<&Problem> = self
            .0
            .iter()
            .filter(|p| matches!(p, Problem::Lossy { .. }))
            .collect();
        let mut first = true;
        for problem in self
            .0
            .iter()
            .filter(|p| !matches!(p, Problem::Lossy { .. }))
        {
            if !first {
                writeln!(f)?;
            }
            first = false;
            write!(f, "{problem}")?;
        }
        if !lossy.is_empty() {
            if !first {
                writeln!(f)?;
            }
            write_lossy(f, &lossy)?;
        }
        Ok(())
    }
}

fn write_lossy(f: &mut fmt::Formatter<'_>, lossy: &[&Problem]) -> fmt::Result {
    writeln!(
        f,
        "installing would drop fields these hosts cannot express:"
    )?;
    let mut security = BTreeSet::new();
    let mut plain = BTreeSet::new();
    for problem in lossy {
        if let Problem::Lossy {
            file,
            host,
            server,
            dropped,
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
            writeln!(
                f,
                "  {host} {file}: server `{server}` field `{}`{tag}, concept {}; supported on {supported}",
                dropped.field, dropped.concept
            )?;
            if dropped.security {
                security.insert(dropped.field.clone());
            } else {
                plain.insert(dropped.field.clone());
            }
        }
    }
    let mut help = Vec::new();
    if !plain.is_empty() {
        help.push("`--allow-lossy` to drop the fields that are not security-relevant".to_string());
    }
    if !security.is_empty() {
        let names: Vec<String> = security.into_iter().collect();
        help.push(format!(
            "`--allow-lossy={}` to drop security-relevant fields (they must be named)",
            names.join(",")
        ));
    }
    help.push("`allow_lossy = [...]` on the dependency in dotpack.toml to record it".to_string());
    help.push("or `--host` to leave those hosts out".to_string());
    write!(f, "  help: use {}", help.join("; "))
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Problem::File { file, error } => write!(
                f,
                "{file}: {error}\n  help: fix the file by hand; dotpack never rewrites a file it cannot read"
            ),
            Problem::Unclaimed {
                file,
                key,
                server,
                package,
            } => write!(
                f,
                "{file}#{key} already exists and was not written by dotpack (package `{package}` wants server `{server}` there)\n  help: `--force` replaces it, or `dotpack adopt {server}` takes ownership of the entry as it is"
            ),
            Problem::OtherPackage {
                file,
                key,
                owner,
                package,
            } => write!(
                f,
                "{file}#{key} belongs to package `{owner}`, and package `{package}` declares the same server\n  help: remove one of the two packages from dotpack.toml"
            ),
            Problem::Lossy { .. } => write_lossy(f, &[self]),
            Problem::Translate {
                host,
                server,
                error,
            } => {
                write!(f, "server `{server}` cannot be written for {host}: {error}")
            }
        }
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

/// A target file parsed once: the entries it holds, and the document its first edit is made on.
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

/// Everything a plan is computed from.
pub struct PlanInput<'a> {
    pub targets: &'a [Target],
    pub desired: &'a [Desired],
    /// Current bytes of every target file (`None`: absent).
    pub files: &'a BTreeMap<PathBuf, Option<String>>,
    /// The target files already parsed by the caller, from the bytes in `files` (files missing
    /// here are parsed by the planner, which reports those that do not parse).
    pub parsed: &'a BTreeMap<PathBuf, ParsedFile<'a>>,
    /// Current claims for the targets' scope.
    pub claims: &'a [Claim],
    /// The project root, recorded in user-scope claims.
    pub project: Option<String>,
    pub force: bool,
    pub lossy: &'a LossyPolicy,
    pub mode: Mode,
}

/// Computes the plan. Pure: reads only its input.
pub fn plan(input: &PlanInput<'_>) -> Result<Plan, PlanError> {
    let mut problems = Vec::new();
    let mut plan = Plan::default();
    let target_files: BTreeSet<&str> = input
        .targets
        .iter()
        .map(|t| t.claim_file.as_str())
        .collect();
    plan.claims = input
        .claims
        .iter()
        .filter(|c| !target_files.contains(c.file.as_str()))
        .cloned()
        .collect();
    for target in input.targets {
        let before = input.files.get(&target.path).cloned().flatten();
        match plan_file(input, target, before, &mut plan.claims, &mut plan.warnings) {
            Ok(file) => plan.files.push(file),
            Err(mut more) => problems.append(&mut more),
        }
    }
    if problems.is_empty() {
        crate::claims::sort(&mut plan.claims);
        Ok(plan)
    } else {
        Err(PlanError(problems))
    }
}

/// Plans one file, pushing its new claims into `claims`.
fn plan_file(
    input: &PlanInput<'_>,
    target: &Target,
    before: Option<String>,
    claims: &mut Vec<Claim>,
    warnings: &mut Vec<String>,
) -> Result<FilePlan, Vec<Problem>> {
    let file = target.claim_file.clone();
    let file_problem = |error| {
        vec![Problem::File {
            file: file.clone(),
            error,
        }]
    };
    let original: &str = before.as_deref().unwrap_or_default();
    let parsed = input.parsed.get(&target.path);
    let existing: Cow<'_, BTreeMap<String, serde_json::Value>> = match parsed {
        Some(parsed) => Cow::Borrowed(&parsed.entries),
        None => Cow::Owned(
            formats::list_entries(target.format(), original, target.container())
                .map_err(file_problem)?
                .into_iter()
                .collect(),
        ),
    };
    // The parsed document of `original`, for the first edit (later ones edit the edited text).
    let document = parsed.map(|p| &p.document);
    let old_claims: BTreeMap<&str, &Claim> = input
        .claims
        .iter()
        .filter(|c| c.file == target.claim_file)
        .map(|c| (c.server.as_str(), c))
        .collect();
    let mut created: Created = old_claims
        .values()
        .fold(Created::default(), |acc, c| acc.merge(c.created.clone()));
    let created_file = before.is_none() || old_claims.values().any(|c| c.created_file);
    // The file's text after the edits so far; `None` while it is still `original`.
    let mut edited: Option<String> = None;
    let mut changes = Vec::new();
    let mut problems = Vec::new();
    let mut new_claims = Vec::new();
    let desired: BTreeMap<&str, &Desired> = input
        .desired
        .iter()
        .map(|d| (d.server.as_str(), d))
        .collect();
    let key = |server: &str| format!("{}.{server}", target.container().display());

    if let Mode::Adopt(servers) = &input.mode {
        for server in servers {
            let Some(d) = desired.get(server.as_str()) else {
                continue;
            };
            let Some(entry) = existing.get(server) else {
                if let Some(claim) = old_claims.get(server.as_str()) {
                    new_claims.push((*claim).clone());
                }
                continue;
            };
            if let Some(claim) = old_claims.get(server.as_str())
                && claim.package != d.package
            {
                problems.push(Problem::OtherPackage {
                    file: file.clone(),
                    key: key(server),
                    owner: claim.package.clone(),
                    package: d.package.clone(),
                });
                continue;
            }
            new_claims.push(make_claim(
                input,
                target,
                d,
                entry_hash(entry),
                Vec::new(),
                &key(server),
            ));
            changes.push(change(d, Action::Adopt, Vec::new()));
        }
        for (server, claim) in &old_claims {
            if !servers.contains(*server) {
                new_claims.push((*claim).clone());
            }
        }
        if !problems.is_empty() {
            return Err(problems);
        }
        for claim in &mut new_claims {
            claim.created = created.clone();
            claim.created_file = created_file;
        }
        claims.extend(new_claims);
        return Ok(FilePlan {
            target: target.clone(),
            after: before.clone(),
            before,
            changes,
        });
    }

    for d in desired.values() {
        if matches!(input.mode, Mode::Uninstall) {
            if let Some(claim) = old_claims.get(d.server.as_str()) {
                new_claims.push((*claim).clone());
            }
            continue;
        }
        let claim = old_claims.get(d.server.as_str()).copied();
        let Some(def) = &d.def else {
            // Not loaded: the caller saw that this entry is current (see `is_current`).
            if let Some(claim) = claim {
                new_claims.push(claim.clone());
                changes.push(change(d, Action::Unchanged, claim.dropped.clone()));
            }
            continue;
        };
        let translation = match translate::translate(target.host, def, &d.props) {
            Ok(t) => t,
            Err(error) => {
                problems.push(Problem::Translate {
                    host: target.host.id.to_string(),
                    server: d.server.clone(),
                    error,
                });
                continue;
            }
        };
        // A drop allowed when the entry was written stays allowed for the same package.
        let allowed_before: Vec<String> = claim
            .filter(|c| c.package == d.package)
            .map(|c| c.dropped.clone())
            .unwrap_or_default();
        for dropped in &translation.dropped {
            if !input.lossy.allows(dropped, &d.allow_lossy)
                && !allowed_before.contains(&dropped.field)
            {
                problems.push(Problem::Lossy {
                    file: file.clone(),
                    host: target.host.id.to_string(),
                    server: d.server.clone(),
                    dropped: dropped.clone(),
                });
            }
        }
        let dropped: Vec<String> = translation
            .dropped
            .iter()
            .map(|x| x.field.clone())
            .collect();
        let new_hash = entry_hash(&translation.entry);
        let current = existing.get(&d.server);
        let action = match (current, claim) {
            (None, _) => Action::Add,
            (Some(_), None) if input.force => Action::Update,
            (Some(_), None) => {
                problems.push(Problem::Unclaimed {
                    file: file.clone(),
                    key: key(&d.server),
                    server: d.server.clone(),
                    package: d.package.clone(),
                });
                continue;
            }
            (Some(_), Some(c)) if c.package != d.package && !input.force => {
                problems.push(Problem::OtherPackage {
                    file: file.clone(),
                    key: key(&d.server),
                    owner: c.package.clone(),
                    package: d.package.clone(),
                });
                continue;
            }
            (Some(entry), Some(c)) => {
                let on_disk = entry_hash(entry);
                if on_disk != c.entry && !input.force {
                    warnings.push(format!(
                        "{file}#{}: edited by hand since dotpack wrote it; kept as it is (`--force` replaces it)",
                        key(&d.server)
                    ));
                    new_claims.push(c.clone());
                    changes.push(change(d, Action::KeptEdited, Vec::new()));
                    continue;
                }
                if on_disk == new_hash {
                    Action::Unchanged
                } else {
                    Action::Update
                }
            }
        };
        if action != Action::Unchanged {
            let edit = match (&edited, document) {
                (None, Some(document)) => document.upsert(&d.server, &translation.entry),
                (current, _) => formats::upsert_entry(
                    target.format(),
                    current.as_deref().unwrap_or(original),
                    target.container(),
                    &d.server,
                    &translation.entry,
                ),
            };
            match edit {
                Ok(edit) => {
                    edited = Some(edit.text);
                    created = created.merge(edit.created);
                }
                Err(error) => {
                    problems.push(Problem::File {
                        file: file.clone(),
                        error,
                    });
                    continue;
                }
            }
        }
        new_claims.push(make_claim(
            input,
            target,
            d,
            new_hash,
            dropped.clone(),
            &key(&d.server),
        ));
        changes.push(change(d, action, dropped));
    }

    // Claimed entries whose package is no longer wanted.
    for (server, claim) in &old_claims {
        if desired.contains_key(server) {
            continue;
        }
        if claim.project.is_some() && claim.project != input.project {
            new_claims.push((*claim).clone());
            continue;
        }
        let Some(entry) = existing.get(*server) else {
            changes.push(EntryChange {
                server: server.to_string(),
                package: claim.package.clone(),
                action: Action::Forget,
                dropped: Vec::new(),
            });
            continue;
        };
        if entry_hash(entry) != claim.entry && !input.force {
            warnings.push(format!(
                "{file}#{}: edited by hand since dotpack wrote it; kept (`--force` removes it)",
                key(server)
            ));
            new_claims.push((*claim).clone());
            changes.push(EntryChange {
                server: server.to_string(),
                package: claim.package.clone(),
                action: Action::KeptEdited,
                dropped: Vec::new(),
            });
            continue;
        }
        let edit = match (&edited, document) {
            (None, Some(document)) => document.remove(server, &created),
            (current, _) => formats::remove_entry(
                target.format(),
                current.as_deref().unwrap_or(original),
                target.container(),
                server,
                &created,
            ),
        };
        match edit {
            Ok(edit) => edited = Some(edit.text),
            Err(error) => {
                problems.push(Problem::File {
                    file: file.clone(),
                    error,
                });
                continue;
            }
        }
        changes.push(EntryChange {
            server: server.to_string(),
            package: claim.package.clone(),
            action: Action::Remove,
            dropped: Vec::new(),
        });
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    // Every claim of a file carries what dotpack created in it, so any one of them can take it
    // back when it is the last to go.
    for claim in &mut new_claims {
        claim.created = created.clone();
        claim.created_file = created_file;
    }
    let gone = before.is_none() || (created_file && new_claims.is_empty());
    let text = edited.unwrap_or_else(|| original.to_owned());
    let after = if text.is_empty() && gone {
        None
    } else {
        Some(text)
    };
    claims.extend(new_claims);
    Ok(FilePlan {
        target: target.clone(),
        before,
        after,
        changes,
    })
}

fn change(d: &Desired, action: Action, dropped: Vec<String>) -> EntryChange {
    EntryChange {
        server: d.server.clone(),
        package: d.package.clone(),
        action,
        dropped,
    }
}

fn make_claim(
    input: &PlanInput<'_>,
    target: &Target,
    d: &Desired,
    entry: String,
    dropped: Vec<String>,
    key: &str,
) -> Claim {
    Claim {
        file: target.claim_file.clone(),
        host: target.host.id.to_string(),
        scope: target.scope.to_string(),
        key: key.to_string(),
        server: d.server.clone(),
        package: d.package.clone(),
        version: d.version.clone(),
        entry,
        inputs: d.inputs.clone(),
        dropped,
        created: Created::default(),
        created_file: false,
        project: match target.scope {
            Scope::User => input.project.clone(),
            Scope::Project => None,
        },
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
    claim.package == package
        && &claim.version == version
        && claim.inputs == inputs
        && on_disk.is_some_and(|entry| entry_hash(entry) == claim.entry)
}
