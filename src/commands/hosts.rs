//! `dotpack hosts`: every host dotpack can write, whether it is in use here, and its file at each
//! scope. Everything comes from the adapter list, so a new adapter shows up here by itself.

use std::path::Path;

use anyhow::Result;
use serde::Serialize;

use crate::model::hosts::{ADAPTERS, HostAdapter, HostEnv, Scope};
use crate::ops::Settings;
use crate::ui::printer::Printer;

/// The `--json` shape, version 1.
#[derive(Serialize)]
struct HostsReport {
    schema: u32,
    /// The platform whose paths the files are (`linux`, `macos`, `windows`).
    platform: crate::model::hosts::Platform,
    hosts: Vec<HostRow>,
}

#[derive(Serialize)]
struct HostRow {
    id: &'static str,
    name: &'static str,
    format: crate::formats::Format,
    /// The key path of the servers' container, dotted.
    container: String,
    detected: bool,
    scopes: Vec<ScopeRow>,
    /// Other hosts' and shared files this host loads servers from too (pi's `.mcp.json`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    also_reads: Vec<AlsoRead>,
}

#[derive(Serialize)]
struct AlsoRead {
    scope: Scope,
    file: String,
    exists: bool,
}

#[derive(Serialize)]
struct ScopeRow {
    scope: Scope,
    file: String,
    exists: bool,
    detected: bool,
    /// Another host that writes the same file at this scope (declare only one of them).
    #[serde(skip_serializing_if = "Option::is_none")]
    same_file_as: Option<&'static str>,
}

pub fn run(settings: &Settings, printer: &Printer) -> Result<()> {
    let root = crate::ops::project_root(settings).unwrap_or_else(|| settings.cwd.clone());
    let env = &settings.host_env;
    let rows: Vec<HostRow> = ADAPTERS.iter().map(|h| host_row(h, &root, env)).collect();
    if printer.json {
        printer.json_out(&serde_json::to_value(HostsReport {
            schema: 1,
            platform: env.platform,
            hosts: rows,
        })?);
        return Ok(());
    }
    let width = ADAPTERS.iter().map(|a| a.id.len()).max().unwrap_or(0);
    for row in &rows {
        let mark = if row.detected { "*" } else { " " };
        printer.out(format!("{mark} {:width$}  {}", row.id, row.name));
        for s in &row.scopes {
            let state = if s.exists { "exists" } else { "absent" };
            let shared = s
                .same_file_as
                .map(|h| format!(", same file as {h}"))
                .unwrap_or_default();
            printer.out(format!(
                "  {:width$}    {:7} {} ({state}{shared})",
                "",
                s.scope.to_string(),
                s.file
            ));
        }
        for a in &row.also_reads {
            let state = if a.exists { "exists" } else { "absent" };
            printer.out(format!(
                "  {:width$}    {:7} {} ({state}, also read)",
                "",
                a.scope.to_string(),
                a.file
            ));
        }
    }
    printer
        .note("* detected here: its file or folder exists (`dotpack init` proposes these hosts)");
    printer.note(format!(
        "files where the hosts read them on {} (their variables, such as CODEX_HOME, applied)",
        env.platform
    ));
    Ok(())
}

/// What `hosts` says of `host` for the project at `root` in `env`.
fn host_row(host: &'static HostAdapter, root: &Path, env: &HostEnv) -> HostRow {
    let scopes: Vec<ScopeRow> = [Scope::Project, Scope::User]
        .into_iter()
        .filter_map(|scope| {
            let path = host.path(scope, root, env)?;
            Some(ScopeRow {
                scope,
                exists: path.is_file(),
                file: path.display().to_string(),
                detected: host.detected(scope, root, env),
                same_file_as: host.shares_file_with(scope).map(|h| h.id),
            })
        })
        .collect();
    HostRow {
        id: host.id,
        name: host.name(),
        format: host.format,
        container: host.container.display(),
        detected: scopes.iter().any(|s| s.detected),
        scopes,
        also_reads: host
            .also_reads()
            .iter()
            .map(|shared| {
                let path = shared.path(root, env);
                AlsoRead {
                    scope: shared.scope(),
                    exists: path.is_file(),
                    file: path.display().to_string(),
                }
            })
            .collect(),
    }
}
