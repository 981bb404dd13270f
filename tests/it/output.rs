//! Colour: `--color`, `DOTPACK_COLOR`, `NO_COLOR`, `FORCE_COLOR`, `CLICOLOR`, `CLICOLOR_FORCE` and non-terminals, on status lines
//! and on the diffs of `--dry-run`.

use std::path::PathBuf;

use crate::support::{Env, assert_success, build_registry, package};

const ESC: &str = "\u{1b}[";

fn project(env: &Env) -> PathBuf {
    let reg = build_registry(env, &[("alpha", &package("alpha", "1.0.0", &[]))]);
    env.write(
        "dotpack.toml",
        "[project]\nhosts = [\"claude-code\"]\n\n[dependencies]\n",
    );
    reg
}

/// stdout and stderr of `add alpha --dry-run` with `args` before it and `vars` set (NO_COLOR
/// removed unless given).
fn dry_run(env: &Env, reg: &PathBuf, args: &[&str], vars: &[(&str, &str)]) -> (String, String) {
    let mut cmd = env.dotpack();
    cmd.env("DOTPACK_REGISTRY", reg)
        .env_remove("NO_COLOR")
        .env_remove("CLICOLOR")
        .env_remove("CLICOLOR_FORCE")
        .env_remove("FORCE_COLOR")
        .env_remove("DOTPACK_COLOR");
    for (k, v) in vars {
        cmd.env(k, v);
    }
    let out = cmd
        .args(args)
        .args(["add", "alpha", "--dry-run"])
        .output()
        .unwrap();
    assert_success(&out);
    (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn color_always_colours_the_diff_and_the_status_lines() {
    let env = Env::new();
    let reg = project(&env);
    let (stdout, stderr) = dry_run(&env, &reg, &["--color", "always"], &[("NO_COLOR", "1")]);
    assert!(stdout.contains(&format!("{ESC}32m+")), "{stdout:?}");
    assert!(stdout.contains(&format!("{ESC}36m@@")), "{stdout:?}");
    assert!(stderr.contains(&format!("{ESC}1m{ESC}32m")), "{stderr:?}");
}

#[test]
fn a_pipe_gets_no_colour_unless_forced() {
    let env = Env::new();
    let reg = project(&env);
    for vars in [
        &[][..],
        &[("CLICOLOR", "1")],
        &[("CLICOLOR_FORCE", "1"), ("NO_COLOR", "1")],
    ] {
        let (stdout, stderr) = dry_run(&env, &reg, &[], vars);
        assert!(
            !stdout.contains(ESC) && !stderr.contains(ESC),
            "{vars:?}: {stdout:?}"
        );
        assert!(stdout.contains("+++ b/.mcp.json"), "{stdout}");
    }
    let (stdout, stderr) = dry_run(&env, &reg, &[], &[("CLICOLOR_FORCE", "1")]);
    assert!(stdout.contains(&format!("{ESC}32m+")), "{stdout:?}");
    assert!(stderr.contains(ESC), "{stderr:?}");
    let (stdout, _) = dry_run(
        &env,
        &reg,
        &["--color", "never"],
        &[("CLICOLOR_FORCE", "1")],
    );
    assert!(!stdout.contains(ESC), "{stdout:?}");
}

#[test]
fn force_color_and_dotpack_color_colour_a_pipe_and_never_beats_them() {
    let env = Env::new();
    let reg = project(&env);
    for vars in [&[("FORCE_COLOR", "1")][..], &[("DOTPACK_COLOR", "always")]] {
        let (stdout, stderr) = dry_run(&env, &reg, &[], vars);
        assert!(
            stdout.contains(&format!("{ESC}32m+")),
            "{vars:?}: {stdout:?}"
        );
        assert!(stderr.contains(ESC), "{vars:?}: {stderr:?}");
    }
    // NO_COLOR wins over FORCE_COLOR; the flag wins over DOTPACK_COLOR.
    for (args, vars) in [
        (&[][..], &[("FORCE_COLOR", "1"), ("NO_COLOR", "1")][..]),
        (&[], &[("FORCE_COLOR", "0"), ("CLICOLOR_FORCE", "1")]),
        (&["--color", "never"], &[("DOTPACK_COLOR", "always")]),
    ] {
        let (stdout, stderr) = dry_run(&env, &reg, args, vars);
        assert!(
            !stdout.contains(ESC) && !stderr.contains(ESC),
            "{args:?} {vars:?}: {stdout:?}"
        );
    }
    // A value DOTPACK_COLOR cannot hold is a usage error naming it.
    let out = env
        .with_registry(&reg, &["tree"])
        .env("DOTPACK_COLOR", "sometimes")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("sometimes") && stderr.contains("always"),
        "{stderr}"
    );
}

#[test]
fn json_output_is_never_coloured() {
    let env = Env::new();
    let reg = project(&env);
    env.with_registry(&reg, &["add", "alpha"])
        .assert()
        .success();
    let out = env
        .with_registry(&reg, &["--json", "--color", "always", "tree"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(!text.contains(ESC));
    serde_json::from_str::<serde_json::Value>(&text).unwrap();
}
