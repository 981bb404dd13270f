//! `dotpack adopt SERVER...`: take ownership of existing host entries as they are. The package in
//! dotpack.lock that declares each server becomes its owner; the next `install` updates the entry
//! to the package's definition. Hosts given with `--host` join `[project] hosts`.

use crate::commands::args::InstallArgs;
use anyhow::Result;
use clap::Args;

use crate::model::manifest_edit::ManifestEditor;
use crate::ops::declare::{self, Edits};
use crate::ops::{self, Outcome, Project, Settings};
use crate::plan::{Action, Mode};
use crate::ui::printer::Printer;

#[derive(Debug, Args, Clone)]
pub struct AdoptArgs {
    /// Server names whose existing entries dotpack should own
    #[arg(required = true, value_name = "SERVER")]
    pub servers: Vec<String>,
    #[command(flatten)]
    pub install: InstallArgs,
}

pub fn run(settings: &Settings, args: AdoptArgs, printer: &Printer) -> Result<()> {
    let options = args.install.options()?;
    let project = Project::load(settings, printer)?;
    let Some(lock) = project.lock.clone() else {
        crate::bail_help!(
            help = "add the package that declares the server first: `dotpack add PACKAGE`",
            "there is no dotpack.lock"
        );
    };
    let own = &project.manifest.manifest.servers;
    for server in &args.servers {
        let entries = |p: &crate::model::lock::LockedPackage| {
            project.manifest.manifest.entry_names(&p.name, &p.servers)
        };
        if !lock.packages.iter().any(|p| entries(p).contains(server)) && !own.contains_key(server) {
            crate::bail_help!(
                help = format!(
                    "add the package that provides it first (`dotpack search {server}`), then adopt"
                ),
                "no package in dotpack.lock declares a server named `{server}`"
            );
        }
    }
    let mut editor = ManifestEditor::parse(&project.manifest.path, &project.manifest.text)?;
    let mut edits = Edits::new();
    declare::declare_hosts(
        &mut editor,
        &project.manifest,
        &options.hosts,
        options.scope,
        settings.global,
        &mut edits,
    )?;
    let text = editor.render();
    let edited = text != project.manifest.text;
    let updated = project.manifest.with_text(&text)?;
    let registries = ops::registries(settings, Some(&updated))?;
    let lock = project.lock_to_write(lock, &updated, &registries)?;
    let servers = args.servers.iter().cloned().collect();
    let (plan, _) = ops::plan_hosts(
        settings,
        &project,
        &registries,
        &updated,
        &lock,
        &options,
        Mode::Adopt(servers),
    )?;
    for server in &args.servers {
        let adopted = plan
            .files
            .iter()
            .flat_map(|f| &f.changes)
            .any(|c| &c.server == server && c.action == Action::Adopt);
        if !adopted {
            crate::bail_help!(
                help = "name the host whose file holds it: `--host HOST`",
                "no target file has an entry `{server}` to adopt"
            );
        }
    }
    ops::commit(
        settings,
        printer,
        Outcome {
            project: &project,
            manifest_text: edited.then_some(text),
            lock,
            hosts: Some(plan),
            dry_run: options.dry_run,
            edits,
            no_hosts: false,
            staged: Vec::new(),
            imported: false,
        },
    )
}
