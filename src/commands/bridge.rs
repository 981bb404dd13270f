//! `dotpack bridge URL`: serve a plain HTTP tool service as a stdio MCP server, on this process's
//! stdin and stdout, until stdin ends.

use std::collections::BTreeMap;

use anyhow::Result;
use clap::Args;

use crate::mcp::bridge::{BridgeConfig, ToolFilter, serve};
use crate::ui::printer::Printer;

#[derive(Debug, Args, Clone)]
pub struct BridgeArgs {
    /// The tool service's base URL
    #[arg(value_name = "URL")]
    pub url: String,
    /// A header sent with every request to the service: --header K=V (repeatable)
    #[arg(long = "header", value_name = "NAME=VALUE")]
    pub headers: Vec<String>,
    /// A header whose value is read from an environment variable: --header-env
    /// Authorization=API_TOKEN (repeatable; how installed bridges get their secrets)
    #[arg(long = "header-env", value_name = "NAME=VAR")]
    pub header_env: Vec<String>,
    /// Text put before the value of a --header-env header: --header-prefix "Authorization=Bearer "
    #[arg(long = "header-prefix", value_name = "NAME=TEXT")]
    pub header_prefix: Vec<String>,
    /// Serve only this tool of the service (repeatable; `*` and `?` are wildcards): how a
    /// server's `enabled_tools` is written
    #[arg(long = "enable-tool", value_name = "NAME")]
    pub enable_tools: Vec<String>,
    /// Do not serve this tool (repeatable; `*` and `?` are wildcards; applied after
    /// --enable-tool): how a server's `disabled_tools` is written
    #[arg(long = "disable-tool", value_name = "NAME")]
    pub disable_tools: Vec<String>,
    /// Seconds one request to the service may take
    #[arg(long, value_name = "SECS", default_value_t = 30.0)]
    pub timeout: f64,
}

pub fn run(args: BridgeArgs, printer: &Printer) -> Result<()> {
    if crate::urls::parse_http(&args.url).is_none() {
        return Err(crate::util::error::Error::usage(format!(
            "`{}` is not an http(s) URL",
            args.url
        ))
        .into());
    }
    let timeout = super::timeout_flag(args.timeout)?;
    let mut headers = BTreeMap::new();
    for header in &args.headers {
        let (name, value) = split(header, "--header")?;
        headers.insert(name, value);
    }
    let mut prefixes = BTreeMap::new();
    for prefix in &args.header_prefix {
        let (name, text) = split(prefix, "--header-prefix")?;
        prefixes.insert(name, text);
    }
    for header in &args.header_env {
        let (name, var) = split(header, "--header-env")?;
        match std::env::var(&var) {
            Ok(value) => {
                let prefix = prefixes.get(&name).map(String::as_str).unwrap_or("");
                headers.insert(name, format!("{prefix}{value}"));
            }
            Err(_) => printer.warning(format!(
                "dotpack bridge: header `{name}` is not sent: the environment variable {var} is not set"
            )),
        }
    }
    let config = BridgeConfig {
        url: args.url.clone(),
        headers,
        timeout,
        tools: ToolFilter {
            enabled: (!args.enable_tools.is_empty()).then(|| args.enable_tools.clone()),
            disabled: args.disable_tools.clone(),
        },
    };
    let stdin = std::io::stdin().lock();
    serve(config, stdin, std::io::stdout(), std::io::stderr())?;
    Ok(())
}

fn split(text: &str, flag: &str) -> Result<(String, String)> {
    match text.split_once('=') {
        Some((name, value)) if !name.trim().is_empty() => {
            Ok((name.trim().to_string(), value.to_string()))
        }
        _ => Err(
            crate::util::error::Error::usage(format!("{flag} {text}: expected NAME=VALUE")).into(),
        ),
    }
}
