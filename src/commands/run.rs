//! `dotpack run`: the launcher hosts start for a server whose secrets they cannot give. It
//! reads no project: its arguments say everything, and the pin checks them.

use anyhow::Result;
use clap::Args;

use crate::ops::launch::{LaunchOptions, launch};

#[derive(Debug, Args, Clone)]
pub struct RunArgs {
    /// The digest dotpack computed over the command, its arguments and the secret names when it
    /// wrote the entry (`sha256:HEX`); a different command is refused
    #[arg(long, value_name = "DIGEST")]
    pub pin: Option<String>,
    /// Set the environment variable NAME from the secret NAME of the credential store, else
    /// from this environment (repeatable)
    #[arg(long = "secret", value_name = "NAME")]
    pub secrets: Vec<String>,
    /// Serve stdio as the remote (streamable HTTP) MCP server at URL instead of starting a
    /// command: every message is forwarded, with the --header values
    #[arg(long, value_name = "URL")]
    pub url: Option<String>,
    /// With --url: a header sent with every message, `NAME: VALUE`, where `{{env.NAME}}` is the
    /// value of --secret NAME (repeatable)
    #[arg(long = "header", value_name = "HEADER", requires = "url")]
    pub headers: Vec<String>,
    /// The server's program and its arguments, after `--`
    #[arg(
        last = true,
        required_unless_present = "url",
        conflicts_with = "url",
        value_name = "COMMAND"
    )]
    pub command: Vec<String>,
}

/// Returns only when the server could not be started (Unix), or with its exit code (elsewhere).
pub fn run(args: RunArgs) -> Result<i32> {
    launch(&LaunchOptions {
        pin: args.pin,
        secrets: args.secrets,
        url: args.url,
        headers: args.headers,
        command: args.command,
    })
}
