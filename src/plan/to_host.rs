//! Translation of one canonical server into one host's entry shape.
//!
//! Which fields a host can express, and how it spells them, comes from the concept table
//! ([`crate::model::concepts`]); the adapter ([`crate::model::hosts::HostAdapter`]) adds only its environment
//! reference syntax and its transport labels. The result is a JSON value even for TOML hosts: the
//! format backend turns it into the file's own syntax.
//!
//! For each extension field, in order:
//! 1. the host has a spelling for it: written under that name, converted by its [`Form`]
//!    (units, inverted booleans, nested paths), and recorded in [`Translation::renamed`] when the
//!    name differs (`enabled_tools` → Gemini `includeTools`);
//! 2. the host can say the same thing another way: env forwarding on hosts without interpolation
//!    (Codex `env_vars`, `env_http_headers`, `bearer_token_env_var`), or the reverse on hosts that
//!    interpolate (`bearer_token_env_var` → `headers.Authorization = "Bearer ${X}"`);
//! 3. otherwise a lossy concept becomes a [`Dropped`] for the planner to gate, and a concept whose
//!    loss changes nothing at runtime (`type`, `description`) is left out silently.
//!
//! Nothing is guessed: a value the host can neither express nor safely drop (an `{{env.X}}` inside
//! `args` on Codex) is a [`TranslateError`] whose message says the fix.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use crate::model::concepts::ValueKind;
use crate::model::concepts::{CONCEPTS, Cell, Concept, Form, concept_of, hosts_expressing};
use crate::model::hosts::{HostAdapter, Platform};
use crate::model::manifest::Server;
use crate::template::is_env_name;
use crate::template::{
    Context, EnvSyntax, Props, TemplateError, forwarded_env_ref, render_for_host, sole_env_ref,
    value_of, value_text,
};
use crate::util::error::{Error, Fix};

/// One server in one host's shape.
#[derive(Clone, Debug, PartialEq)]
pub struct Translation {
    /// A JSON object; keys in the order hosts document them: `type`, `command`, `args`, `env`,
    /// `url`, headers, then the rest in concept-table order. Equal inputs give equal output.
    pub entry: Value,
    /// Fields the host cannot express, in the server's (sorted) field order.
    pub dropped: Vec<Dropped>,
    /// `(canonical field, host field)` for every value written under another name, including
    /// env references forwarded by name (`env.TOKEN` → `env_vars`).
    pub renamed: Vec<(String, String)>,
    /// Variables whose current value the entry holds (`--resolve-env`), as markers
    /// (see [`crate::model::resolved_env`]).
    pub resolved: Vec<String>,
}

/// A lossy field left out because the host cannot express it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dropped {
    /// Canonical name (`enabled_tools`).
    pub field: String,
    /// Concept id, or `"unknown"` for a field outside the concept table.
    pub concept: &'static str,
    /// Dropping it weakens security: the planner needs it named in `--allow-lossy=FIELD`.
    /// Unknown fields count as security-relevant, the safe assumption.
    pub security: bool,
    /// Host ids that can express it, to suggest where the server keeps its meaning.
    pub supported_on: Vec<&'static str>,
}

/// Why a server cannot be written for a host.
#[derive(Debug, thiserror::Error)]
pub enum TranslateError {
    #[error("`{field}`: {source}")]
    Template {
        field: String,
        #[source]
        source: TemplateError,
    },
    #[error("{host} cannot express `{field}`: {reason}")]
    Unsupported {
        host: &'static str,
        field: String,
        reason: String,
    },
    /// A templated field whose value does not fit the field's type.
    #[error("`{field}`: {reason}")]
    Value { field: String, reason: String },
    #[error("invalid transport: {reason}")]
    Transport { reason: String },
    /// Values another host reading the same file would run as a shell command.
    #[error("{}", host_command(file, fields, verb, *prefix, reader, reader_id))]
    HostCommand {
        file: String,
        /// The fields, as a list for the message: `` `env.X` ``, `` `env.X`, `headers.Y` ``.
        fields: String,
        /// `starts` or `start`.
        verb: &'static str,
        prefix: char,
        reader: &'static str,
        reader_id: &'static str,
    },
}

impl Fix for TranslateError {
    fn error(&self) -> Error {
        match self {
            TranslateError::HostCommand {
                file,
                fields,
                verb,
                prefix,
                reader,
                reader_id,
            } => host_command(file, fields, verb, *prefix, reader, reader_id),
            other => Error::new(other.to_string()),
        }
    }
}

fn host_command(
    file: &str,
    fields: &str,
    verb: &str,
    prefix: char,
    reader: &str,
    reader_id: &str,
) -> Error {
    Error::new(format!(
        "{fields} {verb} with `{prefix}`, and {reader} also reads {file}: it runs a value that starts with `{prefix}` as a shell command and reads `{prefix}{prefix}` as a literal `{prefix}`, which the other hosts reading {file} do not, so no spelling of the value means the same to all of them"
    ))
    .help(format!(
        "write the server for {reader} in its own file (host `{reader_id}`), where dotpack writes such a value as `{prefix}{prefix}…` so that it stays a literal, or give the value without a leading `{prefix}`"
    ))
    .file(file)
}

/// A bridged server's tool filters given as one expression (`enabled_tools =
/// "{{props.tools}}"`) with their list values, so the bridge enforces them as it does a list
/// written out. A filter whose expression gives no list stays as it is, for translation to
/// refuse with its reason.
pub fn with_filter_lists(host: &HostAdapter, server: &Server, props: &Props) -> Server {
    let mut out = server.clone();
    let cx = Context::for_host(props, host.id);
    for field in ["enabled_tools", "disabled_tools"] {
        let Some(toml::Value::String(s)) = out.extensions.get(field) else {
            continue;
        };
        if let Ok(Some(Value::Array(items))) = value_of(s, &cx) {
            let list = items
                .iter()
                .map(|item| toml::Value::String(value_text(item)))
                .collect();
            out.extensions
                .insert(field.to_string(), toml::Value::Array(list));
        }
    }
    out
}

/// `server`, a stdio server, as the entry that starts it through `dotpack run` (`dotpack`, or
/// `command` for the target's scope): its command and arguments rendered for `host` with `props`
/// and pinned (see [`crate::model::launcher`]), and each `env` value that is exactly the variable
/// of its own name (`GITHUB_TOKEN = "{{env.GITHUB_TOKEN}}"`) left to the launcher, which reads it
/// from the credential store, then the environment. Other `env` values stay for the host. A
/// server without `command` is returned as it is.
pub fn through_launcher(
    host: &HostAdapter,
    server: &Server,
    props: &Props,
    command: String,
) -> Result<Server, TranslateError> {
    if server.command.is_none() {
        return match &server.url {
            Some(url) if needs_proxy(host, server) => {
                through_proxy(host, server, url, props, command)
            }
            _ => Ok(server.clone()),
        };
    }
    // The launcher's arguments are pinned, so no host may expand a reference inside them: a
    // variable reaches the server through `env`, which the launcher passes on.
    let pinned = HostAdapter {
        env_syntax: EnvSyntax::None,
        ..*host
    };
    let normalized = with_references(server);
    let server = normalized.as_ref();
    let real = server.command.as_deref().unwrap_or_default();
    let t = Translator {
        host: &pinned,
        resolve_env: false,
        markers: std::cell::RefCell::default(),
        cx: Context::for_host(props, host.id),
        items: Vec::new(),
        dropped: Vec::new(),
        renamed: Vec::new(),
    };
    let real = t.render("command", real, NO_ENV_IN_ARGS)?;
    let args: Vec<String> = t.args(server)?.iter().map(value_text).collect();
    let mut out = server.clone();
    out.env = server.env.clone();
    let secrets: Vec<String> = server
        .env
        .iter()
        .filter(|(name, value)| sole_env_ref(value, &t.cx).as_deref() == Some(name.as_str()))
        .map(|(name, _)| name.clone())
        .collect();
    for name in &secrets {
        out.env.remove(name);
    }
    let args = crate::model::launcher::launcher_args(&real, &args, &secrets);
    Ok(launcher_entry(host, out, command, args, &secrets))
}

/// `out` made the entry that runs `command` (dotpack) with the launcher's `args`, rendered
/// once: what is left of `{{` is text, written so that translating the entry keeps it. A
/// launcher that reads secrets is told where the session bus is, where the host passes only
/// named variables.
fn launcher_entry(
    host: &HostAdapter,
    mut out: Server,
    command: String,
    args: Vec<String>,
    secrets: &[String],
) -> Server {
    out.args = Some(
        args.into_iter()
            .map(|a| a.replace("{{", "{{'{{'}}"))
            .collect(),
    );
    out.command = Some(command);
    if !secrets.is_empty() {
        forward_session_bus(host, &mut out);
    }
    out
}

/// The variables that tell the launcher where the user's session bus, and so the credential
/// store, is.
const SESSION_BUS_VARS: [&str; 2] = ["DBUS_SESSION_BUS_ADDRESS", "XDG_RUNTIME_DIR"];

/// For a host that passes its servers only the variables an entry names (Codex's `env_vars`),
/// names the session bus's, so the launcher finds the store where the user's session says (a
/// `dbus-launch` session, a container) and not only at `/run/user/UID/bus`.
fn forward_session_bus(host: &HostAdapter, out: &mut Server) {
    if !concept_of("env_vars").is_some_and(|c| host.expresses(c)) {
        return;
    }
    let toml::Value::Array(names) = out
        .extensions
        .entry("env_vars".to_string())
        .or_insert_with(|| toml::Value::Array(Vec::new()))
    else {
        return;
    };
    for var in SESSION_BUS_VARS {
        if !names.iter().any(|n| n.as_str() == Some(var)) {
            names.push(toml::Value::String(var.to_string()));
        }
    }
}

/// Whether `host` needs the launcher's proxy to reach remote `server` with its secrets: it speaks
/// only stdio, or the server sends a header with a reference the host cannot write (it has no
/// headers, or no reference syntax). A server on the older SSE transport is left as it is: the
/// proxy speaks streamable HTTP.
fn needs_proxy(host: &HostAdapter, server: &Server) -> bool {
    let expresses = |name| concept_of(name).is_some_and(|c| host.expresses(c));
    if server.extensions.get("type").and_then(toml::Value::as_str) == Some("sse") {
        return false;
    }
    let secret_header = matches!(
        server.extensions.get("http_headers"),
        Some(toml::Value::Table(t)) if t.values().any(|v| v.as_str().is_some_and(|s| !crate::template::env_refs(s).is_empty()))
    );
    !expresses("url")
        || (secret_header && (!expresses("http_headers") || host.env_syntax == EnvSyntax::None))
}

/// `server`, a remote server at `url`, as the stdio entry that proxies to it through `dotpack run
/// --url` (see `crate::ops::proxy`): its URL rendered with `props` (a reference in it is
/// refused: the URL is pinned and shown), its `http_headers` as `--header 'NAME: TEMPLATE'`,
/// each `{{env.X}}` kept for the launcher, which reads X from the credential store (then the
/// environment) and sends it; the secrets, the URL and the headers pinned. Every host can start
/// it, and no host file holds the secret or a reference to it.
fn through_proxy(
    host: &HostAdapter,
    server: &Server,
    url: &str,
    props: &Props,
    command: String,
) -> Result<Server, TranslateError> {
    let cx = Context::for_host(props, host.id);
    let template_error = |field: &str, source| TranslateError::Template {
        field: field.to_string(),
        source,
    };
    let url = render_for_host(url, &cx, EnvSyntax::None).map_err(|source| match source {
        TemplateError::EnvUnsupported(_) => TranslateError::Unsupported {
            host: host.name(),
            field: "url".to_string(),
            reason: format!("the launcher's URL is pinned and shown: {NO_ENV_IN_URL}"),
        },
        source => template_error("url", source),
    })?;
    let mut out = server.clone();
    let (mut headers, mut secrets) = (Vec::new(), Vec::new());
    if let Some(toml::Value::Table(table)) = out.extensions.remove("http_headers") {
        for (name, value) in table {
            let template = value.as_str().unwrap_or_default();
            let field = format!("http_headers.{name}");
            // Rendered with markers for the references, which become `{{env.X}}` again: only
            // the variables the template itself names are secrets.
            let mut rendered = render_for_host(template, &cx, EnvSyntax::Resolved)
                .map_err(|source| template_error(&field, source))?;
            for var in crate::template::env_refs(template) {
                rendered = rendered.replace(
                    &EnvSyntax::Resolved.example(&var),
                    &EnvSyntax::None.example(&var),
                );
                secrets.push(var);
            }
            headers.push(format!("{name}: {rendered}"));
        }
    }
    out.url = None;
    out.extensions.remove("type");
    let args = crate::model::launcher::remote_launcher_args(&url, &headers, &secrets);
    Ok(launcher_entry(host, out, command, args, &secrets))
}

/// Translates server `server_name` (`server`) for `host`, rendering templates with `props`.
pub fn translate(
    host: &HostAdapter,
    server_name: &str,
    server: &Server,
    props: &Props,
) -> Result<Translation, TranslateError> {
    translate_with(host, server_name, server, props, false, Platform::current())
}

/// [`translate`]; with `resolve_env`, a reference the host cannot express in a field is written
/// as the variable's current value (through a marker, see [`crate::model::resolved_env`]) instead of being
/// refused. `platform` is the one the file is read on: on Windows a batch shim (`npx`) starts
/// through `cmd /c` ([`crate::model::hosts::windows_cmd`]).
pub fn translate_with(
    host: &HostAdapter,
    server_name: &str,
    server: &Server,
    props: &Props,
    resolve_env: bool,
    platform: Platform,
) -> Result<Translation, TranslateError> {
    let mut t = Translator {
        host,
        resolve_env,
        markers: std::cell::RefCell::default(),
        cx: Context::for_host(props, host.id),
        items: Vec::new(),
        dropped: Vec::new(),
        renamed: Vec::new(),
    };
    let normalized = with_references(server);
    let keyed = super::keys::with_rendered_keys(normalized.as_ref(), &t.cx).map_err(|e| {
        TranslateError::Value {
            field: e.field,
            reason: e.reason,
        }
    })?;
    let server = keyed.as_ref();
    let transport = transport_of(server)?;
    check_transport_fields(server, transport)?;
    let wrapped;
    let (server, transport) = match wrap_remote(host, server, transport) {
        Some(stdio) => {
            wrapped = stdio;
            t.dropped.push(Dropped {
                field: crate::model::concepts::WRAPPED_TRANSPORT.to_string(),
                concept: "remote_via_wrapper",
                security: true,
                supported_on: concept_of("url").map_or_else(Vec::new, supported_hosts),
            });
            (&wrapped, Transport::Stdio)
        }
        None => (server, transport),
    };
    let shimmed;
    let server = match crate::model::hosts::windows_cmd::wrap(host, platform, server) {
        Some(through_cmd) => {
            shimmed = through_cmd;
            &shimmed
        }
        None => server,
    };
    t.transport_label(transport)?;
    t.core(server)?;
    for (field, value) in &server.extensions {
        t.extension(server, field, value)?;
    }
    let mut entry = t.entry()?;
    if let Value::Object(fields) = &mut entry {
        (host.hooks.to_host)(server_name, fields).map_err(|reason| {
            TranslateError::Unsupported {
                host: host.id,
                field: "(entry)".to_string(),
                reason,
            }
        })?;
        if let Some(rule) = host.hooks.command_values {
            escape_commands(&rule, fields);
        }
    }
    // A marker dotpack did not render came from a package or an input: writing it would put
    // the value of any variable into the file.
    let resolved = crate::model::resolved_env::vars_in(&entry.to_string());
    if let Some(forged) = resolved.iter().find(|v| !t.markers.borrow().contains(v)) {
        return Err(TranslateError::Unsupported {
            host: host.id,
            field: "(entry)".to_string(),
            reason: format!(
                "a value holds `{}`, which dotpack reserves for values it writes with --resolve-env",
                crate::model::resolved_env::marker(forged)
            ),
        });
    }
    Ok(Translation {
        entry,
        dropped: t.dropped,
        renamed: t.renamed,
        resolved,
    })
}

/// Every value of `fields` that the host would run as a command (pi's `!curl …`) with the
/// prefix doubled, so the host reads the literal value the server declares (`!!curl …` is read
/// as `!curl …`). Import takes one prefix off again.
fn escape_commands(rule: &crate::model::hosts::CommandValues, fields: &mut Map<String, Value>) {
    rule.visit(fields, &mut |_, text| {
        if text.starts_with(rule.prefix) {
            text.insert(0, rule.prefix);
        }
    });
}

/// Refuses `entry`, written for `host` into its file at `scope` (`file`, as messages name it),
/// when another host that reads the same file would run one of its values as a shell command
/// (pi reads the shared `.mcp.json` and runs `env` values starting with `!`). There the prefix
/// cannot be escaped, as the other readers would take the doubled prefix literally.
pub fn check_command_readers(
    host: &HostAdapter,
    scope: crate::model::hosts::Scope,
    file: &str,
    entry: &Value,
) -> Result<(), TranslateError> {
    let Value::Object(fields) = entry else {
        return Ok(());
    };
    for (reader, rule) in host.command_readers(scope) {
        let mut fields = fields.clone();
        let mut found = Vec::new();
        rule.visit(&mut fields, &mut |path, text| {
            if text.starts_with(rule.prefix) {
                found.push(format!("`{path}`"));
            }
        });
        if !found.is_empty() {
            return Err(TranslateError::HostCommand {
                file: file.to_string(),
                verb: if found.len() == 1 { "starts" } else { "start" },
                fields: found.join(", "),
                prefix: rule.prefix,
                reader: reader.name(),
                reader_id: reader.id,
            });
        }
    }
    Ok(())
}

/// The server with references written in one host's syntax (`${X}`, `${env:X}`, `$X`) read as
/// the `{{env.X}}` they mean, so every host gets its own syntax. A shell's arguments keep `$X`,
/// which the shell expands.
fn with_references(server: &Server) -> std::borrow::Cow<'_, Server> {
    use crate::template::as_templates;
    use std::borrow::Cow;
    if !server.strings().iter().any(|s| s.contains('$')) {
        return Cow::Borrowed(server);
    }
    fn value(v: &toml::Value) -> toml::Value {
        match v {
            toml::Value::String(s) => toml::Value::String(as_templates(s, true).into_owned()),
            toml::Value::Array(items) => toml::Value::Array(items.iter().map(value).collect()),
            toml::Value::Table(t) => {
                toml::Value::Table(t.iter().map(|(k, v)| (k.clone(), value(v))).collect())
            }
            other => other.clone(),
        }
    }
    // A shell's script and the launcher's pinned arguments are passed as they are written.
    let shell = server
        .command
        .as_deref()
        .is_some_and(crate::template::is_shell)
        || crate::model::launcher::is_entry(server.command.as_deref(), server.args.as_deref());
    let text = |s: &String| as_templates(s, true).into_owned();
    Cow::Owned(Server {
        command: server.command.as_ref().map(text),
        args: server.args.as_ref().map(|args| {
            args.iter()
                .map(|a| as_templates(a, !shell).into_owned())
                .collect()
        }),
        env: server
            .env
            .iter()
            .map(|(k, v)| (k.clone(), text(v)))
            .collect(),
        url: server.url.as_ref().map(text),
        hosts: server.hosts.clone(),
        extensions: server
            .extensions
            .iter()
            .map(|(k, v)| (k.clone(), value(v)))
            .collect(),
    })
}

/// A remote server as the stdio server of `host`'s remote wrapper (`npx -y mcp-remote URL
/// --header "K: V" …`), when the host cannot reach remote servers itself. Static headers become
/// `--header` arguments; SSE is asked for with `--transport sse-only`.
fn wrap_remote(host: &HostAdapter, server: &Server, transport: Transport) -> Option<Server> {
    let wrapper = host.remote_wrapper?;
    let url = server.url.as_ref()?;
    if transport == Transport::Stdio || concept_of("url").is_some_and(|c| host.expresses(c)) {
        return None;
    }
    let mut args: Vec<String> = wrapper[1..].iter().map(|a| a.to_string()).collect();
    args.push(url.clone());
    let mut extensions = server.extensions.clone();
    extensions.remove("type");
    if let Some(toml::Value::Table(headers)) = extensions.remove("http_headers") {
        for (name, value) in headers {
            let value = match value {
                toml::Value::String(s) => s,
                other => other.to_string(),
            };
            args.push("--header".to_string());
            args.push(format!("{name}:{value}"));
        }
    }
    if transport == Transport::Sse {
        args.extend(["--transport".to_string(), "sse-only".to_string()]);
    }
    Some(Server {
        command: Some(wrapper[0].to_string()),
        args: Some(args),
        env: server.env.clone(),
        url: None,
        hosts: server.hosts.clone(),
        extensions,
    })
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Transport {
    Stdio,
    Http,
    Sse,
}

/// The transport: `command` or `url` decides, `type` may only refine `url` to SSE.
fn transport_of(server: &Server) -> Result<Transport, TranslateError> {
    let label = match server.extensions.get("type") {
        None => None,
        Some(toml::Value::String(s)) => Some(s.as_str()),
        Some(_) => return Err(transport_error("`type` must be a string such as \"http\"")),
    };
    match (server.command.is_some(), server.url.is_some(), label) {
        (true, true, _) => Err(transport_error(
            "the server has both `command` and `url`: keep exactly one",
        )),
        (false, false, _) => Err(transport_error(
            "the server has neither `command` (stdio) nor `url` (HTTP): add one",
        )),
        (true, false, None | Some("stdio")) => Ok(Transport::Stdio),
        (false, true, None | Some("http" | "streamable-http")) => Ok(Transport::Http),
        (false, true, Some("sse")) => Ok(Transport::Sse),
        (stdio, _, Some(label)) => Err(transport_error(&format!(
            "`type = \"{label}\"` does not fit a server with `{}`: remove `type` or correct it",
            if stdio { "command" } else { "url" }
        ))),
    }
}

use crate::model::concepts::{HTTP_ONLY, STDIO_ONLY};

/// A field of the other transport is an author's mistake that some hosts refuse to load (Codex:
/// "env is not supported for streamable_http"), so it is reported rather than written.
fn check_transport_fields(server: &Server, transport: Transport) -> Result<(), TranslateError> {
    let present = |f: &&&str| match **f {
        "args" => server.args.is_some(),
        "env" => !server.env.is_empty(),
        f => server.extensions.contains_key(f),
    };
    let (wrong, kind) = match transport {
        Transport::Stdio => (HTTP_ONLY.iter().find(present), "local (stdio)"),
        Transport::Http | Transport::Sse => (STDIO_ONLY.iter().find(present), "remote"),
    };
    match wrong {
        Some(field) => Err(transport_error(&format!(
            "`{field}` does not apply to a {kind} server: remove it"
        ))),
        None => Ok(()),
    }
}

fn transport_error(reason: &str) -> TranslateError {
    TranslateError::Transport {
        reason: reason.to_string(),
    }
}

/// Canonical fields that lead an entry, in the order host docs show them; everything else follows
/// in concept-table order.
const LEADING: &[&str] = &[
    "type",
    "command",
    "args",
    "env",
    "env_vars",
    "url",
    "http_headers",
];

/// Where `canonical` goes in an entry: the leading fields first, then concept-table order.
pub(crate) fn rank(canonical: &str) -> usize {
    LEADING
        .iter()
        .position(|f| *f == canonical)
        .unwrap_or_else(|| {
            LEADING.len()
                + CONCEPTS
                    .iter()
                    .position(|c| c.canonical_fields().any(|f| f == canonical))
                    .unwrap_or(CONCEPTS.len())
        })
}

/// One value bound for the entry, under a (possibly dotted) host key.
struct Item {
    rank: usize,
    key: String,
    value: Value,
}

struct Translator<'a> {
    host: &'a HostAdapter,
    /// `--resolve-env`: write a reference the host cannot express as the variable's value.
    resolve_env: bool,
    /// The variables rendered as markers: the only markers an entry may hold.
    markers: std::cell::RefCell<Vec<String>>,
    cx: Context<'a>,
    items: Vec<Item>,
    dropped: Vec<Dropped>,
    renamed: Vec<(String, String)>,
}

impl Translator<'_> {
    fn unsupported(&self, field: &str, reason: String) -> TranslateError {
        TranslateError::Unsupported {
            host: self.host.name(),
            field: field.to_string(),
            reason,
        }
    }

    /// How the host spells `canonical`: its cell of the concept table.
    fn spelling(&self, canonical: &str) -> Option<&'static Cell> {
        self.host.spelling(concept_of(canonical)?)
    }

    fn required_spelling(&self, canonical: &str) -> Result<&'static Cell, TranslateError> {
        self.spelling(canonical).ok_or_else(|| {
            self.unsupported(
                canonical,
                format!(
                    "{} has no such field; remove it from the project's hosts for this server",
                    self.host.id
                ),
            )
        })
    }

    /// Renders one string for the host. `fix` completes the message when the host cannot
    /// interpolate an environment reference here.
    fn render(&self, field: &str, s: &str, fix: &str) -> Result<String, TranslateError> {
        let mut resolving = false;
        let rendered = match render_for_host(s, &self.cx, self.host.env_syntax) {
            Err(TemplateError::EnvUnsupported(_)) if self.resolve_env => {
                resolving = true;
                render_for_host(s, &self.cx, EnvSyntax::Resolved)
            }
            other => other,
        };
        let rendered = rendered.map_err(|source| match source {
            TemplateError::EnvUnsupported(var) => self.unsupported(
                field,
                format!(
                    "it reads environment variables only by name, not inside a value \
                     (`{{{{env.{var}}}}}`): {fix}; or start the server through the launcher \
                     (`launcher = true`, with the value in `dotpack secret set {var}`); or, at \
                     user scope, pass --resolve-env to write the variable's current value into \
                     the file (readable by you only)"
                ),
            ),
            source => TranslateError::Template {
                field: field.to_string(),
                source,
            },
        })?;
        // A value written in place of a marker must exist and be writable now, not when the
        // transaction is half done.
        if resolving {
            // Only the variables the template itself names: a marker inside a prop's value is
            // not the user's consent to write that variable.
            let named = crate::template::env_refs(s);
            for var in crate::model::resolved_env::vars_in(&rendered)
                .into_iter()
                .filter(|v| named.contains(v))
            {
                if let Err(why) = crate::model::resolved_env::value_of(&var) {
                    return Err(self.unsupported(field, format!("{why:#}")));
                }
                self.markers.borrow_mut().push(var);
            }
        }
        Ok(rendered)
    }

    /// Queues `value` under `key`; a second value for the same key is merged (headers from
    /// `http_headers` and from `env_http_headers`), and a real conflict is an error.
    fn put(&mut self, canonical: &str, key: &str, value: Value) -> Result<(), TranslateError> {
        if let Some(i) = self.items.iter().position(|i| i.key == key) {
            return merge(&mut self.items[i].value, value).map_err(|()| {
                self.unsupported(
                    key,
                    format!(
                        "`{canonical}` sets `{key}` to a value another field already set \
                         differently: keep one of them"
                    ),
                )
            });
        }
        self.items.push(Item {
            rank: rank(canonical),
            key: key.to_string(),
            value,
        });
        Ok(())
    }

    fn rename(&mut self, canonical: impl Into<String>, host_field: impl Into<String>) {
        self.renamed.push((canonical.into(), host_field.into()));
    }

    fn transport_label(&mut self, transport: Transport) -> Result<(), TranslateError> {
        let types = self.host.transport_types;
        let label = match transport {
            Transport::Stdio => types.stdio,
            Transport::Http => types.http,
            Transport::Sse if !types.speaks_sse => {
                return Err(self.unsupported(
                    "type",
                    "it speaks streamable HTTP only, and this server is legacy SSE \
                     (`type = \"sse\"`): point `url` at the server's streamable HTTP endpoint \
                     and remove `type`, or remove this host from the project's hosts"
                        .to_string(),
                ));
            }
            Transport::Sse => types.sse,
        };
        if let (Some(label), Some(hf)) = (label, self.spelling("type")) {
            self.put("type", hf.field, Value::from(label))?;
        }
        Ok(())
    }

    fn core(&mut self, server: &Server) -> Result<(), TranslateError> {
        if let Some(command) = &server.command {
            let hf = self.required_spelling("command")?;
            let mut value = Value::from(self.render("command", command, NO_ENV_IN_ARGS)?);
            if hf.form == Form::CommandArray {
                let mut all = vec![value];
                all.extend(self.args(server)?);
                value = Value::Array(all);
            }
            self.core_field("command", hf, value)?;
            if hf.form != Form::CommandArray && server.args.is_some() {
                let hf = self.required_spelling("args")?;
                let args = Value::Array(self.args(server)?);
                self.core_field("args", hf, args)?;
            }
        }
        if !server.env.is_empty() {
            self.env(&server.env)?;
        }
        if let Some(url) = &server.url {
            let hf = self.required_spelling("url")?;
            let value = Value::from(self.render("url", url, NO_ENV_IN_URL)?);
            self.core_field("url", hf, value)?;
        }
        Ok(())
    }

    fn core_field(
        &mut self,
        canonical: &str,
        hf: &Cell,
        value: Value,
    ) -> Result<(), TranslateError> {
        if hf.field != canonical {
            self.rename(canonical, hf.field);
        }
        self.put(canonical, hf.field, value)
    }

    /// The arguments; an argument that is exactly one expression with a list value
    /// (`"{{props.dirs}}"`) becomes one argument per item, and one whose conditions leave it
    /// empty is left out.
    fn args(&self, server: &Server) -> Result<Vec<Value>, TranslateError> {
        let args = server.args.as_deref().unwrap_or_default();
        let mut out = Vec::with_capacity(args.len());
        for (i, a) in args.iter().enumerate() {
            let field = format!("args[{i}]");
            if a.contains("{{")
                && let Some(Value::Array(items)) = self.typed_value(&field, a)?
            {
                out.extend(items.iter().map(|item| Value::from(value_text(item))));
                continue;
            }
            let rendered = self.render(&field, a, NO_ENV_IN_ARGS)?;
            // `@if(host == "codex")--flag@endif` on another host: no argument at all.
            if rendered.is_empty() && !a.is_empty() && a.contains('@') {
                continue;
            }
            out.push(Value::from(rendered));
        }
        Ok(out)
    }

    /// The typed value of a string that is exactly one expression (see [`value_of`]).
    fn typed_value(&self, field: &str, s: &str) -> Result<Option<Value>, TranslateError> {
        value_of(s, &self.cx).map_err(|source| TranslateError::Template {
            field: field.to_string(),
            source,
        })
    }

    /// A templated string in a field of another kind (`timeout = "{{props.timeout}}"`), as a
    /// value of that kind.
    fn templated(
        &self,
        field: &str,
        s: &str,
        kind: ValueKind,
    ) -> Result<Option<Value>, TranslateError> {
        let wrong = |got: &Value| TranslateError::Value {
            field: field.to_string(),
            reason: format!(
                "`{s}` gives {} `{}`, but the field holds {}: give the input a value of that \
                 kind",
                crate::template::kind_of(got),
                value_text(got),
                kind.describe()
            ),
        };
        // A reference would be written as a string (`"timeout": "${T}"`): no host reads a number
        // or a boolean from one. Install refuses it before planning; this keeps any other caller
        // from writing one.
        if let Some(issue) = crate::model::validate::host_values::typed_env(field, s, kind) {
            return Err(TranslateError::Value {
                field: field.to_string(),
                reason: issue.message,
            });
        }
        let Some(v) = self.typed_value(field, s)? else {
            // Not one expression: rendered as text below, and refused there if the host needs
            // another kind.
            return Ok(None);
        };
        let text = value_text(&v);
        let converted = match kind {
            ValueKind::Integer => match &v {
                Value::Number(n) if n.is_i64() => Some(v.clone()),
                Value::String(t) => t.trim().parse::<i64>().ok().map(Value::from),
                _ => None,
            },
            ValueKind::Number => match &v {
                Value::Number(_) => Some(v.clone()),
                Value::String(t) => t.trim().parse::<f64>().ok().and_then(number),
                _ => None,
            },
            ValueKind::Bool => match (&v, text.trim()) {
                (Value::Bool(_), _) => Some(v.clone()),
                (Value::String(_), "true") => Some(Value::Bool(true)),
                (Value::String(_), "false") => Some(Value::Bool(false)),
                _ => None,
            },
            ValueKind::StringList => match &v {
                Value::Array(items) => Some(Value::Array(
                    items.iter().map(|i| Value::from(value_text(i))).collect(),
                )),
                _ => None,
            },
            _ => return Ok(None),
        };
        converted.map(Some).ok_or_else(|| wrong(&v))
    }

    /// `env`: rendered in the host's syntax, or, on a host without interpolation, a value that is
    /// exactly `{{env.KEY}}` (or the optional `{{env.KEY|''}}`) under key `KEY` is forwarded by
    /// name (Codex `env_vars`). A variable whose conditions leave it empty is left out, as an
    /// argument is.
    fn env(&mut self, env: &BTreeMap<String, String>) -> Result<(), TranslateError> {
        let env_field = self.required_spelling("env")?;
        let mut literal = Map::new();
        for (key, raw) in env {
            let field = format!("env.{key}");
            if self.host.env_syntax == EnvSyntax::None
                && let Some(var) = forwarded_env_ref(raw, &self.cx)
            {
                self.forward_env_var(&field, key, var)?;
                continue;
            }
            let fix = format!(
                "make the whole value `{{{{env.{key}}}}}` so it is forwarded from your \
                 environment under the same name, or write a literal value"
            );
            let rendered = self.render(&field, raw, &fix)?;
            // `@if(props.level){{props.level}}@endif` with nothing set: no variable at all.
            if rendered.is_empty() && raw.contains('@') {
                continue;
            }
            literal.insert(key.clone(), Value::from(rendered));
        }
        if !literal.is_empty() {
            self.core_field("env", env_field, Value::Object(literal))?;
        }
        Ok(())
    }

    fn forward_env_var(
        &mut self,
        field: &str,
        key: &str,
        var: String,
    ) -> Result<(), TranslateError> {
        if var != key {
            return Err(self.unsupported(
                field,
                format!(
                    "it cannot interpolate and forwards a variable only under its own name, but \
                     `{key}` would be read from `{var}`: write `{key} = \"{{{{env.{key}}}}}\"` \
                     and set {key} in your environment, or remove this host from the project's \
                     hosts"
                ),
            ));
        }
        let hf = self.forwarding_field("env_vars", field)?;
        self.rename(field, hf.field);
        self.put("env_vars", hf.field, Value::Array(vec![Value::from(var)]))
    }

    fn forwarding_field(
        &self,
        canonical: &str,
        field: &str,
    ) -> Result<&'static Cell, TranslateError> {
        self.spelling(canonical).ok_or_else(|| {
            self.unsupported(
                field,
                "it has neither interpolation nor a way to forward environment variables: start \
                 the server through the launcher (`dotpack add PACKAGE --launcher`, or \
                 `launcher = true` on the dependency or under [project]), which reads the variable from the OS credential store (`dotpack \
                 secret set NAME`) when the host starts it, or remove this host from the \
                 project's hosts"
                    .to_string(),
            )
        })
    }

    fn extension(
        &mut self,
        server: &Server,
        field: &str,
        value: &toml::Value,
    ) -> Result<(), TranslateError> {
        if field == "type" {
            return Ok(()); // written from the transport, see `transport_label`
        }
        let Some(concept) = concept_of(field) else {
            self.dropped.push(Dropped {
                field: field.to_string(),
                concept: "unknown",
                security: true,
                supported_on: Vec::new(),
            });
            return Ok(());
        };
        if field != concept.field && server.extensions.contains_key(concept.field) {
            return Ok(()); // `startup_timeout_sec` wins over `startup_timeout_ms`
        }
        if field == "http_headers" && self.host.env_syntax == EnvSyntax::None {
            return self.forwarded_headers(value);
        }
        match self.spelling_for(concept, field) {
            Some(hf) => self.write(concept, field, &hf, value),
            None if self.interpolated(field, value)? => Ok(()),
            None if concept.lossy => {
                self.dropped.push(dropped(concept, field));
                Ok(())
            }
            None => Ok(()),
        }
    }

    /// How the host writes `field` of `concept`: a canonical alternate (`startup_timeout_ms`)
    /// under its own name, as its author wrote it, where the host spells the concept by its
    /// canonical name and so reads the alternates too (Codex, whose names they are); otherwise
    /// the host's [`HostAdapter::spelling`]. Import keeps such a spelling as it is, too.
    fn spelling_for(&self, concept: &Concept, field: &str) -> Option<Cell> {
        let hf = self.host.spelling(concept)?;
        let alternate = concept.alternates.iter().find(|a| **a == field);
        match alternate {
            Some(alt) if hf.field == concept.field && hf.form == Form::Same => {
                Some(Cell::same(concept.id, alt))
            }
            _ => Some(*hf),
        }
    }

    /// Writes an extension the host has a field for, converting by its [`Form`].
    fn write(
        &mut self,
        concept: &Concept,
        field: &str,
        hf: &Cell,
        value: &toml::Value,
    ) -> Result<(), TranslateError> {
        let typed = match value {
            toml::Value::String(s) if s.contains("{{") => self.templated(field, s, concept.kind)?,
            _ => None,
        };
        let mut json = match typed {
            Some(json) => json,
            None => self.json(field, value)?,
        };
        match hf.form {
            Form::Same | Form::Millis | Form::Seconds | Form::Nested => {
                let host_unit = match hf.form {
                    Form::Millis => Some(Unit::Millis),
                    Form::Seconds => Some(Unit::Seconds),
                    // A canonical name has its own unit (`startup_timeout_ms`).
                    Form::Same => {
                        canonical_unit(hf.field).or_else(|| canonical_unit(concept.field))
                    }
                    _ => canonical_unit(concept.field),
                };
                if let (Some(from), Some(to)) = (canonical_unit(field), host_unit) {
                    json = convert(json, from, to);
                }
            }
            Form::Inverted => match json {
                Value::Bool(b) => json = Value::Bool(!b),
                _ => return Err(self.unsupported(field, "it must be a boolean".to_string())),
            },
            Form::Values => match (self.host.hooks.value_to_host)(field, &json) {
                Some(converted) => json = converted,
                // The host has the concept in a vocabulary dotpack cannot convert this value to.
                None => {
                    self.dropped.push(dropped(concept, field));
                    return Ok(());
                }
            },
            Form::CommandArray | Form::Legacy => {
                return Err(self.unsupported(
                    field,
                    format!(
                        "its `{}` has a shape of its own that dotpack cannot convert: remove \
                         `{field}` from the server and set it in the host's file by hand, or \
                         remove this host from the project's hosts",
                        hf.field
                    ),
                ));
            }
        }
        if hf.field != field {
            self.rename(field, hf.field);
        }
        self.put(field, hf.field, json)
    }

    /// Canonical `http_headers` on a host without interpolation: a value that is exactly
    /// `{{env.X}}` becomes `env_http_headers`, `Authorization = "Bearer {{env.X}}"` becomes
    /// `bearer_token_env_var`, literal values stay headers.
    fn forwarded_headers(&mut self, value: &toml::Value) -> Result<(), TranslateError> {
        let Some(headers) = value.as_table() else {
            return Err(self.unsupported("http_headers", "it must be a table".to_string()));
        };
        let mut literal = Map::new();
        for (name, raw) in headers {
            let field = format!("http_headers.{name}");
            let Some(raw) = raw.as_str() else {
                return Err(self.unsupported(&field, "header values are strings".to_string()));
            };
            if let Some(var) = forwarded_env_ref(raw, &self.cx) {
                let hf = self.forwarding_field("env_http_headers", &field)?;
                self.rename(&field, format!("{}.{name}", hf.field));
                let mut map = Map::new();
                map.insert(name.clone(), Value::from(var));
                self.put("env_http_headers", hf.field, Value::Object(map))?;
                continue;
            }
            if name.eq_ignore_ascii_case("authorization")
                && let Some(var) = bearer_env_ref(raw, &self.cx)
            {
                let hf = self.forwarding_field("bearer_token_env_var", &field)?;
                self.rename(&field, hf.field);
                self.put("bearer_token_env_var", hf.field, Value::from(var))?;
                continue;
            }
            let rendered = self.render(&field, raw, NO_ENV_IN_HEADER)?;
            // A header whose conditions leave it empty is not sent.
            if rendered.is_empty() && raw.contains('@') {
                continue;
            }
            literal.insert(name.clone(), Value::from(rendered));
        }
        if !literal.is_empty() {
            let hf = self.required_spelling("http_headers")?;
            if hf.field != "http_headers" {
                self.rename("http_headers", hf.field);
            }
            self.put("http_headers", hf.field, Value::Object(literal))?;
        }
        Ok(())
    }

    /// The reverse of forwarding: on a host that interpolates, "read this from the environment"
    /// fields become references in ordinary values. Returns whether `field` was written.
    fn interpolated(&mut self, field: &str, value: &toml::Value) -> Result<bool, TranslateError> {
        if self.host.env_syntax == EnvSyntax::None {
            return Ok(false);
        }
        let (target, entries) = match field {
            "bearer_token_env_var" => {
                let Some(var) = value.as_str().filter(|v| is_env_name(v)) else {
                    return Ok(false);
                };
                let header = format!("Bearer {{{{env.{var}}}}}");
                ("http_headers", vec![("Authorization".to_string(), header)])
            }
            "env_http_headers" => {
                let Some(table) = value.as_table() else {
                    return Ok(false);
                };
                let mut entries = Vec::new();
                for (name, var) in table {
                    let Some(var) = var.as_str().filter(|v| is_env_name(v)) else {
                        return Ok(false);
                    };
                    entries.push((name.clone(), format!("{{{{env.{var}}}}}")));
                }
                ("http_headers", entries)
            }
            "env_vars" => {
                let Some(list) = value.as_array() else {
                    return Ok(false);
                };
                let mut entries = Vec::new();
                for item in list {
                    // `source = "remote"` lives in a remote secret store: no local equivalent.
                    let Some(var) = local_env_var(item) else {
                        return Ok(false);
                    };
                    entries.push((var.to_string(), format!("{{{{env.{var}}}}}")));
                }
                ("env", entries)
            }
            _ => return Ok(false),
        };
        let Some(hf) = self.spelling(target) else {
            return Ok(false);
        };
        let mut map = Map::new();
        for (name, template) in entries {
            let rendered = self.render(&format!("{field}.{name}"), &template, "")?;
            map.insert(name, Value::from(rendered));
        }
        self.rename(field, hf.field);
        self.put(target, hf.field, Value::Object(map))?;
        Ok(true)
    }

    /// A canonical value as JSON, every string rendered for the host.
    fn json(&self, field: &str, value: &toml::Value) -> Result<Value, TranslateError> {
        Ok(match value {
            toml::Value::String(s) => Value::from(self.render(field, s, NO_ENV_IN_FIELD)?),
            toml::Value::Integer(i) => Value::from(*i),
            toml::Value::Float(f) => number(*f)
                .ok_or_else(|| self.unsupported(field, "it must be a finite number".into()))?,
            toml::Value::Boolean(b) => Value::Bool(*b),
            toml::Value::Datetime(d) => Value::from(d.to_string()),
            toml::Value::Array(items) => Value::Array(
                items
                    .iter()
                    .enumerate()
                    .map(|(i, v)| self.json(&format!("{field}[{i}]"), v))
                    .collect::<Result<_, _>>()?,
            ),
            toml::Value::Table(table) => Value::Object(
                table
                    .iter()
                    .map(|(k, v)| Ok((k.clone(), self.json(&format!("{field}.{k}"), v)?)))
                    .collect::<Result<_, TranslateError>>()?,
            ),
        })
    }

    /// The entry: items in rank order, dotted keys (`tools.include`) as nested objects.
    fn entry(&mut self) -> Result<Value, TranslateError> {
        self.items.sort_by_key(|i| i.rank);
        let mut entry = Map::new();
        for item in std::mem::take(&mut self.items) {
            let mut path = item.key.split('.').peekable();
            let mut map = &mut entry;
            while let Some(segment) = path.next() {
                if path.peek().is_none() {
                    let slot = map.entry(segment).or_insert(Value::Null);
                    if slot.is_null() {
                        *slot = item.value;
                    } else if merge(slot, item.value).is_err() {
                        return Err(self.unsupported(&item.key, CONFLICT.to_string()));
                    }
                    break;
                }
                let next = map
                    .entry(segment)
                    .or_insert_with(|| Value::Object(Map::new()));
                let Value::Object(next) = next else {
                    return Err(self.unsupported(&item.key, CONFLICT.to_string()));
                };
                map = next;
            }
        }
        Ok(Value::Object(entry))
    }
}

const CONFLICT: &str = "two fields of the server set it differently: keep one of them";
const NO_ENV_IN_ARGS: &str = "pass it through `env` instead (a value that is exactly \
    `{{env.X}}` under key X is forwarded by name) and let the server read it, or start the server \
    through a shell (`command = \"sh\"`, `args = [\"-c\", \"exec server --flag \\\"$X\\\"\"]`)";
const NO_ENV_IN_URL: &str = "write the URL literally and send secrets in a header \
    (`Authorization = \"Bearer {{env.X}}\"` or a header whose value is exactly `{{env.X}}`)";
const NO_ENV_IN_HEADER: &str = "make the whole value `{{env.X}}` (sent from env var X as is) \
    or write `Authorization = \"Bearer {{env.X}}\"`";
const NO_ENV_IN_FIELD: &str = "write a literal value, or remove this host from the project's hosts";

fn dropped(concept: &Concept, field: &str) -> Dropped {
    Dropped {
        field: field.to_string(),
        concept: concept.id,
        security: concept.security,
        supported_on: supported_hosts(concept),
    }
}

/// The hosts that write `concept` (legacy spellings, read only, do not count), in the order of
/// [`crate::model::hosts::ADAPTERS`].
fn supported_hosts(concept: &Concept) -> Vec<&'static str> {
    hosts_expressing(concept).to_vec()
}

/// Merges `new` into `old`: objects key by key, lists as a union, equal scalars as one.
fn merge(old: &mut Value, new: Value) -> Result<(), ()> {
    match (old, new) {
        (Value::Object(old), Value::Object(new)) => {
            for (k, v) in new {
                match old.get_mut(&k) {
                    Some(existing) => merge(existing, v)?,
                    None => {
                        old.insert(k, v);
                    }
                }
            }
            Ok(())
        }
        (Value::Array(old), Value::Array(new)) => {
            for v in new {
                if !old.contains(&v) {
                    old.push(v);
                }
            }
            Ok(())
        }
        (old, new) if *old == new => Ok(()),
        _ => Err(()),
    }
}

/// `Bearer {{env.X}}` → `X`.
fn bearer_env_ref(raw: &str, cx: &Context<'_>) -> Option<String> {
    let scheme = raw.get(..7)?;
    if !scheme.eq_ignore_ascii_case("bearer ") {
        return None;
    }
    sole_env_ref(raw[7..].trim_start(), cx)
}

/// A Codex `env_vars` item read locally: `"X"` or `{ name = "X" }` without `source = "remote"`.
fn local_env_var(item: &toml::Value) -> Option<&str> {
    let name = match item {
        toml::Value::String(s) => s.as_str(),
        toml::Value::Table(t) => {
            if t.get("source").and_then(toml::Value::as_str) == Some("remote") {
                return None;
            }
            t.get("name")?.as_str()?
        }
        _ => return None,
    };
    is_env_name(name).then_some(name)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Unit {
    Millis,
    Seconds,
}

/// The unit of a canonical duration spelling. The table states units in prose only (`timeout`
/// is "in milliseconds", `connect_timeout` "in seconds"); suffixes say it for the rest.
pub(crate) fn canonical_unit(field: &str) -> Option<Unit> {
    if field.ends_with("_ms") || field == "timeout" {
        Some(Unit::Millis)
    } else if field.ends_with("_sec") || field == "connect_timeout" {
        Some(Unit::Seconds)
    } else {
        None
    }
}

/// A duration `value` in unit `from`, in unit `to` (non-numbers unchanged).
pub(crate) fn convert(value: Value, from: Unit, to: Unit) -> Value {
    let Some(n) = value.as_f64() else {
        return value;
    };
    let n = match (from, to) {
        (Unit::Millis, Unit::Seconds) => n / 1000.0,
        (Unit::Seconds, Unit::Millis) => n * 1000.0,
        _ => return value,
    };
    number(n).unwrap_or(value)
}

/// A JSON number, an integer whenever the value is integral (`30`, not `30.0`).
fn number(n: f64) -> Option<Value> {
    const EXACT: f64 = 9_007_199_254_740_992.0; // 2^53: larger floats are not exact integers
    if n.is_finite() && n.fract() == 0.0 && n.abs() < EXACT {
        #[allow(clippy::cast_possible_truncation)]
        return Some(Value::from(n as i64));
    }
    serde_json::Number::from_f64(n).map(Value::Number)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::model::hosts::adapter;

    fn server(toml: &str) -> Server {
        toml::from_str(toml).unwrap()
    }

    fn on(host: &str, toml: &str) -> Result<Translation, TranslateError> {
        translate(adapter(host).unwrap(), "s", &server(toml), &Props::new())
    }

    /// Kiro's files and cells with none of its other settings, to show translation needs only
    /// the concept cells and the adapter's syntax.
    fn kiro() -> HostAdapter {
        HostAdapter {
            project_file: Some(".kiro/settings/mcp.json"),
            ..HostAdapter::bare("kiro")
        }
    }

    /// On Windows `npx` is a batch file: the written entry starts it through `cmd /c`, in the
    /// host's own shape, the remote wrapper of Claude Desktop included.
    #[test]
    fn batch_shims_start_through_cmd_on_windows() {
        use crate::model::hosts::Platform;
        let windows = |host: &str, toml: &str| {
            translate_with(
                adapter(host).unwrap(),
                "s",
                &server(toml),
                &Props::new(),
                false,
                Platform::Windows,
            )
            .unwrap()
            .entry
        };
        let npx = "command = \"npx\"\nargs = [\"-y\", \"pkg\"]\n";
        assert_eq!(windows("claude-code", npx)["command"], "cmd");
        assert_eq!(
            windows("claude-code", npx)["args"],
            json!(["/c", "npx", "-y", "pkg"])
        );
        assert_eq!(
            windows("opencode", npx)["command"],
            json!(["cmd", "/c", "npx", "-y", "pkg"])
        );
        assert_eq!(windows("goose", npx)["cmd"], "cmd");
        assert_eq!(windows("crush", npx)["command"], "npx");
        let remote = "url = \"https://x.dev/mcp\"\n";
        let desktop = windows("claude-desktop", remote);
        assert_eq!(desktop["command"], "cmd");
        assert_eq!(
            desktop["args"],
            json!(["/c", "npx", "-y", "mcp-remote", "https://x.dev/mcp"])
        );
        assert_eq!(
            translate_with(
                adapter("claude-code").unwrap(),
                "s",
                &server(npx),
                &Props::new(),
                false,
                Platform::Linux,
            )
            .unwrap()
            .entry["command"],
            "npx"
        );
    }

    #[test]
    fn pi_commands_are_escaped_in_pis_files_and_refused_in_files_pi_shares() {
        use crate::model::hosts::Scope;
        let toml = "command = \"x\"\nargs = []\nenv = { A = \"!sh\", B = \"ok\" }\n";
        let t = on("pi", toml).unwrap();
        assert_eq!(t.entry["env"], json!({"A": "!!sh", "B": "ok"}));
        let http = "url = \"https://x\"\nhttp_headers = { H = \"!!k\" }\n";
        assert_eq!(
            on("pi", http).unwrap().entry["headers"],
            json!({"H": "!!!k"})
        );
        let claude = adapter("claude-code").unwrap();
        let entry = on("claude-code", toml).unwrap().entry;
        assert_eq!(entry["env"]["A"], "!sh");
        let err = check_command_readers(claude, Scope::Project, ".mcp.json", &entry)
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("`env.A` starts with `!`, and pi also reads .mcp.json"),
            "{err}"
        );
        // `~/.claude.json` is not read by pi; `~/.config/mcp/mcp.json` is.
        assert!(check_command_readers(claude, Scope::User, "~/.claude.json", &entry).is_ok());
        let shared = adapter("mcp-json").unwrap();
        assert!(check_command_readers(shared, Scope::User, "mcp.json", &entry).is_err());
        let pi = adapter("pi").unwrap();
        assert!(check_command_readers(pi, Scope::Project, ".pi/mcp.json", &entry).is_ok());
        let fine = on("claude-code", "command = \"x\"\nargs = [\"!x\"]\n").unwrap();
        assert!(check_command_readers(claude, Scope::Project, ".mcp.json", &fine.entry).is_ok());
    }

    #[test]
    fn transport_must_be_exactly_one_and_agree_with_type() {
        for bad in [
            "command = \"x\"\nurl = \"https://x\"\n",
            "env = { A = \"1\" }\n",
            "command = \"x\"\ntype = \"http\"\n",
            "url = \"https://x\"\ntype = \"stdio\"\n",
            "url = \"https://x\"\ntype = 3\n",
            "url = \"https://x\"\nenv = { A = \"1\" }\n",
            "url = \"https://x\"\nargs = []\n",
            "command = \"x\"\nargs = []\nhttp_headers = { A = \"1\" }\n",
        ] {
            assert!(
                matches!(on("vscode", bad), Err(TranslateError::Transport { .. })),
                "{bad}"
            );
        }
        let t = on(
            "vscode",
            "url = \"https://x\"\ntype = \"streamable-http\"\n",
        )
        .unwrap();
        assert_eq!(t.entry, json!({"type": "http", "url": "https://x"}));
    }

    #[test]
    fn missing_props_name_the_field_and_the_fix() {
        let err = on(
            "claude-code",
            "command = \"x\"\nargs = [\"{{props.port}}\"]\n",
        )
        .unwrap_err();
        assert!(matches!(&err, TranslateError::Template { field, .. } if field == "args[0]"));
        assert!(err.to_string().contains("--set port=VALUE"), "{err}");
    }

    #[test]
    fn nested_host_fields_build_objects() {
        let t = on("gemini-cli", "url = \"https://x\"\nscopes = [\"read\"]\n").unwrap();
        assert_eq!(
            t.entry,
            json!({"type": "http", "url": "https://x", "oauth": {"scopes": ["read"]}})
        );
        assert_eq!(
            t.renamed,
            [("scopes".to_string(), "oauth.scopes".to_string())]
        );
    }

    #[test]
    fn inverted_fields_flip_and_unknown_fields_drop_as_security() {
        let t = translate(
            &kiro(),
            "s",
            &server("command = \"x\"\nargs = []\nenabled = false\nfrobnicate = 1\n"),
            &Props::new(),
        )
        .unwrap();
        assert_eq!(
            t.entry,
            json!({"command": "x", "args": [], "disabled": true})
        );
        assert_eq!(
            t.dropped,
            [Dropped {
                field: "frobnicate".into(),
                concept: "unknown",
                security: true,
                supported_on: vec![],
            }]
        );
    }

    #[test]
    fn host_shaped_values_without_a_converter_are_lossy_not_guessed() {
        let t = on(
            "cursor",
            "url = \"https://x\"\noauth = { client_id = \"c\" }\n",
        )
        .unwrap();
        assert_eq!(t.entry, json!({"url": "https://x"}));
        assert_eq!(t.dropped.len(), 1);
        assert_eq!(t.dropped[0].field, "oauth");
        assert!(t.dropped[0].security);
    }

    #[test]
    fn silent_omissions_are_not_lossy() {
        let t = on(
            "cursor",
            "command = \"x\"\nargs = []\ndescription = \"d\"\nalways_load = true\n",
        )
        .unwrap();
        assert!(t.dropped.is_empty());
        assert_eq!(
            t.entry,
            json!({"type": "stdio", "command": "x", "args": []})
        );
    }

    #[test]
    fn conflicting_headers_are_refused() {
        let err = on(
            "claude-code",
            "url = \"https://x\"\nhttp_headers = { Authorization = \"Basic a\" }\nbearer_token_env_var = \"T\"\n",
        )
        .unwrap_err();
        assert!(matches!(err, TranslateError::Unsupported { .. }), "{err}");
    }

    #[test]
    fn a_reference_in_a_number_or_boolean_field_is_never_written_as_text() {
        for (host, field) in [
            ("claude-code", "timeout = \"{{env.T|'5000'}}\""),
            ("gemini-cli", "timeout = \"{{env.T}}\""),
            ("gemini-cli", "trust = \"{{env.X}}\""),
        ] {
            let err = on(host, &format!("command = \"x\"\nargs = []\n{field}\n"));
            assert!(
                matches!(&err, Err(TranslateError::Value { reason, .. })
                    if reason.contains("hosts expand a reference only inside a text")),
                "{host} {field}: {:?}",
                err.map(|t| t.entry)
            );
        }
    }

    #[test]
    fn numbers_stay_integers_when_integral() {
        assert_eq!(number(20.0), Some(json!(20)));
        assert_eq!(number(2.5), Some(json!(2.5)));
        assert_eq!(number(f64::NAN), None);
        assert_eq!(
            convert(json!(30000), Unit::Millis, Unit::Seconds),
            json!(30)
        );
        assert_eq!(
            convert(json!(1.5), Unit::Seconds, Unit::Millis),
            json!(1500)
        );
    }

    #[test]
    fn output_is_deterministic() {
        let toml = "url = \"https://x\"\nhttp_headers = { B = \"2\", A = \"1\" }\nbearer_token_env_var = \"T\"\n";
        let a = on("codex", toml).unwrap();
        let b = on("codex", toml).unwrap();
        assert_eq!(a.entry.to_string(), b.entry.to_string());
        assert_eq!(a, b);
    }

    /// Codex passes a server only the variables an entry names: a launcher entry with a secret
    /// names the session bus's, after the user's own; a host that passes its whole environment
    /// gets no such field, and an entry without a secret needs none.
    #[test]
    fn a_launcher_entry_for_codex_names_the_session_bus_variables() {
        let launched = |host: &str, toml: &str| {
            through_launcher(
                adapter(host).unwrap(),
                &server(toml),
                &Props::new(),
                "dotpack".to_string(),
            )
            .unwrap()
            .extensions
            .get("env_vars")
            .cloned()
        };
        let secret = "command = \"x\"\nenv = { T = \"{{env.T}}\" }\nenv_vars = [\"MINE\"]\n";
        assert_eq!(
            launched("codex", secret),
            Some(toml::Value::Array(
                ["MINE", "DBUS_SESSION_BUS_ADDRESS", "XDG_RUNTIME_DIR"]
                    .map(|v| toml::Value::String(v.to_string()))
                    .to_vec()
            ))
        );
        let remote = "url = \"https://x.example/mcp\"\nhttp_headers = { A = \"{{env.T}}\" }\n";
        assert!(launched("codex", remote).is_some());
        assert_eq!(launched("codex", "command = \"x\"\n"), None);
        assert_eq!(
            launched(
                "claude-code",
                "command = \"x\"\nenv = { T = \"{{env.T}}\" }\n"
            ),
            None
        );
    }
}
