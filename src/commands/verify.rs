//! `dotpack verify [SERVER...] [--update]`: start every server with pinned tools and compare its
//! tools with the pins in dotpack.lock. Any tool added, removed or changed (a changed description
//! called out), a server that cannot be reached, or an `enabled_tools`/`disabled_tools` name that
//! is not one of the server's tools fails the check (exit 1). `--update` records the tools as
//! they are now.

use std::collections::BTreeMap;
use std::time::Duration;

use anyhow::{Result, bail};
use serde_json::json;

use crate::cli::VerifyArgs;
use crate::commands::{Reported, UsageError};
use crate::lock::{Lockfile, ToolPin};
use crate::manifest::Manifest;
use crate::mcp::{Client, Tool};
use crate::ops::{self, Outcome, Project, Settings};
use crate::output::Printer;
use crate::pins::{ToolChange, diff, pins_of, unknown_filter_names};
use crate::resolve::RegistrySet;

/// Pins per server, as the lock holds them.
pub type Pins = BTreeMap<String, BTreeMap<String, ToolPin>>;

/// What one server gave: its tools, or why it could not be reached.
pub struct Probed {
    pub server: String,
    pub outcome: Result<Vec<Tool>, String>,
    /// `enabled_tools`/`disabled_tools` names that are not tools of the server.
    pub unknown_names: Vec<String>,
}

/// Starts each of `servers` and lists its tools.
pub fn probe_servers(
    manifest: &Manifest,
    lock: &Lockfile,
    registries: &RegistrySet,
    servers: &[String],
    timeout: Option<Duration>,
) -> Vec<Probed> {
    servers
        .iter()
        .map(|server| {
            let outcome = (|| -> Result<(Vec<Tool>, Vec<String>)> {
                let located = crate::probe::locate(manifest, Some(lock), registries, server)?;
                let endpoint = crate::probe::endpoint(&located, &crate::probe::process_env)?;
                let timeouts = crate::probe::timeouts(&located.def, timeout);
                let mut client = Client::connect(server, &endpoint, timeouts)?;
                let tools = client.list_tools()?;
                client.close();
                let unknown = unknown_filter_names(&located.def, &tools);
                Ok((tools, unknown))
            })();
            match outcome {
                Ok((tools, unknown_names)) => Probed {
                    server: server.clone(),
                    outcome: Ok(tools),
                    unknown_names,
                },
                Err(e) => Probed {
                    server: server.clone(),
                    outcome: Err(format!("{e:#}")),
                    unknown_names: Vec::new(),
                },
            }
        })
        .collect()
}

/// The pins of every one of `servers` (for `dotpack lock --pin-tools`); a server that cannot be
/// reached fails the whole command, naming it. Filter names that are not tools are warned about.
pub fn pin_servers(
    manifest: &Manifest,
    lock: &Lockfile,
    registries: &RegistrySet,
    servers: &[String],
    timeout: Option<Duration>,
    printer: &Printer,
) -> Result<(Pins, Vec<Probed>)> {
    let probed = probe_servers(manifest, lock, registries, servers, timeout);
    let mut pins = Pins::new();
    for p in &probed {
        match &p.outcome {
            Ok(tools) => {
                pins.insert(p.server.clone(), pins_of(tools));
                for name in &p.unknown_names {
                    printer.warning(format!("server `{}`: {name}", p.server));
                }
            }
            Err(e) => bail!(
                "cannot pin the tools of server `{}`: {e}\n  help: nothing was written; fix the server (or its environment) and run the command again",
                p.server
            ),
        }
    }
    Ok((pins, probed))
}

pub fn run(settings: &Settings, args: &VerifyArgs, printer: &Printer) -> Result<()> {
    let project = Project::load(settings, printer)?;
    let Some(lock) = project.lock.clone() else {
        bail!(
            "there is no dotpack.lock, so no tools are pinned\n  help: run `dotpack lock --pin-tools`"
        );
    };
    if lock.tools.is_empty() {
        bail!(
            "dotpack.lock pins no tools\n  help: run `dotpack lock --pin-tools` (or set `[settings] pin_tools = true`) to pin them"
        );
    }
    let servers: Vec<String> = if args.servers.is_empty() {
        lock.tools.keys().cloned().collect()
    } else {
        for server in &args.servers {
            if !lock.tools.contains_key(server) {
                return Err(UsageError(format!(
                    "server `{server}` has no pinned tools\n  help: pinned servers: {}",
                    lock.tools.keys().cloned().collect::<Vec<_>>().join(", ")
                ))
                .into());
            }
        }
        args.servers.clone()
    };
    let timeout = args.timeout.map(super::timeout_flag).transpose()?;
    let registries = ops::registries(settings, Some(&project.manifest))?;
    ops::check_starts(
        settings,
        printer,
        &project,
        &registries,
        Some(&lock),
        &servers,
        "`dotpack verify` starts the pinned servers; none was started.",
    )?;
    let probed = probe_servers(
        &project.manifest.manifest,
        &lock,
        &registries,
        &servers,
        timeout,
    );
    let mut failed = false;
    let mut changed = false;
    let mut report = Vec::new();
    let mut new_pins = lock.tools.clone();
    for p in &probed {
        let empty = BTreeMap::new();
        let pinned = lock.tools.get(&p.server).unwrap_or(&empty);
        match &p.outcome {
            Err(e) => {
                failed = true;
                printer.error(format!("cannot verify server `{}`: {e}", p.server));
                report.push(json!({ "server": p.server, "status": "failed", "error": e }));
            }
            Ok(tools) => {
                let now = pins_of(tools);
                let changes = diff(pinned, &now);
                changed |= !changes.is_empty();
                failed |= !p.unknown_names.is_empty();
                if !printer.json {
                    print_server(printer, &p.server, tools.len(), &changes, &p.unknown_names);
                }
                report.push(json!({
                    "server": p.server,
                    "status": if changes.is_empty() { "ok" } else { "changed" },
                    "changes": changes.iter().map(|c| json!({"tool": c.tool(), "change": c.kind()})).collect::<Vec<_>>(),
                    "unknown_filter_names": p.unknown_names,
                }));
                new_pins.insert(p.server.clone(), now);
            }
        }
    }
    if printer.json {
        printer.json_out(
            &json!({ "schema": 1, "servers": report, "updated": args.update && changed }),
        );
    }
    if args.update && changed {
        let mut lock = lock;
        lock.tools = new_pins;
        ops::commit(
            settings,
            printer,
            Outcome {
                project: &project,
                manifest_text: None,
                lock,
                hosts: None,
                dry_run: false,
                edits: vec![(
                    "Pinned".to_string(),
                    "the servers' tools as they are now".to_string(),
                )],
                no_hosts: false,
                staged: Vec::new(),
                imported: false,
            },
        )?;
        changed = false;
    }
    if failed || changed {
        let why = if changed {
            "tools changed since they were pinned; review them, then accept them with `dotpack verify --update`"
        } else {
            "verification failed"
        };
        if !printer.json {
            printer.error(why);
        }
        return Err(Reported(why.to_string()).into());
    }
    Ok(())
}

fn print_server(
    printer: &Printer,
    server: &str,
    count: usize,
    changes: &[ToolChange],
    unknown: &[String],
) {
    if changes.is_empty() {
        printer.status("Verified", format!("{server}: {count} tools as pinned"));
    } else {
        printer.out(format!(
            "{server}: {} change(s) since the tools were pinned",
            changes.len()
        ));
        for change in changes {
            printer.out(format!("  {change}"));
        }
    }
    for name in unknown {
        printer.error(format!("server `{server}`: {name}"));
    }
}
