//! What writing commands record in dotpack.toml besides dependencies: hosts given with
//! `--host`, their scope, registries given with `--registry`, and how names on the command
//! line map to packages and servers.

use std::path::{Component, Path, PathBuf};

use anyhow::{Result, bail};

use crate::model::hosts::Scope;
use crate::model::lock::Lockfile;
use crate::model::manifest::{HostDecl, LoadedManifest};
use crate::model::manifest_edit::ManifestEditor;
use crate::plan::targets::host_adapter;

/// Status lines (`verb`, `what`) describing edits of dotpack.toml, printed after the commit.
pub type Edits = Vec<(String, String)>;

/// How messages name the manifest a command edits.
pub fn manifest_name(manifest: &LoadedManifest, global: bool) -> String {
    if global {
        manifest.path.display().to_string()
    } else {
        crate::model::manifest::MANIFEST_FILE.to_string()
    }
}

/// The scope a host entry written without one gets in `manifest`.
pub fn default_scope(manifest: &LoadedManifest, host: &crate::model::hosts::HostAdapter) -> Scope {
    let project = manifest.manifest.project.as_ref().and_then(|p| p.scope);
    crate::plan::targets::scope_of(host, None, project)
}

/// Records hosts given with `--host` in `[project] hosts`, each with `scope` when it differs
/// from the default. With no host but a scope (`dotpack install --scope user`), the scope becomes
/// the project's.
pub fn declare_hosts(
    editor: &mut ManifestEditor,
    manifest: &LoadedManifest,
    hosts: &[String],
    scope: Option<Scope>,
    global: bool,
    edits: &mut Edits,
) -> Result<()> {
    let file = manifest_name(manifest, global);
    for id in hosts {
        let host = host_adapter(id)?;
        let given = if global { None } else { scope };
        let default = default_scope(manifest, host);
        let scope = given.filter(|s| *s != default);
        let has_file = |s: Scope| match s {
            Scope::Project => host.project_file.is_some(),
            Scope::User => host.user_file.is_some(),
        };
        if let Some(s) = scope
            && !has_file(s)
        {
            bail!("{} has no {s}-scope config file", host.name());
        }
        let declared = declared(manifest, id).is_some();
        let mut changed = editor.add_host(id, scope)?;
        // `--scope` naming the default scope takes an own scope the host had out.
        if declared && given.is_some() && scope.is_none() {
            changed |= editor.clear_host_scope(id)?;
        }
        if changed {
            let what = match (declared, scope) {
                (false, None) => format!("host {id} to [project] hosts in {file}"),
                (false, Some(s)) => format!("host {id} (scope {s}) to [project] hosts in {file}"),
                (true, _) => format!("host {id} in {file}: scope {}", given.unwrap_or(default)),
            };
            let verb = if declared { "Updating" } else { "Adding" };
            edits.push((verb.to_string(), what));
        }
    }
    if hosts.is_empty()
        && !global
        && let Some(scope) = scope
        && editor.set_project_scope(scope)?
    {
        edits.push((
            "Updating".to_string(),
            format!("[project] scope in {file}: {scope}"),
        ));
    }
    Ok(())
}

/// The entry of `[project] hosts` for host `id`.
pub fn declared<'m>(manifest: &'m LoadedManifest, id: &str) -> Option<&'m HostDecl> {
    manifest
        .manifest
        .project
        .as_ref()?
        .hosts
        .iter()
        .find(|h| h.id() == id)
}

/// Declares the registry at `location` (a folder, relative to the current folder, or an
/// http(s) URL) under `[registries]`, unless one with the same place is declared already;
/// returns its name.
pub fn declare_registry(
    editor: &mut ManifestEditor,
    manifest: &LoadedManifest,
    cwd: &Path,
    location: &str,
    edits: &mut Edits,
) -> Result<String> {
    let root = manifest.root();
    let registries = &manifest.manifest.registries;
    let (key, value, base_name) = if crate::registry::http::is_url(location) {
        let url = location.to_string();
        if let Some((name, _)) = registries.iter().find(|(_, r)| {
            r.url.as_deref().map(|u| u.trim_end_matches('/')) == Some(url.trim_end_matches('/'))
        }) {
            return Ok(name.clone());
        }
        let host = crate::urls::host(&url).unwrap_or_else(|| "registry".to_string());
        ("url", url, host)
    } else {
        let given = cwd.join(location);
        let real = std::fs::canonicalize(&given).unwrap_or(given);
        if let Some((name, _)) = registries.iter().find(|(_, r)| {
            r.path
                .as_ref()
                .and_then(|p| std::fs::canonicalize(root.join(p)).ok())
                .is_some_and(|p| p == real)
        }) {
            return Ok(name.clone());
        }
        let relative = relative_path(&real, root).unwrap_or_else(|| real.clone());
        let base = registry_base_name(&real);
        ("path", relative.to_string_lossy().replace('\\', "/"), base)
    };
    let mut name = sanitize(&base_name);
    let stem = name.clone();
    let mut n = 2;
    while registries.contains_key(&name) {
        name = format!("{stem}-{n}");
        n += 1;
    }
    editor.add_registry(&name, key, &value)?;
    edits.push((
        "Adding".to_string(),
        format!(
            "registry {name} = {{ {key} = \"{value}\" }} to [registries] in {}",
            manifest_name(manifest, false)
        ),
    ));
    Ok(name)
}

/// A name for a registry folder: its own, or its parent's when it is a generic `index`.
fn registry_base_name(path: &Path) -> String {
    let generic = ["index", "registry-index", "registry", "dist"];
    for component in path.components().rev() {
        if let Component::Normal(part) = component {
            let part = part.to_string_lossy();
            if !generic.contains(&part.as_ref()) {
                return part.into_owned();
            }
        }
    }
    "local".to_string()
}

/// Lowercase letters, digits, `-` and `_`; anything else becomes `-`.
fn sanitize(name: &str) -> String {
    let out: String = name
        .to_ascii_lowercase()
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '-'
            }
        })
        .collect();
    let out = out.trim_matches('-').to_string();
    if out.is_empty() || !out.starts_with(|c: char| c.is_ascii_alphanumeric()) {
        format!("r{out}")
    } else {
        out
    }
}

/// `path` relative to `base` (both absolute), with `..` where needed.
fn relative_path(path: &Path, base: &Path) -> Option<PathBuf> {
    let base = std::fs::canonicalize(base).ok()?;
    let ours: Vec<Component> = path.components().collect();
    let theirs: Vec<Component> = base.components().collect();
    let common = ours.iter().zip(&theirs).take_while(|(a, b)| a == b).count();
    if common == 0 {
        return None;
    }
    let mut out = PathBuf::new();
    for _ in common..theirs.len() {
        out.push("..");
    }
    for part in &ours[common..] {
        out.push(part.as_os_str());
    }
    if out.as_os_str().is_empty() {
        out.push(".");
    }
    Some(out)
}

/// A name from the command line as packages are named: lowercase. Registries name packages in
/// lowercase, so `Figma` and `figma` are one package.
pub fn package_name(name: &str) -> String {
    name.trim().to_ascii_lowercase()
}

/// A name from the command line as a registry is asked for it: an MCP Registry name as given
/// (its registry's names are case-sensitive, so `io.github.GLips/Figma-Context-MCP` is found in
/// one request), any other name as dotpack names packages ([`package_name`]).
pub fn requested_name(name: &str) -> String {
    let name = name.trim();
    if crate::model::validate::is_registry_name(name) {
        name.to_string()
    } else {
        package_name(name)
    }
}

/// What a name given to `install` or `uninstall` stands for: a locked package, a dependency, a
/// server of a locked package, or one of the project's own servers. Returns it lowercase, or an
/// error listing close names.
pub fn package_or_server(
    name: &str,
    manifest: &LoadedManifest,
    lock: Option<&Lockfile>,
) -> Result<String> {
    let name = package_name(name);
    let mut known: Vec<&str> = manifest
        .manifest
        .dependencies
        .keys()
        .chain(manifest.manifest.servers.keys())
        .map(String::as_str)
        .collect();
    for p in lock.iter().flat_map(|l| &l.packages) {
        known.push(&p.name);
        known.extend(
            p.servers
                .iter()
                .map(|s| manifest.manifest.entry_name(&p.name, s)),
        );
    }
    known.sort_unstable();
    known.dedup();
    if known.contains(&name.as_str()) {
        return Ok(name);
    }
    let hint = match crate::util::suggest::closest(&name, known.iter().copied()) {
        Some(close) => format!("did you mean `{close}`?"),
        None if known.is_empty() => "the project has no packages or servers yet".to_string(),
        None => format!("packages and servers: {}", known.join(", ")),
    };
    crate::bail_help!(
        help = hint,
        "`{name}` is neither a package nor a server of this project"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registry_names_come_from_the_folder_not_the_generic_index() {
        assert_eq!(registry_base_name(Path::new("/x/reg/index")), "reg");
        assert_eq!(registry_base_name(Path::new("/x/My Reg")), "My Reg");
        assert_eq!(sanitize("My Reg"), "my-reg");
        assert_eq!(sanitize("example.com"), "example-com");
        assert_eq!(sanitize("_x"), "r_x");
    }

    #[test]
    fn relative_paths_climb_with_dotdot() {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().join("proj");
        std::fs::create_dir_all(&base).unwrap();
        let real = std::fs::canonicalize(dir.path()).unwrap().join("reg/index");
        assert_eq!(
            relative_path(&real, &base).unwrap(),
            PathBuf::from("../reg/index")
        );
    }
}
