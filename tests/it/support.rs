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
