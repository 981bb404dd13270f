//! Command-line parsing: flags and subcommands, turned into one [`GlobalOptions`] and a
//! [`Command`], then handed to `commands`.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};

use crate::output::{ColorChoice, Printer};

/// dotpack: one manifest for the MCP servers of every AI host.
///
/// Declare MCP server packages in dotpack.toml, resolve them against a registry, pin them in
/// dotpack.lock. Start with `dotpack init`, then `dotpack add figma`.
#[derive(Debug, Parser)]
#[command(name = "dotpack", version, about, long_about)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Args, Clone)]
pub struct GlobalArgs {
    /// Print machine-readable JSON on stdout (read commands)
    #[arg(long, global = true)]
    pub json: bool,
    /// Print only errors
    #[arg(long, short, global = true)]
    pub quiet: bool,
    /// When to colour output (NO_COLOR is respected with `auto`)
    #[arg(long, global = true, value_enum, default_value_t = ColorChoice::Auto, value_name = "WHEN")]
    pub color: ColorChoice,
    /// Path to dotpack.toml (default: search this folder and its parents)
    #[arg(long, global = true, value_name = "PATH")]
    pub manifest_path: Option<PathBuf>,
    /// Use the registry index in this local folder, or at this http(s):// URL, instead of the
    /// built-in one
    #[arg(long, global = true, value_name = "PATH|URL", env = "DOTPACK_REGISTRY")]
    pub registry: Option<PathBuf>,
    /// Fail if dotpack.lock is missing or would change
    #[arg(long, global = true)]
    pub locked: bool,
    /// Use only local data and the cache: no network
    #[arg(long, global = true)]
    pub offline: bool,
    /// Both --locked and --offline
    #[arg(long, global = true)]
    pub frozen: bool,
    /// Fail at once instead of waiting when another dotpack is changing files
    #[arg(long, global = true)]
    pub no_wait: bool,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Create a dotpack.toml in the current folder (or PATH)
    Init(InitArgs),
    /// Add packages to dotpack.toml, lock them and install them into the target hosts
    #[command(
        after_help = "Examples:\n  dotpack add figma\n  dotpack add github@^1.0 context7\n  dotpack add figma --set port=4000"
    )]
    Add(AddArgs),
    /// Remove packages from dotpack.toml, the lock and the target hosts
    #[command(visible_alias = "rm")]
    Remove(RemoveArgs),
    /// Resolve dependencies and write dotpack.lock
    Lock,
    /// Move locked packages to the newest versions their requirements allow, and reinstall
    Update(UpdateArgs),
    /// Search the registry by name, description and keywords
    Search(SearchArgs),
    /// Show a package's versions, servers, inputs and dependencies
    Info(InfoArgs),
    /// Write every locked server into the target hosts' config files
    Install(InstallCmdArgs),
    /// Remove dotpack's entries from host config files, keeping dotpack.toml
    Uninstall(UninstallArgs),
    /// Take ownership of an existing host entry as it is
    Adopt(AdoptArgs),
    /// Show what dotpack installed where
    List(TargetArgs),
    /// Show drift: entries edited by hand, missing, or in the way
    Status(TargetArgs),
    /// Check a dotpack.toml and print every problem with its line
    Validate(ValidateArgs),
    /// List the generations: every change dotpack made, newest last
    History(StateArgs),
    /// Restore the files of a generation (default: the one before the newest)
    #[command(
        after_help = "Examples:\n  dotpack rollback            # undo the last change\n  dotpack rollback 3          # back to the state right after generation 3\n  dotpack rollback --dry-run  # show the diff only"
    )]
    Rollback(RollbackArgs),
    /// Delete old generations beyond `keep_generations` and snapshots no generation uses
    Gc(StateArgs),
    /// Registry maintenance
    #[command(subcommand)]
    Registry(RegistryCommand),
    /// Check dotpack's state folders: who made them, an interrupted transaction, bad records
    Doctor(DoctorArgs),
}

#[derive(Debug, Args, Clone)]
pub struct DoctorArgs {
    /// Move aside what dotpack cannot use (an untrusted .dotpack/, a journal that cannot be
    /// recovered), never deleting it
    #[arg(long)]
    pub repair: bool,
}

/// Which generations a command works on.
#[derive(Debug, Args, Clone, Default)]
pub struct StateArgs {
    /// `project` (the project's .dotpack/, the default inside a project) or `user`
    /// ($DOTPACK_HOME)
    #[arg(long, value_enum, value_name = "SCOPE")]
    pub scope: Option<crate::hosts::Scope>,
}

#[derive(Debug, Args, Clone)]
pub struct RollbackArgs {
    /// The generation whose state to restore (default: the one before the newest)
    #[arg(value_name = "N")]
    pub generation: Option<u64>,
    /// Show the diff of every file that would change, and write nothing
    #[arg(long)]
    pub dry_run: bool,
    #[command(flatten)]
    pub state: StateArgs,
}

#[derive(Debug, Args, Clone)]
pub struct InitArgs {
    /// Folder to create dotpack.toml in (default: the current folder)
    pub path: Option<PathBuf>,
}

#[derive(Debug, Args, Clone)]
pub struct AddArgs {
    /// Packages to add, as NAME or NAME@REQUIREMENT (e.g. figma, github@^1.2, time@=0.2.0)
    #[arg(required = true, value_name = "NAME[@REQ]")]
    pub packages: Vec<String>,
    /// Set an input of the added package: --set port=4000 (repeatable)
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
    #[command(flatten)]
    pub install: InstallArgs,
}

#[derive(Debug, Args, Clone)]
pub struct RemoveArgs {
    /// Packages to remove
    #[arg(required = true, value_name = "NAME")]
    pub packages: Vec<String>,
    #[command(flatten)]
    pub install: InstallArgs,
}

#[derive(Debug, Args, Clone)]
pub struct UpdateArgs {
    /// Only update these packages (default: all)
    #[arg(value_name = "NAME")]
    pub packages: Vec<String>,
    #[command(flatten)]
    pub install: InstallArgs,
}

/// Which host files a command works on.
#[derive(Debug, Args, Clone, Default)]
pub struct TargetArgs {
    /// Target host (repeatable): claude-code, codex, gemini-cli, cursor, vscode.
    /// Default: `[project] hosts` in dotpack.toml
    #[arg(long = "host", value_name = "HOST")]
    pub hosts: Vec<String>,
    /// Project files (.mcp.json, ...) or the user's own (~/.claude.json, ...).
    /// Default: `[project] scope`, else project
    #[arg(long, value_enum, value_name = "SCOPE")]
    pub scope: Option<crate::hosts::Scope>,
}

/// Options of every command that writes host files.
#[derive(Debug, Args, Clone, Default)]
pub struct InstallArgs {
    #[command(flatten)]
    pub targets: TargetArgs,
    /// Replace entries dotpack does not own, and entries edited by hand
    #[arg(long)]
    pub force: bool,
    /// Drop fields a host cannot express. Bare: every field that is not security-relevant;
    /// security-relevant fields must be named: --allow-lossy=enabled_tools,trust
    #[arg(long, value_name = "FIELDS", num_args = 0..=1, require_equals = true, value_delimiter = ',')]
    pub allow_lossy: Option<Vec<String>>,
    /// Show the diff of every file that would change, and write nothing
    #[arg(long)]
    pub dry_run: bool,
}

#[derive(Debug, Args, Clone)]
pub struct InstallCmdArgs {
    #[command(flatten)]
    pub install: InstallArgs,
}

#[derive(Debug, Args, Clone)]
pub struct UninstallArgs {
    /// Only these packages (default: all)
    #[arg(value_name = "PACKAGE")]
    pub packages: Vec<String>,
    #[command(flatten)]
    pub install: InstallArgs,
}

#[derive(Debug, Args, Clone)]
pub struct AdoptArgs {
    /// Server names whose existing entries dotpack should own
    #[arg(required = true, value_name = "SERVER")]
    pub servers: Vec<String>,
    #[command(flatten)]
    pub install: InstallArgs,
}

#[derive(Debug, Args, Clone)]
pub struct SearchArgs {
    /// Words to look for
    #[arg(required = true)]
    pub query: Vec<String>,
    /// Show at most this many results
    #[arg(long, default_value_t = 20)]
    pub limit: usize,
}

#[derive(Debug, Args, Clone)]
pub struct InfoArgs {
    /// Package name, optionally with a requirement: NAME[@REQ]
    #[arg(value_name = "NAME[@REQ]")]
    pub package: String,
}

#[derive(Debug, Args, Clone)]
pub struct ValidateArgs {
    /// A dotpack.toml, or a folder holding one (default: the project's)
    pub path: Option<PathBuf>,
}

#[derive(Debug, Subcommand)]
pub enum RegistryCommand {
    /// Build (or extend) a registry index from a folder of package manifests
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

/// Runs the command line and returns the process exit code: 0 done, 1 failed, 2 bad usage.
pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    let printer = Printer::new(cli.global.quiet, cli.global.json, cli.global.color);
    match crate::commands::run(&cli.global, cli.command, &printer) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            crate::commands::report_error(&printer, &err);
            ExitCode::from(crate::commands::exit_code(&err))
        }
    }
}
