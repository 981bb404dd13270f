//! Every host's user file on Linux, macOS and Windows, written out by hand from the hosts'
//! documentation and sources (`docs/hosts.md`), and the variables that move it: computed from a
//! given platform and environment, so these run the same on any machine.

use std::path::{Path, PathBuf};

use super::*;

const LINUX_HOME: &str = "/home/u";
const MAC_HOME: &str = "/Users/u";
const WIN_HOME: &str = r"C:\Users\u";

fn home_of(platform: Platform) -> &'static str {
    match platform {
        Platform::Linux => LINUX_HOME,
        Platform::Macos => MAC_HOME,
        Platform::Windows => WIN_HOME,
    }
}

fn user_file(id: &str, env: &HostEnv) -> String {
    let host = adapter(id).unwrap_or_else(|| panic!("no host {id}"));
    host.path(Scope::User, Path::new("/nonexistent-project"), env)
        .map(|p| p.to_string_lossy().into_owned())
        .unwrap_or_else(|| "-".to_string())
}

/// (host, Linux, macOS, Windows) with no variable set.
const USER_FILES: &[(&str, &str, &str, &str)] = &[
    (
        "claude-code",
        "/home/u/.claude.json",
        "/Users/u/.claude.json",
        r"C:\Users\u\.claude.json",
    ),
    (
        "claude-desktop",
        "/home/u/.config/Claude/claude_desktop_config.json",
        "/Users/u/Library/Application Support/Claude/claude_desktop_config.json",
        r"C:\Users\u\AppData\Roaming\Claude\claude_desktop_config.json",
    ),
    (
        "gemini-cli",
        "/home/u/.gemini/settings.json",
        "/Users/u/.gemini/settings.json",
        r"C:\Users\u\.gemini\settings.json",
    ),
    (
        "codex",
        "/home/u/.codex/config.toml",
        "/Users/u/.codex/config.toml",
        r"C:\Users\u\.codex\config.toml",
    ),
    (
        "cursor",
        "/home/u/.cursor/mcp.json",
        "/Users/u/.cursor/mcp.json",
        r"C:\Users\u\.cursor\mcp.json",
    ),
    (
        "vscode",
        "/home/u/.config/Code/User/mcp.json",
        "/Users/u/Library/Application Support/Code/User/mcp.json",
        r"C:\Users\u\AppData\Roaming\Code\User\mcp.json",
    ),
    (
        "windsurf",
        "/home/u/.codeium/windsurf/mcp_config.json",
        "/Users/u/.codeium/windsurf/mcp_config.json",
        r"C:\Users\u\.codeium\windsurf\mcp_config.json",
    ),
    (
        "opencode",
        "/home/u/.config/opencode/opencode.json",
        "/Users/u/.config/opencode/opencode.json",
        r"C:\Users\u\.config\opencode\opencode.json",
    ),
    (
        "zed",
        "/home/u/.config/zed/settings.json",
        "/Users/u/.config/zed/settings.json",
        r"C:\Users\u\AppData\Roaming\Zed\settings.json",
    ),
    (
        "hermes",
        "/home/u/.hermes/config.yaml",
        "/Users/u/.hermes/config.yaml",
        r"C:\Users\u\.hermes\config.yaml",
    ),
    (
        "antigravity",
        "/home/u/.gemini/antigravity/mcp_config.json",
        "/Users/u/.gemini/antigravity/mcp_config.json",
        r"C:\Users\u\.gemini\antigravity\mcp_config.json",
    ),
    (
        "pi",
        "/home/u/.pi/agent/mcp.json",
        "/Users/u/.pi/agent/mcp.json",
        r"C:\Users\u\.pi\agent\mcp.json",
    ),
    (
        "goose",
        "/home/u/.config/goose/config.yaml",
        "/Users/u/.config/goose/config.yaml",
        r"C:\Users\u\AppData\Roaming\Block\goose\config\config.yaml",
    ),
    (
        "cline",
        "/home/u/.config/Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json",
        "/Users/u/Library/Application Support/Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json",
        r"C:\Users\u\AppData\Roaming\Code\User\globalStorage\saoudrizwan.claude-dev\settings\cline_mcp_settings.json",
    ),
    // The Cline CLI: `~/.cline` on every OS (`@cline/shared`'s resolveClineDir: HOME, else
    // USERPROFILE).
    (
        "cline-cli",
        "/home/u/.cline/data/settings/cline_mcp_settings.json",
        "/Users/u/.cline/data/settings/cline_mcp_settings.json",
        r"C:\Users\u\.cline\data\settings\cline_mcp_settings.json",
    ),
    (
        "continue",
        "/home/u/.continue/config.yaml",
        "/Users/u/.continue/config.yaml",
        r"C:\Users\u\.continue\config.yaml",
    ),
    (
        "amazon-q",
        "/home/u/.aws/amazonq/mcp.json",
        "/Users/u/.aws/amazonq/mcp.json",
        r"C:\Users\u\.aws\amazonq\mcp.json",
    ),
    (
        "kiro",
        "/home/u/.kiro/settings/mcp.json",
        "/Users/u/.kiro/settings/mcp.json",
        r"C:\Users\u\.kiro\settings\mcp.json",
    ),
    (
        "copilot-cli",
        "/home/u/.copilot/mcp-config.json",
        "/Users/u/.copilot/mcp-config.json",
        r"C:\Users\u\.copilot\mcp-config.json",
    ),
    (
        "crush",
        "/home/u/.config/crush/crush.json",
        "/Users/u/.config/crush/crush.json",
        r"C:\Users\u\.config\crush\crush.json",
    ),
    (
        "mcp-json",
        "/home/u/.config/mcp/mcp.json",
        "/Users/u/.config/mcp/mcp.json",
        r"C:\Users\u\.config\mcp\mcp.json",
    ),
];

#[test]
fn every_host_has_its_documented_user_file_on_each_platform() {
    let listed: Vec<&str> = USER_FILES.iter().map(|row| row.0).collect();
    let known: Vec<&str> = ADAPTERS.iter().map(|a| a.id).collect();
    assert_eq!(listed, known, "one row per host, in ADAPTERS order");
    for &(id, linux, macos, windows) in USER_FILES {
        for (platform, want) in [
            (Platform::Linux, linux),
            (Platform::Macos, macos),
            (Platform::Windows, windows),
        ] {
            let env = HostEnv::on(platform, home_of(platform));
            assert_eq!(user_file(id, &env), want, "{id} on {platform}");
        }
    }
}

/// (host, platform, variable, its value, the user file then).
const MOVED: &[(&str, Platform, &str, &str, &str)] = &[
    (
        "claude-code",
        Platform::Windows,
        "CLAUDE_CONFIG_DIR",
        r"D:\claude",
        r"D:\claude\.claude.json",
    ),
    (
        "gemini-cli",
        Platform::Windows,
        "GEMINI_CLI_HOME",
        r"D:\g",
        r"D:\g\.gemini\settings.json",
    ),
    (
        "codex",
        Platform::Macos,
        "CODEX_HOME",
        "/opt/codex",
        "/opt/codex/config.toml",
    ),
    (
        "codex",
        Platform::Windows,
        "CODEX_HOME",
        r"D:\codex",
        r"D:\codex\config.toml",
    ),
    (
        "hermes",
        Platform::Linux,
        "HERMES_HOME",
        "/srv/hermes",
        "/srv/hermes/config.yaml",
    ),
    (
        "pi",
        Platform::Windows,
        "PI_CODING_AGENT_DIR",
        r"D:\pi",
        r"D:\pi\mcp.json",
    ),
    (
        "copilot-cli",
        Platform::Linux,
        "COPILOT_HOME",
        "/c",
        "/c/mcp-config.json",
    ),
    (
        "continue",
        Platform::Linux,
        "CONTINUE_GLOBAL_DIR",
        "/cont",
        "/cont/config.yaml",
    ),
    (
        "continue",
        Platform::Windows,
        "CONTINUE_GLOBAL_DIR",
        r"D:\cont",
        r"D:\cont\config.yaml",
    ),
    (
        "crush",
        Platform::Linux,
        "CRUSH_GLOBAL_CONFIG",
        "/cr",
        "/cr/crush.json",
    ),
    (
        "crush",
        Platform::Windows,
        "XDG_CONFIG_HOME",
        r"D:\xdg",
        r"D:\xdg\crush\crush.json",
    ),
    (
        "goose",
        Platform::Linux,
        "GOOSE_PATH_ROOT",
        "/gr",
        "/gr/config/config.yaml",
    ),
    (
        "goose",
        Platform::Windows,
        "GOOSE_PATH_ROOT",
        r"D:\gr",
        r"D:\gr\config\config.yaml",
    ),
    (
        "goose",
        Platform::Macos,
        "XDG_CONFIG_HOME",
        "/x",
        "/x/goose/config.yaml",
    ),
    // goose on Windows follows the Windows layout, not XDG.
    (
        "goose",
        Platform::Windows,
        "XDG_CONFIG_HOME",
        r"D:\xdg",
        r"C:\Users\u\AppData\Roaming\Block\goose\config\config.yaml",
    ),
    (
        "goose",
        Platform::Windows,
        "APPDATA",
        r"E:\Roaming",
        r"E:\Roaming\Block\goose\config\config.yaml",
    ),
    (
        "vscode",
        Platform::Windows,
        "APPDATA",
        r"E:\Roaming",
        r"E:\Roaming\Code\User\mcp.json",
    ),
    (
        "vscode",
        Platform::Linux,
        "XDG_CONFIG_HOME",
        "/x",
        "/x/Code/User/mcp.json",
    ),
    // Electron's macOS folder is not XDG's.
    (
        "vscode",
        Platform::Macos,
        "XDG_CONFIG_HOME",
        "/x",
        "/Users/u/Library/Application Support/Code/User/mcp.json",
    ),
    (
        "vscode",
        Platform::Macos,
        "VSCODE_APPDATA",
        "/va",
        "/va/Code/User/mcp.json",
    ),
    (
        "claude-desktop",
        Platform::Linux,
        "XDG_CONFIG_HOME",
        "/x",
        "/x/Claude/claude_desktop_config.json",
    ),
    (
        "claude-desktop",
        Platform::Windows,
        "APPDATA",
        r"E:\Roaming",
        r"E:\Roaming\Claude\claude_desktop_config.json",
    ),
    (
        "opencode",
        Platform::Macos,
        "XDG_CONFIG_HOME",
        "/x",
        "/x/opencode/opencode.json",
    ),
    (
        "opencode",
        Platform::Windows,
        "XDG_CONFIG_HOME",
        r"D:\xdg",
        r"D:\xdg\opencode\opencode.json",
    ),
    (
        "zed",
        Platform::Linux,
        "XDG_CONFIG_HOME",
        "/x",
        "/x/zed/settings.json",
    ),
    // Zed on macOS keeps `~/.config/zed` whatever XDG says.
    (
        "zed",
        Platform::Macos,
        "XDG_CONFIG_HOME",
        "/x",
        "/Users/u/.config/zed/settings.json",
    ),
    (
        "zed",
        Platform::Windows,
        "APPDATA",
        r"E:\Roaming",
        r"E:\Roaming\Zed\settings.json",
    ),
];

#[test]
fn host_variables_move_the_user_file_where_the_host_reads_it() {
    for &(id, platform, var, value, want) in MOVED {
        let env = HostEnv::on(platform, home_of(platform)).with_var(var, value);
        assert_eq!(user_file(id, &env), want, "{id} on {platform} with {var}");
        assert!(honoured_vars().contains(&var), "{var} is read at the edge");
    }
}

#[test]
fn windows_reads_userprofile_first_and_ignores_a_relative_appdata() {
    let vars = [
        ("HOME", "/c/Users/u"),
        ("USERPROFILE", WIN_HOME),
        ("APPDATA", r"Roaming"),
        ("XDG_CONFIG_HOME", r"D:\xdg"),
    ];
    let lookup = |name: &str| {
        vars.iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| PathBuf::from(v))
    };
    let env = HostEnv::from_lookup_on(Platform::Windows, lookup).unwrap();
    assert_eq!(
        env,
        HostEnv::on(Platform::Windows, WIN_HOME).with_var("XDG_CONFIG_HOME", r"D:\xdg")
    );
    let linux = HostEnv::from_lookup_on(Platform::Linux, lookup).unwrap();
    assert_eq!(linux.home, PathBuf::from("/c/Users/u"));
    // On Linux a Windows path is relative: not an XDG directory.
    assert!(!linux.vars.contains_key("XDG_CONFIG_HOME"));
}

#[test]
fn platform_judges_absolute_paths_of_any_platform() {
    for (path, windows, unix) in [
        (r"C:\x", true, false),
        ("c:/x", true, false),
        (r"\\server\share", true, false),
        ("/x", false, true),
        ("x", false, false),
        (r"C:x", false, false),
    ] {
        assert_eq!(
            Platform::Windows.is_absolute(Path::new(path)),
            windows,
            "{path}"
        );
        assert_eq!(Platform::Macos.is_absolute(Path::new(path)), unix, "{path}");
    }
}

#[test]
fn joining_keeps_one_separator_of_the_platform() {
    let win = HostEnv::on(Platform::Windows, r"C:\Users\u\");
    assert_eq!(
        win.join(Path::new(r"C:\Users\u\"), ".codex/config.toml"),
        PathBuf::from(r"C:\Users\u\.codex\config.toml")
    );
    let linux = HostEnv::on(Platform::Linux, "/home/u/");
    assert_eq!(
        linux.join(Path::new("/home/u/"), "a//b/"),
        PathBuf::from("/home/u/a/b")
    );
    assert_eq!(
        linux.join(Path::new("/home/u"), ""),
        PathBuf::from("/home/u")
    );
}
