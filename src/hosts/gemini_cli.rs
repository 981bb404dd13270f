//! Gemini CLI (hosts.md §3).
//!
//! - `.gemini/settings.json` (project) and `~/.gemini/settings.json` (user), key `mcpServers`;
//!   JSONC (read with `strip-json-comments`), and the same file holds unrelated settings.
//! - Transport: `command` ⇒ stdio; `url` with `type` `http` or `sse`. Without `type` Gemini tries
//!   streamable HTTP and falls back to SSE, so dotpack writes the type it knows, as
//!   `gemini mcp add` does. Stdio entries have no `type` (the field only takes http/sse).
//!   `httpUrl` is deprecated and never written.
//! - `$VAR`, `${VAR}`, `${VAR:-default}` are expanded in every string value.

use super::{FileFormat, HostAdapter, TransportTypes, UserPath};
use crate::template::EnvSyntax;

pub(super) const ADAPTER: HostAdapter = HostAdapter {
    id: "gemini-cli",
    format: FileFormat::Jsonc,
    container: &["mcpServers"],
    project_file: Some(".gemini/settings.json"),
    user_file: Some(UserPath::Home(".gemini/settings.json")),
    project_markers: &[".gemini", "GEMINI.md"],
    user_markers: &[UserPath::Home(".gemini")],
    env_syntax: EnvSyntax::DollarBrace,
    transport_types: TransportTypes {
        stdio: None,
        http: Some("http"),
        sse: Some("sse"),
        speaks_sse: true,
    },
};
