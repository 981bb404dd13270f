//! `docs/dotpack.schema.json` is generated from the manifest types and the concept table
//! (`dotpack_docgen`), so editors check `dotpack.toml` against what dotpack really accepts. Run
//! `cargo run -p dotpack-docgen` (or this test with `UPDATE_DOCS=1`) to rewrite it. Every curated manifest and every whole manifest in the
//! docs must validate against it.

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn validator() -> jsonschema::Validator {
    jsonschema::draft7::new(&dotpack_docgen::manifest_schema()).expect("the schema compiles")
}

/// The TOML text as the JSON value an editor's TOML-to-JSON step gives the schema.
fn as_json(text: &str) -> serde_json::Value {
    let value: toml::Value = toml::from_str(text).expect("TOML parses");
    serde_json::to_value(value).expect("TOML is JSON")
}

fn errors(validator: &jsonschema::Validator, text: &str) -> Vec<String> {
    validator
        .iter_errors(&as_json(text))
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect()
}

#[test]
fn schema_doc_is_current() {
    let path = root().join("docs/dotpack.schema.json");
    let want = dotpack_docgen::render();
    if std::env::var_os("UPDATE_DOCS").is_some() {
        std::fs::write(&path, &want).unwrap();
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        have == want,
        "docs/dotpack.schema.json is out of date: run `cargo run -p dotpack-docgen`"
    );
}

#[test]
fn every_curated_manifest_validates() {
    let validator = validator();
    let mut count = 0;
    for entry in std::fs::read_dir(root().join("manifests")).unwrap() {
        let path = entry.unwrap().path().join("dotpack.toml");
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let found = errors(&validator, &text);
        assert!(found.is_empty(), "{}: {found:#?}", path.display());
        count += 1;
    }
    assert!(count > 5, "only {count} manifests found");
}

/// The ```toml blocks of a markdown file.
fn toml_blocks(text: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut current: Option<String> = None;
    for line in text.lines() {
        match &mut current {
            None if line.trim_start() == "```toml" => current = Some(String::new()),
            Some(block) if line.trim_start() == "```" => {
                blocks.push(std::mem::take(block));
                current = None;
            }
            Some(block) => {
                block.push_str(line);
                block.push('\n');
            }
            None => {}
        }
    }
    blocks
}

/// Whether a docs example is a whole manifest: dotpack itself accepts it as a `dotpack.toml`
/// (excerpts of host files, of the lock, and deliberately wrong examples are not).
fn is_whole_manifest(text: &str) -> bool {
    dotpack::model::manifest::parse(Path::new("dotpack.toml"), text.to_string()).is_ok()
}

#[test]
fn every_whole_manifest_in_the_docs_validates() {
    let validator = validator();
    let mut files: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    files.push(root().join("README.md"));
    let mut checked = 0;
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        for block in toml_blocks(&text) {
            if !is_whole_manifest(&block) {
                continue;
            }
            let found = errors(&validator, &block);
            assert!(
                found.is_empty(),
                "{}: an example dotpack accepts does not validate against the schema:\n{block}\n{found:#?}",
                file.display()
            );
            checked += 1;
        }
    }
    assert!(
        checked >= 5,
        "only {checked} whole manifests found in the docs"
    );
}

#[test]
fn the_schema_catches_the_usual_mistakes() {
    let validator = validator();
    for (text, mistake) in [
        (
            "[servers.x]\ncommand = \"a\"\nheaders = { A = \"b\" }\n",
            "a host's spelling",
        ),
        (
            "[servers.x]\ncommand = \"a\"\nurl = \"https://x\"\n",
            "two transports",
        ),
        ("[servers.x]\nargs = []\n", "no transport"),
        ("[project]\nhosts = [\"claude\"]\n", "an unknown host"),
        ("[project]\nscope = \"global\"\n", "an unknown scope"),
        ("[dependency]\nfigma = \"^0.3\"\n", "an unknown section"),
        ("[package]\nname = \"x\"\n", "a package without a version"),
        (
            "[dependencies]\nx = { registry = \"r\" }\n",
            "a dependency without a version",
        ),
        ("[settings]\nkeep_generations = -1\n", "a negative count"),
        (
            "[servers.x]\ncommand = \"a\"\nenabled = \"yes\"\n",
            "a string for a boolean",
        ),
    ] {
        assert!(
            !errors(&validator, text).is_empty(),
            "the schema accepts {mistake}:\n{text}"
        );
        assert!(
            dotpack::model::manifest::parse(Path::new("dotpack.toml"), text.to_string()).is_err(),
            "dotpack accepts {mistake}, which the schema refuses:\n{text}"
        );
    }
}
