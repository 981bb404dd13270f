//! A declared resource read from its package's files and checked: the path is inside the package,
//! a skill has `SKILL.md`, frontmatter parses and its known fields have the right types. Unknown
//! frontmatter fields are kept as they are: hosts read their own.

use serde_json::{Map, Value};

use super::{Files, Kind, ResourceDecl, check_path};
use crate::model::manifest::Manifest;

/// A markdown file: its optional YAML frontmatter (a map) and the body after it.
#[derive(Clone, Debug, PartialEq)]
pub struct Markdown {
    pub frontmatter: Map<String, Value>,
    /// Whether the file has a frontmatter block at all.
    pub has_frontmatter: bool,
    pub body: String,
    /// The whole file, as the package holds it.
    pub text: String,
}

/// A resource of a package, read and checked.
#[derive(Clone, Debug, PartialEq)]
pub struct Resource {
    pub kind: Kind,
    pub name: String,
    /// The resource's files by path relative to it: a skill's `SKILL.md`, `scripts/x.sh`, …;
    /// for the other kinds, the one file under the name `""`.
    pub files: Vec<(String, String)>,
    /// `SKILL.md` of a skill, the file of the other kinds.
    pub main: Markdown,
}

/// Every resource `manifest` declares, read from `files`; or every problem, as `(kind, name,
/// message)`.
pub fn load_all(
    manifest: &Manifest,
    files: &Files,
) -> Result<Vec<Resource>, Vec<(Kind, String, String)>> {
    let mut out = Vec::new();
    let mut problems = Vec::new();
    for (kind, name, decl) in manifest.resources() {
        match load_one(kind, name, decl, files) {
            Ok(resource) => out.push(resource),
            Err(why) => problems.push((kind, name.to_string(), why)),
        }
    }
    if problems.is_empty() {
        Ok(out)
    } else {
        Err(problems)
    }
}

/// One resource, read from `files` (see [`load_all`]).
pub fn load_one(
    kind: Kind,
    name: &str,
    decl: &ResourceDecl,
    files: &Files,
) -> Result<Resource, String> {
    check_path(&decl.path)?;
    let rel = decl.path.trim_end_matches('/');
    let text = |path: &str, data: &[u8]| {
        String::from_utf8(data.to_vec())
            .map_err(|_| format!("{path} is not UTF-8 text; dotpack installs text files only"))
    };
    let (files, main_path) = if kind.is_folder() {
        let prefix = format!("{rel}/");
        let mut inside = Vec::new();
        for (path, data) in files.range(prefix.clone()..) {
            let Some(sub) = path.strip_prefix(&prefix) else {
                break;
            };
            inside.push((sub.to_string(), text(path, data)?));
        }
        if inside.is_empty() && files.contains_key(rel) {
            return Err(format!(
                "{rel} is a file; a skill is a folder holding SKILL.md"
            ));
        }
        if !inside.iter().any(|(p, _)| p == "SKILL.md") {
            return Err(format!(
                "{rel}/SKILL.md is missing; a skill is a folder holding SKILL.md (frontmatter `name` and `description`, then instructions)"
            ));
        }
        (inside, format!("{rel}/SKILL.md"))
    } else {
        if !rel.ends_with(".md") {
            return Err(format!(
                "{rel} is not a markdown file; a {kind} is one `.md` file"
            ));
        }
        let Some(data) = files.get(rel) else {
            return Err(format!("{rel} is missing from the package"));
        };
        (vec![(String::new(), text(rel, data)?)], rel.to_string())
    };
    let main_text = files
        .iter()
        .find(|(p, _)| p.is_empty() || p == "SKILL.md")
        .map(|(_, t)| t.clone())
        .unwrap_or_default();
    let main = if kind == Kind::Memory {
        check_memory(&main_path, &main_text)?;
        Markdown {
            frontmatter: Map::new(),
            has_frontmatter: false,
            body: main_text.clone(),
            text: main_text,
        }
    } else {
        let md = parse_markdown(&main_path, &main_text)?;
        check_fields(kind, name, &main_path, &md)?;
        md
    };
    Ok(Resource {
        kind,
        name: name.to_string(),
        files,
        main,
    })
}

/// Splits `text` into frontmatter and body, and parses the frontmatter as a YAML map.
pub fn parse_markdown(path: &str, text: &str) -> Result<Markdown, String> {
    let Some(rest) = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))
    else {
        return Ok(Markdown {
            frontmatter: Map::new(),
            has_frontmatter: false,
            body: text.to_string(),
            text: text.to_string(),
        });
    };
    let mut offset = 0;
    let mut end = None;
    for line in rest.split_inclusive('\n') {
        if line.trim_end_matches(['\r', '\n']) == "---" {
            end = Some((offset, offset + line.len()));
            break;
        }
        offset += line.len();
    }
    let Some((yaml_end, body_start)) = end else {
        return Err(format!(
            "{path}: the frontmatter that starts on line 1 has no closing `---` line"
        ));
    };
    let yaml = &rest[..yaml_end];
    let value = crate::formats::yaml::value_of(yaml).map_err(|e| {
        format!("{path}: the frontmatter is not valid YAML ({e}; line numbers count from line 2 of the file)")
    })?;
    let frontmatter = match value {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(map)) => map,
        Some(other) => {
            return Err(format!(
                "{path}: the frontmatter must be a map of `key: value` lines, not {}",
                crate::formats::json_type_name(&other)
            ));
        }
    };
    Ok(Markdown {
        frontmatter,
        has_frontmatter: true,
        body: rest[body_start..].to_string(),
        text: text.to_string(),
    })
}

/// The known frontmatter fields of each kind have the right types; required ones are there.
fn check_fields(kind: Kind, name: &str, path: &str, md: &Markdown) -> Result<(), String> {
    let fm = &md.frontmatter;
    let wrong = |field: &str, want: &str| format!("{path}: frontmatter `{field}` must be {want}");
    let string = |field: &str, required: bool| -> Result<(), String> {
        match fm.get(field) {
            Some(Value::String(s)) if !s.trim().is_empty() => Ok(()),
            None if !required => Ok(()),
            None => Err(format!(
                "{path}: frontmatter has no `{field}`; a {kind} needs `{field}: …`"
            )),
            Some(_) => Err(wrong(field, "a non-empty text")),
        }
    };
    let strings = |field: &str| -> Result<(), String> {
        match fm.get(field) {
            None | Some(Value::String(_)) => Ok(()),
            Some(Value::Array(items)) if items.iter().all(Value::is_string) => Ok(()),
            Some(_) => Err(wrong(field, "a text or a list of texts")),
        }
    };
    match kind {
        Kind::Skill | Kind::Agent => {
            string("name", true)?;
            string("description", true)?;
            if kind == Kind::Skill
                && let Some(Value::String(n)) = fm.get("name")
                && n != name
            {
                return Err(format!(
                    "{path}: frontmatter `name` is `{n}`, but the skill is declared as `{name}`; hosts require a skill's name to match its folder (rename one of the two)"
                ));
            }
            if kind == Kind::Agent {
                strings("tools")?;
                string("model", false)?;
            }
        }
        Kind::Command => {
            string("description", false)?;
            // `argument-hint: [file]` is how hosts' docs write it: YAML reads a list.
            strings("argument-hint")?;
            string("model", false)?;
            strings("allowed-tools")?;
        }
        Kind::Rule => {
            string("description", false)?;
            strings("globs")?;
            match fm.get("always") {
                None | Some(Value::Bool(_)) => {}
                Some(_) => return Err(wrong("always", "`true` or `false`")),
            }
        }
        Kind::Memory => {}
    }
    Ok(())
}

/// A memory snippet becomes a block between marker comments: it must not hold markers itself.
fn check_memory(path: &str, text: &str) -> Result<(), String> {
    if let Some((i, _)) = text
        .lines()
        .enumerate()
        .find(|(_, l)| l.contains("<!-- dotpack:"))
    {
        return Err(format!(
            "{path}:{}: a memory snippet must not hold `<!-- dotpack:` marker comments (dotpack writes them around it)",
            i + 1
        ));
    }
    if text.trim().is_empty() {
        return Err(format!("{path} is empty"));
    }
    Ok(())
}
