//! `[skills.X]`, `[commands.X]`, `[agents.X]`, `[rules.X]`, `[memory.X]`: a `path` inside the
//! package. What the path holds (`SKILL.md`, frontmatter) is checked where the files are: see
//! [`crate::model::resources::load`] and [`check_files`].

use std::path::Path;

use toml_edit::{Item, Key};

use super::{Checker, entries, segment};
use crate::model::manifest::Manifest;
use crate::model::resources::{Files, Kind, check_path, load_one};
use crate::ui::diag::Diagnostic;

const RESOURCE_KEYS: &[&str] = &["path"];

impl Checker<'_> {
    pub(super) fn resource(&mut self, at: &str, key: &Key, item: &Item) {
        let Some(table) = self.expect_table(key, item, at) else {
            return;
        };
        for (k, v) in entries(table) {
            let key_path = format!("{at}.{}", segment(k.get()));
            match k.get() {
                "path" => {
                    if let Some(path) = self.expect_str(k, v, &key_path)
                        && let Err(why) = check_path(path)
                    {
                        self.error(
                            "resource-path",
                            why,
                            v.span(),
                            &key_path,
                            "write a path relative to the package's folder, such as `skills/pr-review` or `commands/review.md`",
                        );
                    }
                }
                _ => self.unknown_key(k, v, at, RESOURCE_KEYS, false),
            }
        }
        if !table.contains_key("path") {
            self.error(
                "missing-key",
                format!("`[{at}]` has no `path`"),
                key.span().or_else(|| item.span()),
                at,
                "add `path = \"…\"`, relative to the package's folder",
            );
        }
    }
}

/// Checks every resource `manifest` declares against `files` (the package's files): each problem
/// an error pointing at the resource's `path` line in `text` (read from `path`).
pub fn check_files(path: &Path, text: &str, manifest: &Manifest, files: &Files) -> Vec<Diagnostic> {
    let doc = toml_edit::Document::parse(text.to_string()).ok();
    let mut out = Vec::new();
    for (kind, name, decl) in manifest.resources() {
        if let Err(why) = load_one(kind, name, decl, files) {
            out.push(file_error(path, text, doc.as_ref(), kind, name, why));
        }
    }
    out
}

/// An error about resource `kind.name`, pointing at its `path` value.
pub fn file_error(
    path: &Path,
    text: &str,
    doc: Option<&toml_edit::Document<String>>,
    kind: Kind,
    name: &str,
    why: String,
) -> Diagnostic {
    let span = doc
        .and_then(|d| d.get(kind.section()))
        .and_then(|s| s.get(name))
        .and_then(|t| t.get("path"))
        .and_then(Item::span);
    Diagnostic::error("resource", path, why)
        .at(text, span)
        .key(format!("{}.{}.path", kind.section(), segment(name)))
        .help(format!(
            "fix the {kind} in the package, or its `path` under `[{}.{name}]`",
            kind.section()
        ))
}
