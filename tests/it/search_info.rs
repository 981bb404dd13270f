//! `search` and `info` on the built-in registry, human and `--json`.

use predicates::prelude::*;
use predicates::str::contains;

use crate::support::{Env, repo_root};

#[test]
fn search_finds_by_name_and_keyword() {
    let env = Env::new();
    env.dotpack()
        .args(["search", "figma"])
        .assert()
        .success()
        .stdout(contains("figma = \"0.3"));
    let out = env
        .dotpack()
        .args(["--json", "search", "browser"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let names: Vec<&str> = v["packages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"playwright"), "{names:?}");
}

#[test]
fn search_with_no_hits_says_so() {
    let env = Env::new();
    env.dotpack()
        .args(["search", "zzzzqqq"])
        .assert()
        .success()
        .stderr(contains("no packages match"));
}

#[test]
fn info_shows_servers_inputs_and_versions() {
    let env = Env::new();
    env.dotpack()
        .args(["info", "figma"])
        .assert()
        .success()
        .stdout(
            contains("figma 0.3")
                .and(contains("servers:"))
                .and(contains("port")),
        );
    let out = env
        .dotpack()
        .args(["--json", "info", "github"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["name"], "github");
    assert!(v["versions"].as_array().unwrap().len() >= 2);
    env.dotpack()
        .args(["info", "githb"])
        .assert()
        .code(1)
        .stderr(contains("`github`"));
}

#[test]
fn committed_index_matches_the_curated_manifests() {
    let env = Env::new();
    env.dotpack_in(&repo_root())
        .args([
            "registry",
            "build",
            "manifests",
            "--out",
            "registry-index",
            "--check",
        ])
        .assert()
        .success();
    let _ = env;
}
