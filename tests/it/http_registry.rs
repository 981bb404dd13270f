//! Registries served over HTTP: a real server on loopback, the cache, and `--offline`.

use std::path::PathBuf;

use predicates::prelude::*;
use predicates::str::contains;

use crate::support::{Env, StaticServer, build_registry, package, snapshot};

/// A registry with `alpha` 1.0.0 and `beta` 1.0.0, served on loopback.
fn serve(env: &Env) -> (PathBuf, StaticServer) {
    let index = build_registry(
        env,
        &[
            ("alpha", &package("alpha", "1.0.0", &[])),
            ("beta", &package("beta", "1.0.0", &[])),
        ],
    );
    let server = StaticServer::start(&index);
    (index, server)
}

fn init(env: &Env) {
    env.dotpack().arg("init").assert().success();
}

#[test]
fn add_locks_the_url_source_and_a_second_run_revalidates() {
    let env = Env::new();
    let (_index, server) = serve(&env);
    init(&env);
    env.dotpack()
        .args(["--registry", &server.url(), "add", "alpha"])
        .assert()
        .success();
    let lock = env.read("dotpack.lock");
    assert!(
        lock.contains(&format!("source = \"registry+{}\"", server.url())),
        "{lock}"
    );
    assert_eq!(
        server.log(),
        [
            "200 /config.json",
            "200 /al/ph/alpha",
            "200 /dl/alpha/alpha-1.0.0.tar.gz"
        ]
    );

    server.clear_requests();
    env.dotpack()
        .args(["--registry", &server.url(), "lock"])
        .assert()
        .success();
    assert_eq!(server.log(), ["304 /config.json", "304 /al/ph/alpha"]);
    assert_eq!(env.read("dotpack.lock"), lock);
}

#[test]
fn offline_uses_the_cache_and_names_what_is_missing() {
    let env = Env::new();
    let (_index, server) = serve(&env);
    init(&env);
    env.dotpack()
        .args(["--registry", &server.url(), "add", "alpha"])
        .assert()
        .success();
    // A second project on the same machine, offline: alpha comes from the cache alone.
    server.clear_requests();
    let other = env.home.path().join("other");
    std::fs::create_dir_all(&other).unwrap();
    env.dotpack_in(&other).arg("init").assert().success();
    env.dotpack_in(&other)
        .args(["--offline", "--registry", &server.url(), "add", "alpha"])
        .assert()
        .success();
    assert!(server.requests().is_empty(), "{:?}", server.requests());
    assert!(
        std::fs::read_to_string(other.join("dotpack.lock"))
            .unwrap()
            .contains("alpha")
    );

    let before = snapshot(&other);
    env.dotpack_in(&other)
        .args(["--offline", "--registry", &server.url(), "add", "beta"])
        .assert()
        .code(1)
        .stderr(contains("package `beta` is not in the cache"))
        .stderr(contains(format!("{}be/ta/beta", server.url())))
        .stderr(contains("run once without --offline"));
    assert!(server.requests().is_empty());
    assert_eq!(snapshot(&other), before);
}

#[test]
fn a_damaged_cache_entry_is_fetched_again() {
    let env = Env::new();
    let (_index, server) = serve(&env);
    init(&env);
    let add = |env: &Env| {
        env.dotpack()
            .args(["--registry", &server.url(), "lock"])
            .assert()
            .success();
    };
    env.write(
        "dotpack.toml",
        &format!("{}alpha = \"^1\"\n", env.read("dotpack.toml")),
    );
    add(&env);
    let cache = env.home.path().join(".dotpack/cache/registries");
    let entries: Vec<_> = std::fs::read_dir(&cache).unwrap().collect();
    assert_eq!(entries.len(), 1);
    let dir = entries[0].as_ref().unwrap().path();
    let name = dir.file_name().unwrap().to_str().unwrap().to_string();
    assert!(name.starts_with("127.0.0.1_"), "{name}");
    std::fs::write(dir.join("index/al/ph/alpha"), "garbage").unwrap();
    server.clear_requests();
    add(&env);
    assert_eq!(server.log(), ["304 /config.json", "200 /al/ph/alpha"]);
}

#[test]
fn a_tampered_archive_is_refused_and_nothing_changes() {
    let env = Env::new();
    let (index, server) = serve(&env);
    init(&env);
    std::fs::write(
        index.join("dl/alpha/alpha-1.0.0.tar.gz"),
        b"not the archive",
    )
    .unwrap();
    let before = snapshot(&env.project);
    env.dotpack()
        .args(["--registry", &server.url(), "add", "alpha"])
        .assert()
        .code(1)
        .stderr(contains("checksum mismatch for alpha 1.0.0"))
        .stderr(contains(format!(
            "{}dl/alpha/alpha-1.0.0.tar.gz",
            server.url()
        )));
    assert_eq!(snapshot(&env.project), before);
    let archives = snapshot(&env.home.path().join(".dotpack/cache"));
    assert!(
        archives
            .iter()
            .all(|(path, _)| !path.to_string_lossy().contains("archives")),
        "{archives:?}"
    );
}

#[test]
fn server_errors_and_refused_connections_name_the_url() {
    let env = Env::new();
    let (_index, server) = serve(&env);
    init(&env);
    server.fail_with(Some(500));
    env.dotpack()
        .args(["--registry", &server.url(), "add", "alpha"])
        .assert()
        .code(1)
        .stderr(contains(format!(
            "{}config.json answered HTTP 500",
            server.url()
        )))
        .stderr(contains("try again later"));

    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/", closed.local_addr().unwrap());
    drop(closed);
    env.dotpack()
        .args(["--registry", &url, "add", "alpha"])
        .assert()
        .code(1)
        .stderr(contains(format!("cannot reach {url}config.json")));
}

#[test]
fn named_registry_with_a_url_resolves_over_http() {
    let env = Env::new();
    let (_index, server) = serve(&env);
    init(&env);
    let manifest = env.read("dotpack.toml");
    env.write(
        "dotpack.toml",
        &format!(
            "{manifest}beta = {{ version = \"^1\", registry = \"web\" }}\n\n[registries]\nweb = {{ url = \"{}\" }}\n",
            server.url()
        ),
    );
    env.dotpack().arg("lock").assert().success();
    let lock = env.read("dotpack.lock");
    assert!(lock.contains("name = \"beta\""), "{lock}");
    assert!(
        lock.contains(&format!("source = \"registry+{}\"", server.url())),
        "{lock}"
    );
}

#[test]
fn search_lists_names_from_names_txt() {
    let env = Env::new();
    let (index, server) = serve(&env);
    env.dotpack()
        .args(["--registry", &server.url(), "search", "beta"])
        .assert()
        .success()
        .stdout(contains("beta"));
    // Offline, search covers what is cached.
    let cache = env.home.path().join(".dotpack/cache/registries");
    let dir = std::fs::read_dir(&cache)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    std::fs::remove_file(dir.join("index/al/ph/alpha")).unwrap();
    server.clear_requests();
    env.dotpack()
        .args(["--offline", "--registry", &server.url(), "search", "server"])
        .assert()
        .success()
        .stdout(contains("beta"))
        .stdout(contains("alpha").not());
    assert!(server.requests().is_empty());
    // Without names.txt there is nothing to list, and that is not an error.
    std::fs::remove_file(index.join("names.txt")).unwrap();
    env.dotpack()
        .args(["--registry", &server.url(), "search", "beta"])
        .assert()
        .success()
        .stderr(contains("no packages match"));
}
