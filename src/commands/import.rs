//! `dotpack import HOST [--scope S] [--file PATH] [--json] [--into]`: read the servers a host
//! already has and print them in canonical form (see [`crate::import`]), or with `--into` make
//! them the project's own servers (see `import_into`). The host file is only read.

use std::path::{Path, PathBuf};

use anyhow::{Result, bail};
use serde_json::json;

use crate::cli::ImportArgs;
use crate::formats::FormatError;
use crate::hosts::{HostAdapter, HostEnv, Scope};
use crate::import::{Imported, import_entries};
use crate::ops::Settings;
use crate::output::Printer;
use crate::targets::host_adapter;

pub fn run(settings: &Settings, args: ImportArgs, printer: &Printer) -> Result<()> {
    let host = host_adapter(&args.host.trim().to_ascii_lowercase())?;
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
        Some(Scope::Project) => project_resources(settings, printer, host, &root),
        _ => Default::default(),
    };
    if printer.json {
        printer.json_out(&json!({
            "host": host.id,
            "file": source.display,
            "servers": imported.servers,
            "warnings": imported.warnings,
            "resources": resources.found.iter().map(|f| json!({
                "kind": f.kind,
                "name": f.name,
                "file": f.origin,
                "path": f.path,
            })).collect::<Vec<_>>(),
            "resource_warnings": resources.warnings,
        }));
    } else {
        print_toml(printer, &source, &imported);
        print_resources(printer, host, &resources);
    }
    Ok(())
}

/// The host's project resource files `--into` would bring in, as `scan` finds them (against
/// the project's manifest and claims when there is one).
fn project_resources(
    settings: &Settings,
    printer: &Printer,
    host: &'static HostAdapter,
    root: &Path,
) -> super::import_resources::Scan {
    let project = crate::ops::project_root(settings)
        .and_then(|_| crate::ops::Project::load(settings, printer).ok());
    match &project {
        Some(p) => super::import_resources::scan(
            host,
            p.root(),
            &p.manifest.manifest,
            p.lock.as_ref().map_or(&[], |l| &l.files),
        ),
        None => {
            super::import_resources::scan(host, root, &crate::manifest::Manifest::default(), &[])
        }
    }
}

/// The resources found, as the `[KIND.NAME]` declarations `--into` would add.
fn print_resources(
    printer: &Printer,
    host: &'static HostAdapter,
    scan: &super::import_resources::Scan,
) {
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
    printer.data_out(crate::import::servers_toml(&imported.servers).trim_end());
    printer.status(
        "Imported",
        format!(
            "{n} server{} from {} ({})",
            if n == 1 { "" } else { "s" },
            source.display,
            source.host.name()
        ),
    );
    print_warnings(printer, imported);
}

pub(super) fn print_warnings(printer: &Printer, imported: &Imported) {
    for w in &imported.warnings {
        printer.warning(format!("[{}] server `{}`: {}", w.code, w.server, w.message));
    }
}

/// One host file read for import.
pub(super) struct Source {
    pub host: &'static HostAdapter,
    /// `None` for a file given with `--file`.
    pub scope: Option<Scope>,
    pub path: PathBuf,
    /// How messages name the file.
    pub display: String,
    pub text: String,
}

impl Source {
    /// The host's file at `scope`; without one, its project file when that exists, else its
    /// user file.
    pub fn at_scope(
        host: &'static HostAdapter,
        scope: Option<Scope>,
        root: &Path,
        env: &HostEnv,
    ) -> Result<Source> {
        let path_at = |s: Scope| host.path(s, root, env);
        let scope = match scope {
            Some(s) => s,
            None => match path_at(Scope::Project) {
                Some(p) if p.exists() => Scope::Project,
                _ if host.user_file.is_some() => Scope::User,
                _ => Scope::Project,
            },
        };
        let Some(path) = path_at(scope) else {
            bail!("{} has no {scope}-scope config file", host.name());
        };
        if !path.exists() {
            let others: Vec<String> = [Scope::Project, Scope::User]
                .into_iter()
                .filter(|s| *s != scope)
                .filter_map(|s| path_at(s).map(|p| (s, p)))
                .map(|(s, p)| format!("--scope {s} reads {}", crate::diag::display_path(&p)))
                .collect();
            let help = if others.is_empty() {
                "check that the host is set up here, or give the file with --file".to_string()
            } else {
                format!("{}, or give the file with --file", others.join("; "))
            };
            bail!(
                "{} has no {scope}-scope config here: {} does not exist\n  help: {help}",
                host.name(),
                crate::diag::display_path(&path)
            );
        }
        let fence = (scope == Scope::Project).then(|| crate::fence::Fence::project(root));
        Source::read(host, Some(scope), path, fence.as_ref())
    }

    /// Reads `path` as a file of `host`, never through a link out of `fence` (the project, for a
    /// project file; `None` for the user's own files and one given with `--file`).
    pub fn read(
        host: &'static HostAdapter,
        scope: Option<Scope>,
        path: PathBuf,
        fence: Option<&crate::fence::Fence>,
    ) -> Result<Source> {
        let display = crate::diag::display_path(&path);
        let cap = match scope {
            Some(Scope::Project) => crate::fence::PROJECT_FILE_CAP,
            _ => crate::fence::USER_FILE_CAP,
        };
        let Some(text) = crate::fence::read_text(&path, fence, cap)? else {
            bail!(
                "{display} does not exist\n  help: give the path of a {} config file",
                host.name()
            );
        };
        Ok(Source {
            host,
            scope,
            path,
            display,
            text,
        })
    }

    /// The file's entries, parsed and imported; an error names the file, line and column.
    pub fn import(&self) -> Result<Imported> {
        let container = self.host.container;
        match crate::formats::list_entries(self.host.format, &self.text, container) {
            Ok(entries) => Ok(import_entries(self.host, entries)),
            Err(e @ FormatError::Parse { .. }) => bail!("{}: {e}", self.display),
            Err(e) => match locate(&self.text, self.host.container.path) {
                Some((line, column)) => {
                    bail!("{}: line {line}, column {column}: {e}", self.display)
                }
                None => bail!("{}: {e}", self.display),
            },
        }
    }
}

/// Where the container's last key is written (`"mcpServers"`, `[mcp_servers]`, `mcp_servers =`),
/// for an error about its value: line and column, from 1.
fn locate(text: &str, container: &[&str]) -> Option<(usize, usize)> {
    let key = container.last()?;
    let offset = text
        .find(&format!("\"{key}\""))
        .or_else(|| text.find(&format!("[{key}")))
        .or_else(|| {
            text.match_indices(key)
                .map(|(i, _)| i)
                .find(|&i| text[..i].ends_with(['\n', '.', ' ', '\t']) || i == 0)
        })?;
    Some(crate::diag::line_column(text, offset))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_container_key_is_located() {
        assert_eq!(
            locate("{\n  \"mcpServers\": []\n}", &["mcpServers"]),
            Some((2, 3))
        );
        assert_eq!(
            locate("a = 1\nmcp_servers = 3\n", &["mcp_servers"]),
            Some((2, 1))
        );
        assert_eq!(locate("x", &["mcp_servers"]), None);
    }
}
