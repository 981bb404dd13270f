//! What `doctor` says about secrets: for each host file and each of its servers that needs a
//! secret, how the server will receive it (the host expands a reference from its environment,
//! the launcher reads the store, the launcher falls back to the environment) and what is
//! missing. It asks the store for names only, and never reads or prints a value.

use std::cell::OnceCell;
use std::path::Path;

use serde::Serialize;
use serde_json::Value;

use crate::model::hosts::{HostAdapter, HostEnv};

/// How a server receives one secret.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Via {
    /// The entry holds a reference the host expands from its own environment.
    HostEnvironment,
    /// `dotpack run` reads it from the OS credential store.
    LauncherStore,
    /// `dotpack run` takes it from the environment the host passes.
    LauncherEnvironment,
}

/// One secret of one server in one host file.
#[derive(Clone, Debug, Serialize)]
pub struct Delivery {
    pub host: &'static str,
    pub file: String,
    pub server: String,
    pub secret: String,
    pub via: Via,
    /// Why the server will not receive it; `None` when it will.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub missing: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix: Option<String>,
}

/// Where secrets can come from on this machine, as the caller finds them.
pub struct Sources<'a> {
    /// The names the credential store holds, or why it cannot be asked; called at most once,
    /// and only when an entry starts through the launcher.
    pub store: &'a dyn Fn() -> Result<Vec<String>, String>,
    /// The pins of the launcher entries dotpack wrote here (`$DOTPACK_HOME/launcher-pins`).
    pub pins: Vec<String>,
    /// Whether this environment (the shell's, which a terminal host inherits) holds `name`.
    pub in_environment: &'a dyn Fn(&str) -> bool,
}

/// What the store answered, once asked.
pub type StoreAnswer = Result<Vec<String>, String>;

/// What `doctor` reports of secrets: each secret of each server, and the store's answer when it
/// was asked (only when an entry starts the launcher).
pub struct Report {
    pub servers: Vec<Delivery>,
    pub store: Option<StoreAnswer>,
}

/// The report for the project at `root` and the user on this machine: the store asked for the
/// names it holds, the pins recorded in `$DOTPACK_HOME`, and this process's environment standing
/// for a terminal host's.
pub fn check_here(settings: &crate::ops::Settings, root: Option<&Path>) -> Report {
    let in_environment = |name: &str| std::env::var_os(name).is_some_and(|v| !v.is_empty());
    let store = || {
        crate::ops::secrets::list().map_err(|e| {
            match e.downcast_ref::<crate::util::error::Error>() {
                Some(e) => e.message().to_string(),
                None => format!("{e:#}"),
            }
        })
    };
    let sources = Sources {
        store: &store,
        pins: crate::ops::launch::recorded_pins(&settings.dotpack_home),
        in_environment: &in_environment,
    };
    let (servers, store) = deliveries(root, &settings.host_env, &sources);
    Report { servers, store }
}

impl Report {
    /// `doctor --json`'s `secrets`: `store` (`null` when not asked) and `servers`.
    pub fn json(&self) -> Value {
        serde_json::json!({
            "store": self.store.as_ref().map(|answer| match answer {
                Ok(_) => serde_json::json!({ "reachable": true }),
                Err(e) => serde_json::json!({ "reachable": false, "error": e }),
            }),
            "servers": self.servers,
        })
    }

    /// For each server that needs a secret, how it will receive it, and what is missing;
    /// never a value.
    pub fn print(&self, printer: &crate::ui::printer::Printer) {
        match &self.store {
            Some(Ok(names)) => printer.status(
                "Ok",
                format!(
                    "credential store: reachable, {} secret{}",
                    names.len(),
                    if names.len() == 1 { "" } else { "s" }
                ),
            ),
            Some(Err(e)) => printer.warning(format!("credential store: not reachable ({e})")),
            None => {}
        }
        for d in &self.servers {
            let how = match d.via {
                Via::HostEnvironment => "a reference the host expands from its environment",
                Via::LauncherStore => "the launcher reads it from the credential store",
                Via::LauncherEnvironment => {
                    "the launcher takes it from the environment the host passes"
                }
            };
            let line = format!(
                "{} server `{}`: {} ({how}) in {}",
                d.host, d.server, d.secret, d.file
            );
            match (&d.missing, &d.fix) {
                (None, _) => printer.status("Ok", line),
                (Some(missing), fix) => printer.warning(format!(
                    "{line}: missing: {missing}{}",
                    fix.as_ref()
                        .map(|f| format!("\n  help: {f}"))
                        .unwrap_or_default()
                )),
            }
        }
    }
}

/// Every secret of every server in the host files of the project at `root` and the user, with
/// how it will be received; and the store's answer when it was asked.
pub fn deliveries(
    root: Option<&Path>,
    env: &HostEnv,
    sources: &Sources,
) -> (Vec<Delivery>, Option<StoreAnswer>) {
    let store: OnceCell<StoreAnswer> = OnceCell::new();
    let mut out = Vec::new();
    for (host, _, path, text) in crate::model::host_lint::host_files(root, env) {
        let Ok(entries) = crate::formats::list_entries(host.format, &text, host.container) else {
            continue;
        };
        let file = path.display().to_string();
        for (server, entry) in entries {
            let at =
                |secret: &str, via, (missing, fix): (Option<String>, Option<String>)| Delivery {
                    host: host.id,
                    file: file.clone(),
                    server: server.clone(),
                    secret: secret.to_string(),
                    via,
                    missing,
                    fix,
                };
            let launched = launcher_secrets(&entry);
            for name in launched.iter().flat_map(|(_, names)| names) {
                let pin = launched.as_ref().and_then(|(pin, _)| pin.as_deref());
                let recorded = pin.is_some_and(|p| sources.pins.iter().any(|r| r == p));
                let answer = store.get_or_init(|| (sources.store)());
                let (via, why) = through_launcher(host, name, recorded, answer, sources);
                out.push(at(name, via, why));
            }
            for name in references(host, &server, entry) {
                if launched
                    .as_ref()
                    .is_some_and(|(_, names)| names.contains(&name))
                {
                    continue;
                }
                out.push(at(
                    &name,
                    Via::HostEnvironment,
                    expanded(host, &name, sources),
                ));
            }
        }
    }
    (out, store.into_inner())
}

/// The pin and secrets of a launcher entry (`dotpack run --pin … --secret NAME … -- …`).
fn launcher_secrets(entry: &Value) -> Option<(Option<String>, Vec<String>)> {
    let args: Vec<String> = entry["args"]
        .as_array()?
        .iter()
        .map(|a| a.as_str().map(str::to_string))
        .collect::<Option<_>>()?;
    if !crate::model::launcher::is_entry(entry["command"].as_str(), Some(&args)) {
        return None;
    }
    crate::model::launcher::entry_secrets(&args)
}

/// The variables an entry refers to in the host's own syntax, read back as import reads them
/// (a literal value, such as one `--resolve-env` wrote, is not a reference).
fn references(host: &HostAdapter, server: &str, entry: Value) -> Vec<String> {
    use crate::plan::from_host::{import_entries, manifest_server_reading};
    let imported = import_entries(host, vec![(server.to_string(), entry)]);
    let mut names = Vec::new();
    for (name, fields) in &imported.servers {
        let read = manifest_server_reading(name, fields, &host.reference_syntaxes());
        for value in read.fields.values() {
            each_text(value, &mut |s| names.extend(crate::template::env_refs(s)));
        }
        names.retain(|n| !read.moved.iter().any(|m| m.var == *n));
    }
    names.sort();
    names.dedup();
    names
}

fn each_text(value: &Value, f: &mut dyn FnMut(&str)) {
    match value {
        Value::String(s) => f(s),
        Value::Array(items) => items.iter().for_each(|v| each_text(v, f)),
        Value::Object(map) => map.values().for_each(|v| each_text(v, f)),
        _ => {}
    }
}

type Why = (Option<String>, Option<String>);

/// How the launcher gets `name`, and what is missing when it cannot.
fn through_launcher(
    host: &HostAdapter,
    name: &str,
    recorded: bool,
    store: &StoreAnswer,
    sources: &Sources,
) -> (Via, Why) {
    if recorded
        && store
            .as_ref()
            .is_ok_and(|names| names.iter().any(|n| n == name))
    {
        return (Via::LauncherStore, (None, None));
    }
    let desktop = host.desktop_app;
    if !desktop && (sources.in_environment)(name) {
        return (Via::LauncherEnvironment, (None, None));
    }
    let environment = match desktop {
        true => format!(
            "{} is a desktop app, which does not pass the shell's environment",
            host.display_name
        ),
        false => format!("the environment has no {name}"),
    };
    let (missing, fix) = match store {
        _ if !recorded => (
            format!(
                "the entry was not written on this machine (its pin is not in \
                 $DOTPACK_HOME/launcher-pins), so the credential store does not serve it, and \
                 {environment}"
            ),
            "if you trust the project, run `dotpack install` in it to write the entry again"
                .to_string(),
        ),
        Err(_) => (
            format!("the credential store is not reachable, and {environment}"),
            "start the Secret Service (docs/secrets.md, \"No store, no fallback\")".to_string(),
        ),
        Ok(_) => (
            format!("{name} is not in the credential store, and {environment}"),
            format!("run `dotpack secret set {name}`"),
        ),
    };
    (Via::LauncherEnvironment, (Some(missing), Some(fix)))
}

/// What is missing for a reference the host expands from its own environment.
fn expanded(host: &HostAdapter, name: &str, sources: &Sources) -> Why {
    let launcher_fix = format!(
        "start it through the launcher (`{{ host = \"{}\", launcher = true }}` in [project] \
         hosts) and run `dotpack secret set {name}`",
        host.id
    );
    if host.desktop_app {
        return (
            Some(format!(
                "the entry holds only a reference to {name}, and {}, a desktop app, does not \
                 inherit the shell's environment when started from a desktop launcher",
                host.display_name
            )),
            Some(launcher_fix),
        );
    }
    match (sources.in_environment)(name) {
        true => (None, None),
        false => (
            Some(format!(
                "{name} is not in this environment, and {} expands the reference from its own",
                host.display_name
            )),
            Some(format!(
                "export {name} where you start {}, or {launcher_fix}",
                host.display_name
            )),
        ),
    }
}
