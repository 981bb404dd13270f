//! `dotpack remove NAME...`: take packages out of dotpack.toml, the lock and every host file
//! that holds their entries (found through the claims).

use crate::commands::args::InstallArgs;
use anyhow::Result;
use clap::Args;

use crate::model::manifest_edit::ManifestEditor;
use crate::ops::declare::{self, Edits};
use crate::ops::{self, Project, Relock, Settings};
use crate::ui::printer::Printer;

#[derive(Debug, Args, Clone)]
pub struct RemoveArgs {
    /// Packages to remove
    #[arg(required = true, value_name = "NAME")]
    pub packages: Vec<String>,
    #[command(flatten)]
    pub install: InstallArgs,
}

pub fn run(settings: &Settings, args: RemoveArgs, printer: &Printer) -> Result<()> {
    let options = args.install.options()?;
    if !options.hosts.is_empty() || options.scope.is_some() {
        return Err(crate::util::error::Error::usage(
            "`remove` takes packages out of dotpack.toml and every host",
        )
        .help("to take a package out of some hosts only, use `dotpack uninstall NAME --host HOST`")
        .into());
    }
    let project = Project::load(settings, printer)?;
    let file = declare::manifest_name(&project.manifest, settings.global);
    let mut editor = ManifestEditor::parse(&project.manifest.path, &project.manifest.text)?;
    let mut edits = Edits::new();
    for given in &args.packages {
        let name = declare::package_name(given);
        if !editor.remove_dependency(&name) {
            let known: Vec<&str> = project
                .manifest
                .manifest
                .dependencies
                .keys()
                .map(String::as_str)
                .collect();
            let hint = match crate::util::suggest::closest(&name, known.iter().copied()) {
                Some(close) => format!("did you mean `{close}`?"),
                None => format!("dependencies are: {}", list_or_none(&known)),
            };
            crate::bail_help!(help = hint, "`{name}` is not a dependency in {file}");
        }
        edits.push(("Removing".to_string(), format!("{name} from {file}")));
        // Exclusions of the package and of its servers go with it.
        let servers = project
            .lock
            .as_ref()
            .and_then(|l| l.get(&name))
            .map(|p| project.manifest.manifest.entry_names(&p.name, &p.servers))
            .unwrap_or_default();
        let hosts = project.manifest.manifest.host_ids();
        for excluded in std::iter::once(&name).chain(&servers) {
            editor.include(excluded, None)?;
            for host in &hosts {
                editor.include(excluded, Some(host))?;
            }
        }
    }
    let text = editor.render();
    let updated = project.manifest.with_text(&text)?;
    let relock = Relock {
        manifest_text: Some(text),
        options,
        edits,
        ..Relock::sync(&project, updated)
    };
    ops::relock_and_apply(settings, printer, &project, None, relock, |_, _, _| Ok(()))
}

fn list_or_none(names: &[&str]) -> String {
    if names.is_empty() {
        "none".to_string()
    } else {
        names.join(", ")
    }
}
