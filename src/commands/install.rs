//! `dotpack install [NAME...]`: make every host file match dotpack.toml and dotpack.lock: write
//! missing entries, update changed ones, remove claimed entries nothing declares any more (also
//! in hosts no longer declared). Locks first when the lock is missing or stale (as `uv sync`
//! does); `--locked` refuses that. Hosts given with `--host` join `[project] hosts`; names given
//! are installed again where `dotpack uninstall` took them out.

use crate::commands::args::{InstallArgs, ResolveEnvArgs};
use anyhow::Result;
use clap::Args;

use crate::model::manifest_edit::ManifestEditor;
use crate::ops::declare::{self, Edits};
use crate::ops::{self, InstallOptions, Project, Relock, Settings};
use crate::ui::printer::Printer;

#[derive(Debug, Args, Clone)]
pub struct InstallCmdArgs {
    /// Install these packages or servers again where `dotpack uninstall` took them out
    /// (default: install everything dotpack.toml declares)
    #[arg(value_name = "NAME")]
    pub packages: Vec<String>,
    #[command(flatten)]
    pub install: InstallArgs,
    #[command(flatten)]
    pub resolve: ResolveEnvArgs,
}

pub fn run(settings: &Settings, args: InstallCmdArgs, printer: &Printer) -> Result<()> {
    let mut options = crate::ops::InstallOptions {
        resolve_env: args.resolve.resolve_env,
        ..args.install.options()?
    };
    let project = Project::load(settings, printer)?;
    // Only names, hosts or a scope given on the command line edit dotpack.toml.
    let declares = !args.packages.is_empty()
        || !options.hosts.is_empty()
        || (options.scope.is_some() && !settings.global);
    let (text, edits) = match declares {
        true => declare(settings, &project, &args, &options)?,
        false => (project.manifest.text.clone(), Edits::new()),
    };
    let edited = text != project.manifest.text;
    let updated = project.manifest.with_text(&text)?;
    // `--scope user` asks for the user scope on the command line, for the whole project; names
    // given are the user's choice.
    options.grant.user_scope = options.scope == Some(crate::model::hosts::Scope::User);
    let named: Vec<String> = args
        .packages
        .iter()
        .map(|given| declare::package_name(given))
        .collect();
    let dry_run = options.dry_run;
    let relock = Relock {
        manifest_text: edited.then_some(text),
        options,
        edits,
        ..Relock::sync(&project, updated)
    };
    let needed = ops::relock_and_apply(
        settings,
        printer,
        &project,
        None,
        relock,
        |r, lock, relock| {
            relock.options.grant.named = ops::with_dependencies(&named, lock);
            Ok(ops::environment_needed(r, &relock.manifest, lock, &[]))
        },
    )?;
    if !dry_run {
        ops::print_environment_needed(printer, &needed);
    }
    Ok(())
}

/// Records in dotpack.toml what the command line declares: names installed again (out of
/// `exclude`), hosts and their scope. Returns the new text and the edits made.
fn declare(
    settings: &Settings,
    project: &Project,
    args: &InstallCmdArgs,
    options: &InstallOptions,
) -> Result<(String, Edits)> {
    let file = declare::manifest_name(&project.manifest, settings.global);
    let mut editor = ManifestEditor::parse(&project.manifest.path, &project.manifest.text)?;
    let mut edits = Edits::new();
    for given in &args.packages {
        let name = declare::package_or_server(given, &project.manifest, project.lock.as_ref())?;
        let hosts: Vec<String> = if options.hosts.is_empty() {
            project.manifest.manifest.host_ids()
        } else {
            options.hosts.clone()
        };
        let mut changed = editor.include(&name, None)?;
        for host in &hosts {
            changed |= editor.include(&name, Some(host))?;
        }
        // A server that names its hosts is installed into a host given on the command line
        // once that host joins its list.
        for host in &options.hosts {
            if editor.add_server_host(&name, host)? {
                edits.push((
                    "Adding".to_string(),
                    format!("{host} to the hosts of server {name} in {file}"),
                ));
            }
        }
        if changed {
            edits.push((
                "Including".to_string(),
                format!("{name} again (out of `exclude` in {file})"),
            ));
        }
    }
    declare::declare_hosts(
        &mut editor,
        &project.manifest,
        &options.hosts,
        options.scope,
        settings.global,
        &mut edits,
    )?;
    Ok((editor.render(), edits))
}
