//! `dotpack verify [SERVER...] [--update]`: start every server with pinned tools and compare its
//! tools with the pins in dotpack.lock ([`crate::ops::verify`]). Any tool added, removed or
//! changed (a changed description called out), a server that cannot be reached, or an
//! `enabled_tools`/`disabled_tools` name that is not one of the server's tools fails the check
//! (exit 1). `--update` records the tools as they are now.

use anyhow::Result;
use serde_json::json;

use crate::commands::Reported;
use crate::ops::tool_pins::ToolChange;
use crate::ops::verify::{self, Check};
use crate::ops::{Project, Settings};
use crate::ui::printer::Printer;
use clap::Args;

/// `dotpack verify`: which servers, and whether to accept what changed.
#[derive(Debug, Args, Clone)]
pub struct VerifyArgs {
    /// Only these servers (default: every server with pinned tools)
    #[arg(value_name = "SERVER")]
    pub servers: Vec<String>,
    /// Accept the servers' tools as they are now: record the new pins in dotpack.lock
    #[arg(long)]
    pub update: bool,
    /// Seconds each server may take to start and answer `initialize`
    #[arg(long, value_name = "SECS")]
    pub timeout: Option<f64>,
}

pub fn run(settings: &Settings, args: &VerifyArgs, printer: &Printer) -> Result<()> {
    let project = Project::load(settings, printer)?;
    let (lock, servers) = verify::servers_to_verify(&project, &args.servers)?;
    let timeout = args.timeout.map(super::timeout_flag).transpose()?;
    let found = verify::verify(settings, printer, &project, &lock, &servers, timeout)?;
    for (server, check) in &found.checks {
        match check {
            Check::Failed(e) => printer.error(format!("cannot verify server `{server}`: {e}")),
            Check::Listed {
                tools,
                changes,
                unknown,
                described,
            } => {
                if !printer.json {
                    print_server(printer, server, *tools, changes, unknown, described);
                }
            }
        }
    }
    let (failed, mut changed) = (found.failed, found.changed);
    if printer.json {
        printer.json_out(
            &json!({ "schema": 1, "servers": found.report, "updated": args.update && changed }),
        );
    }
    if args.update && changed {
        verify::record_pins(settings, printer, &project, lock, found.new_pins)?;
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
    described: &std::collections::BTreeMap<String, String>,
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
            // What the model will be told now, to read before accepting it.
            if let Some(text) = described.get(change.tool()) {
                for line in text.lines() {
                    printer.out(format!("    | {line}"));
                }
            }
        }
    }
    for name in unknown {
        printer.error(format!("server `{server}`: {name}"));
    }
}
