//! A heuristic for literal secrets in a manifest: known token prefixes, then Shannon entropy,
//! length and character classes, with a lower bar when the name around the value says it is a
//! credential (`GITHUB_TOKEN`, `--api-key`, `Authorization`).
//!
//! It only ever produces warnings: legitimate arguments contain random-looking values too. The
//! bar is tuned so placeholders (`YOUR_TOKEN`, `<token>`, `${VAR}`, `{{env.X}}`), words, paths,
//! package specs, versions and UUIDs stay quiet.

/// Token prefixes of well-known services, with the service for the message.
const PREFIXES: &[(&str, &str)] = &[
    ("github_pat_", "GitHub token"),
    ("ghp_", "GitHub token"),
    ("gho_", "GitHub token"),
    ("ghu_", "GitHub token"),
    ("ghs_", "GitHub token"),
    ("ghr_", "GitHub token"),
    ("glpat-", "GitLab token"),
    ("sk-ant-", "Anthropic key"),
    ("sk-proj-", "OpenAI key"),
    ("sk_live_", "Stripe key"),
    ("sk_test_", "Stripe key"),
    ("rk_live_", "Stripe key"),
    ("sk-", "API key"),
    ("xoxb-", "Slack token"),
    ("xoxp-", "Slack token"),
    ("xoxa-", "Slack token"),
    ("xapp-", "Slack token"),
    ("AKIA", "AWS access key"),
    ("ASIA", "AWS access key"),
    ("AIza", "Google API key"),
    ("npm_", "npm token"),
    ("pypi-", "PyPI token"),
    ("hf_", "Hugging Face token"),
    ("figd_", "Figma token"),
    ("lin_api_", "Linear key"),
    ("shpat_", "Shopify token"),
    ("dop_v1_", "DigitalOcean token"),
    ("SG.", "SendGrid key"),
];

/// Words in a name that say its value is a credential.
const SENSITIVE: &[&str] = &[
    "token",
    "secret",
    "password",
    "passwd",
    "apikey",
    "api_key",
    "api-key",
    "auth",
    "credential",
    "private_key",
    "access_key",
    "bearer",
    "cookie",
    "session",
];

/// Whether a variable, header or flag called `name` holds a credential.
pub fn is_sensitive_name(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    SENSITIVE.iter().any(|w| lower.contains(w)) || lower.ends_with("key") || lower.ends_with("_pat")
}

/// Literal secrets in a server's `args`, `env` values, `url` and header values: `(key path,
/// reason)`, the same findings `dotpack validate` warns about. References (`{{env.X}}`) are
/// never secrets.
pub fn server_secrets(server: &crate::model::manifest::Server) -> Vec<(String, String)> {
    let mut found = Vec::new();
    let args = server.args.as_deref().unwrap_or_default();
    for (i, arg) in args.iter().enumerate() {
        let prev = i
            .checked_sub(1)
            .and_then(|p| args.get(p))
            .map(String::as_str);
        if let Some(reason) = arg_secret(arg, prev) {
            found.push((format!("args[{i}]"), reason));
        }
    }
    for (k, v) in &server.env {
        if let Some(reason) = named_secret(k, v) {
            found.push((format!("env.{k}"), reason));
        }
    }
    if let Some(reason) = server.url.as_deref().and_then(url_secret) {
        found.push(("url".to_string(), reason));
    }
    if let Some(toml::Value::Table(headers)) = server.extensions.get("http_headers") {
        for (k, v) in headers {
            if let Some(reason) = v.as_str().and_then(|v| named_secret(k, v)) {
                found.push((format!("http_headers.{k}"), reason));
            }
        }
    }
    found
}

/// What `dotpack validate` and `install` say about a literal secret.
pub const LITERAL_SECRET_HELP: &str = "reference the environment instead, e.g. `{{env.API_TOKEN}}`, and declare an input with `secret = true` under `[inputs]`";

/// A secret in one command-line argument; `previous` is the argument before it (`--token X`).
///
/// Beyond a value on its own, an argument may carry a named one: `--api-key=X`, an environment
/// assignment (`API_KEY=X`, as after docker's `-e`) or a header (`Authorization: Bearer X`, as
/// after `--header`); each is judged by its name. A package spec (`uvx NAME==VERSION`, `npx
/// NAME@VERSION`) names a package, never a credential.
pub fn arg_secret(arg: &str, previous: Option<&str>) -> Option<String> {
    if arg.contains("://") && !arg.contains(char::is_whitespace) {
        return url_secret(arg);
    }
    if let Some((flag, value)) = arg.split_once('=')
        && flag.starts_with('-')
    {
        return argument_value_secret(value, is_sensitive_name(flag));
    }
    let flag_says = previous.is_some_and(|p| p.starts_with('-') && is_sensitive_name(p));
    argument_value_secret(arg, flag_says)
}

/// The value of one argument: a package spec, a header, an assignment or a plain value.
fn argument_value_secret(value: &str, sensitive: bool) -> Option<String> {
    if is_package_spec(value) {
        return None;
    }
    if let Some((name, rest)) = header_form(value).or_else(|| assignment_form(value)) {
        return named_secret(name, rest).or_else(|| value_secret(rest, sensitive));
    }
    named_value_secret(value, sensitive)
}

/// `Name: value` with a header's name (`Authorization: Bearer X`, `X-Api-Key: X`).
fn header_form(value: &str) -> Option<(&str, &str)> {
    let (name, rest) = value.split_once(':')?;
    let header_name = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    (header_name && rest.starts_with(' ')).then(|| (name, rest.trim_start()))
}

/// `NAME=value` with an environment variable's name (`API_KEY=X`).
fn assignment_form(value: &str) -> Option<(&str, &str)> {
    let (name, rest) = value.split_once('=')?;
    let env_name = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    (env_name && !rest.starts_with('=')).then_some((name, rest))
}

/// A package and its exact version, as package runners take them: `NAME==VERSION` (uvx, pip)
/// or `NAME@VERSION` and `@SCOPE/NAME@VERSION` (npx). The version must look like a released
/// version, so a token with `==` or `@` in it (base64 padding) is still judged as a token.
pub fn is_package_spec(value: &str) -> bool {
    let split = match value.split_once("==") {
        Some(parts) => Some(parts),
        None => {
            let first = usize::from(value.starts_with('@'));
            value[first..]
                .rfind('@')
                .map(|at| (&value[..first + at], &value[first + at + 1..]))
        }
    };
    let Some((name, version)) = split else {
        return false;
    };
    let name = name.strip_prefix('@').unwrap_or(name);
    let name_ok = !name.is_empty()
        && name.split('/').count() <= 2
        && name.split('/').all(|part| {
            part.starts_with(|c: char| c.is_ascii_alphanumeric())
                && part
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
        });
    name_ok && is_package_version(version)
}

/// The words a version part may carry after its digits (`0rc1`, `post2`, `beta`).
const PRE_AND_POST: &[&str] = &[
    "", "a", "b", "c", "rc", "alpha", "beta", "pre", "preview", "dev", "post", "next", "canary",
];

/// A released version as npm and PyPI write them: `1.36.1`, `2.0.0-beta.1`, `0.4.0rc1`,
/// `1.0.post2`, `2025.10.1`. Each dot-separated part is digits, optionally followed by a short
/// pre-release or post-release word and digits.
fn is_package_version(version: &str) -> bool {
    if is_version(version) {
        return true;
    }
    let core = version.split('+').next().unwrap_or(version);
    core.starts_with(|c: char| c.is_ascii_digit())
        && core.split(['.', '-']).all(|part| {
            let digits = part.trim_start_matches(|c: char| c.is_ascii_digit());
            let word = digits.trim_end_matches(|c: char| c.is_ascii_digit());
            !part.is_empty() && PRE_AND_POST.contains(&word)
        })
}

/// A secret in the value of env var or header `name`.
pub fn named_secret(name: &str, value: &str) -> Option<String> {
    named_value_secret(&without_expressions(value), is_sensitive_name(name))
}

/// The words of `value` judged one by one; a word after an authorization scheme (`Bearer X`,
/// `Basic X`, `Token X`) is a credential whatever the name around it says.
fn named_value_secret(value: &str, sensitive: bool) -> Option<String> {
    let mut after_scheme = false;
    for token in value.split_whitespace() {
        if let Some(reason) = value_secret(token, sensitive || after_scheme) {
            return Some(reason);
        }
        after_scheme = ["bearer", "basic", "token"]
            .iter()
            .any(|s| token.eq_ignore_ascii_case(s));
    }
    None
}

/// `value` without its `${{ … }}` expressions (Continue's `${{ secrets.NAME }}`), whose inner
/// words are names, not values.
fn without_expressions(value: &str) -> std::borrow::Cow<'_, str> {
    if !value.contains("${{") {
        return std::borrow::Cow::Borrowed(value);
    }
    let mut out = String::new();
    let mut rest = value;
    while let Some(start) = rest.find("${{") {
        out.push_str(&rest[..start]);
        match rest[start..].find("}}") {
            Some(end) => rest = &rest[start + end + 2..],
            None => {
                rest = "";
            }
        }
    }
    out.push_str(rest);
    std::borrow::Cow::Owned(out)
}

/// A password in the userinfo, or a secret-looking query value, of a URL.
pub fn url_secret(url: &str) -> Option<String> {
    // A split, not a parse: a template or a value from a host file is often no valid URL, and
    // its credentials are found all the same.
    let parts = crate::urls::split(url)?;
    if let Some(userinfo) = parts.userinfo {
        let password = userinfo.split_once(':').map(|(_, p)| p);
        if password.is_some_and(|p| !p.is_empty() && !is_placeholder(p)) {
            return Some("a password in the URL".to_string());
        }
        // A bare token as userinfo (`https://TOKEN@host`) is a credential too.
        if password.is_none()
            && let Some(reason) = value_secret(userinfo, true)
        {
            return Some(reason);
        }
    }
    parts.query?.split('&').find_map(|pair| {
        let (key, value) = pair.split_once('=')?;
        value_secret(value, is_sensitive_name(key))
            .map(|reason| format!("{reason} in the `{key}` query parameter"))
    })
}

/// Whether one value looks like a literal secret; `sensitive` lowers the bar.
pub fn value_secret(raw: &str, sensitive: bool) -> Option<String> {
    let value = raw.trim_matches(|c| c == '"' || c == '\'');
    if value.is_empty() || is_placeholder(value) {
        return None;
    }
    if let Some(reason) = known_prefix(value) {
        return Some(reason.to_string());
    }
    if is_jwt(value) {
        return Some("a JSON web token".to_string());
    }
    if is_deepl_key(value) {
        return Some("a DeepL key".to_string());
    }
    let joined = sensitive && is_colon_joined(value);
    if is_uuid(value)
        || is_version(value)
        || !(is_token_charset(value) || joined)
        || value.contains('/')
    {
        return None;
    }
    let classes = char_classes(value);
    let entropy = shannon_entropy(value);
    let len = value.chars().count();
    let generic = len >= 20 && entropy >= 3.5 && classes >= 3 && !is_hex(value)
        || len >= 32 && entropy >= 3.5 && classes >= 2 && !is_hex(value);
    let named = sensitive && len >= 8 && alnum_classes(value) >= 2 && entropy >= 2.5;
    (generic || named).then(|| "a high-entropy value".to_string())
}

fn known_prefix(value: &str) -> Option<&'static str> {
    PREFIXES.iter().find_map(|(prefix, what)| {
        let rest = value.strip_prefix(prefix)?;
        let body_ok = rest.len() >= 12
            && rest
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
            && rest.chars().any(|c| c.is_ascii_digit());
        body_ok.then_some(*what)
    })
}

/// `YOUR_TOKEN`, `<token>`, `${VAR}`, `$VAR`, `{{env.X}}`, `xxxx`, `changeme`, …
fn is_placeholder(value: &str) -> bool {
    let lower = value.to_ascii_lowercase();
    value.contains("{{")
        || value.contains("${")
        || value.contains("$(")
        || value.starts_with('$')
        || value.starts_with('%') && value.ends_with('%')
        || value.starts_with('<') && value.ends_with('>')
        || value.starts_with('[') && value.ends_with(']')
        || value
            .chars()
            .all(|c| c.is_ascii_uppercase() || c == '_' || c == '-')
        || [
            "your",
            "xxx",
            "example",
            "placeholder",
            "changeme",
            "redacted",
            "dummy",
            "here",
            "replace",
        ]
        .iter()
        .any(|w| lower.contains(w))
        || shannon_entropy(value) < 2.0
}

fn is_jwt(value: &str) -> bool {
    value.starts_with("eyJ") && value.split('.').count() == 3 && value.len() >= 30
}

fn is_uuid(value: &str) -> bool {
    let parts: Vec<&str> = value.split('-').collect();
    parts.len() == 5
        && parts.iter().map(|p| p.len()).eq([8, 4, 4, 4, 12])
        && parts.iter().all(|p| is_hex(p))
}

/// DeepL's key shape: a UUID, and `:fx` for the free API. The UUID alone stays quiet (UUIDs are
/// ids far more often than keys); with the suffix it is a key wherever it appears.
fn is_deepl_key(value: &str) -> bool {
    value.strip_suffix(":fx").is_some_and(is_uuid)
}

/// Token parts joined by `:` (`KEY_ID:SECRET`), judged as one value where the name says it is a
/// credential; `host:port` and `image:1.2` are not, their last part being a number or version.
fn is_colon_joined(value: &str) -> bool {
    let parts: Vec<&str> = value.split(':').collect();
    parts.len() > 1
        && parts.iter().all(|p| !p.is_empty() && is_token_charset(p))
        && parts
            .last()
            .is_some_and(|last| !last.chars().all(|c| c.is_ascii_digit()) && !is_version(last))
}

fn is_hex(value: &str) -> bool {
    value.chars().all(|c| c.is_ascii_hexdigit())
}

/// Characters tokens are made of (base64, base64url, hex, and the usual separators).
fn is_token_charset(value: &str) -> bool {
    value
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '+' | '=' | '.' | '~' | '/'))
}

/// `1.2.3`, `v0.12.4-beta.1`: a version, not a credential.
fn is_version(value: &str) -> bool {
    let v = value.strip_prefix('v').unwrap_or(value);
    v.starts_with(|c: char| c.is_ascii_digit())
        && v.contains('.')
        && v.split(['-', '+']).next().is_some_and(|core| {
            core.split('.')
                .all(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
        })
}

/// How many of lowercase, uppercase and digits the value uses.
fn alnum_classes(value: &str) -> usize {
    let has = |f: fn(&char) -> bool| usize::from(value.chars().any(|c| f(&c)));
    has(char::is_ascii_lowercase) + has(char::is_ascii_uppercase) + has(char::is_ascii_digit)
}

/// How many of lowercase, uppercase, digits and symbols the value uses.
fn char_classes(value: &str) -> usize {
    let has = |f: fn(&char) -> bool| usize::from(value.chars().any(|c| f(&c)));
    has(char::is_ascii_lowercase)
        + has(char::is_ascii_uppercase)
        + has(char::is_ascii_digit)
        + has(|c| !c.is_ascii_alphanumeric())
}

/// Bits per character.
pub fn shannon_entropy(value: &str) -> f64 {
    let mut counts = std::collections::HashMap::new();
    let mut total = 0usize;
    for c in value.chars() {
        *counts.entry(c).or_insert(0usize) += 1;
        total += 1;
    }
    if total == 0 {
        return 0.0;
    }
    let total = total as f64;
    counts
        .values()
        .map(|&n| {
            let p = n as f64 / total;
            -p * p.log2()
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_tokens_warn() {
        for secret in [
            "ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8",
            "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz",
            "sk-proj-Ab12Cd34Ef56Gh78Ij90Kl12",
            "sk-ant-api03-abcdEFGH1234ijkl5678",
            "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
            "AKIAIOSFODNN7Q2XZ4LB",
            "glpat-xY9z8W7v6U5t4S3r2Q1p",
            "figd_Ab3dE6gH9jK2mN5pQ8sT1vW4",
            "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
        ] {
            assert!(value_secret(secret, false).is_some(), "{secret}");
        }
    }

    #[test]
    fn generic_high_entropy_values_warn() {
        assert!(value_secret("q8Zr2LmX9vTb4NcW7yKd3Hs", false).is_some());
        assert!(named_secret("API_KEY", "a8f3k2m9x7").is_some());
        assert!(named_secret("Authorization", "Bearer q8Zr2LmX9vTb4NcW7yKd").is_some());
        assert!(arg_secret("--figma-api-key=k9X2mQ7pL4vB", None).is_some());
        assert!(arg_secret("k9X2mQ7pL4vB8nR3", Some("--token")).is_some());
        assert!(url_secret("https://user:hunter2@example.com/mcp").is_some());
        assert!(url_secret("https://api.example.com/mcp?api_key=k9X2mQ7pL4vB8nR3").is_some());
    }

    #[test]
    fn placeholders_and_ordinary_values_stay_quiet() {
        for quiet in [
            "YOUR_TOKEN",
            "<token>",
            "${GITHUB_TOKEN}",
            "$GITHUB_TOKEN",
            "{{env.GITHUB_TOKEN}}",
            "{{props.token}}",
            "xxxxxxxxxxxxxxxxxxxxxxxx",
            "your-api-key-here",
            "@modelcontextprotocol/server-github",
            "@playwright/mcp@latest",
            "mcp-server-fetch",
            "/home/user/projects/my-repo",
            "C:\\Users\\me\\Documents",
            "1.2.3",
            "v0.12.4-beta.1",
            "550e8400-e29b-41d4-a716-446655440000",
            "-y",
            "--stdio",
            "debug",
            "stdio",
            "true",
            "3845",
            "https://api.githubcopilot.com/mcp/",
            "ghp_",
            "sk-learn",
            "mcp-server-sequential-thinking",
            "PyYAML",
        ] {
            assert_eq!(arg_secret(quiet, None), None, "{quiet}");
            assert_eq!(named_secret("GITHUB_TOKEN", quiet), None, "{quiet}");
        }
    }

    #[test]
    fn keys_with_a_colon_warn_and_host_ports_do_not() {
        let deepl = "1f2e3d4c-aaaa-bbbb-cccc-123456789abc:fx";
        assert!(named_secret("DEEPL_AUTH_KEY", deepl).is_some());
        assert!(value_secret(deepl, false).is_some());
        assert!(named_secret("API_KEY", "k9X2mQ7p:L4vB8nR3q").is_some());
        for quiet in ["localhost:8080", "postgres:16", "redis:7.2.4"] {
            assert_eq!(named_secret("AUTH_HOST", quiet), None, "{quiet}");
        }
    }

    #[test]
    fn names_without_credentials_keep_the_high_bar() {
        assert_eq!(named_secret("LOG_LEVEL", "debug"), None);
        assert_eq!(named_secret("NODE_ENV", "production"), None);
        assert_eq!(named_secret("WORKSPACE_ID", "a8f3k2m9x7"), None);
        assert_eq!(named_secret("AUTH_MODE", "oauth"), None);
        assert_eq!(arg_secret("--project-id=a8f3k2m9x7", None), None);
        assert_eq!(url_secret("http://127.0.0.1:{{props.port}}/mcp"), None);
        assert_eq!(url_secret("https://user@example.com/mcp"), None);
        assert_eq!(url_secret("https://x.com/mcp?page=2&q=search"), None);
    }

    #[test]
    fn entropy_is_bits_per_character() {
        assert_eq!(shannon_entropy(""), 0.0);
        assert_eq!(shannon_entropy("aaaa"), 0.0);
        assert!((shannon_entropy("abcd") - 2.0).abs() < 1e-9);
    }
}

#[cfg(test)]
mod argument_tests {
    use super::*;

    #[test]
    fn package_specs_name_packages_not_credentials() {
        for spec in [
            "keboola-mcp-server==1.36.1",
            "awslabs.aws-documentation-mcp-server==1.1.2",
            "mcp-server-analyzer==0.4.0rc1",
            "openai-agents-mcp==1.0.post2",
            "pkg@1.2.3",
            "@scope/pkg@1.2.3",
            "@modelcontextprotocol/server-filesystem@2025.8.21",
            "@rsdoctor/mcp-server@0.4.4-beta.2",
        ] {
            assert!(is_package_spec(spec), "{spec}");
            assert_eq!(arg_secret(spec, None), None, "{spec}");
            assert_eq!(arg_secret(&format!("--from={spec}"), None), None, "{spec}");
        }
        // Tokens that happen to hold `==` or `@` are still tokens.
        for token in [
            "q8Zr2LmX9vTb4NcW7yKd3HsQ==",
            "abc==q8Zr2LmX9vTb4NcW7yKd3Hs",
            "q8Zr2LmX9vTb4NcW7yKd3Hs==1a2b3c4d5e6f",
        ] {
            assert!(!is_package_spec(token), "{token}");
            assert!(arg_secret(token, None).is_some(), "{token}");
        }
    }

    #[test]
    fn a_literal_credential_in_a_header_or_assignment_argument_is_found() {
        let token = "Bearer pmt_8fK2mQ7pL4vB9xR3";
        assert!(arg_secret(&format!("Authorization: {token}"), Some("--header")).is_some());
        assert!(arg_secret(&format!("--header=Authorization: {token}"), None).is_some());
        assert!(arg_secret("X-Api-Key: k9X2mQ7pL4vB8nR3", Some("-H")).is_some());
        assert!(arg_secret("API_KEY=k9X2mQ7pL4vB8nR3", Some("-e")).is_some());
        // A scheme says what follows is a credential, whatever the header is called.
        assert!(named_secret("X-Custom", token).is_some());
        for quiet in [
            "Authorization: Bearer ${TOKEN}",
            "Authorization: Bearer {{env.TOKEN}}",
            "Authorization: Bearer YOUR_TOKEN",
            "Accept: application/json",
            "LOG_LEVEL=debug",
            "DB_HOST=localhost",
        ] {
            assert_eq!(arg_secret(quiet, Some("--header")), None, "{quiet}");
        }
    }
}

#[cfg(test)]
mod expression_tests {
    #[test]
    fn continue_secret_expressions_are_names_not_values() {
        assert_eq!(
            super::named_secret(
                "GITHUB_TOKEN",
                "${{ secrets.GITHUB_PERSONAL_ACCESS_TOKEN }}"
            ),
            None
        );
        assert!(
            super::named_secret(
                "GITHUB_TOKEN",
                "${{ secrets.X }} ghp_abcdefghijklmnopqrstuvwxyz0123456789"
            )
            .is_some()
        );
    }
}
