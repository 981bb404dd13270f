//! How dotpack talks to HTTP registries: a private registry's token, retries, timeouts,
//! parallel index fetches and search across registries, against servers on loopback.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use predicates::prelude::*;
use predicates::str::contains;

use crate::support::{Env, StaticServer, build_registry, package, snapshot};

const TOKEN: &str = "s3cret-token-value";

/// A registry with `alpha` 1.0.0, served on loopback.
fn alpha_registry(env: &Env) -> PathBuf {
    build_registry(env, &[("alpha", &package("alpha", "1.0.0", &[]))])
}

/// A project that takes `alpha` from the registry `corp` at `url`, whose token is in
/// CORP_TOKEN.
fn corp_project(env: &Env, url: &str) {
    env.write(
        "dotpack.toml",
        &format!(
            "[project]\nhosts = [\"claude-code\"]\n\n[registries]\ncorp = {{ url = \"{url}\", token_env = \"CORP_TOKEN\" }}\n\n[dependencies]\nalpha = {{ version = \"^1\", registry = \"corp\" }}\n"
        ),
    );
}

/// The user's own credentials: `url`'s token is in CORP_TOKEN.
fn corp_credentials(env: &Env, url: &str) {
    let home = env.home.path().join(".dotpack");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::write(
        home.join("credentials.toml"),
        format!("[registries.\"{url}\"]\ntoken_env = \"CORP_TOKEN\"\n"),
    )
    .unwrap();
}

/// Every file under `dir` whose bytes contain `needle`.
fn files_containing(dir: &Path, needle: &str) -> Vec<PathBuf> {
    snapshot(dir)
        .into_iter()
        .filter(|(_, bytes)| bytes.windows(needle.len()).any(|w| w == needle.as_bytes()))
        .map(|(path, _)| path)
        .collect()
}

#[test]
fn token_goes_to_its_registry_only_never_across_a_redirect_nor_to_disk_or_logs() {
    let env = Env::new();
    let index = alpha_registry(&env);
    let registry = StaticServer::start(&index);
    let mirror = StaticServer::start(&index);
    registry.require_authorization(&format!("Bearer {TOKEN}"));
    // Archives are handed out by another server (another port: another origin).
    registry.redirect("/dl/", &format!("{}dl/", mirror.url()));
    corp_project(&env, &registry.url());
    corp_credentials(&env, &registry.url());
    env.dotpack()
        .args(["-vv", "install"])
        .env("CORP_TOKEN", TOKEN)
        .env("DOTPACK_ALLOW_REDIRECTS", "1")
        .assert()
        .success()
        .stderr(contains("registry request"))
        .stderr(contains(TOKEN).not());
    let sent = registry.authorizations();
    assert!(!sent.is_empty());
    assert!(
        sent.iter()
            .all(|a| a.as_deref() == Some(&*format!("Bearer {TOKEN}"))),
        "{sent:?}"
    );
    let elsewhere = mirror.authorizations();
    assert!(!elsewhere.is_empty(), "the archive came from the mirror");
    assert!(elsewhere.iter().all(Option::is_none), "{elsewhere:?}");
    assert!(env.read(".mcp.json").contains("alpha-mcp@1.0.0"));
    assert_eq!(
        files_containing(env.home.path(), TOKEN),
        Vec::<PathBuf>::new()
    );
}

#[test]
fn refused_access_says_which_variable_holds_the_token() {
    let env = Env::new();
    let index = alpha_registry(&env);
    let registry = StaticServer::start(&index);
    registry.require_authorization(&format!("Bearer {TOKEN}"));
    corp_project(&env, &registry.url());
    corp_credentials(&env, &registry.url());
    env.dotpack()
        .arg("lock")
        .env_remove("CORP_TOKEN")
        .assert()
        .code(1)
        .stderr(contains("HTTP 401"))
        .stderr(contains("set the environment variable CORP_TOKEN"));
    env.dotpack()
        .arg("lock")
        .env("CORP_TOKEN", "wrong")
        .assert()
        .code(1)
        .stderr(contains(
            "refused the token from the environment variable CORP_TOKEN",
        ))
        .stderr(contains("wrong").not());
    // A 4xx is an answer, not a hiccup: asked once per attempt, never retried.
    assert_eq!(registry.requests().len(), 2, "{:?}", registry.requests());
}

#[test]
fn a_registry_without_a_token_says_where_to_keep_one_on_401() {
    let env = Env::new();
    let index = alpha_registry(&env);
    let registry = StaticServer::start(&index);
    registry.fail_with(Some(403));
    env.write("dotpack.toml", "[project]\nhosts = [\"claude-code\"]\n");
    env.dotpack()
        .args(["--registry", &registry.url(), "add", "alpha"])
        .assert()
        .code(1)
        .stderr(contains("HTTP 403"))
        .stderr(contains("$DOTPACK_HOME/credentials.toml"));
}

#[test]
fn server_errors_are_retried_until_the_server_answers() {
    let env = Env::new();
    let index = alpha_registry(&env);
    let server = StaticServer::start(&index);
    server.fail_next(500, 2);
    env.write("dotpack.toml", "[project]\nhosts = [\"claude-code\"]\n");
    env.dotpack()
        .args(["--registry", &server.url(), "add", "alpha"])
        .env("DOTPACK_HTTP_RETRY_DELAY_MS", "10")
        .assert()
        .success();
    let log = server.log();
    assert_eq!(
        log[..3],
        ["500 /config.json", "500 /config.json", "200 /config.json"]
    );
    assert!(env.read(".mcp.json").contains("alpha-mcp@1.0.0"));
}

#[test]
fn too_many_requests_is_tried_again_and_a_long_retry_after_stops_at_once() {
    let env = Env::new();
    let index = alpha_registry(&env);
    let server = StaticServer::start(&index);
    server.fail_next(429, 1);
    server.retry_after(1);
    env.write("dotpack.toml", "[project]\nhosts = [\"claude-code\"]\n");
    env.dotpack()
        .args(["--registry", &server.url(), "add", "alpha"])
        .env("DOTPACK_HTTP_RETRY_DELAY_MS", "10")
        .assert()
        .success();
    let log = server.log();
    assert_eq!(log[..2], ["429 /config.json", "200 /config.json"]);
    // Asked to wait an hour: no second request, and the error says why.
    let env = Env::new();
    let index = alpha_registry(&env);
    let server = StaticServer::start(&index);
    server.fail_with(Some(429));
    server.retry_after(3600);
    env.write("dotpack.toml", "[project]\nhosts = [\"claude-code\"]\n");
    env.dotpack()
        .args(["--registry", &server.url(), "add", "alpha"])
        .env("DOTPACK_HTTP_RETRY_DELAY_MS", "10")
        .assert()
        .code(1)
        .stderr(contains("HTTP 429"))
        .stderr(contains("too many requests"));
    assert_eq!(server.requests().len(), 1, "{:?}", server.requests());
}

#[test]
fn retries_give_up_after_the_last_attempt_and_say_how_many() {
    let env = Env::new();
    let index = alpha_registry(&env);
    let server = StaticServer::start(&index);
    server.fail_with(Some(503));
    env.write("dotpack.toml", "[project]\nhosts = [\"claude-code\"]\n");
    env.dotpack()
        .args(["--registry", &server.url(), "add", "alpha"])
        .env("DOTPACK_HTTP_RETRY_DELAY_MS", "1")
        .env("DOTPACK_HTTP_RETRIES", "2")
        .assert()
        .code(1)
        .stderr(contains("HTTP 503"));
    // One attempt and two retries, for the first file; nothing after it.
    assert_eq!(server.requests().len(), 3, "{:?}", server.requests());
}

/// A server that accepts connections and never answers.
fn stalled_server() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming().take(16) {
            held.push(stream);
        }
        std::thread::sleep(Duration::from_secs(60));
    });
    url
}

#[test]
fn a_stalled_server_times_out_within_the_configured_timeout() {
    let env = Env::new();
    let url = stalled_server();
    env.write("dotpack.toml", "[project]\nhosts = [\"claude-code\"]\n");
    let before = snapshot(&env.project);
    let started = Instant::now();
    env.dotpack()
        .args(["--registry", &url, "add", "alpha"])
        .env("DOTPACK_HTTP_TIMEOUT", "1")
        .assert()
        .code(1)
        .stderr(contains("no answer within 1s"))
        .stderr(contains("DOTPACK_HTTP_TIMEOUT"));
    let took = started.elapsed();
    assert!(took < Duration::from_secs(8), "took {took:?}");
    assert_eq!(snapshot(&env.project), before);
}

#[test]
fn a_bad_timeout_value_is_an_error_naming_the_variable() {
    let env = Env::new();
    env.dotpack()
        .args(["search", "x"])
        .env("DOTPACK_HTTP_TIMEOUT", "soon")
        .assert()
        .code(1)
        .stderr(contains("DOTPACK_HTTP_TIMEOUT=`soon`"));
}

/// A file server that answers each connection on its own thread after `delay`, counting how many
/// requests it holds at once (from arrival until the answer is ready to send).
struct SlowServer {
    url: String,
    most_at_once: Arc<AtomicUsize>,
    served: Arc<AtomicUsize>,
}

fn slow_server(root: &Path, delay: Duration) -> SlowServer {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/", listener.local_addr().unwrap());
    let now = Arc::new(AtomicUsize::new(0));
    let most_at_once = Arc::new(AtomicUsize::new(0));
    let served = Arc::new(AtomicUsize::new(0));
    let root = root.to_path_buf();
    let (most, count) = (Arc::clone(&most_at_once), Arc::clone(&served));
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let (root, now, most, count) = (root.clone(), now.clone(), most.clone(), count.clone());
            std::thread::spawn(move || {
                let at_once = now.fetch_add(1, Ordering::SeqCst) + 1;
                most.fetch_max(at_once, Ordering::SeqCst);
                let mut buf = vec![0u8; 8192];
                let n = stream.read(&mut buf).unwrap_or(0);
                let text = String::from_utf8_lossy(&buf[..n]).to_string();
                let path = text.split(' ').nth(1).unwrap_or("/").to_string();
                std::thread::sleep(delay);
                let file = std::fs::read(root.join(path.trim_start_matches('/'))).ok();
                let (status, body) = match file {
                    Some(bytes) => ("200 OK", bytes),
                    None => ("404 Not Found", Vec::new()),
                };
                let head = format!(
                    "HTTP/1.1 {status}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                    body.len()
                );
                // Released before the answer goes out: a client that has the answer may send its
                // next request before this thread runs again, and that one is not held at once
                // with this one.
                count.fetch_add(1, Ordering::SeqCst);
                now.fetch_sub(1, Ordering::SeqCst);
                let _ = stream.write_all(head.as_bytes());
                let _ = stream.write_all(&body);
            });
        }
    });
    SlowServer {
        url,
        most_at_once,
        served,
    }
}

#[test]
fn index_files_of_one_resolution_are_fetched_side_by_side_at_most_eight_at_once() {
    let env = Env::new();
    let names: Vec<String> = (0..12).map(|i| format!("pkg{i:02}")).collect();
    let texts: Vec<String> = names.iter().map(|n| package(n, "1.0.0", &[])).collect();
    let packages: Vec<(&str, &str)> = names
        .iter()
        .zip(&texts)
        .map(|(n, t)| (n.as_str(), t.as_str()))
        .collect();
    let index = build_registry(&env, &packages);
    let server = slow_server(&index, Duration::from_millis(150));
    let deps: String = names.iter().map(|n| format!("{n} = \"^1\"\n")).collect();
    env.write(
        "dotpack.toml",
        &format!("[project]\nhosts = [\"claude-code\"]\n\n[dependencies]\n{deps}"),
    );
    env.dotpack()
        .args(["--registry", &server.url, "lock"])
        .assert()
        .success();
    let most = server.most_at_once.load(Ordering::SeqCst);
    assert!((2..=8).contains(&most), "{most} requests at once");
    // config.json, 12 index files and 12 archives, each held 150 ms: more than one at once is
    // only possible when they are fetched side by side.
    assert_eq!(server.served.load(Ordering::SeqCst), 25);
}

#[test]
fn search_covers_every_registry_and_names_each_result_s_registry() {
    let env = Env::new();
    let index = build_registry(
        &env,
        &[("weather-alpha", &package("weather-alpha", "1.0.0", &[]))],
    );
    let default = StaticServer::start(&index);
    let other_src = env.home.path().join("other-src");
    std::fs::create_dir_all(other_src.join("weather-beta")).unwrap();
    std::fs::write(
        other_src.join("weather-beta/dotpack.toml"),
        package("weather-beta", "2.0.0", &[]),
    )
    .unwrap();
    let other_index = env.home.path().join("other-index");
    env.dotpack_in(env.home.path())
        .args(["registry", "build"])
        .arg(&other_src)
        .arg("--out")
        .arg(&other_index)
        .assert()
        .success();
    let corp = StaticServer::start(&other_index);
    env.write(
        "dotpack.toml",
        &format!("[registries]\ncorp = {{ url = \"{}\" }}\n", corp.url()),
    );
    let out = env
        .dotpack()
        .args(["search", "weather"])
        .env("DOTPACK_REGISTRY", default.url())
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.lines()
            .any(|l| l.starts_with("weather-alpha") && l.ends_with("(registry default)")),
        "{text}"
    );
    assert!(
        text.lines()
            .any(|l| l.starts_with("weather-beta") && l.ends_with("(registry corp)")),
        "{text}"
    );

    // One registry down: the other's results still come, with a warning.
    corp.fail_with(Some(500));
    env.dotpack()
        .args(["search", "weather"])
        .env("DOTPACK_REGISTRY", default.url())
        .env("DOTPACK_HTTP_RETRIES", "0")
        .assert()
        .success()
        .stdout(contains("weather-alpha"))
        .stderr(contains("registry corp was not searched"));
}

#[test]
fn slow_requests_show_no_progress_on_a_pipe() {
    let env = Env::new();
    let index = alpha_registry(&env);
    // Longer than the moment after which a terminal gets a spinner.
    let server = slow_server(&index, Duration::from_millis(600));
    env.write("dotpack.toml", "[project]\nhosts = [\"claude-code\"]\n");
    let out = env
        .dotpack()
        .args(["--registry", &server.url, "add", "alpha"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(!stderr.contains("in flight"), "{stderr}");
    assert!(!stderr.contains('\u{1b}'), "{stderr}");
    assert!(!stderr.contains('\r'), "{stderr}");
}

#[test]
fn slow_requests_show_a_spinner_on_a_terminal() {
    // `script` gives dotpack a pseudo-terminal for stdout and stderr, as a shell would.
    if std::process::Command::new("script")
        .arg("--version")
        .output()
        .is_err()
    {
        panic!("this test needs `script` (util-linux) to make a terminal");
    }
    let env = Env::new();
    let index = alpha_registry(&env);
    let server = slow_server(&index, Duration::from_millis(900));
    env.write("dotpack.toml", "[project]\nhosts = [\"claude-code\"]\n");
    let dotpack = env.process_in(&env.project);
    let line = format!(
        "{} --registry {} add alpha",
        assert_cmd::cargo::cargo_bin("dotpack").display(),
        server.url
    );
    let mut cmd = std::process::Command::new("script");
    cmd.args(["-qec", &line, "/dev/null"])
        .current_dir(&env.project);
    for (key, value) in dotpack.get_envs() {
        match value {
            Some(value) => cmd.env(key, value),
            None => cmd.env_remove(key),
        };
    }
    let out = cmd.output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("in flight"), "{text}");
    assert!(text.contains("Adding"), "{text}");
}

/// A proxy in front of `upstream` that drops the first `drops` connections without an answer
/// (the server closed or reset them), then passes requests through.
fn dropping_server(upstream: String, drops: usize) -> (String, Arc<AtomicUsize>) {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/", listener.local_addr().unwrap());
    let seen = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&seen);
    let upstream = upstream
        .trim_start_matches("http://")
        .trim_end_matches('/')
        .to_string();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut buf = vec![0u8; 16 * 1024];
            let n = stream.read(&mut buf).unwrap_or(0);
            if counter.fetch_add(1, Ordering::SeqCst) < drops {
                drop(stream);
                continue;
            }
            let Ok(mut up) = std::net::TcpStream::connect(&upstream) else {
                continue;
            };
            let _ = up.write_all(&buf[..n]);
            let mut answer = Vec::new();
            let _ = up.read_to_end(&mut answer);
            let _ = stream.write_all(&answer);
        }
    });
    (url, seen)
}

#[test]
fn a_connection_closed_before_the_answer_is_retried() {
    let env = Env::new();
    let index = alpha_registry(&env);
    let server = StaticServer::start(&index);
    let (url, seen) = dropping_server(server.url(), 2);
    env.write("dotpack.toml", "[project]\nhosts = [\"claude-code\"]\n");
    env.dotpack()
        .args(["--registry", &url, "add", "alpha"])
        .env("DOTPACK_HTTP_RETRY_DELAY_MS", "10")
        .assert()
        .success();
    // Two dropped, then config.json, the index file and the archive.
    assert_eq!(seen.load(Ordering::SeqCst), 5);
    assert!(env.read(".mcp.json").contains("alpha-mcp@1.0.0"));
    // Without retries the same hiccup is the end.
    let (url, _) = dropping_server(server.url(), 1);
    let other = env.home.path().join("other");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::write(
        other.join("dotpack.toml"),
        "[project]\nhosts = [\"claude-code\"]\n",
    )
    .unwrap();
    env.dotpack_in(&other)
        .args(["--registry", &url, "add", "alpha"])
        .env("DOTPACK_HTTP_RETRIES", "0")
        .assert()
        .code(1)
        .stderr(contains("cannot reach"));
}
