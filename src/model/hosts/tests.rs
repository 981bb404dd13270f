use std::path::{Path, PathBuf};

use super::*;
use crate::model::concepts::{CONCEPTS, concept_of};

fn fake_env() -> HostEnv {
    HostEnv::new("/home/u")
}

fn paths(id: &str, env: &HostEnv) -> (Option<PathBuf>, Option<PathBuf>) {
    let a = adapter(id).unwrap();
    (
        a.path(Scope::Project, Path::new("/p"), env),
        a.path(Scope::User, Path::new("/p"), env),
    )
}

fn some(p: &str) -> Option<PathBuf> {
    Some(PathBuf::from(p))
}

#[test]
fn every_adapter_is_a_known_host_listed_once() {
    let mut seen = std::collections::BTreeSet::new();
    for a in ADAPTERS {
        assert!(seen.insert(a.id), "{} listed twice", a.id);
        assert_eq!(adapter(a.id), Some(a));
    }
    assert_eq!(adapter("no-such-host"), None);
    assert_eq!(adapter("claude-code").unwrap().name(), "Claude Code");
}

#[test]
fn transport_labels_agree_with_the_concept_table() {
    let type_concept = concept_of("type").unwrap();
    for a in ADAPTERS {
        let t = a.transport_types;
        let writes_type = t.stdio.or(t.http).or(t.sse).is_some();
        assert_eq!(
            writes_type,
            a.expresses(type_concept),
            "{}: transport labels vs concept table",
            a.id
        );
        if !t.speaks_sse {
            assert_eq!(t.sse, None, "{}", a.id);
        }
    }
}

#[test]
fn every_adapter_lists_its_cells_in_concept_table_order() {
    let position = |cell: &Cell| CONCEPTS.iter().position(|c| c.id == cell.concept);
    for a in ADAPTERS {
        let positions: Vec<_> = a.cells().map(position).collect();
        assert!(
            positions.is_sorted(),
            "{}: cells out of the concept table's order: {:?}",
            a.id,
            a.cells().map(|c| c.concept).collect::<Vec<_>>()
        );
    }
}

#[test]
fn every_adapter_keeps_each_resource_kind_in_one_place() {
    for a in ADAPTERS {
        let mut seen = std::collections::BTreeSet::new();
        for row in a.resources {
            assert!(
                seen.insert(row.kind),
                "{}: two rows for {:?}",
                a.id,
                row.kind
            );
        }
    }
}

#[test]
fn claude_code_paths_never_use_settings_json() {
    let env = fake_env();
    assert_eq!(
        paths("claude-code", &env),
        (some("/p/.mcp.json"), some("/home/u/.claude.json"))
    );
    let moved = fake_env().with_var("CLAUDE_CONFIG_DIR", "/cfg/claude");
    assert_eq!(
        paths("claude-code", &moved).1,
        some("/cfg/claude/.claude.json")
    );
    for a in ADAPTERS.iter().filter(|a| a.id == "claude-code") {
        assert!(!a.project_file.unwrap().contains("settings.json"));
    }
}

#[test]
fn codex_user_file_follows_codex_home() {
    assert_eq!(
        paths("codex", &fake_env()),
        (
            some("/p/.codex/config.toml"),
            some("/home/u/.codex/config.toml")
        )
    );
    let env = fake_env().with_var("CODEX_HOME", "/srv/codex");
    assert_eq!(paths("codex", &env).1, some("/srv/codex/config.toml"));
}

#[test]
fn hermes_follows_hermes_home() {
    assert_eq!(
        paths("hermes", &fake_env()).1,
        some("/home/u/.hermes/config.yaml")
    );
    let env = fake_env().with_var("HERMES_HOME", "/srv/hermes");
    assert_eq!(paths("hermes", &env).1, some("/srv/hermes/config.yaml"));
}

#[test]
fn gemini_and_cursor_paths() {
    let env = fake_env();
    assert_eq!(
        paths("gemini-cli", &env),
        (
            some("/p/.gemini/settings.json"),
            some("/home/u/.gemini/settings.json")
        )
    );
    assert_eq!(
        paths("cursor", &env),
        (
            some("/p/.cursor/mcp.json"),
            some("/home/u/.cursor/mcp.json")
        )
    );
}

#[test]
#[cfg(not(target_os = "macos"))]
fn vscode_user_file_follows_xdg_config_home() {
    assert_eq!(
        paths("vscode", &fake_env()),
        (
            some("/p/.vscode/mcp.json"),
            some("/home/u/.config/Code/User/mcp.json")
        )
    );
    let env = fake_env().with_var("XDG_CONFIG_HOME", "/xdg");
    assert_eq!(paths("vscode", &env).1, some("/xdg/Code/User/mcp.json"));
}

#[test]
fn containers_and_formats() {
    let shape = |id| {
        let a = adapter(id).unwrap();
        (a.container.path, a.format)
    };
    assert_eq!(
        shape("claude-code"),
        (&["mcpServers"][..], FileFormat::Json)
    );
    assert_eq!(
        shape("gemini-cli"),
        (&["mcpServers"][..], FileFormat::Jsonc)
    );
    assert_eq!(shape("codex"), (&["mcp_servers"][..], FileFormat::Toml));
    assert_eq!(shape("cursor"), (&["mcpServers"][..], FileFormat::Jsonc));
    assert_eq!(shape("vscode"), (&["servers"][..], FileFormat::Jsonc));
}

#[test]
fn from_lookup_reads_only_honoured_vars_and_skips_empty_or_relative() {
    let vars = [
        ("HOME", "/home/u"),
        ("CODEX_HOME", "/c"),
        ("CLAUDE_CONFIG_DIR", ""),
        ("XDG_CONFIG_HOME", "relative/dir"),
        ("UNRELATED", "/x"),
    ];
    let env = HostEnv::from_lookup(|name| {
        vars.iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| PathBuf::from(v))
    })
    .unwrap();
    assert_eq!(env, HostEnv::new("/home/u").with_var("CODEX_HOME", "/c"));
    assert!(matches!(
        HostEnv::from_lookup(|_| None),
        Err(HostEnvError::NoHome)
    ));
}

#[test]
fn detection_uses_target_files_and_markers() {
    let project = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let env = HostEnv::new(home.path());
    let root = project.path();
    for a in ADAPTERS {
        assert!(!a.detected(Scope::Project, root, &env), "{}", a.id);
        assert!(!a.detected(Scope::User, root, &env), "{}", a.id);
    }
    std::fs::write(root.join(".mcp.json"), "{}").unwrap();
    std::fs::create_dir_all(root.join(".codex")).unwrap();
    std::fs::create_dir_all(home.path().join(".gemini")).unwrap();
    std::fs::write(home.path().join(".claude.json"), "{}").unwrap();
    let detected = |scope| {
        ADAPTERS
            .iter()
            .filter(|a| a.detected(scope, root, &env))
            .map(|a| a.id)
            .collect::<Vec<_>>()
    };
    assert_eq!(detected(Scope::Project), ["claude-code", "codex"]);
    assert_eq!(detected(Scope::User), ["claude-code", "gemini-cli"]);

    let codex_home = tempfile::tempdir().unwrap();
    let moved = env.clone().with_var("CODEX_HOME", codex_home.path());
    assert!(
        adapter("codex")
            .unwrap()
            .detected(Scope::User, root, &moved)
    );
}

#[test]
fn scope_parses_and_prints_lowercase() {
    use clap::ValueEnum;
    assert_eq!(Scope::from_str("user", false), Ok(Scope::User));
    assert_eq!(Scope::Project.to_string(), "project");
    assert_eq!(serde_json::to_string(&Scope::User).unwrap(), "\"user\"");
}

#[test]
fn gemini_follows_gemini_cli_home() {
    let env = fake_env();
    assert_eq!(
        paths("gemini-cli", &env).1,
        some("/home/u/.gemini/settings.json")
    );
    let moved = fake_env().with_var("GEMINI_CLI_HOME", "/g");
    assert_eq!(
        paths("gemini-cli", &moved).1,
        some("/g/.gemini/settings.json")
    );
    assert_eq!(
        HostEnv::from_lookup(|v| match v {
            "HOME" => Some("/home/u".into()),
            "GEMINI_CLI_HOME" => Some("/g".into()),
            _ => None,
        })
        .unwrap(),
        moved
    );
}

/// The hosts whose entries get no shell environment: the desktop apps, none of which has a
/// command-line program of its own for `doctor` to look for.
#[test]
fn the_desktop_apps_are_the_hosts_started_from_a_desktop_launcher() {
    let mut desktop: Vec<&str> = ADAPTERS
        .iter()
        .filter(|a| a.desktop_app)
        .map(|a| a.id)
        .collect();
    desktop.sort_unstable();
    assert_eq!(
        desktop,
        [
            "antigravity",
            "claude-desktop",
            "cline",
            "cursor",
            "vscode",
            "windsurf",
            "zed"
        ]
    );
    assert!(
        ADAPTERS
            .iter()
            .all(|a| !a.desktop_app || a.program.is_none())
    );
}
