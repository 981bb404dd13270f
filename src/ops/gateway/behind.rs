//! The servers behind the gateway, as `doctor` checks them: the hosts' files hold only the
//! gateway's entry (`dotpack serve`), so what each server needs to start (its program, its
//! secrets) is read from the project's declarations, as `dotpack serve` reads them. Nothing is
//! started, and a registry's packages are read from its cache only (`install` filled it).

use crate::model::gateway::Surface;
use crate::ops::connect::Located;

use super::{Project, Settings};

/// Every server `dotpack serve` would serve for `project` (its surface not `"off"`), in name
/// order; a server that cannot be located offline is left out (`dotpack serve` says why when it
/// runs).
pub fn servers(settings: &Settings, project: &Project) -> Vec<Located> {
    let manifest = &project.manifest.manifest;
    let lock = project.lock.as_ref();
    let offline = Settings {
        offline: true,
        ..settings.clone()
    };
    let Ok(registries) = crate::ops::registries(&offline, Some(&project.manifest)) else {
        return Vec::new();
    };
    let names = crate::ops::connect::server_names(manifest, lock);
    served(manifest, lock, &registries, &names, |_, _| {})
}

/// The servers among `names` the gateway serves (located, their surface not `"off"`), in the
/// order of `names`; `unlocated` hears each name that cannot be located, and why.
pub(super) fn served(
    manifest: &crate::model::manifest::Manifest,
    lock: Option<&crate::model::lock::Lockfile>,
    registries: &crate::resolve::RegistrySet,
    names: &[String],
    mut unlocated: impl FnMut(&str, anyhow::Error),
) -> Vec<Located> {
    names
        .iter()
        .filter_map(
            |name| match crate::ops::connect::locate(manifest, lock, registries, name) {
                Ok(located) => Some(located),
                Err(e) => {
                    unlocated(name, e);
                    None
                }
            },
        )
        .filter(|located| manifest.gateway_surface(&located.package) != Surface::Off)
        .collect()
}

/// Whether a host's entry starts the gateway: `dotpack serve`, or `PATH/TO/dotpack
/// --manifest-path FILE serve`; with the manifest it names, if any.
pub fn entry_manifest<'a>(command: &str, args: &'a [String]) -> Option<Option<&'a str>> {
    let name = command.rsplit(['/', '\\']).next().unwrap_or(command);
    if name.strip_suffix(".exe").unwrap_or(name) != crate::model::gateway::ENTRY {
        return None;
    }
    match args {
        [serve] if serve == "serve" => Some(None),
        [flag, path, serve] if flag == "--manifest-path" && serve == "serve" => Some(Some(path)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn the_gateway_entry_is_recognised_in_either_scope_and_nothing_else() {
        assert_eq!(entry_manifest("dotpack", &args(&["serve"])), Some(None));
        assert_eq!(
            entry_manifest(
                "/opt/bin/dotpack",
                &args(&["--manifest-path", "/p/dotpack.toml", "serve"])
            ),
            Some(Some("/p/dotpack.toml"))
        );
        assert_eq!(
            entry_manifest("dotpack", &args(&["run", "--", "npx"])),
            None
        );
        assert_eq!(entry_manifest("npx", &args(&["serve"])), None);
        assert_eq!(
            entry_manifest("dotpack", &args(&["serve", "--trust"])),
            None
        );
    }
}
