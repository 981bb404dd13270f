//! Whole-output snapshots of `--help` for dotpack and every command (and nested command), so a
//! changed flag or description shows up in review. The list of commands comes from the clap
//! definition itself.

use clap::CommandFactory;

use crate::support::Env;

fn paths(cmd: &clap::Command, prefix: Vec<String>, out: &mut Vec<Vec<String>>) {
    out.push(prefix.clone());
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        let mut p = prefix.clone();
        p.push(sub.get_name().to_string());
        paths(sub, p, out);
    }
}

#[test]
fn help_of_every_command() {
    let mut all = Vec::new();
    paths(&dotpack::cli::Cli::command(), Vec::new(), &mut all);
    assert!(all.len() > 25, "{}", all.len());
    let env = Env::new();
    for path in all {
        let out = env
            .dotpack()
            .args(&path)
            .arg("--help")
            .env("COLUMNS", "100")
            .output()
            .unwrap();
        assert!(out.status.success(), "{path:?}");
        let name = if path.is_empty() {
            "help".to_string()
        } else {
            format!("help_{}", path.join("_"))
        };
        let text =
            String::from_utf8_lossy(&out.stdout).replace(env!("CARGO_PKG_VERSION"), "[VERSION]");
        insta::assert_snapshot!(name, text);
    }
}

#[test]
fn every_command_that_does_something_shows_examples() {
    let mut all = Vec::new();
    paths(&dotpack::cli::Cli::command(), Vec::new(), &mut all);
    let env = Env::new();
    let mut missing = Vec::new();
    // `dotpack` itself and `dotpack registry` only list their commands.
    for path in all
        .iter()
        .filter(|p| !p.is_empty() && p.as_slice() != ["registry"])
    {
        let out = env.dotpack().args(path).arg("--help").output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout).to_string();
        let examples = text
            .split_once("\nExamples:\n")
            .map(|(_, e)| e)
            .unwrap_or("");
        if !examples.contains("dotpack ") {
            missing.push(path.join(" "));
        }
    }
    assert_eq!(missing, Vec::<String>::new());
}

/// A flag many commands share says, in each command's help, what it does for that command; a
/// command that refuses it does not list it.
#[test]
fn shared_flags_say_what_they_do_for_each_command() {
    let help = |command: &str| {
        let out = Env::new()
            .dotpack()
            .args([command, "--help"])
            .output()
            .unwrap();
        String::from_utf8(out.stdout)
            .unwrap()
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    };
    let host_lines = [
        ("add", "Install the added packages into this host too"),
        (
            "install",
            "Install into this host, and add it to `[project] hosts`",
        ),
        ("uninstall", "Take the entries out of this host only"),
        ("adopt", "The host whose file holds the entry"),
        ("list", "Show only this host's entries"),
        ("status", "Check only this host"),
    ];
    for (command, line) in host_lines {
        assert!(help(command).contains(line), "{command}: {}", help(command));
        assert!(!help(command).contains("each command says"), "{command}");
    }
    for command in ["remove", "update"] {
        assert!(!help(command).contains("--host"), "{command}");
        assert!(!help(command).contains("--scope"), "{command}");
    }
}

#[test]
fn update_refuses_host_and_scope_as_remove_does() {
    let env = Env::new();
    env.write("dotpack.toml", "[project]\nhosts = [\"claude-code\"]\n");
    env.dotpack()
        .args(["update", "--host", "cursor"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("dotpack install --host HOST"));
    assert!(!env.project.join(".cursor").exists());
    assert_eq!(
        env.read("dotpack.toml"),
        "[project]\nhosts = [\"claude-code\"]\n"
    );
}
