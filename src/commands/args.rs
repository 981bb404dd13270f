//! The argument groups commands share (targets, install flags, state, dry run) and the
//! arguments of commands too small for a file of their own. The command line (`cli`) parses
//! them; commands read them.

use std::path::PathBuf;

use clap::{ArgAction, Args, Subcommand};

use crate::ops::InstallOptions;
use crate::plan::LossyPolicy;

#[derive(Debug, Args, Clone)]
pub struct CompletionsArgs {
    /// The shell to complete in
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

#[derive(Debug, Args, Clone)]
pub struct ManArgs {
    /// A command (default: the top-level page, which lists every command)
    #[arg(value_name = "COMMAND")]
    pub command: Option<String>,
}

/// Which server `probe` and `call` start, and how long they wait for it.
#[derive(Debug, Args, Clone)]
pub struct ServerArgs {
    /// A server of the project (its own [servers.NAME] or a locked package's); with --package,
    /// which of the package's servers (needed only when it declares several)
    #[arg(value_name = "SERVER", required_unless_present = "package")]
    pub name: Option<String>,
    /// Start a server of this package from the registry (its newest version) instead
    #[arg(long, value_name = "PACKAGE")]
    pub package: Option<String>,
    /// With --package: set an input of the package, --set port=4000 (repeatable)
    #[arg(long = "set", value_name = "KEY=VALUE", requires = "package")]
    pub set: Vec<String>,
    /// Seconds the server may take to start and answer `initialize` (default: the server's
    /// `startup_timeout_sec`, else 10)
    #[arg(long, value_name = "SECS")]
    pub timeout: Option<f64>,
}

#[derive(Debug, Args, Clone)]
pub struct ProbeArgs {
    #[command(flatten)]
    pub server: ServerArgs,
}

#[derive(Debug, Args, Clone)]
pub struct CallArgs {
    #[command(flatten)]
    pub server: ServerArgs,
    /// The tool to call (with --package and no SERVER, the only positional argument)
    #[arg(value_name = "TOOL")]
    pub tool: Option<String>,
    /// The tool's arguments, a JSON object (default: {})
    #[arg(long, value_name = "JSON")]
    pub args: Option<String>,
}

/// Which generations a command works on.
#[derive(Debug, Args, Clone, Default)]
pub struct StateArgs {
    /// `project` (the project's .dotpack/, the default inside a project) or `user`
    /// ($DOTPACK_HOME)
    #[arg(long, value_enum, value_name = "SCOPE")]
    pub scope: Option<crate::model::hosts::Scope>,
}

#[derive(Debug, Args, Clone)]
pub struct GcArgs {
    #[command(flatten)]
    pub state: StateArgs,
    /// Say what would be deleted, and delete nothing
    #[arg(long)]
    pub dry_run: bool,
}

#[derive(Debug, Args, Clone, Default)]
pub struct DryRunArgs {
    /// Show the diff of every file that would change, and write nothing
    #[arg(long)]
    pub dry_run: bool,
}

/// Which host files a command works on.
#[derive(Debug, Args, Clone, Default)]
pub struct TargetArgs {
    /// A host (repeatable); each command says what it does with it. Default: every host of
    /// `[project] hosts`
    #[arg(long = "host", value_name = "HOST")]
    pub hosts: Vec<String>,
    /// Project files (.mcp.json, ...) or the user's own (~/.claude.json, ...); each command says
    /// what it does with it
    #[arg(long, value_enum, value_name = "SCOPE")]
    pub scope: Option<crate::model::hosts::Scope>,
}

/// Options of every command that writes host files.
#[derive(Debug, Args, Clone, Default)]
pub struct InstallArgs {
    #[command(flatten)]
    pub targets: TargetArgs,
    /// Replace entries dotpack does not own, and entries edited by hand
    #[arg(long)]
    pub force: bool,
    /// Leave entries and resource files edited by hand that nothing declares any more as they
    /// are, and stop tracking them: they become yours
    #[arg(long, conflicts_with = "force")]
    pub keep_edited: bool,
    /// Drop fields a host cannot express. Bare: every field that is not security-relevant;
    /// security-relevant fields must be named: --allow-lossy=enabled_tools,trust (both combine)
    #[arg(long, value_name = "FIELDS", num_args = 0..=1, require_equals = true, value_delimiter = ',', action = ArgAction::Append, default_missing_value = "")]
    pub allow_lossy: Vec<String>,
    /// Show the diff of every file that would change, and write nothing
    #[arg(long)]
    pub dry_run: bool,
    /// Write a project host file even where it resolves (through a symlink) to a file outside
    /// the project, such as a link to your home folder's config
    #[arg(long)]
    pub write_outside_project: bool,
}

/// `--resolve-env`, on the commands that write entries from packages (add, install, update).
#[derive(Debug, Args, Clone, Default)]
pub struct ResolveEnvArgs {
    /// At user scope, where a host cannot read an environment variable in a field (Codex
    /// `args`, `url`), write the variable's current value instead; the file becomes readable by
    /// you only, and the value never enters dotpack.lock, claims, history or output
    #[arg(long)]
    pub resolve_env: bool,
}

#[derive(Debug, Subcommand)]
pub enum RegistryCommand {
    /// Build (or extend) a registry index from a folder of package manifests
    #[command(
        after_help = "Examples:\n  dotpack registry build manifests --out registry-index\n  dotpack registry build manifests --out registry-index --check   # in CI: exit 1 when out of date"
    )]
    Build(RegistryBuildArgs),
}

#[derive(Debug, Args, Clone)]
pub struct RegistryBuildArgs {
    /// Folder whose subfolders each hold a package's dotpack.toml
    #[arg(default_value = "manifests")]
    pub source: PathBuf,
    /// Index folder to write
    #[arg(long, default_value = "registry-index")]
    pub out: PathBuf,
    /// Only check that the index is up to date; exit 1 if building would change it
    #[arg(long)]
    pub check: bool,
}

impl InstallArgs {
    /// The library's view of these flags: hosts, scope, force, lossy policy and dry run.
    pub fn options(&self) -> Result<InstallOptions, crate::util::error::Error> {
        let hosts = known_hosts(&self.targets.hosts)?;
        Ok(InstallOptions {
            grant: crate::ops::consent::Grant {
                hosts: hosts.iter().cloned().collect(),
                ..Default::default()
            },
            hosts,
            scope: self.targets.scope,
            force: self.force,
            keep_edited: self.keep_edited,
            lossy: lossy_policy(&self.allow_lossy)?,
            dry_run: self.dry_run,
            write_outside_project: self.write_outside_project,
            resolve_env: false,
            staged: Default::default(),
        })
    }
}

impl TargetArgs {
    /// Hosts and scope only, for commands that read (list, status).
    pub fn options(&self) -> Result<InstallOptions, crate::util::error::Error> {
        Ok(InstallOptions {
            hosts: known_hosts(&self.hosts)?,
            scope: self.scope,
            ..InstallOptions::default()
        })
    }
}

/// The `--host` values, lowercase, each one a host dotpack knows: an unknown one is a usage
/// error (exit code 2), as every flag given a value it does not take.
pub(crate) fn known_hosts(given: &[String]) -> Result<Vec<String>, crate::util::error::Error> {
    given
        .iter()
        .map(|h| known_host(h).map(|host| host.id.to_string()))
        .collect()
}

/// The host a command-line argument names (trimmed, any case); an unknown one is a usage error.
pub(crate) fn known_host(
    given: &str,
) -> Result<&'static crate::model::hosts::HostAdapter, crate::util::error::Error> {
    let id = given.trim().to_ascii_lowercase();
    crate::model::hosts::adapter(&id)
        .ok_or_else(|| crate::plan::targets::unknown_host(&id).code(crate::util::error::USAGE))
}

/// `--allow-lossy` occurrences: an empty value is the bare flag, the rest name fields or
/// concepts, every one of which must be known.
pub(crate) fn lossy_policy(values: &[String]) -> Result<LossyPolicy, crate::util::error::Error> {
    let mut policy = LossyPolicy::default();
    for value in values {
        let name = value.trim();
        if name.is_empty() {
            policy.bare = true;
            continue;
        }
        if !crate::model::concepts::is_lossy_name(name) {
            let names = crate::model::concepts::lossy_names();
            let hint = crate::util::suggest::closest(name, names.iter().copied())
                .map(|c| format!("did you mean `{c}`? "))
                .unwrap_or_default();
            return Err(crate::util::error::Error::usage(format!(
                "--allow-lossy: `{name}` is not a server field or concept"
            ))
            .help(format!("{hint}fields are: {}", names.join(", "))));
        }
        policy.named.insert(name.to_string());
    }
    Ok(policy)
}
