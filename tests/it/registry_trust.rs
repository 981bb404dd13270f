//! What a registry, a host file and the terminal cannot make dotpack do: install bytes other
//! than those the lock pinned, accept an archive its index does not describe, follow a redirect
//! to another server, edit a duplicate key the host never reads, panic on a full stderr, or drop
//! the BOM and line endings of `dotpack.toml`.

use std::path::{Path, PathBuf};

use dotpack::registry::{archive, parse_index_file, render_index_file};
use predicates::prelude::*;
use predicates::str::contains;

use crate::support::{Env, StaticServer, build_registry, package, snapshot};

/// A project installing into Claude Code's `.mcp.json`.
fn project(env: &Env) {
    env.write(
        "dotpack.toml",
        "[project]\nhosts = [\"claude-code\"]\n\n[dependencies]\n",
    );
}

/// A registry with `alpha` 1.0.0 and `beta` 1.0.0.
fn registry(env: &Env) -> PathBuf {
    build_registry(
        env,
        &[
            ("alpha", &package("alpha", "1.0.0", &[])),
            ("beta", &package("beta", "1.0.0", &[])),
        ],
    )
}

/// Replaces the archive of `name` `version` in the index folder `index` by one packed from
/// `manifest`, and points its index line at the new checksum: what a registry that republishes a
/// version (or lies about it) serves. Returns the new checksum, `sha256:HEX`.
fn republish(env: &Env, index: &Path, name: &str, version: &str, manifest: &str) -> String {
    let dir = env.home.path().join(format!("republish-{name}-{version}"));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("dotpack.toml"), manifest).unwrap();
    let bytes = archive::pack(&dir, &format!("{name}-{version}")).unwrap();
    let cksum = archive::sha256_hex(&bytes);
    std::fs::write(
        index.join(format!("dl/{name}/{name}-{version}.tar.gz")),
        &bytes,
    )
    .unwrap();
    let index_file = index.join(dotpack::registry::index_path(name));
    let text = std::fs::read_to_string(&index_file).unwrap();
    let mut lines = parse_index_file(&text, "index").unwrap();
    for line in &mut lines {
        if line.vers.to_string() == version {
            line.cksum = cksum.clone();
        }
    }
    std::fs::write(&index_file, render_index_file(&lines)).unwrap();
    format!("sha256:{cksum}")
}

/// The `checksum = "..."` value of package `name` in `lock`.
fn locked_checksum(lock: &str, name: &str) -> String {
    let at = lock
        .find(&format!("name = \"{name}\""))
        .expect("package in lock");
    let rest = &lock[at..];
    let line = rest
        .lines()
        .find(|l| l.starts_with("checksum = "))
        .expect("checksum line");
    line.trim_start_matches("checksum = \"")
        .trim_end_matches('"')
        .to_string()
}

// --- The lock's checksum pins the archive -----------------------------------------------------

#[test]
fn a_republished_version_is_refused_by_every_command_until_update() {
    let env = Env::new();
    let reg = registry(&env);
    project(&env);
    env.with_registry(&reg, &["add", "alpha", "beta"])
        .assert()
        .success();
    let pinned = locked_checksum(&env.read("dotpack.lock"), "alpha");
    assert!(env.read(".mcp.json").contains("alpha-mcp@1.0.0"));

    let evil = package("alpha", "1.0.0", &[]).replace("alpha-mcp@1.0.0", "evil-mcp");
    let served = republish(&env, &reg, "alpha", "1.0.0", &evil);
    let before = snapshot(&env.project);
    let source = format!("registry+file:{}", reg.display());
    for args in [
        &["install"][..],
        &["install", "--locked"],
        &["lock"],
        &["add", "beta"],
        &["remove", "beta"],
        &["update", "beta"],
    ] {
        env.with_registry(&reg, args)
            .assert()
            .code(1)
            .stderr(contains("checksum for `alpha v1.0.0` changed"))
            .stderr(contains(format!("dotpack.lock pins {pinned}")))
            .stderr(contains(format!("{source} now lists {served}")))
            .stderr(contains("dotpack update alpha"))
            .stderr(contains("needs to be updated").not());
        assert_eq!(snapshot(&env.project), before, "{args:?}");
    }

    // Only an explicit update moves the pin, and it says so.
    env.with_registry(&reg, &["update", "alpha"])
        .assert()
        .success()
        .stderr(contains(
            "the registry's archive of alpha v1.0.0 changed since it was locked",
        ))
        .stderr(contains(format!("({pinned} -> {served})")));
    assert_eq!(locked_checksum(&env.read("dotpack.lock"), "alpha"), served);
    assert!(env.read(".mcp.json").contains("evil-mcp"));
    env.with_registry(&reg, &["install", "--locked"])
        .assert()
        .success();
}

#[test]
fn update_without_names_also_takes_a_republished_version() {
    let env = Env::new();
    let reg = registry(&env);
    project(&env);
    env.with_registry(&reg, &["add", "alpha"])
        .assert()
        .success();
    let new = package("alpha", "1.0.0", &[]).replace("alpha-mcp@1.0.0", "alpha-mcp@1.0.1");
    let served = republish(&env, &reg, "alpha", "1.0.0", &new);
    env.with_registry(&reg, &["update"])
        .assert()
        .success()
        .stderr(contains("changed since it was locked"));
    assert_eq!(locked_checksum(&env.read("dotpack.lock"), "alpha"), served);
}

#[test]
fn a_hand_edited_lock_checksum_is_refused_not_corrected() {
    let env = Env::new();
    let reg = registry(&env);
    project(&env);
    env.with_registry(&reg, &["add", "alpha"])
        .assert()
        .success();
    let lock = env.read("dotpack.lock");
    let real = locked_checksum(&lock, "alpha");
    let forged = format!("sha256:{}", "0".repeat(64));
    env.write("dotpack.lock", &lock.replace(&real, &forged));
    std::fs::remove_file(env.project.join(".mcp.json")).unwrap();
    let before = snapshot(&env.project);
    env.with_registry(&reg, &["install"])
        .assert()
        .code(1)
        .stderr(contains("checksum for `alpha v1.0.0` changed"))
        .stderr(contains(format!("dotpack.lock pins {forged}")))
        .stderr(contains(format!("now lists {real}")));
    assert_eq!(snapshot(&env.project), before);
}

#[test]
fn a_tampered_archive_behind_an_unchanged_index_is_refused_on_install() {
    let env = Env::new();
    let reg = registry(&env);
    project(&env);
    env.with_registry(&reg, &["add", "alpha"])
        .assert()
        .success();
    // The index still lists the pinned checksum; only the bytes changed.
    let path = reg.join("dl/alpha/alpha-1.0.0.tar.gz");
    let mut bytes = std::fs::read(&path).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0xff;
    std::fs::write(&path, bytes).unwrap();
    std::fs::remove_file(env.project.join(".mcp.json")).unwrap();
    let before = snapshot(&env.project);
    env.with_registry(&reg, &["install"])
        .assert()
        .code(1)
        .stderr(contains("checksum mismatch for alpha 1.0.0"));
    assert_eq!(snapshot(&env.project), before);
}

// --- The index and the archive must agree -----------------------------------------------------

/// A registry whose `alpha` 1.0.0 archive says `manifest` while its index line still says what
/// `registry build` wrote for the honest `alpha`.
fn lying_registry(env: &Env, manifest: &str) -> PathBuf {
    let reg = registry(env);
    republish(env, &reg, "alpha", "1.0.0", manifest);
    reg
}

fn assert_refused(env: &Env, reg: &Path, field: &str, index: &str, archive: &str) {
    project(env);
    let before = snapshot(&env.project);
    let source = format!("registry+file:{}", reg.display());
    env.with_registry(reg, &["add", "alpha"])
        .assert()
        .code(1)
        .stderr(contains(format!(
            "registry {source}: the index says alpha 1.0.0 has {field} {index}, but the dotpack.toml inside its archive says {archive}"
        )))
        .stderr(contains("Adding alpha v").not());
    assert_eq!(snapshot(&env.project), before);
}

#[test]
fn an_archive_declaring_other_servers_than_its_index_line_is_refused() {
    let env = Env::new();
    let lying = package("alpha", "1.0.0", &[]).replace("[servers.alpha]", "[servers.figma]");
    let reg = lying_registry(&env, &lying);
    assert_refused(&env, &reg, "servers", "[\"alpha\"]", "[\"figma\"]");
}

#[test]
fn an_archive_naming_another_package_or_version_is_refused() {
    let env = Env::new();
    let other = package("alpha", "1.0.0", &[]).replace("name = \"alpha\"", "name = \"beta\"");
    let reg = lying_registry(&env, &other);
    assert_refused(&env, &reg, "package name", "`alpha`", "`beta`");

    let env = Env::new();
    let reg = lying_registry(&env, &package("alpha", "2.0.0", &[]).replace("@2.0.0", ""));
    assert_refused(&env, &reg, "version", "1.0.0", "2.0.0");
}

#[test]
fn an_archive_with_other_dependencies_than_its_index_line_is_refused() {
    let env = Env::new();
    let reg = lying_registry(&env, &package("alpha", "1.0.0", &[("beta", "^1")]));
    assert_refused(&env, &reg, "dependencies", "{  }", "{ beta = \"^1\" }");
}

// --- Redirects stay on the registry's server ---------------------------------------------------

#[test]
fn redirects_within_the_registrys_server_are_followed() {
    let env = Env::new();
    let server = StaticServer::start(&registry(&env));
    server.redirect("/old/", "/");
    project(&env);
    let url = format!("{}old/", server.url());
    env.with_registry(Path::new(&url), &["add", "alpha"])
        .assert()
        .success();
    assert!(env.read(".mcp.json").contains("alpha-mcp@1.0.0"));
    assert_eq!(
        server.log()[..2],
        ["302 /old/config.json", "200 /config.json"]
    );
}

#[test]
fn a_redirect_to_another_server_is_refused_unless_allowed() {
    let env = Env::new();
    let real = StaticServer::start(&registry(&env));
    let empty = env.home.path().join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let front = StaticServer::start(&empty);
    front.redirect("/", &real.url());
    project(&env);
    let before = snapshot(&env.project);
    let url = front.url();
    env.with_registry(Path::new(&url), &["add", "alpha"])
        .assert()
        .code(1)
        .stderr(contains(format!(
            "{url}config.json redirects to {}config.json, which is not on the registry's server ({url})",
            real.url()
        )))
        .stderr(contains("DOTPACK_ALLOW_REDIRECTS=1"));
    assert_eq!(snapshot(&env.project), before);
    assert!(real.requests().is_empty(), "{:?}", real.requests());

    env.with_registry(Path::new(&url), &["add", "alpha"])
        .env("DOTPACK_ALLOW_REDIRECTS", "1")
        .assert()
        .success();
    assert!(
        env.read("dotpack.lock")
            .contains(&format!("source = \"registry+{url}\""))
    );
    assert!(!real.requests().is_empty());
}

#[test]
fn an_archive_redirected_to_another_server_is_refused() {
    let env = Env::new();
    let reg = registry(&env);
    let real = StaticServer::start(&reg);
    let front = StaticServer::start(&reg);
    front.redirect("/dl/", &format!("{}dl/", real.url()));
    project(&env);
    let before = snapshot(&env.project);
    env.with_registry(Path::new(&front.url()), &["add", "alpha"])
        .assert()
        .code(1)
        .stderr(contains(format!(
            "{}dl/alpha/alpha-1.0.0.tar.gz redirects to {}dl/alpha/alpha-1.0.0.tar.gz",
            front.url(),
            real.url()
        )));
    assert_eq!(snapshot(&env.project), before);
    assert!(real.requests().is_empty(), "{:?}", real.requests());
}

#[test]
fn a_redirect_loop_is_an_error() {
    let env = Env::new();
    let server = StaticServer::start(&registry(&env));
    server.redirect("/", "/");
    project(&env);
    env.with_registry(Path::new(&server.url()), &["add", "alpha"])
        .assert()
        .code(1)
        .stderr(contains(format!(
            "cannot reach {}config.json: more than 10 redirects",
            server.url()
        )));
}

// --- Duplicate keys in host files ------------------------------------------------------------

#[test]
fn a_host_file_with_a_duplicate_container_key_is_refused() {
    let env = Env::new();
    let reg = registry(&env);
    project(&env);
    let text = "{\n  \"mcpServers\": {},\n  \"mcpServers\": {\n    \"b\": { \"command\": \"b\" }\n  }\n}\n";
    env.write(".mcp.json", text);
    let before = snapshot(&env.project);
    env.with_registry(&reg, &["add", "alpha"])
        .assert()
        .code(1)
        .stderr(contains(".mcp.json"))
        .stderr(contains("`mcpServers` appears twice, on lines 2 and 3"));
    assert_eq!(snapshot(&env.project), before);
}

#[test]
fn a_server_name_twice_in_the_container_is_refused_and_not_listed_as_installed() {
    let env = Env::new();
    let reg = registry(&env);
    project(&env);
    env.with_registry(&reg, &["add", "alpha"])
        .assert()
        .success();
    // Someone pastes a second `alpha` below dotpack's: hosts now run the pasted one.
    let text = env.read(".mcp.json");
    let pasted = text.replacen(
        "\n  }\n}",
        ",\n    \"alpha\": { \"command\": \"evil\" }\n  }\n}",
        1,
    );
    assert_ne!(pasted, text);
    env.write(".mcp.json", &pasted);
    let before = snapshot(&env.project);
    env.with_registry(&reg, &["install"])
        .assert()
        .code(1)
        .stderr(contains("`mcpServers.alpha` appears twice"));
    env.with_registry(&reg, &["list"])
        .assert()
        .stdout(contains("installed").not())
        .stderr(contains("`mcpServers.alpha` appears twice"));
    assert_eq!(snapshot(&env.project), before);
}

// --- A closed or full terminal ----------------------------------------------------------------

/// Runs `dotpack ARGS` with stdout and stderr on `/dev/full`, where every write fails with
/// ENOSPC, and returns its exit code.
#[cfg(target_os = "linux")]
fn exit_code_with_full_output(env: &Env, reg: &Path, args: &[&str]) -> Option<i32> {
    use std::process::Stdio;
    let full = || Stdio::from(std::fs::File::create("/dev/full").unwrap());
    env.process_in(&env.project)
        .arg("--registry")
        .arg(reg)
        .args(args)
        .stdin(Stdio::null())
        .stdout(full())
        .stderr(full())
        .status()
        .unwrap()
        .code()
}

#[cfg(target_os = "linux")]
#[test]
fn output_to_a_full_stdout_and_stderr_never_panics() {
    let env = Env::new();
    let reg = registry(&env);
    project(&env);
    let cases: &[(&[&str], i32)] = &[
        (&["add", "alpha"], 0),
        (&["add", "no-such-package"], 1),
        (&["list"], 0),
        (&["list", "--json"], 0),
        (&["search", "alpha"], 0),
        (&["info", "alpha"], 0),
        (&["install", "--dry-run"], 0),
        (&["--color", "always", "update"], 0),
        (&["validate"], 0),
        (&["--help"], 0),
        (&["no-such-command"], 2),
    ];
    for (args, expected) in cases {
        let code = exit_code_with_full_output(&env, &reg, args);
        assert_eq!(code, Some(*expected), "dotpack {args:?}");
    }
    // The command did its work; only its messages were lost.
    assert!(env.read("dotpack.lock").contains("name = \"alpha\""));
    assert!(env.read(".mcp.json").contains("alpha-mcp@1.0.0"));
}

// --- dotpack.toml keeps its BOM and line endings -----------------------------------------------

#[test]
fn add_and_remove_keep_the_manifests_bom_and_crlf() {
    let env = Env::new();
    let reg = registry(&env);
    let text = "\u{feff}# my servers\r\n[project]\r\nhosts = [\"claude-code\"]\r\n\r\n[dependencies]\r\nbeta = \"^1\" # pinned\r\n";
    env.write("dotpack.toml", text);
    env.with_registry(&reg, &["validate"]).assert().success();
    env.with_registry(&reg, &["add", "alpha"])
        .assert()
        .success();
    assert_eq!(
        env.read("dotpack.toml"),
        format!("{text}alpha = \"^1.0\"\r\n")
    );
    env.with_registry(&reg, &["remove", "alpha"])
        .assert()
        .success();
    assert_eq!(env.read("dotpack.toml"), text);
}
