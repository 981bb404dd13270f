//! What a committed lock may say. `dotpack.lock` comes with a clone, so its claims are taken for
//! what a lock dotpack wrote can hold, and nothing more: which entries of the project's own host
//! files, and which resource files at the paths the layout gives them, dotpack wrote. Ownership of
//! anything at user scope is known only from `$DOTPACK_HOME` (see [`crate::model::claims::UserClaims`]).
//!
//! [`admit`] is the one place that decides, field by field (the table is in `docs/security.md`,
//! "What a committed lock may say"): a claim a lock dotpack wrote could never hold is set aside
//! and reported, a field that means nothing at project scope is cleared, and a count is capped at
//! what the path allows. Every reader of a lock goes through it ([`super::read`]).

use std::collections::BTreeMap;

use crate::model::claims::Claim;
use crate::model::hosts::{self, HostAdapter};
use crate::model::resources::{FileClaim, Shape, check_path, layout_of};
use crate::util::error::Error;

use super::Lockfile;

/// Why a claim read from a lock is not honoured.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Reason {
    /// `scope = "user"`: ownership at user scope is recorded only in `$DOTPACK_HOME`.
    UserScope,
    /// A scope other than `project` and `user`.
    OtherScope,
    /// An entry claim whose host is unknown, has no project file, or keeps it elsewhere.
    NotHostFile,
    /// An entry claim whose key is not the host's container and the server's name.
    Key,
    /// An entry claim saying the file holds values of environment variables (`--resolve-env`,
    /// user scope only).
    ResolvedEnv,
    /// An entry claim whose `created.file_content` is not a file that held no document.
    FileContent,
    /// A file claim on a path the layout does not give its kind, name and hosts.
    ResourcePath,
    /// A file claim whose `lead` is not a separator dotpack writes before a block.
    Lead,
}

impl Reason {
    /// Why claims with this reason are ignored, for the warning.
    fn why(self, files: bool) -> &'static str {
        match (self, files) {
            (Reason::UserScope, false) => {
                "ownership of user-scope entries is recorded only in $DOTPACK_HOME"
            }
            (Reason::UserScope, true) => {
                "ownership of user-scope files is recorded only in $DOTPACK_HOME"
            }
            (Reason::OtherScope, _) => "a lock holds project-scope claims only",
            (Reason::NotHostFile, _) => {
                "dotpack writes a host's project servers only into that host's project file"
            }
            (Reason::Key, _) => "the key is not where that host keeps that server",
            (Reason::ResolvedEnv, _) => {
                "dotpack writes values of environment variables (`--resolve-env`) only at user scope, never into a project file"
            }
            (Reason::FileContent, _) => {
                "the file content they would restore is not a file that held no document"
            }
            (Reason::ResourcePath, _) => {
                "dotpack writes no resource of that kind and name there for those hosts"
            }
            (Reason::Lead, _) => "their `lead` is not a line break dotpack puts before a block",
        }
    }

    /// The claims, as the warning counts them.
    fn noun(self, files: bool) -> &'static str {
        match (self, files) {
            (Reason::UserScope, false) => "user-scope claim",
            (Reason::UserScope, true) => "user-scope file claim",
            (Reason::ResolvedEnv, _) => "project-scope claim with `resolved_env`",
            (_, false) => "claim",
            (_, true) => "file claim",
        }
    }
}

/// One claim of a lock that is not honoured.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Ignored {
    pub reason: Reason,
    /// A `[[file]]` claim (else a `[[claim]]`).
    pub file: bool,
    /// How the warning names it: the file and key, or the file (and block).
    pub what: String,
}

/// The claims of a lock that reading it set aside.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Untrusted {
    pub ignored: Vec<Ignored>,
}

/// How many claims a warning names before it says "and N more".
const NAMED: usize = 3;

impl Untrusted {
    /// Both sides' claims set aside (a conflicted lock), each once.
    pub fn union(mut self, other: Untrusted) -> Untrusted {
        self.ignored.extend(other.ignored);
        self.ignored.sort();
        self.ignored.dedup();
        self
    }

    /// The one warning saying which claims of the lock are ignored and why; `None` when the
    /// lock holds none.
    pub fn warning(&self) -> Option<Error> {
        let mut groups: Vec<((Reason, bool), Vec<&str>)> = Vec::new();
        for ignored in &self.ignored {
            let key = (ignored.reason, ignored.file);
            match groups.iter_mut().find(|(k, _)| *k == key) {
                Some((_, names)) => names.push(&ignored.what),
                None => groups.push((key, vec![&ignored.what])),
            }
        }
        groups.sort_by_key(|(k, _)| *k);
        let group = |(reason, files): (Reason, bool), names: &[&str]| {
            let n = names.len();
            let mut listed: Vec<String> = names.iter().take(NAMED).map(|s| s.to_string()).collect();
            if n > NAMED {
                listed.push(format!("and {} more", n - NAMED));
            }
            (
                format!(
                    "{n} {}{} ({})",
                    reason.noun(files),
                    if n == 1 { "" } else { "s" },
                    listed.join(", ")
                ),
                reason.why(files),
            )
        };
        let total = self.ignored.len();
        let help = "a lock dotpack writes never holds such claims; the next command that writes dotpack.lock leaves them out";
        match &groups[..] {
            [] => None,
            [(key, names)] => {
                let (what, why) = group(*key, names);
                let verb = if total == 1 { "it is" } else { "they are" };
                Some(
                    Error::new(format!(
                        "dotpack.lock holds {what}; {why}, so {verb} ignored"
                    ))
                    .help(help),
                )
            }
            _ => {
                let mut out = format!("dotpack.lock holds {total} claims dotpack ignores:");
                for (key, names) in &groups {
                    let (what, why) = group(*key, names);
                    out.push_str(&format!("\n  {what}: {why}"));
                }
                Some(Error::new(out).help(help))
            }
        }
    }
}

/// Keeps in `lock` only the claims a lock may hold, with the fields that mean nothing at project
/// scope cleared and the counts capped; returns the ones set aside.
pub fn admit(lock: &mut Lockfile) -> Untrusted {
    let mut ignored = Vec::new();
    // Every claim of a file carries the same `created`: each text is looked at once.
    let mut no_document = NoDocument::default();
    lock.claims
        .retain_mut(|claim| match admit_entry(claim, &mut no_document) {
            Ok(()) => true,
            Err(reason) => {
                ignored.push(Ignored {
                    reason,
                    file: false,
                    what: printable(&format!("{} {}", claim.file, claim.key)),
                });
                false
            }
        });
    lock.files.retain_mut(|claim| match admit_file(claim) {
        Ok(()) => true,
        Err(reason) => {
            let what = match &claim.block {
                Some(block) => format!("{} (block {block})", claim.file),
                None => claim.file.clone(),
            };
            ignored.push(Ignored {
                reason,
                file: true,
                what: printable(&what),
            });
            false
        }
    });
    Untrusted { ignored }
}

/// The scope every claim of a lock has.
fn project_scope(scope: &str) -> Result<(), Reason> {
    match scope {
        "project" => Ok(()),
        "user" => Err(Reason::UserScope),
        _ => Err(Reason::OtherScope),
    }
}

/// An entry claim: exactly the host's project file and container, no environment values, and
/// only what dotpack itself could have created there.
fn admit_entry(claim: &mut Claim, no_document: &mut NoDocument) -> Result<(), Reason> {
    project_scope(&claim.scope)?;
    let host = hosts::adapter(&claim.host).ok_or(Reason::NotHostFile)?;
    if !host.is_project_file(&claim.file) {
        return Err(Reason::NotHostFile);
    }
    if !is_key_of(&claim.key, host.container.path, &claim.server) {
        return Err(Reason::Key);
    }
    if !claim.resolved_env.is_empty() {
        return Err(Reason::ResolvedEnv);
    }
    if let Some(content) = &claim.created.file_content
        && !no_document.holds_none(host, content)
    {
        return Err(Reason::FileContent);
    }
    // Owners are recorded for user-scope entries only; a project's lock owns its entries.
    claim.owners.clear();
    claim.project = None;
    claim.created.container_levels = claim
        .created
        .container_levels
        .min(host.container.path.len());
    claim.created_dirs = claim.created_dirs.min(folders_above(&claim.file));
    Ok(())
}

/// Whether `key` is `path` and `server` joined with dots (`mcp_servers.figma`).
fn is_key_of(key: &str, path: &[&str], server: &str) -> bool {
    let mut rest = key;
    for segment in path {
        match rest.strip_prefix(segment).and_then(|r| r.strip_prefix('.')) {
            Some(r) => rest = r,
            None => return false,
        }
    }
    rest == server
}

/// Which texts hold no document, by host: the answers so far.
#[derive(Default)]
struct NoDocument(BTreeMap<&'static str, BTreeMap<String, bool>>);

impl NoDocument {
    /// Whether `text` is one dotpack would record as `created.file_content` in a file of `host`:
    /// one holding no document (empty, whitespace or comments only), as adding a first entry to
    /// it tells.
    fn holds_none(&mut self, host: &HostAdapter, text: &str) -> bool {
        if text.trim().is_empty() {
            return true;
        }
        let known = self.0.entry(host.id).or_default();
        if let Some(&answer) = known.get(text) {
            return answer;
        }
        let probe = serde_json::json!({ "command": "probe" });
        let answer =
            crate::formats::upsert_entry(host.format, text, host.container, "probe", &probe)
                .is_ok_and(|edit| edit.created.file_content.as_deref() == Some(text));
        known.insert(text.to_string(), answer);
        answer
    }
}

/// A file claim: a path the resource layout gives its kind and name at project scope for every
/// host it names, a block only in an instructions file, and a separator dotpack writes.
fn admit_file(claim: &mut FileClaim) -> Result<(), Reason> {
    project_scope(&claim.scope)?;
    if !crate::model::validate::is_valid_name(&claim.name) || claim.hosts.is_empty() {
        return Err(Reason::ResourcePath);
    }
    for host in &claim.hosts {
        let row = layout_of(host, claim.kind).ok_or(Reason::ResourcePath)?;
        let place = row
            .project
            .ok_or(Reason::ResourcePath)?
            .replace("{name}", &claim.name);
        let at_place = match row.shape {
            Shape::SkillFolder => claim
                .file
                .strip_prefix(&place)
                .and_then(|rest| rest.strip_prefix('/'))
                .is_some_and(|rest| !rest.ends_with('/') && check_path(rest).is_ok()),
            _ => claim.file == place,
        };
        let block = match row.shape {
            Shape::MemoryBlock => claim.block.as_deref() == Some(claim.name.as_str()),
            _ => claim.block.is_none(),
        };
        if !at_place || !block {
            return Err(Reason::ResourcePath);
        }
    }
    if let Some(lead) = &claim.lead
        && (claim.block.is_none()
            || !matches!(lead.as_str(), "" | "\n" | "\r\n" | "\n\n" | "\r\n\r\n"))
    {
        return Err(Reason::Lead);
    }
    claim.owners.clear();
    claim.created_dirs = claim.created_dirs.min(folders_above(&claim.file));
    Ok(())
}

/// How many folders lie between a project file (relative, `/`-separated) and the project root:
/// all that removing it may take along.
fn folders_above(file: &str) -> u32 {
    u32::try_from(file.split('/').count().saturating_sub(1)).unwrap_or(u32::MAX)
}

/// `text` with control characters escaped, for a warning about text a repository wrote.
fn printable(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_control() {
                c.escape_default().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::Created;
    use crate::model::resources::Kind;
    use semver::Version;

    fn entry(file: &str, host: &str, key: &str) -> Claim {
        Claim {
            file: file.into(),
            host: host.into(),
            scope: "project".into(),
            key: key.into(),
            server: key.rsplit('.').next().unwrap_or_default().into(),
            package: "p".into(),
            version: Version::new(1, 0, 0),
            entry: "sha256:0".into(),
            inputs: String::new(),
            dropped: vec!["enabled_tools".into()],
            created: Created::default(),
            created_file: true,
            created_dirs: 0,
            owners: Vec::new(),
            resolved_env: Vec::new(),
            adopted: false,
            project: None,
        }
    }

    fn file(file: &str, kind: Kind, name: &str, hosts: &[&str]) -> FileClaim {
        FileClaim {
            file: file.into(),
            block: (kind == Kind::Memory).then(|| name.to_string()),
            hosts: hosts.iter().map(|h| h.to_string()).collect(),
            scope: "project".into(),
            kind,
            name: name.into(),
            package: "p".into(),
            version: Version::new(1, 0, 0),
            sha256: "sha256:0".into(),
            created_dirs: 0,
            lead: None,
            created_file: false,
            dropped: Vec::new(),
            owners: Vec::new(),
        }
    }

    fn verdict(claim: Claim) -> Result<Claim, Reason> {
        let mut claim = claim;
        admit_entry(&mut claim, &mut NoDocument::default()).map(|()| claim)
    }

    fn file_verdict(claim: FileClaim) -> Result<FileClaim, Reason> {
        let mut claim = claim;
        admit_file(&mut claim).map(|()| claim)
    }

    #[test]
    fn entry_claims_must_name_the_hosts_project_file_and_container() {
        let good = entry(".codex/config.toml", "codex", "mcp_servers.x");
        assert_eq!(verdict(good.clone()), Ok(good.clone()));
        for (file, host, key, reason) in [
            (".mcp.json", "codex", "mcp_servers.x", Reason::NotHostFile),
            (
                ".codex/config.toml",
                "nohost",
                "mcp_servers.x",
                Reason::NotHostFile,
            ),
            (".codex/config.toml", "codex", "mcpServers.x", Reason::Key),
            (
                "/home/u/.codex/config.toml",
                "codex",
                "mcp_servers.x",
                Reason::NotHostFile,
            ),
        ] {
            assert_eq!(
                verdict(entry(file, host, key)),
                Err(reason),
                "{file} {host} {key}"
            );
        }
        let mut elsewhere = good.clone();
        elsewhere.server = "y".into();
        assert_eq!(verdict(elsewhere), Err(Reason::Key));
        let mut user = good.clone();
        user.scope = "user".into();
        assert_eq!(verdict(user), Err(Reason::UserScope));
        let mut other = good.clone();
        other.scope = "User".into();
        assert_eq!(verdict(other), Err(Reason::OtherScope));
    }

    #[test]
    fn fields_meaningless_at_project_scope_are_cleared_and_counts_capped() {
        let mut claim = entry(".codex/config.toml", "codex", "mcp_servers.x");
        claim.owners = vec!["/elsewhere".into()];
        claim.project = Some("/elsewhere".into());
        claim.created_dirs = u32::MAX;
        claim.created.container_levels = 99;
        let admitted = verdict(claim).unwrap();
        assert!(admitted.owners.is_empty() && admitted.project.is_none());
        assert_eq!(admitted.created_dirs, 1);
        assert_eq!(admitted.created.container_levels, 1);
        let mut root = entry(".mcp.json", "claude-code", "mcpServers.x");
        root.created_dirs = 7;
        assert_eq!(verdict(root).unwrap().created_dirs, 0);
    }

    #[test]
    fn resolved_env_and_a_file_content_with_a_document_are_refused() {
        let mut claim = entry(".mcp.json", "claude-code", "mcpServers.x");
        claim.resolved_env = vec!["GITHUB_TOKEN".into()];
        assert_eq!(verdict(claim), Err(Reason::ResolvedEnv));
        for (content, ok) in [
            ("", true),
            ("\n  \n", true),
            ("{\"mcpServers\": {\"evil\": {\"command\": \"sh\"}}}", false),
            ("{}", false),
            ("not json", false),
        ] {
            let mut claim = entry(".mcp.json", "claude-code", "mcpServers.x");
            claim.created.file_content = Some(content.into());
            assert_eq!(verdict(claim).is_ok(), ok, "{content:?}");
        }
        let mut toml = entry(".codex/config.toml", "codex", "mcp_servers.x");
        toml.created.file_content = Some("# only a comment\n".into());
        assert!(verdict(toml.clone()).is_ok());
        toml.created.file_content = Some("[mcp_servers.evil]\ncommand = \"sh\"\n".into());
        assert_eq!(verdict(toml), Err(Reason::FileContent));
    }

    #[test]
    fn file_claims_must_be_at_a_layout_path_of_their_kind_and_hosts() {
        for good in [
            file(
                ".claude/commands/review.md",
                Kind::Command,
                "review",
                &["claude-code"],
            ),
            file(
                ".claude/skills/pr/SKILL.md",
                Kind::Skill,
                "pr",
                &["claude-code"],
            ),
            file(
                ".claude/skills/pr/refs/a.md",
                Kind::Skill,
                "pr",
                &["claude-code"],
            ),
            file("AGENTS.md", Kind::Memory, "style", &["codex", "cursor"]),
            file(
                ".gemini/commands/review.toml",
                Kind::Command,
                "review",
                &["gemini-cli"],
            ),
        ] {
            assert!(file_verdict(good.clone()).is_ok(), "{}", good.file);
        }
        for bad in [
            file(".git/config", Kind::Command, "review", &["claude-code"]),
            file("dotpack.toml", Kind::Command, "review", &["claude-code"]),
            file("dotpack.lock", Kind::Memory, "style", &["claude-code"]),
            file(
                ".claude/commands/other.md",
                Kind::Command,
                "review",
                &["claude-code"],
            ),
            file(
                ".claude/skills/pr/../../../.git/config",
                Kind::Skill,
                "pr",
                &["claude-code"],
            ),
            file(".claude/skills/pr/", Kind::Skill, "pr", &["claude-code"]),
            file(".claude/skills/pr", Kind::Skill, "pr", &["claude-code"]),
            file(
                ".claude/commands/../x.md",
                Kind::Command,
                "../x",
                &["claude-code"],
            ),
            file(
                "AGENTS.md",
                Kind::Memory,
                "style",
                &["codex", "claude-code"],
            ),
            file(".claude/commands/review.md", Kind::Command, "review", &[]),
            file(
                ".codex/prompts/review.md",
                Kind::Command,
                "review",
                &["codex"],
            ),
        ] {
            assert_eq!(
                file_verdict(bad.clone()).err(),
                Some(Reason::ResourcePath),
                "{}",
                bad.file
            );
        }
        let mut block = file("CLAUDE.md", Kind::Memory, "style", &["claude-code"]);
        block.block = Some("other".into());
        assert_eq!(
            file_verdict(block.clone()).err(),
            Some(Reason::ResourcePath)
        );
        block.block = Some("style".into());
        block.lead = Some("# the user's own notes\n".into());
        assert_eq!(file_verdict(block.clone()).err(), Some(Reason::Lead));
        block.lead = Some("\n\n".into());
        block.created_dirs = 9;
        block.owners = vec!["/x".into()];
        let admitted = file_verdict(block).unwrap();
        assert_eq!(admitted.created_dirs, 0);
        assert!(admitted.owners.is_empty());
        let mut user = file(
            ".claude/commands/review.md",
            Kind::Command,
            "review",
            &["claude-code"],
        );
        user.scope = "user".into();
        assert_eq!(file_verdict(user).err(), Some(Reason::UserScope));
    }

    #[test]
    fn the_warning_counts_names_and_explains_once() {
        let mut lock = Lockfile::empty();
        let mut user = entry("/h/.codex/config.toml", "codex", "mcp_servers.mine");
        user.scope = "user".into();
        lock.claims = vec![user, entry(".mcp.json", "claude-code", "mcpServers.ok")];
        let untrusted = admit(&mut lock);
        assert_eq!(lock.claims.len(), 1);
        let warning = untrusted.warning().unwrap();
        assert_eq!(
            warning.message(),
            "dotpack.lock holds 1 user-scope claim (/h/.codex/config.toml mcp_servers.mine); ownership of user-scope entries is recorded only in $DOTPACK_HOME, so it is ignored"
        );
        assert_eq!(
            warning.fix(),
            Some(
                "a lock dotpack writes never holds such claims; the next command that writes dotpack.lock leaves them out"
            )
        );
        lock.files = (0..5)
            .map(|i| {
                file(
                    &format!(".git/x{i}\u{1b}]0;"),
                    Kind::Command,
                    "c",
                    &["claude-code"],
                )
            })
            .collect();
        let warning = admit(&mut lock).warning().unwrap().to_string();
        assert!(lock.files.is_empty());
        assert!(
            warning.starts_with("dotpack.lock holds 5 file claims (.git/x0\\u{1b}]0;, .git/x1\\u{1b}]0;, .git/x2\\u{1b}]0;, and 2 more); "),
            "{warning}"
        );
        assert!(!warning.contains('\u{1b}'));
        assert!(Untrusted::default().warning().is_none());
    }
}
