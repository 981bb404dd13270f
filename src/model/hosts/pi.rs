//! pi: two readers of the same files, both in the wild. pi 1.6+ has MCP built in; older pi (and
//! a pi that installs it, which replaces the built-in) reads them through the `pi-mcp-adapter`
//! extension (hosts.md §12). Each entry is written for both ([`both_readers`]).
//!
//! - `.pi/mcp.json` (project, pi-only, highest precedence) and `~/.pi/agent/mcp.json`
//!   (`$PI_CODING_AGENT_DIR/mcp.json`); key `mcpServers`. The adapter also reads the shared
//!   `.mcp.json` and `~/.config/mcp/mcp.json` (host `mcp-json`), the built-in neither; dotpack
//!   writes pi's own files so pi-only fields stay out of files other hosts read.
//! - Where the two differ (pi 1.6.0's `core/mcp-servers.js` and `pi-mcp`'s `config.js`; the
//!   adapter's `types.ts`, 2.36.0): the built-in reads `"enabled": false`, the adapter
//!   `"disabled": true`; the built-in filters tools with `exposure` (`hidden`) and
//!   `toolExposure` (tool or pattern → exposure), the adapter with `includeTools` and
//!   `excludeTools`; the built-in's `timeout` is seconds, the adapter's `requestTimeoutMs`
//!   milliseconds. The built-in's `auth` is an object naming a provider, and it refuses the
//!   whole entry for the adapter's `"auth": "bearer"` or `"oauth"`: a bearer token is written as
//!   the `Authorization` header both send, and OAuth as nothing (both detect it).
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
        (
            "exposure",
            "how built-in pi offers the server's tools to the model (`codemode`, `deferred`, `direct`)",
        ),
        (
            "toolExposure",
            "how built-in pi offers each tool to the model",
        ),
        (
            "description",
            "what the server offers, in the sentence built-in pi puts in its system prompt",
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
    program: Some("pi"),
    desktop_app: false,
};

/// Its spellings beyond the stdio core, in concept-table order. Claude Code's and Codex's
/// `headers_helper` (a shell line whose output is the headers) has no cell: pi's
/// `requestHeadersCommand` is a program with its own input and output, written as
/// `request_headers_command`.
const FIELDS: &[Cell] = &[
    Cell::same("url", "url"),
    Cell::same("http_transport_headers", "headers"),
    // Read, never written: the built-in pi ignores it; the `Authorization` header is written.
    Cell::new("codex_bearer_token_env_var", "bearerTokenEnv", Form::Legacy),
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

/// pi reads OAuth scopes as one string; each entry is written for both readers
/// ([`both_readers`]).
fn to_host(_name: &str, entry: &mut Map<String, Value>) -> Result<(), String> {
    both_readers(entry)?;
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
    one_reader(entry);
    let has_token = entry.contains_key("bearerTokenEnv") || entry.contains_key("bearerToken");
    if has_token && entry.get("auth").and_then(Value::as_str) == Some("bearer") {
        entry.remove("auth");
    }
    if !has_authorization(entry)
        && let Some(Value::String(token)) = entry.get("bearerToken").cloned()
    {
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

/// What the built-in pi reads beside what the adapter reads, where they spell a field
/// differently: `enabled` beside `disabled`, `exposure`/`toolExposure` beside
/// `includeTools`/`excludeTools` (an allowed tool gets the default `codemode`, a denied one
/// `hidden`), `timeout` in seconds beside `requestTimeoutMs`. And no string `auth`, which the
/// built-in refuses the whole entry for: a bearer token is already the `Authorization` header
/// (`bearerTokenEnv` is never written), and OAuth is what both try on a server without one.
fn both_readers(entry: &mut Map<String, Value>) -> Result<(), String> {
    if let Some(Value::Bool(disabled)) = entry.get("disabled") {
        let enabled = Value::Bool(!disabled);
        entry.insert("enabled".to_string(), enabled);
    }
    let names = |key: &str| -> Result<Vec<String>, String> {
        match entry.get(key) {
            None => Ok(Vec::new()),
            Some(Value::Array(items)) => items
                .iter()
                .map(|t| t.as_str().map(str::to_string))
                .collect::<Option<_>>()
                .ok_or_else(|| format!("`{key}` must be a list of tool names")),
            Some(_) => Err(format!("`{key}` must be a list of tool names")),
        }
    };
    let (allowed, denied) = (names("includeTools")?, names("excludeTools")?);
    if entry.contains_key("includeTools") {
        entry.insert("exposure".to_string(), Value::from("hidden"));
    }
    if !allowed.is_empty() || !denied.is_empty() {
        let mut exposure = Map::new();
        for tool in &allowed {
            exposure.insert(tool.clone(), Value::from("codemode"));
        }
        for tool in &denied {
            exposure.insert(tool.clone(), Value::from("hidden"));
        }
        entry.insert("toolExposure".to_string(), Value::Object(exposure));
    }
    if let Some(ms) = entry.get("requestTimeoutMs").and_then(Value::as_f64)
        && ms > 0.0
    {
        let seconds = ms / 1000.0;
        let value = if seconds.fract() == 0.0 {
            Value::from(seconds as u64)
        } else {
            Value::from(seconds)
        };
        entry.insert("timeout".to_string(), value);
    }
    match entry.get("auth").and_then(Value::as_str) {
        Some("bearer") if has_authorization(entry) => {
            entry.remove("auth");
        }
        Some("oauth") if !entry.contains_key("headers") => {
            entry.remove("auth");
        }
        Some("oauth") => {
            return Err("pi 1.6 refuses an entry with `\"auth\": \"oauth\"`, and pi's adapter tries OAuth only without headers or with that key: give this server either `auth = \"oauth\"` or `http_headers`, not both".to_string());
        }
        _ => {}
    }
    Ok(())
}

/// The inverse of [`both_readers`]: the adapter's spelling of each field, from the built-in's
/// where only that one is there (pi's own `/mcp` screen and `pi mcp add` write it), and the
/// built-in's copies dropped where they say the same.
fn one_reader(entry: &mut Map<String, Value>) {
    // Where both are there and differ, pi's own screen switched the server: the built-in's
    // `enabled` is the newer.
    match entry.remove("enabled") {
        Some(Value::Bool(enabled)) => {
            entry.insert("disabled".to_string(), Value::Bool(!enabled));
        }
        Some(other) => {
            entry.insert("enabled".to_string(), other);
        }
        None => {}
    }
    let has_filters = entry.contains_key("includeTools") || entry.contains_key("excludeTools");
    let hidden_server = entry.get("exposure").and_then(Value::as_str) == Some("hidden");
    if let Some(Value::Object(tools)) = entry.get("toolExposure").cloned()
        && tools
            .values()
            .all(|v| matches!(v.as_str(), Some("codemode" | "hidden")))
        && (hidden_server || entry.get("exposure").is_none())
    {
        if !has_filters {
            let pick = |wanted: &str| -> Vec<Value> {
                tools
                    .iter()
                    .filter(|(_, v)| v.as_str() == Some(wanted))
                    .map(|(k, _)| Value::from(k.as_str()))
                    .collect()
            };
            let (allowed, denied) = (pick("codemode"), pick("hidden"));
            if hidden_server {
                entry.insert("includeTools".to_string(), Value::Array(allowed));
            }
            if !denied.is_empty() {
                entry.insert("excludeTools".to_string(), Value::Array(denied));
            }
        }
        entry.remove("toolExposure");
        if hidden_server {
            entry.remove("exposure");
        }
    }
    if entry.contains_key("requestTimeoutMs") {
        entry.remove("timeout");
    } else if let Some(seconds) = entry.remove("timeout") {
        match seconds.as_f64() {
            Some(s) if s > 0.0 => {
                entry.insert(
                    "requestTimeoutMs".to_string(),
                    Value::from((s * 1000.0).round() as u64),
                );
            }
            _ => {
                entry.insert("timeout".to_string(), seconds);
            }
        }
    }
}

/// Whether `entry` sends an `Authorization` header.
fn has_authorization(entry: &Map<String, Value>) -> bool {
    entry
        .get("headers")
        .and_then(Value::as_object)
        .is_some_and(|h| h.keys().any(|k| k.eq_ignore_ascii_case("authorization")))
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
