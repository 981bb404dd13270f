//! Under `--json` a failed command prints one JSON document on stdout whose `error` carries the
//! fix in its own `help` field, taken from the error's fields (the message never holds a `help:`
//! line), while stderr keeps the human `error: MESSAGE\n  help: FIX`. One failure per floor.

use serde_json::Value;

use crate::support::Env;

/// Runs `dotpack --json ARGS` expecting failure with `code`, and returns the `error` object.
fn failed(env: &Env, args: &[&str], code: i32) -> Value {
    let out = env.dotpack().arg("--json").args(args).output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(code),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{args:?}: stdout is not one JSON document ({e}): {}",
            String::from_utf8_lossy(&out.stdout)
        )
    });
    assert_eq!(doc["schema"], 1, "{doc}");
    let error = doc["error"].clone();
    let message = error["message"].as_str().expect("a message");
    assert!(!message.contains("help:"), "{args:?}: {message}");
    let help = error["help"].as_str().expect("a help field");
    // The human output on stderr is the same message and fix, on their own lines.
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!("error: {message}\n  help: {help}")),
        "{args:?}: {stderr}"
    );
    error
}

fn help(error: &Value) -> &str {
    error["help"].as_str().unwrap()
}

#[test]
fn an_unknown_host_names_the_hosts_in_help() {
    let env = Env::new();
    env.dotpack().args(["init", "-q"]).assert().success();
    // A flag given a value it does not take: bad usage, exit code 2.
    let error = failed(&env, &["install", "--host", "nope"], 2);
    assert_eq!(error["code"], "usage");
    assert_eq!(
        error["message"],
        "`nope` is not a host dotpack can install into"
    );
    assert!(
        help(&error).starts_with("hosts are: claude-code"),
        "{error}"
    );
}

#[test]
fn a_folder_that_is_not_a_registry_says_how_to_make_one() {
    let env = Env::new();
    env.dotpack().args(["init", "-q"]).assert().success();
    let empty = env.home.path().join("empty-registry");
    std::fs::create_dir_all(&empty).unwrap();
    let error = failed(&env, &["lock", "--registry", empty.to_str().unwrap()], 1);
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .ends_with("config.json: not found"),
        "{error}"
    );
    assert_eq!(
        help(&error),
        "this folder is not a dotpack registry index; create one with `dotpack registry build SOURCE --out FOLDER`"
    );
}

#[test]
fn a_lock_pin_the_registry_no_longer_serves_says_how_to_repin() {
    let env = Env::new();
    env.dotpack().args(["init", "-q"]).assert().success();
    env.dotpack()
        .args(["add", "figma", "--host", "cursor", "-q"])
        .assert()
        .success();
    let lock = std::fs::read_to_string(env.project.join("dotpack.lock")).unwrap();
    let (before, after) = lock.split_once("checksum = \"sha256:").unwrap();
    let rest = &after[64..];
    env.write(
        "dotpack.lock",
        &format!("{before}checksum = \"sha256:{}{rest}", "0".repeat(64)),
    );
    let error = failed(&env, &["install"], 1);
    let message = error["message"].as_str().unwrap();
    assert!(
        message.starts_with("checksum for `figma v0.3.1` changed since dotpack.lock pinned it"),
        "{message}"
    );
    assert!(
        help(&error).ends_with("run `dotpack update figma` to pin it"),
        "{error}"
    );
}

#[test]
fn a_generation_that_does_not_exist_points_at_history() {
    let env = Env::new();
    env.dotpack().args(["init", "-q"]).assert().success();
    let error = failed(&env, &["rollback", "99"], 1);
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .starts_with("there is no generation 99"),
        "{error}"
    );
    assert_eq!(help(&error), "`dotpack history` lists them");
}

#[test]
fn a_missing_manifest_says_to_init() {
    let env = Env::new();
    let error = failed(&env, &["status"], 1);
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .starts_with("could not find dotpack.toml in"),
        "{error}"
    );
    assert_eq!(help(&error), "run `dotpack init` to create one here");
    let nope = env.home.path().join("nope.toml");
    let error = failed(
        &env,
        &["status", "--manifest-path", nope.to_str().unwrap()],
        1,
    );
    assert_eq!(error["file"], nope.to_str().unwrap());
    assert_eq!(
        help(&error),
        "check --manifest-path, or run `dotpack init` to create one"
    );
}

#[test]
fn bad_usage_has_the_usage_code_and_exit_code_2() {
    let env = Env::new();
    env.dotpack().args(["init", "-q"]).assert().success();
    let error = failed(&env, &["install", "--allow-lossy=bogus"], 2);
    assert_eq!(error["code"], "usage");
    assert_eq!(
        error["message"],
        "--allow-lossy: `bogus` is not a server field or concept"
    );
    assert!(help(&error).starts_with("fields are: "), "{error}");
}
