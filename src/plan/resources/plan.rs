//! Planning resource files: what each file (or memory block) must become, from the bytes read
//! beforehand ([`read_disk`]) and the claims. Pure: [`plan`] reads only its input.
//!
//! | on disk | claim | outcome |
//! | --- | --- | --- |
//! | absent | none | written |
//! | present (or a skill's folder present) | none | collision naming it, unless `--force` |
//! | present | another package | collision naming both packages, unless `--force` |
//! | as claimed | this package | unchanged, or updated when the package's file changed |
//! | edited by hand | this package | kept and reported, unless `--force` |
//! | claimed, no longer wanted | this package | deleted (with the folders dotpack made), unless edited by hand |

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use super::disk::Disk;
use super::want::DesiredFile;
use crate::model::hosts::Scope;
use crate::model::resources::block::{block_body, block_content, remove_block, upsert_block};
use crate::model::resources::claim::{FileClaim, hash};
use crate::model::resources::label;
use crate::plan::{Action, EntryChange, FilePlan, Mode, Target};
use crate::util::error::Error;

/// The resource half of a plan.
#[derive(Clone, Debug, Default)]
pub struct PlanOutput {
    pub files: Vec<FilePlan>,
    /// The new project-scope file claims, complete.
    pub claims: Vec<FileClaim>,
    pub warnings: Vec<String>,
    /// What only `--allow-lossy` let the plan leave out (see [`crate::plan::Plan::allowed`]).
    pub allowed: std::collections::BTreeSet<(String, String)>,
}

/// Everything a resource plan is computed from.
pub struct PlanInput<'a> {
    /// The project root (project scope) or the home folder (user scope): every file is below it.
    pub root: &'a Path,
    pub scope: Scope,
    /// How this project names itself as an owner of user-scope files.
    pub owner: &'a str,
    pub desired: &'a [DesiredFile],
    pub disk: &'a Disk,
    /// The project's file claims (from `dotpack.lock`).
    pub claims: &'a [FileClaim],
    pub force: bool,
    /// `--keep-edited`: a file edited by hand that nothing declares any more is left as it is,
    /// unclaimed.
    pub keep_edited: bool,
    pub mode: &'a Mode,
}

/// Plans every resource file: the file plans, the new claims and warnings; or every problem.
pub fn plan(input: &PlanInput<'_>) -> Result<PlanOutput, Vec<Error>> {
    let mut p = Planner {
        input,
        out: PlanOutput::default(),
        problems: Vec::new(),
    };
    let mut by_file: BTreeMap<&str, (Vec<&DesiredFile>, Vec<&FileClaim>)> = BTreeMap::new();
    for d in input.desired {
        by_file.entry(&d.file).or_default().0.push(d);
    }
    for c in input.claims {
        by_file.entry(&c.file).or_default().1.push(c);
    }
    for (file, (desired, claims)) in by_file {
        let memory =
            desired.iter().any(|d| d.block.is_some()) || claims.iter().any(|c| c.block.is_some());
        if memory {
            p.blocks(file, &desired, &claims);
        } else {
            p.whole(file, desired.first().copied(), claims.first().copied());
        }
    }
    if p.problems.is_empty() {
        p.out.claims.sort_by(|a, b| a.key().cmp(&b.key()));
        Ok(p.out)
    } else {
        Err(p.problems)
    }
}

struct Planner<'i, 'a> {
    input: &'i PlanInput<'a>,
    out: PlanOutput,
    problems: Vec<Error>,
}

impl Planner<'_, '_> {
    fn before(&self, file: &str) -> Option<String> {
        self.input.disk.files.get(file).cloned().flatten()
    }

    fn claim_of(&self, d: &DesiredFile, old: Option<&FileClaim>, sha256: String) -> FileClaim {
        FileClaim {
            file: d.file.clone(),
            block: d.block.clone(),
            hosts: d.hosts.iter().map(|h| h.to_string()).collect(),
            scope: self.input.scope.to_string(),
            kind: d.kind,
            name: d.name.clone(),
            package: d.package.clone(),
            version: d.version.clone(),
            sha256,
            created_dirs: old.map_or(0, |c| c.created_dirs),
            lead: old.and_then(|c| c.lead.clone()),
            created_file: old.is_some_and(|c| c.created_file),
            dropped: d.dropped.clone(),
            owners: self.owners_with_me(old),
        }
    }

    /// The owners of a user-scope file once this project declares it too.
    fn owners_with_me(&self, old: Option<&FileClaim>) -> Vec<String> {
        if self.input.scope != Scope::User {
            return Vec::new();
        }
        let mut owners = old.map(|c| c.owners.clone()).unwrap_or_default();
        if !owners.iter().any(|o| o == self.input.owner) {
            owners.push(self.input.owner.to_string());
        }
        owners.sort();
        owners
    }

    /// A user-scope claim other owners still hold: it stays, without this project. `Some`
    /// when that is the case (the change to report), `None` when this project may act alone.
    fn release_shared(&mut self, c: &FileClaim) -> Option<EntryChange> {
        let others = c.other_owners(self.input.owner);
        if c.scope != "user" || (others.is_empty() && c.is_owned_by(self.input.owner)) {
            return None;
        }
        let mine = c.is_owned_by(self.input.owner);
        let mut kept = c.clone();
        kept.owners = others;
        self.out.claims.push(kept);
        Some(EntryChange {
            server: c.label(),
            package: c.package.clone(),
            action: if mine {
                Action::Release
            } else {
                Action::Unchanged
            },
            dropped: Vec::new(),
        })
    }

    fn file_plan(
        &self,
        file: &str,
        host: &str,
        before: Option<String>,
        after: Option<String>,
        changes: Vec<EntryChange>,
        remove_dirs: u32,
    ) -> Option<FilePlan> {
        let host = crate::model::hosts::adapter(host)?;
        Some(FilePlan {
            target: Target {
                host,
                scope: self.input.scope,
                path: self.input.root.join(file),
                claim_file: match self.input.scope {
                    Scope::Project => file.to_string(),
                    Scope::User => format!("~/{file}"),
                },
                missing_dirs: self.input.disk.missing_dirs.get(file).copied().unwrap_or(0),
                fence: Some(super::disk::fence(self.input.root, self.input.scope)),
                // Resource files hold no server entries to start.
                platform: crate::model::hosts::Platform::current(),
            },
            before: before.map(Into::into),
            after: after.map(Into::into),
            changes,
            remove_dirs,
            resolved: Vec::new(),
            entries: BTreeMap::new(),
        })
    }

    fn push(&mut self, plan: Option<FilePlan>) {
        if let Some(plan) = plan {
            self.out.files.push(plan);
        }
    }

    /// A file `import --into` brought into the project: claimed as it is when it holds exactly
    /// what dotpack would write; else left unclaimed, with a warning naming the way out.
    fn adopt(&mut self, file: &str, d: &DesiredFile, before: Option<String>) {
        match before {
            Some(text) if text == d.text => {
                self.out.claims.push(self.claim_of(d, None, hash(&d.text)));
                let change = EntryChange {
                    server: label(d.kind, &d.name),
                    package: d.package.clone(),
                    action: Action::Adopt,
                    dropped: d.dropped.clone(),
                };
                let plan = self.file_plan(
                    file,
                    d.hosts[0],
                    Some(text.clone()),
                    Some(text),
                    vec![change],
                    0,
                );
                self.push(plan);
            }
            Some(_) => self.out.warnings.push(Error::new(format!("{file} is not what dotpack writes for {} there, so it is left unclaimed (a collision for `dotpack install`)", label(d.kind, &d.name))).help("`dotpack install --force` replaces it with the imported resource's rendering").to_string()),
            None => {}
        }
    }

    /// A whole file: at most one resource wants it, at most one claim holds it.
    fn whole(&mut self, file: &str, d: Option<&DesiredFile>, claim: Option<&FileClaim>) {
        let before = self.before(file);
        let on_disk = before.as_deref().map(hash);
        let force = self.input.force;
        let keep_only = !matches!(self.input.mode, Mode::Sync);
        let Some(d) = d else {
            if let Some(c) = claim {
                if let Some(change) = self.release_shared(c) {
                    let host = c.hosts.first().cloned().unwrap_or_default();
                    let plan = self.file_plan(file, &host, before.clone(), before, vec![change], 0);
                    self.push(plan);
                    return;
                }
                self.release_file(c, before);
            }
            return;
        };
        if let (Mode::Adopt(adopted), None) = (self.input.mode, claim)
            && adopted.contains(&label(d.kind, &d.name))
        {
            self.adopt(file, d, before);
            return;
        }
        if keep_only {
            if let Some(c) = claim {
                self.out.claims.push(c.clone());
            }
            return;
        }
        let change = |action| EntryChange {
            server: label(d.kind, &d.name),
            package: d.package.clone(),
            action,
            dropped: d.dropped.clone(),
        };
        let new_hash = hash(&d.text);
        let host = d.hosts[0];
        let Some(c) = claim else {
            let unowned_folder = d.folder.as_ref().filter(|f| {
                self.input.disk.folders.get(*f).copied().unwrap_or(false)
                    && !self
                        .input
                        .claims
                        .iter()
                        .any(|c| c.file.starts_with(&format!("{f}/")))
            });
            if !force {
                if let Some(folder) = unowned_folder {
                    let problem = Error::new(format!("{folder}/ already exists and was not written by dotpack (package `{}` wants {} there)", d.package, label(d.kind, &d.name))).help("move it away, or `--force` writes the skill's files into it");
                    // Once per folder, not once per file of the skill.
                    if !self
                        .problems
                        .iter()
                        .any(|p| p.message() == problem.message())
                    {
                        self.problems.push(problem);
                    }
                    return;
                }
                if before.is_some() {
                    self.problems.push(Error::new(format!("{file} already exists and was not written by dotpack (package `{}` wants {} there)", d.package, label(d.kind, &d.name))).help("move it away, or `--force` replaces it"));
                    return;
                }
            }
            let mut claim = self.claim_of(d, None, new_hash);
            claim.created_dirs = self.input.disk.missing_dirs.get(file).copied().unwrap_or(0);
            let action = if before.is_some() {
                Action::Update
            } else {
                Action::Add
            };
            self.out.claims.push(claim);
            let plan = self.file_plan(
                file,
                host,
                before,
                Some(d.text.clone()),
                vec![change(action)],
                0,
            );
            self.push(plan);
            return;
        };
        let others = c.other_owners(self.input.owner);
        if c.scope == "user" && !others.is_empty() && c.sha256 != new_hash && !force {
            self.problems.push(Error::new(format!("~/{file} is declared differently by {}", others.iter().map(|o| format!("`{o}`")).collect::<Vec<_>>().join(", "))).help(format!("user-scope files are shared: use the same version of package `{}` there, remove it there first, or install this project's at project scope", d.package)));
            return;
        }
        if c.package != d.package && before.is_some() && !force {
            self.problems.push(
                Error::new(format!(
                    "{file} belongs to package `{}`, and package `{}` wants {} there too",
                    c.package,
                    d.package,
                    label(d.kind, &d.name)
                ))
                .help("remove one of the two packages from dotpack.toml"),
            );
            return;
        }
        match on_disk {
            None => {
                // The claim's folders are kept as recorded, so a clone that writes the file
                // again gives the same lock (`install --locked`).
                self.out.claims.push(self.claim_of(d, Some(c), new_hash));
                let plan = self.file_plan(
                    file,
                    host,
                    None,
                    Some(d.text.clone()),
                    vec![change(Action::Add)],
                    0,
                );
                self.push(plan);
            }
            Some(h) if h != c.sha256 && !force => {
                self.out.warnings.push(format!(
                    "{file}: edited by hand since dotpack wrote it; kept as it is (`--force` replaces it)"
                ));
                self.out.claims.push(c.clone());
                let plan = self.file_plan(
                    file,
                    host,
                    before.clone(),
                    before,
                    vec![change(Action::KeptEdited)],
                    0,
                );
                self.push(plan);
            }
            Some(h) => {
                let action = if h != new_hash {
                    Action::Update
                } else if !c.is_owned_by(self.input.owner) {
                    Action::Share
                } else {
                    Action::Unchanged
                };
                self.out.claims.push(self.claim_of(d, Some(c), new_hash));
                let plan = self.file_plan(
                    file,
                    host,
                    before,
                    Some(d.text.clone()),
                    vec![change(action)],
                    0,
                );
                self.push(plan);
            }
        }
    }

    /// A claimed whole file nothing wants any more: deleted, unless edited by hand.
    fn release_file(&mut self, c: &FileClaim, before: Option<String>) {
        let change = |action| EntryChange {
            server: c.label(),
            package: c.package.clone(),
            action,
            dropped: Vec::new(),
        };
        let host = c
            .hosts
            .first()
            .map_or("claude-code", String::as_str)
            .to_string();
        let Some(text) = before else {
            let plan = self.file_plan(&c.file, &host, None, None, vec![change(Action::Forget)], 0);
            self.push(plan);
            return;
        };
        if hash(&text) != c.sha256 && self.input.keep_edited {
            let plan = self.file_plan(
                &c.file,
                &host,
                Some(text.clone()),
                Some(text),
                vec![change(Action::Disown)],
                0,
            );
            self.push(plan);
            return;
        }
        if hash(&text) != c.sha256 && !self.input.force {
            self.out.warnings.push(format!(
                "{}: edited by hand since dotpack wrote it; kept (`--force` removes it, `--keep-edited` leaves it to you)",
                c.file
            ));
            self.out.claims.push(c.clone());
            let plan = self.file_plan(
                &c.file,
                &host,
                Some(text.clone()),
                Some(text),
                vec![change(Action::KeptEdited)],
                0,
            );
            self.push(plan);
            return;
        }
        let plan = self.file_plan(
            &c.file,
            &host,
            Some(text),
            None,
            vec![change(Action::Remove)],
            c.created_dirs,
        );
        self.push(plan);
    }

    /// An instructions file holding memory blocks: every block edited in place, one after the
    /// other, on the file's text.
    fn blocks(&mut self, file: &str, desired: &[&DesiredFile], claims: &[&FileClaim]) {
        let before = self.before(file);
        let force = self.input.force;
        let keep_only = !matches!(self.input.mode, Mode::Sync);
        let created_file = before.is_none() || claims.iter().any(|c| c.created_file);
        let mut text = before.clone().unwrap_or_default();
        let mut changes = Vec::new();
        let mut host = desired
            .first()
            .map(|d| d.hosts[0].to_string())
            .or_else(|| claims.first().and_then(|c| c.hosts.first().cloned()))
            .unwrap_or_default();
        let claim_of_block = |name: &str| {
            claims
                .iter()
                .find(|c| c.block.as_deref() == Some(name))
                .copied()
        };
        let mut new_claims = Vec::new();
        let mut problems = Vec::new();
        for d in desired {
            let Some(name) = d.block.as_deref() else {
                problems.push(Error::new(format!(
                    "{file}: {} of package `{}` wants the whole file, which holds memory blocks",
                    label(d.kind, &d.name),
                    d.package
                )));
                continue;
            };
            let claim = claim_of_block(name);
            if keep_only {
                if let Some(c) = claim {
                    new_claims.push(c.clone());
                }
                continue;
            }
            let change = |action| EntryChange {
                server: label(d.kind, &d.name),
                package: d.package.clone(),
                action,
                dropped: Vec::new(),
            };
            let body = block_body(&d.text, &text);
            let new_hash = hash(&body);
            let current = block_content(&text, name).map(hash);
            match (claim, current) {
                (None, Some(_)) if !force => {
                    problems.push(Error::new(format!("{file} already holds a `dotpack:begin {name}` block that dotpack did not write (package `{}` wants {} there)", d.package, label(d.kind, &d.name))).help("remove the block, or `--force` replaces it"));
                }
                (Some(c), Some(_)) if c.package != d.package && !force => {
                    problems.push(Error::new(format!("{file} block `{name}` belongs to package `{}`, and package `{}` wants it too", c.package, d.package)).help("remove one of the two packages from dotpack.toml"));
                }
                (Some(c), Some(h)) if h != c.sha256 && !force => {
                    self.out.warnings.push(format!(
                        "{file} block `{name}`: edited by hand since dotpack wrote it; kept as it is (`--force` replaces it)"
                    ));
                    new_claims.push(c.clone());
                    changes.push(change(Action::KeptEdited));
                }
                (claim, current) => {
                    let (edited, lead) = upsert_block(&text, name, &body);
                    let action = match current {
                        None => Action::Add,
                        Some(h) if h == new_hash => Action::Unchanged,
                        Some(_) => Action::Update,
                    };
                    text = edited;
                    let mut c = self.claim_of(d, claim, new_hash);
                    if lead.is_some() {
                        c.lead = lead;
                    }
                    if c.lead.is_none() {
                        c.lead = Some(String::new());
                    }
                    new_claims.push(c);
                    changes.push(change(action));
                }
            }
        }
        let wanted: BTreeSet<&str> = desired.iter().filter_map(|d| d.block.as_deref()).collect();
        for c in claims
            .iter()
            .filter(|c| !c.block.as_deref().is_some_and(|b| wanted.contains(b)))
        {
            let Some(name) = c.block.as_deref() else {
                continue;
            };
            if host.is_empty() {
                host = c.hosts.first().cloned().unwrap_or_default();
            }
            if let Some(change) = self.release_shared(c) {
                changes.push(change);
                continue;
            }
            let change = |action| EntryChange {
                server: c.label(),
                package: c.package.clone(),
                action,
                dropped: Vec::new(),
            };
            match block_content(&text, name).map(hash) {
                None => changes.push(change(Action::Forget)),
                Some(h) if h != c.sha256 && !force => {
                    self.out.warnings.push(format!(
                        "{file} block `{name}`: edited by hand since dotpack wrote it; kept (`--force` removes it)"
                    ));
                    new_claims.push((*c).clone());
                    changes.push(change(Action::KeptEdited));
                }
                Some(_) => {
                    if let Some(edited) = remove_block(&text, name, c.lead.as_deref().unwrap_or(""))
                    {
                        text = edited;
                    }
                    changes.push(change(Action::Remove));
                }
            }
        }
        if !problems.is_empty() {
            self.problems.extend(problems);
            return;
        }
        for c in &mut new_claims {
            c.created_file = created_file;
        }
        // A file dotpack created goes when nothing is left in it.
        let after = if text.is_empty() && created_file {
            None
        } else {
            Some(text)
        };
        let remove_dirs = if after.is_none() {
            claims.iter().map(|c| c.created_dirs).max().unwrap_or(0)
        } else {
            0
        };
        let created_dirs = self.input.disk.missing_dirs.get(file).copied().unwrap_or(0);
        for c in &mut new_claims {
            if before.is_none() {
                c.created_dirs = created_dirs;
            }
        }
        self.out.claims.extend(new_claims);
        let plan = self.file_plan(file, &host, before, after, changes, remove_dirs);
        self.push(plan);
    }
}
