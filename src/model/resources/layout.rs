//! Where each host keeps each kind of resource, and in which shape: data, one table per host.
//!
//! Paths hold `{name}`, the resource's validated name; project paths are relative to the project
//! root, user paths to the home folder. A kind a host has no row for (or no path at a scope) is
//! lossy there: installing refuses it unless `--allow-lossy` says to leave it out.
//!
//! Sources (checked against each host's own documentation):
//! - Claude Code: code.claude.com docs "Agent Skills", "Slash commands", "Subagents", "Memory"
//!   (`.claude/rules/*.md` with `paths` frontmatter).
//! - Codex: developers.openai.com/codex/skills (repo `.agents/skills`, user `$HOME/.agents/skills`),
//!   custom prompts (`~/.codex/prompts/*.md`, user scope only), AGENTS.md.
//!   Codex "rules" are command execution policies, not guidance: no rule row.
//! - Gemini CLI: geminicli.com/docs/cli/custom-commands (`.gemini/commands/*.toml`, `prompt` and
//!   `description`, `{{args}}`), skills (`.gemini/skills`), subagents (`.gemini/agents/*.md`),
//!   GEMINI.md.
//! - Cursor: cursor.com/docs/context/rules (`.cursor/rules/*.mdc`: description, globs,
//!   alwaysApply), /context/skills (`.cursor/skills`), commands (`.cursor/commands/*.md`, plain
//!   markdown), AGENTS.md at the project root. Cursor keeps user rules in its settings, not files.

use super::Kind;

/// The shape a host wants a kind in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// The skill folder as the package holds it: `{path}/SKILL.md` and its other files.
    SkillFolder,
    /// The markdown file byte for byte.
    Markdown,
    /// The markdown body alone, frontmatter left out (Cursor commands).
    Body,
    /// A Gemini CLI command: TOML with `description` and `prompt`, `$ARGUMENTS` as `{{args}}`.
    GeminiCommand,
    /// A Gemini CLI subagent: `name` and `description` frontmatter, then the body. Claude Code's
    /// tool names and model aliases mean nothing there.
    GeminiAgent,
    /// A Cursor rule (`.mdc`): `description`, `globs`, `alwaysApply` frontmatter.
    CursorRule,
    /// A Claude Code rule: `paths` frontmatter from `globs`.
    ClaudeRule,
    /// A block between marker comments in the host's instructions file.
    MemoryBlock,
}

/// One kind at one host.
#[derive(Clone, Copy, Debug)]
pub struct KindLayout {
    pub host: &'static str,
    pub kind: Kind,
    /// Relative to the project root, with `{name}`; `None`: not at project scope.
    pub project: Option<&'static str>,
    /// Relative to the home folder, with `{name}`; `None`: not at user scope.
    pub user: Option<&'static str>,
    pub shape: Shape,
    /// Frontmatter fields of the kind the host cannot express: dropped, and lossy when present.
    pub drops: &'static [&'static str],
}

const fn row(
    host: &'static str,
    kind: Kind,
    project: Option<&'static str>,
    user: Option<&'static str>,
    shape: Shape,
    drops: &'static [&'static str],
) -> KindLayout {
    KindLayout {
        host,
        kind,
        project,
        user,
        shape,
        drops,
    }
}

const CLAUDE_CODE: &[KindLayout] = &[
    row(
        "claude-code",
        Kind::Skill,
        Some(".claude/skills/{name}"),
        Some(".claude/skills/{name}"),
        Shape::SkillFolder,
        &[],
    ),
    row(
        "claude-code",
        Kind::Command,
        Some(".claude/commands/{name}.md"),
        Some(".claude/commands/{name}.md"),
        Shape::Markdown,
        &[],
    ),
    row(
        "claude-code",
        Kind::Agent,
        Some(".claude/agents/{name}.md"),
        Some(".claude/agents/{name}.md"),
        Shape::Markdown,
        &[],
    ),
    row(
        "claude-code",
        Kind::Rule,
        Some(".claude/rules/{name}.md"),
        Some(".claude/rules/{name}.md"),
        Shape::ClaudeRule,
        &[],
    ),
    row(
        "claude-code",
        Kind::Memory,
        Some("CLAUDE.md"),
        Some(".claude/CLAUDE.md"),
        Shape::MemoryBlock,
        &[],
    ),
];

const CODEX: &[KindLayout] = &[
    row(
        "codex",
        Kind::Skill,
        Some(".agents/skills/{name}"),
        Some(".agents/skills/{name}"),
        Shape::SkillFolder,
        &[],
    ),
    row(
        "codex",
        Kind::Command,
        None,
        Some(".codex/prompts/{name}.md"),
        Shape::Markdown,
        &["allowed-tools", "model"],
    ),
    row(
        "codex",
        Kind::Memory,
        Some("AGENTS.md"),
        Some(".codex/AGENTS.md"),
        Shape::MemoryBlock,
        &[],
    ),
];

const GEMINI_CLI: &[KindLayout] = &[
    row(
        "gemini-cli",
        Kind::Skill,
        Some(".gemini/skills/{name}"),
        Some(".gemini/skills/{name}"),
        Shape::SkillFolder,
        &[],
    ),
    row(
        "gemini-cli",
        Kind::Command,
        Some(".gemini/commands/{name}.toml"),
        Some(".gemini/commands/{name}.toml"),
        Shape::GeminiCommand,
        &["argument-hint", "allowed-tools", "model"],
    ),
    row(
        "gemini-cli",
        Kind::Agent,
        Some(".gemini/agents/{name}.md"),
        Some(".gemini/agents/{name}.md"),
        Shape::GeminiAgent,
        &["tools", "model"],
    ),
    row(
        "gemini-cli",
        Kind::Memory,
        Some("GEMINI.md"),
        Some(".gemini/GEMINI.md"),
        Shape::MemoryBlock,
        &[],
    ),
];

const CURSOR: &[KindLayout] = &[
    row(
        "cursor",
        Kind::Skill,
        Some(".cursor/skills/{name}"),
        Some(".cursor/skills/{name}"),
        Shape::SkillFolder,
        &[],
    ),
    row(
        "cursor",
        Kind::Command,
        Some(".cursor/commands/{name}.md"),
        Some(".cursor/commands/{name}.md"),
        Shape::Body,
        &["description", "argument-hint", "allowed-tools", "model"],
    ),
    row(
        "cursor",
        Kind::Rule,
        Some(".cursor/rules/{name}.mdc"),
        None,
        Shape::CursorRule,
        &[],
    ),
    row(
        "cursor",
        Kind::Memory,
        Some("AGENTS.md"),
        None,
        Shape::MemoryBlock,
        &[],
    ),
];

/// Every host's table, in the order of [`crate::model::hosts::ADAPTERS`].
pub const LAYOUTS: &[&[KindLayout]] = &[CLAUDE_CODE, GEMINI_CLI, CODEX, CURSOR];

/// The row of `kind` at `host`, if the host keeps that kind at all.
pub fn layout_of(host: &str, kind: Kind) -> Option<&'static KindLayout> {
    LAYOUTS
        .iter()
        .flat_map(|t| t.iter())
        .find(|l| l.host == host && l.kind == kind)
}

/// Frontmatter fields whose loss widens what an agent may do: a `tools` allow list left out gives
/// the agent every tool. They must be named in `--allow-lossy`.
pub const SECURITY_FIELDS: &[&str] = &["tools"];

/// The hosts that keep `kind` at `scope`, for messages.
pub fn hosts_with(kind: Kind, user: bool) -> Vec<&'static str> {
    LAYOUTS
        .iter()
        .flat_map(|t| t.iter())
        .filter(|l| {
            l.kind == kind
                && if user {
                    l.user.is_some()
                } else {
                    l.project.is_some()
                }
        })
        .map(|l| l.host)
        .collect()
}

/// Where resources may be written at user scope below `home`: the folders that hold one file or
/// folder per resource (`~/.claude/skills`), and the instructions files (`~/.codex/AGENTS.md`).
/// The transaction boundary accepts these, and nothing else of the home folder.
pub fn user_places(home: &std::path::Path) -> (Vec<std::path::PathBuf>, Vec<std::path::PathBuf>) {
    let mut dirs = Vec::new();
    let mut files = Vec::new();
    for row in LAYOUTS.iter().flat_map(|t| t.iter()) {
        let Some(path) = row.user else {
            continue;
        };
        match path.split_once("{name}") {
            Some((dir, _)) => {
                let dir = home.join(dir.trim_end_matches('/'));
                if !dirs.contains(&dir) {
                    dirs.push(dir);
                }
            }
            None => {
                let file = home.join(path);
                if !files.contains(&file) {
                    files.push(file);
                }
            }
        }
    }
    (dirs, files)
}
