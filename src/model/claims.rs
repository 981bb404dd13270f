//! Claims: the record of which host-file entries dotpack wrote, for which package, with the hash
//! of what it wrote. A claim is what lets dotpack refuse to clobber other people's entries,
//! notice hand edits, and remove exactly what it added.
//!
//! Claims on project-scope files live in `dotpack.lock` as `[[claim]]` tables, so a teammate who
//! clones the repository sees the committed entries as dotpack's. Claims on user-scope files live
//! in `$DOTPACK_HOME/claims.toml`, and only there: a lock is committed, so reading it keeps only
//! what a lock dotpack wrote can hold (see [`crate::model::lock::read`]).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use semver::Version;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::formats::Created;
use crate::ui::diag::{Diagnostic, Diagnostics};

mod emitted;

pub(crate) use emitted::{read as read_emitted, split as split_emitted};

/// One entry dotpack owns in one host file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Claim {
    /// The host file: relative to the project root for project scope, absolute for user scope.
    pub file: String,
    pub host: String,
    pub scope: String,
    /// Where the entry sits, e.g. `mcpServers.figma`.
    pub key: String,
    pub server: String,
    pub package: String,
    pub version: Version,
    /// `sha256:<hex>` of the entry as written (see [`entry_hash`]).
    pub entry: String,
    /// Fingerprint of the inputs the entry was written with (see `install::inputs_fingerprint`);
    /// with the version and the entry hash, it tells that an entry is current without loading
    /// its package.
    #[serde(default)]
    pub inputs: String,
    /// Lossy fields dropped when translating for this host.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub dropped: Vec<String>,
    /// What adding this entry created (container key, whole document), so removing the last
    /// entry takes exactly that back.
    #[serde(default, skip_serializing_if = "is_nothing")]
    pub created: Created,
    /// The file did not exist before dotpack added this entry.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub created_file: bool,
    /// How many of the file's folders dotpack created with it (`~/.codex` for
    /// `~/.codex/config.toml`: 1); they go with the file when they are empty.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub created_dirs: u32,
    /// Who declared a user-scope entry: the folders of the manifests (projects, or the
    /// user-level manifest in `$DOTPACK_HOME`). The entry leaves with its last owner.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub owners: Vec<String>,
    /// Environment variables whose current values the entry holds (`--resolve-env`, user
    /// scope only): names, never values. Reading the file replaces those values with markers
    /// (see [`crate::model::resolved_env`]), and the entry is translated with `--resolve-env` again.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resolved_env: Vec<String>,
    /// The entry was in the file before dotpack claimed it (`adopt`, `import --into`, `init
    /// --import`): the user wrote it. A rollback past its claim gives it back to the user (the
    /// entry stays, the claim goes) instead of deleting it, and taking it out says so.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub adopted: bool,
    /// Read from claims files written before `owners`: the one project that installed it.
    #[serde(default, skip_serializing)]
    pub project: Option<String>,
}

impl Claim {
    /// Sort key: file, then server name.
    fn order(&self) -> (&str, &str) {
        (&self.file, &self.server)
    }

    /// Whether `owner` declared this entry. Project-scope entries belong to the project whose
    /// lock holds them; a user-scope entry with no recorded owner (written before owners were
    /// recorded) belongs to whoever manages it next.
    pub fn is_owned_by(&self, owner: &str) -> bool {
        is_owned_by(&self.scope, &self.owners, owner)
    }

    /// The owners other than `owner`.
    pub fn other_owners(&self, owner: &str) -> Vec<String> {
        other_owners(&self.owners, owner)
    }

    /// Moves a legacy `project` into `owners`.
    fn migrate(&mut self) {
        if let Some(project) = self.project.take()
            && self.owners.is_empty()
        {
            self.owners.push(project);
        }
    }
}

/// Whether `owner` declared a claimed entry or file of `scope` with `owners`: project-scope ones
/// belong to the project whose lock holds them, and a user-scope one with no recorded owner
/// (written before owners were recorded) to whoever manages it next.
pub fn is_owned_by(scope: &str, owners: &[String], owner: &str) -> bool {
    scope != "user" || owners.is_empty() || owners.iter().any(|o| o == owner)
}

/// `owners` but `owner`.
pub fn other_owners(owners: &[String], owner: &str) -> Vec<String> {
    owners.iter().filter(|o| *o != owner).cloned().collect()
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

fn is_nothing(created: &Created) -> bool {
    *created == Created::default()
}

/// Sorts claims into their canonical order.
pub fn sort(claims: &mut [Claim]) {
    claims.sort_by(|a, b| a.order().cmp(&b.order()));
}

/// The hash recorded for an entry: sha256 of its JSON with object keys sorted, so the same
/// content hashes the same whatever order a file keeps its keys in.
pub fn entry_hash(entry: &serde_json::Value) -> String {
    let mut hasher = HashWriter(Sha256::new());
    write_canonical(entry, &mut hasher);
    let digest = hasher.0.finalize();
    let mut out = String::with_capacity(7 + 64);
    out.push_str("sha256:");
    for b in digest.iter() {
        out.push(char::from(HEX[usize::from(b >> 4)]));
        out.push(char::from(HEX[usize::from(b & 0xf)]));
    }
    out
}

const HEX: &[u8; 16] = b"0123456789abcdef";

/// Feeds serialized JSON straight into the hash, without building strings.
struct HashWriter(Sha256);

impl std::io::Write for HashWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.update(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn write_canonical(value: &serde_json::Value, out: &mut HashWriter) {
    use serde_json::Value;
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            out.0.update(b"{");
            for (key, v) in entries {
                // Writing JSON into a hasher cannot fail.
                let _ = serde_json::to_writer(&mut *out, key);
                out.0.update(b":");
                write_canonical(v, out);
                out.0.update(b",");
            }
            out.0.update(b"}");
        }
        Value::Array(items) => {
            out.0.update(b"[");
            for item in items {
                write_canonical(item, out);
                out.0.update(b",");
            }
            out.0.update(b"]");
        }
        leaf => {
            let _ = serde_json::to_writer(&mut *out, leaf);
        }
    }
}

/// Emits claims as `[[claim]]` tables in canonical order, by hand (as the lock's packages are),
/// so the text is stable and cheap to write: straight into one buffer, since a large project's
/// lock holds tens of thousands of claims.
pub fn emit(claims: &[Claim]) -> String {
    let mut sorted: Vec<&Claim> = claims.iter().collect();
    sorted.sort_by(|a, b| a.order().cmp(&b.order()));
    let mut out = String::with_capacity(claims.len() * 420);
    for c in sorted {
        out.push_str("\n[[claim]]\n");
        for (key, value) in [
            ("file", &c.file),
            ("host", &c.host),
            ("scope", &c.scope),
            ("key", &c.key),
            ("server", &c.server),
            ("package", &c.package),
        ] {
            push_string_field(&mut out, key, value);
        }
        // A semver version has nothing to escape.
        out.push_str("version = \"");
        let _ = write!(out, "{}", c.version);
        out.push_str("\"\n");
        push_string_field(&mut out, "entry", &c.entry);
        if !c.inputs.is_empty() {
            push_string_field(&mut out, "inputs", &c.inputs);
        }
        if !c.dropped.is_empty() {
            push_strings_field(&mut out, "dropped", c.dropped.iter());
        }
        if !is_nothing(&c.created) {
            push_created_field(&mut out, &c.created);
        }
        if c.created_file {
            out.push_str("created_file = true\n");
        }
        if c.created_dirs > 0 {
            let _ = writeln!(out, "created_dirs = {}", c.created_dirs);
        }
        if !c.owners.is_empty() {
            let mut owners: Vec<&String> = c.owners.iter().collect();
            owners.sort();
            owners.dedup();
            push_strings_field(&mut out, "owners", owners.into_iter());
        }
        if !c.resolved_env.is_empty() {
            push_strings_field(&mut out, "resolved_env", c.resolved_env.iter());
        }
        if c.adopted {
            out.push_str("adopted = true\n");
        }
    }
    out
}

fn push_string_field(out: &mut String, key: &str, value: &str) {
    out.push_str(key);
    out.push_str(" = ");
    push_toml_string(out, value);
    out.push('\n');
}

fn push_strings_field<'s>(out: &mut String, key: &str, items: impl Iterator<Item = &'s String>) {
    out.push_str(key);
    out.push_str(" = [");
    for (i, item) in items.enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        push_toml_string(out, item);
    }
    out.push_str("]\n");
}

fn push_created_field(out: &mut String, created: &Created) {
    let _ = write!(
        out,
        "created = {{ container_levels = {}",
        created.container_levels
    );
    if let Some(inner) = &created.empty_object_inner {
        out.push_str(", empty_object_inner = ");
        push_toml_string(out, inner);
    }
    if let Some(content) = &created.file_content {
        out.push_str(", file_content = ");
        push_toml_string(out, content);
    }
    out.push_str(" }\n");
}

/// A TOML basic string: quotes, backslashes and control characters escaped.
fn push_toml_string(out: &mut String, s: &str) {
    out.push('"');
    // Control characters: below U+0020, U+007F, and U+0080 to U+009F (0xC2 0x80..=0x9F).
    let plain = !s.bytes().enumerate().any(|(i, b)| {
        matches!(b, b'"' | b'\\' | 0..=0x1f | 0x7f)
            || (b == 0xc2
                && s.as_bytes()
                    .get(i + 1)
                    .is_some_and(|n| (0x80..=0x9f).contains(n)))
    });
    if plain {
        out.push_str(s);
        out.push('"');
        return;
    }
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => {
                let _ = write!(out, "\\u{:04X}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Reads one `[[claim]]` table as the lock parser has it (a value that keeps its position),
/// without writing it out as text again; the error is the TOML reader's message.
pub fn from_toml(table: toml::Spanned<toml::de::DeValue<'_>>) -> Result<Claim, String> {
    let mut claim = Claim::deserialize(toml::de::ValueDeserializer::from(table))
        .map_err(|e| e.message().to_string())?;
    claim.migrate();
    Ok(claim)
}

/// The claims of a claims file exactly as [`UserClaims::render`] writes it (comments, then
/// claims), read without the TOML parser; `None` for any other text.
fn read_canonical(text: &str) -> Option<(Vec<Claim>, Vec<crate::model::resources::FileClaim>)> {
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Head {
        #[serde(default)]
        file: Vec<crate::model::resources::FileClaim>,
    }
    let (head, claims) = split_emitted(text)?;
    let head = toml::from_str::<Head>(head).ok()?;
    Some((read_emitted(claims)?, head.file))
}

/// The user-scope claims file: `$DOTPACK_HOME/claims.toml`.
pub struct UserClaims {
    pub path: PathBuf,
    pub claims: Vec<Claim>,
    /// User-scope resource files (see [`crate::model::resources`]), as `[[file]]` tables.
    pub files: Vec<crate::model::resources::FileClaim>,
    /// The file's text as read, to skip writing when nothing changed.
    pub text: Option<String>,
}

const USER_HEADER: &str =
    "# Entries dotpack wrote into user-scope host files. Generated; do not edit.\n";

#[derive(Deserialize, Serialize, Default)]
#[serde(deny_unknown_fields)]
struct UserFile {
    #[serde(default)]
    claim: Vec<Claim>,
    #[serde(default)]
    file: Vec<crate::model::resources::FileClaim>,
}

impl UserClaims {
    /// Reads the claims file under `dotpack_home`; a missing file holds no claims.
    pub fn load(dotpack_home: &Path) -> Result<UserClaims, Diagnostics> {
        let path = dotpack_home.join("claims.toml");
        // The user's own file: links are followed, but a FIFO or device is never read.
        let text =
            match crate::util::fence::read_text(&path, None, crate::util::fence::USER_FILE_CAP) {
                Ok(Some(text)) => text,
                Ok(None) => {
                    return Ok(UserClaims {
                        path,
                        claims: Vec::new(),
                        files: Vec::new(),
                        text: None,
                    });
                }
                Err(e) => {
                    return Err(Diagnostics(vec![Diagnostic::error(
                        "claims-read",
                        &path,
                        e.to_string(),
                    )]));
                }
            };
        Self::from_text(path, text)
    }

    /// The claims file at `path` whose text is `text` (as [`UserClaims::load`] reads it, or as
    /// a generation recorded it).
    pub fn from_text(path: PathBuf, text: String) -> Result<UserClaims, Diagnostics> {
        if let Some((claims, files)) = read_canonical(&text) {
            return Ok(UserClaims {
                path,
                claims,
                files,
                text: Some(text),
            });
        }
        match toml::from_str::<UserFile>(&text) {
            Ok(mut file) => {
                file.claim.iter_mut().for_each(Claim::migrate);
                Ok(UserClaims {
                    path,
                    claims: file.claim,
                    files: file.file,
                    text: Some(text),
                })
            }
            Err(e) => {
                let diag = Diagnostic::error(
                    "claims-corrupt",
                    &path,
                    format!("the claims file is corrupt: {}", e.message().trim()),
                )
                .at(&text, e.span())
                .help("restore it from a backup, or delete it: dotpack then treats its user-scope entries as unclaimed (`dotpack adopt NAME` takes them back)");
                Err(Diagnostics(vec![diag]))
            }
        }
    }

    /// The canonical text for `claims`.
    pub fn render(claims: &[Claim], files: &[crate::model::resources::FileClaim]) -> String {
        let mut out = String::from(USER_HEADER);
        // Before the claims, as in dotpack.lock: the fast reader takes the rest as claims.
        out.push_str(&crate::model::resources::emit_claims(files));
        out.push_str(&emit(claims));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn claim(server: &str) -> Claim {
        Claim {
            file: ".mcp.json".into(),
            host: "claude-code".into(),
            scope: "project".into(),
            key: format!("mcpServers.{server}"),
            server: server.into(),
            package: server.into(),
            version: Version::new(1, 0, 0),
            entry: entry_hash(&json!({"command": "x"})),
            inputs: String::new(),
            dropped: vec![],
            created: Created {
                container_levels: 1,
                ..Created::default()
            },
            created_file: false,
            created_dirs: 0,
            owners: vec![],
            resolved_env: Vec::new(),
            adopted: false,
            project: None,
        }
    }

    #[test]
    fn hash_ignores_key_order_but_not_values() {
        let a = json!({"command": "npx", "args": ["-y", "x"]});
        let b = json!({"args": ["-y", "x"], "command": "npx"});
        let c = json!({"args": ["x", "-y"], "command": "npx"});
        assert_eq!(entry_hash(&a), entry_hash(&b));
        assert_ne!(entry_hash(&a), entry_hash(&c));
        assert!(entry_hash(&a).starts_with("sha256:"));
    }

    #[test]
    fn emit_then_parse_round_trips_sorted() {
        let text = emit(&[claim("zeta"), claim("alpha")]);
        assert!(text.find("alpha").unwrap() < text.find("zeta").unwrap());
        let file: UserFile = toml::from_str(&text).unwrap();
        assert_eq!(file.claim, vec![claim("alpha"), claim("zeta")]);
    }

    #[test]
    fn odd_strings_survive_emit_and_parse() {
        let mut odd = claim("alpha");
        odd.file = "C:\\Users\\me\\\"x\"\n\t\u{1}ü.json".into();
        odd.created.file_content = Some("// c\r\n".into());
        let file: UserFile = toml::from_str(&emit(std::slice::from_ref(&odd))).unwrap();
        assert_eq!(file.claim, vec![odd]);
    }

    #[test]
    fn owners_round_trip_and_a_legacy_project_becomes_an_owner() {
        let mut shared = claim("time");
        shared.scope = "user".into();
        shared.owners = vec!["/b".into(), "/a".into()];
        let file: UserFile = toml::from_str(&emit(std::slice::from_ref(&shared))).unwrap();
        assert_eq!(file.claim[0].owners, ["/a", "/b"]);
        assert!(shared.is_owned_by("/a") && !shared.is_owned_by("/c"));
        assert_eq!(shared.other_owners("/a"), ["/b"]);
        let legacy = emit(&[claim("time")]).replace("[[claim]]\n", "[[claim]]\nproject = \"/p\"\n");
        let table =
            toml::de::DeTable::parse(legacy.trim_start().trim_start_matches("[[claim]]")).unwrap();
        let span = table.span();
        let table = toml::Spanned::new(span, toml::de::DeValue::Table(table.into_inner()));
        let parsed = from_toml(table).unwrap();
        assert_eq!(parsed.owners, ["/p"]);
        assert_eq!(parsed.project, None);
    }

    #[test]
    fn corrupt_user_claims_name_the_file() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("claims.toml"), "[[claim]]\nfile = 3\n").unwrap();
        let err = UserClaims::load(dir.path()).err().unwrap();
        assert!(err.to_string().contains("claims.toml:2"), "{err}");
    }
}
