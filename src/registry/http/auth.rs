//! The bearer token of a private registry. Where it comes from is decided by the caller (the
//! user's own credentials, or a project's `token_env` the user approved); see
//! `ops::tokens`.
//!
//! The token is read when the registry is opened and lives only in memory:
//! it is sent as `Authorization: Bearer TOKEN` to the registry's own origin (scheme, host and
//! port) and nowhere else, not even across a redirect the user allowed to another origin; it is
//! never written to the cache, the lock or a log line (`Debug` prints the variable's name only).

use super::redirect;

/// A token for one registry, and where it came from.
#[derive(Clone)]
pub struct Auth {
    /// Where the token is read from, for messages: `the environment variable CORP_TOKEN`.
    source: String,
    /// The token; `None` when its variable is unset or empty, or it is withheld.
    token: Option<String>,
    /// The project's `token_env` named this variable, and the user has not approved sending it:
    /// nothing is sent, and a 401 or 403 says how to allow it.
    withheld: Option<String>,
}

impl std::fmt::Debug for Auth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Auth")
            .field("source", &self.source)
            .field("token", &self.token.as_ref().map(|_| "<redacted>"))
            .field("withheld", &self.withheld)
            .finish()
    }
}

impl Auth {
    /// The token in `env_var`, read now (unset or empty: no token, and a 401 says so).
    pub fn from_env(env_var: &str) -> Auth {
        let token = std::env::var(env_var)
            .ok()
            .map(|v| v.trim().to_string())
            .filter(|v| !v.is_empty());
        Auth {
            source: format!("the environment variable {env_var}"),
            token,
            withheld: None,
        }
    }

    /// A token the user keeps in one of their own files, `source` naming it.
    pub fn literal(token: &str, source: String) -> Auth {
        let token = Some(token.trim().to_string()).filter(|t| !t.is_empty());
        Auth {
            source,
            token,
            withheld: None,
        }
    }

    /// No token: the project asked for `env_var`'s value, which only the user may choose to send.
    pub fn withheld(env_var: &str) -> Auth {
        Auth {
            source: format!("the environment variable {env_var}"),
            token: None,
            withheld: Some(env_var.to_string()),
        }
    }

    /// The `Authorization` header value for a request to `url` of the registry at `base`:
    /// only when both have the same origin.
    pub(super) fn header_for(&self, base: &str, url: &str) -> Option<String> {
        let token = self.token.as_deref()?;
        let own = redirect::origin(base)?;
        (redirect::origin(url).as_deref() == Some(own.as_str())).then(|| format!("Bearer {token}"))
    }

    /// What a 401 or 403 from the registry means, and how to pass the token.
    pub(super) fn refused_help(&self) -> String {
        if let Some(var) = &self.withheld {
            return format!(
                "dotpack.toml names {var} as this registry's token (`token_env`), but a project cannot choose which of your variables are sent, so it was not: approve it for this folder with `dotpack trust` (or `--trust` for this run), or keep the token in your own $DOTPACK_HOME/credentials.toml (see docs/registry.md)"
            );
        }
        match &self.token {
            None => format!(
                "the registry needs a token: set {} to your token",
                self.source
            ),
            Some(_) => format!(
                "the registry refused the token from {}: check that it is valid and allows reading this registry",
                self.source
            ),
        }
    }
}

/// What a 401 or 403 from a registry with no token means.
pub(super) fn no_token_help() -> String {
    "the registry refused access; if it is private, keep its token in $DOTPACK_HOME/credentials.toml or in the environment variable dotpack derives from its host (see docs/registry.md)".to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn auth(token: &str) -> Auth {
        Auth::literal(token, "the environment variable CORP_TOKEN".to_string())
    }

    #[test]
    fn the_token_goes_only_to_the_registry_origin() {
        let a = auth("s3cret");
        let base = "http://127.0.0.1:8000/reg/";
        assert_eq!(
            a.header_for(base, "http://127.0.0.1:8000/reg/al/ph/alpha")
                .as_deref(),
            Some("Bearer s3cret")
        );
        for other in [
            "http://127.0.0.1:8001/reg/al/ph/alpha",
            "https://127.0.0.1:8000/reg/",
            "http://localhost:8000/reg/",
            "http://127.0.0.1.evil/reg/",
        ] {
            assert_eq!(a.header_for(base, other), None, "{other}");
        }
    }

    #[test]
    fn debug_never_shows_the_token() {
        let text = format!("{:?}", auth("s3cret"));
        assert!(!text.contains("s3cret"), "{text}");
        assert!(text.contains("CORP_TOKEN"), "{text}");
    }
}
