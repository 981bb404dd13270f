//! The hosts dotpack knows, by id (`reference/hosts.md` section 21).

/// A host id and how to show it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HostInfo {
    /// The id written in `[project] hosts` and used everywhere else.
    pub id: &'static str,
    pub display_name: &'static str,
    /// One of the priority hosts of hosts.md 21a (the others are 21b).
    pub priority: bool,
}

const fn host(id: &'static str, display_name: &'static str, priority: bool) -> HostInfo {
    HostInfo {
        id,
        display_name,
        priority,
    }
}

/// Every known host, priority hosts first, in the order of hosts.md.
pub static HOSTS: &[HostInfo] = &[
    host("claude-code", "Claude Code", true),
    host("claude-desktop", "Claude Desktop", true),
    host("gemini-cli", "Gemini CLI", true),
    host("codex", "Codex", true),
    host("cursor", "Cursor", true),
    host("vscode", "VS Code", true),
    host("windsurf", "Windsurf", true),
    host("opencode", "OpenCode", true),
    host("zed", "Zed", true),
    host("hermes", "Hermes Agent", true),
    host("antigravity", "Antigravity", true),
    host("pi", "pi", false),
    host("goose", "goose", false),
    host("cline", "Cline", false),
    host("continue", "Continue", false),
    host("amazon-q", "Amazon Q Developer CLI", false),
    host("kiro", "Kiro", false),
    host("copilot-cli", "GitHub Copilot CLI", false),
    host("crush", "Crush", false),
    host("mcp-json", "shared .mcp.json files", false),
];

/// The host with id `id`.
pub fn host_info(id: &str) -> Option<&'static HostInfo> {
    HOSTS.iter().find(|h| h.id == id)
}

pub fn is_known_host(id: &str) -> bool {
    host_info(id).is_some()
}
