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
    /// The gateway (`dotpack serve`) takes it from the environment the host passes.
    GatewayEnvironment,
    /// The gateway reads it from the OS credential store.
    GatewayStore,
}

/// One secret of one server in one host file.
#[derive(Clone, Debug, Serialize)]
pub struct Delivery {
    pub host: &'static str,
    pub file: String,
    pub server: String,
    /// The gateway entry (`dotpack`) the server is behind, when the gateway starts it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub behind: Option<String>,
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
    /// The project's gateway: the servers behind it, when a host's entry starts it.
    pub gateway: Option<Behind>,
}

/// The servers the project's gateway serves, and the secrets each reads.
pub struct Behind {
    /// The project's `dotpack.toml`, as a user file's gateway entry names it.
    pub manifest: std::path::PathBuf,
    /// Each server's name and the environment variables it reads.
    pub servers: Vec<(String, Vec<String>)>,
}

impl Behind {
    /// The servers behind `project`'s gateway, as `dotpack serve` would start them.
    pub fn of(settings: &crate::ops::Settings, project: &crate::ops::Project) -> Behind {
        let servers = crate::ops::gateway::behind::servers(settings, project)
            .iter()
            .map(|l| (l.server.clone(), crate::ops::connect::env_names(l)))
            .collect();
        Behind {
            manifest: std::path::absolute(&project.manifest.path)
                .unwrap_or_else(|_| project.manifest.path.clone()),
            servers,
        }
    }

    /// Whether a gateway entry naming `manifest` (none in a project's file) serves this
    /// project; another project's entry in a user file is that project's to check.
    fn serves(&self, manifest: Option<&str>) -> bool {
        manifest.is_none_or(|m| Path::new(m) == self.manifest)
    }
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
pub fn check_here(
    settings: &crate::ops::Settings,
    root: Option<&Path>,
    project: Option<&crate::ops::Project>,
) -> Report {
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
        gateway: project.map(|p| Behind::of(settings, p)),
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
                Via::GatewayEnvironment => {
                    "the gateway takes it from the environment the host passes"
                }
                Via::GatewayStore => "the gateway reads it from the credential store",
            };
            let behind = d
                .behind
                .as_ref()
                .map(|entry| format!(" (behind the gateway entry `{entry}`)"))
                .unwrap_or_default();
            let line = format!(
                "{} server `{}`{behind}: {} ({how}) in {}",
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
            if let Some(behind) = gateway_of(&entry, sources) {
                let answer = || store.get_or_init(|| (sources.store)());
                out.extend(through_gateway(
                    host,
                    (&file, &server),
                    behind,
                    answer,
                    sources,
                ));
                continue;
            }
            let at =
                |secret: &str, via, (missing, fix): (Option<String>, Option<String>)| Delivery {
                    host: host.id,
                    file: file.clone(),
                    server: server.clone(),
                    behind: None,
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

/// The project's gateway, when `entry` starts it (`dotpack serve`, or a user file's
/// `dotpack --manifest-path THIS serve`).
fn gateway_of<'a>(entry: &Value, sources: &'a Sources) -> Option<&'a Behind> {
    let args = string_args(entry)?;
    let manifest = crate::ops::gateway::behind::entry_manifest(entry["command"].as_str()?, &args)?;
    sources.gateway.as_ref().filter(|b| b.serves(manifest))
}

/// Each secret of each server behind the gateway entry `entry` of `file`: the gateway takes it
/// from the environment the host passes, else from the credential store (`secret_or_env` in
/// the gateway), so the store is asked only when a server reads a secret.
fn through_gateway<'s>(
    host: &HostAdapter,
    (file, entry): (&str, &str),
    behind: &Behind,
    store: impl Fn() -> &'s StoreAnswer,
    sources: &Sources,
) -> Vec<Delivery> {
    let mut out = Vec::new();
    for (server, names) in &behind.servers {
        for name in names {
            let (via, (missing, fix)) = gateway_secret(host, name, store(), sources);
            out.push(Delivery {
                host: host.id,
                file: file.to_string(),
                server: server.clone(),
                behind: Some(entry.to_string()),
                secret: name.clone(),
                via,
                missing,
                fix,
            });
        }
    }
    out
}

/// How the gateway gets `name` for a server it starts under `host`, and what is missing when
/// it cannot: the environment the host passes (a desktop app passes none of the shell's), else
/// the credential store.
fn gateway_secret(
    host: &HostAdapter,
    name: &str,
    store: &StoreAnswer,
    sources: &Sources,
) -> (Via, Why) {
    let desktop = host.desktop_app;
    if !desktop && (sources.in_environment)(name) {
        return (Via::GatewayEnvironment, (None, None));
    }
    if stored(store, name) {
        return (Via::GatewayStore, (None, None));
    }
    let (missing, mut fix) = store_lacks(store, name, &environment_lacks(host, name));
    if store.is_err() && !desktop {
        fix.push_str(&format!(
            ", or export {name} where you start {}",
            host.display_name
        ));
    }
    (Via::GatewayStore, (Some(missing), Some(fix)))
}

/// An entry's `args`, when it has them and every one is a string.
fn string_args(entry: &Value) -> Option<Vec<String>> {
    entry["args"]
        .as_array()?
        .iter()
        .map(|a| a.as_str().map(str::to_string))
        .collect()
}

/// The pin and secrets of a launcher entry (`dotpack run --pin … --secret NAME … -- …`).
fn launcher_secrets(entry: &Value) -> Option<(Option<String>, Vec<String>)> {
    let args = string_args(entry)?;
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

/// Whether the store answered and holds the secret `name`.
fn stored(store: &StoreAnswer, name: &str) -> bool {
    store
        .as_ref()
        .is_ok_and(|names| names.iter().any(|n| n == name))
}

/// Why the environment a server is started with lacks `name`: the host is a desktop app, which
/// passes none of the shell's, or the variable is not set.
fn environment_lacks(host: &HostAdapter, name: &str) -> String {
    match host.desktop_app {
        true => format!(
            "{} is a desktop app, which does not pass the shell's environment",
            host.display_name
        ),
        false => format!("the environment has no {name}"),
    }
}

/// How the launcher gets `name`, and what is missing when it cannot.
fn through_launcher(
    host: &HostAdapter,
    name: &str,
    recorded: bool,
    store: &StoreAnswer,
    sources: &Sources,
) -> (Via, Why) {
    if recorded && stored(store, name) {
        return (Via::LauncherStore, (None, None));
    }
    if !host.desktop_app && (sources.in_environment)(name) {
        return (Via::LauncherEnvironment, (None, None));
    }
    let environment = environment_lacks(host, name);
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
        _ => store_lacks(store, name, &environment),
    };
    (Via::LauncherEnvironment, (Some(missing), Some(fix)))
}

/// What is missing, and its fix, when the credential store does not give `name` and
/// `environment` says why the environment does not either.
fn store_lacks(store: &StoreAnswer, name: &str, environment: &str) -> (String, String) {
    match store {
        Err(_) => (
            format!("the credential store is not reachable, and {environment}"),
            "start the Secret Service (docs/secrets.md, \"No store, no fallback\")".to_string(),
        ),
        Ok(_) => (
            format!("{name} is not in the credential store, and {environment}"),
            format!("run `dotpack secret set {name}`"),
        ),
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn sources<'a>(
        store: &'a dyn Fn() -> StoreAnswer,
        env: &'a dyn Fn(&str) -> bool,
    ) -> Sources<'a> {
        Sources {
            store,
            pins: Vec::new(),
            in_environment: env,
            gateway: None,
        }
    }

    #[test]
    fn the_gateway_takes_the_environment_first_then_the_store_and_a_desktop_app_passes_none() {
        let code = crate::model::hosts::adapter("claude-code").unwrap();
        let cursor = crate::model::hosts::adapter("cursor").unwrap();
        let none = || Ok(Vec::new());
        let set = |n: &str| n == "TOKEN";
        let s = sources(&none, &set);
        let stored: StoreAnswer = Ok(vec!["TOKEN".to_string()]);
        let empty: StoreAnswer = Ok(Vec::new());
        let down: StoreAnswer = Err("no bus".to_string());
        assert_eq!(
            gateway_secret(code, "TOKEN", &empty, &s),
            (Via::GatewayEnvironment, (None, None))
        );
        assert_eq!(
            gateway_secret(cursor, "TOKEN", &stored, &s),
            (Via::GatewayStore, (None, None))
        );
        let (via, (missing, fix)) = gateway_secret(cursor, "TOKEN", &empty, &s);
        assert_eq!(via, Via::GatewayStore);
        assert!(missing.unwrap().contains("desktop app"));
        assert_eq!(fix.unwrap(), "run `dotpack secret set TOKEN`");
        let (_, (missing, fix)) = gateway_secret(code, "OTHER", &down, &s);
        assert!(
            missing
                .unwrap()
                .contains("not reachable, and the environment has no OTHER")
        );
        assert!(
            fix.unwrap()
                .ends_with("or export OTHER where you start Claude Code")
        );
    }

    #[test]
    fn a_user_files_gateway_entry_for_another_project_is_not_this_ones() {
        let behind = Behind {
            manifest: "/p/dotpack.toml".into(),
            servers: vec![("git".to_string(), vec!["TOKEN".to_string()])],
        };
        let none = || Ok(Vec::new());
        let unset = |_: &str| false;
        let mut s = sources(&none, &unset);
        s.gateway = Some(behind);
        let entry = |args: &[&str]| serde_json::json!({"command": "/bin/dotpack", "args": args});
        assert!(gateway_of(&entry(&["serve"]), &s).is_some());
        assert!(gateway_of(&entry(&["--manifest-path", "/p/dotpack.toml", "serve"]), &s).is_some());
        assert!(gateway_of(&entry(&["--manifest-path", "/q/dotpack.toml", "serve"]), &s).is_none());
        assert!(gateway_of(&entry(&["run", "--", "npx"]), &s).is_none());
    }
}
