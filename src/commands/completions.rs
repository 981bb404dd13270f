//! `dotpack completions SHELL` and `dotpack man [COMMAND]`: both generated from the clap
//! definition in [`crate::cli`], so they list exactly the commands and flags the parser accepts.

use anyhow::Result;
use clap::CommandFactory;

use crate::cli::{Cli, CompletionsArgs, ManArgs};
use crate::commands::UsageError;
use crate::output::Printer;

pub fn completions(args: CompletionsArgs, printer: &Printer) -> Result<()> {
    let mut command = Cli::command();
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut command, "dotpack", &mut script);
    printer.out_bytes(&script);
    Ok(())
}

pub fn man(args: ManArgs, printer: &Printer) -> Result<()> {
    let page = man_page(args.command.as_deref())?;
    printer.out_bytes(&page);
    Ok(())
}

/// The roff man page of dotpack (`None`) or of one command, by name or alias.
pub fn man_page(command: Option<&str>) -> Result<Vec<u8>> {
    let mut root = Cli::command();
    root.build();
    let page = match command {
        None => root,
        Some(name) => {
            let Some(sub) = root.find_subcommand(name) else {
                let names: Vec<&str> = root
                    .get_subcommands()
                    .map(|c| c.get_name())
                    .filter(|n| *n != "help")
                    .collect();
                let hint = crate::suggest::closest(name, names.iter().copied())
                    .map(|c| format!("did you mean `{c}`? "))
                    .unwrap_or_default();
                return Err(UsageError(format!(
                    "`{name}` is not a dotpack command\n  help: {hint}commands are: {}",
                    names.join(", ")
                ))
                .into());
            };
            // `dotpack-add(1)`, as git and cargo name the pages of their commands.
            let full = format!("dotpack-{}", sub.get_name());
            sub.clone()
                .name(full)
                .version(root.get_version().unwrap_or_default().to_string())
        }
    };
    let mut out = Vec::new();
    clap_mangen::Man::new(page).render(&mut out)?;
    Ok(out)
}
