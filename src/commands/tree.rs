//! `dotpack tree [NAME] [--invert NAME] [--depth N]`: the locked packages as a tree of
//! dependencies, each with its servers and the hosts they are installed in (from the claims).
//! `dotpack why NAME`: every path from a declared dependency down to a locked package.
//!
//! Both read `dotpack.lock` and the claims only: no registry, no host file ([`ops::tree`]).

use anyhow::Result;
use clap::Args;

use crate::ops::tree::{self as ops_tree, TreeOptions, TreeView, locked};
use crate::ops::{self, Project, Settings};
use crate::ui::printer::Printer;

#[derive(Debug, Args, Clone)]
pub struct WhyArgs {
    /// A locked package
    #[arg(value_name = "NAME")]
    pub package: String,
}

#[derive(Debug, Args, Clone)]
pub struct TreeArgs {
    /// Show only this package's tree (default: every declared package)
    #[arg(value_name = "NAME")]
    pub package: Option<String>,
    /// Show what depends on NAME instead, up to the declared packages
    #[arg(long, short = 'i', value_name = "NAME", conflicts_with = "package")]
    pub invert: Option<String>,
    /// Show at most N levels below the top (0: the top packages only)
    #[arg(long, value_name = "N")]
    pub depth: Option<usize>,
}

pub fn tree(settings: &Settings, args: TreeArgs, printer: &Printer) -> Result<()> {
    let project = Project::load(settings, printer)?;
    let lock = locked(&project, printer)?;
    let options = TreeOptions {
        package: args.package,
        invert: args.invert,
        depth: args.depth,
        json: printer.json,
    };
    match ops_tree::tree(&project, lock, &options)? {
        TreeView::Report(report) => printer.json_out(&serde_json::to_value(report)?),
        TreeView::Lines(lines) => {
            if lines.is_empty() {
                printer.note("no packages are declared in dotpack.toml");
            }
            for line in lines {
                printer.out(line);
            }
        }
    }
    Ok(())
}

pub fn why(settings: &Settings, args: WhyArgs, printer: &Printer) -> Result<()> {
    let project = Project::load(settings, printer)?;
    let lock = locked(&project, printer)?;
    let (report, lines) = ops::tree::why(&project, lock, &args.package)?;
    if printer.json {
        printer.json_out(&serde_json::to_value(report)?);
        return Ok(());
    }
    for line in lines {
        printer.out(line);
    }
    Ok(())
}
