//! One host file read for import: found at a scope (or given with `--file`), read inside its
//! fence, and its entries imported into canonical form.

use std::path::{Path, PathBuf};

use anyhow::{Result, bail};

use crate::formats::FormatError;
use crate::model::hosts::{HostAdapter, HostEnv, Scope};
use crate::plan::from_host::{Imported, import_entries};
use crate::ui::printer::Printer;

/// The warnings of an import, one line each.
pub fn print_warnings(printer: &Printer, imported: &Imported) {
    for w in &imported.warnings {
        printer.warning(format!("[{}] server `{}`: {}", w.code, w.server, w.message));
    }
}

/// One host file read for import.
pub struct Source {
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
                .map(|(s, p)| format!("--scope {s} reads {}", crate::ui::diag::display_path(&p)))
                .collect();
            let help = if others.is_empty() {
                "check that the host is set up here, or give the file with --file".to_string()
            } else {
                format!("{}, or give the file with --file", others.join("; "))
            };
            crate::bail_help!(
                help = help,
                "{} has no {scope}-scope config here: {} does not exist",
                host.name(),
                crate::ui::diag::display_path(&path)
            );
        }
        let fence = (scope == Scope::Project).then(|| crate::util::fence::Fence::project(root));
        Source::read(host, Some(scope), path, fence.as_ref())
    }

    /// Reads `path` as a file of `host`, never through a link out of `fence` (the project, for a
    /// project file; `None` for the user's own files and one given with `--file`).
    pub fn read(
        host: &'static HostAdapter,
        scope: Option<Scope>,
        path: PathBuf,
        fence: Option<&crate::util::fence::Fence>,
    ) -> Result<Source> {
        let display = crate::ui::diag::display_path(&path);
        let cap = match scope {
            Some(Scope::Project) => crate::util::fence::PROJECT_FILE_CAP,
            _ => crate::util::fence::USER_FILE_CAP,
        };
        let Some(text) = crate::util::fence::read_text(&path, fence, cap)? else {
            crate::bail_help!(
                help = format!("give the path of a {} config file", host.name()),
                "{display} does not exist"
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

/// The `--json` document of `dotpack import` (without `--into`): the servers read, their
/// warnings, and the project resource files `--into` would bring in.
pub fn json_report(
    source: &Source,
    imported: &Imported,
    resources: &super::import_resources::Scan,
) -> serde_json::Value {
    serde_json::json!({
        "host": source.host.id,
        "file": source.display,
        "servers": imported.servers,
        "warnings": imported.warnings,
        "resources": resources.found.iter().map(|f| serde_json::json!({
            "kind": f.kind,
            "name": f.name,
            "file": f.origin,
            "path": f.path,
        })).collect::<Vec<_>>(),
        "resource_warnings": resources.warnings,
    })
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
    Some(crate::ui::diag::line_column(text, offset))
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
