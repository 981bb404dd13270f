//! `-v`, `-vv` and `DOTPACK_LOG`: what dotpack read, requested and planned, on stderr; nothing
//! with `--quiet`, and never a secret.

use predicates::prelude::*;
use predicates::str::contains;

use crate::support::{Env, StaticServer, assert_success, build_registry, package};

fn stderr(out: &std::process::Output) -> String {
    assert_success(out);
    String::from_utf8(out.stderr.clone()).unwrap()
}

#[test]
fn verbose_names_each_registry_request_and_whether_the_cache_was_current() {
    let env = Env::new();
    let index = build_registry(&env, &[("alpha", &package("alpha", "1.0.0", &[]))]);
    let server = StaticServer::start(&index);
    env.write(
        "dotpack.toml",
        "[project]\nhosts = [\"claude-code\"]\n\n[dependencies]\n",
    );
    let url = server.url();
    let first = stderr(
        &env.dotpack()
            .args(["-v", "--registry", &url, "add", "alpha"])
            .output()
            .unwrap(),
    );
    assert!(
        first.contains(&format!("url={url}al/ph/alpha status=200")),
        "{first}"
    );
    assert!(first.contains("read manifest"), "{first}");
    assert!(first.contains("read host file"), "{first}");
    assert!(first.contains("plan summary files=3"), "{first}");
    assert!(first.contains("resolve: close time.busy="), "{first}");
    let second = stderr(
        &env.dotpack()
            .args(["-v", "--registry", &url, "lock"])
            .output()
            .unwrap(),
    );
    assert!(second.contains("status=304 conditional=true"), "{second}");
    assert!(
        second.contains("revalidated: the cached copy is current"),
        "{second}"
    );
    assert!(second.contains("read lock"), "{second}");
}

#[test]
fn nothing_is_logged_without_v_or_with_quiet() {
    let env = Env::new();
    env.dotpack().arg("init").assert().success();
    let out = env.dotpack().args(["list"]).output().unwrap();
    assert!(!String::from_utf8_lossy(&out.stderr).contains("DEBUG"));
    env.dotpack()
        .env("DOTPACK_LOG", "trace")
        .args(["--quiet", "list"])
        .assert()
        .success()
        .stderr(predicate::str::is_empty());
    env.dotpack()
        .args(["-q", "-v", "list"])
        .assert()
        .code(2)
        .stderr(contains("cannot be used with"));
    env.dotpack()
        .env("DOTPACK_LOG", "dotpack=debug")
        .args(["list"])
        .assert()
        .success()
        .stderr(contains("DEBUG").and(contains("read manifest")));
}

#[test]
fn a_secret_input_value_is_never_logged() {
    let env = Env::new();
    let secret_pkg = "[package]\nname = \"vault\"\nversion = \"1.0.0\"\n\n[inputs.token]\nsecret = true\nrequired = true\n\n[servers.vault]\ncommand = \"npx\"\nargs = [\"-y\", \"vault-mcp\"]\nenv = { VAULT_TOKEN = \"{{props.token}}\" }\n";
    let reg = build_registry(&env, &[("vault", secret_pkg)]);
    env.write(
        "dotpack.toml",
        "[project]\nhosts = [\"claude-code\", \"codex\"]\n\n[dependencies]\n",
    );
    let value = "s3cr3t-Zq8vLw2pXk9";
    for (flag, log) in [("-vv", ""), ("-v", "trace")] {
        let mut cmd = env.dotpack();
        cmd.env("DOTPACK_REGISTRY", &reg)
            .env("VAULT_TOKEN", value)
            .env("DOTPACK_LOG", log);
        let out = cmd
            .args([
                flag,
                "add",
                "vault",
                "--set",
                &format!("token={value}"),
                "--dry-run",
            ])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("DEBUG") || err.contains("TRACE"), "{err}");
        assert!(!err.contains(value), "a secret reached the log:\n{err}");
    }
}
