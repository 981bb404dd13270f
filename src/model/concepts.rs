//! The concept table: every field a canonical server may carry, which hosts can express it and
//! under what name, whether dropping it loses meaning, and whether it matters for security.
//! One table, read by validation, translation and lossy checks alike.
//!
//! Its rows ([`CONCEPTS`]) say what a field is; its cells, how one host spells it, live in that
//! host's adapter ([`crate::model::hosts::HostAdapter::fields`]), so a host is one file.
//!
//! Facts come from `reference/hosts.md` (sections 1–21) first and `reference/mcp-server-concepts.md`
//! second. Support is decided per canonical field: every field is its own [`Concept`] row, so
//! `enabled_tools` and `disabled_tools` can differ (Windsurf and Kiro have a deny list but no
//! allow list). A host that spells a concept differently (`includeTools`, `headers`, `serverUrl`)
//! has a [`Cell`] for the same row, so a translator renames instead of dropping.

mod table;

pub use table::CONCEPTS;

use std::sync::LazyLock;

use crate::model::hosts::{ADAPTERS, HostAdapter};

/// The shape of value a canonical field holds, checked by validation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueKind {
    String,
    Bool,
    Integer,
    /// An integer or a float.
    Number,
    StringList,
    /// A table whose values are all strings.
    StringMap,
    /// Any table (shape is host-specific, checked by the adapter that emits it).
    Table,
    /// An array of strings or tables (Codex `env_vars`).
    List,
    /// A boolean or a string (Hermes `ssl_verify = false` or a CA bundle path).
    BoolOrString,
    /// A string or a list of strings (Hermes `client_cert`).
    StringOrList,
    /// A boolean or a list of strings (pi `directTools`: `true`, or the tools by name).
    BoolOrList,
}

impl ValueKind {
    /// How a help text names the kind: "a list of strings".
    pub fn describe(self) -> &'static str {
        match self {
            ValueKind::String => "a string",
            ValueKind::Bool => "a boolean",
            ValueKind::Integer => "an integer",
            ValueKind::Number => "a number",
            ValueKind::StringList => "a list of strings",
            ValueKind::StringMap => "a table of strings",
            ValueKind::Table => "a table",
            ValueKind::List => "a list",
            ValueKind::BoolOrString => "a boolean or a string",
            ValueKind::StringOrList => "a string or a list of strings",
            ValueKind::BoolOrList => "a boolean or a list of strings",
        }
    }
}

/// How a host's field relates to the canonical one; what a translator must do beyond renaming.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// Same shape and meaning; only the name may differ.
    Same,
    /// A duration the host reads in milliseconds.
    Millis,
    /// A duration the host reads in seconds.
    Seconds,
    /// A boolean with the opposite sense (`disabled` for canonical `enabled`).
    Inverted,
    /// `field` is a dotted path inside a host table (`tools.include`).
    Nested,
    /// OpenCode: `command` is one array holding the program and its arguments.
    CommandArray,
    /// Same concept, but the host has its own value vocabulary or object shape (transport names,
    /// Hermes `trust = "full"|"untrusted"`, per-host OAuth objects); the adapter maps values.
    Values,
    /// A spelling the host still reads but that should not be written (`httpUrl`); import only.
    Legacy,
}

/// One host's name for a concept: a cell of the table, kept in the host's adapter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cell {
    /// The [`Concept::id`] of the row.
    pub concept: &'static str,
    /// The field as the host spells it (dotted when [`Form::Nested`]).
    pub field: &'static str,
    pub form: Form,
}

impl Cell {
    /// The host spells `concept` as `field`, with the canonical shape and meaning.
    pub const fn same(concept: &'static str, field: &'static str) -> Cell {
        Cell::new(concept, field, Form::Same)
    }

    /// The host spells `concept` as `field`, in `form`.
    pub const fn new(concept: &'static str, field: &'static str, form: Form) -> Cell {
        Cell {
            concept,
            field,
            form,
        }
    }
}

/// The stdio core (`command`, `args`, `env`) under its canonical names: every host's but
/// OpenCode's (one `command` array, `environment`) and goose's (`cmd`, `envs`).
pub const STDIO_CORE: &[Cell] = &[
    Cell::same("command", "command"),
    Cell::same("args", "args"),
    Cell::same("env", "env"),
];

/// Fields that only mean something for a process (stdio): on a remote server they are a mistake
/// some hosts refuse to load.
pub const STDIO_ONLY: &[&str] = &["args", "env", "cwd", "env_file"];

/// Fields that only mean something for a connection (HTTP).
pub const HTTP_ONLY: &[&str] = &[
    "http_headers",
    "env_http_headers",
    "bearer_token_env_var",
    "headers_helper",
];

/// Host spellings a server may be written with in `dotpack.toml`, read as their canonical field
/// with a warning (`normalised-spelling`) rather than refused: `headers` is what most hosts
/// and many published configs call `http_headers` (`../seeds/mcp-server-schema.txt`: "If
/// source has headers, treat as http_headers and warn that the spelling was normalised"). When
/// both spellings are set, the host spelling is an error.
pub const NORMALISED_SPELLINGS: &[(&str, &str)] = &[("headers", "http_headers")];

/// The canonical field `field` is read as, when it is one of [`NORMALISED_SPELLINGS`].
pub fn normalised_spelling(field: &str) -> Option<&'static str> {
    NORMALISED_SPELLINGS
        .iter()
        .find(|(spelling, _)| *spelling == field)
        .map(|(_, canonical)| *canonical)
}

/// One row of the table: one canonical field of a server.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Concept {
    /// Stable id, used in messages and `--allow-lossy` discussions.
    pub id: &'static str,
    /// The name written in `dotpack.toml`.
    pub field: &'static str,
    /// Other canonical spellings accepted in `dotpack.toml` for the same concept
    /// (`startup_timeout_ms`); when both appear, [`Concept::field`] wins.
    pub alternates: &'static [&'static str],
    pub kind: ValueKind,
    /// Part of the universal core: every host has it, never subject to lossy checks.
    pub core: bool,
    /// Dropping it when a host cannot express it loses meaning.
    pub lossy: bool,
    /// Dropping it weakens security (auth, headers, TLS, tool lists, approval, trust, enabled,
    /// env sources): needs a named `--allow-lossy=FIELD`.
    pub security: bool,
    pub description: &'static str,
}

impl Concept {
    /// Every canonical spelling: the field, then its alternates.
    pub fn canonical_fields(&self) -> impl Iterator<Item = &'static str> + use<> {
        std::iter::once(self.field).chain(self.alternates.iter().copied())
    }
}

/// The concept whose [`Concept::id`] is `id`.
pub fn by_id(id: &str) -> Option<&'static Concept> {
    CONCEPTS.iter().find(|c| c.id == id)
}

/// The hosts that can express `concept` ([`HostAdapter::expresses`]), in the order of
/// [`ADAPTERS`]: computed once, since every dropped field names them.
pub fn hosts_expressing(concept: &Concept) -> &'static [&'static str] {
    static HOSTS: LazyLock<Vec<Vec<&'static str>>> = LazyLock::new(|| {
        CONCEPTS
            .iter()
            .map(|c| {
                ADAPTERS
                    .iter()
                    .filter(|a| a.expresses(c))
                    .map(|a| a.id)
                    .collect()
            })
            .collect()
    });
    match CONCEPTS.iter().position(|c| c.id == concept.id) {
        Some(at) => &HOSTS[at],
        None => &[],
    }
}

/// The concept whose canonical spelling (field or alternate) is `canonical_field`.
pub fn concept_of(canonical_field: &str) -> Option<&'static Concept> {
    CONCEPTS
        .iter()
        .find(|c| c.canonical_fields().any(|f| f == canonical_field))
}

/// The canonical field for a name found in a host file, for import: canonical names map to
/// themselves, host spellings (`httpUrl`, `headers`, `includeTools`, `disabled`, …) to the
/// canonical field of their concept. Check the concept's [`Form`] for the host before copying the
/// value (`disabled` is inverted, `timeout` units differ). `None` for a name no host uses.
pub fn canonical_name(field: &str) -> Option<&'static str> {
    if let Some(concept) = concept_of(field) {
        return concept.canonical_fields().find(|f| *f == field);
    }
    CONCEPTS
        .iter()
        .find(|c| {
            ADAPTERS
                .iter()
                .flat_map(HostAdapter::cells)
                .any(|cell| cell.concept == c.id && cell.field == field)
        })
        .map(|c| c.field)
}

/// The canonical field a host-specific spelling stands for, when `field` is not itself canonical:
/// `Some("url")` for `httpUrl`. Used by validation to say what to write instead.
pub fn host_alias_of(field: &str) -> Option<&'static str> {
    if concept_of(field).is_some() {
        return None;
    }
    canonical_name(field)
}

/// Every canonical spelling, for "did you mean" suggestions.
pub fn canonical_fields() -> impl Iterator<Item = &'static str> {
    CONCEPTS.iter().flat_map(Concept::canonical_fields)
}

/// Whether `name` may be given to `--allow-lossy` or `allow_lossy = [...]`: a canonical field or a
/// concept id (a core field such as `env` can be dropped too, where a transport has no use for it).
pub fn is_lossy_name(name: &str) -> bool {
    lossy_names().contains(&name)
}

/// What a host that runs stdio servers only loses when it reaches a remote server through a
/// wrapper (`mcp-remote`): named `transport` in `--allow-lossy`, as the drop is recorded.
pub const WRAPPED_TRANSPORT: &str = "transport";

/// The names `--allow-lossy` accepts, sorted: every canonical field and concept id,
/// [`WRAPPED_TRANSPORT`], and for resources each kind (`agents`: leave agents out where a host
/// keeps none) and each frontmatter field a host may not express.
pub fn lossy_names() -> Vec<&'static str> {
    let mut names: Vec<&'static str> = CONCEPTS
        .iter()
        .flat_map(|c| c.canonical_fields().chain(std::iter::once(c.id)))
        .chain(std::iter::once(WRAPPED_TRANSPORT))
        .chain(crate::model::resources::lossy_names())
        .collect();
    names.sort_unstable();
    names.dedup();
    names
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, BTreeSet};

    use super::*;

    #[test]
    fn concept_ids_are_unique() {
        let mut seen = BTreeSet::new();
        for c in CONCEPTS {
            assert!(seen.insert(c.id), "duplicate concept id {}", c.id);
        }
    }

    #[test]
    fn every_canonical_field_maps_to_exactly_one_concept() {
        let mut owners: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
        for c in CONCEPTS {
            for f in c.canonical_fields() {
                owners.entry(f).or_default().push(c.id);
            }
        }
        for (field, ids) in owners {
            assert_eq!(ids.len(), 1, "{field} belongs to {ids:?}");
            assert_eq!(concept_of(field).map(|c| c.id), Some(ids[0]));
        }
    }

    /// How `host` spells the concept of `canonical_field`, or `None` if it cannot express it.
    fn host_field(canonical_field: &str, host: &str) -> Option<&'static str> {
        let adapter = crate::model::hosts::adapter(host)?;
        adapter
            .spelling(concept_of(canonical_field)?)
            .map(|c| c.field)
    }

    #[test]
    fn every_cell_names_a_known_concept() {
        for host in ADAPTERS {
            for cell in host.cells() {
                assert!(
                    by_id(cell.concept).is_some(),
                    "{}: unknown concept {} (field {})",
                    host.id,
                    cell.concept,
                    cell.field
                );
            }
        }
    }

    #[test]
    fn host_ids_are_unique() {
        let mut seen = BTreeSet::new();
        for h in crate::model::hosts::ADAPTERS {
            assert!(seen.insert(h.id), "duplicate host {}", h.id);
        }
    }

    #[test]
    fn security_concepts_are_lossy_and_core_is_not() {
        for c in CONCEPTS {
            if c.security {
                assert!(c.lossy, "{} is security-relevant but not lossy", c.id);
            }
            if c.core {
                assert!(!c.lossy, "{} is core but lossy", c.id);
            }
        }
    }

    #[test]
    fn a_host_spelling_never_means_two_concepts() {
        let mut owners: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
        for cell in ADAPTERS.iter().flat_map(HostAdapter::cells) {
            if concept_of(cell.field).is_none() {
                owners.entry(cell.field).or_default().insert(cell.concept);
            }
        }
        for (field, ids) in owners {
            assert_eq!(ids.len(), 1, "host spelling {field} is claimed by {ids:?}");
        }
    }

    #[test]
    fn every_host_has_the_stdio_core() {
        for host in crate::model::hosts::ADAPTERS {
            for field in ["command", "args", "env"] {
                let concept = concept_of(field).unwrap();
                assert!(
                    host.reads(concept),
                    "{} has no spelling for {field}",
                    host.id
                );
            }
        }
    }

    #[test]
    fn import_aliases_normalise_to_canonical_names() {
        for (alias, canonical) in [
            ("httpUrl", "url"),
            ("serverUrl", "url"),
            ("uri", "url"),
            ("headers", "http_headers"),
            ("includeTools", "enabled_tools"),
            ("excludeTools", "disabled_tools"),
            ("disabledTools", "disabled_tools"),
            ("disabled", "enabled"),
            ("environment", "env"),
            ("envFile", "env_file"),
            ("bearerTokenEnv", "bearer_token_env_var"),
            ("startup_timeout_ms", "startup_timeout_ms"),
            ("url", "url"),
        ] {
            assert_eq!(canonical_name(alias), Some(canonical), "{alias}");
        }
        assert_eq!(canonical_name("no_such_field"), None);
        assert_eq!(host_alias_of("url"), None);
        assert_eq!(host_alias_of("httpUrl"), Some("url"));
    }

    #[test]
    fn per_field_support_follows_hosts_md() {
        assert_eq!(host_field("http_headers", "claude-code"), Some("headers"));
        assert_eq!(host_field("http_headers", "codex"), Some("http_headers"));
        assert_eq!(host_field("http_headers", "claude-desktop"), None);
        assert_eq!(
            host_field("enabled_tools", "gemini-cli"),
            Some("includeTools")
        );
        assert_eq!(
            host_field("disabled_tools", "windsurf"),
            Some("disabledTools")
        );
        assert_eq!(host_field("enabled_tools", "windsurf"), None);
        assert_eq!(host_field("url", "antigravity"), Some("serverUrl"));
        assert_eq!(host_field("url", "gemini-cli"), Some("url"));
        assert_eq!(host_field("env_file", "vscode"), Some("envFile"));
        assert_eq!(host_field("cwd", "claude-code"), None);
        let enabled = concept_of("enabled").unwrap();
        let kiro = crate::model::hosts::adapter("kiro").unwrap();
        assert_eq!(kiro.spelling(enabled).map(|h| h.form), Some(Form::Inverted));
    }
}
