//! Property: whatever journals and generation records sit in a project's `.dotpack/` (cloned or
//! made by dotpack) and in `$DOTPACK_HOME`, naming paths inside the project, outside it, with
//! `..`, through symlinks, relative or inside dotpack's own bookkeeping, `status`, `history` and
//! `rollback` never create, change or delete a file outside the project and `$DOTPACK_HOME`,
//! and never panic.
//!
//! A symlinked *file* the user placed in the project is followed by design (the host reads
//! through it too), so the links here are a folder that leads outside, a link to nothing and a
//! link to another file of the project.

use std::path::{Path, PathBuf};

use proptest::prelude::*;

use crate::support::{Env, snapshot};

const VICTIM: &[u8] = b"{\"precious\": true}\n";
const PAYLOAD: &[u8] = b"{\"mcpServers\": {\"evil\": {\"command\": \"x\"}}}\n";

fn sha(bytes: &[u8]) -> String {
    dotpack::registry::archive::sha256_hex(bytes)
}

/// The paths a record may name, by index.
fn candidate(env: &Env, i: usize) -> PathBuf {
    let home = env.home.path();
    let p = &env.project;
    match i {
        0 => p.join(".mcp.json"),
        1 => p.join("sub/new.json"),
        2 => home.join("outside/victim.json"),
        3 => home.join("outside/new.json"),
        4 => p.join("../outside/victim.json"),
        5 => p.join("linkdir/victim.json"),
        6 => PathBuf::from("victim.json"),
        7 => p.join(".dotpack/generations/000001.json"),
        8 => home.join(".dotpack/state-folders.json"),
        9 => home.join("outside"),
        10 => p.join("dangling.json"),
        11 => p.join("inlink.json"),
        _ => home.join(".dotpack/claims.toml"),
    }
}

const CANDIDATES: usize = 13;

/// A snapshot name: none, the victim's bytes, the payload's, one not in the store, or no hash.
fn hash_choice() -> impl Strategy<Value = Option<String>> {
    prop_oneof![
        Just(None),
        Just(Some(sha(VICTIM))),
        Just(Some(sha(PAYLOAD))),
        Just(Some(sha(b"not stored"))),
        Just(Some("../../outside/victim.json".to_string())),
        Just(Some("ZZ".to_string())),
    ]
}

#[derive(Clone, Debug)]
struct Rec {
    path: usize,
    host: bool,
    before: Option<String>,
    after: Option<String>,
}

fn rec() -> impl Strategy<Value = Rec> {
    (0..CANDIDATES, any::<bool>(), hash_choice(), hash_choice()).prop_map(
        |(path, host, before, after)| Rec {
            path,
            host,
            before,
            after,
        },
    )
}

/// A record file's text: a well-formed journal/generation, or noise.
#[derive(Clone, Debug)]
enum Doc {
    Records { id: u64, files: Vec<Rec> },
    Noise(String),
}

fn doc() -> impl Strategy<Value = Doc> {
    prop_oneof![
        4 => (1u64..4, proptest::collection::vec(rec(), 1..4))
            .prop_map(|(id, files)| Doc::Records { id, files }),
        1 => "[{}\\[\\]\"a-z:0-9, ]{0,24}".prop_map(Doc::Noise),
    ]
}

#[derive(Clone, Debug)]
struct State {
    journal: Option<Doc>,
    generations: Vec<Doc>,
}

fn state() -> impl Strategy<Value = State> {
    (
        proptest::option::of(doc()),
        proptest::collection::vec(doc(), 0..3),
    )
        .prop_map(|(journal, generations)| State {
            journal,
            generations,
        })
}

fn render(env: &Env, doc: &Doc, generation: bool) -> (u64, String) {
    match doc {
        Doc::Noise(text) => (1, text.clone()),
        Doc::Records { id, files } => {
            let files: Vec<serde_json::Value> = files
                .iter()
                .map(|r| {
                    let mut f = serde_json::json!({
                        "path": candidate(env, r.path),
                        "display": ".mcp.json",
                        "before": r.before,
                        "after": r.after,
                    });
                    if r.host {
                        f["host"] = "claude-code".into();
                    }
                    f
                })
                .collect();
            let value = if generation {
                serde_json::json!({"id": id, "time": "2026-01-01T00:00:00Z",
                    "command": ["dotpack", "add", "x"], "files": files, "packages": []})
            } else {
                serde_json::json!({"id": id, "command": ["dotpack", "add", "x"], "files": files})
            };
            (*id, value.to_string())
        }
    }
}

fn plant(env: &Env, dir: &Path, state: &State) {
    std::fs::create_dir_all(dir.join("objects")).unwrap();
    for bytes in [VICTIM, PAYLOAD] {
        std::fs::write(dir.join("objects").join(sha(bytes)), bytes).unwrap();
    }
    if let Some(journal) = &state.journal {
        std::fs::write(dir.join("journal.json"), render(env, journal, false).1).unwrap();
    }
    if !state.generations.is_empty() {
        std::fs::create_dir_all(dir.join("generations")).unwrap();
    }
    for (i, g) in state.generations.iter().enumerate() {
        let (id, text) = render(env, g, true);
        let id = if matches!(g, Doc::Noise(_)) {
            i as u64 + 1
        } else {
            id
        };
        std::fs::write(dir.join(format!("generations/{id:06}.json")), text).unwrap();
    }
}

/// Every file of HOME outside the project and `$DOTPACK_HOME`.
fn outside_files(env: &Env) -> Vec<(PathBuf, Vec<u8>)> {
    let project = env.project.clone();
    let dotpack_home = env.home.path().join(".dotpack");
    snapshot(env.home.path())
        .into_iter()
        .filter(|(p, _)| !p.starts_with(&project) && !p.starts_with(&dotpack_home))
        .collect()
}

/// A command must not crash (exit 101) nor change a file outside the project and
/// `$DOTPACK_HOME`.
fn check_run(
    env: &Env,
    args: &[&str],
    out: &std::process::Output,
    before: &[(PathBuf, Vec<u8>)],
) -> Result<(), TestCaseError> {
    prop_assert!(
        out.status.code().is_some_and(|c| c != 101),
        "{args:?} crashed: {:?}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    prop_assert!(
        outside_files(env) == before,
        "{args:?} changed a file outside the project and $DOTPACK_HOME\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    Ok(())
}

/// Cases per property: 8 in `cargo test`, 32 with `DOTPACK_LONG_TESTS=1` (as `.ci/run` runs
/// it); `DOTPACK_FUZZ_CASES=N` for a longer run, e.g.
/// `DOTPACK_FUZZ_CASES=20000 cargo test --release --test it trust_props -- --nocapture`.
fn cases() -> u32 {
    std::env::var("DOTPACK_FUZZ_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| crate::support::cases(8, 32))
}

/// A claim naming candidate `path` (as the lock or the claims file spells it) for a host at a
/// scope.
#[derive(Clone, Debug)]
struct ClaimSpec {
    path: usize,
    relative: bool,
    user: bool,
    host: &'static str,
    server: &'static str,
}

fn claim_spec() -> impl Strategy<Value = ClaimSpec> {
    (
        0..CANDIDATES,
        any::<bool>(),
        any::<bool>(),
        prop_oneof![Just("claude-code"), Just("codex"), Just("nohost")],
        prop_oneof![Just("alpha"), Just("evil")],
    )
        .prop_map(|(path, relative, user, host, server)| ClaimSpec {
            path,
            relative,
            user,
            host,
            server,
        })
}

fn claim_text(env: &Env, c: &ClaimSpec) -> String {
    let path = candidate(env, c.path);
    let file = if c.relative {
        path.strip_prefix(&env.project)
            .map(|p| p.display().to_string())
            .unwrap_or_else(|_| format!("../{}", path.display()))
    } else {
        path.display().to_string()
    };
    format!(
        "\n[[claim]]\nfile = {file:?}\nhost = \"{}\"\nscope = \"{}\"\nkey = \"mcpServers.{}\"\nserver = \"{}\"\npackage = \"{}\"\nversion = \"1.0.0\"\nentry = \"sha256:{}\"\n",
        c.host,
        if c.user { "user" } else { "project" },
        c.server,
        c.server,
        c.server,
        sha(PAYLOAD)
    )
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: cases(),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// Claims in a committed lock (untrusted) and in `$DOTPACK_HOME/claims.toml`, naming any
    /// file: no command writes outside the project, the declared host files and
    /// `$DOTPACK_HOME`.
    #[test]
    fn claims_never_make_dotpack_write_outside(
        lock_claims in proptest::collection::vec(claim_spec(), 0..4),
        user_claims in proptest::collection::vec(claim_spec(), 0..3),
        force in any::<bool>(),
    ) {
        let env = Env::new();
        env.write("dotpack.toml", "[project]\nhosts = [\"claude-code\"]\n\n[dependencies]\n");
        env.write(".mcp.json", "{\n  \"mcpServers\": {\"evil\": {\"command\": \"x\"}}\n}\n");
        let outside = env.home.path().join("outside");
        std::fs::create_dir_all(outside.join("sub")).unwrap();
        std::fs::write(outside.join("victim.json"), PAYLOAD).unwrap();
        std::os::unix::fs::symlink(&outside, env.project.join("linkdir")).unwrap();
        let mut lock = String::from("version = 1\n\n[manifest]\n");
        for c in &lock_claims {
            lock.push_str(&claim_text(&env, c));
        }
        env.write("dotpack.lock", &lock);
        let mut claims = String::new();
        for c in &user_claims {
            claims.push_str(&claim_text(&env, c));
        }
        std::fs::create_dir_all(env.home.path().join(".dotpack")).unwrap();
        std::fs::write(env.home.path().join(".dotpack/claims.toml"), claims).unwrap();
        let before = outside_files(&env);
        let commands: &[&[&str]] = &[
            &["list"],
            &["status"],
            &["install", "--dry-run"],
            &["install"],
            &["uninstall"],
            &["lock"],
        ];
        for args in commands {
            let mut cmd = env.dotpack();
            cmd.args(*args);
            if force && args[0] != "list" && args[0] != "status" && args[0] != "lock" {
                cmd.arg("--force");
            }
            let out = cmd.output().unwrap();
            check_run(&env, args, &out, &before)?;
        }
    }


    #[test]
    fn records_never_change_anything_outside_the_project_and_dotpack_home(
        genuine in any::<bool>(),
        project_state in state(),
        home_state in state(),
    ) {
        let env = Env::new();
        env.write("dotpack.toml", "[project]\nhosts = [\"claude-code\"]\n\n[dependencies]\n");
        env.write(".mcp.json", "{\n  \"mcpServers\": {}\n}\n");
        let outside = env.home.path().join("outside");
        std::fs::create_dir_all(outside.join("sub")).unwrap();
        std::fs::write(outside.join("victim.json"), VICTIM).unwrap();
        std::fs::write(outside.join(".dotpack-tmp-theirs"), "keep").unwrap();
        std::os::unix::fs::symlink(&outside, env.project.join("linkdir")).unwrap();
        std::os::unix::fs::symlink(env.project.join("nowhere.json"), env.project.join("dangling.json")).unwrap();
        std::os::unix::fs::symlink(env.project.join(".mcp.json"), env.project.join("inlink.json")).unwrap();
        if genuine {
            // A state folder dotpack itself made (and $DOTPACK_HOME with it).
            env.dotpack().arg("gc").assert().success();
        }
        plant(&env, &env.project.join(".dotpack"), &project_state);
        plant(&env, &env.home.path().join(".dotpack"), &home_state);
        let before = outside_files(&env);
        let commands: &[&[&str]] = &[
            &["status"],
            &["history"],
            &["history", "--scope", "user"],
            &["rollback", "--dry-run"],
            &["rollback"],
            &["rollback", "0"],
            &["rollback", "--scope", "user"],
        ];
        for args in commands {
            let out = env.dotpack().args(*args).output().unwrap();
            check_run(&env, args, &out, &before)?;
        }
    }
}
