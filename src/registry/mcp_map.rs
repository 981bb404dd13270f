//! The official MCP Registry's `server.json` (`reference/hosts.md` §20) as a dotpack package
//! manifest. Pure and deterministic: the same document always gives the same manifest text, so
//! the lock can pin the document's sha256 and reproduce the package from it.
//!
//! The mapping, in order:
//! - `$schema` decides the dialect: the camelCase schemas (2025-09-29 and later) are read; the
//!   snake_case drafts of mid-2025 are refused with a message saying so.
//! - One server, named after the part of `name` after the `/`. It comes from the first entry of
//!   `packages` dotpack can run (`npm` → `npx -y NAME@VERSION`, `pypi` → `uvx NAME==VERSION`,
//!   `oci` → `docker run -i --rm [-e VAR…] IMAGE:TAG`; as in the reference client (VS Code),
//!   `runtimeHint` is not read, and `runtimeArguments` follow `-y` or `run -i --rm`), else from
//!   the first `remotes` entry (`streamable-http`, or `sse` as `type = "sse"`).
//! - `packageArguments`: named ones as `--flag value`, positional ones as their value; a value to
//!   fill in becomes an input (`isRepeated` → an array input spread into the arguments); an
//!   optional one is passed only when set; a named one with nothing said of a value is a switch,
//!   passed as it is.
//! - `environmentVariables` and remote `headers`: a secret is an environment reference
//!   (`{{env.NAME}}`, or `{{env.NAME|''}}`, empty when unset, without `isRequired`) and never a
//!   value; a credential-shaped header (`Authorization`, `*-key`, `*-token`, `*api*key*`) is a
//!   secret whatever `isSecret` says; anything else with a value or default is an input.
//! - `{curly}` variables in values and URLs become inputs; `choices` → `enum`, `format` → the
//!   input's `type` (the schema's string `default` and `choices` read as numbers or booleans),
//!   `isRequired` → `required`.
//!
//! Anything else (an `mcpb`, `nuget` or `cargo` package with no runnable alternative, a transport
//! that contradicts its package, a variable that fills nothing) is a [`MapError`] with the reason:
//! the server is listed with it and never installed half-right.

use std::collections::BTreeMap;

use semver::Version;

use crate::model::validate::secrets::is_sensitive_name;
use serde_json::{Map, Value};

/// A `server.json` as a dotpack package.
#[derive(Clone, Debug, PartialEq)]
pub struct Mapped {
    /// The registry's name as its publisher spells it, `io.github.User/Weather`; the manifest's
    /// `[package] name` is dotpack's, the same in lowercase.
    pub name: String,
    pub version: String,
    pub description: String,
    /// The server's name in hosts' files: the part of `name` after `/`, lower-cased.
    pub server: String,
    /// A complete package manifest (`[package]`, `[inputs.*]`, `[servers.*]`).
    pub manifest: String,
    /// The package the server starts when that is not pinned (`NAME@latest`, an image's
    /// `:latest`, no version at all): the lock pins the document, not what it starts.
    pub floating: Option<String>,
}

/// Why a document cannot be installed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{reason}")]
pub struct MapError {
    pub reason: String,
}

fn fail<T>(reason: impl Into<String>) -> Result<T, MapError> {
    Err(MapError {
        reason: reason.into(),
    })
}

/// The semver version a publisher's `version` stands for: semver as it is, else the forms the
/// schema lets through that read as one version without guessing: a leading `v` (`v7.5.0`) and
/// missing parts (`2.1` is 2.1.0). A part with a leading zero (`2025.10.01`) is not read: it
/// could equally be another version written the same way.
pub fn semver_of(text: &str) -> Result<Version, semver::Error> {
    let strict = Version::parse(text);
    if strict.is_ok() {
        return strict;
    }
    let bare = text.strip_prefix(['v', 'V']).unwrap_or(text);
    let end = bare.find(['-', '+']).unwrap_or(bare.len());
    let (core, rest) = bare.split_at(end);
    let parts: Vec<&str> = core.split('.').collect();
    let plain = |p: &&str| {
        !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()) && (*p == "0" || !p.starts_with('0'))
    };
    if parts.len() > 3 || !parts.iter().all(plain) {
        return strict;
    }
    let mut padded = parts.clone();
    padded.resize(3, "0");
    Version::parse(&format!("{}{rest}", padded.join("."))).or(strict)
}

/// Maps one `server.json` document.
pub fn map_server(doc: &Value) -> Result<Mapped, MapError> {
    let Some(top) = doc.as_object() else {
        return fail("the document is not a JSON object");
    };
    check_dialect(top)?;
    let name = string(top, "name").ok_or_else(|| MapError {
        reason: "the document has no `name`".to_string(),
    })?;
    let Some((_, short)) = name.split_once('/') else {
        return fail(format!(
            "`{name}` is not a registry name (`namespace/name`)"
        ));
    };
    let version = string(top, "version").ok_or_else(|| MapError {
        reason: "the document has no `version`".to_string(),
    })?;
    let description = string(top, "description").unwrap_or_default();
    let server = server_name(short);
    let packages = top.get("packages").and_then(Value::as_array);
    let remotes = top.get("remotes").and_then(Value::as_array);
    let mut reasons = Vec::new();
    // The first package dotpack can run, else the first remote it can reach.
    let mapped = first_mapped(packages, Manifest::package, &mut reasons).or_else(|| {
        first_mapped(
            preferred_remotes(remotes).as_ref(),
            Manifest::remote,
            &mut reasons,
        )
    });
    let Some(m) = mapped else {
        if reasons.is_empty() {
            return fail("the document has neither `packages` nor `remotes`");
        }
        if remotes.is_none_or(|r| r.is_empty()) {
            reasons.push("it lists no `remotes` entry dotpack could reach instead".to_string());
        }
        return fail(reasons.join("; "));
    };
    // The package's version is the semver one the publisher's text stands for (`v7.5.0`: 7.5.0).
    let semver = semver_of(&version).map_or_else(|_| version.clone(), |v| v.to_string());
    Ok(Mapped {
        floating: m.floating.clone(),
        manifest: m.render(&name.to_ascii_lowercase(), &semver, &description, &server),
        name,
        version,
        description,
        server,
    })
}

/// The manifest of the first of `items` that `map` accepts; the reasons of those it refused are
/// added to `reasons`.
fn first_mapped(
    items: Option<&Vec<Value>>,
    map: fn(&mut Manifest, &Value) -> Result<(), MapError>,
    reasons: &mut Vec<String>,
) -> Option<Manifest> {
    for item in items.into_iter().flatten() {
        let mut m = Manifest::default();
        match map(&mut m, item) {
            Ok(()) => return Some(m),
            Err(e) => reasons.push(e.reason),
        }
    }
    None
}

/// `remotes` with the streamable HTTP ones first, each kind in the publisher's order: SSE is
/// the transport MCP deprecated, and Codex and goose speak only streamable HTTP, so a server
/// offering both is reached the way every host can.
fn preferred_remotes(remotes: Option<&Vec<Value>>) -> Option<Vec<Value>> {
    let mut sorted = remotes?.clone();
    sorted.sort_by_key(|r| r.get("type").and_then(Value::as_str) == Some("sse"));
    Some(sorted)
}

/// The snake_case drafts of mid-2025 named fields differently (`registry_name`,
/// `version_detail`, `is_secret`); reading them as camelCase would drop secrets silently.
fn check_dialect(top: &Map<String, Value>) -> Result<(), MapError> {
    let schema = string(top, "$schema").unwrap_or_default();
    let snake = ["version_detail", "registry_name", "package_arguments"]
        .iter()
        .any(|k| top.contains_key(*k) || contains_key_deep(top.get("packages"), k));
    if snake {
        return fail(format!(
            "the document uses the snake_case draft of server.json ({}); only the camelCase schema (2025-09-29 or later) is read: ask the publisher to republish it",
            if schema.is_empty() {
                "no `$schema`".to_string()
            } else {
                format!("`$schema` {schema}")
            }
        ));
    }
    Ok(())
}

fn contains_key_deep(value: Option<&Value>, key: &str) -> bool {
    match value {
        Some(Value::Array(items)) => items.iter().any(|i| contains_key_deep(Some(i), key)),
        Some(Value::Object(o)) => o.contains_key(key),
        _ => false,
    }
}

fn string(o: &Map<String, Value>, key: &str) -> Option<String> {
    o.get(key).and_then(Value::as_str).map(str::to_string)
}

fn bool_field(o: &Map<String, Value>, key: &str) -> bool {
    o.get(key).and_then(Value::as_bool).unwrap_or(false)
}

/// A host-file server name from the registry name's last part: lower case, `[a-z0-9_-]`.
fn server_name(short: &str) -> String {
    let mut out: String = short
        .chars()
        .map(|c| match c.to_ascii_lowercase() {
            c @ ('a'..='z' | '0'..='9' | '-' | '_') => c,
            _ => '-',
        })
        .collect();
    if out.is_empty() || !out.starts_with(|c: char| c.is_ascii_alphanumeric()) {
        out.insert(0, 's');
    }
    out
}

/// An input name from a registry name (`--port`, `API_KEY`, `Workspace Dir`): `port`, `api_key`.
fn input_name(raw: &str) -> String {
    let mut out = String::new();
    for c in raw.trim_start_matches('-').chars() {
        match c.to_ascii_lowercase() {
            c @ ('a'..='z' | '0'..='9') => out.push(c),
            _ if !out.ends_with('_') && !out.is_empty() => out.push('_'),
            _ => {}
        }
    }
    let out = out.trim_end_matches('_').to_string();
    if out.is_empty() {
        "value".to_string()
    } else {
        out
    }
}

/// Whether a header carries a credential whatever the document's `isSecret` says:
/// `Authorization` (and `Proxy-Authorization`), `*-key`, `*-token`, and any name with `api` and
/// `key` in it (`X-API-Key`, `apikey`).
fn is_credential_header(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    lower == "authorization"
        || lower.ends_with("-authorization")
        || lower.ends_with("-key")
        || lower.ends_with("-token")
        || lower.contains("api") && lower.contains("key")
}

/// An environment variable name (`Authorization` → `AUTHORIZATION`).
fn env_name(raw: &str) -> String {
    input_name(raw).to_ascii_uppercase()
}

/// The manifest being built.
#[derive(Default)]
struct Manifest {
    inputs: BTreeMap<String, Map<String, Value>>,
    command: Option<String>,
    args: Vec<String>,
    env: BTreeMap<String, String>,
    url: Option<String>,
    headers: BTreeMap<String, String>,
    sse: bool,
    /// See [`Mapped::floating`].
    floating: Option<String>,
}

impl Manifest {
    fn package(&mut self, package: &Value) -> Result<(), MapError> {
        let Some(p) = package.as_object() else {
            return fail("a package is not an object");
        };
        let kind = string(p, "registryType").unwrap_or_default();
        let identifier = string(p, "identifier").unwrap_or_default();
        let version = string(p, "version");
        if identifier.is_empty() {
            return fail(format!("a `{kind}` package has no `identifier`"));
        }
        if let Some(t) = p.get("transport").and_then(Value::as_object) {
            match string(t, "type").as_deref() {
                None | Some("stdio") => {}
                Some(other) => {
                    return fail(format!(
                        "the `{kind}` package `{identifier}` serves `{other}` from a local process, which dotpack cannot start and reach"
                    ));
                }
            }
        }
        let pinned = |sep: &str| match &version {
            Some(v) => format!("{identifier}{sep}{v}"),
            None => identifier.clone(),
        };
        let (default_command, prefix, package_arg) = match kind.as_str() {
            "npm" => ("npx", vec!["-y".to_string()], pinned("@")),
            "pypi" => ("uvx", Vec::new(), pinned("==")),
            "oci" => (
                "docker",
                vec!["run".to_string(), "-i".to_string(), "--rm".to_string()],
                match &version {
                    Some(v) if !identifier.contains(':') && !identifier.contains('@') => {
                        format!("{identifier}:{v}")
                    }
                    _ => identifier.clone(),
                },
            ),
            // .NET 10's `dnx` fetches and runs a NuGet tool, as the reference client starts it.
            "nuget" => ("dnx", Vec::new(), pinned("@")),
            other => {
                return fail(format!(
                    "`{other}` packages (`{identifier}`) cannot be run by dotpack yet"
                ));
            }
        };
        // The command follows from `registryType`, as in the reference client (VS Code), which
        // ignores `runtimeHint`: a hint such as `node` or `bun` would be handed npx's arguments.
        let command = default_command.to_string();
        // The runtime's own arguments follow the ones every package of its kind needs (`-y`,
        // `run -i --rm`); a publisher who wrote those out again does not get them twice.
        let given: &[&str] = match kind.as_str() {
            "npm" => &["-y", "--yes"],
            "oci" => &["-i", "--interactive", "--rm"],
            _ => &[],
        };
        let runtime_args: Vec<&Value> = p
            .get("runtimeArguments")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter(|arg| !repeats(arg, given))
            .collect();
        let mut runtime = self.arguments(&runtime_args)?;
        if kind == "oci" && runtime.first().map(String::as_str) == Some("run") {
            runtime.remove(0);
        }
        runtime.retain(|a| !given.contains(&a.as_str()));
        let mut env_flags = Vec::new();
        for var in p
            .get("environmentVariables")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let name = self.key_value(var, Target::Env)?;
            // A container sees only the variables passed to it by name (once, when the
            // publisher's runtime arguments pass it already).
            let passed = runtime.windows(2).any(|w| w[0] == "-e" && w[1] == name);
            if kind == "oci" && !passed {
                env_flags.push("-e".to_string());
                env_flags.push(name);
            }
        }
        // A publisher who wrote the package itself among the runtime arguments (`npx --yes
        // NAME@VERSION BIN`, `docker run … IMAGE`) named where it goes: it goes there, pinned
        // (an image written without its tag gets the one the document names), and not again.
        let unpinned = match kind.as_str() {
            "oci" => image_name(&identifier),
            _ => identifier.as_str(),
        };
        // Docker Hub's images go by a shorter name too (`hashicorp/x` is `docker.io/hashicorp/x`).
        let hub = |image: &str| {
            let short = image.strip_prefix("docker.io/").unwrap_or(image);
            short.strip_prefix("library/").unwrap_or(short).to_string()
        };
        let spelled = [escape(&package_arg), escape(&identifier), escape(unpinned)];
        let at = runtime.iter().position(|a| {
            spelled.contains(a) || kind == "oci" && spelled.iter().any(|s| hub(s) == hub(a))
        });
        let after = match at {
            Some(at) => runtime.split_off(at).split_off(1),
            None => Vec::new(),
        };
        let mut args = prefix;
        args.extend(runtime);
        args.extend(env_flags);
        args.push(package_arg);
        args.extend(after);
        let package_args: Vec<&Value> = p
            .get("packageArguments")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .collect();
        if kind == "nuget" {
            // `dnx` asks before it installs unless told `--yes`; a feed other than nuget.org is
            // named; the tool's own arguments follow `--`.
            args.push("--yes".to_string());
            if let Some(feed) = string(p, "registryBaseUrl").filter(|u| !is_nuget_org(u)) {
                args.push("--source".to_string());
                args.push(escape(&feed));
            }
            if !package_args.is_empty() {
                args.push("--".to_string());
            }
        }
        args.extend(self.arguments(&package_args)?);
        self.floating = floating(&kind, &identifier, version.as_deref(), &args);
        self.command = Some(command);
        self.args = args;
        Ok(())
    }

    fn remote(&mut self, remote: &Value) -> Result<(), MapError> {
        let Some(r) = remote.as_object() else {
            return fail("a remote is not an object");
        };
        let kind = string(r, "type").unwrap_or_default();
        self.sse = match kind.as_str() {
            "streamable-http" => false,
            "sse" => true,
            other => {
                return fail(format!(
                    "remote transport `{other}` is not one dotpack knows"
                ));
            }
        };
        let url = string(r, "url").ok_or_else(|| MapError {
            reason: "a remote has no `url`".to_string(),
        })?;
        let variables = r.get("variables").and_then(Value::as_object);
        self.url = Some(self.fill(&url, variables, None)?);
        for header in r
            .get("headers")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            self.key_value(header, Target::Header)?;
        }
        Ok(())
    }

    /// A list of `Argument`s as their argv words. A named flag without a value that a fixed
    /// positional value follows (`{"name": "-v"}`, `{"value": "/data:/data"}`) is one argument
    /// written as two: the flag is passed, as the value after it always is.
    fn arguments(&mut self, list: &[&Value]) -> Result<Vec<String>, MapError> {
        let mut out = Vec::new();
        for (i, arg) in list.iter().enumerate() {
            let next_is_value = list.get(i + 1).is_some_and(|next| {
                next.get("type").and_then(Value::as_str) == Some("positional")
                    && next.get("value").is_some_and(Value::is_string)
            });
            out.extend(self.argument(arg, next_is_value)?);
        }
        Ok(out)
    }

    /// One `Argument` as its argv words; `split_value`: a fixed positional value follows it.
    fn argument(&mut self, arg: &Value, split_value: bool) -> Result<Vec<String>, MapError> {
        let Some(a) = arg.as_object() else {
            return fail("an argument is not an object");
        };
        let named = match string(a, "type").as_deref() {
            Some("named") => true,
            // The schema's default.
            Some("positional") | None => false,
            Some(other) => {
                return fail(format!(
                    "an argument has `type` `{other}`, neither `named` nor `positional`"
                ));
            }
        };
        let flag = string(a, "name");
        let hint = string(a, "valueHint")
            .or_else(|| flag.clone())
            .unwrap_or_else(|| "value".to_string());
        let variables = a.get("variables").and_then(Value::as_object);
        let boolean = string(a, "format").as_deref() == Some("boolean");
        let says_value = ["valueHint", "format", "choices", "placeholder", "default"]
            .iter()
            .any(|k| a.contains_key(*k));
        let value = match string(a, "value") {
            // `{"name": "-e"}` and then `{"value": "TFE_TOKEN"}`: one argument written as two.
            None if named && split_value && !says_value => Filled::FlagOnly,
            // `{"name": "-i", "format": "boolean", "value": "true"}`: the flag is on, not `-i true`.
            Some(v) if named && boolean && v.eq_ignore_ascii_case("true") => Filled::FlagOnly,
            Some(v) if named && boolean && v.eq_ignore_ascii_case("false") => Filled::Nothing,
            Some(v) => Filled::Value(self.fill(&v, variables, None)?),
            None => {
                let input = input_name(&hint);
                let repeated = bool_field(a, "isRepeated");
                let optional =
                    !bool_field(a, "isRequired") && a.get("default").is_none() && !repeated;
                if bool_field(a, "isSecret") {
                    // An optional one is left out (the server has another way, usually an
                    // environment variable); a required one cannot be met.
                    if optional {
                        return Ok(Vec::new());
                    }
                    return fail(format!(
                        "argument `{hint}` is secret: a secret cannot be passed on a command line safely"
                    ));
                }
                // A named argument that says nothing of a value and nothing of itself
                // (`{"name": "--stdio"}`) is part of the command: passed as it is. One that
                // describes an option may be a switch (`--headless`) or take a value
                // (`--account xy12345`): nothing is passed until it is set, then the flag alone
                // for `true`, else the flag and the value.
                let described = string(a, "description").is_some_and(|d| !d.trim().is_empty());
                match (optional, named && !says_value, described) {
                    (true, true, false) => Filled::FlagOnly,
                    (true, true, true) => {
                        self.input(&input, a, repeated);
                        Filled::Switch(input)
                    }
                    (true, false, _) => {
                        self.input(&input, a, repeated);
                        Filled::WhenSet(input)
                    }
                    (false, _, _) => {
                        self.input(&input, a, repeated);
                        Filled::Value(format!("{{{{props.{input}}}}}"))
                    }
                }
            }
        };
        let when_set = |input: &str, text: &str| format!("@if(props.{input}){text}@endif");
        Ok(match (named, flag.map(|f| escape(&f)), value) {
            (true, None, _) => return fail("a named argument has no `name`"),
            (true, Some(flag), Filled::Value(v)) => vec![flag, v],
            (true, Some(flag), Filled::FlagOnly) => vec![flag],
            (true, Some(_), Filled::Nothing) => Vec::new(),
            (true, Some(flag), Filled::Switch(input)) => vec![
                when_set(&input, &flag),
                when_set(
                    &input,
                    &format!("@if(props.{input} != 'true'){{{{props.{input}}}}}@endif"),
                ),
            ],
            // An optional value is passed, with its flag, only when it is set.
            (true, Some(flag), Filled::WhenSet(input)) => vec![
                when_set(&input, &flag),
                when_set(&input, &format!("{{{{props.{input}}}}}")),
            ],
            (false, _, Filled::Value(v)) => vec![v],
            (false, _, Filled::WhenSet(input)) => {
                vec![when_set(&input, &format!("{{{{props.{input}}}}}"))]
            }
            (false, _, Filled::Nothing | Filled::FlagOnly) => Vec::new(),
            (false, _, Filled::Switch(input)) => {
                vec![when_set(&input, &format!("{{{{props.{input}}}}}"))]
            }
        })
    }

    /// An environment variable or header; returns its name.
    fn key_value(&mut self, kv: &Value, target: Target) -> Result<String, MapError> {
        let Some(o) = kv.as_object() else {
            return fail("an environment variable or header is not an object");
        };
        let Some(name) = string(o, "name") else {
            return fail("an environment variable or header has no `name`");
        };
        let variables = o.get("variables").and_then(Value::as_object);
        // Many remotes declare `Authorization: Bearer {token}` without `isSecret`: a value set
        // with `--set` would land in committed host files and dotpack.toml.
        // The same holds for an environment variable named like a credential that the
        // publisher gives no value (`PAGERDUTY_USER_API_KEY`): it comes from the environment.
        let credential = match target {
            Target::Header => is_credential_header(&name),
            Target::Env => {
                o.get("value").is_none()
                    && o.get("default").is_none_or(Value::is_null)
                    && is_sensitive_name(&name)
            }
        };
        let secret = bool_field(o, "isSecret") || credential;
        let optional = !bool_field(o, "isRequired");
        let value = string(o, "value");
        // `"value": "{choices}"` with `choices` optional and no default says no more than a
        // missing value: the variable stands for the whole field.
        let sole = value
            .as_deref()
            .filter(|_| !secret && optional)
            .and_then(|v| sole_optional_variable(v, variables));
        let value = match (&value, sole) {
            (Some(_), Some((var, spec))) => self.input_when_set(&input_name(var), spec),
            (Some(v), None) => self.fill(v, variables, secret.then_some(name.as_str()))?,
            // An optional secret is empty when unset, never the reference's own text.
            (None, _) if secret && !optional => format!("{{{{env.{}}}}}", env_name(&name)),
            (None, _) if secret => format!("{{{{env.{}|''}}}}", env_name(&name)),
            (None, _) if optional && o.get("default").is_none_or(Value::is_null) => {
                self.input_when_set(&input_name(&name), o)
            }
            (None, _) => {
                let input = input_name(&name);
                self.input(&input, o, false);
                format!("{{{{props.{input}}}}}")
            }
        };
        match target {
            Target::Env => self.env.insert(name.clone(), value),
            Target::Header => self.headers.insert(name.clone(), value),
        };
        Ok(name)
    }

    /// Input `input` declared from `spec`, as a value written only once it is set: a host gets
    /// no variable or header that nothing gave a value.
    fn input_when_set(&mut self, input: &str, spec: &Map<String, Value>) -> String {
        self.input(input, spec, false);
        format!("@if(props.{input}){{{{props.{input}}}}}@endif")
    }

    /// `value` with its `{curly}` variables as template expressions: a secret variable (or any
    /// variable of a secret value) as an environment reference, the others as inputs.
    fn fill(
        &mut self,
        value: &str,
        variables: Option<&Map<String, Value>>,
        secret_of: Option<&str>,
    ) -> Result<String, MapError> {
        let mut out = String::new();
        let mut rest = value;
        while let Some(start) = rest.find('{') {
            let Some(len) = rest[start..].find('}') else {
                break;
            };
            let var = &rest[start + 1..start + len];
            out.push_str(&escape(&rest[..start]));
            let spec = variables
                .and_then(|v| v.get(var))
                .and_then(Value::as_object);
            // A variable named like a credential (`{client-secret}`) is one whatever its spec
            // says: a value set with `--set` would land in committed files.
            let secret = secret_of.is_some()
                || spec.is_some_and(|s| bool_field(s, "isSecret"))
                || is_sensitive_name(var);
            if secret {
                out.push_str(&format!("{{{{env.{}}}}}", env_name(var)));
            } else {
                let input = input_name(var);
                // A variable the document does not declare has no default, and the value always
                // holds it: it must be given.
                let undeclared = Map::from_iter([("isRequired".to_string(), Value::Bool(true))]);
                self.input(&input, spec.unwrap_or(&undeclared), false);
                out.push_str(&format!("{{{{props.{input}}}}}"));
            }
            rest = &rest[start + len + 1..];
        }
        out.push_str(&escape(rest));
        Ok(out)
    }

    /// Declares input `name` from an `Input`'s `description`, `isRequired`, `default`, `choices`
    /// and `format`. The schema gives `default` and `choices` as strings (`"false"`, `"60"`)
    /// whatever the `format`: they become values of the input's type, and an input whose texts
    /// do not read as that type stays a text input, so the value reaches the server as written.
    fn input(&mut self, name: &str, spec: &Map<String, Value>, repeated: bool) {
        let mut input = Map::new();
        if let Some(d) = spec.get("description").and_then(Value::as_str) {
            input.insert("description".to_string(), Value::from(d));
        }
        if bool_field(spec, "isRequired") {
            input.insert("required".to_string(), Value::Bool(true));
        }
        let format = match spec.get("format").and_then(Value::as_str) {
            Some("number") => Format::Number,
            Some("boolean") => Format::Bool,
            _ => Format::Text,
        };
        let default = spec.get("default").filter(|d| !d.is_null());
        let choices = spec.get("choices").and_then(Value::as_array);
        let typed = |format: Format| -> Option<(Option<Value>, Option<Vec<Value>>)> {
            let d = match default {
                Some(d) => Some(format.value(d)?),
                None => None,
            };
            let c = match choices {
                Some(c) => Some(
                    c.iter()
                        .map(|v| format.value(v))
                        .collect::<Option<Vec<_>>>()?,
                ),
                None => None,
            };
            Some((d, c))
        };
        let (format, (default, choices)) = match typed(format) {
            Some(values) => (format, values),
            None => (Format::Text, typed(Format::Text).unwrap_or_default()),
        };
        let kind = match (repeated, format) {
            (true, _) => Some("array"),
            (false, Format::Number) => Some("number"),
            (false, Format::Bool) => Some("bool"),
            (false, Format::Text) => None,
        };
        if let Some(kind) = kind {
            input.insert("type".to_string(), Value::from(kind));
        }
        if let Some(d) = default {
            let d = if repeated { Value::Array(vec![d]) } else { d };
            input.insert("default".to_string(), d);
        }
        if let Some(mut choices) = choices.filter(|c| !c.is_empty() && !repeated) {
            // The publisher's default is a value the server takes, even where the choices leave
            // it out (`"default": "all"` beside the toolsets it stands for).
            if let Some(d) = input.get("default").filter(|d| !choices.contains(d)) {
                choices.push(d.clone());
            }
            input.insert("enum".to_string(), Value::Array(choices));
        }
        self.inputs.entry(name.to_string()).or_insert(input);
    }

    fn render(&self, name: &str, version: &str, description: &str, server: &str) -> String {
        let mut doc = toml_edit::DocumentMut::new();
        let mut package = toml_edit::Table::new();
        package.insert("name", toml_edit::value(name));
        package.insert("version", toml_edit::value(version));
        if !description.is_empty() {
            package.insert("description", toml_edit::value(description));
        }
        doc.insert("package", toml_edit::Item::Table(package));
        if !self.inputs.is_empty() {
            let mut inputs = toml_edit::Table::new();
            inputs.set_implicit(true);
            for (input, spec) in &self.inputs {
                let mut t = toml_edit::Table::new();
                for (k, v) in spec {
                    if let Some(v) = toml_value(v) {
                        t.insert(k, toml_edit::Item::Value(v));
                    }
                }
                inputs.insert(input, toml_edit::Item::Table(t));
            }
            doc.insert("inputs", toml_edit::Item::Table(inputs));
        }
        let mut servers = toml_edit::Table::new();
        servers.set_implicit(true);
        let mut s = toml_edit::Table::new();
        if let Some(command) = &self.command {
            s.insert("command", toml_edit::value(command.as_str()));
            let mut args = toml_edit::Array::new();
            for a in &self.args {
                args.push(a.as_str());
            }
            s.insert("args", toml_edit::value(args));
        }
        if !self.env.is_empty() {
            s.insert("env", toml_edit::value(inline(&self.env)));
        }
        if let Some(url) = &self.url {
            s.insert("url", toml_edit::value(url.as_str()));
            if self.sse {
                s.insert("type", toml_edit::value("sse"));
            }
        }
        if !self.headers.is_empty() {
            s.insert("http_headers", toml_edit::value(inline(&self.headers)));
        }
        servers.insert(server, toml_edit::Item::Table(s));
        doc.insert("servers", toml_edit::Item::Table(servers));
        doc.to_string()
    }
}

/// What an `Input`'s `format` makes of its texts.
#[derive(Clone, Copy)]
enum Format {
    Text,
    Number,
    Bool,
}

impl Format {
    /// `value` (a string, as the schema says; a number or boolean from a lenient publisher) as
    /// this format's value, or `None` when it does not read as one.
    fn value(self, value: &Value) -> Option<Value> {
        match (self, value) {
            (Format::Text, Value::String(_)) => Some(value.clone()),
            (Format::Text, Value::Number(_) | Value::Bool(_)) => {
                Some(Value::from(value.to_string()))
            }
            (Format::Number, Value::Number(_)) | (Format::Bool, Value::Bool(_)) => {
                Some(value.clone())
            }
            (Format::Number, Value::String(s)) => {
                let t = s.trim();
                match (t.parse::<i64>(), t.parse::<f64>()) {
                    (Ok(i), _) => Some(Value::from(i)),
                    (_, Ok(f)) if f.is_finite() => {
                        serde_json::Number::from_f64(f).map(Value::Number)
                    }
                    _ => None,
                }
            }
            (Format::Bool, Value::String(s)) => match s.trim() {
                "true" => Some(Value::Bool(true)),
                "false" => Some(Value::Bool(false)),
                _ => None,
            },
            _ => None,
        }
    }
}

/// What an argument's value becomes.
enum Filled {
    /// A fixed value or a required input: always passed.
    Value(String),
    /// An optional input: passed only when it is set.
    WhenSet(String),
    /// An optional flag that says nothing of a value: passed alone when its input is `true`,
    /// with the input's text when that is something else, not at all when unset or false.
    Switch(String),
    /// No value at all: an optional positional argument with nothing to fill in, or a boolean
    /// flag whose fixed value is false.
    Nothing,
    /// A boolean flag whose fixed value is true: the flag alone.
    FlagOnly,
}

#[derive(Clone, Copy)]
enum Target {
    Env,
    Header,
}

/// Literal text as template text: `{{` and `@` would start an expression or a directive.
/// What a package starts that moves under a pinned document: an npm, PyPI or NuGet package
/// without a version or at `latest`, an image at `:latest` or without a tag or digest, or an
/// argument naming `…@latest` (`npx -y other@latest`).
fn floating(
    kind: &str,
    identifier: &str,
    version: Option<&str>,
    args: &[String],
) -> Option<String> {
    let latest = |v: &str| v.eq_ignore_ascii_case("latest");
    let package = match kind {
        "oci" => {
            let tagged = identifier.contains('@') || image_name(identifier) != identifier;
            let tag = identifier.rsplit_once(':').map(|(_, t)| t);
            let moves = match version {
                Some(v) => latest(v) && !tagged || tag.is_some_and(latest),
                None => !tagged || tag.is_some_and(latest),
            };
            moves.then(|| identifier.to_string())
        }
        _ => version
            .is_none_or(latest)
            .then(|| format!("{identifier}@{}", version.unwrap_or("latest"))),
    };
    package.or_else(|| {
        args.iter()
            .map(|a| a.replace("{{'@'}}", "@"))
            .find(|a| a.to_ascii_lowercase().ends_with("@latest"))
    })
}

/// An image reference without its digest or tag: `ghcr.io/acme/box` of
/// `ghcr.io/acme/box:1.0@sha256:…` (a registry's `host:port/` is not a tag).
fn image_name(reference: &str) -> &str {
    let bare = reference
        .split_once('@')
        .map_or(reference, |(image, _)| image);
    match bare.rsplit_once(':') {
        Some((image, tag)) if !tag.contains('/') => image,
        _ => bare,
    }
}

/// Whether a runtime argument repeats one of `given`, the fixed arguments of its package kind.
fn repeats(arg: &Value, given: &[&str]) -> bool {
    let text = |key: &str| arg.get(key).and_then(Value::as_str);
    let fixed = match text("type") {
        Some("named") if text("value").is_none() => text("name"),
        Some("positional") => text("value"),
        _ => None,
    };
    fixed.is_some_and(|f| given.contains(&f))
}

/// The variable and its spec when `value` is one `{variable}` and nothing else, declared
/// optional, not secret and without a default.
fn sole_optional_variable<'a>(
    value: &'a str,
    variables: Option<&'a Map<String, Value>>,
) -> Option<(&'a str, &'a Map<String, Value>)> {
    let var = value.strip_prefix('{')?.strip_suffix('}')?;
    let spec = variables?.get(var)?.as_object()?;
    let optional = !bool_field(spec, "isRequired")
        && !bool_field(spec, "isSecret")
        && spec.get("default").is_none_or(Value::is_null);
    optional.then_some((var, spec))
}

/// Whether `url` is nuget.org's feed, which `dnx` uses unless told otherwise.
fn is_nuget_org(url: &str) -> bool {
    let bare = url.trim_end_matches('/');
    [
        "https://api.nuget.org/v3/index.json",
        "https://api.nuget.org",
        "https://www.nuget.org",
        "https://nuget.org",
    ]
    .contains(&bare)
}

fn escape(text: &str) -> String {
    text.replace("{{", "{{'{{'}}").replace('@', "{{'@'}}")
}

fn inline(map: &BTreeMap<String, String>) -> toml_edit::InlineTable {
    let mut t = toml_edit::InlineTable::new();
    for (k, v) in map {
        t.insert(k, v.as_str().into());
    }
    t
}

fn toml_value(v: &Value) -> Option<toml_edit::Value> {
    Some(match v {
        Value::String(s) => s.as_str().into(),
        Value::Bool(b) => (*b).into(),
        Value::Number(n) => match n.as_i64() {
            Some(i) => i.into(),
            None => n.as_f64()?.into(),
        },
        Value::Array(items) => {
            let mut a = toml_edit::Array::new();
            for i in items {
                a.push(toml_value(i)?);
            }
            a.into()
        }
        Value::Null | Value::Object(_) => return None,
    })
}

#[cfg(test)]
mod tests;
