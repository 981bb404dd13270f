//! The canonical manifest, `dotpack.toml`: one format for a project and for a published package.
//!
//! Loading is parse, then validate, then deserialize: validation works on the spanned document so
//! every finding points at a line, and only a manifest without errors becomes a [`Manifest`].

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use semver::{Version, VersionReq};
use serde::{Deserialize, Serialize};

use crate::model::hosts::Scope;
use crate::model::resources::{Kind, ResourceDecl};
use crate::ui::diag::{Diagnostic, Diagnostics};

/// The file name of a manifest.
pub const MANIFEST_FILE: &str = "dotpack.toml";

/// A parsed, validated `dotpack.toml`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(
    feature = "schema",
    schemars(
        deny_unknown_fields,
        title = "dotpack.toml",
        description = "A dotpack manifest: a project's MCP server packages, or a published package. Derived from dotpack's manifest types and concept table."
    )
)]
pub struct Manifest {
    /// What a published package says about itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub package: Option<PackageMeta>,
    /// Where this project installs its servers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project: Option<ProjectSettings>,
    /// Values a user may set when installing (`--set NAME=VALUE`), referenced as `{{props.NAME}}`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    #[cfg_attr(feature = "schema", schemars(extend("propertyNames" = {"pattern": crate::model::schema::NAME_PATTERN})))]
    pub inputs: BTreeMap<String, Input>,
    /// MCP servers this manifest declares, in canonical form; dotpack writes each host's own
    /// spelling.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    #[cfg_attr(feature = "schema", schemars(extend("propertyNames" = {"pattern": crate::model::schema::NAME_PATTERN})))]
    pub servers: BTreeMap<String, Server>,
    /// Packages this project installs, each with a semver requirement.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    #[cfg_attr(feature = "schema", schemars(extend("propertyNames" = {"pattern": crate::model::schema::PACKAGE_NAME_PATTERN})))]
    pub dependencies: BTreeMap<String, DependencySpec>,
    /// Extra registries by name, for `registry = "NAME"` on a dependency:
    /// `[registries] local = { path = "../index" }`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    #[cfg_attr(feature = "schema", schemars(extend("propertyNames" = {"pattern": crate::model::schema::NAME_PATTERN})))]
    pub registries: BTreeMap<String, RegistrySpec>,
    /// Settings of dotpack itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub settings: Option<Settings>,
    /// Skills: folders holding SKILL.md (frontmatter `name`, `description`), installed into each
    /// host's skills folder.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    #[cfg_attr(feature = "schema", schemars(extend("propertyNames" = {"pattern": crate::model::schema::NAME_PATTERN})))]
    pub skills: BTreeMap<String, ResourceDecl>,
    /// Slash commands: markdown prompts (frontmatter `description`, `argument-hint`), written in
    /// each host's command format.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    #[cfg_attr(feature = "schema", schemars(extend("propertyNames" = {"pattern": crate::model::schema::NAME_PATTERN})))]
    pub commands: BTreeMap<String, ResourceDecl>,
    /// Subagents: markdown with frontmatter `name`, `description`, `tools`, `model`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    #[cfg_attr(feature = "schema", schemars(extend("propertyNames" = {"pattern": crate::model::schema::NAME_PATTERN})))]
    pub agents: BTreeMap<String, ResourceDecl>,
    /// Rules: markdown guidance with frontmatter `description`, `globs`, `always`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    #[cfg_attr(feature = "schema", schemars(extend("propertyNames" = {"pattern": crate::model::schema::NAME_PATTERN})))]
    pub rules: BTreeMap<String, ResourceDecl>,
    /// Memory snippets: markdown written as a managed block into AGENTS.md, CLAUDE.md or
    /// GEMINI.md.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    #[cfg_attr(feature = "schema", schemars(extend("propertyNames" = {"pattern": crate::model::schema::NAME_PATTERN})))]
    pub memory: BTreeMap<String, ResourceDecl>,
}

/// `[package]`: what a published package says about itself.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(deny_unknown_fields))]
pub struct PackageMeta {
    /// The package name: letters, digits, `-` and `_`, starting with a letter or digit; or an MCP
    /// Registry name, `namespace/name`.
    #[cfg_attr(feature = "schema", schemars(regex(pattern = crate::model::schema::PACKAGE_NAME_PATTERN)))]
    pub name: String,
    /// A full semver version, such as `0.3.1`.
    pub version: Version,
    /// One line saying what the package's servers do.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Words `dotpack search` matches.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub keywords: Vec<String>,
    /// The package's home page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub homepage: Option<String>,
    /// Where the package's source lives.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repository: Option<String>,
    /// An SPDX license expression.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub license: Option<String>,
}

/// `[project]`: where a project installs.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(deny_unknown_fields))]
pub struct ProjectSettings {
    /// The hosts whose config files dotpack writes (`dotpack hosts` lists them): `"claude-code"`,
    /// or `{ host = "windsurf", scope = "user" }` to give one host its own scope.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hosts: Vec<HostDecl>,
    /// The scope of hosts that do not name one: `project` (the default) or `user`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<Scope>,
    /// Packages or servers this project installs into no host (`dotpack uninstall NAME`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(feature = "schema", schemars(inner(regex(pattern = crate::model::schema::NAME_PATTERN))))]
    pub exclude: Vec<String>,
    /// Fields and resource kinds this project accepts leaving out, for its own `[servers]` and
    /// resources, where a host cannot keep them (a dependency records its own `allow_lossy`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(
        feature = "schema",
        schemars(schema_with = "crate::model::schema::lossy_names")
    )]
    pub allow_lossy: Vec<String>,
    /// Every stdio server of the project starts through `dotpack run`, which gives it its
    /// secrets from the OS credential store (see docs/secrets.md); a dependency may ask for it
    /// alone with its own `launcher = true`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub launcher: bool,
    /// `install` writes one `dotpack serve` entry into each host instead of one per server:
    /// `true` or `"proxy"` (the servers behind search, describe and call), `"direct"` (their own
    /// tools), `false` (see docs/gateway.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gateway: Option<crate::model::gateway::ProjectGateway>,
    /// When `dotpack serve` starts the servers that do not say: `"lazy"` (the default: on the
    /// first call), `"eager"` (when it starts) or `"keep-alive"` (when it starts, never stopped
    /// when idle).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gateway_lifecycle: Option<crate::model::gateway::Lifecycle>,
}

/// A dependency's `launcher`: `true` (every host), `false`, or the ids of the hosts where its
/// servers start through `dotpack run`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum LauncherDecl {
    /// In every host, or none.
    All(bool),
    /// In these hosts only.
    Hosts(
        #[cfg_attr(
            feature = "schema",
            schemars(schema_with = "crate::model::schema::host_ids")
        )]
        Vec<String>,
    ),
}

impl Default for LauncherDecl {
    fn default() -> Self {
        LauncherDecl::All(false)
    }
}

impl LauncherDecl {
    /// `false` or an empty list: written nowhere.
    pub fn is_off(&self) -> bool {
        match self {
            LauncherDecl::All(on) => !on,
            LauncherDecl::Hosts(hosts) => hosts.is_empty(),
        }
    }
}

/// Where a package's servers start through `dotpack run` (see [`Manifest::launcher_for`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Launcher {
    /// Nowhere: each host starts the server itself.
    #[default]
    Off,
    /// In every host.
    All,
    /// In these hosts only (host ids).
    Hosts(BTreeSet<String>),
}

impl Launcher {
    /// Whether the entry written into host `host` starts through `dotpack run`.
    pub fn covers(&self, host: &str) -> bool {
        match self {
            Launcher::Off => false,
            Launcher::All => true,
            Launcher::Hosts(hosts) => hosts.contains(host),
        }
    }

    /// What an entry's fingerprint records of it: nothing when off (so the fingerprints
    /// written before the launcher stay the same), `true`, or the sorted host ids.
    pub fn fingerprint(&self) -> Option<serde_json::Value> {
        match self {
            Launcher::Off => None,
            Launcher::All => Some(serde_json::Value::Bool(true)),
            Launcher::Hosts(hosts) => Some(serde_json::json!(hosts)),
        }
    }
}

/// One entry of `[project] hosts`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(deny_unknown_fields))]
pub enum HostDecl {
    /// A host id.
    Id(
        #[cfg_attr(
            feature = "schema",
            schemars(schema_with = "crate::model::schema::host_id")
        )]
        String,
    ),
    /// A host with its own scope or exclusions.
    Detailed {
        #[cfg_attr(
            feature = "schema",
            schemars(schema_with = "crate::model::schema::host_id")
        )]
        host: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        scope: Option<Scope>,
        /// Packages or servers not installed into this host (`dotpack uninstall NAME --host H`).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        #[cfg_attr(feature = "schema", schemars(inner(regex(pattern = crate::model::schema::NAME_PATTERN))))]
        exclude: Vec<String>,
        /// Every stdio server written into this host starts through `dotpack run`.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        launcher: bool,
    },
}

impl HostDecl {
    /// Whether this entry says `launcher = true`.
    pub fn launcher(&self) -> bool {
        matches!(self, HostDecl::Detailed { launcher: true, .. })
    }

    pub fn id(&self) -> &str {
        match self {
            HostDecl::Id(id) | HostDecl::Detailed { host: id, .. } => id,
        }
    }

    /// The scope this entry names, if it names one.
    pub fn scope(&self) -> Option<Scope> {
        match self {
            HostDecl::Id(_) => None,
            HostDecl::Detailed { scope, .. } => *scope,
        }
    }

    /// Packages or servers this host does not get.
    pub fn exclude(&self) -> &[String] {
        match self {
            HostDecl::Id(_) => &[],
            HostDecl::Detailed { exclude, .. } => exclude,
        }
    }
}

/// `[settings]`: knobs of dotpack itself.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(deny_unknown_fields))]
pub struct Settings {
    /// How many generations `dotpack gc` keeps.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub keep_generations: Option<u32>,
    /// `dotpack lock` records the tools of every server (see `dotpack lock --pin-tools`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pin_tools: Option<bool>,
}

/// `[inputs.NAME]`: a value the user supplies at install time.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(deny_unknown_fields))]
pub struct Input {
    /// What the value is for, shown by `dotpack info`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The value when none is set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(
        feature = "schema",
        schemars(schema_with = "crate::model::schema::any_value")
    )]
    pub default: Option<toml::Value>,
    /// `dotpack add` fails until a value is set.
    #[serde(default)]
    pub required: bool,
    /// Never written to the lock or claims; give it as `{{env.NAME}}`.
    #[serde(default)]
    pub secret: bool,
    /// `string`, `number`, `bool`, `array` or `object`; inferred from `default` when absent.
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    #[cfg_attr(
        feature = "schema",
        schemars(schema_with = "crate::model::schema::value_type")
    )]
    pub kind: Option<String>,
    /// The values allowed.
    #[serde(default, rename = "enum", skip_serializing_if = "Option::is_none")]
    #[cfg_attr(
        feature = "schema",
        schemars(schema_with = "crate::model::schema::any_list")
    )]
    pub allowed: Option<Vec<toml::Value>>,
    /// A regular expression a text (or every text item of a list) must match, whole.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pattern: Option<String>,
    /// Lower bound: a number's value, a text's length, a list's number of items.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min: Option<f64>,
    /// Upper bound: a number's value, a text's length, a list's number of items.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max: Option<f64>,
    /// The type of a list's items.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(
        feature = "schema",
        schemars(schema_with = "crate::model::schema::value_type")
    )]
    pub items: Option<String>,
}

/// One MCP server in canonical form: the universal core plus extension concepts under their
/// canonical names (see [`crate::model::concepts`]).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Server {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub args: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub env: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// The hosts (ids) this server of the project's own is written into; empty: every declared
    /// host. `init --import` sets it on a server read from a user-scope file, so a personal
    /// server does not spread into the project's other hosts unless the user adds them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hosts: Vec<String>,
    /// Every other field, keyed by canonical name.
    #[serde(flatten)]
    pub extensions: BTreeMap<String, toml::Value>,
}

impl Server {
    /// Moves each field written in one of the host spellings dotpack reads as canonical
    /// ([`crate::model::concepts::NORMALISED_SPELLINGS`], validation warned) to its canonical
    /// name, so every host gets it in its own spelling (`http_headers` in Codex).
    pub fn normalise_spellings(&mut self) {
        for (spelling, canonical) in crate::model::concepts::NORMALISED_SPELLINGS {
            if !self.extensions.contains_key(*canonical)
                && let Some(value) = self.extensions.remove(*spelling)
            {
                self.extensions.insert(canonical.to_string(), value);
            }
        }
    }

    /// Every string of the definition: command, args, env values, url and extension values.
    pub fn strings(&self) -> Vec<String> {
        fn walk(value: &toml::Value, out: &mut Vec<String>) {
            match value {
                toml::Value::String(s) => out.push(s.clone()),
                toml::Value::Array(items) => items.iter().for_each(|v| walk(v, out)),
                toml::Value::Table(t) => t.values().for_each(|v| walk(v, out)),
                _ => {}
            }
        }
        let mut out: Vec<String> = self.command.iter().chain(&self.url).cloned().collect();
        out.extend(self.args.iter().flatten().cloned());
        out.extend(self.env.values().cloned());
        for value in self.extensions.values() {
            walk(value, &mut out);
        }
        out
    }
}

/// A dependency: `name = "^1.2"` or `name = { version = "^1.2", ... }`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum DependencySpec {
    Req(
        #[cfg_attr(
            feature = "schema",
            schemars(schema_with = "crate::model::schema::version_req")
        )]
        VersionReq,
    ),
    Detailed(DetailedDependency),
}

/// A dependency with options.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(deny_unknown_fields))]
pub struct DetailedDependency {
    #[cfg_attr(
        feature = "schema",
        schemars(schema_with = "crate::model::schema::version_req")
    )]
    pub version: VersionReq,
    /// Name of a registry in `[registries]`; the default registry when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub registry: Option<String>,
    /// The package's name as its registry spells it, when that differs from the key in case:
    /// MCP Registry names are case-sensitive (`io.github.GLips/Figma-Context-MCP`), dotpack's are
    /// lowercase. `add` writes it; the registry is asked with this spelling.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub package: Option<String>,
    /// Input values for the package (`--set NAME=VALUE`), typed as the inputs are.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    #[cfg_attr(
        feature = "schema",
        schemars(schema_with = "crate::model::schema::value_map")
    )]
    pub set: BTreeMap<String, toml::Value>,
    /// Fields this project accepts dropping for this package where a host cannot express them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(
        feature = "schema",
        schemars(schema_with = "crate::model::schema::lossy_names")
    )]
    pub allow_lossy: Vec<String>,
    /// This package's stdio servers start through `dotpack run`, which gives them their
    /// secrets from the OS credential store (see docs/secrets.md): in every host (`true`) or in
    /// the hosts named (`["claude-desktop", "codex"]`).
    #[serde(default, skip_serializing_if = "LauncherDecl::is_off")]
    pub launcher: LauncherDecl,
    /// How `dotpack serve` offers this package's servers: `"proxy"`, `"direct"` or `"off"`
    /// (default: the project's `gateway`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gateway: Option<crate::model::gateway::Surface>,
    /// When `dotpack serve` starts this package's servers: `"lazy"`, `"eager"` or `"keep-alive"`
    /// (default: the project's `gateway_lifecycle`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gateway_lifecycle: Option<crate::model::gateway::Lifecycle>,
    /// Scope to install this package's servers into instead of each host's (`dotpack add NAME
    /// --scope user`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<Scope>,
    /// The entry name in the hosts of each of the package's servers that goes by another name
    /// than its own (`entries = { mcp = "notion" }`; `dotpack add NAME --as notion`): two
    /// packages whose servers share a name can both be installed.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub entries: BTreeMap<String, String>,
}

impl DependencySpec {
    pub fn req(&self) -> &VersionReq {
        match self {
            DependencySpec::Req(req) => req,
            DependencySpec::Detailed(d) => &d.version,
        }
    }

    pub fn registry(&self) -> Option<&str> {
        match self {
            DependencySpec::Req(_) => None,
            DependencySpec::Detailed(d) => d.registry.as_deref(),
        }
    }

    /// The name the dependency's registry knows it by, when it is spelled otherwise than the key.
    pub fn package(&self) -> Option<&str> {
        match self {
            DependencySpec::Req(_) => None,
            DependencySpec::Detailed(d) => d.package.as_deref(),
        }
    }

    /// The scope this dependency's servers go to, when it overrides its hosts'.
    pub fn scope(&self) -> Option<Scope> {
        match self {
            DependencySpec::Req(_) => None,
            DependencySpec::Detailed(d) => d.scope,
        }
    }

    /// Input values set with `--set` (`set = { ... }`).
    pub fn set(&self) -> Option<&BTreeMap<String, toml::Value>> {
        match self {
            DependencySpec::Req(_) => None,
            DependencySpec::Detailed(d) => Some(&d.set),
        }
    }

    /// The host entry names chosen for the package's servers (`entries = { SERVER = "ENTRY" }`).
    pub fn entries(&self) -> Option<&BTreeMap<String, String>> {
        match self {
            DependencySpec::Req(_) => None,
            DependencySpec::Detailed(d) => Some(&d.entries),
        }
    }

    /// Lossy fields accepted for this dependency (`allow_lossy = [...]`).
    pub fn allow_lossy(&self) -> &[String] {
        match self {
            DependencySpec::Req(_) => &[],
            DependencySpec::Detailed(d) => &d.allow_lossy,
        }
    }
}

/// `[registries.NAME]`: a registry index in a local folder or at an http(s) URL.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(
    deny_unknown_fields,
    extend("oneOf" = [{"required": ["path"]}, {"required": ["url"]}])
))]
pub struct RegistrySpec {
    /// A folder holding an index, relative to this manifest's folder.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<PathBuf>,
    /// A base URL serving an index as static files, or the MCP Registry API (`kind =
    /// "mcp-registry"`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schema", schemars(regex(pattern = "^https?://")))]
    pub url: Option<String>,
    /// What `url` serves: dotpack's own sparse index (the default) or the MCP Registry API.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<RegistryKind>,
    /// With `url`: the environment variable holding a bearer token for this registry, sent only
    /// to its scheme, host and port. The token itself never appears in dotpack.toml.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(
        feature = "schema",
        schemars(regex(pattern = "^[A-Za-z_][A-Za-z0-9_]*$"))
    )]
    pub token_env: Option<String>,
}

/// `kind` of a `[registries.NAME]` entry.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum RegistryKind {
    /// dotpack's own layout: a sparse index of `.tar.gz` packages.
    #[default]
    Dotpack,
    /// The official MCP Registry's REST API (`/v0.1/servers`), or a mirror of it.
    McpRegistry,
}

impl RegistryKind {
    /// Every spelling of `kind`, for messages and the schema.
    pub const NAMES: &[&str] = &["dotpack", "mcp-registry"];
}

impl Manifest {
    /// What the project accepts leaving out for its own servers and resources
    /// (`[project] allow_lossy`).
    /// Where the servers of `package` (`dotpack.toml` for the project's own) start through
    /// `dotpack run`: everywhere with `[project] launcher` or the dependency's `launcher =
    /// true`; else in the hosts its `launcher = [...]` names and those whose `[project] hosts`
    /// entry says `launcher = true`.
    pub fn launcher_for(&self, package: &str) -> Launcher {
        let project = self.project.as_ref();
        let dependency = match self.dependencies.get(package) {
            Some(DependencySpec::Detailed(d)) => Some(&d.launcher),
            _ => None,
        };
        if project.is_some_and(|p| p.launcher)
            || matches!(dependency, Some(LauncherDecl::All(true)))
        {
            return Launcher::All;
        }
        let mut hosts: BTreeSet<String> = match dependency {
            Some(LauncherDecl::Hosts(named)) => named.iter().cloned().collect(),
            _ => BTreeSet::new(),
        };
        hosts.extend(
            project
                .into_iter()
                .flat_map(|p| &p.hosts)
                .filter(|h| h.launcher())
                .map(|h| h.id().to_string()),
        );
        match hosts.is_empty() {
            true => Launcher::Off,
            false => Launcher::Hosts(hosts),
        }
    }

    /// `[project] gateway`, off when absent.
    pub fn gateway(&self) -> crate::model::gateway::ProjectGateway {
        self.project.as_ref().and_then(|p| p.gateway).unwrap_or(
            crate::model::gateway::ProjectGateway(crate::model::gateway::Surface::Off),
        )
    }

    /// How `dotpack serve` offers the servers of `package` ([`crate::plan::desired::LOCAL_PACKAGE`]
    /// for the project's own): the dependency's `gateway`, else the project's surface.
    pub fn gateway_surface(&self, package: &str) -> crate::model::gateway::Surface {
        match self.dependencies.get(package) {
            Some(DependencySpec::Detailed(d)) => d.gateway,
            _ => None,
        }
        .unwrap_or_else(|| self.gateway().surface())
    }

    /// When `dotpack serve` starts the servers of `package`: the dependency's
    /// `gateway_lifecycle`, else the project's, else lazy.
    pub fn gateway_lifecycle(&self, package: &str) -> crate::model::gateway::Lifecycle {
        match self.dependencies.get(package) {
            Some(DependencySpec::Detailed(d)) => d.gateway_lifecycle,
            _ => None,
        }
        .or_else(|| self.project.as_ref().and_then(|p| p.gateway_lifecycle))
        .unwrap_or_default()
    }

    /// Whether the servers of `package` start through `dotpack run` in at least one host.
    pub fn uses_launcher(&self, package: &str) -> bool {
        self.launcher_for(package) != Launcher::Off
    }

    /// Whether the servers of `package` are given their secrets from the OS credential store:
    /// they start through `dotpack run`, or behind the gateway's one entry (`dotpack serve`).
    pub fn reads_the_store(&self, package: &str) -> bool {
        self.uses_launcher(package)
            || (self.gateway().installs()
                && self.gateway_surface(package) != crate::model::gateway::Surface::Off)
    }

    /// Whether any server of the project starts through `dotpack run` in some host.
    pub fn uses_any_launcher(&self) -> bool {
        self.project
            .as_ref()
            .is_some_and(|p| p.launcher || p.hosts.iter().any(HostDecl::launcher))
            || self
                .dependencies
                .values()
                .any(|d| matches!(d, DependencySpec::Detailed(d) if !d.launcher.is_off()))
    }

    pub fn own_allow_lossy(&self) -> &[String] {
        self.project
            .as_ref()
            .map_or(&[][..], |p| p.allow_lossy.as_slice())
    }

    /// The name the entry of `server`, a server of dependency `package`, has in the hosts: the
    /// one `entries` gives it, else its own.
    pub fn entry_name<'a>(&'a self, package: &str, server: &'a str) -> &'a str {
        self.dependencies
            .get(package)
            .and_then(DependencySpec::entries)
            .and_then(|entries| entries.get(server))
            .map_or(server, String::as_str)
    }

    /// The host entry names of `servers`, the servers of dependency `package`, in their order.
    pub fn entry_names(&self, package: &str, servers: &[String]) -> Vec<String> {
        servers
            .iter()
            .map(|s| self.entry_name(package, s).to_string())
            .collect()
    }

    /// Every environment variable the servers read (`{{env.X}}` anywhere in their values, or
    /// in the inputs' defaults), sorted and without repeats.
    pub fn env_vars(&self) -> Vec<String> {
        let defaults = self
            .inputs
            .values()
            .filter_map(|i| i.default.as_ref().and_then(toml::Value::as_str))
            .map(str::to_string);
        let mut vars: Vec<String> = self
            .servers
            .values()
            .flat_map(Server::strings)
            .chain(defaults)
            .flat_map(|s| crate::template::env_refs(&s))
            .collect();
        vars.sort();
        vars.dedup();
        vars
    }

    /// The declarations of one kind of resource.
    pub fn resources_of(&self, kind: Kind) -> &BTreeMap<String, ResourceDecl> {
        match kind {
            Kind::Skill => &self.skills,
            Kind::Command => &self.commands,
            Kind::Agent => &self.agents,
            Kind::Rule => &self.rules,
            Kind::Memory => &self.memory,
        }
    }

    /// Every declared resource, by kind then name.
    pub fn resources_of_mut(&mut self, kind: Kind) -> &mut BTreeMap<String, ResourceDecl> {
        match kind {
            Kind::Skill => &mut self.skills,
            Kind::Command => &mut self.commands,
            Kind::Agent => &mut self.agents,
            Kind::Rule => &mut self.rules,
            Kind::Memory => &mut self.memory,
        }
    }

    pub fn resources(&self) -> Vec<(Kind, &str, &ResourceDecl)> {
        Kind::ALL
            .into_iter()
            .flat_map(|kind| {
                self.resources_of(kind)
                    .iter()
                    .map(move |(name, decl)| (kind, name.as_str(), decl))
            })
            .collect()
    }

    /// The ids of `[project] hosts`, in order.
    pub fn host_ids(&self) -> Vec<String> {
        self.project
            .iter()
            .flat_map(|p| &p.hosts)
            .map(|h| h.id().to_string())
            .collect()
    }
}

/// A manifest together with where it came from and the warnings found while loading it.
#[derive(Clone, Debug)]
pub struct LoadedManifest {
    pub path: PathBuf,
    pub text: String,
    pub manifest: Manifest,
    pub warnings: Vec<Diagnostic>,
}

impl LoadedManifest {
    /// The manifest `text` (a new text of this one's file) gives: this one when the text is the
    /// same, which spares validating and deserializing it again.
    pub fn with_text(&self, text: &str) -> Result<Cow<'_, LoadedManifest>, Diagnostics> {
        if text == self.text {
            return Ok(Cow::Borrowed(self));
        }
        parse(&self.path, text.to_owned()).map(Cow::Owned)
    }

    /// The folder holding the manifest.
    pub fn root(&self) -> &Path {
        self.path.parent().unwrap_or(Path::new("."))
    }
}

/// Reads, validates and deserializes the manifest at `path`, a file of the project it is the
/// manifest of: a link out of its folder, a FIFO or device, or a file past
/// [`crate::util::fence::PROJECT_FILE_CAP`] is refused. Errors carry every diagnostic found.
pub fn load(path: &Path) -> Result<LoadedManifest, Diagnostics> {
    let root = path.parent().unwrap_or(Path::new("."));
    load_in(path, Some(&crate::util::fence::Fence::project(root)))
}

/// [`load`] with the folder the manifest must stay inside (`None`: the user-level manifest in
/// `$DOTPACK_HOME`, which may be a link into a dotfiles repository).
pub fn load_in(
    path: &Path,
    fence: Option<&crate::util::fence::Fence>,
) -> Result<LoadedManifest, Diagnostics> {
    let read_error = |message: String, help: &str| {
        Diagnostics(vec![Diagnostic::error("read", path, message).help(help)])
    };
    let text =
        match crate::util::fence::read_text(path, fence, crate::util::fence::PROJECT_FILE_CAP) {
            Ok(Some(text)) => text,
            Ok(None) => {
                return Err(read_error(
                    format!("{} does not exist", path.display()),
                    "run `dotpack init` to create a dotpack.toml here",
                ));
            }
            Err(e) => {
                let report = crate::util::error::Report::of(&e, &|_| None);
                let help = report.help.as_deref().unwrap_or("fix the file");
                return Err(read_error(report.message.clone(), help));
            }
        };
    parse_with_files(path, text)
}

/// [`parse`], then the resource files the manifest declares are checked on disk, as [`load`]
/// checks them: for a text read from `path` or made for it (`dotpack merge` unites a conflicted
/// one).
pub fn parse_with_files(path: &Path, text: String) -> Result<LoadedManifest, Diagnostics> {
    let loaded = parse(path, text)?;
    let diags = resource_file_diagnostics(loaded.root(), &loaded);
    if !diags.is_empty() {
        return Err(Diagnostics(diags));
    }
    Ok(loaded)
}

/// The resources a manifest on disk declares must be real files inside its folder, each as its
/// kind wants (a skill's `SKILL.md`, frontmatter): every problem an error at its `path` line.
pub fn resource_file_diagnostics(root: &Path, loaded: &LoadedManifest) -> Vec<Diagnostic> {
    if loaded.manifest.resources().is_empty() {
        return Vec::new();
    }
    let doc = toml_edit::Document::parse(loaded.text.clone()).ok();
    let error = |(kind, name, why): (crate::model::resources::Kind, String, String)| {
        crate::model::validate::resources::file_error(
            &loaded.path,
            &loaded.text,
            doc.as_ref(),
            kind,
            &name,
            why,
        )
    };
    match crate::model::resources::files_of_dir(root, &loaded.manifest) {
        Ok(files) => crate::model::validate::resources::check_files(
            &loaded.path,
            &loaded.text,
            &loaded.manifest,
            &files,
        ),
        Err(problems) => problems.into_iter().map(error).collect(),
    }
}

/// Validates and deserializes manifest `text` that was read from `path`.
pub fn parse(path: &Path, text: String) -> Result<LoadedManifest, Diagnostics> {
    let diagnostics = crate::model::validate::check_manifest(path, &text);
    if diagnostics.iter().any(Diagnostic::is_error) {
        return Err(Diagnostics(diagnostics));
    }
    let mut manifest: Manifest = match toml::from_str(&text) {
        Ok(m) => m,
        Err(e) => {
            let diag = Diagnostic::error("invalid-manifest", path, e.message().to_string())
                .at(&text, e.span());
            return Err(Diagnostics(vec![diag]));
        }
    };
    for server in manifest.servers.values_mut() {
        server.normalise_spellings();
    }
    Ok(LoadedManifest {
        path: path.to_path_buf(),
        text,
        manifest,
        warnings: diagnostics,
    })
}
