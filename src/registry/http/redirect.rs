//! Redirects of an HTTP registry. A registry is named by its URL, and the user trusts that
//! server, not whichever one it points to: redirects are followed while they stay on the
//! registry's own origin (scheme, host and port), and one to another origin is an error unless
//! the user allowed it (`DOTPACK_ALLOW_REDIRECTS=1`).

/// Most redirects followed for one file.
pub(super) const MAX_REDIRECTS: usize = 10;

/// The environment variable that lets redirects leave the registry's origin.
pub const ALLOW_REDIRECTS_ENV: &str = "DOTPACK_ALLOW_REDIRECTS";

/// Whether `status` is a redirect that carries a `Location` to follow.
pub(super) fn is_redirect(status: u16) -> bool {
    matches!(status, 301 | 302 | 303 | 307 | 308)
}

/// `scheme://host:port` of an `http(s)` URL: scheme and host lowercased, user info dropped and
/// the default port written out, so two spellings of one origin compare equal. `None` for
/// anything that is not an `http(s)` URL with a host.
pub(super) fn origin(url: &str) -> Option<String> {
    let (scheme, rest) = url.split_once("://")?;
    let scheme = scheme.to_ascii_lowercase();
    let default_port = match scheme.as_str() {
        "http" => 80,
        "https" => 443,
        _ => return None,
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    let host_port = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let (host, port) = match host_port.strip_prefix('[') {
        // An IPv6 literal: `[::1]` or `[::1]:8080`.
        Some(v6) => {
            let (addr, after) = v6.split_once(']')?;
            (format!("[{addr}]"), after.strip_prefix(':'))
        }
        None => match host_port.rsplit_once(':') {
            Some((host, port)) => (host.to_string(), Some(port)),
            None => (host_port.to_string(), None),
        },
    };
    if host.is_empty() {
        return None;
    }
    let port = match port {
        None | Some("") => default_port,
        Some(port) => port.parse::<u16>().ok()?,
    };
    Some(format!("{scheme}://{}:{port}", host.to_ascii_lowercase()))
}

/// The absolute URL that the `Location` value `location` of a response to `from` points to:
/// an absolute URL as it is, `//host/...` with `from`'s scheme, `/path` on `from`'s origin, and
/// a relative path next to `from`'s last segment.
pub(super) fn resolve(from: &str, location: &str) -> Option<String> {
    let location = location.trim();
    if location.is_empty() || location.chars().any(char::is_control) {
        return None;
    }
    let (scheme, rest) = from.split_once("://")?;
    if location.contains("://") {
        return Some(location.to_string());
    }
    if let Some(net_path) = location.strip_prefix("//") {
        return Some(format!("{scheme}://{net_path}"));
    }
    let authority_end = rest.find('/').unwrap_or(rest.len());
    let (authority, path) = rest.split_at(authority_end);
    if location.starts_with('/') {
        return Some(format!("{scheme}://{authority}{location}"));
    }
    let path = path.split(['?', '#']).next().unwrap_or_default();
    let dir = path.rsplit_once('/').map_or("", |(dir, _)| dir);
    Some(format!("{scheme}://{authority}{dir}/{location}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origins_compare_scheme_host_and_port() {
        assert_eq!(
            origin("http://Example.com/r/").as_deref(),
            Some("http://example.com:80")
        );
        assert_eq!(
            origin("http://example.com:80/x"),
            origin("HTTP://EXAMPLE.COM/y")
        );
        assert_eq!(
            origin("https://user:pw@h:8443/").as_deref(),
            Some("https://h:8443")
        );
        assert_eq!(
            origin("http://[::1]:9000/a").as_deref(),
            Some("http://[::1]:9000")
        );
        assert_eq!(origin("http://[::1]/").as_deref(), Some("http://[::1]:80"));
        assert_ne!(origin("http://h/"), origin("https://h/"));
        assert_ne!(origin("http://h/"), origin("http://h:8080/"));
        assert_ne!(origin("http://h/"), origin("http://h.evil/"));
        for bad in ["ftp://h/", "http:///x", "http://h:notaport/", "h/x"] {
            assert_eq!(origin(bad), None, "{bad}");
        }
    }

    #[test]
    fn locations_resolve_against_the_request() {
        let from = "http://h:1/reg/al/ph/alpha";
        assert_eq!(
            resolve(from, "https://cdn.example/x").as_deref(),
            Some("https://cdn.example/x")
        );
        assert_eq!(
            resolve(from, "//other/x").as_deref(),
            Some("http://other/x")
        );
        assert_eq!(resolve(from, "/x/y").as_deref(), Some("http://h:1/x/y"));
        assert_eq!(
            resolve(from, "alpha2").as_deref(),
            Some("http://h:1/reg/al/ph/alpha2")
        );
        assert_eq!(resolve("http://h", "x").as_deref(), Some("http://h/x"));
        assert_eq!(resolve(from, ""), None);
        assert_eq!(resolve(from, "a\nb"), None);
    }

    #[test]
    fn only_redirect_statuses_are_followed() {
        for status in [301, 302, 303, 307, 308] {
            assert!(is_redirect(status));
        }
        for status in [200, 300, 304, 305, 404] {
            assert!(!is_redirect(status));
        }
    }
}
