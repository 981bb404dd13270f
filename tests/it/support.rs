//! Shared fixtures: a temporary HOME and project, and a `dotpack` command pointed at them.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use tempfile::TempDir;

/// A temporary HOME with an empty project folder inside it.
pub struct Env {
    pub home: TempDir,
    pub project: PathBuf,
}

impl Env {
    pub fn new() -> Self {
        let home = tempfile::tempdir().expect("temp dir");
        let project = home.path().join("project");
        std::fs::create_dir_all(&project).expect("create project dir");
        Env { home, project }
    }

    /// `dotpack` run in the project folder with HOME and DOTPACK_HOME inside the temp dir.
    pub fn dotpack(&self) -> Command {
        self.dotpack_in(&self.project)
    }

    pub fn dotpack_in(&self, cwd: &Path) -> Command {
        let mut cmd = Command::cargo_bin("dotpack").expect("dotpack binary");
        cmd.current_dir(cwd)
            .env("HOME", self.home.path())
            .env("DOTPACK_HOME", self.home.path().join(".dotpack"))
            .env("NO_COLOR", "1")
            .env_remove("DOTPACK_REGISTRY")
            .env_remove("CODEX_HOME");
        cmd
    }

    pub fn write(&self, rel: &str, text: &str) -> PathBuf {
        let path = self.project.join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("create parent");
        }
        std::fs::write(&path, text).expect("write file");
        path
    }

    pub fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.project.join(rel)).expect("read file")
    }
}

/// The repository root (for `manifests/` and `registry-index/`).
pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A registry built by the real `dotpack registry build` from package manifests given as
/// `(folder, dotpack.toml text)` pairs. Returns the index folder, for `--registry`.
pub fn build_registry(env: &Env, packages: &[(&str, &str)]) -> PathBuf {
    let src = env.home.path().join("registry-src");
    for (folder, text) in packages {
        let dir = src.join(folder);
        std::fs::create_dir_all(&dir).expect("create package dir");
        std::fs::write(dir.join("dotpack.toml"), text).expect("write package manifest");
    }
    let out = env.home.path().join("registry-index");
    env.dotpack_in(env.home.path())
        .arg("registry")
        .arg("build")
        .arg(&src)
        .arg("--out")
        .arg(&out)
        .assert()
        .success();
    out
}

/// The text of a package manifest with one stdio server named after the package.
pub fn package(name: &str, version: &str, deps: &[(&str, &str)]) -> String {
    let mut text = format!(
        "[package]\nname = \"{name}\"\nversion = \"{version}\"\ndescription = \"The {name} server\"\n\n[servers.{name}]\ncommand = \"npx\"\nargs = [\"-y\", \"{name}-mcp@{version}\"]\n"
    );
    if !deps.is_empty() {
        text.push_str("\n[dependencies]\n");
        for (dep, req) in deps {
            text.push_str(&format!("{dep} = \"{req}\"\n"));
        }
    }
    text
}

/// Every file under `dir` with its bytes, to assert that a failed command changed nothing.
pub fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if let Ok(bytes) = std::fs::read(&path) {
                out.push((path, bytes));
            }
        }
    }
    out.sort();
    out
}
