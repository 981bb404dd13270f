//! The project: finding `dotpack.toml`, and editing its `[dependencies]` in place so the user's
//! comments, order and formatting stay as they wrote them.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use toml_edit::{DocumentMut, Item, Table, value};

use crate::manifest::MANIFEST_FILE;

/// Finds the manifest: `explicit` when given, else `dotpack.toml` in `start` or its nearest
/// parent that has one (as Cargo finds Cargo.toml).
pub fn find_manifest(explicit: Option<&Path>, start: &Path) -> Result<PathBuf> {
    if let Some(path) = explicit {
        let path = if path.is_dir() {
            path.join(MANIFEST_FILE)
        } else {
            path.to_path_buf()
        };
        if !path.is_file() {
            bail!(
                "{} does not exist\n  help: check --manifest-path, or run `dotpack init` to create one",
                path.display()
            );
        }
        return Ok(path);
    }
    for dir in start.ancestors() {
        let candidate = dir.join(MANIFEST_FILE);
        if candidate.is_file() {
            return Ok(candidate);
        }
    }
    bail!(
        "could not find {MANIFEST_FILE} in {} or any parent folder\n  help: run `dotpack init` to create one here",
        start.display()
    )
}

/// `dotpack.toml` as an editable document that keeps every byte it does not change.
pub struct ManifestEditor {
    doc: DocumentMut,
}

impl ManifestEditor {
    /// Parses `text`; the caller has validated it already, so a failure here names the file.
    pub fn parse(path: &Path, text: &str) -> Result<Self> {
        let doc = text
            .parse::<DocumentMut>()
            .with_context(|| format!("{} is not valid TOML", path.display()))?;
        Ok(ManifestEditor { doc })
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
    pub fn set_inputs(&mut self, name: &str, inputs: &[(String, String)]) -> Result<()> {
        if inputs.is_empty() {
            return Ok(());
        }
        let deps = self.dependencies_mut()?;
        let Some(item) = deps.get_mut(name) else {
            bail!("dependency `{name}` is not in [dependencies]");
        };
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
            bail!("`dependencies.{name}.set` must be a table of strings");
        };
        for (k, v) in inputs {
            set.insert(k, v.as_str().into());
        }
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

    pub fn render(&self) -> String {
        self.doc.to_string()
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

/// The text of a new project manifest targeting `hosts` (host ids) at project scope.
pub fn initial_manifest(hosts: &[&str], known: &[&str]) -> String {
    let list: Vec<String> = hosts.iter().map(|h| format!("\"{h}\"")).collect();
    format!(
        "# The MCP servers this project uses. Add one with `dotpack add NAME`;\n\
         # find packages with `dotpack search WORDS`.\n\
         \n\
         [project]\n\
         # Hosts whose config files dotpack writes: {}.\n\
         hosts = [{}]\n\
         scope = \"project\"\n\
         \n\
         [dependencies]\n",
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
}
