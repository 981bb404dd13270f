//! `dotpack info`: a package's versions, servers, inputs and dependencies, from the registry the
//! project names for it, else `--registry`, else the first that has it.

use anyhow::{Result, bail};
use semver::VersionReq;
use serde_json::json;

use crate::model::manifest::{Manifest, Server};
use crate::registry::{IndexLine, Refusal};

use super::Settings;
use super::packages::{unknown_package, versions_list};
use super::search::newest;

/// What the registry says of a package.
pub enum Info {
    /// It lists the package, but dotpack can install none of its versions.
    Refused {
        source_id: String,
        refused: Vec<Refusal>,
    },
    /// The version chosen, every version listed, the chosen version's manifest, the versions
    /// dotpack cannot install, and the registry's own spelling of the name when it differs from
    /// dotpack's lowercase one.
    Found {
        line: Box<IndexLine>,
        lines: Vec<IndexLine>,
        manifest: Box<Manifest>,
        refused: Vec<Refusal>,
        registry_name: Option<String>,
    },
}

/// What the registry says of `name` (as given: an MCP Registry name keeps its case), at the
/// newest version `req` allows (else the newest). `given` is the package as the command line
/// wrote it, for messages.
pub fn info(
    settings: &Settings,
    name: &str,
    req: Option<&VersionReq>,
    given: &str,
) -> Result<Info> {
    let manifest = super::optional_manifest(settings);
    let registries = super::registries(settings, manifest.as_ref())?;
    // The registry the project names for this package, else --registry, else the first that
    // has it: the default one, then those under [registries]; an MCP Registry name only in
    // the MCP registries, so a name none of them has is reported against them.
    let dependency_registry = manifest
        .as_ref()
        .and_then(|m| {
            m.manifest
                .dependencies
                .get(&super::declare::package_name(name))
        })
        .and_then(|d| d.registry())
        .map(str::to_string);
    let sources = match (
        super::registry_flag(settings, manifest.as_ref()),
        dependency_registry,
    ) {
        (super::RegistryFlag::Named(r), _) | (_, Some(r)) => vec![registries.named(&r, name)?],
        _ if crate::registry::mcp::is_registry_name(name) => {
            super::packages::mcp_registries(&registries, name)?
                .into_iter()
                .map(|(_, source)| source)
                .collect()
        }
        _ => registries.all(),
    };
    let mut found = None;
    for source in &sources {
        if let Some(lines) = source.versions(name)? {
            found = Some((*source, lines));
            break;
        }
    }
    let Some((source, lines)) = found else {
        bail!("{}", unknown_package(name, sources[0])?);
    };
    let refused = source.refused(name);
    if lines.is_empty() && !refused.is_empty() {
        let source_id = source.source_id().to_string();
        return Ok(Info::Refused { source_id, refused });
    }
    let chosen: Option<&IndexLine> = match req {
        Some(req) => lines
            .iter()
            .filter(|l| req.matches(&l.vers))
            .max_by(|a, b| a.vers.cmp(&b.vers)),
        None => newest(&lines),
    };
    let Some(line) = chosen else {
        crate::bail_help!(
            help = format!("available: {}", versions_list(&lines)),
            "no version of `{name}` matches `{given}`"
        );
    };
    let manifest = Box::new(crate::registry::load_package(source, name, &line.vers)?);
    Ok(Info::Found {
        registry_name: source.registry_name(&line.name),
        line: Box::new(line.clone()),
        lines: lines.to_vec(),
        manifest,
        refused,
    })
}

/// `[{"version", "reason"}]` of the versions a registry lists that dotpack cannot install.
pub fn refused_json(refused: &[Refusal]) -> serde_json::Value {
    refused
        .iter()
        .map(|r| json!({"version": r.version, "reason": r.reason}))
        .collect()
}

/// Lines of text, as `printer.out` would print them.
struct Lines(Vec<String>);

impl Lines {
    fn push(&mut self, line: impl std::fmt::Display) {
        self.0.push(line.to_string());
    }
}

/// What `dotpack info` says of `line` (one of `lines`, whose manifest is `manifest`), line by
/// line.
pub fn info_lines(line: &IndexLine, lines: &[IndexLine], manifest: &Manifest) -> Vec<String> {
    let mut printer = Lines(Vec::new());
    printer.push(format!("{} {}", line.name, line.vers));
    if let Some(pkg) = &manifest.package {
        if let Some(d) = &pkg.description {
            printer.push(d);
        }
        for (label, value) in [
            ("homepage", &pkg.homepage),
            ("repository", &pkg.repository),
            ("license", &pkg.license),
        ] {
            if let Some(v) = value {
                printer.push(format!("{label}: {v}"));
            }
        }
        if !pkg.keywords.is_empty() {
            printer.push(format!("keywords: {}", pkg.keywords.join(", ")));
        }
    }
    printer.push(format!("versions: {}", versions_list(lines)));
    if !manifest.servers.is_empty() {
        printer.push("servers:");
        for (name, server) in &manifest.servers {
            printer.push(format!("  {name}: {}", describe_server(server)));
        }
    }
    if !manifest.inputs.is_empty() {
        printer.push("inputs (set with --set NAME=VALUE):");
        for (name, input) in &manifest.inputs {
            let mut notes = Vec::new();
            let ty = crate::model::inputs::type_of(input);
            if input.kind.is_some() || ty != crate::model::inputs::InputType::String {
                notes.push(match input.items.as_deref() {
                    Some(items) if ty == crate::model::inputs::InputType::Array => {
                        format!("array of {items}")
                    }
                    _ => ty.name().to_string(),
                });
            }
            if let Some(allowed) = &input.allowed {
                let list: Vec<String> = allowed.iter().map(ToString::to_string).collect();
                notes.push(format!("one of {}", list.join(", ")));
            }
            if input.required {
                notes.push("required".to_string());
            }
            if input.secret {
                notes.push("secret".to_string());
            }
            if let Some(d) = &input.default {
                notes.push(format!("default {d}"));
            }
            let notes = if notes.is_empty() {
                String::new()
            } else {
                format!(" [{}]", notes.join(", "))
            };
            printer.push(format!(
                "  {name}{notes}: {}",
                input.description.as_deref().unwrap_or("")
            ));
        }
    }
    if !line.deps.is_empty() {
        printer.push("dependencies:");
        for dep in &line.deps {
            printer.push(format!("  {} {}", dep.name, dep.req));
        }
    }
    printer.0
}

/// `stdio: npx -y pkg` or `http: https://...`.
fn describe_server(server: &Server) -> String {
    match (&server.command, &server.url) {
        (Some(cmd), _) => {
            let args = server.args.as_deref().unwrap_or_default().join(" ");
            format!("stdio: {cmd} {args}").trim_end().to_string()
        }
        (None, Some(url)) => format!("http: {url}"),
        (None, None) => "no transport".to_string(),
    }
}

pub fn json_info(line: &IndexLine, lines: &[IndexLine], manifest: &Manifest) -> serde_json::Value {
    json!({
        "name": line.name,
        "version": line.vers.to_string(),
        "package": manifest.package,
        "versions": lines.iter().map(|l| json!({"version": l.vers.to_string(), "yanked": l.yanked})).collect::<Vec<_>>(),
        "servers": manifest.servers,
        "inputs": manifest.inputs,
        "dependencies": line.deps.iter().map(|d| json!({"name": d.name, "req": d.req.to_string()})).collect::<Vec<_>>(),
    })
}
