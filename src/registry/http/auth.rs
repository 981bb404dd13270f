//! The bearer token of a private registry (`[registries] corp = { url = "...", token_env =
//! "CORP_TOKEN" }`).
//!
//! The token is read from the environment when the registry is opened and lives only in memory:
//! it is sent as `Authorization: Bearer TOKEN` to the registry's own origin (scheme, host and
//! port) and nowhere else, not even across a redirect the user allowed to another origin; it is
//! never written to the cache, the lock or a log line (`Debug` prints the variable's name only).

use super::redirect;

/// A token for one registry, and the environment variable it came from.
#[derive(Clone)]
pub struct Auth {
    /// The variable named by `token_env`, for messages.
    env_var: String,
    /// Its value; `None` when the variable is unset or empty.
    token: Option<String>,
}

impl std::fmt::Debug for Auth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Auth")
            .field("env_var", &self.env_var)
            .field("token", &self.token.as_ref().map(|_| "<redacted>"))
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
            env_var: env_var.to_string(),
            token,
        }
    }

    /// The environment variable the token is read from.
    pub fn env_var(&self) -> &str {
        &self.env_var
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
        match &self.token {
            None => format!(
                "the registry needs a token: set the environment variable {} (named by `token_env` in [registries]) to your token",
                self.env_var
            ),
            Some(_) => format!(
                "the registry refused the token in {}: check that it is valid and allows reading this registry",
                self.env_var
            ),
        }
    }
}

/// What a 401 or 403 from a registry with no `token_env` means.
pub(super) fn no_token_help() -> String {
    "the registry refused access; if it is private, declare it in dotpack.toml with a token: `[registries] NAME = { url = \"...\", token_env = \"VAR\" }` and set VAR to your token".to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn auth(token: &str) -> Auth {
        Auth {
            env_var: "CORP_TOKEN".to_string(),
            token: Some(token.to_string()),
        }
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
