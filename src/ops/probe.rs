//! `dotpack probe` and `dotpack call`: the server to start (a package's, or one of the
//! project's, once approved), and the handshake.

use std::collections::BTreeMap;

use anyhow::{Context, Result};
use serde_json::Value;

use crate::mcp::Client;
use crate::ops::connect::Located;
use crate::ui::printer::Printer;

use super::{Project, Settings};

/// The server `args` name, with the inputs it renders with.
/// `package` names it (from the default registry, or the one `--registry` names); else
/// `name` is one of the project's servers, whose start must be approved.
pub fn locate(
    settings: &Settings,
    printer: &Printer,
    package: Option<&str>,
    name: Option<&str>,
    set: &[String],
) -> Result<Located> {
    if let Some(package) = package {
        // The package the user names comes from the default registry, or the one `--registry`
        // names: never from one the project's dotpack.toml adds behind it.
        let manifest = super::optional_manifest(settings).filter(|m| {
            matches!(
                super::registry_flag(settings, Some(m)),
                super::RegistryFlag::Named(_)
            )
        });
        let registries = super::registries(settings, manifest.as_ref())?;
        let set = parse_set(set)?;
        return crate::ops::connect::from_registry(&registries, package, name, set);
    }
    let name = name.unwrap_or_default();
    let project = Project::load(settings, printer)?;
    let registries = super::registries(settings, Some(&project.manifest))?;
    let located = crate::ops::connect::locate(
        &project.manifest.manifest,
        project.lock.as_ref(),
        &registries,
        name,
    )?;
    // The server's program, URL and the variables it reads come from the project's files.
    super::check_starts(
        settings,
        printer,
        &project,
        &registries,
        project.lock.as_ref(),
        &[name.to_string()],
        "Nothing was started.",
    )?;
    Ok(located)
}

/// Starts `located` and runs the handshake.
pub fn connect(located: &Located, initialize: Option<std::time::Duration>) -> Result<Client> {
    let endpoint = crate::ops::connect::endpoint(located, &crate::ops::connect::process_env)?;
    let timeouts = crate::ops::connect::timeouts(&located.def, initialize);
    Client::connect(&located.server, &endpoint, timeouts)
        .with_context(|| format!("cannot probe server `{}`", located.server))
}

fn parse_set(values: &[String]) -> Result<BTreeMap<String, String>> {
    let mut set = BTreeMap::new();
    for value in values {
        let Some((k, v)) = value.split_once('=') else {
            return Err(crate::util::error::Error::usage(format!(
                "--set {value}: expected KEY=VALUE"
            ))
            .into());
        };
        set.insert(k.trim().to_string(), v.to_string());
    }
    Ok(set)
}

/// `tools, resources (subscribe), prompts`: the capability names a server declares.
pub fn capability_names(capabilities: &Value) -> String {
    let Some(map) = capabilities.as_object() else {
        return "none".to_string();
    };
    if map.is_empty() {
        return "none".to_string();
    }
    map.iter()
        .map(|(name, detail)| {
            let flags: Vec<&str> = detail
                .as_object()
                .into_iter()
                .flatten()
                .filter(|(_, v)| v.as_bool() == Some(true))
                .map(|(k, _)| k.as_str())
                .collect();
            if flags.is_empty() {
                name.clone()
            } else {
                format!("{name} ({})", flags.join(", "))
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}
