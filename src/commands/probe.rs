//! `dotpack probe SERVER` and `dotpack call SERVER TOOL`: start a server as its hosts would and
//! show what it offers, or call one of its tools.

use std::collections::BTreeMap;

use anyhow::{Context, Result};
use serde_json::{Value, json};

use crate::cli::{CallArgs, ProbeArgs, ServerArgs};
use crate::commands::{Reported, UsageError};
use crate::mcp::{Client, Tool};
use crate::ops::{self, Project, Settings};
use crate::output::Printer;
use crate::probe::Located;

pub fn probe(settings: &Settings, args: ProbeArgs, printer: &Printer) -> Result<()> {
    let located = locate(settings, &args.server, printer)?;
    let mut client = connect(&located, &args.server)?;
    let tools = client.list_tools()?;
    let info = client.info().clone();
    client.close();
    if printer.json {
        printer.json_out(&json!({
            "schema": 1,
            "server": located.server,
            "package": located.package,
            "serverInfo": { "name": info.name, "version": info.version },
            "protocolVersion": info.protocol_version,
            "capabilities": info.capabilities,
            "instructions": info.instructions,
            "tools": tools,
        }));
        return Ok(());
    }
    let label = if info.version.is_empty() {
        info.name.clone()
    } else {
        format!("{} {}", info.name, info.version)
    };
    printer.out(format!("server:       {} ({label})", located.server));
    printer.out(format!("protocol:     {}", info.protocol_version));
    printer.out(format!(
        "capabilities: {}",
        capability_names(&info.capabilities)
    ));
    print_tools(printer, &tools);
    Ok(())
}

pub fn call(settings: &Settings, mut args: CallArgs, printer: &Printer) -> Result<()> {
    let tool = match args.tool.take() {
        Some(tool) => tool,
        None if args.server.package.is_some() && args.server.name.is_some() => {
            args.server.name.take().unwrap_or_default()
        }
        None => {
            return Err(UsageError(
                "`dotpack call` needs a TOOL: dotpack call SERVER TOOL --args JSON".to_string(),
            )
            .into());
        }
    };
    let arguments: Value = match &args.args {
        None => json!({}),
        Some(text) => match serde_json::from_str::<Value>(text) {
            Ok(value @ Value::Object(_)) => value,
            Ok(_) => {
                return Err(UsageError(
                    "--args must be a JSON object, such as '{\"q\": \"mcp\"}'".to_string(),
                )
                .into());
            }
            Err(e) => return Err(UsageError(format!("--args is not JSON: {e}")).into()),
        },
    };
    let located = locate(settings, &args.server, printer)?;
    let mut client = connect(&located, &args.server)?;
    let result = client.call_tool(&tool, arguments)?;
    client.close();
    let failed = crate::mcp::is_error(&result);
    if printer.json {
        printer.json_out(&result);
    } else if !failed {
        printer.out(crate::mcp::result_text(&result));
    }
    if failed {
        let text = crate::mcp::result_text(&result);
        if printer.json {
            return Err(Reported(text).into());
        }
        anyhow::bail!(
            "tool `{tool}` of server `{}` failed: {text}",
            located.server
        );
    }
    Ok(())
}

/// The server `args` name, with the inputs it renders with.
pub fn locate(settings: &Settings, args: &ServerArgs, printer: &Printer) -> Result<Located> {
    if let Some(package) = &args.package {
        // The package the user names comes from the default registry, or the one `--registry`
        // names: never from one the project's dotpack.toml adds behind it.
        let manifest = ops::optional_manifest(settings).filter(|m| {
            matches!(
                ops::registry_flag(settings, Some(m)),
                ops::RegistryFlag::Named(_)
            )
        });
        let registries = ops::registries(settings, manifest.as_ref())?;
        let set = parse_set(&args.set)?;
        return crate::probe::from_registry(&registries, package, args.name.as_deref(), set);
    }
    let name = args.name.as_deref().unwrap_or_default();
    let project = Project::load(settings, printer)?;
    let registries = ops::registries(settings, Some(&project.manifest))?;
    let located = crate::probe::locate(
        &project.manifest.manifest,
        project.lock.as_ref(),
        &registries,
        name,
    )?;
    // The server's program, URL and the variables it reads come from the project's files.
    ops::check_starts(
        settings,
        printer,
        &project,
        &registries,
        project.lock.as_ref(),
        &[name.to_string()],
        "Nothing was started.",
    )?;
    Ok(located)
}

/// Starts `located` and runs the handshake.
pub fn connect(located: &Located, args: &ServerArgs) -> Result<Client> {
    let endpoint = crate::probe::endpoint(located, &crate::probe::process_env)?;
    let initialize = args.timeout.map(super::timeout_flag).transpose()?;
    let timeouts = crate::probe::timeouts(&located.def, initialize);
    Client::connect(&located.server, &endpoint, timeouts)
        .with_context(|| format!("cannot probe server `{}`", located.server))
}

fn parse_set(values: &[String]) -> Result<BTreeMap<String, String>> {
    let mut set = BTreeMap::new();
    for value in values {
        let Some((k, v)) = value.split_once('=') else {
            return Err(UsageError(format!("--set {value}: expected KEY=VALUE")).into());
        };
        set.insert(k.trim().to_string(), v.to_string());
    }
    Ok(set)
}

/// `tools, resources (subscribe), prompts`: the capability names a server declares.
fn capability_names(capabilities: &Value) -> String {
    let Some(map) = capabilities.as_object() else {
        return "none".to_string();
    };
    if map.is_empty() {
        return "none".to_string();
    }
    map.iter()
        .map(|(name, detail)| {
            let flags: Vec<&str> = detail
                .as_object()
                .into_iter()
                .flatten()
                .filter(|(_, v)| v.as_bool() == Some(true))
                .map(|(k, _)| k.as_str())
                .collect();
            if flags.is_empty() {
                name.clone()
            } else {
                format!("{name} ({})", flags.join(", "))
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn print_tools(printer: &Printer, tools: &[Tool]) {
    printer.out(format!("tools:        {}", tools.len()));
    let width = tools.iter().map(|t| t.name.len()).max().unwrap_or(0);
    for tool in tools {
        let summary = tool.summary();
        if summary.is_empty() {
            printer.out(format!("  {}", tool.name));
        } else {
            printer.out(format!("  {:width$}  {summary}", tool.name));
        }
    }
}
