//! Host adapters as data: where each host keeps its MCP servers, in which file format, under
//! which key, how it spells environment references and when it wants a transport `type`, how it
//! spells each field of the concept table ([`HostAdapter::fields`]), and where it keeps skills,
//! commands, agents, rules and memory ([`HostAdapter::resources`]).
//!
//! What a field means (its kind, whether dropping it is lossy or weakens security) is the concept
//! table's ([`crate::model::concepts`]); which host spells it how is the host's own. Adding a host
//! is one file in this folder plus its line in [`ADAPTERS`].
//!
//! Facts come from `reference/hosts.md`; each adapter cites the section it rests on, and says
//! beside a cell where `reference/mcp-server-concepts.md` disagrees.

mod amazon_q;
mod antigravity;
mod claude_code;
mod claude_desktop;
mod cline;
mod cline_cli;
mod codex;
mod continue_dev;
mod copilot_cli;
mod crush;
mod cursor;
mod gemini_cli;
mod goose;
mod hermes;
mod kiro;
mod mcp_json;
mod opencode;
mod paths;
mod pi;
pub mod precedence;
mod vscode;
pub mod windows_cmd;
mod windsurf;
mod zed;

use std::fmt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::model::concepts::{Cell, Concept, Form};
use crate::model::resources::{Kind, KindLayout};
use crate::template::EnvSyntax;

pub use crate::formats::Container;
/// How a host file is parsed and edited: the format backend's own enum.
pub use crate::formats::Format as FileFormat;
pub use paths::{HostEnv, HostEnvError, Platform, UserPath};

/// Which copy of a host's config an install targets.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    clap::ValueEnum,
    Serialize,
    Deserialize,
)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    /// A file inside the project, usually committed and shared with the team.
    Project,
    /// A file in the user's home, private to the user and shared by all projects.
    User,
}

impl fmt::Display for Scope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Scope::Project => "project",
            Scope::User => "user",
        })
    }
}

/// The transport label a host wants in `type`, per transport. `None` means "do not write
/// `type`": the host infers the transport from `command`/`url` or negotiates it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TransportTypes {
    pub stdio: Option<&'static str>,
    /// Streamable HTTP.
    pub http: Option<&'static str>,
    /// Legacy HTTP+SSE.
    pub sse: Option<&'static str>,
    /// Whether the host can reach a legacy SSE server at all; if not, an SSE server cannot be
    /// installed there (Codex speaks streamable HTTP only).
    pub speaks_sse: bool,
}

/// A host's own conversion of whole entries, for what the concept table cannot say field by field
/// (opencode's `command` array, goose's `type` tags, Zed's legacy `command` object, Claude
/// Desktop's `mcp-remote` wrapper). Designed as a pair: import needs the inverse of every
/// conversion install makes.
#[derive(Clone, Copy)]
pub struct EntryHooks {
    /// Runs on a translated entry (host field names already applied by [`crate::plan::to_host`])
    /// before it is written, with the server's name; may reshape it, or refuse with a reason.
    pub to_host: fn(&str, &mut Map<String, Value>) -> Result<(), String>,
    /// Runs on an entry read from the host's file before the concept table maps its field names
    /// back; undoes what `to_host` did and normalises the host's other spellings.
    pub from_host: fn(&mut Map<String, Value>),
    /// Converts the value of canonical field `field` into the host's own vocabulary, for the
    /// concept-table cells marked [`crate::model::concepts::Form::Values`]; `None`: the host cannot say it.
    pub value_to_host: fn(field: &str, &Value) -> Option<Value>,
    /// The inverse of `value_to_host`: the host's value back to the canonical one.
    pub value_from_host: fn(field: &str, &Value) -> Option<Value>,
    /// Values the host runs as commands, and the other hosts' files it reads them from.
    pub command_values: Option<CommandValues>,
}

impl EntryHooks {
    /// Hooks that change nothing: the host needs only the concept table.
    pub const NONE: EntryHooks = EntryHooks {
        to_host: |_, _| Ok(()),
        from_host: |_| {},
        value_to_host: |_, _| None,
        value_from_host: |_, _| None,
        command_values: None,
    };
}

/// Values a host runs as a shell command instead of reading them: pi runs a value of `env`,
/// `headers`, `bearerToken` or `oauth.clientSecret` that starts with `!`, and reads one that
/// starts with `!!` as the literal value with one `!` less.
///
/// A value dotpack writes is never one of those commands. In the host's own files every value
/// that starts with the prefix gets one more ([`crate::plan::to_host`]), and import takes it off
/// again ([`crate::plan::from_host`]), reporting a real command; in another host's file that this host
/// also reads (`also_reads`), where the other hosts would read the doubled prefix literally,
/// such a value is refused.
#[derive(Clone, Copy, Debug)]
pub struct CommandValues {
    /// What a value starts with to be run; twice, it is a literal.
    pub prefix: char,
    /// The host fields whose values can be run, as key paths (`oauth.clientSecret`); a path that
    /// leads to a table (`env`, `headers`) means each of its values.
    pub fields: &'static [&'static str],
    /// The files of other hosts it reads too, and runs such values from.
    pub also_reads: &'static [SharedFile],
}

impl CommandValues {
    /// Calls `f` with the key path (`env.TOKEN`) and the text of every string value of `entry`
    /// (a host entry, in the host's own field names) that this rule can run.
    pub fn visit(&self, entry: &mut Map<String, Value>, f: &mut dyn FnMut(String, &mut String)) {
        for path in self.fields {
            let mut parts = path.split('.');
            let Some(first) = parts.next() else { continue };
            let mut value = entry.get_mut(first);
            for part in parts {
                value = value.and_then(|v| v.get_mut(part));
            }
            match value {
                Some(Value::String(text)) => f((*path).to_string(), text),
                Some(Value::Object(map)) => {
                    for (key, value) in map.iter_mut() {
                        if let Value::String(text) = value {
                            f(format!("{path}.{key}"), text);
                        }
                    }
                }
                _ => {}
            }
        }
    }

    /// Whether `text` is run as a command.
    pub fn runs(&self, text: &str) -> bool {
        text.starts_with(self.prefix) && !self.is_escaped(text)
    }

    /// Whether `text` starts with the doubled prefix (a literal value).
    pub fn is_escaped(&self, text: &str) -> bool {
        let mut chars = text.chars();
        chars.next() == Some(self.prefix) && chars.next() == Some(self.prefix)
    }
}

/// A config file named by where it is, to tell whether two hosts read the same one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SharedFile {
    /// Relative to the project root.
    Project(&'static str),
    User(UserPath),
}

impl SharedFile {
    /// Where the file is for the project at `root` (the user's files: in `env`).
    pub fn path(&self, root: &Path, env: &HostEnv) -> PathBuf {
        match self {
            SharedFile::Project(rel) => env.join(root, rel),
            SharedFile::User(at) => at.resolve(env),
        }
    }

    pub fn scope(&self) -> Scope {
        match self {
            SharedFile::Project(_) => Scope::Project,
            SharedFile::User(_) => Scope::User,
        }
    }
}

impl fmt::Debug for EntryHooks {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("EntryHooks")
    }
}

impl TransportTypes {
    /// No `type` is ever written: the host tells the transport from `command` or `url`.
    /// `speaks_sse`: whether it can reach a legacy SSE server at all.
    pub const fn untyped(speaks_sse: bool) -> TransportTypes {
        TransportTypes {
            stdio: None,
            http: None,
            sse: None,
            speaks_sse,
        }
    }
}

/// Everything dotpack needs to know about one host.
#[derive(Clone, Copy, Debug)]
pub struct HostAdapter {
    /// The id written in `[project] hosts` and used everywhere else.
    pub id: &'static str,
    /// How messages and docs name the host ("Claude Code").
    pub display_name: &'static str,
    /// One of the priority hosts of hosts.md 21a (the others are 21b).
    pub priority: bool,
    pub format: FileFormat,
    /// Where the servers are: the key path of the object (table) that maps server names to
    /// entries, or of a list whose items carry their name (Continue).
    pub container: Container<'static>,
    /// Relative to the project root; `None` when the host has no project scope.
    pub project_file: Option<&'static str>,
    /// `None` when the host has no user scope.
    pub user_file: Option<UserPath>,
    /// Paths relative to the project root whose presence means the project uses this host.
    pub project_markers: &'static [&'static str],
    /// Locations whose presence means the user has this host installed.
    pub user_markers: &'static [UserPath],
    /// How `{{env.X}}` is written in this host's values.
    pub env_syntax: EnvSyntax,
    pub transport_types: TransportTypes,
    /// Reference syntaxes the host expands besides `env_syntax` (Hermes also reads
    /// `${env:VAR}`); dotpack never writes them, `doctor` does not flag them.
    pub also_expands: &'static [EnvSyntax],
    /// For a host that runs stdio servers only: the command and first arguments of a wrapper
    /// that bridges to a remote server whose URL follows (`npx -y mcp-remote URL`). Used only
    /// with the user's consent (`--allow-lossy=transport`), and recorded as a drop.
    pub remote_wrapper: Option<&'static [&'static str]>,
    /// Its cells of the concept table: under which name, and in which [`Form`], it spells each
    /// concept it has. A concept with no cell here is one the host cannot express; of a
    /// concept's cells the first that is not [`Form::Legacy`] is the spelling written, the others
    /// are read on import only. Slices, so a shared run
    /// ([`crate::model::concepts::STDIO_CORE`]) splices in.
    pub fields: &'static [&'static [Cell]],
    /// Where it keeps skills, commands, agents, rules and memory, and in which shape: a row per
    /// kind it keeps (none: every resource is lossy there).
    pub resources: &'static [KindLayout],
    /// Another name the host reads its file by, in the same folder, at both scopes (opencode
    /// reads `opencode.jsonc` as well as `opencode.json`). When only the file by that name
    /// exists it is the host's file, read and edited in place: the host merges the two, so
    /// writing a second file beside it would split the user's config in two.
    pub also_named: Option<&'static str>,
    /// Fields the host documents that have no concept in the concept table, with what they do
    /// (opencode's `timeout` bounds the tool-list fetch, not a call). Import leaves them out
    /// with a note rather than calling them unknown, and never carries them under a canonical
    /// name that means something else (`timeout`) into another host.
    pub own_fields: &'static [(&'static str, &'static str)],
    /// Whole-entry conversions beyond the concept table, both directions.
    pub hooks: EntryHooks,
    /// What a file dotpack creates from nothing starts with, for a host that refuses a file
    /// without it (Continue's `name` and `version`); `""` for most. A created file holding only
    /// this once its last entry goes is deleted, as an empty one is.
    pub new_file: &'static str,
    /// The command-line program a user runs to use the host, which `doctor` looks for on PATH
    /// (`claude`, `codex`, …); `None` for desktop applications, whose command-line helpers are
    /// optional.
    pub program: Option<&'static str>,
    /// A desktop app: started from a desktop launcher (the macOS Dock above all), it does not
    /// inherit the shell's exported variables, so a reference in its entries finds nothing
    /// there. `doctor` says so for an entry that relies on one.
    pub desktop_app: bool,
}

#[cfg(test)]
impl HostAdapter {
    /// A JSON host `id` with a `mcpServers` container, no files, `${VAR}` references, no
    /// transport labels and no hooks, spelling fields as the known host `id` does (no cells if
    /// there is none): for tests of what the concept table alone does for a host.
    pub(crate) fn bare(id: &'static str) -> HostAdapter {
        HostAdapter {
            id,
            display_name: id,
            priority: false,
            format: FileFormat::Json,
            container: Container::new(&["mcpServers"]),
            project_file: None,
            user_file: None,
            project_markers: &[],
            user_markers: &[],
            env_syntax: EnvSyntax::DollarBrace,
            remote_wrapper: None,
            also_expands: &[],
            transport_types: TransportTypes::untyped(true),
            fields: adapter(id).map_or(&[], |a| a.fields),
            resources: &[],
            also_named: None,
            own_fields: &[],
            hooks: EntryHooks::NONE,
            new_file: "",
            program: None,
            desktop_app: false,
        }
    }
}

/// Adapters are compared by host id: there is one adapter per id.
impl PartialEq for HostAdapter {
    fn eq(&self, other: &Self) -> bool {
        self.id == other.id
    }
}

impl Eq for HostAdapter {}

/// Every host dotpack knows, priority hosts first, in the order of `reference/hosts.md`: the one
/// host registry (everything else about a host is keyed by these ids).
pub static ADAPTERS: &[HostAdapter] = &[
    claude_code::ADAPTER,
    claude_desktop::ADAPTER,
    gemini_cli::ADAPTER,
    codex::ADAPTER,
    cursor::ADAPTER,
    vscode::ADAPTER,
    windsurf::ADAPTER,
    opencode::ADAPTER,
    zed::ADAPTER,
    hermes::ADAPTER,
    antigravity::ADAPTER,
    pi::ADAPTER,
    goose::ADAPTER,
    cline::ADAPTER,
    cline_cli::ADAPTER,
    continue_dev::ADAPTER,
    amazon_q::ADAPTER,
    kiro::ADAPTER,
    copilot_cli::ADAPTER,
    crush::ADAPTER,
    mcp_json::ADAPTER,
];

/// The adapter of host `id`.
pub fn adapter(id: &str) -> Option<&'static HostAdapter> {
    ADAPTERS.iter().find(|a| a.id == id)
}

/// Whether `id` names a host dotpack knows.
pub fn is_known_host(id: &str) -> bool {
    adapter(id).is_some()
}

impl HostAdapter {
    /// How messages name the host ("Claude Code").
    pub fn name(&self) -> &'static str {
        self.display_name
    }

    /// The target file at `scope`, or `None` when the host has no file at that scope: the file
    /// by its [`HostAdapter::also_named`] name when only that one exists.
    pub fn path(&self, scope: Scope, project_root: &Path, env: &HostEnv) -> Option<PathBuf> {
        let path = match scope {
            Scope::Project => env.join(project_root, self.project_file?),
            Scope::User => self.user_file?.resolve(env),
        };
        let exists = |p: &Path| p.symlink_metadata().is_ok();
        match self.also_named.map(|name| path.with_file_name(name)) {
            Some(other) if !exists(&path) && exists(&other) => Some(other),
            _ => Some(path),
        }
    }

    /// The reference syntaxes the host expands: its own first, then [`HostAdapter::also_expands`].
    pub fn reference_syntaxes(&self) -> Vec<EnvSyntax> {
        std::iter::once(self.env_syntax)
            .chain(self.also_expands.iter().copied())
            .collect()
    }

    /// Every cell of the concept table this host has, in the order written.
    pub fn cells(&self) -> impl Iterator<Item = &'static Cell> + use<> {
        self.fields.iter().flat_map(|cells| cells.iter())
    }

    /// The host's spellings of `concept`: the one it writes first, then any it only reads.
    pub fn cells_of(&self, concept: &Concept) -> impl Iterator<Item = &'static Cell> + use<> {
        let id = concept.id;
        self.cells().filter(move |cell| cell.concept == id)
    }

    /// How the host writes `concept`, or `None` when it cannot express it: a legacy spelling,
    /// read on import only, does not count, and core concepts are not free either (Claude
    /// Desktop has no `url`).
    pub fn spelling(&self, concept: &Concept) -> Option<&'static Cell> {
        self.cells_of(concept)
            .find(|cell| cell.form != Form::Legacy)
    }

    /// Whether the host can express `concept` ([`HostAdapter::spelling`]).
    pub fn expresses(&self, concept: &Concept) -> bool {
        self.spelling(concept).is_some()
    }

    /// Whether the host has any spelling of `concept`, legacy ones included.
    pub fn reads(&self, concept: &Concept) -> bool {
        self.cells_of(concept).next().is_some()
    }

    /// Where and how the host keeps `kind`, if it keeps that kind at all.
    pub fn layout(&self, kind: Kind) -> Option<&'static KindLayout> {
        self.resources.iter().find(|row| row.kind == kind)
    }

    /// Whether `rel` (relative to the project root) is the host's project file, by either of
    /// its names ([`HostAdapter::also_named`]).
    pub fn is_project_file(&self, rel: &str) -> bool {
        let Some(file) = self.project_file else {
            return false;
        };
        rel == file
            || self
                .also_named
                .is_some_and(|name| Path::new(file).with_file_name(name) == Path::new(rel))
    }

    /// Whether the host has a config file at `scope`.
    pub fn has_scope(&self, scope: Scope) -> bool {
        match scope {
            Scope::Project => self.project_file.is_some(),
            Scope::User => self.user_file.is_some(),
        }
    }

    /// This host's file at `scope`, as a [`SharedFile`].
    pub fn file_at(&self, scope: Scope) -> Option<SharedFile> {
        match scope {
            Scope::Project => self.project_file.map(SharedFile::Project),
            Scope::User => self.user_file.map(SharedFile::User),
        }
    }

    /// The other hosts' files this host loads servers from too, below its own in precedence
    /// (pi reads the shared `.mcp.json` and `~/.config/mcp/mcp.json`): the files of its
    /// [`CommandValues`] rule, the one host that reads others' files being the one that runs
    /// values from them.
    pub fn also_reads(&self) -> &'static [SharedFile] {
        self.hooks
            .command_values
            .map_or(&[], |rule| rule.also_reads)
    }

    /// Whether this host loads the servers of `other`'s file at `scope` as well as its own.
    pub fn loads_file_of(&self, other: &HostAdapter, scope: Scope) -> bool {
        other.id != self.id
            && other
                .file_at(scope)
                .is_some_and(|file| self.also_reads().contains(&file))
    }

    /// The other hosts that read this host's file at `scope` and run some of its values as
    /// commands (pi reads the shared `.mcp.json`), each with the rule it runs them by.
    pub fn command_readers(&self, scope: Scope) -> Vec<(&'static HostAdapter, CommandValues)> {
        let Some(file) = self.file_at(scope) else {
            return Vec::new();
        };
        ADAPTERS
            .iter()
            .filter(|other| other.id != self.id)
            .filter_map(|other| other.hooks.command_values.map(|rule| (other, rule)))
            .filter(|(_, rule)| rule.also_reads.contains(&file))
            .collect()
    }

    /// Whether this host and `other` write the same file at `scope`.
    pub fn same_file(&self, other: &HostAdapter, scope: Scope) -> bool {
        self.has_scope(scope)
            && match scope {
                Scope::Project => other.project_file == self.project_file,
                Scope::User => other.user_file == self.user_file,
            }
    }

    /// The host listed before this one in [`ADAPTERS`] that keeps its servers in the same file at
    /// `scope` (`mcp-json` and `claude-code` share the project's `.mcp.json`). One file has one
    /// writer: a project declares only one of them at that scope, and the file is evidence of
    /// the first one only.
    pub fn shares_file_with(&self, scope: Scope) -> Option<&'static HostAdapter> {
        ADAPTERS
            .iter()
            .take_while(|other| other.id != self.id)
            .find(|other| self.same_file(other, scope))
    }

    /// Whether this host appears to be in use at `scope`: its target file or one of its markers
    /// exists. `dotpack init` proposes the detected hosts; nothing else depends on it.
    pub fn detected(&self, scope: Scope, project_root: &Path, env: &HostEnv) -> bool {
        if self.shares_file_with(scope).is_none()
            && self
                .path(scope, project_root, env)
                .is_some_and(|p| p.exists())
        {
            return true;
        }
        match scope {
            Scope::Project => self
                .project_markers
                .iter()
                .any(|m| project_root.join(m).exists()),
            Scope::User => self.user_markers.iter().any(|m| m.resolve(env).exists()),
        }
    }
}

/// Every environment variable some adapter's user file or marker honours on some platform
/// (`CODEX_HOME`, `XDG_CONFIG_HOME`, `APPDATA`, …), sorted: what [`HostEnv::from_env`] reads.
pub fn honoured_vars() -> Vec<&'static str> {
    let mut vars = Vec::new();
    for at in ADAPTERS
        .iter()
        .flat_map(|a| a.user_file.iter().chain(a.user_markers))
    {
        at.vars(&mut vars);
    }
    vars.sort_unstable();
    vars.dedup();
    vars
}

#[cfg(test)]
mod fixtures;
#[cfg(test)]
mod paths_tests;
#[cfg(test)]
mod tests;
