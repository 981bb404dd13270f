//! Which token a registry gets. Tokens belong to the user: a project may name a registry, but
//! not choose which of the user's variables are sent to it. A registry's token comes from, in
//! this order:
//!
//! 1. `$DOTPACK_HOME/credentials.toml`, keyed by the registry's URL
//!    (`[registries."https://corp.example/index/"] token_env = "CORP_TOKEN"`, or `token = "…"`);
//! 2. the user-level manifest (`$DOTPACK_HOME/dotpack.toml`): a registry with the same URL and a
//!    `token_env`;
//! 3. the environment variable dotpack's convention derives from the registry's host and port
//!    ([`convention_var`]), so the name itself binds the token to that origin;
//! 4. the project's own `token_env`, only when the user approved sending that variable to that
//!    URL ([`Kind::Token`]) or passed `--trust`; otherwise nothing is sent, and a 401 or 403
//!    says how to allow it.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{Context, Result};
use serde::Deserialize;

use crate::model::manifest::LoadedManifest;
use crate::ops::consent::{self, Approvals, Kind, Request};
use crate::registry::http::Auth;

use super::Settings;

pub const CREDENTIALS_FILE: &str = "credentials.toml";

/// `$DOTPACK_HOME/credentials.toml`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Credentials {
    #[serde(default)]
    registries: BTreeMap<String, Credential>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Credential {
    token: Option<String>,
    token_env: Option<String>,
}

/// The token of the registry at `url` that `manifest` declares as `name` with `token_env`.
pub fn auth_for(
    settings: &Settings,
    manifest: &LoadedManifest,
    url: &str,
    token_env: Option<&str>,
) -> Result<Option<Auth>> {
    if let Some(auth) = users_own(settings, url)? {
        return Ok(Some(auth));
    }
    let Some(var) = token_env else {
        return Ok(None);
    };
    let own_manifest = manifest.path == settings.global_manifest();
    if own_manifest || settings.trust {
        return Ok(Some(Auth::from_env(var)));
    }
    let request = token_request(url, var);
    let owner = super::owner_id(manifest.root());
    let approved = Approvals::load(&settings.dotpack_home)?.covers(&owner, &request);
    Ok(Some(if approved {
        Auth::from_env(var)
    } else {
        Auth::withheld(var)
    }))
}

/// The request to send `var` to the registry at `url`.
pub fn token_request(url: &str, var: &str) -> Request {
    Request::new(
        Kind::Token,
        format!("{} {var}", same_url(url)),
        consent::digest(&[&same_url(url), var]),
        format!("the value of ${var} to {url}"),
    )
}

/// The token the user keeps for `url` in their own files or under the convention's variable.
pub fn users_own(settings: &Settings, url: &str) -> Result<Option<Auth>> {
    let wanted = same_url(url);
    let path = settings.dotpack_home.join(CREDENTIALS_FILE);
    if let Some(credentials) = read_credentials(&path)?
        && let Some(c) = credentials
            .registries
            .iter()
            .find(|(key, _)| same_url(key) == wanted)
            .map(|(_, c)| c)
    {
        let source = format!("{} ({})", path.display(), wanted);
        return Ok(match (&c.token, &c.token_env) {
            (Some(token), _) => Some(Auth::literal(token, source)),
            (None, Some(var)) => Some(Auth::from_env(var)),
            (None, None) => None,
        });
    }
    if let Ok(global) = crate::model::manifest::load(&settings.global_manifest())
        && let Some(var) = global.manifest.registries.values().find_map(|spec| {
            let same = spec.url.as_deref().map(same_url) == Some(wanted.clone());
            same.then_some(spec.token_env.as_deref()).flatten()
        })
    {
        return Ok(Some(Auth::from_env(var)));
    }
    if let Some(var) = convention_var(url)
        && std::env::var(&var).is_ok_and(|v| !v.trim().is_empty())
    {
        return Ok(Some(Auth::from_env(&var)));
    }
    Ok(None)
}

fn read_credentials(path: &Path) -> Result<Option<Credentials>> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
    };
    let credentials: Credentials = toml::from_str(&text).map_err(|e| {
        anyhow::Error::from(crate::util::error::Error::new(format!("{} is not valid: {}", path.display(), e.message())).help("each registry is a table keyed by its URL: [registries.\"https://corp.example/index/\"] with token_env = \"VAR\" or token = \"…\""))
    })?;
    Ok(Some(credentials))
}

/// A URL as registries are compared: scheme and host lowercased, no trailing `/`.
fn same_url(url: &str) -> String {
    crate::urls::comparable(url)
}

/// The environment variable that holds the token of every registry on `url`'s host and port:
/// `DOTPACK_TOKEN_` and the host in capitals, each `.` as `_`, each `-` as `__`, then `___` and
/// the port when the URL gives one (`https://corp-pkgs.example.com:8443/` is
/// `DOTPACK_TOKEN_CORP__PKGS_EXAMPLE_COM___8443`). Hosts with other characters (or user info)
/// have none. No two hosts share a name, so a repository cannot route the variable of one to
/// another. Only `https` URLs (and `http` to this machine's loopback) have one: the name does
/// not say the scheme, and a token must not travel in the clear because a repository wrote
/// `http://` before the user's host.
pub fn convention_var(url: &str) -> Option<String> {
    let (scheme, rest) = url.split_once("://")?;
    match scheme.to_ascii_lowercase().as_str() {
        "https" => {}
        "http" if crate::urls::is_loopback(url) => {}
        _ => return None,
    }
    let authority = rest.split('/').next()?;
    if authority.contains('@') {
        return None;
    }
    let (host, port) = match authority.rsplit_once(':') {
        Some((host, port)) if !port.is_empty() && port.chars().all(|c| c.is_ascii_digit()) => {
            (host, Some(port))
        }
        Some(_) => return None,
        None => (authority, None),
    };
    if host.is_empty()
        || !host
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '-')
        || host.starts_with(['.', '-'])
        || host.ends_with(['.', '-'])
        || host.contains("..")
        || host.contains(".-")
        || host.contains("-.")
    {
        return None;
    }
    let mut var = String::from("DOTPACK_TOKEN_");
    for c in host.chars() {
        match c {
            '.' => var.push('_'),
            '-' => var.push_str("__"),
            c => var.push(c.to_ascii_uppercase()),
        }
    }
    if let Some(port) = port {
        var.push_str("___");
        var.push_str(port);
    }
    Some(var)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_convention_names_one_variable_per_host_and_port() {
        assert_eq!(
            convention_var("https://corp-pkgs.example.com:8443/index/").as_deref(),
            Some("DOTPACK_TOKEN_CORP__PKGS_EXAMPLE_COM___8443")
        );
        assert_eq!(
            convention_var("http://127.0.0.1:8000/").as_deref(),
            Some("DOTPACK_TOKEN_127_0_0_1___8000")
        );
        // A look-alike host never gets the same name.
        assert_ne!(
            convention_var("https://corp-example.com/"),
            convention_var("https://corp.example.com/")
        );
        // No token in the clear to another machine.
        assert_eq!(convention_var("http://corp.example.com/"), None);
        assert!(convention_var("http://localhost:8000/").is_some());
        // Any loopback address, as the URL standard reads the host.
        assert!(convention_var("http://127.0.0.2:8000/").is_some());
        assert_eq!(convention_var("http://127.0.0.1@corp.example/"), None);
        for bad in [
            "https://user@corp.example/",
            "https://corp_x.example/",
            "https://-x.example/",
            "nothing",
        ] {
            assert_eq!(convention_var(bad), None, "{bad}");
        }
    }

    #[test]
    fn urls_compare_without_case_in_the_host_or_a_trailing_slash() {
        assert_eq!(
            same_url("HTTPS://Corp.Example/Index/"),
            "https://corp.example/Index"
        );
    }
}
