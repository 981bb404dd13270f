//! `dotpack info NAME[@REQ]`: a package's versions, servers, inputs and dependencies.

use anyhow::{Result, bail};
use semver::VersionReq;
use serde_json::json;

use crate::cli::InfoArgs;
use crate::commands::UsageError;
use crate::manifest::{Manifest, Server};
use crate::ops::packages::{unknown_package, versions_list};
use crate::ops::search::newest;
use crate::ops::{self, Settings};
use crate::output::Printer;
use crate::registry::{IndexLine, Refusal};

pub fn run(settings: &Settings, args: InfoArgs, printer: &Printer) -> Result<()> {
    let (name, req) = match args.package.split_once('@') {
        Some((n, r)) => match VersionReq::parse(r) {
            Ok(req) => (n, Some(req)),
            Err(e) => {
                return Err(UsageError(format!("`{r}` is not a version requirement ({e})")).into());
            }
        },
        None => (args.package.as_str(), None),
    };
    let name = &crate::commands::declare::package_name(name);
    let manifest = ops::optional_manifest(settings);
    let registries = ops::registries(settings, manifest.as_ref())?;
    // The registry the project names for this package, else --registry, else the first that
    // has it: the default one, then those under [registries].
    let dependency_registry = manifest
        .as_ref()
        .and_then(|m| m.manifest.dependencies.get(name.as_str()))
        .and_then(|d| d.registry())
        .map(str::to_string);
    let sources = match (
        ops::registry_flag(settings, manifest.as_ref()),
        dependency_registry,
    ) {
        (ops::RegistryFlag::Named(r), _) | (_, Some(r)) => vec![registries.named(&r, name)?],
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
        print_refused(printer, name, source.source_id(), &refused);
        return Ok(());
    }
    let chosen: Option<&IndexLine> = match &req {
        Some(req) => lines
            .iter()
            .filter(|l| req.matches(&l.vers))
            .max_by(|a, b| a.vers.cmp(&b.vers)),
        None => newest(&lines),
    };
    let Some(line) = chosen else {
        bail!(
            "no version of `{name}` matches `{}`\n  help: available: {}",
            args.package,
            versions_list(&lines)
        );
    };
    let manifest = crate::registry::load_package(source, name, &line.vers)?;
    if printer.json {
        let mut value = json_info(line, &lines, &manifest);
        if !refused.is_empty() {
            value["refused"] = refused_json(&refused);
        }
        printer.json_out(&value);
        return Ok(());
    }
    print_info(printer, line, &lines, &manifest);
    for r in &refused {
        printer.out(format!("cannot be installed: {} ({})", r.version, r.reason));
    }
    Ok(())
}

/// `[{"version", "reason"}]` of the versions a registry lists that dotpack cannot install.
fn refused_json(refused: &[Refusal]) -> serde_json::Value {
    refused
        .iter()
        .map(|r| json!({"version": r.version, "reason": r.reason}))
        .collect()
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

fn print_info(printer: &Printer, line: &IndexLine, lines: &[IndexLine], manifest: &Manifest) {
    printer.out(format!("{} {}", line.name, line.vers));
    if let Some(pkg) = &manifest.package {
        if let Some(d) = &pkg.description {
            printer.out(d);
        }
        for (label, value) in [
            ("homepage", &pkg.homepage),
            ("repository", &pkg.repository),
            ("license", &pkg.license),
        ] {
            if let Some(v) = value {
                printer.out(format!("{label}: {v}"));
            }
        }
        if !pkg.keywords.is_empty() {
            printer.out(format!("keywords: {}", pkg.keywords.join(", ")));
        }
    }
    printer.out(format!("versions: {}", versions_list(lines)));
    if !manifest.servers.is_empty() {
        printer.out("servers:");
        for (name, server) in &manifest.servers {
            printer.out(format!("  {name}: {}", describe_server(server)));
        }
    }
    if !manifest.inputs.is_empty() {
        printer.out("inputs (set with --set NAME=VALUE):");
        for (name, input) in &manifest.inputs {
            let mut notes = Vec::new();
            let ty = crate::inputs::type_of(input);
            if input.kind.is_some() || ty != crate::inputs::InputType::String {
                notes.push(match input.items.as_deref() {
                    Some(items) if ty == crate::inputs::InputType::Array => {
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
            printer.out(format!(
                "  {name}{notes}: {}",
                input.description.as_deref().unwrap_or("")
            ));
        }
    }
    if !line.deps.is_empty() {
        printer.out("dependencies:");
        for dep in &line.deps {
            printer.out(format!("  {} {}", dep.name, dep.req));
        }
    }
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

fn json_info(line: &IndexLine, lines: &[IndexLine], manifest: &Manifest) -> serde_json::Value {
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
