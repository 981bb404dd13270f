//! Redirects of an HTTP registry. A registry is named by its URL, and the user trusts that
//! server, not whichever one it points to: redirects are followed while they stay on the
//! registry's own origin (scheme, host and port), and one to another origin is an error unless
//! the user allowed it (`DOTPACK_ALLOW_REDIRECTS=1`).

/// Most redirects followed for one file.
pub(super) const MAX_REDIRECTS: usize = 10;

/// The environment variable that lets redirects leave the registry's origin.
pub const ALLOW_REDIRECTS_ENV: &str = "DOTPACK_ALLOW_REDIRECTS";

pub(super) use crate::urls::{is_redirect, origin, resolve};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_redirect_statuses_are_followed() {
        for status in [301, 302, 303, 307, 308] {
            assert!(is_redirect(status));
        }
        for status in [200, 300, 304, 305, 404] {
            assert!(!is_redirect(status));
        }
        assert_eq!(origin("http://h/").as_deref(), Some("http://h:80"));
        assert_eq!(resolve("http://h/a", "b").as_deref(), Some("http://h/b"));
    }
}
