//! Publishing to a static registry folder: `package`, `publish --index`, `yank`, and
//! `publish --server-json`; the folder is then served over loopback HTTP like any web server.

use std::path::{Path, PathBuf};

use predicates::str::contains;

use crate::support::{Env, StaticServer, package, snapshot};

/// Writes the package `name` `version` into its own folder under the temp HOME.
fn package_dir(env: &Env, name: &str, version: &str) -> PathBuf {
    let dir = env.home.path().join(format!("src-{name}-{version}"));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("dotpack.toml"), package(name, version, &[])).unwrap();
    dir
}

/// A project that installs into Claude Code's `.mcp.json`.
const PROJECT: &str = "[project]\nhosts = [\"claude-code\"]\n";

fn publish(env: &Env, dir: &Path, index: &Path) {
    env.dotpack_in(dir)
        .args(["publish", "--index"])
        .arg(index)
        .assert()
        .success()
        .stderr(contains("Published"));
}

fn locked_version(project: &Path, name: &str) -> String {
    let lock = std::fs::read_to_string(project.join("dotpack.lock")).unwrap();
    let at = lock
        .find(&format!("name = \"{name}\""))
        .unwrap_or_else(|| panic!("{name} not locked:\n{lock}"));
    let rest = &lock[at..];
    let version = rest.split("version = \"").nth(1).unwrap();
    version.split('"').next().unwrap().to_string()
}

fn new_project(env: &Env, name: &str) -> PathBuf {
    let dir = env.home.path().join(name);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("dotpack.toml"), PROJECT).unwrap();
    dir
}

#[test]
fn package_twice_gives_the_same_sha256() {
    let env = Env::new();
    let dir = package_dir(&env, "alpha", "1.0.0");
    let run = || {
        let out = env.dotpack_in(&dir).arg("package").output().unwrap();
        assert!(out.status.success(), "{out:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    let first = run();
    let second = run();
    assert!(
        first.contains(".dotpack-package/alpha-1.0.0.tar.gz"),
        "{first}"
    );
    let sha = first.lines().find(|l| l.starts_with("sha256:")).unwrap();
    assert_eq!(sha.len(), "sha256:".len() + 64, "{first}");
    assert_eq!(first, second);
    let bytes = std::fs::read(dir.join(".dotpack-package/alpha-1.0.0.tar.gz")).unwrap();
    assert_eq!(
        format!("sha256:{}", dotpack::registry::archive::sha256_hex(&bytes)),
        sha
    );
}

#[test]
fn published_package_is_added_from_the_folder_served_over_http() {
    let env = Env::new();
    let index = env.home.path().join("index");
    publish(&env, &package_dir(&env, "alpha", "1.0.0"), &index);
    for file in [
        "config.json",
        "names.txt",
        "al/ph/alpha",
        "dl/alpha/alpha-1.0.0.tar.gz",
    ] {
        assert!(index.join(file).is_file(), "{file} missing");
    }
    assert_eq!(
        std::fs::read_to_string(index.join("names.txt")).unwrap(),
        "alpha\n"
    );
    let server = StaticServer::start(&index);
    env.write("dotpack.toml", PROJECT);
    env.dotpack()
        .args(["--registry", &server.url(), "add", "alpha"])
        .assert()
        .success();
    let host = env.read(".mcp.json");
    assert!(host.contains("alpha-mcp@1.0.0"), "{host}");
    assert_eq!(locked_version(&env.project, "alpha"), "1.0.0");
}

#[test]
fn publishing_the_same_version_twice_is_refused_and_the_index_is_unchanged() {
    let env = Env::new();
    let index = env.home.path().join("index");
    let dir = package_dir(&env, "alpha", "1.0.0");
    publish(&env, &dir, &index);
    let before = snapshot(&index);
    // Even with other content: a published version never changes.
    std::fs::write(dir.join("README.md"), "changed\n").unwrap();
    env.dotpack_in(&dir)
        .args(["publish", "--index"])
        .arg(&index)
        .assert()
        .code(1)
        .stderr(contains("alpha 1.0.0 is already published"))
        .stderr(contains("nothing was written"))
        .stderr(contains("raise `version`"));
    assert_eq!(snapshot(&index), before);
}

#[test]
fn publish_refuses_an_invalid_manifest_with_its_line() {
    let env = Env::new();
    let index = env.home.path().join("index");
    let dir = env.home.path().join("bad");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("dotpack.toml"),
        "[package]\nname = \"bad\"\nversion = \"1.0.0\"\n\n[servers.bad]\ncommand = \"x\"\n",
    )
    .unwrap();
    env.dotpack_in(&dir)
        .args(["publish", "--index"])
        .arg(&index)
        .assert()
        .code(1)
        .stderr(contains("dotpack.toml:6"))
        .stderr(contains("needs `args`"));
    assert!(!index.exists());
}

#[test]
fn yank_skips_the_version_for_new_resolutions_but_locked_installs_keep_it() {
    let env = Env::new();
    let index = env.home.path().join("index");
    publish(&env, &package_dir(&env, "alpha", "1.0.0"), &index);
    publish(&env, &package_dir(&env, "alpha", "1.1.0"), &index);
    let server = StaticServer::start(&index);
    let url = server.url();

    let first = new_project(&env, "first");
    env.dotpack_in(&first)
        .args(["--registry", &url, "add", "alpha"])
        .assert()
        .success();
    assert_eq!(locked_version(&first, "alpha"), "1.1.0");

    env.dotpack_in(env.home.path())
        .args(["yank", "alpha@1.1.0", "--index"])
        .arg(&index)
        .assert()
        .success()
        .stderr(contains("Yanked alpha 1.1.0"));
    let line = std::fs::read_to_string(index.join("al/ph/alpha")).unwrap();
    assert!(
        line.lines().nth(1).unwrap().contains("\"yanked\":true"),
        "{line}"
    );

    // The lock that pins the yanked version still installs it, from a clean host file.
    std::fs::remove_file(first.join(".mcp.json")).unwrap();
    env.dotpack_in(&first)
        .args(["--registry", &url, "install", "--locked", "--force"])
        .assert()
        .success();
    let host = std::fs::read_to_string(first.join(".mcp.json")).unwrap();
    assert!(host.contains("alpha-mcp@1.1.0"), "{host}");

    // A new resolution skips it.
    let second = new_project(&env, "second");
    env.dotpack_in(&second)
        .args(["--registry", &url, "add", "alpha"])
        .assert()
        .success();
    assert_eq!(locked_version(&second, "alpha"), "1.0.0");

    // --undo makes it the newest again.
    env.dotpack_in(env.home.path())
        .args(["yank", "alpha@1.1.0", "--undo", "--index"])
        .arg(&index)
        .assert()
        .success()
        .stderr(contains("Unyanked alpha 1.1.0"));
    let third = new_project(&env, "third");
    env.dotpack_in(&third)
        .args(["--registry", &url, "add", "alpha"])
        .assert()
        .success();
    assert_eq!(locked_version(&third, "alpha"), "1.1.0");
}

#[test]
fn yank_of_a_version_never_published_fails_and_names_the_index() {
    let env = Env::new();
    let index = env.home.path().join("index");
    publish(&env, &package_dir(&env, "alpha", "1.0.0"), &index);
    let before = snapshot(&index);
    env.dotpack_in(env.home.path())
        .args(["yank", "alpha@2.0.0", "--index"])
        .arg(&index)
        .assert()
        .code(1)
        .stderr(contains("alpha 2.0.0 is not published in"));
    env.dotpack_in(env.home.path())
        .args(["yank", "alpha", "--index"])
        .arg(&index)
        .assert()
        .code(2)
        .stderr(contains("NAME@VERSION"));
    assert_eq!(snapshot(&index), before);
}

#[test]
fn server_json_is_valid_against_the_official_schema() {
    let env = Env::new();
    let dir = env.home.path().join("weather");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("dotpack.toml"),
        r#"[package]
name = "weather"
version = "1.2.0"
description = "Weather forecasts"
repository = "https://github.com/acme/weather"
homepage = "https://acme.example/weather"

[inputs.units]
description = "Units"
default = "metric"
enum = ["metric", "imperial"]

[inputs.city]
description = "Default city"
required = true

[servers.weather]
command = "docker"
args = ["run", "-i", "--rm", "--network", "host", "-e", "WEATHER_KEY", "ghcr.io/acme/weather:1.2.0", "--units", "{{props.units}}", "{{props.city}}"]
env = { WEATHER_KEY = "{{env.WEATHER_KEY}}" }
"#,
    )
    .unwrap();
    let out = env
        .dotpack_in(&dir)
        .args(["publish", "--server-json", "--out", "server.json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("server.json")).unwrap()).unwrap();
    let schema: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(
            crate::support::repo_root().join("tests/fixtures/server.schema.2025-12-11.json"),
        )
        .unwrap(),
    )
    .unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let errors: Vec<String> = validator.iter_errors(&doc).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "{errors:#?}\n{doc:#}");
    assert_eq!(doc["$schema"], dotpack::registry::server_json::SCHEMA_URL);
    assert_eq!(doc["name"], "io.github.acme/weather");
    let package = &doc["packages"][0];
    assert_eq!(package["registryType"], "oci");
    assert_eq!(package["runtimeArguments"][0]["name"], "--network");
    assert_eq!(package["runtimeArguments"][0]["value"], "host");
    assert_eq!(package["identifier"], "ghcr.io/acme/weather:1.2.0");
    assert_eq!(package["environmentVariables"][0]["isSecret"], true);
    assert_eq!(package["packageArguments"][1]["isRequired"], true);

    // The schema really checks: a document missing its description fails it.
    let mut broken = doc.clone();
    broken.as_object_mut().unwrap().remove("description");
    assert!(!validator.is_valid(&broken));
}

#[test]
fn server_json_names_the_field_it_cannot_express() {
    let env = Env::new();
    let dir = env.home.path().join("local");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("dotpack.toml"),
        "[package]\nname = \"local\"\nversion = \"1.0.0\"\ndescription = \"Local\"\nrepository = \"https://github.com/acme/local\"\n\n[servers.local]\ncommand = \"./server\"\nargs = []\n",
    )
    .unwrap();
    env.dotpack_in(&dir)
        .args(["publish", "--server-json"])
        .assert()
        .code(1)
        .stdout("")
        .stderr(contains("`servers.local.command`"))
        .stderr(contains("`./server` is none of them"));
}
