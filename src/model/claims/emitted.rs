//! Reading back the `[[claim]]` tables [`super::emit`] writes, without a TOML parser.
//!
//! A project with thousands of servers holds tens of thousands of claims (a 20 MB lock for
//! 10,000 servers on five hosts), and a general TOML parser spends most of a command reading
//! them. What `emit` writes is a small fixed subset of TOML: one `key = value` per line, basic
//! strings with its escapes, integers, `true`, arrays of strings and the one inline table of
//! `created`. [`read`] reads exactly that subset and gives up (`None`) on anything else: another
//! spelling, a comment, a duplicate or unknown key, an escape `emit` does not write. The caller
//! then reads the text with the TOML parser, so a lock edited by hand (or by someone else) means
//! what TOML says it means and fails with the TOML parser's errors.

use semver::Version;

use super::Claim;
use crate::formats::Created;

/// Where the claims of a lock or claims file begin: the first line that is `[[claim]]`.
pub(crate) fn split(text: &str) -> Option<(&str, &str)> {
    let mut from = 0;
    loop {
        let at = from + text[from..].find("[[claim]]")?;
        let after = &text[at + "[[claim]]".len()..];
        let line_start = at == 0 || text.as_bytes()[at - 1] == b'\n';
        let line_end = after.is_empty() || after.starts_with('\n') || after.starts_with("\r\n");
        if line_start && line_end {
            return Some(text.split_at(at));
        }
        from = at + 1;
    }
}

/// The claims of `text`, which must start at a `[[claim]]` line (see [`split`]) and hold only
/// claims as [`super::emit`] writes them; `None` for anything else.
pub(crate) fn read(text: &str) -> Option<Vec<Claim>> {
    let mut claims = Vec::new();
    let mut current: Option<Fields> = None;
    for piece in text.split_inclusive('\n') {
        // `\r` only as part of a `\r\n` line ending; TOML refuses a lone one.
        let line = piece
            .strip_suffix("\r\n")
            .or_else(|| piece.strip_suffix('\n'))
            .unwrap_or(piece);
        if line.contains('\r') {
            return None;
        }
        if line.is_empty() {
            continue;
        }
        if line == "[[claim]]" {
            if let Some(done) = current.replace(Fields::default()) {
                claims.push(done.finish()?);
            }
            continue;
        }
        let (key, value) = line.split_once(" = ")?;
        current.as_mut()?.set(key, value)?;
    }
    if let Some(done) = current {
        claims.push(done.finish()?);
    }
    Some(claims)
}

#[derive(Default)]
struct Fields {
    file: Option<String>,
    host: Option<String>,
    scope: Option<String>,
    key: Option<String>,
    server: Option<String>,
    package: Option<String>,
    version: Option<Version>,
    entry: Option<String>,
    inputs: Option<String>,
    dropped: Option<Vec<String>>,
    created: Option<Created>,
    created_file: Option<bool>,
    created_dirs: Option<u32>,
    owners: Option<Vec<String>>,
    resolved_env: Option<Vec<String>>,
    adopted: Option<bool>,
}

impl Fields {
    /// Sets field `key` from its value's text; `None` for an unknown or repeated key, or a value
    /// outside the subset.
    fn set(&mut self, key: &str, value: &str) -> Option<()> {
        match key {
            "file" => once(&mut self.file, string(value)?),
            "host" => once(&mut self.host, string(value)?),
            "scope" => once(&mut self.scope, string(value)?),
            "key" => once(&mut self.key, string(value)?),
            "server" => once(&mut self.server, string(value)?),
            "package" => once(&mut self.package, string(value)?),
            "version" => once(&mut self.version, Version::parse(&string(value)?).ok()?),
            "entry" => once(&mut self.entry, string(value)?),
            "inputs" => once(&mut self.inputs, string(value)?),
            "dropped" => once(&mut self.dropped, strings(value)?),
            "created" => once(&mut self.created, created(value)?),
            "created_file" => once(&mut self.created_file, boolean(value)?),
            "created_dirs" => once(&mut self.created_dirs, integer(value)?),
            "owners" => once(&mut self.owners, strings(value)?),
            "resolved_env" => once(&mut self.resolved_env, strings(value)?),
            "adopted" => once(&mut self.adopted, boolean(value)?),
            _ => None,
        }
    }

    /// The claim, when every required field was set.
    fn finish(self) -> Option<Claim> {
        Some(Claim {
            file: self.file?,
            host: self.host?,
            scope: self.scope?,
            key: self.key?,
            server: self.server?,
            package: self.package?,
            version: self.version?,
            entry: self.entry?,
            inputs: self.inputs.unwrap_or_default(),
            dropped: self.dropped.unwrap_or_default(),
            created: self.created.unwrap_or_default(),
            created_file: self.created_file.unwrap_or(false),
            created_dirs: self.created_dirs.unwrap_or(0),
            owners: self.owners.unwrap_or_default(),
            resolved_env: self.resolved_env.unwrap_or_default(),
            adopted: self.adopted.unwrap_or(false),
            project: None,
        })
    }
}

fn once<T>(slot: &mut Option<T>, value: T) -> Option<()> {
    match slot {
        Some(_) => None,
        None => {
            *slot = Some(value);
            Some(())
        }
    }
}

/// A whole value that is one basic string.
fn string(value: &str) -> Option<String> {
    match take_string(value)? {
        (s, "") => Some(s),
        _ => None,
    }
}

/// The basic string at the start of `text`, and the text after it. Escapes are those `emit`
/// writes (`\"`, `\\`, `\n`, `\t`, `\r`, `\uXXXX`); raw control characters are refused.
fn take_string(text: &str) -> Option<(String, &str)> {
    let body = text.strip_prefix('"')?;
    // Most strings have nothing to unescape (0xC2 starts the C1 control characters).
    let special = body
        .bytes()
        .position(|b| matches!(b, b'"' | b'\\' | 0..=0x1f | 0x7f | 0xc2));
    if let Some(end) = special.filter(|&k| body.as_bytes()[k] == b'"') {
        return Some((body[..end].to_owned(), &body[end + 1..]));
    }
    let mut out = String::new();
    let mut chars = body.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => return Some((out, &body[i + 1..])),
            '\\' => out.push(match chars.next()?.1 {
                '"' => '"',
                '\\' => '\\',
                'n' => '\n',
                't' => '\t',
                'r' => '\r',
                'u' => {
                    let hex = body.get(i + 2..i + 6)?;
                    if !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
                        return None;
                    }
                    chars.nth(3)?;
                    char::from_u32(u32::from_str_radix(hex, 16).ok()?)?
                }
                _ => return None,
            }),
            c if c.is_control() => return None,
            c => out.push(c),
        }
    }
    None
}

/// `["a", "b"]`, as `emit` writes arrays.
fn strings(value: &str) -> Option<Vec<String>> {
    let mut rest = value.strip_prefix('[')?;
    let mut items = Vec::new();
    if let Some(after) = rest.strip_prefix(']') {
        return after.is_empty().then_some(items);
    }
    loop {
        let (item, after) = take_string(rest)?;
        items.push(item);
        if let Some(next) = after.strip_prefix(", ") {
            rest = next;
        } else {
            return (after == "]").then_some(items);
        }
    }
}

/// `{ container_levels = N[, empty_object_inner = "…"][, file_content = "…"] }`.
fn created(value: &str) -> Option<Created> {
    let inner = value.strip_prefix("{ ")?.strip_suffix(" }")?;
    let rest = inner.strip_prefix("container_levels = ")?;
    let digits = rest
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(rest.len());
    let mut created = Created {
        container_levels: integer(&rest[..digits])?,
        ..Created::default()
    };
    let mut rest = &rest[digits..];
    if let Some(after) = rest.strip_prefix(", empty_object_inner = ") {
        let (inner, after) = take_string(after)?;
        created.empty_object_inner = Some(inner);
        rest = after;
    }
    if let Some(after) = rest.strip_prefix(", file_content = ") {
        let (content, after) = take_string(after)?;
        created.file_content = Some(content);
        rest = after;
    }
    rest.is_empty().then_some(created)
}

/// A decimal integer as `emit` writes it: digits, no sign, no leading zero, no underscores.
fn integer<T: std::str::FromStr>(value: &str) -> Option<T> {
    let plain = !value.is_empty()
        && value.bytes().all(|b| b.is_ascii_digit())
        && (value == "0" || !value.starts_with('0'));
    plain.then(|| value.parse().ok()).flatten()
}

fn boolean(value: &str) -> Option<bool> {
    match value {
        "true" => Some(true),
        "false" => Some(false),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::model::claims::{UserFile, emit};

    /// Strings with what TOML escaping must get right: quotes, backslashes, control characters
    /// (C0 and C1), tabs, non-ASCII, and the separators the reader looks for.
    fn odd_string() -> impl Strategy<Value = String> {
        prop::collection::vec(
            prop_oneof![
                "[a-z./~-]{1,4}",
                Just("\"".to_owned()),
                Just("\\".to_owned()),
                Just(", ".to_owned()),
                Just(" }".to_owned()),
                Just(" = ".to_owned()),
                Just("[[claim]]".to_owned()),
                Just("\n".to_owned()),
                Just("\r\n".to_owned()),
                Just("\t".to_owned()),
                Just("\u{1}".to_owned()),
                Just("\u{7f}".to_owned()),
                Just("\u{85}".to_owned()),
                Just("é§ü😀".to_owned()),
            ],
            0..5,
        )
        .prop_map(|parts| parts.concat())
    }

    fn claim() -> impl Strategy<Value = Claim> {
        let created = (
            0..3usize,
            prop::option::of(odd_string()),
            prop::option::of(odd_string()),
        )
            .prop_map(|(levels, inner, content)| Created {
                container_levels: levels,
                empty_object_inner: inner,
                file_content: content,
            });
        (
            (odd_string(), odd_string(), odd_string(), odd_string()),
            (0..3u64, 0..20u64, prop::option::of("[a-z]{1,3}")),
            prop::collection::vec(odd_string(), 0..3),
            created,
            (any::<bool>(), 0..3u32),
            prop::collection::vec(odd_string(), 0..3),
        )
            .prop_map(
                |(
                    (file, server, package, inputs),
                    (major, minor, pre),
                    dropped,
                    created,
                    (cf, cd),
                    owners,
                )| {
                    let mut version = Version::new(major, minor, 1);
                    if let Some(pre) = pre {
                        version.pre = semver::Prerelease::new(&pre).unwrap_or_default();
                    }
                    Claim {
                        key: format!("mcpServers.{server}"),
                        file,
                        host: "claude-code".into(),
                        scope: "project".into(),
                        server,
                        package,
                        version,
                        entry: format!("sha256:{}", "a".repeat(64)),
                        inputs,
                        dropped,
                        created,
                        created_file: cf,
                        created_dirs: cd,
                        owners,
                        resolved_env: Vec::new(),
                        adopted: false,
                        project: None,
                    }
                },
            )
    }

    /// What the TOML parser makes of a claims text.
    fn by_toml(text: &str) -> Option<Vec<Claim>> {
        toml::from_str::<UserFile>(text).ok().map(|f| f.claim)
    }

    fn read_all(text: &str) -> Option<Vec<Claim>> {
        let (head, claims) = split(text)?;
        head.trim().is_empty().then_some(())?;
        read(claims)
    }

    proptest! {
        #[test]
        fn reads_back_what_emit_writes(claims in prop::collection::vec(claim(), 0..4)) {
            let text = emit(&claims);
            let mut sorted = claims.clone();
            crate::model::claims::sort(&mut sorted);
            // Owners are written sorted and without repeats.
            for c in &mut sorted {
                c.owners.sort();
                c.owners.dedup();
            }
            let want = if sorted.is_empty() { None } else { Some(sorted) };
            prop_assert_eq!(read_all(&text), want.clone());
            prop_assert_eq!(by_toml(&text).filter(|c| !c.is_empty()), want);
        }

        /// Whatever the reader accepts, TOML reads the same way: an edited text either goes to
        /// the TOML parser or means what TOML says.
        #[test]
        fn accepts_nothing_toml_reads_otherwise(
            claims in prop::collection::vec(claim(), 1..3),
            edits in prop::collection::vec((any::<prop::sample::Index>(), 0..16usize), 1..4),
        ) {
            let mut text = emit(&claims);
            let pieces = ["\"", "\\", " ", ",", "[", "]", "{", "}", "=", "\n", "#", "\r", "u", "0", "x = 1\n", "\n[[claim]]\n"];
            for (at, piece) in edits {
                let mut at = at.index(text.len() + 1);
                while !text.is_char_boundary(at) {
                    at -= 1;
                }
                if piece < pieces.len() {
                    text.insert_str(at, pieces[piece]);
                } else if at < text.len() {
                    let end = (at + 1..=text.len()).find(|&e| text.is_char_boundary(e)).unwrap_or(text.len());
                    text.replace_range(at..end, "");
                }
            }
            if let Some(read) = read_all(&text) {
                prop_assert_eq!(Some(read), by_toml(&text), "{:?}", text);
            }
        }
    }
}
