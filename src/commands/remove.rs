//! `dotpack remove NAME...`: drop dependencies from dotpack.toml and re-lock.

use anyhow::{Result, bail};

use crate::cli::{GlobalArgs, RemoveArgs};
use crate::manifest;
use crate::ops::{self, Finish, NoTargets, Project, Settings};
use crate::output::Printer;
use crate::plan::Mode;
use crate::project::ManifestEditor;

pub fn run(global: &GlobalArgs, args: RemoveArgs, printer: &Printer) -> Result<()> {
    let settings = Settings::from_global(global)?;
    let project = Project::load(&settings)?;
    let mut editor = ManifestEditor::parse(&project.manifest.path, &project.manifest.text)?;
    for name in &args.packages {
        if !editor.remove_dependency(name) {
            let known: Vec<&str> = project
                .manifest
                .manifest
                .dependencies
                .keys()
                .map(String::as_str)
                .collect();
            let hint = match crate::suggest::closest(name, known.iter().copied()) {
                Some(close) => format!("did you mean `{close}`?"),
                None => format!("dependencies are: {}", list_or_none(&known)),
            };
            bail!("`{name}` is not a dependency in dotpack.toml\n  help: {hint}");
        }
    }
    let text = editor.render();
    let updated = manifest::parse(&project.manifest.path, text.clone())?;
    let registries = ops::registries(&settings, Some(&updated))?;
    let lock = ops::resolve_lock(
        &updated,
        &registries,
        project.locked_versions(),
        project.lock.as_ref(),
    )?;
    ops::finish(
        &settings,
        printer,
        &project,
        &registries,
        Finish {
            manifest: &updated,
            manifest_text: Some(text),
            lock,
            args: &args.install,
            mode: Mode::Sync,
            no_targets: NoTargets::Warn,
        },
    )
}

fn list_or_none(names: &[&str]) -> String {
    if names.is_empty() {
        "none".to_string()
    } else {
        names.join(", ")
    }
}
