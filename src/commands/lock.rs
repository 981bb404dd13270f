//! `dotpack lock`: resolve and write dotpack.lock, keeping locked versions that still fit. It
//! succeeds from any lock dotpack wrote, and recovers a lock with git merge conflict markers.
//! With `--pin-tools` it also pins every server's tools. `[settings] pin_tools = true` does too,
//! but only for servers the user approved starting: a committed setting alone never makes `lock`
//! start a program.

use std::borrow::Cow;

use crate::commands::args::DryRunArgs;
use anyhow::Result;
use clap::Args;

use crate::ops::{self, Project, Relock, Settings};
use crate::ui::printer::Printer;

#[derive(Debug, Args, Clone, Default)]
pub struct LockArgs {
    #[command(flatten)]
    pub dry: DryRunArgs,
    /// Also start every server and record the sha256 of each of its tools (name, description,
    /// input schema), for `dotpack verify` (always, with `[settings] pin_tools = true`)
    #[arg(long)]
    pub pin_tools: bool,
}

pub fn run(settings: &Settings, args: &LockArgs, printer: &Printer) -> Result<()> {
    let project = Project::load(settings, printer)?;
    let mut relock = Relock {
        mode: None,
        ..Relock::sync(&project, Cow::Borrowed(&project.manifest))
    };
    relock.options.dry_run = args.dry.dry_run;
    ops::relock_and_apply(
        settings,
        printer,
        &project,
        None,
        relock,
        |registries, lock, _| pin(settings, args, &project, registries, lock, printer),
    )
}

/// Pins every server's tools into `lock` when `--pin-tools` or `[settings] pin_tools` asks.
fn pin(
    settings: &Settings,
    args: &LockArgs,
    project: &Project,
    registries: &crate::resolve::RegistrySet,
    lock: &mut crate::model::lock::Lockfile,
    printer: &Printer,
) -> Result<()> {
    let servers = crate::ops::connect::server_names(&project.manifest.manifest, Some(lock));
    let pin =
        args.pin_tools || pin_by_setting(settings, project, registries, lock, &servers, printer)?;
    if pin {
        let (pins, _) = crate::ops::verify::pin_servers(
            &settings.dotpack_home,
            &project.manifest.manifest,
            lock,
            registries,
            &servers,
            None,
            printer,
        )?;
        // What was pinned is said, server by server, as `lock` says what it resolved.
        for (server, tools) in &pins {
            let names: Vec<&str> = tools.keys().map(String::as_str).collect();
            printer.status(
                "Pinned",
                format!(
                    "{server}: {} tool{} ({})",
                    names.len(),
                    if names.len() == 1 { "" } else { "s" },
                    names.join(", ")
                ),
            );
        }
        lock.tools = pins;
        if args.pin_tools {
            ops::record_starts(settings, project, registries, lock, &servers)?;
        }
    }
    Ok(())
}

/// Whether `[settings] pin_tools = true` pins this run: only when every server it would start is
/// approved (or `--trust`); otherwise it says so and the pins stay as they were.
fn pin_by_setting(
    settings: &Settings,
    project: &Project,
    registries: &crate::resolve::RegistrySet,
    lock: &crate::model::lock::Lockfile,
    servers: &[String],
    printer: &Printer,
) -> Result<bool> {
    let asked = project
        .manifest
        .manifest
        .settings
        .as_ref()
        .and_then(|s| s.pin_tools)
        .unwrap_or(false);
    if !asked {
        return Ok(false);
    }
    let open = ops::unapproved_starts(settings, project, registries, Some(lock), servers)?;
    if open.is_empty() {
        return Ok(true);
    }
    let open: Vec<&crate::ops::consent::Request> = open.iter().collect();
    printer.warning(crate::ops::consent::refusal_text(
        &open,
        "dotpack.toml ([settings] pin_tools = true)",
        "None was started, and the tools stay pinned as they were; `dotpack lock --pin-tools` starts them this once.",
    ));
    Ok(false)
}
