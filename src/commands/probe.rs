//! `dotpack probe SERVER` and `dotpack call SERVER TOOL`: start a server as its hosts would and
//! show what it offers, or call one of its tools.

use anyhow::Result;
use serde_json::{Value, json};

use crate::commands::Reported;
use crate::commands::args::{CallArgs, ProbeArgs, ServerArgs};
use crate::mcp::Tool;
use crate::ops::Settings;
use crate::ops::probe;
use crate::ui::printer::Printer;

pub fn probe(settings: &Settings, args: ProbeArgs, printer: &Printer) -> Result<()> {
    let (located, mut client) = start(settings, printer, &args.server)?;
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
        probe::capability_names(&info.capabilities)
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
            return Err(crate::util::error::Error::usage(
                "`dotpack call` needs a TOOL: dotpack call SERVER TOOL --args JSON",
            )
            .into());
        }
    };
    let arguments: Value = match &args.args {
        None => json!({}),
        Some(text) => match serde_json::from_str::<Value>(text) {
            Ok(value @ Value::Object(_)) => value,
            Ok(_) => {
                return Err(crate::util::error::Error::usage(
                    "--args must be a JSON object, such as '{\"q\": \"mcp\"}'",
                )
                .into());
            }
            Err(e) => {
                return Err(
                    crate::util::error::Error::usage(format!("--args is not JSON: {e}")).into(),
                );
            }
        },
    };
    let (located, mut client) = start(settings, printer, &args.server)?;
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

/// The server `server` names, started, after its handshake.
fn start(
    settings: &Settings,
    printer: &Printer,
    server: &ServerArgs,
) -> Result<(crate::ops::connect::Located, crate::mcp::Client)> {
    let (package, name) = (server.package.as_deref(), server.name.as_deref());
    let located = probe::locate(settings, printer, package, name, &server.set)?;
    let timeout = server.timeout.map(super::timeout_flag).transpose()?;
    let client = probe::connect(&located, timeout)?;
    Ok((located, client))
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
