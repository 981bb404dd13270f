//! The environment variables installed servers read that are not set here, so the user learns
//! about a missing token from dotpack rather than from a server that fails to start.

use crate::model::lock::Lockfile;
use crate::model::manifest::LoadedManifest;
use crate::resolve::RegistrySet;

/// `(package, variable)` for every variable the servers of `packages` (every locked package when
/// empty, and the project's own servers) read with `{{env.X}}` and that is unset. Best effort: a
/// package that cannot be read here is skipped.
pub fn environment_needed(
    registries: &RegistrySet,
    manifest: &LoadedManifest,
    lock: &Lockfile,
    packages: &[String],
) -> Vec<(String, String)> {
    let mut needed = Vec::new();
    let mut push = |name: &str, vars: Vec<String>| {
        // A server that starts through the launcher or the gateway gets what the credential
        // store holds.
        let launched = manifest.manifest.reads_the_store(name);
        needed.extend(
            vars.into_iter()
                .filter(|var| std::env::var_os(var).is_none())
                .filter(|var| !(launched && matches!(super::secrets::get(var), Ok(Some(_)))))
                .map(|var| (name.to_string(), var)),
        );
    };
    for locked in &lock.packages {
        if !packages.is_empty() && !packages.contains(&locked.name) {
            continue;
        }
        let Some(source) = registries.by_source(&locked.source) else {
            continue;
        };
        let Ok(package) = crate::registry::load_package(source, &locked.name, &locked.version)
        else {
            continue;
        };
        push(&locked.name, package.env_vars());
    }
    if packages.is_empty() {
        push(
            crate::model::manifest::MANIFEST_FILE,
            manifest.manifest.env_vars(),
        );
    }
    needed
}

/// Prints one note per unset variable.
pub fn print_environment_needed(
    printer: &crate::ui::printer::Printer,
    needed: &[(String, String)],
) {
    for (package, var) in needed {
        printer.note(format!(
            "note: {package} reads {var} from the environment, which is not set here \
             (`dotpack secret set {var}` keeps it in the OS credential store for servers that \
             start through the launcher, `launcher = true`, or the gateway)"
        ));
    }
}

/// On a terminal, asks for each secret in `needed` that a server started through the launcher
/// or the gateway reads (the project's `launcher` or `gateway`), with what is typed not shown, and keeps each answer in the
/// OS credential store: never in a file. Returns what is still missing, for the caller to name.
/// A server without the launcher reads its variables from the host's environment: those are
/// only named, never asked for.
pub fn ask_secrets(
    printer: &crate::ui::printer::Printer,
    manifest: &crate::model::manifest::Manifest,
    needed: Vec<(String, String)>,
) -> anyhow::Result<Vec<(String, String)>> {
    if !crate::ui::ask::can_ask(printer) {
        return Ok(needed);
    }
    let mut missing = Vec::new();
    for (package, var) in needed {
        if !manifest.reads_the_store(&package) {
            missing.push((package, var));
            continue;
        }
        let question = format!(
            "{package} reads the secret {var}: type it to keep it in the OS credential store (not shown; empty to skip): "
        );
        let Some(value) = crate::ui::ask::hidden(printer, &question) else {
            missing.push((package, var));
            continue;
        };
        match super::secrets::set(&var, &value) {
            Ok(()) => printer.status("Stored", format!("{var} in the OS credential store")),
            Err(e) => {
                printer.warning(format!("{e:#}"));
                missing.push((package, var));
            }
        }
    }
    Ok(missing)
}
