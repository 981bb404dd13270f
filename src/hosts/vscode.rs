//! VS Code with GitHub Copilot Chat (hosts.md §6).
//!
//! - `.vscode/mcp.json` (workspace) and `mcp.json` in the profile's User directory
//!   (Linux `~/.config/Code/User/mcp.json`, honouring `XDG_CONFIG_HOME`; macOS
//!   `~/Library/Application Support/Code/User/mcp.json`). The key is `servers`, not `mcpServers`.
//!   JSONC by VS Code convention.
//! - `type` (`stdio`, `http`, `sse`) is documented as required, so every entry carries it.
//! - `${env:NAME}` is resolved (reported flaky inside `headers`: microsoft/vscode#336232).

use super::{FileFormat, HostAdapter, TransportTypes, UserPath};
use crate::template::EnvSyntax;

pub(super) const ADAPTER: HostAdapter = HostAdapter {
    id: "vscode",
    format: FileFormat::Jsonc,
    container: &["servers"],
    project_file: Some(".vscode/mcp.json"),
    user_file: Some(UserPath::Config("Code/User/mcp.json")),
    project_markers: &[".vscode/mcp.json", ".vscode"],
    user_markers: &[UserPath::Config("Code/User")],
    env_syntax: EnvSyntax::EnvColon,
    transport_types: TransportTypes {
        stdio: Some("stdio"),
        http: Some("http"),
        sse: Some("sse"),
        speaks_sse: true,
    },
};
