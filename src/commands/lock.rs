//! `dotpack lock`: resolve and write dotpack.lock, keeping locked versions that still fit. It
//! succeeds from any lock dotpack wrote, and recovers a lock with git merge conflict markers.
//! With `--pin-tools` (or `[settings] pin_tools = true`) it also pins every server's tools.

use anyhow::Result;

use crate::cli::LockArgs;
use crate::ops::{self, Outcome, Project, Settings};
use crate::output::Printer;

pub fn run(settings: &Settings, args: &LockArgs, printer: &Printer) -> Result<()> {
    let project = Project::load(settings, printer)?;
    let registries = ops::registries(settings, Some(&project.manifest))?;
    let mut lock = ops::resolve_lock(
        &project.manifest,
        &registries,
        project.locked_versions(),
        project.lock.as_ref(),
    )?;
    let pin = args.pin_tools
        || project
            .manifest
            .manifest
            .settings
            .as_ref()
            .and_then(|s| s.pin_tools)
            .unwrap_or(false);
    if pin {
        let servers = crate::probe::server_names(&project.manifest.manifest, Some(&lock));
        let (pins, _) = super::verify::pin_servers(
            &project.manifest.manifest,
            &lock,
            &registries,
            &servers,
            None,
            printer,
        )?;
        lock.tools = pins;
    }
    ops::commit(
        settings,
        printer,
        Outcome {
            project: &project,
            manifest_text: None,
            lock,
            hosts: None,
            dry_run: args.dry.dry_run,
            edits: Vec::new(),
            no_hosts: false,
            staged: Vec::new(),
        },
    )
}
