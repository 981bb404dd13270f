//! `dotpack completions` and `dotpack man`: generated from the command-line definition, and
//! working in a real shell.

use predicates::prelude::*;
use predicates::str::contains;

use crate::support::Env;

#[test]
fn bash_completion_script_names_the_subcommands() {
    let env = Env::new();
    env.dotpack()
        .args(["completions", "bash"])
        .assert()
        .success()
        .stdout(
            contains("_dotpack()")
                .and(contains("add"))
                .and(contains("uninstall"))
                .and(contains("completions")),
        );
}

#[test]
fn every_shell_gets_a_script() {
    let env = Env::new();
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let out = env.dotpack().args(["completions", shell]).output().unwrap();
        assert!(out.status.success(), "{shell}");
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(text.contains("dotpack"), "{shell}: {text}");
        assert!(text.contains("dry-run"), "{shell} lacks a flag");
    }
}

#[test]
fn an_unknown_shell_is_bad_usage() {
    let env = Env::new();
    env.dotpack()
        .args(["completions", "tcsh"])
        .assert()
        .code(2)
        .stderr(contains("possible values"));
}

/// What bash offers for the words typed so far (the last one being completed), after sourcing
/// the generated script: the same calls bash makes on TAB. `None` (said on stderr) when this
/// machine has no bash.
#[allow(clippy::print_stderr)]
fn bash_offers(env: &Env, words: &[&str]) -> Option<Vec<String>> {
    let bin = assert_cmd::cargo::cargo_bin("dotpack");
    let quoted: Vec<String> = words.iter().map(|w| format!("'{w}'")).collect();
    let line = words.join(" ");
    let script = format!(
        r#"source <('{bin}' completions bash) || exit 3
spec=$(complete -p dotpack) || exit 4
func=${{spec#*-F }}; func=${{func%% *}}
COMP_WORDS=({words}); COMP_CWORD=$(( ${{#COMP_WORDS[@]}} - 1 ))
COMP_LINE='{line}'; COMP_POINT=${{#COMP_LINE}}
"$func" dotpack "${{COMP_WORDS[COMP_CWORD]}}" "${{COMP_WORDS[COMP_CWORD-1]}}"
printf '%s\n' "${{COMPREPLY[@]}}"
"#,
        bin = bin.display(),
        words = quoted.join(" "),
    );
    let out = match std::process::Command::new("bash")
        .arg("--norc")
        .arg("--noprofile")
        .arg("-c")
        .arg(&script)
        .env("HOME", env.home.path())
        .env("DOTPACK_HOME", env.home.path().join(".dotpack"))
        .env(
            "PATH",
            format!(
                "{}:{}",
                bin.parent().unwrap().display(),
                std::env::var("PATH").unwrap_or_default()
            ),
        )
        .current_dir(&env.project)
        .output()
    {
        Ok(out) => out,
        Err(e) => {
            // No bash on this machine: nothing to check the script against. Where the test
            // peers are required (`.ci/run` sets DOTPACK_REQUIRE_TEST_PEERS=1), that fails.
            let message = format!("skipping the bash completion check: cannot run bash ({e})");
            assert!(
                !crate::support::switched_on("DOTPACK_REQUIRE_TEST_PEERS"),
                "{message} (DOTPACK_REQUIRE_TEST_PEERS is set: bash must be there)"
            );
            eprintln!("{message}");
            return None;
        }
    };
    assert!(
        out.status.success(),
        "bash failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    Some(text.lines().map(str::to_string).collect())
}

#[test]
fn bash_completes_subcommands_and_their_flags() {
    let env = Env::new();
    let Some(offers) = bash_offers(&env, &["dotpack", "ad"]) else {
        return;
    };
    assert!(offers.contains(&"add".to_string()), "{offers:?}");
    assert!(!offers.contains(&"install".to_string()), "{offers:?}");
    let offers = bash_offers(&env, &["dotpack", "add", "--ho"]).unwrap();
    assert_eq!(offers, ["--host"]);
    let offers = bash_offers(&env, &["dotpack", "completions", "z"]).unwrap();
    assert_eq!(offers, ["zsh"]);
}

#[test]
fn bash_completes_package_names_from_the_registry() {
    let env = Env::new();
    let Some(offers) = bash_offers(&env, &["dotpack", "add", "fi"]) else {
        return;
    };
    assert_eq!(offers, ["figma", "figma-remote", "filesystem"]);
    let offers = bash_offers(&env, &["dotpack", "info", "figma", "con"]).unwrap();
    assert_eq!(offers, ["context7"]);
    // A flag's value is not a package name; flags still complete.
    let offers = bash_offers(&env, &["dotpack", "add", "--host", "fi"]).unwrap();
    assert!(!offers.contains(&"figma".to_string()), "{offers:?}");
    let offers = bash_offers(&env, &["dotpack", "add", "--ho"]).unwrap();
    assert_eq!(offers, ["--host"]);
}

#[test]
fn fish_completes_package_names_too() {
    let env = Env::new();
    let out = env
        .dotpack()
        .args(["completions", "fish"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("__complete-packages"), "{text}");
    let out = env.dotpack().arg("__complete-packages").output().unwrap();
    let names = String::from_utf8(out.stdout).unwrap();
    assert!(names.lines().any(|n| n == "figma"), "{names}");
}

#[test]
fn man_page_header_of_dotpack() {
    let env = Env::new();
    let out = env.dotpack().arg("man").output().unwrap();
    assert!(out.status.success());
    let page = String::from_utf8(out.stdout).unwrap();
    let header: String = page
        .lines()
        .take_while(|l| !l.starts_with(".SH OPTIONS"))
        .map(|l| format!("{l}\n"))
        .collect();
    let header = header.replace(env!("CARGO_PKG_VERSION"), "[VERSION]");
    insta::assert_snapshot!(header);
    assert!(page.contains(".SH SUBCOMMANDS") || page.contains("dotpack\\-add"));
}

#[test]
fn man_page_of_one_command_and_of_an_unknown_one() {
    let env = Env::new();
    env.dotpack()
        .args(["man", "add"])
        .assert()
        .success()
        .stdout(contains(".TH dotpack-add 1").and(contains("\\-\\-allow\\-lossy")));
    env.dotpack()
        .args(["man", "rm"])
        .assert()
        .success()
        .stdout(contains(".TH dotpack-remove 1"));
    env.dotpack()
        .args(["man", "ad"])
        .assert()
        .code(2)
        .stderr(contains("did you mean `add`?"));
}
