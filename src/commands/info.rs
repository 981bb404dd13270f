//! `dotpack info NAME[@REQ]`: a package's versions, servers, inputs and dependencies
//! ([`crate::ops::info`]).

use anyhow::Result;
use clap::Args;
use semver::VersionReq;
use serde_json::json;

use crate::ops::Settings;
use crate::ops::info::{self, Info, refused_json};
use crate::registry::Refusal;
use crate::ui::printer::Printer;

#[derive(Debug, Args, Clone)]
pub struct InfoArgs {
    /// Package name, optionally with a requirement: NAME[@REQ]
    #[arg(value_name = "NAME[@REQ]")]
    pub package: String,
}

pub fn run(settings: &Settings, args: InfoArgs, printer: &Printer) -> Result<()> {
    let (name, req) = match args.package.split_once('@') {
        Some((n, r)) => match VersionReq::parse(r) {
            Ok(req) => (n, Some(req)),
            Err(e) => {
                return Err(crate::util::error::Error::usage(format!(
                    "`{r}` is not a version requirement ({e})"
                ))
                .into());
            }
        },
        None => (args.package.as_str(), None),
    };
    let name = &crate::ops::declare::requested_name(name);
    let (line, lines, manifest, refused, registry_name) =
        match info::info(settings, name, req.as_ref(), &args.package)? {
            Info::Refused { source_id, refused } => {
                print_refused(printer, name, &source_id, &refused);
                return Ok(());
            }
            Info::Found {
                line,
                lines,
                manifest,
                refused,
                registry_name,
            } => (line, lines, manifest, refused, registry_name),
        };
    if printer.json {
        let mut value = info::json_info(&line, &lines, &manifest);
        if !refused.is_empty() {
            value["refused"] = refused_json(&refused);
        }
        if let Some(spelling) = &registry_name {
            value["registry_name"] = json!(spelling);
        }
        printer.json_out(&value);
        return Ok(());
    }
    for (i, text) in info::info_lines(&line, &lines, &manifest)
        .into_iter()
        .enumerate()
    {
        printer.out(text);
        if i == 0
            && let Some(spelling) = &registry_name
        {
            printer.out(format!("registry name: {spelling}"));
        }
    }
    for r in &refused {
        printer.out(format!("cannot be installed: {} ({})", r.version, r.reason));
    }
    Ok(())
}

/// A package the registry lists but dotpack cannot install: every version with the reason.
fn print_refused(printer: &Printer, name: &str, source_id: &str, refused: &[Refusal]) {
    if printer.json {
        printer.json_out(&json!({
            "name": name,
            "registry": source_id,
            "installable": false,
            "refused": refused_json(refused),
        }));
        return;
    }
    printer.out(format!("{name} (registry {source_id})"));
    printer.out("cannot be installed: dotpack installs nothing it cannot map without loss");
    for r in refused {
        printer.out(format!("  {}: {}", r.version, r.reason));
    }
}
