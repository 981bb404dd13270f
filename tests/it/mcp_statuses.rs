//! The MCP Registry's statuses as its guidance asks a client to treat them: a deleted version
//! (moderation: malware, spam) is never installed, whether the registry hides it (the official
//! one) or lists it with its status (a mirror); a locked version that vanished is named with the
//! registry's reason; a deprecated version installs with its message as a warning.

use predicates::prelude::*;
use predicates::str::contains;

use crate::support::Env;
use crate::support_mcp::McpServer;

const WEATHER: &str = "io.github.acme/weather";
const MALWARE: &str = "Removed by moderators: the package runs a credential stealer";

/// A project with Claude Code and the loopback registry as `mcp`, `weather` added at 1.1.0 and
/// declared as `req` (`add` writes `^1.1`; `^1` lets the lock move back to 1.0.0).
fn locked_at_newest(server: &McpServer, req: &str) -> Env {
    let env = Env::new();
    env.write(
        "dotpack.toml",
        &format!(
            "[project]\nhosts = [\"claude-code\"]\n\n[registries]\nmcp = {{ url = \"{}\", kind = \"mcp-registry\" }}\n",
            server.url()
        ),
    );
    env.dotpack().args(["add", WEATHER]).assert().success();
    let manifest = env.read("dotpack.toml");
    assert!(manifest.contains("\"^1.1\""), "{manifest}");
    env.write(
        "dotpack.toml",
        &manifest.replace("\"^1.1\"", &format!("\"{req}\"")),
    );
    env.dotpack().args(["lock"]).assert().success();
    assert!(env.read("dotpack.lock").contains("version = \"1.1.0\""));
    env
}

/// A teammate's fresh HOME and clone of `env`'s committed files.
fn clone_of(env: &Env) -> Env {
    let teammate = Env::new();
    teammate.write("dotpack.toml", &env.read("dotpack.toml"));
    teammate.write("dotpack.lock", &env.read("dotpack.lock"));
    teammate
}

#[test]
fn a_locked_version_the_registry_deleted_is_named_with_its_reason_and_not_installed() {
    let server = McpServer::fixtures();
    let env = locked_at_newest(&server, "^1");
    server.hide_deleted();
    server.delete_because(WEATHER, "1.1.0", MALWARE);

    let teammate = clone_of(&env);
    server.clear_requests();
    teammate
        .dotpack()
        .args(["install", "--locked"])
        .assert()
        .failure()
        .stderr(contains(format!(
            "`{WEATHER}` 1.1.0, which dotpack.lock pins, cannot be installed any more: the registry deleted it: {MALWARE}"
        )))
        .stderr(contains(format!("run `dotpack update {WEATHER}`")));
    assert!(!teammate.project.join(".mcp.json").exists());
    assert_eq!(teammate.read("dotpack.lock"), env.read("dotpack.lock"));
    // The registry hides deleted versions from its lists: the reason was asked for.
    let requests = server.requests();
    assert!(
        requests
            .iter()
            .any(|r| r.contains("/versions/1.1.0?include_deleted=true")),
        "{requests:#?}"
    );

    // Without --locked the lock moves to what the registry still offers, and says why.
    teammate
        .dotpack()
        .args(["install"])
        .assert()
        .success()
        .stderr(contains(format!(
            "`{WEATHER}` 1.1.0, which dotpack.lock pins, cannot be installed any more: the registry deleted it: {MALWARE}; locked 1.0.0 instead"
        )));
    assert!(
        teammate
            .read("dotpack.lock")
            .contains("version = \"1.0.0\"")
    );
    assert!(
        teammate
            .read(".mcp.json")
            .contains("@acme/weather-mcp@1.0.0")
    );
}

#[test]
fn a_mirror_listing_a_deleted_version_never_installs_it_even_when_locked() {
    let server = McpServer::fixtures();
    let env = locked_at_newest(&server, "^1");
    // A mirror lists the deleted version with its status, where the official registry hides it.
    server.delete_because(WEATHER, "1.1.0", MALWARE);

    let teammate = clone_of(&env);
    teammate
        .dotpack()
        .args(["install", "--locked"])
        .assert()
        .failure()
        .stderr(contains(format!(
            "1.1.0, which dotpack.lock pins, cannot be installed any more: the registry deleted it: {MALWARE}"
        )));
    assert!(!teammate.project.join(".mcp.json").exists());

    // A new `add` takes the newest version that is not deleted, and `info` says why.
    let fresh = Env::new();
    fresh.write("dotpack.toml", &env.read("dotpack.toml"));
    fresh.dotpack().args(["add", WEATHER]).assert().success();
    assert!(fresh.read("dotpack.lock").contains("version = \"1.0.0\""));
    fresh
        .dotpack()
        .args(["info", WEATHER])
        .assert()
        .success()
        .stdout(contains(format!(
            "cannot be installed: 1.1.0 (the registry deleted it: {MALWARE})"
        )));
}

#[test]
fn a_package_whose_only_fitting_version_was_deleted_names_it_before_the_requirement() {
    let server = McpServer::fixtures();
    let env = locked_at_newest(&server, "^1.1");
    server.hide_deleted();
    server.delete_because(WEATHER, "1.1.0", "");
    env.dotpack()
        .args(["install"])
        .assert()
        .failure()
        .stderr(contains(format!(
            "`{WEATHER}` 1.1.0, which dotpack.lock pins, cannot be installed any more: the registry deleted it and gives no reason"
        )));
}

#[test]
fn a_locked_version_the_registry_no_longer_has_says_so() {
    let server = McpServer::fixtures();
    let env = locked_at_newest(&server, "^1");
    server.hide_deleted();
    server.delete_because(WEATHER, "1.1.0", "");
    // Hidden even when asked for: the registry has no record of it any more.
    server.forget(WEATHER, "1.1.0");
    clone_of(&env)
        .dotpack()
        .args(["install", "--locked"])
        .assert()
        .failure()
        .stderr(contains(format!(
            "`{WEATHER}` 1.1.0, which dotpack.lock pins, cannot be installed any more: the registry no longer has it"
        )));
}

#[test]
fn a_deprecated_version_installs_with_the_registrys_message_as_a_warning() {
    let server = McpServer::fixtures();
    server.deprecate(WEATHER, "1.1.0", "Superseded by io.github.acme/forecast");
    let env = Env::new();
    env.write(
        "dotpack.toml",
        &format!(
            "[project]\nhosts = [\"claude-code\"]\n\n[registries]\nmcp = {{ url = \"{}\", kind = \"mcp-registry\" }}\n",
            server.url()
        ),
    );
    let warning = format!(
        "`{WEATHER}` 1.1.0: the registry marks it deprecated: Superseded by io.github.acme/forecast"
    );
    env.dotpack()
        .args(["add", WEATHER])
        .assert()
        .success()
        .stderr(contains(warning.as_str()));
    assert!(env.read(".mcp.json").contains("@acme/weather-mcp@1.1.0"));
    // Every command that locks it says so again, as long as it stays deprecated.
    clone_of(&env)
        .dotpack()
        .args(["install", "--locked"])
        .assert()
        .success()
        .stderr(contains(warning.as_str()));
    // A message that tries to act on the terminal is shown, not obeyed.
    server.deprecate(WEATHER, "1.0.0", "x\u{1b}]0;owned\u{7}\nsecond line");
    env.dotpack()
        .args(["add", &format!("{WEATHER}@=1.0.0")])
        .assert()
        .success()
        .stderr(contains("deprecated: x\\x1b]0;owned\\x07 second line"))
        .stderr(contains("\u{1b}]").not());
}

#[test]
fn a_locked_version_gone_from_a_dotpack_index_is_named_too() {
    let env = Env::new();
    let index = crate::support::build_registry(
        &env,
        &[
            ("tool-1.0.0", &crate::support::package("tool", "1.0.0", &[])),
            ("tool-1.1.0", &crate::support::package("tool", "1.1.0", &[])),
        ],
    );
    env.write("dotpack.toml", "[project]\nhosts = [\"claude-code\"]\n");
    env.with_registry(&index, &["add", "tool"])
        .assert()
        .success();
    assert!(env.read("dotpack.lock").contains("version = \"1.1.0\""));
    // The index loses the locked line (a registry rebuilt by hand, a mirror gone stale).
    let file = walk(&index)
        .into_iter()
        .find(|p| std::fs::read_to_string(p).is_ok_and(|t| t.contains("\"vers\":\"1.1.0\"")))
        .expect("index file of tool");
    let text = std::fs::read_to_string(&file).expect("read");
    let kept: Vec<&str> = text.lines().filter(|l| !l.contains("1.1.0")).collect();
    std::fs::write(&file, format!("{}\n", kept.join("\n"))).expect("write");
    let teammate = clone_of(&env);
    teammate
        .with_registry(&index, &["install", "--locked"])
        .assert()
        .failure()
        .stderr(contains(
            "`tool` 1.1.0, which dotpack.lock pins, is no longer offered by its registry",
        ));
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        match path.is_dir() {
            true => out.extend(walk(&path)),
            false => out.push(path),
        }
    }
    out
}
