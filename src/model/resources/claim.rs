//! File claims: every file (or memory block) dotpack wrote for a resource, with the sha256 of
//! what it wrote. Project-scope ones live in `dotpack.lock` as `[[file]]` tables, so a teammate's
//! clone knows which of the committed files are dotpack's. A file whose bytes differ from its
//! claim was edited by hand: kept, and reported, unless `--force`. A lock's file claims are
//! honoured only at the paths the layout gives them (see [`crate::model::lock::read`]).

use semver::Version;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::Kind;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileClaim {
    /// Relative to the project root (`/`-separated) for project scope.
    pub file: String,
    /// For a memory snippet: the name of its block in `file`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block: Option<String>,
    /// The hosts that read the file (two hosts may share one, as `AGENTS.md`).
    pub hosts: Vec<String>,
    pub scope: String,
    pub kind: Kind,
    /// The resource's name in its package.
    pub name: String,
    pub package: String,
    pub version: Version,
    /// `sha256:<hex>` of the file as written (of the block's content for a block).
    pub sha256: String,
    /// How many of the file's folders dotpack created with it; they go with it when empty.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub created_dirs: u32,
    /// For a block: what dotpack put before it to separate it, taken away with it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lead: Option<String>,
    /// For a block: the instructions file did not exist before; it goes when nothing else is
    /// left in it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub created_file: bool,
    /// Frontmatter fields the host could not express, left out with `--allow-lossy`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub dropped: Vec<String>,
    /// Who declared a user-scope file (project folders, or the user-level manifest): it leaves
    /// with its last owner.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub owners: Vec<String>,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

impl FileClaim {
    /// Sort key and identity: the file, then the block.
    pub fn key(&self) -> (&str, &str) {
        (&self.file, self.block.as_deref().unwrap_or(""))
    }

    /// Whether `owner` declared this file: project-scope files belong to the project whose lock
    /// holds them.
    pub fn is_owned_by(&self, owner: &str) -> bool {
        crate::model::claims::is_owned_by(&self.scope, &self.owners, owner)
    }

    /// The owners other than `owner`.
    pub fn other_owners(&self, owner: &str) -> Vec<String> {
        crate::model::claims::other_owners(&self.owners, owner)
    }

    /// What `dotpack list` and reports call it: `skills.pr-review` (in `.claude/skills/…`).
    pub fn label(&self) -> String {
        super::label(self.kind, &self.name)
    }
}

/// `sha256:<hex>` of `text`.
pub fn hash(text: &str) -> String {
    let digest = Sha256::digest(text.as_bytes());
    let mut out = String::from("sha256:");
    for b in digest.iter() {
        out.push_str(&format!("{b:02x}"));
    }
    out
}

/// The claims as `[[file]]` tables, sorted, each field on its own line.
pub fn emit(claims: &[FileClaim]) -> String {
    let mut sorted: Vec<&FileClaim> = claims.iter().collect();
    sorted.sort_by(|a, b| a.key().cmp(&b.key()));
    let s = |v: &str| toml_edit::Value::from(v).to_string();
    let mut out = String::new();
    for c in sorted {
        out.push_str("\n[[file]]\n");
        out.push_str(&format!("file = {}\n", s(&c.file)));
        if let Some(block) = &c.block {
            out.push_str(&format!("block = {}\n", s(block)));
        }
        let hosts: Vec<String> = c.hosts.iter().map(|h| s(h)).collect();
        out.push_str(&format!("hosts = [{}]\n", hosts.join(", ")));
        out.push_str(&format!("scope = {}\n", s(&c.scope)));
        out.push_str(&format!("kind = {}\n", s(kind_name(c.kind))));
        out.push_str(&format!("name = {}\n", s(&c.name)));
        out.push_str(&format!("package = {}\n", s(&c.package)));
        out.push_str(&format!("version = {}\n", s(&c.version.to_string())));
        out.push_str(&format!("sha256 = {}\n", s(&c.sha256)));
        if c.created_dirs > 0 {
            out.push_str(&format!("created_dirs = {}\n", c.created_dirs));
        }
        if let Some(lead) = &c.lead {
            out.push_str(&format!("lead = {}\n", s(lead)));
        }
        if c.created_file {
            out.push_str("created_file = true\n");
        }
        if !c.dropped.is_empty() {
            let dropped: Vec<String> = c.dropped.iter().map(|d| s(d)).collect();
            out.push_str(&format!("dropped = [{}]\n", dropped.join(", ")));
        }
        if !c.owners.is_empty() {
            let mut owners: Vec<String> = c.owners.iter().map(|o| s(o)).collect();
            owners.sort();
            owners.dedup();
            out.push_str(&format!("owners = [{}]\n", owners.join(", ")));
        }
    }
    out
}

fn kind_name(kind: Kind) -> &'static str {
    match kind {
        Kind::Skill => "skill",
        Kind::Command => "command",
        Kind::Agent => "agent",
        Kind::Rule => "rule",
        Kind::Memory => "memory",
    }
}
