//! `dotpack verify` and `dotpack lock --pin-tools`: start servers, list their tools, and compare
//! them with (or record them as) the pins in dotpack.lock.

use std::collections::BTreeMap;
use std::time::Duration;

use anyhow::Result;
use serde_json::json;

use crate::mcp::{Client, Tool};
use crate::model::lock::{Lockfile, ToolPin};
use crate::model::manifest::Manifest;
use crate::ops::tool_pins::{ToolChange, diff, pins_of, unknown_filter_names};
use crate::resolve::RegistrySet;
use crate::ui::printer::Printer;

use super::{Outcome, Project, Settings};

/// Pins per server, as the lock holds them.
pub type Pins = BTreeMap<String, BTreeMap<String, ToolPin>>;

/// What one server gave: its tools, or why it could not be reached.
pub struct Probed {
    pub server: String,
    pub outcome: Result<Vec<Tool>, String>,
    /// `enabled_tools`/`disabled_tools` names that are not tools of the server.
    pub unknown_names: Vec<String>,
}

/// Starts each of `servers` and lists its tools, recording their definitions in the tool cache
/// of `home` (`$DOTPACK_HOME`) for the gateway.
pub fn probe_servers(
    home: &std::path::Path,
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
                let located =
                    crate::ops::connect::locate(manifest, Some(lock), registries, server)?;
                let endpoint =
                    crate::ops::connect::endpoint(&located, &crate::ops::connect::process_env)?;
                let timeouts = crate::ops::connect::timeouts(&located.def, timeout);
                let mut client = Client::connect(server, &endpoint, timeouts)?;
                let tools = client.list_tools()?;
                client.close();
                crate::ops::tool_cache::store(home, &tools);
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
    home: &std::path::Path,
    manifest: &Manifest,
    lock: &Lockfile,
    registries: &RegistrySet,
    servers: &[String],
    timeout: Option<Duration>,
    printer: &Printer,
) -> Result<(Pins, Vec<Probed>)> {
    let probed = probe_servers(home, manifest, lock, registries, servers, timeout);
    let mut pins = Pins::new();
    for p in &probed {
        match &p.outcome {
            Ok(tools) => {
                pins.insert(p.server.clone(), pins_of(tools));
                for name in &p.unknown_names {
                    printer.warning(format!("server `{}`: {name}", p.server));
                }
            }
            Err(e) => crate::bail_help!(
                help = "nothing was written; fix the server (or its environment) and run the command again",
                "cannot pin the tools of server `{}`: {e}",
                p.server
            ),
        }
    }
    Ok((pins, probed))
}

/// The lock and the servers `dotpack verify` checks: `given`, else every server with pins.
pub fn servers_to_verify(project: &Project, given: &[String]) -> Result<(Lockfile, Vec<String>)> {
    let Some(lock) = project.lock.clone() else {
        crate::bail_help!(
            help = "run `dotpack lock --pin-tools`",
            "there is no dotpack.lock, so no tools are pinned"
        );
    };
    if lock.tools.is_empty() {
        crate::bail_help!(
            help =
                "run `dotpack lock --pin-tools` (or set `[settings] pin_tools = true`) to pin them",
            "dotpack.lock pins no tools"
        );
    }
    if given.is_empty() {
        let servers = lock.tools.keys().cloned().collect();
        return Ok((lock, servers));
    }
    for server in given {
        if !lock.tools.contains_key(server) {
            return Err(crate::util::error::Error::usage(format!(
                "server `{server}` has no pinned tools"
            ))
            .help(format!(
                "pinned servers: {}",
                lock.tools.keys().cloned().collect::<Vec<_>>().join(", ")
            ))
            .into());
        }
    }
    Ok((lock, given.to_vec()))
}

/// What verifying one server found.
pub enum Check {
    /// It could not be reached.
    Failed(String),
    /// Its tools (how many), what changed since they were pinned, and filter names that are not
    /// tools.
    Listed {
        tools: usize,
        changes: Vec<ToolChange>,
        unknown: Vec<String>,
        /// The description each tool whose description changed has now: the pin keeps only
        /// its hash, so this is what the user reviews before accepting it.
        described: BTreeMap<String, String>,
    },
}

/// What `dotpack verify` found, server by server, and the pins as the tools are now.
pub struct Verification {
    pub checks: Vec<(String, Check)>,
    pub report: Vec<serde_json::Value>,
    pub new_pins: Pins,
    pub failed: bool,
    pub changed: bool,
}

/// Starts each of `servers` (once their starts are approved) and compares its tools with the
/// pins in `lock`.
pub fn verify(
    settings: &Settings,
    printer: &Printer,
    project: &Project,
    lock: &Lockfile,
    servers: &[String],
    timeout: Option<Duration>,
) -> Result<Verification> {
    let registries = super::registries(settings, Some(&project.manifest))?;
    super::check_starts(
        settings,
        printer,
        project,
        &registries,
        Some(lock),
        servers,
        "`dotpack verify` starts the pinned servers; none was started.",
    )?;
    let probed = probe_servers(
        &settings.dotpack_home,
        &project.manifest.manifest,
        lock,
        &registries,
        servers,
        timeout,
    );
    let mut found = Verification {
        checks: Vec::new(),
        report: Vec::new(),
        new_pins: lock.tools.clone(),
        failed: false,
        changed: false,
    };
    for p in probed {
        let empty = BTreeMap::new();
        let pinned = lock.tools.get(&p.server).unwrap_or(&empty);
        match &p.outcome {
            Err(e) => {
                found.failed = true;
                found
                    .report
                    .push(json!({ "server": p.server, "status": "failed", "error": e }));
                found.checks.push((p.server, Check::Failed(e.clone())));
            }
            Ok(tools) => {
                let now = pins_of(tools);
                let changes = diff(pinned, &now);
                let described = newly_described(&changes, tools);
                found.changed |= !changes.is_empty();
                found.failed |= !p.unknown_names.is_empty();
                found.report.push(json!({
                    "server": p.server,
                    "status": if changes.is_empty() { "ok" } else { "changed" },
                    "changes": changes.iter().map(|c| {
                        let mut change = json!({"tool": c.tool(), "change": c.kind()});
                        if let Some(text) = described.get(c.tool()) {
                            change["description"] = json!(text);
                        }
                        change
                    }).collect::<Vec<_>>(),
                    "unknown_filter_names": p.unknown_names,
                }));
                found.new_pins.insert(p.server.clone(), now);
                let (tools, unknown) = (tools.len(), p.unknown_names);
                found.checks.push((
                    p.server,
                    Check::Listed {
                        tools,
                        changes,
                        unknown,
                        described,
                    },
                ));
            }
        }
    }
    Ok(found)
}

/// The descriptions of the tools among `changes` that are new or newly described, by tool: what
/// a reviewer reads before `--update` records them.
fn newly_described(changes: &[ToolChange], tools: &[Tool]) -> BTreeMap<String, String> {
    changes
        .iter()
        .filter(|c| matches!(c, ToolChange::Description(_) | ToolChange::Added(_)))
        .filter_map(|c| {
            let tool = tools.iter().find(|t| t.name == c.tool())?;
            Some((
                tool.name.clone(),
                tool.description.clone().unwrap_or_default(),
            ))
        })
        .collect()
}

/// `--update`: records `pins` in the lock as the servers' tools are now.
pub fn record_pins(
    settings: &Settings,
    printer: &Printer,
    project: &Project,
    mut lock: Lockfile,
    pins: Pins,
) -> Result<()> {
    lock.tools = pins;
    super::commit(
        settings,
        printer,
        Outcome {
            project,
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
    )
}
