//! The floors of the main crate, checked: a module uses only the floors below its own.
//!
//! `docs/architecture.md` names the floors; this test reads every `crate::FLOOR` path in the
//! code of `src/` (comments and test code aside: a test may build its inputs from any floor) and
//! fails on one that points up into a floor above, naming the file, the line and the two floors.
//! The leaf crates in `crates/` must not depend on the root package at all.

use std::path::Path;

#[path = "common/rust_files.rs"]
mod files;
use files::rust_files;

/// The floors, top first. A file on floor `i` may name floors `i + 1..` only (and its own).
const FLOORS: &[&str] = &[
    "cli", "commands", "ops", "txn", "plan", "resolve", "registry", "model", "ui", "util",
];

/// The names the crate root re-exports from the leaf crates, and the macros exported at the
/// root (`bail_help!`, defined in `util::error`): usable from every floor.
const LEAVES: &[&str] = &["formats", "template", "mcp", "urls", "bail_help"];

/// An arrow that points up: `file:line` uses `to` from the floor `from`.
#[derive(Debug, PartialEq)]
struct Upward {
    file: String,
    line: usize,
    from: &'static str,
    to: String,
}

fn floor_index(name: &str) -> Option<usize> {
    FLOORS.iter().position(|f| *f == name)
}

/// The floor of a file, from its path under `src/`: `src/cli.rs` is `cli`, `src/plan/x.rs` is
/// `plan`. `lib.rs` and `main.rs` stand above every floor.
fn floor_of(rel: &Path) -> Option<usize> {
    let first = rel.components().next()?.as_os_str().to_str()?;
    floor_index(first.strip_suffix(".rs").unwrap_or(first))
}

/// The line with its `//` comment cut off (doc comments name other floors in links freely).
fn code_of(line: &str) -> &str {
    match line.find("//") {
        Some(at) if !line[..at].contains('"') => &line[..at],
        Some(_) | None => line,
    }
}

/// Every floor a line of code names through `crate::`: `crate::plan::Plan`, and each item of
/// `crate::{model::lock, ui::Printer}`.
fn named_floors(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find("crate::") {
        let before = rest[..at].chars().next_back();
        rest = &rest[at + "crate::".len()..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$') {
            continue;
        }
        if let Some(group) = rest.strip_prefix('{') {
            let end = group.find('}').unwrap_or(group.len());
            for item in group[..end].split(',') {
                out.push(ident(item.trim()));
            }
        } else {
            out.push(ident(rest));
        }
    }
    out.retain(|s| !s.is_empty());
    out
}

fn ident(s: &str) -> String {
    s.chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect()
}

/// The upward arrows of one file's text, `rel` being its path under `src/`.
fn upward_in(rel: &Path, text: &str) -> Vec<Upward> {
    let Some(own) = floor_of(rel) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for (n, line) in text.lines().enumerate() {
        // A file's unit tests come last, after `#[cfg(test)]` and their `mod`.
        if line.starts_with("#[cfg(test)]")
            && text
                .lines()
                .nth(n + 1)
                .is_some_and(|l| l.starts_with("mod "))
        {
            break;
        }
        for name in named_floors(code_of(line)) {
            if LEAVES.contains(&name.as_str()) {
                continue;
            }
            let points_up = match floor_index(&name) {
                Some(to) => to < own,
                // Anything else at the crate root is an old path or a new top-level module:
                // both must live on a floor.
                None => true,
            };
            if points_up {
                found.push(Upward {
                    file: rel.display().to_string(),
                    line: n + 1,
                    from: FLOORS[own],
                    to: name,
                });
            }
        }
    }
    found
}

#[test]
fn every_arrow_points_down() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    assert!(files.len() > 100, "read {} files under src/", files.len());
    let mut upward = Vec::new();
    for file in &files {
        let rel = file.strip_prefix(&src).unwrap_or(file);
        // Test-only files: unit tests and their fixtures.
        if rel
            .file_name()
            .is_some_and(|n| n == "tests.rs" || n == "fixtures.rs")
        {
            continue;
        }
        let text = std::fs::read_to_string(file).unwrap_or_default();
        upward.extend(upward_in(rel, &text));
    }
    let report: Vec<String> = upward
        .iter()
        .map(|u| {
            format!(
                "src/{}:{}: `{}` uses `crate::{}`",
                u.file, u.line, u.from, u.to
            )
        })
        .collect();
    assert!(
        report.is_empty(),
        "arrows that point up (floors, top first: {}):\n{}",
        FLOORS.join(" → "),
        report.join("\n")
    );
}

#[test]
fn every_floor_is_a_folder_or_file_of_src() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    for floor in FLOORS {
        assert!(
            src.join(floor).is_dir() || src.join(format!("{floor}.rs")).is_file(),
            "floor `{floor}` has no src/{floor}/ or src/{floor}.rs"
        );
    }
    // Nothing else sits at the top of src/ but the crate root and the binary.
    for entry in std::fs::read_dir(&src).into_iter().flatten().flatten() {
        let name = entry.file_name().to_string_lossy().to_string();
        let stem = name.strip_suffix(".rs").unwrap_or(&name).to_string();
        assert!(
            floor_index(&stem).is_some() || stem == "lib" || stem == "main",
            "src/{name} is on no floor: move it into one (see docs/architecture.md)"
        );
    }
}

#[test]
fn the_architecture_doc_names_every_floor_and_leaf_crate() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let doc = std::fs::read_to_string(root.join("docs/architecture.md")).unwrap_or_default();
    for floor in FLOORS {
        assert!(
            doc.contains(&format!("src/{floor}/")),
            "docs/architecture.md does not describe src/{floor}/"
        );
    }
    for entry in std::fs::read_dir(root.join("crates"))
        .into_iter()
        .flatten()
        .flatten()
    {
        let name = entry.file_name().to_string_lossy().to_string();
        assert!(
            doc.contains(&format!("crates/{name}")),
            "docs/architecture.md does not describe crates/{name}"
        );
    }
}

#[test]
fn leaf_crates_use_nothing_of_dotpack() {
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).join("crates");
    let mut seen = 0;
    for entry in std::fs::read_dir(&crates).into_iter().flatten().flatten() {
        let manifest = entry.path().join("Cargo.toml");
        let Ok(text) = std::fs::read_to_string(&manifest) else {
            continue;
        };
        seen += 1;
        let doc: toml::Table = text.parse().unwrap_or_default();
        for section in ["dependencies", "dev-dependencies", "build-dependencies"] {
            let deps = doc.get(section).and_then(|d| d.as_table());
            assert!(
                !deps.is_some_and(|d| d.contains_key("dotpack")),
                "{} depends on the root package in [{section}]",
                manifest.display()
            );
        }
    }
    assert!(seen >= 4, "found {seen} leaf crates under crates/");
}

#[test]
fn an_upward_import_is_caught() {
    let found = upward_in(
        Path::new("model/lock.rs"),
        "use crate::plan::Plan;\nuse crate::{ui::Printer, ops::Project};\n// crate::cli in a comment\n",
    );
    let named: Vec<(usize, &str)> = found.iter().map(|u| (u.line, u.to.as_str())).collect();
    assert_eq!(named, vec![(1, "plan"), (2, "ops")]);
    // Downward and own-floor paths, leaf crates and `$crate` are fine.
    let fine = upward_in(
        Path::new("plan/mod.rs"),
        "use crate::model::lock;\nuse crate::plan::to_host;\nuse crate::formats::Format;\n$crate::x\n",
    );
    assert_eq!(fine, Vec::new());
    // A path to a module that sits on no floor is caught too.
    let stray = upward_in(Path::new("ui/diag.rs"), "crate::manifest::parse(x)");
    assert_eq!(stray.len(), 1);
    // Unit tests at the end of a file are not the floor's code.
    let tests = upward_in(
        Path::new("model/lock.rs"),
        "use crate::util::fsutil;\n#[cfg(test)]\nmod tests {\n    use crate::plan::Plan;\n}\n",
    );
    assert_eq!(tests, Vec::new());
}
