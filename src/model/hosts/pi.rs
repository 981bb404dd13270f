//! pi, through its `pi-mcp-adapter` extension (hosts.md §12).
//!
//! - `.pi/mcp.json` (project, pi-only, highest precedence) and `~/.pi/agent/mcp.json`
//!   (`$PI_CODING_AGENT_DIR/mcp.json`); key `mcpServers`. pi also reads the shared `.mcp.json`
//!   and `~/.config/mcp/mcp.json` (host `mcp-json`); dotpack writes pi's own files so pi-only
//!   fields stay out of files other hosts read.
//! - `command` / `url` decide the transport (streamable HTTP with SSE fallback); no `type`.
//! - `${VAR}` references in env, cwd, url and headers. A value of `env`, `headers`,
//!   `bearerToken` or `oauth.clientSecret` starting with `!` is run as a shell command at connect
//!   time, and `!!` is a literal `!` ([`COMMANDS`]): dotpack writes a value that starts with `!`
//!   as `!!…` here, and refuses one in the shared files pi also reads.

use super::{
    CommandValues, Container, EntryHooks, FileFormat, HostAdapter, SharedFile, TransportTypes,
    UserPath,
};
use crate::model::concepts::{Cell, Form, STDIO_CORE};
use crate::template::EnvSyntax;

pub(super) const ADAPTER: HostAdapter = HostAdapter {
    id: "pi",
    display_name: "pi",
    priority: false,
    format: FileFormat::Json,
    container: Container::new(&["mcpServers"]),
    project_file: Some(".pi/mcp.json"),
    user_file: Some(UserPath::EnvDir {
        var: "PI_CODING_AGENT_DIR",
        default: ".pi/agent",
        file: "mcp.json",
    }),
    project_markers: &[".pi"],
    user_markers: &[UserPath::EnvDir {
        var: "PI_CODING_AGENT_DIR",
        default: ".pi/agent",
        file: "",
    }],
    env_syntax: EnvSyntax::DollarBrace,
    remote_wrapper: None,
    also_expands: &[],
    transport_types: TransportTypes::untyped(true),
    fields: &[STDIO_CORE, FIELDS],
    resources: &[],
    also_named: None,
    own_fields: &[(
        "lifecycle",
        "when pi connects: `lazy`, `eager`, `keep-alive` or `lazy-keep-alive`",
    )],
    hooks: EntryHooks {
        command_values: Some(COMMANDS),
        ..EntryHooks::NONE
    },
};

/// Its spellings beyond the stdio core, in concept-table order.
const FIELDS: &[Cell] = &[
    Cell::same("url", "url"),
    Cell::same("http_transport_headers", "headers"),
    Cell::new("headers_helper", "requestHeadersCommand", Form::Values),
    Cell::same("codex_bearer_token_env_var", "bearerTokenEnv"),
    Cell::new("oauth", "oauth", Form::Values),
    Cell::new("http_auth_mode", "auth", Form::Values),
    Cell::same("stdio_working_directory", "cwd"),
    Cell::new("tool_call_timeout", "requestTimeoutMs", Form::Millis),
    Cell::new("server_enabled", "disabled", Form::Inverted),
    Cell::same("tool_allowlist", "includeTools"),
    Cell::same("tool_denylist", "excludeTools"),
];

/// pi runs `!command` values of these fields (`../seeds/pi-mcp-adapter.txt`, "Secret values
/// … may use a leading `!command`"), in its own files and in the shared files it reads: the
/// project's `.mcp.json` and the user's `~/.config/mcp/mcp.json`, `~/.agents/mcp.json` and
/// `~/.agents/mcp/mcp.json` (hosts.md §12).
pub const COMMANDS: CommandValues = CommandValues {
    prefix: '!',
    fields: &["env", "headers", "bearerToken", "oauth.clientSecret"],
    also_reads: &[
        SharedFile::Project(".mcp.json"),
        SharedFile::User(UserPath::Home(".config/mcp/mcp.json")),
        SharedFile::User(UserPath::Home(".agents/mcp.json")),
        SharedFile::User(UserPath::Home(".agents/mcp/mcp.json")),
    ],
};
