//! Agent resources a package carries beside its servers: skills, slash commands, subagents,
//! rules and memory snippets. Each is files, not config entries, and each host keeps them in its
//! own layout and format.
//!
//! - `source`: the files of a package (its folder, or its archive) and the paths it declares;
//! - `load`: a declared resource read and checked (`SKILL.md`, frontmatter, names);
//! - `layout`: a host's row per kind (in its adapter), saying where its files go and in which
//!   shape;
//! - `render`: a resource in a host's shape (Gemini TOML commands, Cursor `.mdc` rules, …);
//! - `block`: memory snippets as managed blocks inside `AGENTS.md` / `CLAUDE.md` / `GEMINI.md`;
//! - `claim`: the record of every file and block dotpack wrote, with its sha256;
//!
//! Planning them (what each host's files must become) is on the planning floor,
//! [`crate::plan::resources`].

pub(crate) mod block;
pub(crate) mod claim;
pub(crate) mod layout;
pub(crate) mod load;
pub(crate) mod render;
pub(crate) mod source;

use serde::{Deserialize, Serialize};

pub use block::{block_body, block_content, remove_block, upsert_block};
pub use claim::{FileClaim, emit as emit_claims, hash};
pub use layout::{KindLayout, Shape, hosts_with, layout_of, user_places};
pub use load::{Markdown, Resource, load_all, load_one, parse_markdown};
pub use render::{Output, render};
pub use source::{Files, check_path, files_of_archive, files_of_dir};

/// The kinds of resources, as their manifest sections name them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    Skill,
    Command,
    Agent,
    Rule,
    Memory,
}

impl Kind {
    pub const ALL: [Kind; 5] = [
        Kind::Skill,
        Kind::Command,
        Kind::Agent,
        Kind::Rule,
        Kind::Memory,
    ];

    /// The manifest section: `skills`, `commands`, `agents`, `rules`, `memory`.
    pub fn section(self) -> &'static str {
        match self {
            Kind::Skill => "skills",
            Kind::Command => "commands",
            Kind::Agent => "agents",
            Kind::Rule => "rules",
            Kind::Memory => "memory",
        }
    }

    /// One of them, in messages: `skill`, `command`, …
    pub fn noun(self) -> &'static str {
        match self {
            Kind::Skill => "skill",
            Kind::Command => "command",
            Kind::Agent => "agent",
            Kind::Rule => "rule",
            Kind::Memory => "memory snippet",
        }
    }

    pub fn of_section(section: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.section() == section)
    }

    /// What `path` names: a folder holding `SKILL.md` for a skill, a markdown file otherwise.
    pub fn is_folder(self) -> bool {
        self == Kind::Skill
    }
}

impl std::fmt::Display for Kind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.noun())
    }
}

/// `[skills.NAME] path = "skills/NAME"`: where in the package the resource's files are.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ResourceDecl {
    /// Where in the package the resource's files are: relative to the package's folder,
    /// `/`-separated, never leaving it (a folder holding SKILL.md for a skill, a markdown file for
    /// the other kinds).
    #[cfg_attr(feature = "schema", schemars(
        length(min = 1),
        regex(pattern = r"^[^/\\:][^\\:]*$"),
        extend("not" = {"pattern": r"(^|/)\.\.?(/|$)"})
    ))]
    pub path: String,
}

/// How claims and reports name a resource: `skills.pr-review`.
pub fn label(kind: Kind, name: &str) -> String {
    format!("{}.{name}", kind.section())
}

/// The names `--allow-lossy` takes for resources: each kind's section, and every frontmatter
/// field some host drops.
pub fn lossy_names() -> impl Iterator<Item = &'static str> {
    Kind::ALL
        .into_iter()
        .map(Kind::section)
        .chain(
            crate::model::hosts::ADAPTERS
                .iter()
                .flat_map(|a| a.resources.iter())
                .flat_map(|l| l.drops.iter().copied()),
        )
        .chain(["always"])
}
