//! `tree`, `why` and `outdated` on a project locked against a registry built for the test.

use std::path::PathBuf;

use predicates::prelude::*;
use predicates::str::contains;

use crate::support::{Env, assert_success, build_registry, package};

/// A project with `app` and `tool` declared and installed into Claude Code and Codex: `app`
/// needs `lib` and `util`, `lib` needs `util`, `util` needs `base`. Returns the registry.
fn locked_project(env: &Env) -> PathBuf {
    let reg = build_registry(
        env,
        &[
            (
                "app",
                &package("app", "1.0.0", &[("lib", "^1"), ("util", "^0.1")]),
            ),
            ("lib", &package("lib", "1.0.0", &[("util", "^0.1")])),
            ("util", &package("util", "0.1.0", &[("base", "^1")])),
            ("base", &package("base", "1.0.0", &[])),
            ("tool", &package("tool", "1.0.0", &[])),
        ],
    );
    env.write(
        "dotpack.toml",
        "[project]\nhosts = [\"claude-code\", \"codex\"]\n\n[dependencies]\n",
    );
    env.with_registry(&reg, &["add", "app", "tool"])
        .assert()
        .success();
    reg
}

/// Newer versions published after the project locked: compatible ones and breaking ones.
fn publish_newer(env: &Env) -> PathBuf {
    build_registry(
        env,
        &[
            ("lib-1.1.0", &package("lib", "1.1.0", &[("util", "^0.1")])),
            ("lib-2.0.0", &package("lib", "2.0.0", &[])),
            ("util-0.1.2", &package("util", "0.1.2", &[("base", "^1")])),
            ("util-0.2.0", &package("util", "0.2.0", &[])),
            ("tool-2.0.0", &package("tool", "2.0.0", &[])),
        ],
    )
}

fn stdout(out: &std::process::Output) -> String {
    assert_success(out);
    String::from_utf8(out.stdout.clone()).unwrap()
}

#[test]
fn tree_shows_dependencies_servers_and_hosts() {
    let env = Env::new();
    let reg = locked_project(&env);
    let all = stdout(&env.with_registry(&reg, &["tree"]).output().unwrap());
    let one = stdout(&env.with_registry(&reg, &["tree", "lib"]).output().unwrap());
    let inverted = stdout(
        &env.with_registry(&reg, &["tree", "--invert", "base"])
            .output()
            .unwrap(),
    );
    let shallow = stdout(
        &env.with_registry(&reg, &["tree", "--depth", "1"])
            .output()
            .unwrap(),
    );
    insta::assert_snapshot!(format!(
        "$ dotpack tree\n{all}\n$ dotpack tree lib\n{one}\n$ dotpack tree --invert base\n{inverted}\n$ dotpack tree --depth 1\n{shallow}"
    ));
}

#[test]
fn tree_json_nests_packages_with_their_places() {
    let env = Env::new();
    let reg = locked_project(&env);
    let out = stdout(
        &env.with_registry(&reg, &["--json", "tree"])
            .output()
            .unwrap(),
    );
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["schema"], 1);
    assert_eq!(v["direction"], "dependencies");
    let app = &v["roots"][0];
    assert_eq!(app["name"], "app");
    assert_eq!(app["declared"], true);
    assert_eq!(app["servers"][0]["name"], "app");
    let hosts: Vec<&str> = app["servers"][0]["installed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["host"].as_str().unwrap())
        .collect();
    assert_eq!(hosts, ["claude-code", "codex"]);
    let lib = &app["children"][0];
    assert_eq!(
        (&lib["name"], &lib["declared"]),
        (&"lib".into(), &false.into())
    );
    let util_again = &app["children"][1];
    assert_eq!(util_again["name"], "util");
    assert_eq!(util_again["repeat"], true);
    assert!(util_again.get("children").is_none());
    assert_eq!(v["roots"][1]["name"], "tool");
}

#[test]
fn tree_of_an_unknown_package_names_the_closest() {
    let env = Env::new();
    let reg = locked_project(&env);
    env.with_registry(&reg, &["tree", "utl"])
        .assert()
        .code(1)
        .stderr(contains("not in dotpack.lock").and(contains("did you mean `util`?")));
    env.with_registry(&reg, &["why", "nothing-like-it"])
        .assert()
        .code(1)
        .stderr(contains("`nothing-like-it` is not in dotpack.lock"));
}

#[test]
fn tree_without_a_lock_says_how_to_make_one() {
    let env = Env::new();
    env.write("dotpack.toml", "[dependencies]\n");
    env.dotpack()
        .arg("tree")
        .assert()
        .code(1)
        .stderr(contains("there is no dotpack.lock").and(contains("`dotpack lock`")));
}

#[test]
fn why_lists_every_path_from_a_declared_dependency() {
    let env = Env::new();
    let reg = locked_project(&env);
    let base = stdout(&env.with_registry(&reg, &["why", "base"]).output().unwrap());
    let tool = stdout(&env.with_registry(&reg, &["why", "tool"]).output().unwrap());
    insta::assert_snapshot!(format!(
        "$ dotpack why base\n{base}\n$ dotpack why tool\n{tool}"
    ));
    let out = stdout(
        &env.with_registry(&reg, &["--json", "why", "util"])
            .output()
            .unwrap(),
    );
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["schema"], 1);
    assert_eq!(v["version"], "0.1.0");
    assert_eq!(v["truncated"], false);
    let paths: Vec<String> = v["paths"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            assert_eq!(p["root"], "app");
            assert_eq!(p["requirement"], "^1.0");
            p["path"].to_string()
        })
        .collect();
    assert_eq!(paths, [r#"["app","lib","util"]"#, r#"["app","util"]"#]);
}

#[test]
fn outdated_shows_locked_compatible_and_newest() {
    let env = Env::new();
    locked_project(&env);
    let reg = publish_newer(&env);
    let out = env.with_registry(&reg, &["outdated"]).output().unwrap();
    let text = stdout(&out);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    insta::assert_snapshot!(format!("{text}\n{stderr}"));
    let out = stdout(
        &env.with_registry(&reg, &["--json", "outdated"])
            .output()
            .unwrap(),
    );
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["schema"], 1);
    let util = v["packages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "util")
        .unwrap();
    assert_eq!(util["locked"], "0.1.0");
    assert_eq!(util["compatible"], "0.1.2");
    assert_eq!(util["newest"], "0.2.0");
    assert_eq!(util["outdated"], true);
    assert_eq!(util["requirements"].as_array().unwrap().len(), 2);
    // Nothing was written: the lock still pins the old versions.
    assert!(env.read("dotpack.lock").contains("version = \"0.1.0\""));
}

#[test]
fn outdated_works_offline_from_a_local_registry() {
    let env = Env::new();
    let reg = locked_project(&env);
    env.with_registry(&reg, &["outdated", "--offline"])
        .assert()
        .success()
        .stdout(contains("app").and(contains("1.0.0")))
        .stderr(contains("every locked package is the newest"));
}
