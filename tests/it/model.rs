//! Model-based property test of the state model (`docs/state.md`): random sequences of
//! commands run through the real binary in a temporary HOME with two projects (A, where almost
//! everything happens, and B, which adds and removes user-scope packages in claude-code), with
//! hand edits of host files and git conflicts in dotpack.lock in between. After every step the
//! files, read back, must be what a small reference model says (declared packages, hosts,
//! exclusions, lock, the entries of every host file, the owners of every user-scope entry), and
//! the invariants of `docs/state.md` must hold:
//!
//! - (a) `dotpack install --locked` in a fresh clone of A's committed files (its own empty HOME
//!   and `$DOTPACK_HOME`) exits 0 and changes none of them, unless an entry was deleted or
//!   edited by hand so that the clone has something to repair;
//! - (b) `dotpack lock --locked` passes, and fails while dotpack.lock has conflict markers;
//! - (c) `dotpack status` exits 0 exactly when the model says A is as declared;
//! - (d) nothing of another owner changes: the hand-written entry `mine` keeps its bytes, and B's
//!   user-scope entries stay while B declares them;
//! - (e) the secret (given to `--set`, and in every command's environment) is in no file under
//!   HOME, the projects, `$DOTPACK_HOME` or a clone.
//!
//! No command may panic (exit 101), and a command the model expects to fail must fail with the
//! expected code (2 for bad usage) and change no file. A command run with `--dry-run` must end
//! as it would without and write nothing at all. After `uninstall`, exactly the entries it names
//! (by package or server, host and scope) must be gone.
//!
//! Layout: `ops` (the steps and their strategies), `reference` (the model's data and where a
//! declaration puts each server), `world` (the model's state and how a plan changes host files),
//! `commands` (what each command does to it), `observe` (reading files back, hand edits),
//! `case` (running a step on both sides), `checks` (comparison and invariants), `setup`.
//!
//! The default test runs 40 sequences of up to 12 steps, most starting with `init`, on four
//! threads (each step runs processes, so threads overlap their waiting); with
//! `DOTPACK_LONG_TESTS=1` (which `.ci/run` sets) it runs 500. Checks with processes are skipped
//! when nothing changed since the last, and results of (a) and (b), which depend only on A's
//! committed files, are shared across cases. The nightly-style run, 5000 sequences of up to 20
//! steps, is ignored by default:
//!
//! ```text
//! cargo test --test it model_long -- --ignored --nocapture
//! ```
//!
//! `PROPTEST_CASES=N` sets the number of sequences of either test, `PROPTEST_RNG_SEED=N` makes
//! a run repeatable, and `--nocapture` prints what the run exercised (with
//! `DOTPACK_MODEL_ERRORS=1`, also the first line of every error).

mod case;
mod checks;
mod commands;
mod observe;
mod ops;
mod reference;
mod setup;
mod world;

use std::sync::Mutex;

use proptest::test_runner::{Config, RngSeed, TestCaseError, TestError, TestRunner};

use case::Case;
use ops::{Op, ops};
use setup::{COVERAGE, RUNS, registry};

fn run_case(ops: &[Op]) -> Result<(), TestCaseError> {
    let mut case = Case::new();
    for op in ops {
        case.step(op)?;
    }
    Ok(())
}

/// Runs `cases` random sequences of up to `max` steps on `threads` threads, each with its own
/// proptest runner (and shrinking), and fails with the first minimal failing sequence.
fn run_model(cases: u32, max: usize, threads: u32) {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(cases);
    let seed = std::env::var("PROPTEST_RNG_SEED")
        .ok()
        .and_then(|v| v.parse::<u64>().ok());
    registry();
    let failures: Mutex<Vec<String>> = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for t in 0..threads {
            let failures = &failures;
            s.spawn(move || {
                let share = cases / threads + u32::from(t < cases % threads);
                let mut runner = TestRunner::new(Config {
                    cases: share,
                    failure_persistence: None,
                    max_shrink_iters: 256,
                    rng_seed: seed.map_or(RngSeed::Random, |s| RngSeed::Fixed(s + u64::from(t))),
                    ..Config::default()
                });
                match runner.run(&ops(max), |ops| run_case(&ops)) {
                    Ok(()) => {}
                    Err(TestError::Fail(why, ops)) => {
                        failures.lock().expect("failures").push(format!(
                            "minimal failing steps:\n{}\n{why}",
                            ops.iter()
                                .map(|o| format!("  {o:?}"))
                                .collect::<Vec<_>>()
                                .join("\n")
                        ))
                    }
                    Err(e) => failures.lock().expect("failures").push(e.to_string()),
                }
            });
        }
    });
    let failures = failures.into_inner().expect("failures");
    print_coverage(cases);
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// What the run exercised, on stderr (shown with `--nocapture`).
#[allow(clippy::print_stderr)]
fn print_coverage(cases: u32) {
    eprintln!(
        "model: {cases} sequences, {} processes",
        RUNS.load(std::sync::atomic::Ordering::Relaxed)
    );
    for (what, n) in COVERAGE.lock().expect("coverage").iter() {
        eprintln!("  {n:6}  {what}");
    }
}

#[test]
fn model_random_command_sequences_hold_the_invariants() {
    run_model(crate::support::cases(40, 500), 12, 4);
}

#[test]
#[ignore = "long: 5000 sequences of up to 20 steps; run nightly"]
fn model_long_random_command_sequences_hold_the_invariants() {
    run_model(5000, 20, 4);
}
