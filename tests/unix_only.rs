//! dotpack builds for Windows (`.ci/run` checks it with `cargo clippy --target
//! x86_64-pc-windows-gnu`); this test keeps it so on any machine without that target: every use
//! of a Unix-only API (`std::os::unix`, `rustix`) in the code of `src/` and `crates/*/src` (test
//! modules aside) sits under a `cfg(unix)` gate a few lines above it, in a file listed here with
//! what its Windows fallback is (`src/util/portable.rs` says why each is enough).

use std::path::Path;

#[path = "common/rust_files.rs"]
mod files;
use files::rust_files;

/// The files allowed Unix-only calls, each with its gate's fallback.
const ALLOWED: &[(&str, &str)] = &[
    (
        "src/util/program.rs",
        "any file on PATH is runnable: its extension decides",
    ),
    (
        "src/ops/secrets.rs",
        "no session bus to look for: the Credential Manager or the Keychain",
    ),
    (
        "src/util/portable.rs",
        "owner, identity, writability, private mode: `fallback`",
    ),
    (
        "src/util/fsutil.rs",
        "a new file's mode: it gets its folder's ACL instead",
    ),
    (
        "src/util/fence.rs",
        "open: `open_plain`; kinds of files: \"not a regular file\"",
    ),
    (
        "src/registry/publish.rs",
        "the index lock opens without O_NOFOLLOW",
    ),
    ("src/ops/owners.rs", "no owner to compare"),
    (
        "src/ops/launch.rs",
        "waits for the server instead of exec",
    ),
    (
        "crates/mcp/src/stdio.rs",
        "TerminateProcess instead of signals to a group",
    ),
];

/// How many lines above a use its `cfg` may be.
const REACH: usize = 30;

const UNIX_ONLY: &[&str] = &["std::os::unix", "rustix::"];

/// `file:line` of each Unix-only use that is not gated, or is in a file not listed.
fn unguarded(root: &Path) -> Vec<String> {
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    if let Ok(crates) = std::fs::read_dir(root.join("crates")) {
        for krate in crates.flatten() {
            rust_files(&krate.path().join("src"), &mut files);
        }
    }
    let mut out = Vec::new();
    for file in files {
        let rel = file
            .strip_prefix(root)
            .unwrap_or(&file)
            .to_string_lossy()
            .replace('\\', "/");
        let name = file.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if name == "tests.rs" || name.ends_with("_tests.rs") {
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            if line.trim_start().starts_with("mod tests") {
                break; // test code may use anything
            }
            let code = line.split("//").next().unwrap_or("");
            if !UNIX_ONLY.iter().any(|api| code.contains(api)) {
                continue;
            }
            let listed = ALLOWED.iter().any(|(f, _)| *f == rel);
            let gated = lines[i.saturating_sub(REACH)..=i]
                .iter()
                .any(|l| l.contains("cfg(unix)") || l.contains("cfg(all(unix"));
            if !listed || !gated {
                out.push(format!("{rel}:{}: {}", i + 1, line.trim()));
            }
        }
    }
    out
}

#[test]
fn unix_only_calls_are_gated_for_windows() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let found = unguarded(root);
    assert!(
        found.is_empty(),
        "Unix-only calls without a `#[cfg(unix)]` gate and a Windows fallback (list the file in \
         tests/unix_only.rs with its fallback once it has one):\n{}",
        found.join("\n")
    );
}

#[test]
fn an_ungated_use_is_found() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    std::fs::create_dir_all(&src).unwrap();
    std::fs::write(
        src.join("x.rs"),
        "use std::os::unix::fs::MetadataExt;\n\n#[cfg(test)]\nmod tests {\n    use rustix::fs;\n}\n",
    )
    .unwrap();
    assert_eq!(
        unguarded(dir.path()),
        ["src/x.rs:1: use std::os::unix::fs::MetadataExt;"]
    );
}
