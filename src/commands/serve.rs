//! `dotpack serve`: the project's servers behind one stdio MCP server, on this process's stdin
//! and stdout, until stdin ends, or with `--http` behind a streamable-HTTP endpoint on loopback
//! ([`crate::ops::gateway`]). What a host runs for the one entry
//! `[project] gateway = true` installs.

use anyhow::Result;
use clap::Args;

use crate::ops::{Project, Settings};
use crate::ui::printer::Printer;

/// `dotpack serve`: how long a server may sit unused.
#[derive(Debug, Args, Clone)]
pub struct ServeArgs {
    /// Stop a server that has had no call for this many seconds (0: keep every server running
    /// until the host closes the gateway); its next call starts it again
    #[arg(long, value_name = "SECS", default_value_t = 300.0)]
    pub idle: f64,
    /// Serve MCP's streamable HTTP at http://ADDR/mcp instead of stdio; a loopback address
    /// only (127.0.0.1:PORT or [::1]:PORT; port 0 picks a free one, printed on stderr)
    #[arg(long, value_name = "ADDR")]
    pub http: Option<std::net::SocketAddr>,
}

pub fn run(settings: &Settings, args: &ServeArgs, printer: &Printer) -> Result<()> {
    if !(args.idle.is_finite() && args.idle >= 0.0) {
        return Err(crate::util::error::Error::usage(
            "--idle must be a number of seconds, 0 or more",
        )
        .into());
    }
    let idle =
        (args.idle > 0.0).then(|| std::time::Duration::from_secs_f64(args.idle.min(86_400.0)));
    if let Some(addr) = args.http.filter(|a| !a.ip().is_loopback()) {
        return Err(crate::util::error::Error::usage(format!(
            "--http {addr}: dotpack serve listens on a loopback address only, as anyone who reaches it can start the project's servers"
        ))
        .help(format!("use --http 127.0.0.1:{}", addr.port()))
        .into());
    }
    let project = Project::load(settings, printer)?;
    crate::ops::gateway::serve(settings, printer, &project, (idle, args.http))
}
