//! `dotpack secret set|list|rm`: the user's secrets in the OS credential store. A value is read
//! from the terminal without echo, or from stdin when stdin is not a terminal; never from an
//! argument, which other users could read in `ps` and the shell would keep in its history.

use std::io::{IsTerminal, Read};

use anyhow::{Context, Result};
use clap::{Args, Subcommand};

use crate::ops::secrets;
use crate::ui::printer::Printer;

#[derive(Debug, Subcommand)]
pub enum SecretCommand {
    /// Store a secret: its value is read from the terminal without echo, or from stdin
    #[command(
        after_help = "Examples:\n  dotpack secret set GITHUB_PERSONAL_ACCESS_TOKEN\n  printf %s \"$TOKEN\" | dotpack secret set GITHUB_PERSONAL_ACCESS_TOKEN"
    )]
    Set(SecretName),
    /// List the names of the stored secrets (never their values)
    #[command(after_help = "Examples:\n  dotpack secret list\n  dotpack secret list --json")]
    List,
    /// Delete a stored secret
    #[command(after_help = "Examples:\n  dotpack secret rm GITHUB_PERSONAL_ACCESS_TOKEN")]
    Rm(SecretName),
}

#[derive(Debug, Args)]
pub struct SecretName {
    /// The secret's name, as an environment variable is named: the launcher (`dotpack run
    /// --secret NAME`) sets it under this name in the server's environment
    #[arg(value_name = "NAME")]
    pub name: String,
}

pub fn run(command: SecretCommand, printer: &Printer) -> Result<()> {
    match command {
        SecretCommand::Set(SecretName { name }) => {
            secrets::check_name(&name)?;
            let value = read_value(&name)?;
            secrets::set(&name, &value)?;
            printer.status("Stored", format!("secret {name} in the credential store"));
        }
        SecretCommand::List => {
            let names = secrets::list()?;
            if printer.json {
                printer.json_out(&serde_json::json!({ "schema": 1, "secrets": names }));
            } else {
                for name in names {
                    printer.out(name);
                }
            }
        }
        SecretCommand::Rm(SecretName { name }) => {
            secrets::remove(&name)?;
            printer.status(
                "Removed",
                format!("secret {name} from the credential store"),
            );
        }
    }
    Ok(())
}

/// The value from the terminal (no echo) or all of stdin, less one final line ending.
fn read_value(name: &str) -> Result<String> {
    if std::io::stdin().is_terminal() {
        return rpassword::prompt_password(format!("Value of {name} (not shown): "))
            .context("cannot read the value from the terminal");
    }
    let mut value = String::new();
    std::io::stdin()
        .read_to_string(&mut value)
        .context("cannot read the value from stdin (it must be UTF-8 text)")?;
    let trimmed = value
        .strip_suffix("\r\n")
        .or_else(|| value.strip_suffix('\n'))
        .unwrap_or(&value);
    Ok(trimmed.to_string())
}
