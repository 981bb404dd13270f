//! Where a host keeps each kind of resource, and in which shape: the types of the rows each
//! adapter carries ([`crate::model::hosts::HostAdapter::resources`], with the sources they rest
//! on), and the views across hosts.
//!
//! Paths hold `{name}`, the resource's validated name; project paths are relative to the project
//! root, user paths to the home folder. A kind a host has no row for (or no path at a scope) is
//! lossy there: installing refuses it unless `--allow-lossy` says to leave it out.

use super::Kind;
use crate::model::hosts::{ADAPTERS, adapter};

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

/// Where and in which shape one host keeps one kind: a row of the host's
/// [`crate::model::hosts::HostAdapter::resources`].
#[derive(Clone, Copy, Debug)]
pub struct KindLayout {
    pub kind: Kind,
    /// Relative to the project root, with `{name}`; `None`: not at project scope.
    pub project: Option<&'static str>,
    /// Relative to the home folder, with `{name}`; `None`: not at user scope.
    pub user: Option<&'static str>,
    pub shape: Shape,
    /// Frontmatter fields of the kind the host cannot express: dropped, and lossy when present.
    pub drops: &'static [&'static str],
}

/// The row of `kind` at host `host`, if the host keeps that kind at all.
pub fn layout_of(host: &str, kind: Kind) -> Option<&'static KindLayout> {
    adapter(host)?.layout(kind)
}

/// Every host's rows, in the order of [`ADAPTERS`].
fn rows() -> impl Iterator<Item = &'static KindLayout> {
    ADAPTERS.iter().flat_map(|a| a.resources.iter())
}

/// Frontmatter fields whose loss widens what an agent may do: a `tools` allow list left out gives
/// the agent every tool. They must be named in `--allow-lossy`.
pub const SECURITY_FIELDS: &[&str] = &["tools"];

/// The hosts that keep `kind` at `scope`, for messages, in the order of [`ADAPTERS`].
pub fn hosts_with(kind: Kind, user: bool) -> Vec<&'static str> {
    ADAPTERS
        .iter()
        .filter(|a| {
            a.layout(kind).is_some_and(|l| {
                if user {
                    l.user.is_some()
                } else {
                    l.project.is_some()
                }
            })
        })
        .map(|a| a.id)
        .collect()
}

/// Where resources may be written at user scope below `home`: the folders that hold one file or
/// folder per resource (`~/.claude/skills`), and the instructions files (`~/.codex/AGENTS.md`).
/// The transaction boundary accepts these, and nothing else of the home folder.
pub fn user_places(home: &std::path::Path) -> (Vec<std::path::PathBuf>, Vec<std::path::PathBuf>) {
    let mut dirs = Vec::new();
    let mut files = Vec::new();
    for row in rows() {
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
