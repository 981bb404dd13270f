//! The project: finding `dotpack.toml`, and editing its `[dependencies]` in place so the user's
//! comments, order and formatting stay as they wrote them.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use toml_edit::{DocumentMut, Item, Table, value};

use crate::formats::text::{LineEndings, line_endings, split_bom};
use crate::model::hosts::Scope;
use crate::model::manifest::MANIFEST_FILE;
use crate::util::error::Error;

/// Finds the manifest: `explicit` when given, else `dotpack.toml` in `start` or its nearest
/// parent that has one (as Cargo finds Cargo.toml). Any entry of that name counts, so a FIFO or
/// a link out of the project is refused by loading it rather than skipped for a parent's.
pub fn find_manifest(explicit: Option<&Path>, start: &Path) -> Result<PathBuf> {
    if let Some(path) = explicit {
        let path = if path.is_dir() {
            path.join(MANIFEST_FILE)
        } else {
            path.to_path_buf()
        };
        if std::fs::symlink_metadata(&path).is_err() {
            return Err(Error::new(format!("{} does not exist", path.display()))
                .help("check --manifest-path, or run `dotpack init` to create one")
                .file(&path)
                .into());
        }
        return Ok(path);
    }
    for dir in start.ancestors() {
        let candidate = dir.join(MANIFEST_FILE);
        if std::fs::symlink_metadata(&candidate).is_ok_and(|m| !m.is_dir()) {
            return Ok(candidate);
        }
    }
    crate::bail_help!(
        help = "run `dotpack init` to create one here",
        "could not find {MANIFEST_FILE} in {} or any parent folder",
        start.display()
    )
}

/// `dotpack.toml` as an editable document that keeps every byte it does not change, its BOM
/// and its line endings included (toml_edit drops the one and writes LF only).
pub struct ManifestEditor {
    doc: DocumentMut,
    /// The UTF-8 BOM the file started with, or `""`.
    bom: &'static str,
    /// The file ended every line with CRLF, so rendered lines do too.
    crlf: bool,
}

impl ManifestEditor {
    /// Parses `text`; the caller has validated it already, so a failure here names the file.
    pub fn parse(path: &Path, text: &str) -> Result<Self> {
        let (bom, body) = split_bom(text);
        let doc = body
            .parse::<DocumentMut>()
            .with_context(|| format!("{} is not valid TOML", path.display()))?;
        Ok(ManifestEditor {
            doc,
            bom,
            crlf: line_endings(body) == LineEndings::Crlf,
        })
    }

    /// Sets dependency `name` to requirement `req`, keeping the entry's other keys (inline or
    /// table form), its position and its comments. New entries go at the end of `[dependencies]`.
    pub fn set_dependency(&mut self, name: &str, req: &str) -> Result<()> {
        let deps = self.dependencies_mut()?;
        match deps.get_mut(name) {
            Some(Item::Value(toml_edit::Value::InlineTable(t))) => {
                t.insert("version", req.into());
            }
            Some(Item::Table(t)) => {
                t.insert("version", value(req));
            }
            Some(item) => {
                let decor = item.as_value().map(|v| v.decor().clone());
                let mut new = toml_edit::Value::from(req);
                if let Some(decor) = decor {
                    *new.decor_mut() = decor;
                }
                *item = Item::Value(new);
            }
            None => {
                deps.insert(name, value(req));
            }
        }
        Ok(())
    }

    /// Sets `set.KEY = VALUE` inputs on dependency `name`, turning `name = "req"` into the
    /// inline form `name = { version = "req", set = { ... } }` when needed.
    pub fn set_inputs(&mut self, name: &str, inputs: &[(String, toml::Value)]) -> Result<()> {
        if inputs.is_empty() {
            return Ok(());
        }
        let deps = self.dependencies_mut()?;
        let Some(item) = deps.get_mut(name) else {
            bail!("dependency `{name}` is not in [dependencies]");
        };
        inline_dependency(item);
        let set = match item {
            Item::Value(toml_edit::Value::InlineTable(t)) => t
                .entry("set")
                .or_insert(toml_edit::Value::InlineTable(Default::default())),
            Item::Table(t) => t
                .entry("set")
                .or_insert(Item::Value(toml_edit::Value::InlineTable(
                    Default::default(),
                )))
                .as_value_mut()
                .context("`set` must be an inline table")?,
            _ => bail!("dependency `{name}` has an unexpected shape"),
        };
        let Some(set) = set.as_inline_table_mut() else {
            bail!("`dependencies.{name}.set` must be an inline table");
        };
        for (k, v) in inputs {
            let value: toml_edit::Value = v
                .to_string()
                .parse()
                .with_context(|| format!("the value of input `{k}` cannot be written as TOML"))?;
            set.insert(k, value);
        }
        Ok(())
    }

    /// Sets `dependencies.NAME.launcher = true` (a plain requirement becomes an inline table).
    pub fn set_dependency_launcher(&mut self, name: &str) -> Result<()> {
        let deps = self.dependencies_mut()?;
        let Some(item) = deps.get_mut(name) else {
            bail!("dependency `{name}` is not in [dependencies]");
        };
        inline_dependency(item);
        match item {
            Item::Value(toml_edit::Value::InlineTable(t)) => {
                t.insert("launcher", true.into());
            }
            Item::Table(t) => {
                t.insert("launcher", toml_edit::value(true));
            }
            _ => bail!("dependency `{name}` has an unexpected shape"),
        }
        Ok(())
    }

    /// Sets `dependencies.NAME.entries.SERVER` to `entry`, or removes it (`None`), leaving the
    /// dependency as short as it can be written.
    pub fn set_entry(&mut self, name: &str, server: &str, entry: Option<&str>) -> Result<()> {
        let deps = self.dependencies_mut()?;
        let Some(item) = deps.get_mut(name) else {
            bail!("dependency `{name}` is not in [dependencies]");
        };
        if entry.is_none() && item.as_str().is_some() {
            return Ok(());
        }
        inline_dependency(item);
        let entries = match item {
            Item::Value(toml_edit::Value::InlineTable(t)) => t
                .entry("entries")
                .or_insert(toml_edit::Value::InlineTable(Default::default())),
            Item::Table(t) => t
                .entry("entries")
                .or_insert(Item::Value(toml_edit::Value::InlineTable(
                    Default::default(),
                )))
                .as_value_mut()
                .context("`entries` must be an inline table")?,
            _ => bail!("dependency `{name}` has an unexpected shape"),
        };
        let Some(table) = entries.as_inline_table_mut() else {
            bail!("`dependencies.{name}.entries` must be an inline table");
        };
        match entry {
            Some(entry) => {
                table.insert(server, entry.into());
            }
            None => {
                table.remove(server);
            }
        }
        let empty = table.is_empty();
        if empty && let Item::Value(toml_edit::Value::InlineTable(t)) = item {
            t.remove("entries");
        } else if empty && let Item::Table(t) = item {
            t.remove("entries");
        }
        Ok(())
    }

    /// Adds `[servers.NAME]` holding `fields`, after the servers already there.
    pub fn add_server(&mut self, name: &str, fields: Table) -> Result<()> {
        if self.doc.get("servers").is_none() {
            let mut table = Table::new();
            table.set_implicit(true);
            self.doc.insert("servers", Item::Table(table));
        }
        let servers = self
            .doc
            .get_mut("servers")
            .and_then(Item::as_table_mut)
            .context("[servers] must be a table")?;
        if servers.contains_key(name) {
            bail!("dotpack.toml already has a server named `{name}`");
        }
        servers.insert(name, Item::Table(fields));
        Ok(())
    }

    /// Adds `host` to the `hosts` of the project's own server `name`, when it names its hosts
    /// and `host` is not one of them; returns whether it did.
    pub fn add_server_host(&mut self, name: &str, host: &str) -> Result<bool> {
        let Some(list) = self
            .doc
            .get_mut("servers")
            .and_then(|s| s.get_mut(name))
            .and_then(|s| s.get_mut("hosts"))
        else {
            return Ok(false);
        };
        let Some(list) = list.as_array_mut() else {
            bail!("`hosts` of server `{name}` must be a list of host ids");
        };
        if list.iter().any(|v| v.as_str() == Some(host)) {
            return Ok(false);
        }
        list.push(host);
        Ok(true)
    }

    /// Adds `[SECTION.NAME] path = "PATH"` (a resource the project carries itself).
    pub fn add_resource(&mut self, section: &str, name: &str, path: &str) -> Result<()> {
        if self.doc.get(section).is_none() {
            let mut table = Table::new();
            table.set_implicit(true);
            self.doc.insert(section, Item::Table(table));
        }
        let kinds = self
            .doc
            .get_mut(section)
            .and_then(Item::as_table_mut)
            .with_context(|| format!("[{section}] must be a table"))?;
        if kinds.contains_key(name) {
            bail!("dotpack.toml already has [{section}.{name}]");
        }
        let mut table = Table::new();
        table.insert("path", value(path));
        kinds.insert(name, Item::Table(table));
        Ok(())
    }

    /// Removes dependency `name`; returns whether it was there.
    pub fn remove_dependency(&mut self, name: &str) -> bool {
        match self
            .doc
            .get_mut("dependencies")
            .and_then(Item::as_table_like_mut)
        {
            Some(deps) => deps.remove(name).is_some(),
            None => false,
        }
    }

    /// The edited text: the BOM back in front, and when the file used CRLF throughout, every
    /// line toml_edit wrote with a bare LF ended with CRLF again. A file that mixed both is
    /// left as toml_edit writes it.
    pub fn render(&self) -> String {
        let body = self.doc.to_string();
        let body = if self.crlf { to_crlf(&body) } else { body };
        format!("{}{body}", self.bom)
    }

    /// Sets `scope = "..."` on dependency `name` (`None` removes it), turning `name = "req"` into
    /// the inline form when needed.
    pub fn set_dependency_key(&mut self, name: &str, key: &str, value: Option<&str>) -> Result<()> {
        let deps = self.dependencies_mut()?;
        let Some(item) = deps.get_mut(name) else {
            bail!("dependency `{name}` is not in [dependencies]");
        };
        if value.is_none() && item.as_str().is_some() {
            return Ok(());
        }
        inline_dependency(item);
        match item {
            Item::Value(toml_edit::Value::InlineTable(t)) => match value {
                Some(v) => {
                    t.insert(key, v.into());
                }
                None => {
                    t.remove(key);
                    // `{ version = "^1.0" }` is written `"^1.0"`, as `add` writes it.
                    if t.len() == 1
                        && let Some(req) = t.get("version").and_then(|v| v.as_str())
                    {
                        let mut plain = toml_edit::Value::from(req);
                        *plain.decor_mut() = t.decor().clone();
                        *item = Item::Value(plain);
                    }
                }
            },
            Item::Table(t) => match value {
                Some(v) => {
                    t.insert(key, toml_edit::value(v));
                }
                None => {
                    t.remove(key);
                }
            },
            _ => bail!("dependency `{name}` has an unexpected shape"),
        }
        Ok(())
    }

    /// Declares registry `name` under `[registries]` with `path` or `url` (`key`).
    pub fn add_registry(&mut self, name: &str, key: &str, location: &str) -> Result<()> {
        if self.doc.get("registries").is_none() {
            let mut table = Table::new();
            table.set_implicit(true);
            self.doc.insert("registries", Item::Table(table));
        }
        let registries = self
            .doc
            .get_mut("registries")
            .and_then(Item::as_table_like_mut)
            .context("[registries] must be a table")?;
        let mut entry = toml_edit::InlineTable::new();
        entry.insert(key, location.into());
        registries.insert(name, Item::Value(toml_edit::Value::InlineTable(entry)));
        Ok(())
    }

    /// The `[project]` table, created after the leading comments when missing.
    fn project_mut(&mut self) -> Result<&mut Table> {
        if self.doc.get("project").is_none() {
            self.doc.insert("project", Item::Table(Table::new()));
        }
        self.doc
            .get_mut("project")
            .and_then(Item::as_table_mut)
            .context("[project] must be a table")
    }

    /// `[project] hosts`, created empty when missing.
    fn hosts_mut(&mut self) -> Result<&mut toml_edit::Array> {
        let project = self.project_mut()?;
        if project.get("hosts").is_none() {
            project.insert("hosts", toml_edit::value(toml_edit::Array::new()));
        }
        project
            .get_mut("hosts")
            .and_then(Item::as_array_mut)
            .context("`hosts` under [project] must be an array")
    }

    /// Adds host `id` to `[project] hosts` (with its own `scope` when given); when it is there
    /// already, sets its scope. Returns whether the manifest changed.
    pub fn add_host(&mut self, id: &str, scope: Option<Scope>) -> Result<bool> {
        let hosts = self.hosts_mut()?;
        let position = hosts.iter().position(|v| host_id(v) == Some(id));
        match (position, scope) {
            (None, None) => {
                hosts.push(id);
                Ok(true)
            }
            (None, Some(scope)) => {
                let mut t = toml_edit::InlineTable::new();
                t.insert("host", id.into());
                t.insert("scope", scope.to_string().into());
                hosts.push(toml_edit::Value::InlineTable(t));
                Ok(true)
            }
            (Some(_), None) => Ok(false),
            (Some(i), Some(scope)) => {
                let Some(value) = hosts.get_mut(i) else {
                    return Ok(false);
                };
                if host_scope(value) == Some(scope) {
                    return Ok(false);
                }
                let t = inline_host(value).context("an entry of [project] hosts is not a host")?;
                t.insert("scope", scope.to_string().into());
                Ok(true)
            }
        }
    }

    /// Takes the own `scope` of host `id` out, so it is written at the project's scope; returns
    /// whether the manifest changed.
    pub fn clear_host_scope(&mut self, id: &str) -> Result<bool> {
        let hosts = self.hosts_mut()?;
        let Some(value) = hosts.iter_mut().find(|v| host_id(v) == Some(id)) else {
            return Ok(false);
        };
        let Some(t) = value.as_inline_table_mut() else {
            return Ok(false);
        };
        if t.remove("scope").is_none() {
            return Ok(false);
        }
        if t.len() == 1 {
            let decor = value.decor().clone();
            *value = toml_edit::Value::from(id);
            *value.decor_mut() = decor;
        }
        Ok(true)
    }

    /// Takes host `id` out of `[project] hosts`; returns whether it was there.
    pub fn remove_host(&mut self, id: &str) -> Result<bool> {
        let hosts = self.hosts_mut()?;
        let before = hosts.len();
        hosts.retain(|v| host_id(v) != Some(id));
        Ok(hosts.len() != before)
    }

    /// Adds `name` to the `exclude` list of host `host` (`None`: of the whole project); returns
    /// whether the manifest changed.
    pub fn exclude(&mut self, name: &str, host: Option<&str>) -> Result<bool> {
        let list = self.exclude_list(host, true)?;
        let Some(list) = list else {
            return Ok(false);
        };
        if list.iter().any(|v| v.as_str() == Some(name)) {
            return Ok(false);
        }
        list.push(name);
        Ok(true)
    }

    /// Adds `name` to `[project] allow_lossy`; returns whether it was not there yet.
    pub fn allow_lossy_for_project(&mut self, name: &str) -> Result<bool> {
        let project = self.project_mut()?;
        if project.get("allow_lossy").is_none() {
            project.insert("allow_lossy", toml_edit::value(toml_edit::Array::new()));
        }
        let Some(list) = project.get_mut("allow_lossy").and_then(Item::as_array_mut) else {
            bail!("`[project] allow_lossy` must be a list of names");
        };
        if list.iter().any(|v| v.as_str() == Some(name)) {
            return Ok(false);
        }
        list.push(name);
        Ok(true)
    }

    /// Adds `name` to dependency `dep`'s `allow_lossy` (a plain requirement becomes
    /// `{ version = …, allow_lossy = [...] }`); returns whether it was not there yet.
    pub fn allow_lossy_for_dependency(&mut self, dep: &str, name: &str) -> Result<bool> {
        let deps = self.dependencies_mut()?;
        let Some(item) = deps.get_mut(dep) else {
            bail!("dependency `{dep}` is not in [dependencies]");
        };
        inline_dependency(item);
        let table = match item {
            Item::Value(toml_edit::Value::InlineTable(t)) => t as &mut dyn toml_edit::TableLike,
            Item::Table(t) => t as &mut dyn toml_edit::TableLike,
            _ => bail!("dependency `{dep}` has an unexpected shape"),
        };
        if table.get("allow_lossy").is_none() {
            table.insert("allow_lossy", toml_edit::value(toml_edit::Array::new()));
        }
        let Some(list) = table.get_mut("allow_lossy").and_then(Item::as_array_mut) else {
            bail!("`allow_lossy` of dependency `{dep}` must be a list of names");
        };
        if list.iter().any(|v| v.as_str() == Some(name)) {
            return Ok(false);
        }
        list.push(name);
        Ok(true)
    }

    /// Takes `name` out of the `exclude` list of host `host` (`None`: of the whole project);
    /// returns whether it was there.
    pub fn include(&mut self, name: &str, host: Option<&str>) -> Result<bool> {
        let Some(list) = self.exclude_list(host, false)? else {
            return Ok(false);
        };
        let before = list.len();
        list.retain(|v| v.as_str() != Some(name));
        let changed = list.len() != before;
        if list.is_empty() {
            self.drop_empty_exclude(host);
        }
        Ok(changed)
    }

    /// Removes an `exclude` key whose list is empty (and turns `{ host = "x" }` back into
    /// `"x"`).
    fn drop_empty_exclude(&mut self, host: Option<&str>) {
        let Some(project) = self.doc.get_mut("project").and_then(Item::as_table_mut) else {
            return;
        };
        match host {
            None => {
                project.remove("exclude");
            }
            Some(id) => {
                let Some(hosts) = project.get_mut("hosts").and_then(Item::as_array_mut) else {
                    return;
                };
                for value in hosts.iter_mut() {
                    if host_id(value) != Some(id) {
                        continue;
                    }
                    let Some(t) = value.as_inline_table_mut() else {
                        return;
                    };
                    t.remove("exclude");
                    if t.len() == 1 {
                        let decor = value.decor().clone();
                        *value = toml_edit::Value::from(id);
                        *value.decor_mut() = decor;
                    }
                    return;
                }
            }
        }
    }

    /// The `exclude` array of a host entry or of `[project]`, created when `create`.
    fn exclude_list(
        &mut self,
        host: Option<&str>,
        create: bool,
    ) -> Result<Option<&mut toml_edit::Array>> {
        match host {
            None => {
                let project = self.project_mut()?;
                if project.get("exclude").is_none() {
                    if !create {
                        return Ok(None);
                    }
                    project.insert("exclude", toml_edit::value(toml_edit::Array::new()));
                }
                Ok(project.get_mut("exclude").and_then(Item::as_array_mut))
            }
            Some(id) => {
                let hosts = self.hosts_mut()?;
                let Some(value) = hosts.iter_mut().find(|v| host_id(v) == Some(id)) else {
                    return Ok(None);
                };
                if value.as_str().is_some() && !create {
                    return Ok(None);
                }
                let t = inline_host(value).context("an entry of [project] hosts is not a host")?;
                if t.get("exclude").is_none() {
                    if !create {
                        return Ok(None);
                    }
                    t.insert("exclude", toml_edit::Value::Array(toml_edit::Array::new()));
                }
                Ok(t.get_mut("exclude")
                    .and_then(toml_edit::Value::as_array_mut))
            }
        }
    }

    /// Sets `[project] scope`.
    pub fn set_project_scope(&mut self, scope: Scope) -> Result<bool> {
        let project = self.project_mut()?;
        let text = scope.to_string();
        if project.get("scope").and_then(Item::as_str) == Some(text.as_str()) {
            return Ok(false);
        }
        project.insert("scope", toml_edit::value(text));
        Ok(true)
    }

    fn dependencies_mut(&mut self) -> Result<&mut dyn toml_edit::TableLike> {
        if self.doc.get("dependencies").is_none() {
            self.doc.insert("dependencies", Item::Table(Table::new()));
        }
        self.doc
            .get_mut("dependencies")
            .and_then(Item::as_table_like_mut)
            .context("[dependencies] must be a table")
    }
}

/// The host id of a `[project] hosts` entry: `"id"` or `{ host = "id", ... }`.
fn host_id(value: &toml_edit::Value) -> Option<&str> {
    match value {
        toml_edit::Value::String(s) => Some(s.value().as_str()),
        toml_edit::Value::InlineTable(t) => t.get("host").and_then(toml_edit::Value::as_str),
        _ => None,
    }
}

fn host_scope(value: &toml_edit::Value) -> Option<Scope> {
    match value
        .as_inline_table()?
        .get("scope")
        .and_then(toml_edit::Value::as_str)?
    {
        "project" => Some(Scope::Project),
        "user" => Some(Scope::User),
        _ => None,
    }
}

/// Turns a `"id"` host entry into `{ host = "id" }` (keeping its decoration) and returns the
/// table (`None` for an entry of another type, which validation refuses).
fn inline_host(value: &mut toml_edit::Value) -> Option<&mut toml_edit::InlineTable> {
    if let Some(id) = value.as_str().map(str::to_string) {
        let decor = value.decor().clone();
        let mut t = toml_edit::InlineTable::new();
        t.insert("host", id.as_str().into());
        *value = toml_edit::Value::InlineTable(t);
        *value.decor_mut() = decor;
    }
    value.as_inline_table_mut()
}

/// Turns `name = "req"` into `name = { version = "req" }`, keeping its decoration.
fn inline_dependency(item: &mut Item) {
    if let Some(req) = item.as_str().map(str::to_string) {
        let mut t = toml_edit::InlineTable::new();
        t.insert("version", req.into());
        let decor = item.as_value().map(|v| v.decor().clone());
        let mut v = toml_edit::Value::InlineTable(t);
        if let Some(decor) = decor {
            *v.decor_mut() = decor;
        }
        *item = Item::Value(v);
    }
}

/// The text of a new user-level manifest (`$DOTPACK_HOME/dotpack.toml`) targeting `hosts`.
pub fn initial_global_manifest(hosts: &[&str]) -> String {
    let list: Vec<String> = hosts.iter().map(|h| format!("\"{h}\"")).collect();
    format!(
        "{}\n\
         # Your user-level MCP servers, installed into your own (user-scope) host files for every\n\
         # project. Manage them with `dotpack add --global NAME` and `dotpack remove --global NAME`.\n\
         \n\
         [project]\n\
         hosts = [{}]\n\
         scope = \"user\"\n\
         \n\
         [dependencies]\n",
        crate::model::schema::directive(true),
        list.join(", ")
    )
}

/// `text` with every bare `\n` turned into `\r\n` (an existing `\r\n` stays as it is).
fn to_crlf(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 16);
    let mut previous = '\0';
    for c in text.chars() {
        if c == '\n' && previous != '\r' {
            out.push('\r');
        }
        out.push(c);
        previous = c;
    }
    out
}

/// The text of a new project manifest targeting `hosts` (host ids) at project scope. Its first
/// line points editors at the manifest's JSON Schema (see [`crate::model::schema`]).
pub fn initial_manifest(hosts: &[&str], known: &[&str]) -> String {
    let list: Vec<String> = hosts.iter().map(|h| format!("\"{h}\"")).collect();
    format!(
        "{}\n\
         # The MCP servers this project uses. Add one with `dotpack add NAME`;\n\
         # find packages with `dotpack search WORDS`.\n\
         \n\
         [project]\n\
         # Hosts whose config files dotpack writes: {}.\n\
         hosts = [{}]\n\
         scope = \"project\"\n\
         \n\
         [dependencies]\n",
        crate::model::schema::directive(false),
        known.join(", "),
        list.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edit(text: &str, f: impl FnOnce(&mut ManifestEditor)) -> String {
        let mut ed = ManifestEditor::parse(Path::new("dotpack.toml"), text).unwrap();
        f(&mut ed);
        ed.render()
    }

    #[test]
    fn adding_keeps_comments_and_order() {
        let text = "# top\n[dependencies]\n# b first\nb = \"^1\" # pinned\na = \"^2\"\n";
        let out = edit(text, |ed| ed.set_dependency("figma", "^0.3").unwrap());
        assert_eq!(
            out,
            "# top\n[dependencies]\n# b first\nb = \"^1\" # pinned\na = \"^2\"\nfigma = \"^0.3\"\n"
        );
    }

    #[test]
    fn replacing_keeps_trailing_comment() {
        let text = "[dependencies]\nb = \"^1\" # pinned\n";
        let out = edit(text, |ed| ed.set_dependency("b", "^2").unwrap());
        assert_eq!(out, "[dependencies]\nb = \"^2\" # pinned\n");
    }

    #[test]
    fn creates_dependencies_table_when_missing() {
        let text = "[package]\nname = \"x\"\nversion = \"1.0.0\"\n";
        let out = edit(text, |ed| ed.set_dependency("time", "^0.2").unwrap());
        assert!(out.ends_with("[dependencies]\ntime = \"^0.2\"\n"), "{out}");
    }

    #[test]
    fn inline_detail_keeps_other_keys() {
        let text = "[dependencies]\nfigma = { version = \"^0.2\", set = { port = \"1\" } }\n";
        let out = edit(text, |ed| ed.set_dependency("figma", "^0.3").unwrap());
        assert_eq!(
            out,
            "[dependencies]\nfigma = { version = \"^0.3\", set = { port = \"1\" } }\n"
        );
    }

    #[test]
    fn set_inputs_turns_string_into_inline_table() {
        let text = "[dependencies]\nfigma = \"^0.3\"\n";
        let out = edit(text, |ed| {
            ed.set_inputs("figma", &[("port".into(), "4000".into())])
                .unwrap()
        });
        assert_eq!(
            out,
            "[dependencies]\nfigma = { version = \"^0.3\", set = { port = \"4000\" } }\n"
        );
    }

    #[test]
    fn remove_keeps_the_rest() {
        let text = "[dependencies]\n# a\na = \"^1\"\nb = \"^2\" # keep\n";
        let out = edit(text, |ed| assert!(ed.remove_dependency("a")));
        assert_eq!(out, "[dependencies]\nb = \"^2\" # keep\n");
    }

    #[test]
    fn a_bom_is_kept() {
        let text = "\u{feff}[dependencies]\na = \"^1\"\n";
        let out = edit(text, |ed| ed.set_dependency("b", "^2").unwrap());
        assert_eq!(out, "\u{feff}[dependencies]\na = \"^1\"\nb = \"^2\"\n");
        let out = edit(text, |ed| assert!(ed.remove_dependency("a")));
        assert_eq!(out, "\u{feff}[dependencies]\n");
    }

    #[test]
    fn crlf_files_stay_crlf_including_the_lines_added() {
        let text = "\u{feff}# mine\r\n[project]\r\nhosts = [\"codex\"]\r\n\r\n[dependencies]\r\na = \"^1\" # pinned\r\n";
        let out = edit(text, |ed| {
            ed.set_dependency("b", "^2").unwrap();
            ed.set_inputs("b", &[("port".into(), "1".into())]).unwrap();
        });
        assert_eq!(
            out,
            "\u{feff}# mine\r\n[project]\r\nhosts = [\"codex\"]\r\n\r\n[dependencies]\r\na = \"^1\" # pinned\r\nb = { version = \"^2\", set = { port = \"1\" } }\r\n"
        );
        // A new table, with the blank line toml_edit puts before it.
        let text = "[project]\r\nhosts = []\r\n";
        let out = edit(text, |ed| ed.set_dependency("b", "^2").unwrap());
        assert_eq!(
            out,
            "[project]\r\nhosts = []\r\n\r\n[dependencies]\r\nb = \"^2\"\r\n"
        );
    }

    #[test]
    fn lf_and_mixed_files_get_lf_lines() {
        let out = edit("[dependencies]\n", |ed| {
            ed.set_dependency("b", "^2").unwrap()
        });
        assert_eq!(out, "[dependencies]\nb = \"^2\"\n");
        let mixed = "# a\r\n[dependencies]\n";
        let out = edit(mixed, |ed| ed.set_dependency("b", "^2").unwrap());
        assert!(!out.contains("b = \"^2\"\r\n"), "{out:?}");
    }

    #[test]
    fn to_crlf_leaves_existing_crlf_alone() {
        assert_eq!(to_crlf("a\nb\r\nc\n"), "a\r\nb\r\nc\r\n");
        assert_eq!(to_crlf(""), "");
    }
}
