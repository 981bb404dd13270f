//! Reading `dotpack.lock` back, checking every field, in one pass that keeps positions.
//!
//! The TOML parser reads the text once into values that carry their byte spans
//! ([`toml::de::DeTable`]); every check runs on those values, and the `[[claim]]` and `[[file]]`
//! tables deserialize straight from them, so a lock edited into nonsense fails with the line and
//! column of each problem and the one fix that always works: regenerate it. The claims of a lock
//! exactly as dotpack writes them, most of a large lock, are read by `claims::read_emitted`,
//! which gives up on anything else; the rest of such a lock goes through the same reader.
//! Top-level keys are dispatched in [`Reader::top_level`]; a new table is one more arm there.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;
use std::path::Path;

use semver::Version;
use serde::Deserialize;
use toml::Spanned;
use toml::de::{DeTable, DeValue, ValueDeserializer};

use super::{LOCK_VERSION, LockedPackage, Lockfile, ToolPin};
use crate::model::claims::Claim;
use crate::ui::diag::{Diagnostic, Diagnostics};

const REGENERATE: &str = "regenerate it with `dotpack lock`";

type Value<'i> = Spanned<DeValue<'i>>;

/// Parses the text of a lockfile read from `path` (used only in messages).
pub fn parse(path: &Path, text: &str) -> Result<Lockfile, Diagnostics> {
    // A lock as dotpack writes it: its claims without the TOML parser, the rest with it. A head
    // that is no TOML on its own (a string running into the claims) or that spells `claim` too
    // is read whole instead, so the text means what TOML says.
    if let Some((head, claims)) = crate::model::claims::split_emitted(text)
        && let Some(claims) = crate::model::claims::read_emitted(claims)
        && let Ok(root) = DeTable::parse(head)
        && !root.get_ref().contains_key("claim")
    {
        let mut reader = Reader::new(path, text);
        let lock = reader.top_level(root.into_inner(), Some(claims));
        return reader.finish(lock);
    }
    let mut reader = Reader::new(path, text);
    let lock = match DeTable::parse(text) {
        Ok(root) => reader.top_level(root.into_inner(), None),
        Err(e) => {
            reader.error(
                "lock-syntax",
                e.span(),
                format!("dotpack.lock is not valid TOML: {}", e.message().trim()),
            );
            None
        }
    };
    reader.finish(lock)
}

struct Reader<'a> {
    path: &'a Path,
    text: &'a str,
    diags: Vec<Diagnostic>,
    /// Where the `dependencies` of each package's first table are, for the closure check.
    dependency_spans: BTreeMap<String, Range<usize>>,
}

impl<'a> Reader<'a> {
    fn new(path: &'a Path, text: &'a str) -> Self {
        Reader {
            path,
            text,
            diags: Vec::new(),
            dependency_spans: BTreeMap::new(),
        }
    }

    /// The lock when nothing was reported; every problem, in the order of the text, otherwise.
    fn finish(mut self, lock: Option<Lockfile>) -> Result<Lockfile, Diagnostics> {
        match lock {
            Some(lock) if self.diags.is_empty() => Ok(lock),
            _ => {
                self.diags
                    .sort_by_key(|d| d.span.as_ref().map_or(usize::MAX, |s| s.start));
                Err(Diagnostics(self.diags))
            }
        }
    }

    fn error(
        &mut self,
        code: &'static str,
        span: Option<Range<usize>>,
        message: impl Into<String>,
    ) {
        self.error_with_help(code, span, message, REGENERATE);
    }

    fn error_with_help(
        &mut self,
        code: &'static str,
        span: Option<Range<usize>>,
        message: impl Into<String>,
        help: &str,
    ) {
        let diag = Diagnostic::error(code, self.path, message)
            .at(self.text, span)
            .help(help);
        self.diags.push(diag);
    }

    /// `emitted`: the claims, when they were read apart from `root`.
    fn top_level(&mut self, root: DeTable<'_>, emitted: Option<Vec<Claim>>) -> Option<Lockfile> {
        let mut version = None;
        let mut requirements = BTreeMap::new();
        let mut packages = Vec::new();
        let mut claims = emitted.unwrap_or_default();
        let mut files = Vec::new();
        let mut tools = BTreeMap::new();
        for (key, item) in root {
            match &**key.get_ref() {
                "version" => version = self.version(&item),
                "manifest" => requirements = self.manifest(&item),
                "package" => packages = self.packages(&item),
                "claim" => claims = self.claims(item),
                "file" => files = self.files(item),
                "tools" => tools = self.tools(&item),
                other => self.error(
                    "lock-unknown-key",
                    Some(key.span()),
                    format!("unknown key `{other}` in dotpack.lock"),
                ),
            }
        }
        if version.is_none() && !self.diags.iter().any(|d| d.code == "lock-version") {
            self.error("lock-version", Some(0..0), "dotpack.lock has no `version`");
        }
        self.check_dependencies(&packages);
        Some(Lockfile {
            version: version?,
            requirements,
            packages,
            claims,
            files,
            tools,
        })
    }

    /// The tables of an array of tables (`[[NAME]]`); `None` after reporting anything else.
    fn tables<'v, 'i>(&mut self, item: &'v Value<'i>, name: &str) -> Option<&'v [Value<'i>]> {
        match item.get_ref().as_array() {
            Some(array) if array.iter().all(|t| t.get_ref().is_table()) => Some(array),
            _ => {
                let code = if name == "file" {
                    "lock-file"
                } else {
                    "lock-field"
                };
                self.error(
                    code,
                    Some(item.span()),
                    format!("`{name}` must be written as [[{name}]] tables"),
                );
                None
            }
        }
    }

    /// `[[file]]` tables: the resource files dotpack wrote.
    fn files(&mut self, item: Value<'_>) -> Vec<crate::model::resources::FileClaim> {
        if self.tables(&item, "file").is_none() {
            return Vec::new();
        }
        let DeValue::Array(array) = item.into_inner() else {
            return Vec::new();
        };
        let mut files = Vec::new();
        for table in array {
            let span = table.span();
            match crate::model::resources::FileClaim::deserialize(ValueDeserializer::from(table)) {
                Ok(claim) => files.push(claim),
                Err(e) => self.error_with_help(
                    "lock-file",
                    Some(span),
                    format!("a [[file]] entry is invalid: {}", e.message()),
                    "restore dotpack.lock from version control; deleting the entry makes dotpack treat the file as not its own",
                ),
            }
        }
        files
    }

    /// `[tools.SERVER]` tables of `TOOL = { tool = "sha256:…", description = "sha256:…" }` pins.
    fn tools(&mut self, item: &Value<'_>) -> BTreeMap<String, BTreeMap<String, ToolPin>> {
        let mut out = BTreeMap::new();
        let Some(servers) = item.get_ref().as_table() else {
            self.error(
                "lock-field",
                Some(item.span()),
                "`tools` must be written as [tools.SERVER] tables",
            );
            return out;
        };
        for (server, tools) in servers.iter() {
            let server = server.get_ref();
            let Some(tools) = tools.get_ref().as_table() else {
                self.error(
                    "lock-field",
                    Some(tools.span()),
                    format!("`tools.{server}` must be a table of tool pins"),
                );
                continue;
            };
            let mut pins = BTreeMap::new();
            for (tool, pin) in tools.iter() {
                let tool = tool.get_ref();
                let field = |key: &str| {
                    pin.get_ref()
                        .as_table()
                        .and_then(|t| t.get(key))
                        .and_then(|v| v.get_ref().as_str())
                        .filter(|s| is_sha256(s))
                        .map(str::to_string)
                };
                let only_known = pin.get_ref().as_table().is_some_and(|t| {
                    t.iter()
                        .all(|(k, _)| matches!(&**k.get_ref(), "tool" | "description"))
                });
                match (field("tool"), field("description")) {
                    (Some(tool_pin), Some(description)) if only_known => {
                        pins.insert(
                            tool.to_string(),
                            ToolPin {
                                tool: tool_pin,
                                description,
                            },
                        );
                    }
                    _ => self.error_with_help(
                        "lock-tool-pin",
                        Some(pin.span()),
                        format!("the pin of tool `{tool}` of server `{server}` must be {{ tool = \"sha256:…\", description = \"sha256:…\" }}"),
                        "run `dotpack verify --update` to pin the server's tools again",
                    ),
                }
            }
            out.insert(server.to_string(), pins);
        }
        out
    }

    fn version(&mut self, item: &Value<'_>) -> Option<u32> {
        let Some(v) = item.get_ref().as_integer() else {
            self.error(
                "lock-version",
                Some(item.span()),
                "`version` must be an integer",
            );
            return None;
        };
        let parsed = i64::from_str_radix(v.as_str(), v.radix()).ok();
        match parsed.map(u32::try_from) {
            Some(Ok(v)) if (1..=LOCK_VERSION).contains(&v) => Some(v),
            Some(Ok(v)) if v > LOCK_VERSION => {
                self.error_with_help(
                    "lock-version",
                    Some(item.span()),
                    format!("dotpack.lock has format version {v}, but this dotpack reads up to version {LOCK_VERSION}"),
                    "upgrade dotpack, or regenerate the lock with this version by running `dotpack lock`",
                );
                None
            }
            _ => {
                let shown = parsed.map_or_else(|| v.to_string(), |v| v.to_string());
                self.error(
                    "lock-version",
                    Some(item.span()),
                    format!("`version = {shown}` is not a lock format version"),
                );
                None
            }
        }
    }

    fn manifest(&mut self, item: &Value<'_>) -> BTreeMap<String, String> {
        let Some(table) = item.get_ref().as_table() else {
            self.error(
                "lock-field",
                Some(item.span()),
                "`manifest` must be a table of requirements",
            );
            return BTreeMap::new();
        };
        let mut requirements = BTreeMap::new();
        for (name, value) in table.iter() {
            let name = name.get_ref();
            match value.get_ref().as_str() {
                Some(req) if semver::VersionReq::parse(req).is_ok() => {
                    requirements.insert(name.to_string(), req.to_string());
                }
                _ => self.error(
                    "lock-field",
                    Some(value.span()),
                    format!(
                        "`manifest.{name}` must be a version requirement string such as \"^1.2\""
                    ),
                ),
            }
        }
        requirements
    }

    fn packages(&mut self, item: &Value<'_>) -> Vec<LockedPackage> {
        let Some(tables) = self.tables(item, "package") else {
            return Vec::new();
        };
        let mut seen = BTreeSet::new();
        let mut packages = Vec::new();
        for table in tables {
            let (span, Some(fields)) = (table.span(), table.get_ref().as_table()) else {
                continue;
            };
            let Some(package) = self.package(fields, span) else {
                continue;
            };
            if !seen.insert(package.name.clone()) {
                let span = fields.get("name").map(Spanned::span);
                self.error(
                    "lock-duplicate",
                    span,
                    format!("package `{}` is listed twice", package.name),
                );
                continue;
            }
            if let Some(deps) = fields.get("dependencies") {
                self.dependency_spans
                    .insert(package.name.clone(), deps.span());
            }
            packages.push(package);
        }
        packages
    }

    fn claims(&mut self, item: Value<'_>) -> Vec<Claim> {
        if self.tables(&item, "claim").is_none() {
            return Vec::new();
        }
        let DeValue::Array(array) = item.into_inner() else {
            return Vec::new();
        };
        let mut claims = Vec::new();
        for table in array {
            let span = table.span();
            match crate::model::claims::from_toml(table) {
                Ok(claim) => claims.push(claim),
                Err(reason) => self.error_with_help(
                    "lock-claim",
                    Some(span),
                    format!("a [[claim]] entry is invalid: {reason}"),
                    "restore dotpack.lock from version control; deleting the claim makes dotpack treat the entry as unclaimed (`dotpack adopt NAME` takes it back)",
                ),
            }
        }
        claims
    }

    /// One `[[package]]` table, whose header is at `span`.
    fn package(&mut self, table: &DeTable<'_>, span: Range<usize>) -> Option<LockedPackage> {
        for (key, _) in table.iter() {
            if !PACKAGE_KEYS.contains(&&**key.get_ref()) {
                self.error(
                    "lock-unknown-key",
                    Some(key.span()),
                    format!("unknown key `{}` in [[package]]", key.get_ref()),
                );
            }
        }
        let name = self.string(table, &span, "name");
        let version = self.semver(table, &span);
        let source = self.string(table, &span, "source");
        let checksum = self.checksum(table, &span);
        let dependencies = self.strings(table, "dependencies");
        let servers = self.strings(table, "servers");
        let resources = self.strings(table, "resources");
        Some(LockedPackage {
            name: name?,
            version: version?,
            source: source?,
            checksum: checksum?,
            dependencies: dependencies?,
            servers: servers?,
            resources: resources?,
        })
    }

    /// A required string field of the table at `span`; `None` after reporting when missing or
    /// not a string.
    fn string(&mut self, table: &DeTable<'_>, span: &Range<usize>, key: &str) -> Option<String> {
        match table.get(key) {
            Some(item) => match item.get_ref().as_str() {
                Some(s) => Some(s.to_string()),
                None => {
                    self.error(
                        "lock-field",
                        Some(item.span()),
                        format!("`{key}` must be a string"),
                    );
                    None
                }
            },
            None => {
                self.error(
                    "lock-field",
                    Some(span.clone()),
                    format!("[[package]] is missing `{key}`"),
                );
                None
            }
        }
    }

    fn semver(&mut self, table: &DeTable<'_>, span: &Range<usize>) -> Option<Version> {
        let text = self.string(table, span, "version")?;
        match Version::parse(&text) {
            Ok(v) => Some(v),
            Err(e) => {
                let span = table.get("version").map(Spanned::span);
                self.error(
                    "lock-field",
                    span,
                    format!("`version = \"{text}\"` is not a semver version: {e}"),
                );
                None
            }
        }
    }

    fn checksum(&mut self, table: &DeTable<'_>, span: &Range<usize>) -> Option<String> {
        let text = self.string(table, span, "checksum")?;
        if is_sha256(&text) {
            return Some(text);
        }
        let span = table.get("checksum").map(Spanned::span);
        self.error(
            "lock-checksum",
            span,
            "`checksum` must be \"sha256:\" followed by 64 lowercase hex digits",
        );
        None
    }

    /// An optional array of strings; absent means empty.
    fn strings(&mut self, table: &DeTable<'_>, key: &str) -> Option<Vec<String>> {
        let Some(item) = table.get(key) else {
            return Some(Vec::new());
        };
        let values: Option<Vec<String>> = item.get_ref().as_array().and_then(|a| {
            a.iter()
                .map(|v| v.get_ref().as_str().map(str::to_string))
                .collect()
        });
        if values.is_none() {
            self.error(
                "lock-field",
                Some(item.span()),
                format!("`{key}` must be an array of strings"),
            );
        }
        values
    }

    /// Every dependency must name a package of the lock; otherwise the lock is not a closure.
    fn check_dependencies(&mut self, packages: &[LockedPackage]) {
        let names: BTreeSet<&str> = packages.iter().map(|p| p.name.as_str()).collect();
        for package in packages {
            for dep in package
                .dependencies
                .iter()
                .filter(|d| !names.contains(d.as_str()))
            {
                let span = self.dependency_spans.get(&package.name).cloned();
                self.error(
                    "lock-dangling",
                    span,
                    format!(
                        "package `{}` depends on `{dep}`, which is not in the lock",
                        package.name
                    ),
                );
            }
        }
    }
}

const PACKAGE_KEYS: &[&str] = &[
    "name",
    "version",
    "source",
    "checksum",
    "dependencies",
    "servers",
    "resources",
];

fn is_sha256(text: &str) -> bool {
    text.strip_prefix("sha256:").is_some_and(|hex| {
        hex.len() == 64
            && hex
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    })
}
