//! `dotpack import HOST [--scope S] [--file PATH] [--json] [--into]`: read the servers a host
//! already has and print them in canonical form (see [`crate::plan::from_host`]), or with `--into` make
//! them the project's own servers (see `import_into`). The host file is only read.

use std::path::PathBuf;

use anyhow::Result;
use clap::Args;

use crate::model::hosts::{HostAdapter, Scope};
use crate::ops::Settings;
use crate::ops::import_resources::Scan;
use crate::ops::import_source::{Source, json_report, print_warnings};
use crate::plan::from_host::Imported;
use crate::ui::printer::Printer;

#[derive(Debug, Args, Clone)]
pub struct ImportArgs {
    /// The host whose config to read (see `dotpack init` for the list)
    #[arg(value_name = "HOST")]
    pub host: String,
    /// Which of the host's files: `project` or `user` (default: the project file when it exists,
    /// else the user file)
    #[arg(long, value_enum, value_name = "SCOPE", conflicts_with = "file")]
    pub scope: Option<crate::model::hosts::Scope>,
    /// Read this file instead, in the host's format (read only)
    #[arg(long, value_name = "PATH")]
    pub file: Option<PathBuf>,
    /// Add the servers to dotpack.toml as the project's own, and claim the host's entries as
    /// they are (literal secrets become `{{env.NAME}}` references); the host's unclaimed
    /// commands, agents, skills and rules are copied under resources/ and declared too
    #[arg(long, conflicts_with = "file")]
    pub into: bool,
    /// With --into: show what would change, and write nothing
    #[arg(long, requires = "into")]
    pub dry_run: bool,
}

pub fn run(settings: &Settings, args: ImportArgs, printer: &Printer) -> Result<()> {
    let host = super::args::known_host(&args.host)?;
    if args.into {
        return super::import_into::run(settings, host, args.scope, args.dry_run, printer);
    }
    let root = crate::ops::project_root(settings).unwrap_or_else(|| settings.cwd.clone());
    let source = match &args.file {
        Some(file) => Source::read(host, None, settings.cwd.join(file), None)?,
        None => Source::at_scope(host, args.scope, &root, &settings.host_env)?,
    };
    let imported = source.import()?;
    let resources = match source.scope {
        Some(Scope::Project) => {
            crate::ops::import_resources::project_resources(settings, printer, host, &root)
        }
        _ => Default::default(),
    };
    if printer.json {
        printer.json_out(&json_report(&source, &imported, &resources));
    } else {
        print_toml(printer, &source, &imported);
        print_resources(printer, host, &resources);
    }
    Ok(())
}

/// The resources found, as the `[KIND.NAME]` declarations `--into` would add.
fn print_resources(printer: &Printer, host: &'static HostAdapter, scan: &Scan) {
    if !scan.found.is_empty() {
        let mut text = String::new();
        for f in &scan.found {
            text.push_str(&format!(
                "\n[{}.{}]  # from {}\npath = \"{}\"\n",
                f.kind.section(),
                f.name,
                f.origin,
                f.path
            ));
        }
        printer.out(text.trim_end());
        let n = scan.found.len();
        printer.status(
            "Found",
            format!(
                "{n} resource{} in the project's {} folders (`--into` copies them under resources/)",
                if n == 1 { "" } else { "s" },
                host.name()
            ),
        );
    }
    for w in &scan.warnings {
        printer.warning(w);
    }
}

fn print_toml(printer: &Printer, source: &Source, imported: &Imported) {
    let n = imported.servers.len();
    if n == 0 {
        printer.note(format!(
            "{} has no MCP servers under `{}`",
            source.display,
            source.host.container.display()
        ));
        return;
    }
    printer.data_out(crate::plan::from_host::servers_toml(&imported.servers).trim_end());
    printer.status(
        "Found",
        format!(
            "{n} server{} from {} ({})",
            if n == 1 { "" } else { "s" },
            source.display,
            source.host.name()
        ),
    );
    print_warnings(printer, imported);
}
