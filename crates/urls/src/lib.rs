//! `http(s)` URLs as dotpack's HTTP clients (registries, the MCP client, the bridge), its manifest
//! checks and their messages need them: whether a text is one, its origin and host, whether it
//! points at this machine, where a `Location` points, a registry's one spelling, and a URL as a
//! message may show it. The one place in dotpack that understands URLs, so every client draws the
//! same line. Parsing is the `url` crate's (the WHATWG URL standard): hosts through IDNA, IPv6
//! literals, percent-encoding and default ports as browsers and HTTP clients see them. Only
//! [`split`] (and [`redacted`], built on it) reads text that may be no valid URL at all, a
//! template or a value copied from a host file, where refusing to look would hide a credential.

use url::Host;
pub use url::Url;

/// Whether `status` is a redirect that carries a `Location` to follow.
pub fn is_redirect(status: u16) -> bool {
    matches!(status, 301 | 302 | 303 | 307 | 308)
}

/// Whether `text` starts with `http://` or `https://`, in any case: the test for "a URL, not a
/// folder" of a `--registry` value, before the URL itself is checked.
pub fn has_http_scheme(text: &str) -> bool {
    let lower = text.get(..8).unwrap_or(text).to_ascii_lowercase();
    lower.starts_with("http://") || lower.starts_with("https://")
}

/// Whether `text` starts with `SCHEME://` for some scheme (RFC 3986: a letter, then letters,
/// digits, `+`, `-` and `.`): a URL of some kind, not a path, even when dotpack cannot fetch it.
pub fn has_scheme(text: &str) -> bool {
    text.split_once("://").is_some_and(|(scheme, _)| {
        let mut chars = scheme.chars();
        chars.next().is_some_and(|c| c.is_ascii_alphabetic())
            && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
    })
}

/// Whether `text` is `http://` or `https://` (any case) with something after it: the shape a
/// manifest's `url` must have. Templates (`https://{{props.host}}/mcp`) pass; the value they
/// render to is checked when it is used.
pub fn is_http_url(text: &str) -> bool {
    has_http_scheme(text)
        && text
            .split_once("://")
            .is_some_and(|(_, rest)| !rest.is_empty())
}

/// `text` parsed as an absolute `http(s)` URL with a host. The host must follow `://` as
/// written: the URL standard reads `http:///x` and `http:x` as `http://x/`, which no one means.
pub fn parse_http(text: &str) -> Option<Url> {
    let (_, rest) = text.split_once("://")?;
    if !has_http_scheme(text) || rest.starts_with(['/', '\\']) {
        return None;
    }
    let url = Url::parse(text).ok()?;
    url.host_str().filter(|h| !h.is_empty())?;
    Some(url)
}

/// `scheme://host:port` of an `http(s)` URL: scheme and host lowercased (a Unicode host as its
/// IDNA `xn--` form), user info dropped and the default port written out, so two spellings of
/// one origin compare equal. `None` for anything that is not an `http(s)` URL with a host.
pub fn origin(url: &str) -> Option<String> {
    let url = parse_http(url)?;
    let port = url.port_or_known_default()?;
    Some(format!("{}://{}:{port}", url.scheme(), url.host_str()?))
}

/// The host of an `http(s)` URL, lowercased, without user info or port (an IPv6 literal in its
/// brackets, `[::1]`).
pub fn host(url: &str) -> Option<String> {
    parse_http(url)?.host_str().map(str::to_string)
}

/// Whether `url` is an `http(s)` URL to this machine: `localhost`, an address in `127.0.0.0/8`,
/// or `[::1]`.
pub fn is_loopback(url: &str) -> bool {
    match parse_http(url).as_ref().and_then(Url::host) {
        Some(Host::Domain(name)) => name == "localhost",
        Some(Host::Ipv4(ip)) => ip.is_loopback(),
        Some(Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    }
}

/// The absolute URL that the `Location` value `location` of a response to `from` points to,
/// resolved as the URL standard says (an absolute URL, `//host/...` with `from`'s scheme,
/// `/path` on `from`'s origin, a relative path next to `from`'s last segment, `..` taken out).
/// `None` for an empty value, one with control characters (which the standard would silently
/// drop), or one that is no valid URL.
pub fn resolve(from: &str, location: &str) -> Option<String> {
    let location = location.trim();
    if location.is_empty() || location.chars().any(char::is_control) {
        return None;
    }
    let base = Url::parse(from).ok()?;
    base.join(location).ok().map(String::from)
}

/// The one spelling of the registry at `url`: an `http(s)` URL with a host and no query or
/// fragment, written as the URL standard writes it (scheme and host lowercased, a default port
/// dropped, user information kept as written, since it is a credential) and ending in `/`.
/// The error says what is wrong, to follow "`URL` is not a registry URL: ".
pub fn registry_url(url: &str) -> Result<String, String> {
    if !has_http_scheme(url) {
        return Err("it must start with http:// or https://".to_string());
    }
    let rest = url.split_once("://").map_or("", |(_, rest)| rest);
    let authority = rest.split(['/', '\\']).next().unwrap_or_default();
    if authority.is_empty() || authority.ends_with('@') || authority.starts_with(':') {
        return Err("it has no host".to_string());
    }
    if url.contains(['?', '#']) || url.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err("it may not contain a query, a fragment or spaces".to_string());
    }
    let parsed = match Url::parse(url) {
        Ok(parsed) => parsed,
        Err(url::ParseError::EmptyHost) => return Err("it has no host".to_string()),
        Err(e) => return Err(format!("it is not a valid URL ({e})")),
    };
    let mut base = String::from(parsed);
    if !base.ends_with('/') {
        base.push('/');
    }
    Ok(base)
}

/// `url` as two spellings of one registry compare: an `http(s)` URL as the URL standard writes
/// it (scheme and host lowercased, a default port dropped), any other text trimmed; either
/// without a trailing `/`.
pub fn comparable(url: &str) -> String {
    let url = url.trim();
    match parse_http(url) {
        Some(parsed) => String::from(parsed).trim_end_matches('/').to_string(),
        None => url.trim_end_matches('/').to_string(),
    }
}

/// The parts of URL-shaped text, as written: what [`split`] finds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Parts<'a> {
    /// Before the first `://`.
    pub scheme: &'a str,
    /// Before the last `@` of the authority, if there is one.
    pub userinfo: Option<&'a str>,
    /// The authority without user info: host and port as written.
    pub host_port: &'a str,
    /// From the first `/` after the authority up to `?` or `#`.
    pub path: &'a str,
    /// After the first `?`, up to `#`.
    pub query: Option<&'a str>,
}

/// Text around its first `://` cut into the parts a URL has, without checking any of them (RFC
/// 3986's appendix B split). For looking into text that may not be a valid URL: a template
/// (`http://127.0.0.1:{{props.port}}/`), a value copied from a host file, a message. Whatever
/// must be fetched or compared goes through [`parse_http`] instead.
pub fn split(text: &str) -> Option<Parts<'_>> {
    let (scheme, rest) = text.split_once("://")?;
    let rest = rest.split_once('#').map_or(rest, |(before, _)| before);
    let (rest, query) = match rest.split_once('?') {
        Some((rest, query)) => (rest, Some(query)),
        None => (rest, None),
    };
    let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let (userinfo, host_port) = match authority.rsplit_once('@') {
        Some((userinfo, host_port)) => (Some(userinfo), host_port),
        None => (None, authority),
    };
    Some(Parts {
        scheme,
        userinfo,
        host_port,
        path,
        query,
    })
}

/// `url` as a message may show it: user information (`user:token@`) as `***@`, each query value
/// as `***` (its name kept), the fragment dropped, everything else as written (case included).
/// Either may hold a credential (`?api_key=`, a signed redirect), and a message is printed,
/// logged and pasted into bug reports. Text that is not a URL is returned as it is.
pub fn redacted(url: &str) -> String {
    let Some(parts) = split(url) else {
        return url
            .split_once('#')
            .map_or(url, |(before, _)| before)
            .to_string();
    };
    let mut out = format!("{}://", parts.scheme);
    if parts.userinfo.is_some() {
        out.push_str("***@");
    }
    out.push_str(parts.host_port);
    out.push_str(parts.path);
    if let Some(query) = parts.query {
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
        // Text no parser accepts still hides its credentials.
        assert_eq!(
            redacted("http://u:tok@h:{{props.port}}/x?k=v"),
            "http://***@h:{{props.port}}/x?k=***"
        );
    }

    #[test]
    fn origins_follow_the_url_standard_where_the_hand_parser_did_not() {
        // A Unicode host is its IDNA form, so a look-alike spelling is one origin with it.
        assert_eq!(
            origin("https://Bücher.example/").as_deref(),
            Some("https://xn--bcher-kva.example:443")
        );
        assert_eq!(
            origin("https://bücher.example/"),
            origin("https://xn--bcher-kva.example/")
        );
        // An IPv6 literal is written one way.
        assert_eq!(
            origin("http://[0:0:0:0:0:0:0:1]:9/").as_deref(),
            Some("http://[::1]:9")
        );
        // A port out of range, or a host that is no host, is no origin.
        assert_eq!(origin("http://h:65536/"), None);
        assert_eq!(origin("http://a b/"), None);
        assert_eq!(origin("http:x"), None);
    }

    #[test]
    fn hosts_and_loopback() {
        assert_eq!(
            host("HTTPS://u:p@Example.COM:8/x").as_deref(),
            Some("example.com")
        );
        assert_eq!(host("http://[::1]:9/").as_deref(), Some("[::1]"));
        assert_eq!(host("ftp://h/"), None);
        for local in [
            "http://127.0.0.1:8000/",
            "http://localhost/",
            "HTTP://LOCALHOST:1/",
            "http://[::1]/",
            "http://127.0.0.2/",
        ] {
            assert!(is_loopback(local), "{local}");
        }
        for remote in [
            "http://corp.example/",
            "http://localhost.evil.example/",
            "http://127.0.0.1@evil.example/",
            "http://128.0.0.1/",
            "not a url",
        ] {
            assert!(!is_loopback(remote), "{remote}");
        }
    }

    #[test]
    fn locations_resolve_as_the_url_standard_says() {
        // Dot segments are taken out and spaces percent-encoded, as an HTTP client would.
        assert_eq!(
            resolve("http://h/a/b/c", "../x y").as_deref(),
            Some("http://h/a/x%20y")
        );
        assert_eq!(resolve("http://h/", "http://h:99999/"), None);
    }

    #[test]
    fn schemes_and_http_urls() {
        assert!(has_http_scheme("HTTPS://x") && has_http_scheme("http://"));
        assert!(!has_http_scheme("./http") && !has_http_scheme("ftp://h"));
        assert!(has_scheme("ftp://h") && has_scheme("git+ssh://h"));
        assert!(!has_scheme("./a://b") && !has_scheme("://h") && !has_scheme("dir"));
        assert!(is_http_url("https://{{props.host}}/") && is_http_url("HTTP://h"));
        assert!(!is_http_url("https://") && !is_http_url("file:///x"));
        assert!(parse_http("http://h:1/x").is_some());
        for bad in ["http:///x", "http:x", "http://", "ftp://h/", "http://h:x/"] {
            assert!(parse_http(bad).is_none(), "{bad}");
        }
    }

    #[test]
    fn registry_urls_have_one_spelling() {
        assert_eq!(registry_url("HTTP://h:1/x").as_deref(), Ok("http://h:1/x/"));
        assert_eq!(
            registry_url("HTTPS://Me:PassWord@Example.COM/Reg").as_deref(),
            Ok("https://Me:PassWord@example.com/Reg/")
        );
        // Where the URL standard is more exact than a hand parser was: a default port is no
        // second registry, a Unicode host is its IDNA form, and `..` is taken out.
        assert_eq!(
            registry_url("https://h:443/r").as_deref(),
            Ok("https://h/r/")
        );
        assert_eq!(
            registry_url("https://bücher.example/").as_deref(),
            Ok("https://xn--bcher-kva.example/")
        );
        assert_eq!(
            registry_url("https://h/a/../b").as_deref(),
            Ok("https://h/b/")
        );
        assert_eq!(
            registry_url("ftp://h/").unwrap_err(),
            "it must start with http:// or https://"
        );
        for no_host in ["http://", "https:///x", "http://u@/", "http://:1/"] {
            assert_eq!(
                registry_url(no_host).unwrap_err(),
                "it has no host",
                "{no_host}"
            );
        }
        for bad in ["http://h/?q", "http://h/#f", "http://h/a b"] {
            assert_eq!(
                registry_url(bad).unwrap_err(),
                "it may not contain a query, a fragment or spaces",
                "{bad}"
            );
        }
        assert!(
            registry_url("http://h:port/")
                .unwrap_err()
                .contains("not a valid URL")
        );
    }

    #[test]
    fn comparable_urls_ignore_case_default_ports_and_a_trailing_slash() {
        assert_eq!(
            comparable("HTTPS://Corp.Example/Index/"),
            "https://corp.example/Index"
        );
        assert_eq!(
            comparable("https://corp.example:443/"),
            comparable("https://CORP.example")
        );
        assert_eq!(comparable(" ./dir/ "), "./dir");
    }

    #[test]
    fn split_cuts_text_that_is_no_valid_url() {
        let parts = split("http://u:{{env.P}}@127.0.0.1:{{props.port}}/mcp?a=1#f").unwrap();
        assert_eq!(parts.scheme, "http");
        assert_eq!(parts.userinfo, Some("u:{{env.P}}"));
        assert_eq!(parts.host_port, "127.0.0.1:{{props.port}}");
        assert_eq!(parts.path, "/mcp");
        assert_eq!(parts.query, Some("a=1"));
        assert_eq!(split("no scheme"), None);
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
