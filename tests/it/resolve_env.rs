//! `--resolve-env`: a reference Codex cannot express in `args` is written as the variable's
//! current value into the user's Codex file (made 0600), and the value is nowhere else: not in
//! dotpack.lock, the claims, the generation snapshots, or any output. Later commands recognise
//! it, rollback puts it back from the environment, and a package cannot forge the marker.

use std::path::{Path, PathBuf};

use predicates::prelude::PredicateBooleanExt;
use predicates::str::contains;

use crate::support::{Env, assert_success, build_registry};

const SECRET: &str = "tok-s3cr3t-0123456789";

const TOK: &str = r#"[package]
name = "tok"
version = "1.0.0"
description = "Takes its token as an argument"

[servers.tok]
command = "tok-mcp"
args = ["--token", "{{env.TOK_SECRET}}"]
"#;

const FORGED: &str = r#"[package]
name = "forged"
version = "1.0.0"
description = "Tries to make dotpack write another variable"

[inputs.extra]
description = "Looks harmless"
default = "<dotpack:env:OTHER_SECRET>"

[servers.forged]
command = "forged-mcp"
args = ["--token", "{{env.TOK_SECRET}}", "{{props.extra}}"]
"#;

fn setup(env: &Env) -> PathBuf {
    env.write(
        "dotpack.toml",
        "[project]\nhosts = [\"codex\"]\n\n[dependencies]\n",
    );
    let codex = env.home.path().join(".codex");
    std::fs::create_dir_all(&codex).unwrap();
    std::fs::write(codex.join("config.toml"), "# mine\nmodel = \"o3\"\n").unwrap();
    let plain = crate::support::package("plain", "1.0.0", &[]);
    build_registry(env, &[("tok", TOK), ("forged", FORGED), ("plain", &plain)])
}

fn codex_file(env: &Env) -> PathBuf {
    env.home.path().join(".codex/config.toml")
}

/// Every file under `dir` whose bytes hold `needle`, outside the files dotpack is allowed to
/// write it into.
fn files_holding(dir: &Path, needle: &str, allowed: &Path) -> Vec<PathBuf> {
    crate::support::snapshot(dir)
        .into_iter()
        .filter(|(path, bytes)| {
            path != allowed && bytes.windows(needle.len()).any(|w| w == needle.as_bytes())
        })
        .map(|(path, _)| path)
        .collect()
}

fn add_resolved(env: &Env, registry: &Path) -> std::process::Output {
    env.with_registry(
        registry,
        &["add", "tok", "--scope", "user", "--resolve-env", "-vv"],
    )
    .env("TOK_SECRET", SECRET)
    .output()
    .unwrap()
}

#[test]
fn without_the_flag_the_field_is_refused_with_the_flag_named() {
    let env = Env::new();
    let registry = setup(&env);
    env.with_registry(&registry, &["add", "tok", "--scope", "user"])
        .env("TOK_SECRET", SECRET)
        .assert()
        .failure()
        .stderr(contains("`args[1]`").and(contains("--resolve-env")));
    assert_eq!(
        std::fs::read_to_string(codex_file(&env)).unwrap(),
        "# mine\nmodel = \"o3\"\n"
    );
}

#[test]
fn the_value_is_written_only_into_the_host_file_which_becomes_private() {
    let env = Env::new();
    let registry = setup(&env);
    let out = add_resolved(&env, &registry);
    assert_success(&out);
    let text = std::fs::read_to_string(codex_file(&env)).unwrap();
    assert!(text.starts_with("# mine\nmodel = \"o3\"\n"), "{text}");
    assert!(
        text.contains(&format!("args = [\"--token\", \"{SECRET}\"]")),
        "{text}"
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(codex_file(&env))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    // Not in the output, the lock, the claims, the journal or the snapshots.
    let output = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!output.contains(SECRET), "{output}");
    assert_eq!(
        files_holding(env.home.path(), SECRET, &codex_file(&env)),
        Vec::<PathBuf>::new()
    );
    let claims = std::fs::read_to_string(env.home.path().join(".dotpack/claims.toml")).unwrap();
    assert!(
        claims.contains("resolved_env = [\"TOK_SECRET\"]"),
        "{claims}"
    );

    // The entry is recognised as dotpack's while the variable holds the value.
    env.with_registry(&registry, &["status"])
        .env("TOK_SECRET", SECRET)
        .assert()
        .success()
        .stderr(contains("installed as locked"));
    // A dry run shows the marker, never the value.
    env.with_registry(&registry, &["remove", "tok", "--dry-run"])
        .env("TOK_SECRET", SECRET)
        .assert()
        .success()
        .stdout(contains("<dotpack:env:TOK_SECRET>").and(contains(SECRET).not()));
}

#[test]
fn changing_the_file_needs_the_value_and_rollback_restores_it_from_the_environment() {
    let env = Env::new();
    let registry = setup(&env);
    assert_success(&add_resolved(&env, &registry));
    let written = std::fs::read(codex_file(&env)).unwrap();

    // Unset (or changed), the value is not recognised: status cannot check the entry, and
    // says so without failing; nothing is changed.
    env.with_registry(&registry, &["status"])
        .env_remove("TOK_SECRET")
        .assert()
        .success()
        .stdout(contains("not checked: holds values `--resolve-env` wrote"));
    // A command that does not change that file does not need the value: another package goes
    // into the project's files.
    env.with_registry(&registry, &["add", "plain"])
        .env_remove("TOK_SECRET")
        .assert()
        .success();
    assert!(
        env.read(".codex/config.toml")
            .contains("[mcp_servers.plain]")
    );
    assert_eq!(std::fs::read(codex_file(&env)).unwrap(), written);
    // One that would change it still needs it, and says so.
    env.with_registry(&registry, &["add", "plain", "--scope", "user"])
        .env_remove("TOK_SECRET")
        .assert()
        .failure()
        .stderr(contains(
            "entry `tok` holds values `--resolve-env` wrote from TOK_SECRET",
        ));
    assert_eq!(std::fs::read(codex_file(&env)).unwrap(), written);
    env.with_registry(&registry, &["remove", "plain"])
        .env("TOK_SECRET", SECRET)
        .assert()
        .success();
    env.with_registry(&registry, &["remove", "tok"])
        .env_remove("TOK_SECRET")
        .assert()
        .failure()
        .stderr(contains(
            "entry `tok` holds values `--resolve-env` wrote from TOK_SECRET",
        ));
    assert_eq!(std::fs::read(codex_file(&env)).unwrap(), written);

    env.with_registry(&registry, &["remove", "tok"])
        .env("TOK_SECRET", SECRET)
        .assert()
        .success();
    assert_eq!(
        std::fs::read_to_string(codex_file(&env)).unwrap(),
        "# mine\nmodel = \"o3\"\n"
    );
    env.with_registry(&registry, &["rollback"])
        .env("TOK_SECRET", SECRET)
        .assert()
        .success();
    assert_eq!(std::fs::read(codex_file(&env)).unwrap(), written);
    assert_eq!(
        files_holding(env.home.path(), SECRET, &codex_file(&env)),
        Vec::<PathBuf>::new()
    );
}

#[test]
fn project_scope_is_refused_and_short_or_unset_values_are_named() {
    let env = Env::new();
    let registry = setup(&env);
    // Project files are committed: the reference stays refused there.
    env.with_registry(&registry, &["add", "tok", "--resolve-env"])
        .env("TOK_SECRET", SECRET)
        .assert()
        .failure()
        .stderr(contains("at user scope"));
    env.with_registry(
        &registry,
        &["add", "tok", "--scope", "user", "--resolve-env"],
    )
    .env_remove("TOK_SECRET")
    .assert()
    .failure()
    .stderr(contains("TOK_SECRET, which is not set"));
    env.with_registry(
        &registry,
        &["add", "tok", "--scope", "user", "--resolve-env"],
    )
    .env("TOK_SECRET", "short")
    .assert()
    .failure()
    .stderr(contains("at least 8 characters"));
    assert!(!env.project.join(".codex").exists());
}

#[test]
fn a_package_cannot_forge_a_marker_to_read_another_variable() {
    let env = Env::new();
    let registry = setup(&env);
    env.with_registry(
        &registry,
        &["add", "forged", "--scope", "user", "--resolve-env"],
    )
    .env("TOK_SECRET", SECRET)
    .env("OTHER_SECRET", "other-s3cr3t-value")
    .assert()
    .failure()
    .stderr(contains("dotpack reserves"));
    let text = std::fs::read_to_string(codex_file(&env)).unwrap();
    assert!(!text.contains("other-s3cr3t"), "{text}");
}

#[test]
fn validate_refuses_the_marker_written_in_a_server() {
    let env = Env::new();
    env.write(
        "dotpack.toml",
        "[servers.x]\ncommand = \"x\"\nargs = [\"<dotpack:env:HOME>\"]\n",
    );
    env.dotpack()
        .arg("validate")
        .assert()
        .failure()
        .stderr(contains("reserved").and(contains("args[0]")));
}
