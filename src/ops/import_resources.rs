//! The resource half of `dotpack import HOST`: the skills, commands, agents and rules a host
//! keeps in the project (found from the layout table's project paths, so a host's rows say where
//! to look) that no dotpack claim owns. Each becomes a resource of the project: copied under
//! `resources/KIND/`, in the markdown form dotpack reads (Gemini TOML commands, Cursor `.mdc`
//! rules and Claude Code `paths` rules translated back), and checked like any resource.
//!
//! Only the project folder is read; a symbolic link (a folder on the way, a file, anything in a
//! skill) is refused, as the resource source checks refuse them.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{Map, Value};

use crate::model::hosts::HostAdapter;
use crate::model::manifest::Manifest;
use crate::model::resources::{FileClaim, Kind, ResourceDecl, Shape, load_one};

/// One host resource to import.
#[derive(Debug)]
pub struct Found {
    pub kind: Kind,
    pub name: String,
    /// The host's file or skill folder, relative to the project root.
    pub origin: String,
    /// `path` of its `[KIND.NAME]` declaration: `resources/commands/NAME.md`.
    pub path: String,
    /// The files to write into the project: relative path, text.
    pub files: BTreeMap<String, String>,
}

impl Found {
    pub fn label(&self) -> String {
        crate::model::resources::label(self.kind, &self.name)
    }
}

/// What the scan found, and why it left the others out.
#[derive(Debug, Default)]
pub struct Scan {
    pub found: Vec<Found>,
    pub warnings: Vec<String>,
}

/// The project-scope resources of `host` under `root` that `claims` do not own and `manifest`
/// does not declare yet.
pub fn scan(host: &HostAdapter, root: &Path, manifest: &Manifest, claims: &[FileClaim]) -> Scan {
    let mut scan = Scan::default();
    for kind in Kind::ALL {
        if kind == Kind::Memory {
            // Instructions files are the user's own text, not one resource per file.
            continue;
        }
        let Some(row) = host.layout(kind) else {
            continue;
        };
        let Some((dir, suffix)) = row.project.and_then(|p| p.split_once("{name}")) else {
            continue;
        };
        let dir = dir.trim_end_matches('/');
        let Some(entries) = read_folder(root, dir, &mut scan.warnings) else {
            continue;
        };
        for file_name in entries {
            let origin = format!("{dir}/{file_name}");
            let Some(name) = (if kind.is_folder() {
                Some(file_name.as_str())
            } else {
                file_name.strip_suffix(suffix)
            }) else {
                continue;
            };
            if claims
                .iter()
                .any(|c| c.file == origin || c.file.starts_with(&format!("{origin}/")))
            {
                continue;
            }
            match found(root, kind, row.shape, name, &origin, manifest) {
                Ok(Some(f)) => scan.found.push(f),
                Ok(None) => {}
                Err(why) => scan.warnings.push(format!("{origin}: not imported: {why}")),
            }
        }
    }
    scan
}

/// The names in folder `dir` (relative to `root`), sorted, hidden ones left out; `None` when
/// the folder is absent or a link (warned).
fn read_folder(root: &Path, dir: &str, warnings: &mut Vec<String>) -> Option<Vec<String>> {
    let mut walked = root.to_path_buf();
    for segment in dir.split('/') {
        walked.push(segment);
        match std::fs::symlink_metadata(&walked) {
            Ok(meta) if meta.file_type().is_symlink() => {
                warnings.push(format!(
                    "{}: a symbolic link; nothing under it is imported (links could point outside the project)",
                    rel_display(root, &walked)
                ));
                return None;
            }
            Ok(meta) if meta.is_dir() => {}
            _ => return None,
        }
    }
    let mut names: Vec<String> = match std::fs::read_dir(&walked) {
        Ok(entries) => entries
            .filter_map(Result::ok)
            .filter_map(|e| e.file_name().to_str().map(str::to_string))
            .filter(|n| !n.starts_with('.'))
            .collect(),
        Err(e) => {
            warnings.push(format!("cannot read {dir}: {e}"));
            return None;
        }
    };
    names.sort();
    Some(names)
}

fn rel_display(root: &Path, path: &Path) -> String {
    path.strip_prefix(root)
        .map(|p| p.display().to_string())
        .unwrap_or_else(|_| path.display().to_string())
}

/// One entry of a host folder as a resource: `Ok(None)` for what is not one (a file of
/// another extension), `Err` for one that cannot be imported, with why.
fn found(
    root: &Path,
    kind: Kind,
    shape: Shape,
    name: &str,
    origin: &str,
    manifest: &Manifest,
) -> Result<Option<Found>, String> {
    let meta =
        std::fs::symlink_metadata(root.join(origin)).map_err(|e| format!("cannot read it: {e}"))?;
    if meta.file_type().is_symlink() {
        return Err(
            "a symbolic link; resources must be real files in the project (links could point outside it)"
                .to_string(),
        );
    }
    if kind.is_folder() != meta.is_dir() {
        return Ok(None);
    }
    if !crate::model::validate::is_valid_name(name) {
        return Err(format!(
            "`{name}` is not a valid resource name (letters, digits, `-` and `_`, starting with a letter or digit)"
        ));
    }
    if manifest.resources_of(kind).contains_key(name) {
        return Err(format!(
            "dotpack.toml already declares [{}.{name}]; rename one of them",
            kind.section()
        ));
    }
    let section = kind.section();
    let path = if kind.is_folder() {
        format!("resources/{section}/{name}")
    } else {
        format!("resources/{section}/{name}.md")
    };
    if std::fs::symlink_metadata(root.join(&path)).is_ok() {
        return Err(format!(
            "{path} already exists in the project; move it away first"
        ));
    }
    let mut files = BTreeMap::new();
    if kind.is_folder() {
        let mut read = BTreeMap::new();
        read_tree(root, origin, "", &mut read)?;
        for (rel, text) in read {
            files.insert(format!("{path}/{rel}"), text);
        }
    } else {
        let text = read_text(root, &root.join(origin), origin)?;
        files.insert(path.clone(), to_markdown(shape, origin, &text)?);
    }
    let bytes: crate::model::resources::Files = files
        .iter()
        .map(|(k, v)| (k.clone(), v.as_bytes().to_vec()))
        .collect();
    let decl = ResourceDecl { path: path.clone() };
    load_one(kind, name, &decl, &bytes)?;
    Ok(Some(Found {
        kind,
        name: name.to_string(),
        origin: origin.to_string(),
        path,
        files,
    }))
}

/// Every file below `origin/prefix`, by its path inside the skill; a link anywhere is refused.
fn read_tree(
    root: &Path,
    origin: &str,
    prefix: &str,
    out: &mut BTreeMap<String, String>,
) -> Result<(), String> {
    let dir = if prefix.is_empty() {
        root.join(origin)
    } else {
        root.join(origin).join(prefix)
    };
    let mut entries: Vec<_> = std::fs::read_dir(&dir)
        .map_err(|e| format!("cannot read {}: {e}", rel_display(root, &dir)))?
        .filter_map(Result::ok)
        .collect();
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let Some(name) = entry.file_name().to_str().map(str::to_string) else {
            return Err(format!(
                "{} has a name that is not UTF-8",
                rel_display(root, &entry.path())
            ));
        };
        if name.starts_with('.') {
            continue;
        }
        let rel = if prefix.is_empty() {
            name
        } else {
            format!("{prefix}/{name}")
        };
        let shown = format!("{origin}/{rel}");
        let meta = std::fs::symlink_metadata(entry.path())
            .map_err(|e| format!("cannot read {shown}: {e}"))?;
        if meta.file_type().is_symlink() {
            return Err(format!(
                "{shown} is a symbolic link; resources must be real files (links could point outside the project)"
            ));
        }
        if meta.is_dir() {
            read_tree(root, origin, &rel, out)?;
        } else if meta.is_file() {
            let text = read_text(root, &entry.path(), &shown)?;
            out.insert(rel, text);
        } else {
            return Err(format!("{shown} is not a regular file"));
        }
    }
    Ok(())
}

fn read_text(root: &Path, path: &Path, shown: &str) -> Result<String, String> {
    let fence = crate::util::fence::Fence::project(root);
    let data = crate::util::fence::read(path, Some(&fence), crate::util::fence::PROJECT_FILE_CAP)
        .map_err(|e| format!("{e:#}"))?
        .ok_or_else(|| format!("cannot read {shown}: it is gone"))?;
    String::from_utf8(data)
        .map_err(|_| format!("{shown} is not UTF-8 text; dotpack imports text files only"))
}

/// A host's file in the markdown form dotpack reads: the reverse of `resources::render`.
fn to_markdown(shape: Shape, origin: &str, text: &str) -> Result<String, String> {
    match shape {
        Shape::GeminiCommand => gemini_command(text),
        Shape::CursorRule => rule(origin, text, &[("alwaysApply", "always")]),
        Shape::ClaudeRule => rule(origin, text, &[("paths", "globs")]),
        // Markdown as the host keeps it (Cursor commands are plain markdown already).
        _ => Ok(text.to_string()),
    }
}

/// A Gemini CLI command (`description`, `prompt` with `{{args}}`) as a command's markdown.
fn gemini_command(text: &str) -> Result<String, String> {
    let table: toml::Table = toml::from_str(text).map_err(|e| format!("not TOML: {e}"))?;
    let Some(prompt) = table.get("prompt").and_then(toml::Value::as_str) else {
        return Err("no `prompt` text".to_string());
    };
    let mut out = String::new();
    if let Some(description) = table.get("description") {
        let Some(description) = description.as_str() else {
            return Err("`description` is not text".to_string());
        };
        out.push_str("---\ndescription: ");
        out.push_str(&yaml_value(&Value::String(description.to_string())));
        out.push_str("\n---\n");
    }
    out.push_str(&prompt.replace("{{args}}", "$ARGUMENTS"));
    Ok(out)
}

/// A rule whose frontmatter names fields as a host does (`renames`: host field, dotpack's).
/// A file without frontmatter is kept byte for byte.
fn rule(origin: &str, text: &str, renames: &[(&str, &str)]) -> Result<String, String> {
    let md = crate::model::resources::parse_markdown(origin, text)?;
    if !md.has_frontmatter {
        return Ok(text.to_string());
    }
    let mut fields = Map::new();
    for (key, value) in md.frontmatter {
        let key = renames
            .iter()
            .find(|(host, _)| *host == key)
            .map_or(key.clone(), |(_, ours)| (*ours).to_string());
        if value.is_null() {
            continue;
        }
        fields.insert(key, value);
    }
    let mut out = String::from("---\n");
    for (key, value) in &fields {
        out.push_str(key);
        out.push(':');
        match value {
            Value::Array(items) => {
                out.push('\n');
                for item in items {
                    out.push_str("  - ");
                    out.push_str(&yaml_value(item));
                    out.push('\n');
                }
            }
            other => {
                out.push(' ');
                out.push_str(&yaml_value(other));
                out.push('\n');
            }
        }
    }
    out.push_str("---\n");
    out.push_str(&md.body);
    Ok(out)
}

/// A YAML scalar: JSON's form, which YAML reads as the same value.
fn yaml_value(value: &Value) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

/// The host's project resource files `--into` would bring in, as `scan` finds them (against
/// the project's manifest and claims when there is one).
pub fn project_resources(
    settings: &super::Settings,
    printer: &crate::ui::printer::Printer,
    host: &'static HostAdapter,
    root: &Path,
) -> Scan {
    let project =
        super::project_root(settings).and_then(|_| super::Project::load(settings, printer).ok());
    match &project {
        Some(p) => scan(
            host,
            p.root(),
            &p.manifest.manifest,
            p.lock.as_ref().map_or(&[], |l| &l.files),
        ),
        None => scan(
            host,
            root,
            &crate::model::manifest::Manifest::default(),
            &[],
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_gemini_command_becomes_markdown() {
        let md = gemini_command(
            "description = \"Review it\"\nprompt = '''\nReview {{args}} now.\n'''\n",
        )
        .unwrap();
        assert_eq!(
            md,
            "---\ndescription: \"Review it\"\n---\nReview $ARGUMENTS now.\n"
        );
        assert!(gemini_command("description = 1\nprompt = 'x'").is_err());
        assert!(gemini_command("description = 'x'").is_err());
    }

    #[test]
    fn host_rule_fields_are_renamed() {
        let cursor =
            "---\ndescription: Style\nglobs: src/**/*.rs\nalwaysApply: false\n---\nUse tabs.\n";
        assert_eq!(
            rule("r.mdc", cursor, &[("alwaysApply", "always")]).unwrap(),
            "---\ndescription: \"Style\"\nglobs: \"src/**/*.rs\"\nalways: false\n---\nUse tabs.\n"
        );
        let claude = "---\npaths:\n  - \"src/**\"\n---\nBody\n";
        assert_eq!(
            rule("r.md", claude, &[("paths", "globs")]).unwrap(),
            "---\nglobs:\n  - \"src/**\"\n---\nBody\n"
        );
        assert_eq!(
            rule("r.md", "no frontmatter\n", &[]).unwrap(),
            "no frontmatter\n"
        );
    }
}
