//! What the wanted resources become at each host: the files (or memory blocks) in each host's
//! shape, with lossy kinds and fields refused unless allowed. Pure.

use std::collections::BTreeSet;

use semver::Version;

use crate::model::hosts::Scope;
use crate::model::resources::claim::FileClaim;
use crate::model::resources::layout::{Shape, hosts_with, layout_of};
use crate::model::resources::{Kind, Resource, label, render};
use crate::plan::to_host::Dropped;
use crate::plan::{LossyPolicy, recorded_lossy_name};
use crate::util::error::Error;

/// One resource of one package, wanted at one host and scope.
#[derive(Clone, Debug)]
pub struct Want<'a> {
    pub host: &'static str,
    pub scope: Scope,
    pub package: &'a str,
    pub version: &'a Version,
    pub resource: &'a Resource,
    /// `allow_lossy` of the package's dependency in `dotpack.toml`.
    pub allow_lossy: &'a [String],
}

/// A file (or block) some resource wants, in one host's shape.
#[derive(Clone, Debug, PartialEq)]
pub struct DesiredFile {
    /// Relative to the project root, `/`-separated.
    pub file: String,
    pub block: Option<String>,
    pub hosts: Vec<&'static str>,
    pub kind: Kind,
    pub name: String,
    pub package: String,
    pub version: Version,
    pub text: String,
    /// A skill's folder (relative), which must not exist unowned.
    pub folder: Option<String>,
    pub dropped: Vec<String>,
}

impl DesiredFile {
    fn key(&self) -> (&str, &str) {
        (&self.file, self.block.as_deref().unwrap_or(""))
    }
}

/// The files the wanted resources become, each in its host's shape; lossy kinds and fields are
/// refused (into `problems`) unless `lossy` or the dependency's `allow_lossy` allows dropping
/// them. Two hosts that read the same file (`AGENTS.md`) share one copy.
pub fn desired_files(
    wants: &[Want<'_>],
    lossy: &LossyPolicy,
    claims: &[FileClaim],
    problems: &mut Vec<Error>,
    warnings: &mut Vec<String>,
    allowed: &mut BTreeSet<(String, String)>,
) -> Vec<DesiredFile> {
    let mut lossy_lines = Vec::new();
    let mut lossy_names = BTreeSet::new();
    let mut lossy_packages: BTreeSet<&str> = BTreeSet::new();
    let mut out: Vec<DesiredFile> = Vec::new();
    for want in wants {
        let r = want.resource;
        let what = label(r.kind, &r.name);
        let row = layout_of(want.host, r.kind);
        let place = row.and_then(|l| match want.scope {
            Scope::Project => l.project,
            Scope::User => l.user,
        });
        let (Some(row), Some(place)) = (row, place) else {
            let drop = kind_dropped(r.kind, want.scope);
            if lossy.allows_by_flag_only(&drop, want.allow_lossy) {
                allowed.insert((want.package.to_string(), recorded_lossy_name(&drop)));
            }
            if lossy.allows(&drop, want.allow_lossy) {
                warnings.push(format!(
                    "{}: {} `{}` of package `{}` left out: {} has no {}-scope {}",
                    want.host,
                    r.kind,
                    r.name,
                    want.package,
                    want.host,
                    want.scope,
                    r.kind.section()
                ));
            } else {
                lossy_names.insert(r.kind.section().to_string());
                lossy_packages.insert(want.package);
                lossy_lines.push(format!(
                    "  {}: {what} of package `{}`: {} keeps no {} at {} scope; supported on {}",
                    want.host,
                    want.package,
                    want.host,
                    r.kind.section(),
                    want.scope,
                    list_or_none(&drop.supported_on)
                ));
            }
            continue;
        };
        let place = place.replace("{name}", &r.name);
        let output = render(row, r, &place);
        let mut refused = false;
        // A field dropped with the file's last install stays allowed, as for server entries.
        let allowed_before = |field: &str| {
            claims.iter().any(|c| {
                c.package == want.package
                    && c.kind == r.kind
                    && c.name == r.name
                    && c.hosts.iter().any(|h| h == want.host)
                    && c.dropped.iter().any(|d| d == field)
            })
        };
        for field in &output.dropped {
            let drop = field_dropped(r.kind, field);
            if lossy.allows_by_flag_only(&drop, want.allow_lossy) && !allowed_before(field) {
                allowed.insert((want.package.to_string(), recorded_lossy_name(&drop)));
            }
            if !lossy.allows(&drop, want.allow_lossy) && !allowed_before(field) {
                refused = true;
                lossy_names.insert(field.clone());
                lossy_packages.insert(want.package);
                let tag = if drop.security {
                    format!(" (security-relevant: it must be named, `--allow-lossy={field}`)")
                } else {
                    String::new()
                };
                lossy_lines.push(format!(
                    "  {}: {what} of package `{}`: frontmatter `{field}` has no equivalent there{tag}",
                    want.host, want.package
                ));
            }
        }
        if refused {
            continue;
        }
        let block = (row.shape == Shape::MemoryBlock).then(|| r.name.clone());
        let folder = (row.shape == Shape::SkillFolder).then(|| place.clone());
        for (file, text) in output.files {
            let new = DesiredFile {
                file,
                block: block.clone(),
                hosts: vec![want.host],
                kind: r.kind,
                name: r.name.clone(),
                package: want.package.to_string(),
                version: want.version.clone(),
                text,
                folder: folder.clone(),
                dropped: output.dropped.clone(),
            };
            match out.iter_mut().find(|d| d.key() == new.key()) {
                Some(same)
                    if same.text == new.text
                        && same.package == new.package
                        && same.kind == new.kind =>
                {
                    if !same.hosts.contains(&want.host) {
                        same.hosts.push(want.host);
                    }
                }
                Some(other) => problems.push(
                    Error::new(format!(
                        "{}{}: {} of package `{}` and {} of package `{}` both want it, differently",
                        new.file,
                        new.block
                            .as_deref()
                            .map(|b| format!(" (block {b})"))
                            .unwrap_or_default(),
                        label(other.kind, &other.name),
                        other.package,
                        what,
                        want.package
                    ))
                    .help("rename one of them, or leave one host out with --host"),
                ),
                None => out.push(new),
            }
        }
    }
    if !lossy_lines.is_empty() {
        let names: Vec<String> = lossy_names.iter().map(|n| format!("\"{n}\"")).collect();
        let record = crate::plan::where_to_record_lossy(&lossy_packages, &names.join(", "));
        problems.push(Error::new(format!("installing would leave out resources these hosts cannot keep:\n{}", lossy_lines.join("\n"))).help(format!("use `--allow-lossy` to leave them out (recorded in dotpack.toml); {record}; or `--host` to leave those hosts out")));
    }
    out
}

fn list_or_none(hosts: &[&str]) -> String {
    if hosts.is_empty() {
        "no known host".to_string()
    } else {
        hosts.join(", ")
    }
}

/// A whole kind a host cannot keep, as the lossy policy reads it (named by its section).
fn kind_dropped(kind: Kind, scope: Scope) -> Dropped {
    Dropped {
        field: kind.section().to_string(),
        concept: kind.section(),
        security: false,
        supported_on: hosts_with(kind, scope == Scope::User),
    }
}

/// A frontmatter field a host cannot express.
fn field_dropped(kind: Kind, field: &str) -> Dropped {
    Dropped {
        field: field.to_string(),
        concept: kind.section(),
        security: crate::model::resources::layout::SECURITY_FIELDS.contains(&field),
        supported_on: Vec::new(),
    }
}
