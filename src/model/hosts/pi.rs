//! pi, through its `pi-mcp-adapter` extension (hosts.md §12).
//!
//! - `.pi/mcp.json` (project, pi-only, highest precedence) and `~/.pi/agent/mcp.json`
//!   (`$PI_CODING_AGENT_DIR/mcp.json`); key `mcpServers`. pi also reads the shared `.mcp.json`
//!   and `~/.config/mcp/mcp.json` (host `mcp-json`); dotpack writes pi's own files so pi-only
//!   fields stay out of files other hosts read.
//! - `command` / `url` decide the transport (streamable HTTP with SSE fallback); no `type`.
//! - pi's adapter options (`lifecycle`, `idleTimeout`, `directTools`, `approveTools`, …) are
//!   concepts of their own; `auth`, `oauth` (camelCase keys) and `bearerTokenEnv` (which pi
//!   reads in `"auth": "bearer"` mode only) are converted both ways ([`to_host`], [`from_host`]).
//! - `${VAR}` references in env, cwd, url and headers. A value of `env`, `headers`,
//!   `bearerToken` or `oauth.clientSecret` starting with `!` is run as a shell command at connect
//!   time, and `!!` is a literal `!` ([`COMMANDS`]): dotpack writes a value that starts with `!`
//!   as `!!…` here, and refuses one in the shared files pi also reads.

use serde_json::{Map, Value};

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
    // The tool-agnostic `~/.agents` files are read by pi's adapter (hosts.md §12).
    user_markers: &[
        UserPath::EnvDir {
            var: "PI_CODING_AGENT_DIR",
            default: ".pi/agent",
            file: "",
        },
        UserPath::Home(".agents/mcp.json"),
        UserPath::Home(".agents/mcp/mcp.json"),
    ],
    env_syntax: EnvSyntax::DollarBrace,
    remote_wrapper: None,
    also_expands: &[],
    transport_types: TransportTypes::untyped(true),
    fields: &[STDIO_CORE, FIELDS],
    resources: &[],
    also_named: None,
    own_fields: &[
        (
            "bearerTokenStore",
            "the bearer token is read from pi's own credential store (`pi-mcp-adapter token set`)",
        ),
        (
            "searchKeywords",
            "extra words pi's tool search matches this server's tools by",
        ),
        (
            "trace",
            "metadata-only protocol tracing of this server into pi's trace file",
        ),
    ],
    hooks: EntryHooks {
        to_host,
        from_host,
        value_to_host,
        value_from_host,
        command_values: Some(COMMANDS),
    },
    new_file: "",
};

/// Its spellings beyond the stdio core, in concept-table order. Claude Code's and Codex's
/// `headers_helper` (a shell line whose output is the headers) has no cell: pi's
/// `requestHeadersCommand` is a program with its own input and output, written as
/// `request_headers_command`.
const FIELDS: &[Cell] = &[
    Cell::same("url", "url"),
    Cell::same("http_transport_headers", "headers"),
    Cell::same("codex_bearer_token_env_var", "bearerTokenEnv"),
    Cell::new("oauth", "oauth", Form::Values),
    // A list in dotpack.toml, one space-separated string in pi's `oauth` ([`to_host`]).
    Cell::new("oauth_scopes", "oauth.scope", Form::Nested),
    Cell::new("http_auth_mode", "auth", Form::Values),
    Cell::same("stdio_working_directory", "cwd"),
    Cell::new("tool_call_timeout", "requestTimeoutMs", Form::Millis),
    Cell::new("server_enabled", "disabled", Form::Inverted),
    Cell::same("tool_allowlist", "includeTools"),
    Cell::same("tool_denylist", "excludeTools"),
    Cell::same("request_headers_command", "requestHeadersCommand"),
    Cell::same("tool_approval_required", "approveTools"),
    Cell::same("connection_lifecycle", "lifecycle"),
    Cell::same("idle_timeout", "idleTimeout"),
    Cell::same("protocol_version", "protocolVersion"),
    Cell::same("direct_tools", "directTools"),
    Cell::same("tool_prefix", "toolPrefix"),
    Cell::same("expose_resources", "exposeResources"),
    Cell::same("server_debug", "debug"),
];

/// The keys of a canonical `oauth` table and pi's spelling of each (hosts.md §12): a key outside
/// this list is one dotpack cannot tell pi, so the table is refused as lossy rather than written
/// with a key pi ignores.
const OAUTH_KEYS: &[(&str, &str)] = &[
    ("grant_type", "grantType"),
    ("client_id", "clientId"),
    ("client_secret", "clientSecret"),
    ("redirect_uri", "redirectUri"),
    ("client_name", "clientName"),
    ("client_uri", "clientUri"),
    ("logo_uri", "logoUri"),
    ("authorization_params", "authorizationParams"),
    (
        "skip_issuer_metadata_validation",
        "skipIssuerMetadataValidation",
    ),
];

/// pi's two auth modes, as they are; the `oauth` table with pi's key names.
fn value_to_host(field: &str, value: &Value) -> Option<Value> {
    match field {
        "auth" => matches!(value.as_str(), Some("oauth" | "bearer")).then(|| value.clone()),
        "oauth" => rename_keys(value, |key| {
            OAUTH_KEYS.iter().find(|(c, _)| *c == key).map(|(_, h)| *h)
        }),
        _ => None,
    }
}

/// The inverse of [`value_to_host`]; an `oauth` key dotpack does not know stays as pi spells it.
fn value_from_host(field: &str, value: &Value) -> Option<Value> {
    match field {
        "oauth" => {
            let Value::Object(map) = value else {
                return None;
            };
            let renamed = map.iter().map(|(key, v)| {
                let canonical = OAUTH_KEYS.iter().find(|(_, h)| *h == key).map(|(c, _)| *c);
                (canonical.unwrap_or(key).to_string(), v.clone())
            });
            Some(Value::Object(renamed.collect()))
        }
        _ => None,
    }
}

/// `value`'s keys renamed by `name`; `None` when it is not a table or `name` has no name for
/// one of them.
fn rename_keys(value: &Value, name: impl Fn(&str) -> Option<&'static str>) -> Option<Value> {
    let Value::Object(map) = value else {
        return None;
    };
    map.iter()
        .map(|(key, v)| Some((name(key)?.to_string(), v.clone())))
        .collect::<Option<Map<String, Value>>>()
        .map(Value::Object)
}

/// pi reads a bearer token only with `"auth": "bearer"`, and OAuth scopes as one string.
fn to_host(_name: &str, entry: &mut Map<String, Value>) -> Result<(), String> {
    if entry.contains_key("bearerTokenEnv") && !entry.contains_key("auth") {
        entry.insert("auth".to_string(), Value::from("bearer"));
    }
    if let Some(Value::Object(oauth)) = entry.get_mut("oauth")
        && let Some(Value::Array(scopes)) = oauth.get("scope")
    {
        let words: Option<Vec<&str>> = scopes.iter().map(Value::as_str).collect();
        let Some(words) = words else {
            return Err("`scopes` must be a list of strings".to_string());
        };
        if let Some(bad) = words
            .iter()
            .find(|w| w.is_empty() || w.contains(char::is_whitespace))
        {
            return Err(format!(
                "pi takes the OAuth scopes as one space-separated string, so the scope `{bad}` cannot be written: give each scope without spaces"
            ));
        }
        let joined = Value::from(words.join(" "));
        oauth.insert("scope".to_string(), joined);
    }
    Ok(())
}

/// The inverse of [`to_host`], and pi's `bearerToken` read as the `Authorization` header it
/// sends (`Bearer <token>`), which every host with headers can write.
fn from_host(entry: &mut Map<String, Value>) {
    let has_token = entry.contains_key("bearerTokenEnv") || entry.contains_key("bearerToken");
    if has_token && entry.get("auth").and_then(Value::as_str) == Some("bearer") {
        entry.remove("auth");
    }
    let has_authorization = entry
        .get("headers")
        .and_then(Value::as_object)
        .is_some_and(|h| h.keys().any(|k| k.eq_ignore_ascii_case("authorization")));
    if !has_authorization && let Some(Value::String(token)) = entry.get("bearerToken").cloned() {
        entry.remove("bearerToken");
        let headers = entry
            .entry("headers")
            .or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(headers) = headers {
            headers.insert(
                "Authorization".to_string(),
                Value::from(format!("Bearer {token}")),
            );
        }
    }
    if let Some(Value::Object(oauth)) = entry.get_mut("oauth")
        && let Some(Value::String(scope)) = oauth.get("scope")
    {
        let scopes: Vec<Value> = scope.split_whitespace().map(Value::from).collect();
        oauth.insert("scope".to_string(), Value::Array(scopes));
    }
}

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
