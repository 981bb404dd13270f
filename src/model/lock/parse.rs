//! Reading `dotpack.lock` back, checking every field.
//!
//! A lock edited into nonsense must fail with the line and column of the problem and the one fix
//! that always works: regenerate it. Top-level keys are dispatched in [`Reader::top_level`];
//! a new table (such as the `[[claim]]` entries a later version records) is one more arm there.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;
use std::path::Path;

use semver::Version;
use toml_edit::{Document, Item, Table};

use super::{LOCK_VERSION, LockedPackage, Lockfile, ToolPin};
use crate::claims::Claim;
use crate::diag::{Diagnostic, Diagnostics};

const REGENERATE: &str = "regenerate it with `dotpack lock`";

/// Parses the text of a lockfile read from `path` (used only in messages).
///
/// A valid lock is read on a fast path (plain deserialization, then the same checks without
/// spans); only a lock with a problem goes through the spanned reader that points at it.
pub fn parse(path: &Path, text: &str) -> Result<Lockfile, Diagnostics> {
    match fast::parse(text) {
        Some(lock) => Ok(lock),
        None => parse_spanned(path, text),
    }
}

/// The spanned reader alone: every check, each failure placed at its line.
pub(super) fn parse_spanned(path: &Path, text: &str) -> Result<Lockfile, Diagnostics> {
    let mut reader = Reader {
        path,
        text,
        diags: Vec::new(),
    };
    let lock = match Document::parse(text.to_string()) {
        Ok(doc) => reader.top_level(doc.as_table()),
        Err(e) => {
            reader.error(
                "lock-syntax",
                e.span(),
                format!("dotpack.lock is not valid TOML: {}", e.message().trim()),
            );
            None
        }
    };
    match lock {
        Some(lock) if reader.diags.is_empty() => Ok(lock),
        _ => Err(Diagnostics(reader.diags)),
    }
}

struct Reader<'a> {
    path: &'a Path,
    text: &'a str,
    diags: Vec<Diagnostic>,
}

impl Reader<'_> {
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

    fn top_level(&mut self, root: &Table) -> Option<Lockfile> {
        let mut version = None;
        let mut requirements = BTreeMap::new();
        let mut packages = Vec::new();
        let mut claims = Vec::new();
        let mut files = Vec::new();
        let mut tools = BTreeMap::new();
        for (key, item) in root.iter() {
            match key {
                "version" => version = self.version(item),
                "manifest" => requirements = self.manifest(item),
                "package" => packages = self.packages(item),
                "claim" => claims = self.claims(item),
                "file" => files = self.files(item),
                "tools" => tools = self.tools(item),
                other => {
                    let span = root.key(other).and_then(|k| k.span());
                    self.error(
                        "lock-unknown-key",
                        span,
                        format!("unknown key `{other}` in dotpack.lock"),
                    );
                }
            }
        }
        if version.is_none() && !self.diags.iter().any(|d| d.code == "lock-version") {
            self.error("lock-version", Some(0..0), "dotpack.lock has no `version`");
        }
        self.check_dependencies(root, &packages);
        Some(Lockfile {
            version: version?,
            requirements,
            packages,
            claims,
            files,
            tools,
        })
    }

    /// `[[file]]` tables: the resource files dotpack wrote.
    fn files(&mut self, item: &Item) -> Vec<crate::resources::FileClaim> {
        let Some(array) = item.as_array_of_tables() else {
            self.error(
                "lock-file",
                item.span(),
                "`file` must be written as [[file]] tables",
            );
            return Vec::new();
        };
        let mut files = Vec::new();
        for table in array.iter() {
            let mut doc = toml_edit::DocumentMut::new();
            for (k, v) in table.iter() {
                doc.insert(k, v.clone());
            }
            match crate::resources::parse_claim(&doc.to_string()) {
                Ok(claim) => files.push(claim),
                Err(reason) => self.error_with_help(
                    "lock-file",
                    table.span(),
                    format!("a [[file]] entry is invalid: {reason}"),
                    "restore dotpack.lock from version control; deleting the entry makes dotpack treat the file as not its own",
                ),
            }
        }
        files
    }

    /// `[tools.SERVER]` tables of `TOOL = { tool = "sha256:…", description = "sha256:…" }` pins.
    fn tools(&mut self, item: &Item) -> BTreeMap<String, BTreeMap<String, ToolPin>> {
        let mut out = BTreeMap::new();
        let Some(servers) = item.as_table_like() else {
            self.error(
                "lock-field",
                item.span(),
                "`tools` must be written as [tools.SERVER] tables",
            );
            return out;
        };
        for (server, tools) in servers.iter() {
            let Some(tools) = tools.as_table_like() else {
                self.error(
                    "lock-field",
                    tools.span(),
                    format!("`tools.{server}` must be a table of tool pins"),
                );
                continue;
            };
            let mut pins = BTreeMap::new();
            for (tool, pin) in tools.iter() {
                let field = |key: &str| {
                    pin.as_table_like()
                        .and_then(|t| t.get(key))
                        .and_then(Item::as_str)
                        .filter(|s| is_sha256(s))
                        .map(str::to_string)
                };
                let only_known = pin
                    .as_table_like()
                    .is_some_and(|t| t.iter().all(|(k, _)| k == "tool" || k == "description"));
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
                        pin.span(),
                        format!("the pin of tool `{tool}` of server `{server}` must be {{ tool = \"sha256:…\", description = \"sha256:…\" }}"),
                        "run `dotpack verify --update` to pin the server's tools again",
                    ),
                }
            }
            out.insert(server.to_string(), pins);
        }
        out
    }

    fn version(&mut self, item: &Item) -> Option<u32> {
        let Some(v) = item.as_integer() else {
            self.error("lock-version", item.span(), "`version` must be an integer");
            return None;
        };
        match u32::try_from(v) {
            Ok(v) if (1..=LOCK_VERSION).contains(&v) => Some(v),
            Ok(v) if v > LOCK_VERSION => {
                self.error_with_help(
                    "lock-version",
                    item.span(),
                    format!("dotpack.lock has format version {v}, but this dotpack reads up to version {LOCK_VERSION}"),
                    "upgrade dotpack, or regenerate the lock with this version by running `dotpack lock`",
                );
                None
            }
            _ => {
                self.error(
                    "lock-version",
                    item.span(),
                    format!("`version = {v}` is not a lock format version"),
                );
                None
            }
        }
    }

    fn manifest(&mut self, item: &Item) -> BTreeMap<String, String> {
        let Some(table) = item.as_table_like() else {
            self.error(
                "lock-field",
                item.span(),
                "`manifest` must be a table of requirements",
            );
            return BTreeMap::new();
        };
        let mut requirements = BTreeMap::new();
        for (name, value) in table.iter() {
            match value.as_str() {
                Some(req) if semver::VersionReq::parse(req).is_ok() => {
                    requirements.insert(name.to_string(), req.to_string());
                }
                _ => self.error(
                    "lock-field",
                    value.span(),
                    format!(
                        "`manifest.{name}` must be a version requirement string such as \"^1.2\""
                    ),
                ),
            }
        }
        requirements
    }

    fn packages(&mut self, item: &Item) -> Vec<LockedPackage> {
        let Some(array) = item.as_array_of_tables() else {
            self.error(
                "lock-field",
                item.span(),
                "`package` must be written as [[package]] tables",
            );
            return Vec::new();
        };
        let mut seen = BTreeSet::new();
        let mut packages = Vec::new();
        for table in array.iter() {
            let Some(package) = self.package(table) else {
                continue;
            };
            if !seen.insert(package.name.clone()) {
                let span = table.get("name").and_then(Item::span);
                self.error(
                    "lock-duplicate",
                    span,
                    format!("package `{}` is listed twice", package.name),
                );
                continue;
            }
            packages.push(package);
        }
        packages
    }

    fn claims(&mut self, item: &Item) -> Vec<Claim> {
        let Some(array) = item.as_array_of_tables() else {
            self.error(
                "lock-field",
                item.span(),
                "`claim` must be written as [[claim]] tables",
            );
            return Vec::new();
        };
        let mut claims = Vec::new();
        for table in array.iter() {
            let mut doc = toml_edit::DocumentMut::new();
            for (k, v) in table.iter() {
                doc.insert(k, v.clone());
            }
            match crate::claims::parse_one(&doc.to_string()) {
                Ok(claim) => claims.push(claim),
                Err(reason) => self.error_with_help(
                    "lock-claim",
                    table.span(),
                    format!("a [[claim]] entry is invalid: {reason}"),
                    "restore dotpack.lock from version control; deleting the claim makes dotpack treat the entry as unclaimed (`dotpack adopt NAME` takes it back)",
                ),
            }
        }
        claims
    }

    fn package(&mut self, table: &Table) -> Option<LockedPackage> {
        for (key, _) in table.iter() {
            if !PACKAGE_KEYS.contains(&key) {
                let span = table.key(key).and_then(|k| k.span());
                self.error(
                    "lock-unknown-key",
                    span,
                    format!("unknown key `{key}` in [[package]]"),
                );
            }
        }
        let name = self.string(table, "name");
        let version = self.semver(table);
        let source = self.string(table, "source");
        let checksum = self.checksum(table);
        let dependencies = self.strings(table, "dependencies");
        let servers = self.strings(table, "servers");
        let resources = match table.get("resources") {
            Some(_) => self.strings(table, "resources"),
            None => Some(Vec::new()),
        };
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

    /// A required string field; `None` after reporting when missing or not a string.
    fn string(&mut self, table: &Table, key: &str) -> Option<String> {
        match table.get(key) {
            Some(item) => match item.as_str() {
                Some(s) => Some(s.to_string()),
                None => {
                    self.error(
                        "lock-field",
                        item.span(),
                        format!("`{key}` must be a string"),
                    );
                    None
                }
            },
            None => {
                self.error(
                    "lock-field",
                    table.span(),
                    format!("[[package]] is missing `{key}`"),
                );
                None
            }
        }
    }

    fn semver(&mut self, table: &Table) -> Option<Version> {
        let text = self.string(table, "version")?;
        match Version::parse(&text) {
            Ok(v) => Some(v),
            Err(e) => {
                let span = table.get("version").and_then(Item::span);
                self.error(
                    "lock-field",
                    span,
                    format!("`version = \"{text}\"` is not a semver version: {e}"),
                );
                None
            }
        }
    }

    fn checksum(&mut self, table: &Table) -> Option<String> {
        let text = self.string(table, "checksum")?;
        if is_sha256(&text) {
            return Some(text);
        }
        let span = table.get("checksum").and_then(Item::span);
        self.error(
            "lock-checksum",
            span,
            "`checksum` must be \"sha256:\" followed by 64 lowercase hex digits",
        );
        None
    }

    /// An optional array of strings; absent means empty.
    fn strings(&mut self, table: &Table, key: &str) -> Option<Vec<String>> {
        let Some(item) = table.get(key) else {
            return Some(Vec::new());
        };
        let values: Option<Vec<String>> = item
            .as_array()
            .and_then(|a| a.iter().map(|v| v.as_str().map(str::to_string)).collect());
        if values.is_none() {
            self.error(
                "lock-field",
                item.span(),
                format!("`{key}` must be an array of strings"),
            );
        }
        values
    }

    /// Every dependency must name a package of the lock; otherwise the lock is not a closure.
    fn check_dependencies(&mut self, root: &Table, packages: &[LockedPackage]) {
        let names: BTreeSet<&str> = packages.iter().map(|p| p.name.as_str()).collect();
        let tables: Vec<&Table> = root
            .get("package")
            .and_then(Item::as_array_of_tables)
            .map(|a| a.iter().collect())
            .unwrap_or_default();
        for package in packages {
            for dep in package
                .dependencies
                .iter()
                .filter(|d| !names.contains(d.as_str()))
            {
                let span = tables
                    .iter()
                    .find(|t| t.get("name").and_then(Item::as_str) == Some(package.name.as_str()))
                    .and_then(|t| t.get("dependencies"))
                    .and_then(Item::span);
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

/// The fast path: a lock that deserializes and passes every check. Anything else returns `None`
/// and is read again by [`Reader`], which finds and places the problem.
mod fast {
    use std::collections::{BTreeMap, BTreeSet};

    use semver::Version;
    use serde::Deserialize;

    use super::{LOCK_VERSION, LockedPackage, Lockfile, ToolPin, is_sha256};
    use crate::claims::Claim;

    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct RawLock {
        version: u32,
        #[serde(default)]
        manifest: BTreeMap<String, String>,
        #[serde(default)]
        package: Vec<RawPackage>,
        #[serde(default)]
        claim: Vec<Claim>,
        #[serde(default)]
        file: Vec<crate::resources::FileClaim>,
        #[serde(default)]
        tools: BTreeMap<String, BTreeMap<String, ToolPin>>,
    }

    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct RawPackage {
        name: String,
        version: Version,
        source: String,
        checksum: String,
        #[serde(default)]
        dependencies: Vec<String>,
        #[serde(default)]
        servers: Vec<String>,
        #[serde(default)]
        resources: Vec<String>,
    }

    /// Everything before the claims, read by the TOML parser.
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct RawHead {
        version: u32,
        #[serde(default)]
        manifest: BTreeMap<String, String>,
        #[serde(default)]
        package: Vec<RawPackage>,
        #[serde(default)]
        file: Vec<crate::resources::FileClaim>,
        #[serde(default)]
        tools: BTreeMap<String, BTreeMap<String, ToolPin>>,
    }

    /// A lock as dotpack writes it: the claims (most of a large lock) read without the TOML
    /// parser (see `claims::read_emitted`), the rest with it.
    fn canonical(text: &str) -> Option<RawLock> {
        let (head, claims) = crate::claims::split_emitted(text)?;
        let head: RawHead = toml::from_str(head).ok()?;
        Some(RawLock {
            version: head.version,
            manifest: head.manifest,
            package: head.package,
            tools: head.tools,
            file: head.file,
            claim: crate::claims::read_emitted(claims)?,
        })
    }

    pub(super) fn parse(text: &str) -> Option<Lockfile> {
        let raw: RawLock = canonical(text).or_else(|| toml::from_str(text).ok())?;
        if !(1..=LOCK_VERSION).contains(&raw.version)
            || raw
                .manifest
                .values()
                .any(|req| semver::VersionReq::parse(req).is_err())
            || raw.package.iter().any(|p| !is_sha256(&p.checksum))
            || raw
                .tools
                .values()
                .flat_map(|t| t.values())
                .any(|p: &ToolPin| !is_sha256(&p.tool) || !is_sha256(&p.description))
        {
            return None;
        }
        let names: BTreeSet<&str> = raw.package.iter().map(|p| p.name.as_str()).collect();
        if names.len() != raw.package.len()
            || raw
                .package
                .iter()
                .flat_map(|p| &p.dependencies)
                .any(|d| !names.contains(d.as_str()))
        {
            return None;
        }
        let packages = raw
            .package
            .into_iter()
            .map(|p| LockedPackage {
                name: p.name,
                version: p.version,
                source: p.source,
                checksum: p.checksum,
                dependencies: p.dependencies,
                servers: p.servers,
                resources: p.resources,
            })
            .collect();
        Some(Lockfile {
            version: raw.version,
            requirements: raw.manifest,
            packages,
            claims: raw.claim,
            files: raw.file,
            tools: raw.tools,
        })
    }
}
