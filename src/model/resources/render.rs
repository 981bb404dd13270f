//! A resource in one host's shape. Pure: bytes in, bytes out.

use serde_json::Value;

use super::layout::{KindLayout, Shape};
use super::{Kind, Resource};

/// What one resource becomes at one host: files (path relative to the project root or home
/// folder, and their text), or a memory block, plus the fields the host cannot express.
#[derive(Clone, Debug, PartialEq)]
pub struct Output {
    /// `(path, text)`; for a memory block the path of the instructions file and the snippet.
    pub files: Vec<(String, String)>,
    /// Frontmatter fields left out, each lossy.
    pub dropped: Vec<String>,
}

/// `resource` as `layout` wants it, its files under `place` (the layout's path with the name
/// filled in).
pub fn render(layout: &KindLayout, resource: &Resource, place: &str) -> Output {
    let main = &resource.main;
    let mut dropped: Vec<String> = layout
        .drops
        .iter()
        .filter(|f| main.frontmatter.contains_key(**f))
        .map(|f| f.to_string())
        .collect();
    let files = match layout.shape {
        Shape::SkillFolder => resource
            .files
            .iter()
            .map(|(rel, text)| (format!("{place}/{rel}"), text.clone()))
            .collect(),
        Shape::Markdown | Shape::MemoryBlock => vec![(place.to_string(), main.text.clone())],
        Shape::Body => vec![(place.to_string(), main.body.clone())],
        Shape::GeminiCommand => vec![(place.to_string(), gemini_command(resource))],
        Shape::CursorRule => vec![(place.to_string(), cursor_rule(resource))],
        Shape::GeminiAgent => vec![(place.to_string(), gemini_agent(resource))],
        Shape::ClaudeRule => {
            let globs = globs(resource);
            let always = main.frontmatter.get("always") == Some(&Value::Bool(true));
            // Without `paths` Claude Code loads a rule always: a rule meant to load on request
            // (only a description) or never by itself loses that.
            if globs.is_empty() && !always && resource.kind == Kind::Rule {
                for field in ["description", "always"] {
                    if main.frontmatter.contains_key(field) {
                        dropped.push(field.to_string());
                    }
                }
            }
            vec![(place.to_string(), claude_rule(resource, &globs))]
        }
    };
    Output { files, dropped }
}

/// The rule's `globs`: a list, or a comma-separated text.
fn globs(resource: &Resource) -> Vec<String> {
    match resource.main.frontmatter.get("globs") {
        Some(Value::String(s)) => s
            .split(',')
            .map(str::trim)
            .filter(|g| !g.is_empty())
            .map(str::to_string)
            .collect(),
        Some(Value::Array(items)) => items
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect(),
        _ => Vec::new(),
    }
}

fn text_field<'r>(resource: &'r Resource, field: &str) -> Option<&'r str> {
    resource.main.frontmatter.get(field).and_then(Value::as_str)
}

/// A Gemini CLI command: `description` and `prompt`, `$ARGUMENTS` written as `{{args}}`.
fn gemini_command(resource: &Resource) -> String {
    let prompt = resource.main.body.replace("$ARGUMENTS", "{{args}}");
    let mut out = String::new();
    if let Some(description) = text_field(resource, "description") {
        out.push_str("description = ");
        out.push_str(&toml_edit::Value::from(description).to_string());
        out.push('\n');
    }
    out.push_str("prompt = ");
    out.push_str(&toml_multiline(&prompt));
    out.push('\n');
    out
}

/// A TOML string holding `text`: a multi-line literal string when `text` allows one (it reads
/// as the markdown does), else a basic string with escapes.
fn toml_multiline(text: &str) -> String {
    let literal_ok = !text.contains("'''")
        && !text.ends_with('\'')
        && !text
            .chars()
            .any(|c| c.is_control() && c != '\n' && c != '\t' && c != '\r');
    if literal_ok {
        let candidate = format!("'''\n{text}'''");
        // Checked, not assumed: the literal must read back as exactly `text`.
        let parsed: Result<toml::Table, _> = toml::from_str(&format!("p = {candidate}"));
        if parsed
            .ok()
            .and_then(|t| t.get("p").and_then(|v| v.as_str().map(str::to_string)))
            .as_deref()
            == Some(text)
        {
            return candidate;
        }
    }
    toml_edit::Value::from(text).to_string()
}

/// A YAML scalar for a frontmatter line: plain when that reads back the same, else quoted.
fn yaml_scalar(text: &str) -> String {
    let plain = !text.is_empty()
        && !text.contains(": ")
        && !text.contains(" #")
        && !text.ends_with(':')
        && !text.starts_with(|c: char| "-?:,[]{}#&*!|>'\"%@`".contains(c) || c.is_whitespace())
        && !text.ends_with(char::is_whitespace)
        && !text.contains('\n')
        && matches!(
            crate::formats::yaml::value_of(text),
            Ok(Some(Value::String(ref s))) if s == text
        );
    if plain {
        text.to_string()
    } else {
        serde_json::to_string(text).unwrap_or_else(|_| format!("\"{}\"", text.escape_default()))
    }
}

/// A Gemini CLI subagent: `name` and `description`, then the body.
fn gemini_agent(resource: &Resource) -> String {
    let mut out = String::from("---\n");
    for field in ["name", "description"] {
        if let Some(value) = text_field(resource, field) {
            out.push_str(&format!("{field}: {}\n", yaml_scalar(value)));
        }
    }
    out.push_str("---\n");
    out.push_str(&resource.main.body);
    out
}

/// A Cursor rule: `description`, `globs` (comma-separated, as Cursor writes them) and
/// `alwaysApply`, then the body.
fn cursor_rule(resource: &Resource) -> String {
    let mut out = String::from("---\n");
    out.push_str("description: ");
    if let Some(description) = text_field(resource, "description") {
        out.push_str(&yaml_scalar(description));
    }
    out.push('\n');
    out.push_str("globs: ");
    out.push_str(&globs(resource).join(","));
    out.push('\n');
    let always = resource.main.frontmatter.get("always") == Some(&Value::Bool(true));
    out.push_str(&format!("alwaysApply: {always}\n"));
    out.push_str("---\n");
    out.push_str(&resource.main.body);
    out
}

/// A Claude Code rule: `paths` from `globs` (none: loaded always), then the body.
fn claude_rule(resource: &Resource, globs: &[String]) -> String {
    if globs.is_empty() {
        return resource.main.body.clone();
    }
    let mut out = String::from("---\npaths:\n");
    for glob in globs {
        out.push_str("  - ");
        out.push_str(&serde_json::to_string(glob).unwrap_or_default());
        out.push('\n');
    }
    out.push_str("---\n");
    out.push_str(&resource.main.body);
    out
}
