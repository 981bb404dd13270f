//! `http(s)` URLs as dotpack's HTTP clients (registries, the MCP client, the bridge) and their
//! messages need them: the origin a redirect may not leave, where a `Location` points, and a URL
//! as a message may show it. One small hand-written parser for all of them, so every client
//! draws the same line.

/// Whether `status` is a redirect that carries a `Location` to follow.
pub fn is_redirect(status: u16) -> bool {
    matches!(status, 301 | 302 | 303 | 307 | 308)
}

/// `scheme://host:port` of an `http(s)` URL: scheme and host lowercased, user info dropped and
/// the default port written out, so two spellings of one origin compare equal. `None` for
/// anything that is not an `http(s)` URL with a host.
pub fn origin(url: &str) -> Option<String> {
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
/// a relative path next to `from`'s last segment. `None` for an empty value or one with control
/// characters.
pub fn resolve(from: &str, location: &str) -> Option<String> {
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
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, path) = rest.split_at(authority_end);
    if location.starts_with('/') {
        return Some(format!("{scheme}://{authority}{location}"));
    }
    let path = path.split(['?', '#']).next().unwrap_or_default();
    let dir = path.rsplit_once('/').map_or("", |(dir, _)| dir);
    Some(format!("{scheme}://{authority}{dir}/{location}"))
}

/// `url` as a message may show it: user information (`user:token@`) as `***@`, each query value
/// as `***` (its name kept), the fragment dropped. Either may hold a credential (`?api_key=`,
/// a signed redirect), and a message is printed, logged and pasted into bug reports. Text that
/// is not a URL is returned as it is.
pub fn redacted(url: &str) -> String {
    let (url, _fragment) = url.split_once('#').unwrap_or((url, ""));
    let (url, query) = match url.split_once('?') {
        Some((url, query)) => (url, Some(query)),
        None => (url, None),
    };
    let mut out = match url.split_once("://") {
        Some((scheme, rest)) => {
            let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
            let host = match authority.rsplit_once('@') {
                Some((_, host)) => format!("***@{host}"),
                None => authority.to_string(),
            };
            format!("{scheme}://{host}{path}")
        }
        None => url.to_string(),
    };
    if let Some(query) = query {
        let pairs: Vec<String> = query
            .split('&')
            .map(|pair| match pair.split_once('=') {
                Some((name, _)) => format!("{name}=***"),
                None if pair.is_empty() => String::new(),
                None => "***".to_string(),
            })
            .collect();
        out.push('?');
        out.push_str(&pairs.join("&"));
    }
    out
}

/// Values that must never appear in a message (the resolved values of `{{env.X}}` references,
/// header values), each with what stands in its place.
#[derive(Clone, Debug, Default)]
pub struct Secrets(Vec<(String, String)>);

impl Secrets {
    /// Values shorter than this are not looked for: they cannot be told from ordinary text.
    const SHORTEST: usize = 4;

    /// Adds `value`, shown as `shown_as` (e.g. `{{env.TOKEN}}`).
    pub fn add(&mut self, value: &str, shown_as: impl Into<String>) {
        if value.trim().len() >= Self::SHORTEST && !self.0.iter().any(|(v, _)| v == value) {
            self.0.push((value.to_string(), shown_as.into()));
            // Longest first, so a value that contains another is replaced whole.
            self.0.sort_by_key(|(v, _)| std::cmp::Reverse(v.len()));
        }
    }

    /// Every value of `other` too.
    pub fn extend(&mut self, other: &Secrets) {
        for (value, shown_as) in &other.0 {
            self.add(value, shown_as.clone());
        }
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// `text` with every value replaced by what stands in its place.
    pub fn scrub(&self, text: &str) -> String {
        let mut out = text.to_string();
        for (value, shown_as) in &self.0 {
            if out.contains(value.as_str()) {
                out = out.replace(value.as_str(), shown_as);
            }
        }
        out
    }
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
        assert_eq!(origin("http://h?x=1").as_deref(), Some("http://h:80"));
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
        assert_eq!(resolve("http://h?q=1", "/x").as_deref(), Some("http://h/x"));
        assert_eq!(resolve(from, ""), None);
        assert_eq!(resolve(from, "a\nb"), None);
    }

    #[test]
    fn redacted_urls_keep_no_credentials_and_no_case_change() {
        assert_eq!(
            redacted("https://User:PassWord@Example.com/mcp?key=s3cret&debug&x=1#frag"),
            "https://***@Example.com/mcp?key=***&***&x=***"
        );
        assert_eq!(redacted("http://127.0.0.1:9/x/Y"), "http://127.0.0.1:9/x/Y");
        assert_eq!(redacted("https://tok@h"), "https://***@h");
        assert_eq!(redacted("not a url"), "not a url");
    }

    #[test]
    fn secrets_are_replaced_longest_first_and_short_values_ignored() {
        let mut secrets = Secrets::default();
        secrets.add("abcd", "{{env.SHORT}}");
        secrets.add("abcdef-123", "{{env.LONG}}");
        secrets.add("1", "{{env.ONE}}");
        assert_eq!(
            secrets.scrub("a=abcdef-123 b=abcd c=1"),
            "a={{env.LONG}} b={{env.SHORT}} c=1"
        );
        assert!(Secrets::default().is_empty());
    }
}
