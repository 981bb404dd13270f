//! A package manifest as a `server.json` for the official MCP Registry: the reverse of
//! [`super::mcp_map`], for `dotpack publish --server-json`.
//!
//! The document follows the camelCase schema of 2025-12-11 ([`SCHEMA_URL`]). The mapping, in
//! order:
//! - `name` is `NAMESPACE/NAME`: given with `--name`, else `io.github.OWNER/NAME` when
//!   `[package] repository` is a GitHub URL. `description` (1 to 100 characters) and `version`
//!   come from `[package]`, `websiteUrl` from `homepage`, `repository` from `repository`.
//! - The package has exactly one server and no dependencies (a `server.json` describes one
//!   server that stands alone).
//! - A stdio server must run a package the registry can describe: `npx [-y] NAME@VERSION` (npm),
//!   `uvx NAME==VERSION` (PyPI) or `docker run ... IMAGE:TAG` (OCI; flags other than `-i`,
//!   `--rm` and `-e VAR` become `runtimeArguments`). The arguments after the package become
//!   `packageArguments`: `--flag {{props.x}}` a named argument, anything else a positional one.
//!   `env` becomes `environmentVariables`.
//! - A server with a `url` becomes a `remotes` entry (`streamable-http`, or `sse` with
//!   `type = "sse"`); `http_headers`, `env_http_headers` and `bearer_token_env_var` become its
//!   `headers`.
//! - In every value, `{{props.x}}` becomes `{x}` described by the input `x` (`description`,
//!   `default`, `required` → `isRequired`, `secret` → `isSecret`, `enum` → `choices`, `type` →
//!   `format`), and `{{env.X}}` becomes `{X}`, a required secret. A value that is exactly one
//!   of them is described by that input directly.
//!
//! Anything else (another command, a field the schema has no place for, a template with a
//! default or a condition) is a [`ServerJsonError`] naming the field: nothing is written half
//! right.

use std::collections::BTreeMap;
use std::sync::LazyLock;

use regex::Regex;
use serde_json::{Map, Value, json};

use crate::model::manifest::{Input, Manifest, Server};

/// The schema the documents follow.
pub const SCHEMA_URL: &str =
    "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json";

/// A manifest field `server.json` cannot express.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("`{field}`: {reason}")]
pub struct ServerJsonError {
    /// The manifest field, as a key path: `package.description`, `servers.x.cwd`.
    pub field: String,
    /// Why, and what to do.
    pub reason: String,
}

fn fail<T>(field: impl Into<String>, reason: impl Into<String>) -> Result<T, ServerJsonError> {
    Err(ServerJsonError {
        field: field.into(),
        reason: reason.into(),
    })
}

/// `{{props.x}}` and `{{env.X}}`, the only template expressions a `server.json` can carry.
static REFERENCE: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"\{\{\s*(props|env)\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}").ok());

/// The `server.json` of `manifest`. `name` overrides the registry name (`NAMESPACE/NAME`).
pub fn to_server_json(manifest: &Manifest, name: Option<&str>) -> Result<Value, ServerJsonError> {
    let Some(package) = &manifest.package else {
        return fail(
            "package",
            "not a package: add [package] with name, version and description",
        );
    };
    let registry_name = match name {
        Some(name) => name.to_string(),
        None => match package.repository.as_deref().and_then(github_owner) {
            Some(owner) => format!("io.github.{owner}/{}", package.name),
            None => {
                return fail(
                    "package.repository",
                    "server.json needs a `NAMESPACE/NAME`: set `repository = \"https://github.com/OWNER/REPO\"` (the name becomes io.github.OWNER/NAME) or pass --name NAMESPACE/NAME",
                );
            }
        },
    };
    let valid_name = registry_name.split_once('/').is_some_and(|(ns, n)| {
        !ns.is_empty()
            && !n.is_empty()
            && ns
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'-')
            && n.bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
    });
    if !valid_name || registry_name.len() > 200 {
        return fail(
            "--name",
            format!(
                "`{registry_name}` is not a registry name: it must be NAMESPACE/NAME, like io.github.you/weather"
            ),
        );
    }
    let description = package.description.as_deref().unwrap_or_default();
    if description.is_empty() || description.chars().count() > 100 {
        return fail(
            "package.description",
            "server.json needs a description of 1 to 100 characters",
        );
    }
    if let Some((dep, _)) = manifest.dependencies.iter().next() {
        return fail(
            format!("dependencies.{dep}"),
            "a server.json describes one server that stands alone; it has no dependencies",
        );
    }
    let mut servers = manifest.servers.iter();
    let (server_name, server) = match (servers.next(), servers.next()) {
        (Some(one), None) => one,
        (None, _) => return fail("servers", "the package declares no server"),
        (Some(_), Some((second, _))) => {
            return fail(
                format!("servers.{second}"),
                "a server.json describes one server; publish each server as its own package",
            );
        }
    };
    let mut doc = Map::new();
    doc.insert("$schema".into(), json!(SCHEMA_URL));
    doc.insert("name".into(), json!(registry_name));
    doc.insert("description".into(), json!(description));
    doc.insert("version".into(), json!(package.version.to_string()));
    if let Some(url) = &package.homepage {
        doc.insert("websiteUrl".into(), json!(url));
    }
    if let Some(url) = &package.repository {
        let source = if github_owner(url).is_some() {
            "github".to_string()
        } else {
            crate::urls::host(url).unwrap_or_else(|| "git".to_string())
        };
        doc.insert("repository".into(), json!({ "url": url, "source": source }));
    }
    let mut mapper = Mapper {
        inputs: &manifest.inputs,
        at: format!("servers.{server_name}"),
    };
    if server.url.is_some() {
        doc.insert("remotes".into(), json!([mapper.remote(server)?]));
    } else {
        doc.insert("packages".into(), json!([mapper.package(server)?]));
    }
    Ok(Value::Object(doc))
}

/// `OWNER` of `https://github.com/OWNER/...`.
fn github_owner(url: &str) -> Option<String> {
    let url = crate::urls::parse_http(url)?;
    if url.host_str() != Some("github.com") {
        return None;
    }
    let owner = url.path_segments()?.next()?;
    (!owner.is_empty()
        && owner
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-'))
    .then(|| owner.to_string())
}

struct Mapper<'a> {
    inputs: &'a BTreeMap<String, Input>,
    /// `servers.NAME`, the prefix of every field named in errors.
    at: String,
}

impl Mapper<'_> {
    fn field(&self, rest: &str) -> String {
        format!("{}.{rest}", self.at)
    }

    /// Every field other than the transport core must be one this mapping knows.
    fn check_extensions(&self, server: &Server, allowed: &[&str]) -> Result<(), ServerJsonError> {
        for key in server.extensions.keys() {
            if !allowed.contains(&key.as_str()) {
                return fail(
                    self.field(key),
                    format!(
                        "server.json has no place for `{key}`; remove it from the published package (a user can still set it in their own dotpack.toml)"
                    ),
                );
            }
        }
        Ok(())
    }

    fn package(&mut self, server: &Server) -> Result<Value, ServerJsonError> {
        self.check_extensions(server, &[])?;
        let command = server.command.as_deref().unwrap_or_default();
        let args = server.args.clone().unwrap_or_default();
        let mut package = Map::new();
        let (rest, runtime) = match command {
            "npx" => {
                let skip = args
                    .iter()
                    .take_while(|a| matches!(a.as_str(), "-y" | "--yes"))
                    .count();
                let Some(spec) = args.get(skip) else {
                    return fail(self.field("args"), "`npx` needs the npm package to run");
                };
                // `@scope/name@1.0`: the version follows the last `@` that is not the first
                // character (a scope's).
                let first = spec.chars().next().map_or(0, char::len_utf8);
                let (identifier, version) = match spec[first..].rfind('@') {
                    Some(at) => (&spec[..first + at], Some(&spec[first + at + 1..])),
                    None => (spec.as_str(), None),
                };
                if identifier.is_empty() || identifier.starts_with('-') {
                    return fail(self.field("args"), "`npx` needs the npm package to run");
                }
                package.insert("registryType".into(), json!("npm"));
                package.insert("identifier".into(), json!(identifier));
                if let Some(v) = version {
                    package.insert("version".into(), json!(v));
                }
                (args[skip + 1..].to_vec(), Vec::new())
            }
            "uvx" => {
                let Some(spec) = args.first() else {
                    return fail(self.field("args"), "`uvx` needs the PyPI package to run");
                };
                if spec.starts_with('-') {
                    return fail(
                        self.field("args"),
                        "write the PyPI package first: `uvx NAME==VERSION ...`",
                    );
                }
                let (identifier, version) = match spec.split_once("==") {
                    Some((id, v)) => (id, Some(v)),
                    None => (spec.as_str(), None),
                };
                package.insert("registryType".into(), json!("pypi"));
                package.insert("identifier".into(), json!(identifier));
                if let Some(v) = version {
                    package.insert("version".into(), json!(v));
                }
                (args[1..].to_vec(), Vec::new())
            }
            "docker" => self.docker(&args, server, &mut package)?,
            other => {
                return fail(
                    self.field("command"),
                    format!(
                        "server.json describes packages run from npm (`npx`), PyPI (`uvx`) or an OCI image (`docker run`); `{other}` is none of them"
                    ),
                );
            }
        };
        if !runtime.is_empty() {
            package.insert("runtimeHint".into(), json!(command));
            package.insert("runtimeArguments".into(), json!(runtime));
        }
        package.insert("transport".into(), json!({ "type": "stdio" }));
        let arguments = self.arguments(&rest)?;
        if !arguments.is_empty() {
            package.insert("packageArguments".into(), json!(arguments));
        }
        let mut env = Vec::new();
        for (name, value) in &server.env {
            env.push(self.key_value(name, value, &format!("env.{name}"))?);
        }
        if !env.is_empty() {
            package.insert("environmentVariables".into(), json!(env));
        }
        Ok(Value::Object(package))
    }

    /// `docker run [flags] IMAGE[:TAG] [args]`: returns the arguments after the image and the
    /// runtime arguments beyond the ones every OCI package gets (`-i`, `--rm`, `-e VAR`).
    fn docker(
        &mut self,
        args: &[String],
        server: &Server,
        package: &mut Map<String, Value>,
    ) -> Result<(Vec<String>, Vec<Value>), ServerJsonError> {
        if args.first().map(String::as_str) != Some("run") {
            return fail(
                self.field("args"),
                "an OCI package runs as `docker run ... IMAGE:TAG`",
            );
        }
        let mut runtime = Vec::new();
        let mut i = 1;
        while let Some(arg) = args.get(i) {
            if !arg.starts_with('-') {
                break;
            }
            let value = args.get(i + 1);
            match arg.as_str() {
                "-i" | "--interactive" | "--rm" => {}
                "-e" | "--env" if value.is_some_and(|v| server.env.contains_key(v)) => i += 1,
                flag if takes_value(flag) => {
                    let Some(value) = value else {
                        return fail(self.field("args"), format!("`{flag}` needs a value"));
                    };
                    let mut named = Map::new();
                    named.insert("type".into(), json!("named"));
                    named.insert("name".into(), json!(flag));
                    let field = self.field("args");
                    if whole_reference(value).is_some() {
                        self.describe(value, &field, &mut named)?;
                    } else {
                        let (value, variables) = self.template(value, &field)?;
                        named.insert("value".into(), json!(value));
                        if !variables.is_empty() {
                            named.insert("variables".into(), Value::Object(variables));
                        }
                    }
                    runtime.push(Value::Object(named));
                    i += 1;
                }
                _ => runtime.extend(self.arguments(std::slice::from_ref(arg))?),
            }
            i += 1;
        }
        let Some(image) = args.get(i) else {
            return fail(self.field("args"), "`docker run` needs the image to run");
        };
        if image.contains("{{") {
            return fail(
                self.field("args"),
                "the image must be fixed; server.json cannot fill it from an input",
            );
        }
        package.insert("registryType".into(), json!("oci"));
        package.insert("identifier".into(), json!(image));
        Ok((args[i + 1..].to_vec(), runtime))
    }

    /// Arguments as `Argument` objects: `--flag VALUE` with a value from one input is named,
    /// everything else positional.
    fn arguments(&mut self, args: &[String]) -> Result<Vec<Value>, ServerJsonError> {
        let mut out = Vec::new();
        let mut i = 0;
        while let Some(arg) = args.get(i) {
            let field = self.field("args");
            let next_is_input = args.get(i + 1).and_then(|v| whole_reference(v)).is_some();
            if arg.starts_with('-') && !arg.contains("{{") && next_is_input {
                let value = &args[i + 1];
                let mut named = Map::new();
                named.insert("type".into(), json!("named"));
                named.insert("name".into(), json!(arg));
                self.describe(value, &field, &mut named)?;
                out.push(Value::Object(named));
                i += 2;
                continue;
            }
            let mut positional = Map::new();
            positional.insert("type".into(), json!("positional"));
            match whole_reference(arg) {
                Some((_, name)) => {
                    positional.insert("valueHint".into(), json!(name));
                    self.describe(arg, &field, &mut positional)?;
                }
                None => {
                    let (value, variables) = self.template(arg, &field)?;
                    positional.insert("value".into(), json!(value));
                    if !variables.is_empty() {
                        positional.insert("variables".into(), Value::Object(variables));
                    }
                }
            }
            out.push(Value::Object(positional));
            i += 1;
        }
        Ok(out)
    }

    fn remote(&mut self, server: &Server) -> Result<Value, ServerJsonError> {
        self.check_extensions(
            server,
            &[
                "type",
                "http_headers",
                "env_http_headers",
                "bearer_token_env_var",
            ],
        )?;
        let kind = match server.extensions.get("type").and_then(|v| v.as_str()) {
            None | Some("http" | "streamable-http") => "streamable-http",
            Some("sse") => "sse",
            Some(other) => {
                return fail(
                    self.field("type"),
                    format!("server.json remotes are `streamable-http` or `sse`, not `{other}`"),
                );
            }
        };
        let url = server.url.as_deref().unwrap_or_default();
        let (url, variables) = self.template(url, &self.field("url"))?;
        let mut remote = Map::new();
        remote.insert("type".into(), json!(kind));
        remote.insert("url".into(), json!(url));
        let mut headers = Vec::new();
        if let Some(table) = server
            .extensions
            .get("http_headers")
            .and_then(|v| v.as_table())
        {
            for (name, value) in table {
                let field = format!("http_headers.{name}");
                let Some(value) = value.as_str() else {
                    return fail(self.field(&field), "a header value must be a string");
                };
                headers.push(self.key_value(name, value, &field)?);
            }
        }
        if let Some(table) = server
            .extensions
            .get("env_http_headers")
            .and_then(|v| v.as_table())
        {
            for (name, var) in table {
                let Some(var) = var.as_str() else {
                    return fail(
                        self.field(&format!("env_http_headers.{name}")),
                        "the value must name an environment variable",
                    );
                };
                headers.push(secret_header(name, "", var));
            }
        }
        if let Some(var) = server
            .extensions
            .get("bearer_token_env_var")
            .and_then(|v| v.as_str())
        {
            headers.push(secret_header("Authorization", "Bearer ", var));
        }
        if !headers.is_empty() {
            remote.insert("headers".into(), json!(headers));
        }
        if !variables.is_empty() {
            remote.insert("variables".into(), Value::Object(variables));
        }
        Ok(Value::Object(remote))
    }

    /// A `KeyValueInput` (an environment variable or a header) named `name` with `value`.
    fn key_value(
        &mut self,
        name: &str,
        value: &str,
        field: &str,
    ) -> Result<Value, ServerJsonError> {
        let field = self.field(field);
        let mut out = Map::new();
        out.insert("name".into(), json!(name));
        if whole_reference(value).is_some() {
            self.describe(value, &field, &mut out)?;
        } else {
            let (value, variables) = self.template(value, &field)?;
            out.insert("value".into(), json!(value));
            if !variables.is_empty() {
                out.insert("variables".into(), Value::Object(variables));
            }
        }
        Ok(Value::Object(out))
    }

    /// Adds to `out` the `Input` fields describing `reference`, a value that is exactly
    /// `{{props.x}}` or `{{env.X}}`.
    fn describe(
        &self,
        reference: &str,
        field: &str,
        out: &mut Map<String, Value>,
    ) -> Result<(), ServerJsonError> {
        let Some((kind, name)) = whole_reference(reference) else {
            return fail(field, "expected one `{{props.x}}` or `{{env.X}}`");
        };
        let Value::Object(described) = self.input(kind, &name, field)? else {
            return Ok(());
        };
        out.extend(described);
        Ok(())
    }

    /// `text` with each reference turned into `{name}`, and the `variables` describing them.
    fn template(
        &self,
        text: &str,
        field: &str,
    ) -> Result<(String, Map<String, Value>), ServerJsonError> {
        let Some(re) = REFERENCE.as_ref() else {
            return fail(
                field,
                "internal error: the reference pattern does not compile",
            );
        };
        let mut variables = Map::new();
        let mut out = String::new();
        let mut last = 0;
        for caps in re.captures_iter(text) {
            let (Some(whole), Some(kind), Some(name)) = (caps.get(0), caps.get(1), caps.get(2))
            else {
                continue;
            };
            out.push_str(&text[last..whole.start()]);
            out.push_str(&format!("{{{}}}", name.as_str()));
            last = whole.end();
            variables.insert(
                name.as_str().to_string(),
                self.input(kind.as_str(), name.as_str(), field)?,
            );
        }
        out.push_str(&text[last..]);
        if out.contains("{{") || text.contains("@if") || text.contains("@for") {
            return fail(
                field,
                "only `{{props.x}}` and `{{env.X}}` can be expressed in server.json; defaults (`|`), `@if` and `@for` cannot",
            );
        }
        Ok((out, variables))
    }

    /// The `Input` describing `props.NAME` or `env.NAME`.
    fn input(&self, kind: &str, name: &str, field: &str) -> Result<Value, ServerJsonError> {
        if kind == "env" {
            return Ok(json!({ "isRequired": true, "isSecret": true }));
        }
        let Some(input) = self.inputs.get(name) else {
            return fail(
                field,
                format!("`{{{{props.{name}}}}}` names no input; declare [inputs.{name}]"),
            );
        };
        let mut out = Map::new();
        if let Some(d) = &input.description {
            out.insert("description".into(), json!(d));
        }
        let format = match input.kind.as_deref() {
            None | Some("string") => None,
            Some("number") => Some("number"),
            Some("bool") => Some("boolean"),
            Some(other) => {
                return fail(
                    format!("inputs.{name}.type"),
                    format!("server.json inputs are text, numbers or booleans, not `{other}`"),
                );
            }
        };
        if let Some(format) = format {
            out.insert("format".into(), json!(format));
        }
        let required = input.required || (input.default.is_none() && !input.secret);
        if required {
            out.insert("isRequired".into(), json!(true));
        }
        if input.secret {
            out.insert("isSecret".into(), json!(true));
        }
        if let Some(default) = &input.default {
            out.insert("default".into(), json!(plain(default)));
        }
        if let Some(allowed) = &input.allowed {
            let choices: Vec<String> = allowed.iter().map(plain).collect();
            out.insert("choices".into(), json!(choices));
        }
        Ok(Value::Object(out))
    }
}

/// Whether the `docker run` flag `flag` (written without `=`) takes the next word as its value.
fn takes_value(flag: &str) -> bool {
    matches!(
        flag,
        "-e" | "--env"
            | "--env-file"
            | "-v"
            | "--volume"
            | "--mount"
            | "-p"
            | "--publish"
            | "--network"
            | "--name"
            | "-w"
            | "--workdir"
            | "-u"
            | "--user"
            | "--entrypoint"
            | "-l"
            | "--label"
            | "--platform"
            | "--cpus"
            | "-m"
            | "--memory"
            | "--add-host"
            | "--dns"
            | "-h"
            | "--hostname"
            | "--device"
            | "--cap-add"
            | "--cap-drop"
            | "--security-opt"
            | "--tmpfs"
            | "--ulimit"
            | "--pull"
            | "--runtime"
            | "--shm-size"
            | "--gpus"
            | "--log-driver"
            | "--log-opt"
    )
}

/// A header whose value is `prefix` and the secret environment variable `var`.
fn secret_header(name: &str, prefix: &str, var: &str) -> Value {
    json!({
        "name": name,
        "value": format!("{prefix}{{{var}}}"),
        "variables": { var: { "isRequired": true, "isSecret": true } },
    })
}

/// `("props", "x")` when `text` is exactly `{{props.x}}` (or `{{env.X}}`).
fn whole_reference(text: &str) -> Option<(&'static str, String)> {
    let re = REFERENCE.as_ref()?;
    let caps = re.captures(text)?;
    let whole = caps.get(0)?;
    if whole.start() != 0 || whole.end() != text.len() {
        return None;
    }
    let kind = if caps.get(1)?.as_str() == "env" {
        "env"
    } else {
        "props"
    };
    Some((kind, caps.get(2)?.as_str().to_string()))
}

/// A TOML value as server.json text: strings as they are, anything else as written.
fn plain(value: &toml::Value) -> String {
    match value {
        toml::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::mcp_map::map_server;

    #[test]
    fn the_github_owner_comes_from_a_parsed_url() {
        assert_eq!(
            github_owner("https://github.com/acme/x").as_deref(),
            Some("acme")
        );
        // The host in any case, as the URL standard reads it; a look-alike is another host.
        assert_eq!(
            github_owner("HTTPS://GitHub.com/acme").as_deref(),
            Some("acme")
        );
        assert_eq!(github_owner("https://github.com.evil.example/acme"), None);
        assert_eq!(
            github_owner("https://user@github.com/acme").as_deref(),
            Some("acme")
        );
        assert_eq!(github_owner("https://github.com/"), None);
        assert_eq!(github_owner("https://github.com/a_b/x"), None);
    }

    fn manifest(text: &str) -> Manifest {
        toml::from_str(text).unwrap()
    }

    const NPM: &str = r#"
[package]
name = "weather"
version = "1.2.0"
description = "Weather forecasts"
repository = "https://github.com/acme/weather"

[inputs.units]
description = "Units"
default = "metric"
enum = ["metric", "imperial"]

[servers.weather]
command = "npx"
args = ["-y", "@acme/weather-mcp@1.2.0", "--units", "{{props.units}}"]
env = { WEATHER_KEY = "{{env.WEATHER_KEY}}" }
"#;

    #[test]
    fn an_npm_server_maps_back_to_the_same_command() {
        let doc = to_server_json(&manifest(NPM), None).unwrap();
        assert_eq!(doc["name"], "io.github.acme/weather");
        assert_eq!(doc["packages"][0]["identifier"], "@acme/weather-mcp");
        assert_eq!(doc["packages"][0]["version"], "1.2.0");
        let arg = &doc["packages"][0]["packageArguments"][0];
        assert_eq!(arg["type"], "named");
        assert_eq!(arg["choices"], json!(["metric", "imperial"]));
        let env = &doc["packages"][0]["environmentVariables"][0];
        assert_eq!(env["isSecret"], true);
        // The forward mapping reads it back into the same command line.
        let mapped = map_server(&doc).unwrap();
        assert!(
            mapped.manifest.contains(
                r#"args = ["-y", "@acme/weather-mcp@1.2.0", "--units", "{{props.units}}"]"#
            ),
            "{}",
            mapped.manifest
        );
    }

    #[test]
    fn what_cannot_be_expressed_names_the_field() {
        let cases = [
            (
                NPM.replace("command = \"npx\"", "command = \"node\""),
                "servers.weather.command",
            ),
            (format!("{NPM}cwd = \"/tmp\"\n"), "servers.weather.cwd"),
            (
                NPM.replace("repository = \"https://github.com/acme/weather\"\n", ""),
                "package.repository",
            ),
            (NPM.replace("Weather forecasts", ""), "package.description"),
            (
                format!("{NPM}\n[dependencies]\ntime = \"^1\"\n"),
                "dependencies.time",
            ),
            (
                NPM.replace("{{props.units}}", "{{props.units|'metric'}}"),
                "servers.weather.args",
            ),
        ];
        for (text, field) in cases {
            let err = to_server_json(&manifest(&text), None).unwrap_err();
            assert_eq!(err.field, field, "{err}");
        }
    }

    #[test]
    fn odd_npm_specs_never_panic() {
        let empty = NPM.replace("@acme/weather-mcp@1.2.0", "");
        assert_eq!(
            to_server_json(&manifest(&empty), None).unwrap_err().field,
            "servers.weather.args"
        );
        for (spec, identifier, version) in [
            ("é@1", "é", Some("1")),
            ("@scope/x", "@scope/x", None),
            ("@scope/x@2.0.0", "@scope/x", Some("2.0.0")),
        ] {
            let text = NPM.replace("@acme/weather-mcp@1.2.0", spec);
            let doc = to_server_json(&manifest(&text), None).unwrap();
            assert_eq!(doc["packages"][0]["identifier"], identifier, "{spec}");
            assert_eq!(doc["packages"][0]["version"].as_str(), version, "{spec}");
        }
    }

    #[test]
    fn a_remote_with_a_bearer_token_is_a_secret_header() {
        let doc = to_server_json(
            &manifest(
                r#"
[package]
name = "remote"
version = "0.1.0"
description = "Remote"

[servers.remote]
url = "https://mcp.example.com/mcp"
bearer_token_env_var = "REMOTE_TOKEN"
"#,
            ),
            Some("com.example/remote"),
        )
        .unwrap();
        let remote = &doc["remotes"][0];
        assert_eq!(remote["type"], "streamable-http");
        assert_eq!(remote["headers"][0]["value"], "Bearer {REMOTE_TOKEN}");
        assert_eq!(
            remote["headers"][0]["variables"]["REMOTE_TOKEN"]["isSecret"],
            true
        );
    }
}
