//! `dotpack registry build` and registry reading.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use dotpack::registry::{DirIndex, IndexSource, RegistryError, archive};
use predicates::prelude::*;

use crate::support::Env;

fn package(name: &str, version: &str, deps: &str) -> String {
    format!(
        "[package]\nname = \"{name}\"\nversion = \"{version}\"\ndescription = \"The {name} server\"\n\n\
         [servers.{name}]\ncommand = \"uvx\"\nargs = [\"mcp-{name}\"]\n\n[dependencies]\n{deps}"
    )
}

/// A source folder: `figma` 0.3.1 depending on `time`, and `time` 0.2.0 and 0.2.1 as two
/// folders of one package.
fn source(env: &Env) {
    env.write(
        "src/figma/dotpack.toml",
        &package("figma", "0.3.1", "time = \"^0.2\"\n"),
    );
    env.write("src/figma/README.md", "Figma\n");
    env.write("src/time/0.2.0/dotpack.toml", &package("time", "0.2.0", ""));
    env.write("src/time/0.2.1/dotpack.toml", &package("time", "0.2.1", ""));
}

/// Every file under `root` with its bytes.
fn snapshot(root: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let rel = path.strip_prefix(root).unwrap().to_path_buf();
                out.insert(rel, std::fs::read(&path).unwrap());
            }
        }
    }
    out
}

fn build(env: &Env) -> assert_cmd::assert::Assert {
    env.dotpack()
        .args(["registry", "build", "src", "--out", "idx"])
        .assert()
}

#[test]
fn build_writes_sparse_layout_and_archives() {
    let env = Env::new();
    source(&env);
    build(&env)
        .success()
        .stderr(predicate::str::contains("Adding figma 0.3.1"))
        .stderr(predicate::str::contains("Adding time 0.2.1"));
    let files: Vec<PathBuf> = snapshot(&env.project.join("idx")).into_keys().collect();
    let expected: Vec<PathBuf> = [
        "config.json",
        "dl/figma/figma-0.3.1.tar.gz",
        "dl/time/time-0.2.0.tar.gz",
        "dl/time/time-0.2.1.tar.gz",
        "fi/gm/figma",
        "names.txt",
        "ti/me/time",
    ]
    .iter()
    .map(PathBuf::from)
    .collect();
    assert_eq!(files, expected);
    assert_eq!(env.read("idx/names.txt"), "figma\ntime\n");

    let index = DirIndex::open(&env.project.join("idx"), "test").unwrap();
    assert_eq!(index.names().unwrap(), ["figma", "time"]);
    let time = index.versions("time").unwrap().unwrap();
    let versions: Vec<String> = time.iter().map(|l| l.vers.to_string()).collect();
    assert_eq!(versions, ["0.2.0", "0.2.1"]);
    let figma = &index.versions("figma").unwrap().unwrap()[0];
    assert_eq!(figma.deps[0].name, "time");
    assert_eq!(figma.deps[0].req.to_string(), "^0.2");
    assert_eq!(figma.servers, ["figma"]);
    assert_eq!(figma.description.as_deref(), Some("The figma server"));

    let bytes = index.archive(figma).unwrap();
    let manifest = archive::package_manifest(&bytes, "figma").unwrap();
    assert_eq!(manifest, env.read("src/figma/dotpack.toml"));
    let inside = archive::read_files(&bytes, "figma").unwrap();
    assert!(inside.contains_key("figma-0.3.1/README.md"));
}

#[test]
fn names_file_keeps_every_published_name() {
    let env = Env::new();
    source(&env);
    build(&env).success();
    std::fs::remove_dir_all(env.project.join("src/figma")).unwrap();
    env.write("src/alpha/dotpack.toml", &package("alpha", "1.0.0", ""));
    build(&env).success();
    assert_eq!(env.read("idx/names.txt"), "alpha\nfigma\ntime\n");
}

#[test]
fn rebuilding_unchanged_source_changes_no_byte() {
    let env = Env::new();
    source(&env);
    build(&env).success();
    let before = snapshot(&env.project.join("idx"));
    build(&env)
        .success()
        .stderr(predicate::str::contains("0 added, 3 unchanged"));
    assert_eq!(snapshot(&env.project.join("idx")), before);
}

#[test]
fn new_version_appends_one_line_and_keeps_the_rest() {
    let env = Env::new();
    source(&env);
    build(&env).success();
    // A maintainer yanked 0.2.0 by hand; the build must keep that line as it is.
    let time_file = env.read("idx/ti/me/time");
    let yanked = time_file.replacen("\"yanked\":false", "\"yanked\":true", 1);
    env.write("idx/ti/me/time", &yanked);
    let before = snapshot(&env.project.join("idx"));

    env.write("src/time/0.3.0/dotpack.toml", &package("time", "0.3.0", ""));
    build(&env)
        .success()
        .stderr(predicate::str::contains("Adding time 0.3.0"));
    let after = snapshot(&env.project.join("idx"));

    let new_text = env.read("idx/ti/me/time");
    assert!(new_text.starts_with(&yanked), "{new_text}");
    let added: Vec<&str> = new_text[yanked.len()..].lines().collect();
    assert_eq!(added.len(), 1);
    assert!(added[0].contains("\"vers\":\"0.3.0\""));
    for (path, bytes) in &before {
        if path != Path::new("ti/me/time") {
            assert_eq!(after.get(path), Some(bytes), "{}", path.display());
        }
    }
    assert!(after.contains_key(Path::new("dl/time/time-0.3.0.tar.gz")));
}

#[test]
fn packages_removed_from_source_stay_published() {
    let env = Env::new();
    source(&env);
    build(&env).success();
    std::fs::remove_dir_all(env.project.join("src/time/0.2.0")).unwrap();
    let before = snapshot(&env.project.join("idx"));
    build(&env).success();
    assert_eq!(snapshot(&env.project.join("idx")), before);
}

#[test]
fn changing_a_published_version_fails_and_writes_nothing() {
    let env = Env::new();
    source(&env);
    build(&env).success();
    let before = snapshot(&env.project.join("idx"));
    env.write("src/time/0.2.1/extra.md", "new content\n");
    env.write("src/time/0.4.0/dotpack.toml", &package("time", "0.4.0", ""));
    build(&env)
        .code(1)
        .stderr(predicate::str::contains("dotpack.toml"))
        .stderr(predicate::str::contains("time 0.2.1"))
        .stderr(predicate::str::contains(
            "already published with different content; bump the version",
        ));
    assert_eq!(snapshot(&env.project.join("idx")), before);
}

#[test]
fn check_fails_when_out_of_date_and_passes_when_current() {
    let env = Env::new();
    source(&env);
    env.dotpack()
        .args(["registry", "build", "src", "--out", "idx", "--check"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("out of date"))
        .stderr(predicate::str::contains("fi/gm/figma"))
        .stderr(predicate::str::contains("run `dotpack registry build`"));
    assert!(!env.project.join("idx").exists());
    build(&env).success();
    env.dotpack()
        .args(["registry", "build", "src", "--out", "idx", "--check"])
        .assert()
        .success();
    env.write("src/new/dotpack.toml", &package("new", "1.0.0", ""));
    env.dotpack()
        .args(["registry", "build", "src", "--out", "idx", "--check"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("3/n/new"));
}

#[test]
fn duplicate_version_in_two_folders_names_both() {
    let env = Env::new();
    source(&env);
    env.write("src/copy/dotpack.toml", &package("time", "0.2.1", ""));
    build(&env)
        .code(1)
        .stderr(predicate::str::contains("time 0.2.1 is declared twice"))
        .stderr(predicate::str::contains("copy"))
        .stderr(predicate::str::contains("0.2.1"));
    assert!(!env.project.join("idx").exists());
}

#[test]
fn invalid_manifest_fails_naming_file_and_line() {
    let env = Env::new();
    source(&env);
    env.write(
        "src/broken/dotpack.toml",
        "[package]\nname = \"broken\"\nversion = [\n",
    );
    build(&env)
        .code(1)
        .stderr(predicate::str::contains("broken"))
        .stderr(predicate::str::contains("dotpack.toml:3"));
    assert!(!env.project.join("idx").exists());
}

#[test]
fn dependency_on_unknown_package_fails() {
    let env = Env::new();
    env.write(
        "src/a/dotpack.toml",
        &package("a", "1.0.0", "ghost = \"^1\"\n"),
    );
    build(&env)
        .code(1)
        .stderr(predicate::str::contains("dependency `ghost`"))
        .stderr(predicate::str::contains("neither in the index nor in"));
}

#[test]
fn checksum_mismatch_is_caught_when_reading_an_archive() {
    let env = Env::new();
    source(&env);
    build(&env).success();
    let archive = env.project.join("idx/dl/time/time-0.2.0.tar.gz");
    let mut bytes = std::fs::read(&archive).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0xff;
    std::fs::write(&archive, &bytes).unwrap();

    let index = DirIndex::open(&env.project.join("idx"), "test").unwrap();
    let line = index.versions("time").unwrap().unwrap()[0].clone();
    match index.archive(&line) {
        Err(RegistryError::ChecksumMismatch {
            file,
            expected,
            actual,
            ..
        }) => {
            assert!(file.ends_with("time-0.2.0.tar.gz"), "{file}");
            assert_eq!(expected, line.cksum);
            assert_eq!(actual, archive::sha256_hex(&bytes));
        }
        other => panic!("expected ChecksumMismatch, got {other:?}"),
    }
}

#[test]
fn output_folder_that_is_not_an_index_is_refused() {
    let env = Env::new();
    source(&env);
    env.write("idx/config.json", "{\"something\": \"else\"}\n");
    build(&env)
        .code(1)
        .stderr(predicate::str::contains("config.json"));
}

#[test]
fn recompressed_archive_with_same_files_is_not_an_edit() {
    use std::io::{Read, Write};
    let env = Env::new();
    source(&env);
    build(&env).success();
    // Re-gzip the published archive at another level, as another gzip implementation might,
    // and publish its checksum: same files, different bytes.
    let path = env.project.join("idx/dl/time/time-0.2.0.tar.gz");
    let original = std::fs::read(&path).unwrap();
    let mut tar = Vec::new();
    flate2::read::GzDecoder::new(original.as_slice())
        .read_to_end(&mut tar)
        .unwrap();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    gz.write_all(&tar).unwrap();
    let recompressed = gz.finish().unwrap();
    assert_ne!(recompressed, original);
    std::fs::write(&path, &recompressed).unwrap();
    let index = env.read("idx/ti/me/time").replace(
        &archive::sha256_hex(&original),
        &archive::sha256_hex(&recompressed),
    );
    env.write("idx/ti/me/time", &index);
    let before = snapshot(&env.project.join("idx"));

    build(&env)
        .success()
        .stderr(predicate::str::contains("0 added, 3 unchanged"));
    assert_eq!(snapshot(&env.project.join("idx")), before);
}
