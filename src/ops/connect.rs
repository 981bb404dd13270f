//! From a server's name to a live MCP connection: find its definition (the project's own
//! `[servers.NAME]`, a locked package's server, or a package from the registry), render it with
//! its inputs as `install` does, resolve its `{{env.X}}` references from dotpack's environment,
//! and describe how to reach it ([`crate::mcp::Endpoint`]).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Result, bail};

use crate::mcp::{Endpoint, Timeouts};
use crate::model::manifest::{DependencySpec, Manifest, Server};
use crate::plan::desired::{LOCAL_PACKAGE, input_props};
use crate::resolve::RegistrySet;
use crate::template::{Part, Props};

/// A server definition with the input values it renders with.
#[derive(Clone, Debug)]
pub struct Located {
    pub server: String,
    /// The package declaring it ([`LOCAL_PACKAGE`] for the project's own servers).
    pub package: String,
    pub def: Server,
    pub props: Props,
}

/// Server `name` of the project: its own `[servers.NAME]`, else the locked package declaring it.
pub fn locate(
    manifest: &Manifest,
    lock: Option<&crate::model::lock::Lockfile>,
    registries: &RegistrySet,
    name: &str,
) -> Result<Located> {
    if let Some(def) = manifest.servers.get(name) {
        let props = input_props(LOCAL_PACKAGE, manifest, None).map_err(problems)?;
        return Ok(Located {
            server: name.to_string(),
            package: LOCAL_PACKAGE.to_string(),
            def: def.clone(),
            props,
        });
    }
    // `name` is the entry's name in the hosts; the package knows its server by its own.
    let found = lock.into_iter().flat_map(|l| &l.packages).find_map(|p| {
        let server = p
            .servers
            .iter()
            .find(|s| manifest.entry_name(&p.name, s) == name)?;
        Some((p, server.clone()))
    });
    let (locked, own_name) = match found {
        Some((locked, server)) => (Some(locked), server),
        None => (None, name.to_string()),
    };
    let Some(locked) = locked else {
        let known = server_names(manifest, lock);
        let hint = match crate::util::suggest::closest(name, known.iter().map(String::as_str)) {
            Some(close) => format!("did you mean `{close}`? "),
            None => String::new(),
        };
        crate::bail_help!(
            help = format!(
                "{hint}{}",
                if known.is_empty() {
                    "the project declares no servers; `dotpack probe --package NAME` probes a package from the registry".to_string()
                } else {
                    format!("its servers are: {}", known.join(", "))
                }
            ),
            "the project has no server named `{name}`"
        );
    };
    let Some(source) = registries.by_source(&locked.source) else {
        bail!(
            "dotpack.lock pins {} {} from `{}`, which is not a configured registry",
            locked.name,
            locked.version,
            locked.source
        );
    };
    let package =
        crate::registry::load_locked(source, &locked.name, &locked.version, &locked.checksum)?;
    let spec = manifest.dependencies.get(&locked.name);
    let props = input_props(&locked.name, &package, spec).map_err(problems)?;
    let Some(def) = package.servers.get(&own_name) else {
        crate::bail_help!(
            help = "run `dotpack lock`",
            "package `{}` {} does not declare server `{name}` any more",
            locked.name,
            locked.version
        );
    };
    Ok(Located {
        server: name.to_string(),
        package: locked.name.clone(),
        def: def.clone(),
        props,
    })
}

/// Every server name of the project, sorted: its own and its locked packages'.
pub fn server_names(
    manifest: &Manifest,
    lock: Option<&crate::model::lock::Lockfile>,
) -> Vec<String> {
    let mut names: Vec<String> = manifest.servers.keys().cloned().collect();
    names.extend(
        lock.into_iter()
            .flat_map(|l| &l.packages)
            .flat_map(|p| manifest.entry_names(&p.name, &p.servers)),
    );
    names.sort();
    names.dedup();
    names
}

/// Server `server` (or its only server) of `package` as `registries` serves its newest version,
/// with inputs from `set`.
pub fn from_registry(
    registries: &RegistrySet,
    package: &str,
    server: Option<&str>,
    set: BTreeMap<String, String>,
) -> Result<Located> {
    let mut found = None;
    for source in registries.all() {
        if let Some(lines) = source.versions(package)?
            && let Some(line) = super::search::newest(&lines)
        {
            found = Some((source, line.vers.clone()));
            break;
        }
    }
    let Some((source, version)) = found else {
        crate::bail_help!(
            help = "`dotpack search WORD` finds packages",
            "package `{package}` is not in the registry"
        );
    };
    let manifest = crate::registry::load_package(source, package, &version)?;
    let spec = DependencySpec::Detailed(crate::model::manifest::DetailedDependency {
        version: semver::VersionReq::STAR,
        registry: None,
        package: None,
        set: set
            .into_iter()
            .map(|(k, v)| (k, toml::Value::String(v)))
            .collect(),
        allow_lossy: Vec::new(),
        launcher: Default::default(),
        gateway: None,
        gateway_lifecycle: None,
        scope: None,
        entries: BTreeMap::new(),
    });
    let props = input_props(package, &manifest, Some(&spec)).map_err(problems)?;
    let names: Vec<&str> = manifest.servers.keys().map(String::as_str).collect();
    let name = match (server, names.as_slice()) {
        (Some(name), _) => name,
        (None, [only]) => only,
        (None, _) => crate::bail_help!(
            help = format!("name one: `dotpack probe --package {package} SERVER`"),
            "package `{package}` declares several servers: {}",
            names.join(", ")
        ),
    };
    let Some(def) = manifest.servers.get(name) else {
        crate::bail_help!(
            help = format!("its servers are: {}", names.join(", ")),
            "package `{package}` {version} has no server `{name}`"
        );
    };
    Ok(Located {
        server: name.to_string(),
        package: package.to_string(),
        def: def.clone(),
        props,
    })
}

fn problems(list: Vec<crate::util::error::Error>) -> anyhow::Error {
    crate::util::error::Error::all(list)
        .unwrap_or_default()
        .into()
}

/// How to reach `located`: templates rendered with its props, environment references resolved
/// from `lookup` (dotpack's own environment), a bridged server started as `dotpack bridge`.
///
/// Every value read from the environment is listed in the endpoint's `secrets`, so the MCP
/// client's errors show `{{env.X}}` in its place.
pub fn endpoint(located: &Located, lookup: &dyn Fn(&str) -> Option<String>) -> Result<Endpoint> {
    let secrets = std::cell::RefCell::new(crate::mcp::Secrets::default());
    let recording = |name: &str| {
        let value = lookup(name);
        if let Some(value) = &value {
            secrets
                .borrow_mut()
                .add(value, format!("{{{{env.{name}}}}}"));
        }
        value
    };
    let mut endpoint = endpoint_with(located, &recording)?;
    match &mut endpoint {
        Endpoint::Http { secrets: s, .. } | Endpoint::Stdio { secrets: s, .. } => {
            *s = secrets.into_inner();
        }
    }
    Ok(endpoint)
}

/// The environment variables [`endpoint`] needs for `located`, sorted and once each: the
/// `{{env.X}}` without a default that its definition or its inputs' values render with these
/// inputs, and the variables its `env_http_headers` and `bearer_token_env_var` name. `doctor`
/// checks a gateway server's secrets by them, since no host file names them.
pub fn env_names(located: &Located) -> Vec<String> {
    let def = &located.def;
    let mut texts = def.strings();
    texts.extend(
        located
            .props
            .values()
            .filter_map(|v| v.as_str().map(str::to_string)),
    );
    let cx = crate::template::Context::new(&located.props);
    let needed = |s: &String| match crate::template::parse_parts(s, &cx) {
        Ok(parts) => parts
            .into_iter()
            .flat_map(|part| match part {
                Part::Env {
                    names,
                    default: None,
                } => names,
                _ => Vec::new(),
            })
            .collect(),
        // What cannot be rendered here fails at start, naming it; every name it mentions.
        Err(_) => crate::template::env_refs(s),
    };
    let mut names: Vec<String> = texts.iter().flat_map(needed).collect();
    if let Some(toml::Value::Table(table)) = def.extensions.get("env_http_headers") {
        names.extend(
            table
                .values()
                .filter_map(|v| v.as_str().map(str::to_string)),
        );
    }
    if let Some(var) = def
        .extensions
        .get("bearer_token_env_var")
        .and_then(toml::Value::as_str)
    {
        names.push(var.to_string());
    }
    names.sort();
    names.dedup();
    names
}

fn endpoint_with(located: &Located, lookup: &dyn Fn(&str) -> Option<String>) -> Result<Endpoint> {
    // Started here, by this dotpack: the absolute path of the running one. A bridge serves
    // every tool here, as any other server does, so `verify` checks the tool filters' names
    // against all of them.
    let def = crate::model::bridge_server::expand_unfiltered(
        &located.def,
        crate::model::hosts::Scope::User,
    )
    .unwrap_or_else(|| located.def.clone());
    let cx = crate::template::Context::new(&located.props);
    let def = crate::plan::keys::with_rendered_keys(&def, &cx)
        .map_err(|e| anyhow::anyhow!("server `{}`: `{}`: {}", located.server, e.field, e.reason))?
        .into_owned();
    let render = |s: &str| render(s, &located.props, lookup, &located.server);
    if let Some(url) = &def.url {
        let mut headers = BTreeMap::new();
        if let Some(toml::Value::Table(table)) = def.extensions.get("http_headers") {
            for (name, value) in table {
                if let Some(value) = value.as_str() {
                    headers.insert(name.clone(), render(value)?);
                }
            }
        }
        if let Some(toml::Value::Table(table)) = def.extensions.get("env_http_headers") {
            for (name, var) in table {
                if let Some(value) = var.as_str().and_then(lookup) {
                    headers.insert(name.clone(), value);
                }
            }
        }
        if let Some(var) = def
            .extensions
            .get("bearer_token_env_var")
            .and_then(toml::Value::as_str)
            && let Some(token) = lookup(var)
        {
            headers.insert("Authorization".to_string(), format!("Bearer {token}"));
        }
        return Ok(Endpoint::Http {
            url: render(url)?,
            headers,
            secrets: crate::mcp::Secrets::default(),
        });
    }
    let Some(command) = &def.command else {
        bail!(
            "server `{}` has neither `command` nor `url`",
            located.server
        );
    };
    let args = start_args(def.args.as_deref().unwrap_or_default(), &cx, &render)?;
    let mut env = BTreeMap::new();
    for (name, value) in &def.env {
        // A variable passed through by reference (`X = "{{env.X}}"`) that is not set here stays
        // unset for the server, as under a host.
        if let Some(var) =
            crate::template::sole_env_ref(value, &crate::template::Context::new(&located.props))
            && lookup(&var).is_none()
        {
            continue;
        }
        env.insert(name.clone(), render(value)?);
    }
    let cwd = match def.extensions.get("cwd").and_then(toml::Value::as_str) {
        Some(dir) => Some(PathBuf::from(render(dir)?)),
        None => None,
    };
    Ok(Endpoint::Stdio {
        command: render(command)?,
        args,
        env,
        cwd,
        secrets: crate::mcp::Secrets::default(),
    })
}

/// The arguments a server starts with: each rendered, and one that is exactly a list input
/// (`{{props.allowed_dirs}}`) spread into one argument per item, as the hosts' entries have it.
fn start_args(
    args: &[String],
    cx: &crate::template::Context<'_>,
    render: &dyn Fn(&str) -> Result<String>,
) -> Result<Vec<String>> {
    let mut out = Vec::with_capacity(args.len());
    for arg in args {
        if arg.contains("{{")
            && let Ok(Some(serde_json::Value::Array(items))) = crate::template::value_of(arg, cx)
        {
            out.extend(items.iter().map(crate::template::value_text));
            continue;
        }
        out.push(render(arg)?);
    }
    Ok(out)
}

/// `s` with props substituted and every `{{env.X}}` replaced by the variable's value (the first
/// set one of `env.A|env.B`, else the default); a reference to nothing set is an error.
fn render(
    s: &str,
    props: &Props,
    lookup: &dyn Fn(&str) -> Option<String>,
    server: &str,
) -> Result<String> {
    let parts = crate::template::parse_parts(s, &crate::template::Context::new(props))
        .map_err(|e| anyhow::anyhow!("server `{server}`: {e}"))?;
    let mut out = String::new();
    for part in parts {
        match part {
            Part::Text(text) => out.push_str(&text),
            Part::Env { names, default } => {
                match names.iter().find_map(|n| lookup(n)).or(default) {
                    Some(value) => out.push_str(&value),
                    None => crate::bail_help!(
                        help = format!(
                            "export {}=… and run the command again",
                            names.first().map(String::as_str).unwrap_or("VAR")
                        ),
                        "server `{server}` reads the environment variable {}, which is not set",
                        names.join(" or ")
                    ),
                }
            }
        }
    }
    Ok(out)
}

/// The process environment, for [`endpoint`].
pub fn process_env(name: &str) -> Option<String> {
    std::env::var(name).ok()
}

/// The timeouts for `def`: `startup_timeout_sec` (or `_ms`) bounds `initialize` when set;
/// `initialize` (from the command line) overrides it; `timeout` bounds every later request.
pub fn timeouts(def: &Server, initialize: Option<Duration>) -> Timeouts {
    let mut t = Timeouts::default();
    let number = |key: &str| {
        def.extensions.get(key).and_then(|v| match v {
            toml::Value::Integer(i) => u64::try_from(*i).ok().map(|i| i as f64),
            toml::Value::Float(f) if *f >= 0.0 => Some(*f),
            _ => None,
        })
    };
    if let Some(secs) = number("startup_timeout_sec") {
        t.initialize = Duration::from_secs_f64(secs.min(3600.0));
    } else if let Some(ms) = number("startup_timeout_ms") {
        t.initialize = Duration::from_secs_f64((ms / 1000.0).min(3600.0));
    }
    if let Some(d) = initialize {
        t.initialize = d;
    }
    // `timeout` (milliseconds): the server's budget for one request, a tool call included.
    if let Some(ms) = number("timeout").filter(|ms| *ms > 0.0) {
        t.request = Duration::from_secs_f64((ms / 1000.0).min(3600.0));
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_servers_needed_variables_leave_out_defaults_and_branches_its_inputs_turn_off() {
        let def: Server = toml::from_str(
            r#"
command = "srv"
args = ["--host={{env.HOST|'example.com'}}", "@if(props.debug){{env.DEBUG_KEY}}@endif"]
env = { TOKEN = "{{env.TOKEN}}" }
env_http_headers = { "X-Key" = "API_KEY" }
"#,
        )
        .unwrap();
        let mut props = Props::new();
        props.insert("debug".into(), serde_json::json!(false));
        let located = Located {
            server: "s".into(),
            package: LOCAL_PACKAGE.into(),
            def,
            props,
        };
        assert_eq!(env_names(&located), ["API_KEY", "TOKEN"]);
    }

    #[test]
    fn a_list_input_argument_starts_as_one_argument_per_item() {
        let mut props = Props::new();
        props.insert("dirs".into(), serde_json::json!([".", "/data"]));
        props.insert("port".into(), serde_json::json!(8080));
        let cx = crate::template::Context::new(&props);
        let render = |s: &str| render(s, &props, &|_| None, "fs");
        let args: Vec<String> = [
            "-y",
            "server-filesystem",
            "{{props.dirs}}",
            "--port={{props.port}}",
        ]
        .map(String::from)
        .to_vec();
        assert_eq!(
            start_args(&args, &cx, &render).unwrap(),
            ["-y", "server-filesystem", ".", "/data", "--port=8080"]
        );
    }
}
