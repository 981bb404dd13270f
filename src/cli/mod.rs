//! Command-line parsing: flags and subcommands, turned into one [`GlobalOptions`] and a
//! [`Command`], then handed to `commands`.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::{ArgAction, Args, Parser, Subcommand};

use crate::model::hosts::HostEnv;
use crate::ops::Settings;
use crate::ui::printer::{ColorChoice, Printer};

mod dispatch;

pub use crate::commands::add::AddArgs;
pub use crate::commands::adopt::AdoptArgs;
pub use crate::commands::args::*;
pub use crate::commands::bridge::BridgeArgs;
pub use crate::commands::doctor::DoctorArgs;
pub use crate::commands::import::ImportArgs;
pub use crate::commands::info::InfoArgs;
pub use crate::commands::init::InitArgs;
pub use crate::commands::install::InstallCmdArgs;
pub use crate::commands::lock::LockArgs;
pub use crate::commands::merge::MergeArgs;
pub use crate::commands::package::PackageArgs;
pub use crate::commands::publish::PublishArgs;
pub use crate::commands::remove::RemoveArgs;
pub use crate::commands::rollback::RollbackArgs;
pub use crate::commands::run::RunArgs;
pub use crate::commands::search::SearchArgs;
pub use crate::commands::secret::SecretCommand;
pub use crate::commands::serve::ServeArgs;
pub use crate::commands::tree::TreeArgs;
pub use crate::commands::tree::WhyArgs;
pub use crate::commands::trust::TrustArgs;
pub use crate::commands::uninstall::UninstallArgs;
pub use crate::commands::update::UpdateArgs;
pub use crate::commands::validate::ValidateArgs;
pub use crate::commands::verify::VerifyArgs;
pub use crate::commands::yank::YankArgs;

/// dotpack: one manifest for the MCP servers of every AI host.
///
/// Declare MCP server packages in dotpack.toml, resolve them against a registry, pin them in
/// dotpack.lock. Start with `dotpack init`, then `dotpack add figma`.
#[derive(Debug, Parser)]
#[command(
    name = "dotpack",
    version,
    about,
    long_about,
    after_help = "Exit codes (every command):\n  0  done\n  1  failed, or the project is not as declared (`status`, `verify`)\n  2  bad usage, or an input the command line must give (`--set NAME=VALUE`)"
)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Args, Clone)]
pub struct GlobalArgs {
    /// Print machine-readable JSON on stdout: read commands, and what writing commands changed
    #[arg(long, global = true)]
    pub json: bool,
    /// Print only errors
    #[arg(long, short, global = true)]
    pub quiet: bool,
    /// Say what dotpack reads, requests and plans, with timings, on stderr (-vv: more). The
    /// DOTPACK_LOG environment variable takes a filter instead (`DOTPACK_LOG=debug`)
    #[arg(long, short, global = true, action = ArgAction::Count, conflicts_with = "quiet")]
    pub verbose: u8,
    /// When to colour output (default: DOTPACK_COLOR, else auto). With `auto`: not when NO_COLOR
    /// is set, always when FORCE_COLOR or CLICOLOR_FORCE is (FORCE_COLOR=0: never), not when
    /// CLICOLOR=0, else on terminals
    #[arg(long, global = true, value_enum, env = "DOTPACK_COLOR", default_value_t = ColorChoice::Auto, value_name = "WHEN")]
    pub color: ColorChoice,
    /// Path to dotpack.toml (default: search this folder and its parents)
    #[arg(long, global = true, value_name = "PATH")]
    pub manifest_path: Option<PathBuf>,
    /// A registry declared under [registries], or an index in a local folder or at an http(s)://
    /// URL. `add` records it on the added packages; other commands read it instead of the
    /// built-in registry (so does the DOTPACK_REGISTRY environment variable)
    #[arg(long, global = true, value_name = "NAME|PATH|URL")]
    pub registry: Option<String>,
    /// Work on the user-level manifest in $DOTPACK_HOME: servers for every project, installed
    /// into your own (user-scope) host files
    #[arg(long, short = 'g', global = true)]
    pub global: bool,
    /// Fail if dotpack.lock is missing or would change
    #[arg(long, global = true)]
    pub locked: bool,
    /// Use only local data and the cache: no network
    #[arg(long, global = true)]
    pub offline: bool,
    /// Both --locked and --offline
    #[arg(long, global = true)]
    pub frozen: bool,
    /// Ask the registries again instead of using what they sent in the last few minutes
    /// (DOTPACK_CACHE_MAX_AGE seconds, five minutes by default)
    #[arg(long, global = true)]
    pub refresh: bool,
    /// Fail at once instead of waiting when another dotpack is changing files
    #[arg(long, global = true)]
    pub no_wait: bool,
    /// Allow, for this run only, what this project asks for beyond itself (user-scope writes,
    /// tokens for the registries it names, starting its servers); `dotpack trust` records it
    #[arg(long, global = true)]
    pub trust: bool,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Create a dotpack.toml in the current folder (or PATH)
    #[command(
        after_help = "Examples:\n  dotpack init                 # dotpack.toml here, with the hosts found in this folder\n  dotpack init --import        # and own the servers those hosts already have\n  dotpack init ../other --dry-run"
    )]
    Init(InitArgs),
    /// Add packages to dotpack.toml, lock them and install them into the target hosts
    #[command(
        after_help = "Examples:\n  dotpack add figma\n  dotpack add github@^1.0 context7\n  dotpack add figma --set port=4000"
    )]
    #[command(
        mut_arg("hosts", |a| a.help("Install the added packages into this host too, and add it to `[project] hosts` (repeatable). Default: every host of `[project] hosts`")),
        mut_arg("scope", |a| a.help("Where the added packages go, recorded on each of them: project files (.mcp.json, ...) or your own (~/.claude.json, ...)")),
        mut_arg("force", |a| a.help("Replace an entry of the same name that dotpack does not own, or one edited by hand"))
    )]
    Add(AddArgs),
    /// Remove packages from dotpack.toml, the lock and the target hosts
    #[command(
        visible_alias = "rm",
        after_help = "Examples:\n  dotpack remove figma\n  dotpack rm figma github --dry-run"
    )]
    #[command(mut_arg("hosts", |a| a.hide(true)), mut_arg("scope", |a| a.hide(true)))]
    Remove(RemoveArgs),
    /// Resolve dependencies and write dotpack.lock
    #[command(
        after_help = "Examples:\n  dotpack lock                 # resolve dotpack.toml into dotpack.lock\n  dotpack lock --pin-tools     # also record each server's tools, for `dotpack verify`\n  dotpack --locked lock        # in CI: fail if dotpack.lock would change"
    )]
    Lock(LockArgs),
    /// Finish a git merge: unite both sides of dotpack.toml, read both sides of dotpack.lock,
    /// write again the host files whose conflicts are only dotpack's entries, and install
    #[command(
        after_help = "Examples:\n  git merge other-branch       # conflicts in dotpack.toml, dotpack.lock, .mcp.json\n  dotpack merge                # settle them in one transaction\n  dotpack merge --dry-run      # show what it would write"
    )]
    Merge(MergeArgs),
    /// Move locked packages to the newest versions their requirements allow, and reinstall
    #[command(
        after_help = "Examples:\n  dotpack update               # every package, within its requirement\n  dotpack update github        # only github\n  dotpack --refresh update     # see versions published in the last few minutes"
    )]
    #[command(mut_arg("hosts", |a| a.hide(true)), mut_arg("scope", |a| a.hide(true)))]
    Update(UpdateArgs),
    /// Search the registry by name, description and keywords
    #[command(
        after_help = "Examples:\n  dotpack search browser\n  dotpack search github issues --limit 5\n  dotpack search figma --registry mcp"
    )]
    Search(SearchArgs),
    /// Show a package's versions, servers, inputs and dependencies
    #[command(
        after_help = "Examples:\n  dotpack info playwright\n  dotpack info io.github.GLips/Figma-Context-MCP --json"
    )]
    Info(InfoArgs),
    /// Write every locked server into the target hosts' config files
    #[command(
        after_help = "Examples:\n  dotpack install              # make every host file match dotpack.toml and dotpack.lock\n  dotpack install --locked     # a teammate's clone, exactly as committed\n  dotpack install --host cursor --scope user\n  dotpack install --dry-run    # show the diff only"
    )]
    #[command(
        mut_arg("hosts", |a| a.help("Install into this host, and add it to `[project] hosts` (repeatable). Default: every host of `[project] hosts`")),
        mut_arg("scope", |a| a.help("The scope of the hosts given with --host (else of the whole project), recorded in dotpack.toml: project files (.mcp.json, ...) or your own (~/.claude.json, ...)"))
    )]
    Install(InstallCmdArgs),
    /// Take entries out of the host config files and record that in dotpack.toml; the packages
    /// stay declared and locked
    #[command(
        after_help = "Examples:\n  dotpack uninstall figma              # out of every host; still declared\n  dotpack uninstall figma --host codex\n  dotpack uninstall --host cursor      # the host leaves [project] hosts"
    )]
    #[command(
        mut_arg("hosts", |a| a.help("Take the entries out of this host only (repeatable); with no NAME, the host leaves `[project] hosts`. Default: every host")),
        mut_arg("scope", |a| a.help("Only entries at this scope: project files (.mcp.json, ...) or your own (~/.claude.json, ...)"))
    )]
    Uninstall(UninstallArgs),
    /// Take ownership of an existing host entry as it is
    #[command(
        after_help = "Examples:\n  dotpack adopt github         # claim the entry as it is, edits and all\n  dotpack adopt github --host cursor"
    )]
    #[command(
        mut_arg("hosts", |a| a.help("The host whose file holds the entry (repeatable); it joins `[project] hosts`")),
        mut_arg("scope", |a| a.help("The scope of the file that holds the entry, for the hosts given with --host"))
    )]
    Adopt(AdoptArgs),
    /// Read the MCP servers (and project resource files) a host already has and print them in
    /// canonical form; `--into` makes them the project's own
    #[command(
        after_help = "Examples:\n  dotpack import claude-code                 # print .mcp.json (or ~/.claude.json) as [servers.*]\n  dotpack import codex --scope user --json\n  dotpack import cursor --file ~/old/mcp.json\n  dotpack import claude-code --into          # own them in dotpack.toml, claim the entries as they are"
    )]
    Import(ImportArgs),
    /// Show what dotpack installed where
    #[command(after_help = "Examples:\n  dotpack list\n  dotpack list --host claude-code --json")]
    #[command(
        mut_arg("hosts", |a| a.help("Show only this host's entries (repeatable)")),
        mut_arg("scope", |a| a.help("Show only entries at this scope: project files (.mcp.json, ...) or your own (~/.claude.json, ...)"))
    )]
    List(TargetArgs),
    /// Check that every declared server is installed as locked; exit 1 and list every
    /// discrepancy otherwise
    #[command(
        after_help = "Examples:\n  dotpack status               # exit 1 and list every discrepancy\n  dotpack status --scope user --json"
    )]
    #[command(
        mut_arg("hosts", |a| a.help("Check only this host (repeatable)")),
        mut_arg("scope", |a| a.help("Check only entries at this scope: project files (.mcp.json, ...) or your own (~/.claude.json, ...)"))
    )]
    Status(TargetArgs),
    /// Check a dotpack.toml and print every problem with its line
    #[command(
        after_help = "Examples:\n  dotpack validate\n  dotpack validate path/to/dotpack.toml --json"
    )]
    Validate(ValidateArgs),
    /// Show the locked packages as a tree of dependencies, with their servers and the hosts
    /// they are installed in
    #[command(
        after_help = "Examples:\n  dotpack tree                 # every declared package and what it pulls in\n  dotpack tree github          # only github's tree\n  dotpack tree --invert time   # what depends on time, up to the declared packages\n  dotpack tree --depth 1       # declared packages and their direct dependencies"
    )]
    Tree(TreeArgs),
    /// Show which declared dependencies pull a locked package in, by every path
    #[command(after_help = "Examples:\n  dotpack why time")]
    Why(WhyArgs),
    /// List each locked package with the newest version its requirements allow and the newest
    /// published
    #[command(after_help = "Examples:\n  dotpack outdated\n  dotpack outdated --json")]
    Outdated,
    /// List the generations: every change dotpack made, newest last
    #[command(after_help = "Examples:\n  dotpack history\n  dotpack history --scope user")]
    History(StateArgs),
    /// Restore the files of a generation (default: the one before the newest)
    #[command(
        after_help = "Examples:\n  dotpack rollback            # undo the last change\n  dotpack rollback 3          # back to the state right after generation 3\n  dotpack rollback --dry-run  # show the diff only"
    )]
    Rollback(RollbackArgs),
    /// Delete old generations beyond `keep_generations` and snapshots no generation uses
    #[command(
        after_help = "Examples:\n  dotpack gc --dry-run         # what would be deleted\n  dotpack gc"
    )]
    Gc(GcArgs),
    /// Registry maintenance
    #[command(subcommand)]
    Registry(RegistryCommand),
    /// Build the deterministic .tar.gz archive of the package in this folder and print its
    /// path and sha256
    #[command(after_help = "Examples:\n  dotpack package\n  dotpack package --out dist/")]
    Package(PackageArgs),
    /// Publish the package in this folder to a registry folder (`--index DIR`), or print its
    /// server.json for the official MCP Registry (`--server-json`)
    #[command(
        after_help = "Examples:\n  dotpack publish --index ../registry       # then serve ../registry with any static web server\n  dotpack publish --server-json --out server.json"
    )]
    Publish(PublishArgs),
    /// Mark a published version as yanked (`--undo`: clear the mark): new resolutions skip it,
    /// lock files that pin it keep working
    #[command(
        after_help = "Examples:\n  dotpack yank weather@1.2.0 --index ../registry\n  dotpack yank weather@1.2.0 --index ../registry --undo"
    )]
    Yank(YankArgs),
    /// Print the JSON Schema of dotpack.toml (the file a new manifest's `#:schema` line names)
    #[command(
        after_help = "Examples:\n  dotpack schema > dotpack.schema.json\n  taplo lint --schema file://$PWD/dotpack.schema.json dotpack.toml"
    )]
    Schema,
    /// List every host dotpack can write: whether it is in use here and its file at each scope
    #[command(after_help = "Examples:\n  dotpack hosts\n  dotpack hosts --json")]
    Hosts,
    /// Check dotpack's state folders: who made them, an interrupted transaction, bad records
    #[command(
        after_help = "Examples:\n  dotpack doctor\n  dotpack doctor --repair      # move aside an untrusted .dotpack/ or a journal that cannot be recovered"
    )]
    Doctor(DoctorArgs),
    /// List what this project asks for beyond itself (your user-scope host files, tokens for
    /// its registries, starting its servers, folders outside it) and approve it for this folder
    #[command(
        after_help = "Examples:\n  dotpack trust --show     # list, approve nothing\n  dotpack trust            # approve what is listed, for this folder\n  dotpack trust --revoke   # forget this folder's approvals"
    )]
    Trust(TrustArgs),
    /// Print a shell completion script for dotpack
    #[command(
        after_help = "Examples:\n  source <(dotpack completions bash)                      # this bash session\n  dotpack completions bash > ~/.local/share/bash-completion/completions/dotpack\n  dotpack completions zsh > ~/.zfunc/_dotpack             # with fpath+=~/.zfunc\n  dotpack completions fish > ~/.config/fish/completions/dotpack.fish"
    )]
    Completions(CompletionsArgs),
    /// Print the man page of dotpack, or of one of its commands, as roff
    #[command(
        after_help = "Examples:\n  dotpack man | man -l -\n  dotpack man add > dotpack-add.1"
    )]
    Man(ManArgs),
    /// The package names of the configured registries, one per line, for shell completion
    /// (reads caches only, never the network)
    #[command(name = "__complete-packages", hide = true)]
    CompletePackages,
    /// Start an MCP server and show its name, version, capabilities and tools
    #[command(
        after_help = "Examples:\n  dotpack probe figma                 # a server of this project\n  dotpack probe --package time        # the newest `time` package from the registry\n  dotpack probe github --json"
    )]
    Probe(ProbeArgs),
    /// Call one tool of an MCP server and print its result
    #[command(
        after_help = "Examples:\n  dotpack call time get_current_time --args '{\"timezone\": \"UTC\"}'\n  dotpack call search query --args '{\"q\": \"mcp\"}' --json"
    )]
    Call(CallArgs),
    /// Start every server with pinned tools and report tools added, removed or changed since
    /// they were pinned (exit 1 on any change); `--update` accepts them
    #[command(
        after_help = "Examples:\n  dotpack verify               # exit 1 if a pinned server's tools changed\n  dotpack verify github --timeout 30\n  dotpack verify --update      # accept what changed, after reading it"
    )]
    Verify(VerifyArgs),
    /// Serve the tools of a plain HTTP tool service (GET URL/tools, POST URL/call) as a stdio
    /// MCP server; what hosts run for a server declaring `bridge = "URL"`
    #[command(
        after_help = "Examples:\n  dotpack bridge http://127.0.0.1:8000\n  dotpack bridge https://tools.example/api --header-env Authorization=TOKEN --header-prefix 'Authorization=Bearer '"
    )]
    Bridge(BridgeArgs),
    /// Serve the project's servers behind one stdio MCP server: the proxy tools (search,
    /// describe, call) or each server's own tools; servers start on their first call
    #[command(
        after_help = "What a host runs for the one entry `[project] gateway = true` installs (docs/gateway.md).\nIt prints nothing on stdout but MCP messages.\n\nExamples:\n  dotpack serve\n  dotpack serve --trust     # start the project's servers without recorded approval, for this run\n  dotpack serve --idle 0    # never stop a server before the host closes the gateway"
    )]
    Serve(ServeArgs),
    /// Keep secrets in the OS credential store (Secret Service, Keychain, Credential Manager)
    /// for the servers `dotpack run` starts: set, list names, rm
    #[command(
        subcommand,
        after_help = "Examples:\n  dotpack secret set GITHUB_PERSONAL_ACCESS_TOKEN   # asks for the value, not shown\n  dotpack secret list\n  dotpack secret rm GITHUB_PERSONAL_ACCESS_TOKEN"
    )]
    Secret(SecretCommand),
    /// Start a server with its secrets from the credential store (else the environment), in
    /// this process's place; what hosts run for a server whose secrets they cannot pass
    #[command(
        after_help = "The entry dotpack writes is\n  dotpack run --pin sha256:HEX --secret NAME... -- COMMAND ARGS...\nThe pin is a sha256 over COMMAND, ARGS and the secret names: when they differ from what\nthe entry was written with, dotpack run refuses to start and `dotpack install` rewrites it.\nIt reads no project, and prints nothing but its errors (on stderr).\n\nExamples:\n  dotpack run --secret GITHUB_PERSONAL_ACCESS_TOKEN -- npx -y @modelcontextprotocol/server-github"
    )]
    Run(RunArgs),
}

impl GlobalArgs {
    /// The settings every command shares, decided once from these flags and the environment.
    pub fn settings(&self) -> Result<Settings> {
        let cwd = std::env::current_dir().context("cannot read the current folder")?;
        let host_env = HostEnv::from_env()?;
        let dotpack_home = match std::env::var_os("DOTPACK_HOME") {
            Some(dir) if !dir.is_empty() => PathBuf::from(dir),
            _ => host_env.home.join(".dotpack"),
        };
        let registry_env = std::env::var("DOTPACK_REGISTRY")
            .ok()
            .filter(|v| !v.is_empty());
        use crate::registry::http;
        let var = |name: &str| std::env::var(name).ok();
        let http = http::network_from_env(
            crate::registry::Network::default(),
            var(http::TIMEOUT_ENV).as_deref(),
            var(http::RETRIES_ENV).as_deref(),
            var(http::RETRY_DELAY_ENV).as_deref(),
        )
        .map_err(|e| crate::util::error::Error::new(e.to_string()).help("fix or unset it"))?;
        let max_age =
            http::freshness::max_age_from_env(var(http::freshness::MAX_AGE_ENV).as_deref())
                .map_err(|e| crate::util::error::Error::new(e).help("fix or unset it"))?;
        let http = crate::registry::Network {
            allow_redirects: var(http::ALLOW_REDIRECTS_ENV)
                .is_some_and(|v| !matches!(v.trim(), "" | "0" | "false" | "no")),
            refresh: self.refresh,
            max_age: max_age.unwrap_or(http.max_age),
            ..http
        };
        Ok(Settings {
            host_env,
            dotpack_home,
            cwd,
            manifest_path: self.manifest_path.clone(),
            registry_flag: self.registry.clone(),
            registry_env,
            locked: self.locked || self.frozen,
            offline: self.offline || self.frozen,
            global: self.global,
            wait: if self.no_wait {
                crate::txn::Wait::NoWait
            } else {
                crate::txn::Wait::Block
            },
            command_line: std::iter::once("dotpack".to_string())
                .chain(std::env::args().skip(1))
                .collect(),
            http,
            trust: self.trust,
        })
    }
}

/// Runs the command line and returns the process exit code: 0 done, 1 failed, 2 bad usage.
pub fn main() -> ExitCode {
    if let Some(args) = launcher_args() {
        return run_launcher(args, &Printer::new(false, false, ColorChoice::Auto));
    }
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    let color = forced_color(cli.global.color, |name| std::env::var_os(name));
    let printer = Printer::new(cli.global.quiet, cli.global.json, color);
    // The launcher is on the path of every server a host starts: no settings, logging or
    // recovery, nothing read before it replaces this process.
    let cli = match cli.command {
        Command::Run(args) => return run_launcher(args, &printer),
        command => Cli { command, ..cli },
    };
    // Before any thread: every command reaches the credential store the way the launcher does,
    // so `doctor` and `secret` see what a server started by a host will see.
    crate::ops::secrets::find_session_bus();
    printer.start_logging(cli.global.verbose);
    let settings = match cli.global.settings() {
        Ok(mut settings) => {
            // A spinner for slow registry requests: on a terminal only, and not when the log
            // or --quiet asks for plain lines.
            if std::io::IsTerminal::is_terminal(&std::io::stderr())
                && !cli.global.quiet
                && cli.global.verbose == 0
            {
                settings.http.progress = crate::ui::progress::ProgressHandle::on();
            }
            settings
        }
        Err(err) => {
            crate::commands::report_error(&printer, &err);
            return ExitCode::from(1);
        }
    };
    match dispatch::run(&settings, cli.command, &printer) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            crate::commands::report_error(&printer, &err);
            ExitCode::from(crate::commands::exit_code(&err))
        }
    }
}

/// Only the launcher's arguments, parsed alone, for `dotpack run ...` as dotpack writes it
/// (`run` first, its own flags, `--`): building the whole command line's parser costs more than
/// the rest of the launcher's start. `None` for anything else, `--help` included, and for
/// arguments the small parser rejects, which the whole one then explains.
fn launcher_args() -> Option<RunArgs> {
    #[derive(Parser)]
    #[command(
        name = "dotpack run",
        disable_help_flag = true,
        disable_version_flag = true
    )]
    struct RunOnly {
        #[command(flatten)]
        args: RunArgs,
    }
    let mut argv = std::env::args_os().skip(1);
    if argv.next()? != "run" {
        return None;
    }
    let mut argv: Vec<std::ffi::OsString> = argv.collect();
    let before_command = argv.iter().position(|a| a == "--").unwrap_or(argv.len());
    if argv[..before_command]
        .iter()
        .any(|a| a == "-h" || a == "--help")
    {
        return None;
    }
    argv.insert(0, "dotpack run".into());
    RunOnly::try_parse_from(argv).ok().map(|r| r.args)
}

/// `dotpack run`: returns only when the server could not start, or with its exit code where the
/// launcher waits for it (not Unix).
fn run_launcher(args: RunArgs, printer: &Printer) -> ExitCode {
    match crate::commands::run::run(args) {
        Ok(code) => ExitCode::from(u8::try_from(code).unwrap_or(1)),
        Err(err) => {
            crate::commands::report_error(printer, &err);
            ExitCode::from(crate::commands::exit_code(&err))
        }
    }
}

/// `--color auto` under `FORCE_COLOR` (force-color.org): set and not empty, colour on both
/// streams, or off for `0` / `false`. `NO_COLOR` still wins, as it does over `CLICOLOR_FORCE`.
fn forced_color(
    choice: ColorChoice,
    var: impl Fn(&str) -> Option<std::ffi::OsString>,
) -> ColorChoice {
    let set = |name| var(name).filter(|v| !v.is_empty());
    if choice != ColorChoice::Auto || set("NO_COLOR").is_some() {
        return choice;
    }
    match set("FORCE_COLOR") {
        Some(v) if v == "0" || v.eq_ignore_ascii_case("false") => ColorChoice::Never,
        Some(_) => ColorChoice::Always,
        None => ColorChoice::Auto,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(vars: &[(&str, &str)], choice: ColorChoice) -> ColorChoice {
        let vars: Vec<(String, String)> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        forced_color(choice, |name| {
            vars.iter().find(|(k, _)| k == name).map(|(_, v)| v.into())
        })
    }

    #[test]
    fn force_color_decides_auto_unless_no_color_is_set() {
        use ColorChoice::*;
        assert_eq!(with(&[], Auto), Auto);
        assert_eq!(with(&[("FORCE_COLOR", "1")], Auto), Always);
        assert_eq!(with(&[("FORCE_COLOR", "3")], Auto), Always);
        assert_eq!(with(&[("FORCE_COLOR", "0")], Auto), Never);
        assert_eq!(with(&[("FORCE_COLOR", "false")], Auto), Never);
        assert_eq!(with(&[("FORCE_COLOR", "")], Auto), Auto);
        assert_eq!(with(&[("FORCE_COLOR", "1"), ("NO_COLOR", "1")], Auto), Auto);
        assert_eq!(
            with(&[("FORCE_COLOR", "1"), ("NO_COLOR", "")], Auto),
            Always
        );
        // A choice on the command line (or in DOTPACK_COLOR) stands.
        assert_eq!(with(&[("FORCE_COLOR", "1")], Never), Never);
        assert_eq!(with(&[("FORCE_COLOR", "0")], Always), Always);
    }
}
