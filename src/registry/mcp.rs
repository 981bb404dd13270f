//! The official MCP Registry (and any mirror or subregistry speaking its REST API) as a package
//! source: `[registries] mcp = { url = "https://registry.modelcontextprotocol.io", kind =
//! "mcp-registry" }`.
//!
//! Requests, all through the revalidated cache of [`CachedApi`] (ETag, `--offline`):
//! - `versions(name)`: `GET {api}/servers/{name}/versions`, one request per package;
//! - `archive(line)`: `GET {api}/servers/{name}/versions/{version}`, skipped when the document
//!   with that checksum is already cached (documents are kept by checksum, like archives);
//! - `search(query)`: `GET {api}/servers?search=WORD&version=latest&limit=100` for each word
//!   (at most four, side by side), following `metadata.nextCursor` within a shared page budget;
//! - `names()`: every page of `GET {api}/servers?version=latest&limit=100`.
//! - `suggestion_candidates(name)`: one page of the search for `NAMESPACE/` and the name's next
//!   letter, for "did you mean".
//!
//! `{api}` is the base URL followed by `v0.1/`, the registry's stable API version; a base URL
//! that already ends in `/v0/` or `/v0.1/` is used as it is.
//!
//! The "archive" of a version is its `server.json` document in canonical form (keys sorted,
//! no whitespace), and its checksum the sha256 of those bytes: reformatting a response does not
//! change a pin, changing any value does. The document is mapped by [`super::mcp_map`] and the
//! manifest validated like any package's; a version that cannot be mapped or is not semver is
//! listed by [`IndexSource::refused`] with the reason and never installed.
//!
//! Names: the registry's are case-sensitive (`io.github.GLips/Figma-Context-MCP`), dotpack's are
//! lowercase. Lines are named in lowercase, and the registry is asked with its own spelling: the
//! one the project recorded ([`McpRegistry::remember_spelling`], from a dependency's `package`),
//! else the name as given, else, after a 404, the one its search finds (it matches names
//! case-insensitively). [`IndexSource::registry_name`] says which spelling answered.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use semver::Version;
use serde_json::{Map, Value};

use super::archive::sha256_hex;
use super::http::{CachedApi, Network, cache_dir, normalize_url};
use super::mcp_map::{map_server, semver_of};
use super::{ArchiveKind, Found, IndexLine, IndexSource, Refusal, RegistryError};
use crate::util::error::Error;

/// The lock-file source prefix of MCP registries: `mcp-registry+URL/`.
pub const SOURCE_PREFIX: &str = "mcp-registry+";

/// The official registry's base URL.
pub const OFFICIAL_URL: &str = "https://registry.modelcontextprotocol.io";

/// Servers asked for per page.
const PAGE_LIMIT: usize = 100;
/// Most pages one search follows (so a word that matches everything costs a bounded number of
/// requests).
const MAX_SEARCH_PAGES: usize = 20;
/// Most pages [`IndexSource::names`] follows.
const MAX_LIST_PAGES: usize = 1000;
/// Words of a query each asked for (`search github issues` asks for `github` and `issues`).
const MAX_SEARCH_WORDS: usize = 4;
/// Pages of search results "did you mean" reads: a misspelled name costs one request more.
const SUGGESTION_PAGES: usize = 1;
/// Most pages the search for a name's spelling follows (its last part is a narrow word).
const MAX_SPELLING_PAGES: usize = 3;

/// Where the registry keeps its metadata about a server, in each response's `_meta`.
const OFFICIAL_META: &str = "io.modelcontextprotocol.registry/official";

/// A registry speaking the MCP Registry REST API.
pub struct McpRegistry {
    api: CachedApi,
    source_id: String,
    /// The API's path under the base URL: `v0.1/`, or empty when the base names a version.
    prefix: &'static str,
    /// By dotpack's (lowercase) name.
    known: Mutex<BTreeMap<String, Known>>,
    /// The registry's spellings the project recorded, by dotpack's name.
    spellings: Mutex<BTreeMap<String, String>>,
    /// The words of the last search whose listing stopped at the page budget, with how many
    /// servers were read.
    cut: Mutex<Vec<(String, usize)>>,
}

/// What one `versions` request said about a package.
#[derive(Clone)]
struct Known {
    /// The registry's own spelling of the name, as its documents say it.
    spelling: String,
    lines: Arc<Vec<IndexLine>>,
    refused: Vec<Refusal>,
    /// What the registry says of the versions it marks `deprecated`, by version.
    deprecated: BTreeMap<Version, String>,
    /// The package each version starts when that is not pinned (`NAME@latest`), by version.
    floating: BTreeMap<Version, String>,
    /// The publisher's text of each version that reads as semver only when made whole (`v7.5.0`
    /// is 7.5.0): the registry is asked for it by that text.
    asked_as: BTreeMap<Version, String>,
}

impl McpRegistry {
    /// The registry at `url`, cached in its own folder under `dotpack_home`. Nothing is fetched.
    pub fn open(url: &str, dotpack_home: &Path, network: Network) -> Result<Self, RegistryError> {
        Self::open_with_auth(url, dotpack_home, network, None)
    }

    /// [`McpRegistry::open`] for a private registry (a company's subregistry): `auth` goes to
    /// its own origin only.
    pub fn open_with_auth(
        url: &str,
        dotpack_home: &Path,
        network: Network,
        auth: Option<crate::registry::http::Auth>,
    ) -> Result<Self, RegistryError> {
        let base = normalize_url(url)?;
        let cache = cache_dir(dotpack_home, &format!("{SOURCE_PREFIX}{base}"));
        let prefix = if base.ends_with("/v0/") || base.ends_with("/v0.1/") {
            ""
        } else {
            "v0.1/"
        };
        Ok(McpRegistry {
            api: CachedApi::open(&base, &cache, network, auth)?,
            source_id: format!("{SOURCE_PREFIX}{base}"),
            prefix,
            known: Mutex::new(BTreeMap::new()),
            spellings: Mutex::new(BTreeMap::new()),
            cut: Mutex::new(Vec::new()),
        })
    }

    /// Records that the registry spells the package dotpack calls `name` as `spelling` (a
    /// dependency's `package = "…"`), so it is asked with that spelling in one request. A
    /// spelling that is not `name` in another case is ignored.
    pub fn remember_spelling(&self, name: &str, spelling: &str) {
        if is_registry_name(spelling) && spelling.eq_ignore_ascii_case(name) {
            lock(&self.spellings).insert(name.to_ascii_lowercase(), spelling.to_string());
        }
    }

    /// What `GET servers/{spelling}/versions` says of the package, or `None` for a 404.
    fn versions_as(&self, spelling: &str) -> Result<Option<Known>, RegistryError> {
        let rel = format!("{}servers/{}/versions", self.prefix, encode(spelling));
        let Some(list) = self.fetch_json(&rel, &format!("package `{spelling}`"))? else {
            return Ok(None);
        };
        let mut known = Known {
            spelling: spelling.to_string(),
            lines: Arc::default(),
            refused: Vec::new(),
            deprecated: BTreeMap::new(),
            floating: BTreeMap::new(),
            asked_as: BTreeMap::new(),
        };
        // Each line with the publisher's text of its version when that is not the semver text.
        let mut read: Vec<(IndexLine, Option<String>)> = Vec::new();
        for (doc, meta) in entries(&list).map_err(|e| self.not_an_api(&rel, &e))? {
            let Some(name) = doc
                .get("name")
                .and_then(Value::as_str)
                .filter(|n| n.eq_ignore_ascii_case(spelling))
            else {
                continue; // a response about another server is not about this one
            };
            known.spelling = name.to_string();
            let version = doc
                .get("version")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string();
            match mapped_line(&doc, &meta) {
                Ok((line, floating)) => {
                    if let Some(floating) = floating {
                        known.floating.insert(line.vers.clone(), floating);
                    }
                    if let Status::Deprecated(message) = Status::of(&meta) {
                        known.deprecated.insert(line.vers.clone(), message);
                    }
                    let text = (line.vers.to_string() != version).then_some(version);
                    read.push((line, text));
                }
                Err(reason) => known.refused.push(Refusal { version, reason }),
            }
        }
        // `1.1` beside `1.1.0` would be two documents for one version: the exact one is taken.
        let exact: std::collections::BTreeSet<Version> = read
            .iter()
            .filter(|(_, text)| text.is_none())
            .map(|(line, _)| line.vers.clone())
            .collect();
        let mut lines = Vec::new();
        for (line, text) in read {
            if let Some(text) = text {
                if exact.contains(&line.vers) || known.asked_as.contains_key(&line.vers) {
                    known.refused.push(Refusal {
                        reason: format!(
                            "version `{text}` reads as {}, which the registry lists as well",
                            line.vers
                        ),
                        version: text,
                    });
                    continue;
                }
                known.asked_as.insert(line.vers.clone(), text);
            }
            lines.push(line);
        }
        known.lines = Arc::new(lines);
        Ok(Some(known))
    }

    /// The registry's spelling of `name` when it has the name in another case: its search
    /// matches names case-insensitively, and the name's last part narrows it. `None` when it
    /// finds none or several, or cannot search (a courtesy: the name is then not found).
    fn spelling_by_search(&self, name: &str) -> Option<String> {
        let word = name.split_once('/').map_or(name, |(_, short)| short);
        let query = format!("search={}&version=latest&", encode(word));
        let mut spellings: Vec<String> = self
            .list(&query, MAX_SPELLING_PAGES)
            .ok()?
            .iter()
            .filter_map(|(doc, _)| doc.get("name").and_then(Value::as_str))
            .filter(|n| n.eq_ignore_ascii_case(name))
            .map(str::to_string)
            .collect();
        spellings.sort();
        spellings.dedup();
        match <[String; 1]>::try_from(spellings) {
            Ok([one]) => Some(one),
            Err(_) => None,
        }
    }

    /// The text to ask the registry with for `version` of `name`: the publisher's (`v7.5.0`)
    /// where it is not the semver text.
    fn version_text(&self, name: &str, version: &Version) -> String {
        self.lock_known()
            .get(&name.to_ascii_lowercase())
            .and_then(|known| known.asked_as.get(version).cloned())
            .unwrap_or_else(|| version.to_string())
    }

    /// The spelling to ask the registry with for dotpack's `name`.
    fn spelling_of(&self, name: &str) -> String {
        let key = name.to_ascii_lowercase();
        if let Some(known) = self.lock_known().get(&key) {
            return known.spelling.clone();
        }
        lock(&self.spellings)
            .get(&key)
            .cloned()
            .unwrap_or_else(|| name.to_string())
    }

    fn fetch_json(&self, rel: &str, what: &str) -> Result<Option<Value>, RegistryError> {
        let cache_rel = format!("api/{}", &sha256_hex(rel.as_bytes())[..32]);
        let Some(bytes) = self.api.fetch(rel, &cache_rel, what)? else {
            return Ok(None);
        };
        serde_json::from_slice(&bytes)
            .map(Some)
            .map_err(|e| self.not_an_api(rel, &e.to_string()))
    }

    fn not_an_api(&self, rel: &str, reason: &str) -> RegistryError {
        RegistryError::from(
            Error::new(format!(
                "{}: bad package archive: {reason}",
                self.api.url(rel)
            ))
            .help(format!(
                "this is not an MCP Registry API response; check the registry's `url` (the official one is {OFFICIAL_URL})"
            )),
        )
    }

    /// Every page of `servers?QUERY`, up to `max_pages`, as `(server document, _meta)` pairs.
    /// The registry names of the servers `query` lists (at most `max_pages` pages), sorted, each
    /// once.
    fn listed_names(&self, query: &str, max_pages: usize) -> Result<Vec<String>, RegistryError> {
        let mut names: Vec<String> = self
            .list(query, max_pages)?
            .iter()
            .filter_map(|(doc, _)| doc.get("name").and_then(Value::as_str))
            .filter(|n| is_registry_name(n))
            .map(str::to_string)
            .collect();
        names.sort();
        names.dedup();
        Ok(names)
    }

    fn list(&self, query: &str, max_pages: usize) -> Result<Vec<(Value, Value)>, RegistryError> {
        self.list_counted(query, max_pages)
            .map(|(listed, _)| listed)
    }

    /// [`McpRegistry::list`], and whether the registry had more pages than `max_pages`.
    fn list_counted(
        &self,
        query: &str,
        max_pages: usize,
    ) -> Result<(Vec<(Value, Value)>, bool), RegistryError> {
        let mut out = Vec::new();
        let mut cursor: Option<String> = None;
        for _ in 0..max_pages {
            let mut rel = format!("{}servers?{query}limit={PAGE_LIMIT}", self.prefix);
            if let Some(c) = &cursor {
                rel.push_str(&format!("&cursor={}", encode(c)));
            }
            let Some(page) = self.fetch_json(&rel, "the registry's server list")? else {
                return Err(self.not_an_api(&rel, "the server list is not found (HTTP 404)"));
            };
            out.extend(entries(&page).map_err(|e| self.not_an_api(&rel, &e))?);
            cursor = page
                .pointer("/metadata/nextCursor")
                .and_then(Value::as_str)
                .filter(|c| !c.is_empty())
                .map(str::to_string);
            if cursor.is_none() {
                break;
            }
        }
        Ok((out, cursor.is_some()))
    }

    fn document_cache(&self, cksum: &str) -> Option<PathBuf> {
        let ok = cksum.len() == 64 && cksum.bytes().all(|b| b.is_ascii_hexdigit());
        ok.then(|| {
            self.api
                .dir()
                .join("documents")
                .join(format!("{}.json", cksum.to_ascii_lowercase()))
        })
    }
}

impl IndexSource for McpRegistry {
    fn source_id(&self) -> &str {
        &self.source_id
    }

    fn versions(&self, name: &str) -> Result<Option<Arc<Vec<IndexLine>>>, RegistryError> {
        if !is_registry_name(name) {
            return Ok(None);
        }
        let key = name.to_ascii_lowercase();
        if let Some(known) = self.lock_known().get(&key) {
            return Ok(Some(Arc::clone(&known.lines)));
        }
        let recorded = lock(&self.spellings).get(&key).cloned();
        let asked = recorded.clone().unwrap_or_else(|| name.to_string());
        let mut found = self.versions_as(&asked)?;
        if found.is_none()
            && recorded.is_none()
            && let Some(spelling) = self.spelling_by_search(name)
            && spelling != asked
        {
            found = self.versions_as(&spelling)?;
        }
        let Some(known) = found else {
            return Ok(None);
        };
        let lines = Arc::clone(&known.lines);
        self.lock_known().insert(key, known);
        Ok(Some(lines))
    }

    fn registry_name(&self, name: &str) -> Option<String> {
        self.lock_known()
            .get(&name.to_ascii_lowercase())
            .map(|known| known.spelling.clone())
            .filter(|spelling| spelling != name)
    }

    fn names(&self) -> Result<Vec<String>, RegistryError> {
        self.listed_names("version=latest&", MAX_LIST_PAGES)
    }

    /// One page of the registry's search (a substring of the name) for the name's namespace and
    /// the first letter after it (`io.github.user/w` of `io.github.user/weathr`): one request,
    /// where [`IndexSource::names`] walks every page, and narrow enough that the page holds the
    /// names a typo after that letter comes from.
    fn suggestion_candidates(&self, name: &str) -> Result<Vec<String>, RegistryError> {
        let word = match name.split_once('/') {
            Some((namespace, rest)) => {
                let first: String = rest.chars().take(1).collect();
                format!("{namespace}/{first}")
            }
            None => name.to_string(),
        };
        let query = format!("search={}&version=latest&", encode(&word));
        self.listed_names(&query, SUGGESTION_PAGES)
    }

    fn archive(&self, line: &IndexLine) -> Result<Vec<u8>, RegistryError> {
        let rel = format!(
            "{}servers/{}/versions/{}",
            self.prefix,
            encode(&self.spelling_of(&line.name)),
            encode(&self.version_text(&line.name, &line.vers))
        );
        let url = self.api.url(&rel);
        let cached = self.document_cache(&line.cksum);
        if let Some(path) = &cached
            && let Ok(bytes) = std::fs::read(path)
        {
            if sha256_hex(&bytes).eq_ignore_ascii_case(&line.cksum) {
                return Ok(bytes);
            }
            let _ = std::fs::remove_file(path);
        }
        let what = format!("the server.json of {} {}", line.name, line.vers);
        let Some(response) = self.fetch_json(&rel, &what)? else {
            return Err(RegistryError::MissingArchive {
                name: line.name.clone(),
                version: line.vers.to_string(),
                file: url,
            });
        };
        let doc = response
            .get("server")
            .ok_or_else(|| self.not_an_api(&rel, "the response has no `server`"))?;
        let bytes = canonical(doc);
        let actual = sha256_hex(&bytes);
        if !actual.eq_ignore_ascii_case(&line.cksum) {
            return Err(RegistryError::ChecksumMismatch {
                name: line.name.clone(),
                version: line.vers.to_string(),
                file: url,
                expected: line.cksum.clone(),
                actual,
            });
        }
        if let Some(path) = &cached
            && path
                .parent()
                .is_some_and(|dir| std::fs::create_dir_all(dir).is_ok())
        {
            let _ = crate::util::fsutil::write_atomic(path, &bytes);
        }
        Ok(bytes)
    }

    fn archive_kind(&self) -> ArchiveKind {
        ArchiveKind::ServerJson
    }

    fn refused(&self, name: &str) -> Vec<Refusal> {
        self.lock_known()
            .get(&name.to_ascii_lowercase())
            .map(|k| k.refused.clone())
            .unwrap_or_default()
    }

    fn search_cut(&self) -> Vec<String> {
        lock(&self.cut)
            .iter()
            .map(|(word, read)| match word.is_empty() {
                true => format!(
                    "the registry lists more servers than the {read} dotpack read: search with a word to narrow it"
                ),
                false => format!(
                    "the registry lists more servers matching `{word}` than the {read} dotpack read: add a word or use a longer one to narrow the search"
                ),
            })
            .collect()
    }

    fn deprecation(&self, name: &str, version: &Version) -> Option<String> {
        let known = self.lock_known();
        let message = known
            .get(&name.to_ascii_lowercase())?
            .deprecated
            .get(version)?
            .clone();
        Some(match message.is_empty() {
            true => "the registry marks it deprecated and gives no reason".to_string(),
            false => format!("the registry marks it deprecated: {message}"),
        })
    }

    fn floating(&self, name: &str, version: &Version) -> Option<String> {
        let known = self.lock_known();
        let package = known
            .get(&name.to_ascii_lowercase())?
            .floating
            .get(version)?;
        Some(format!(
            "it starts `{package}`, which is not pinned: dotpack.lock pins the server.json, not the package it starts, so what runs can change without a new version"
        ))
    }

    /// A version the lists no longer show: refused (a mirror that lists deleted versions), else
    /// what `servers/{name}/versions/{version}?include_deleted=true` says of it (the registry
    /// hides deleted versions unless asked), else that the registry no longer has it.
    fn gone(&self, name: &str, version: &Version) -> Option<String> {
        let text = self.version_text(name, version);
        if let Some(refusal) = self.refused(name).into_iter().find(|r| r.version == text) {
            return Some(refusal.reason);
        }
        let rel = format!(
            "{}servers/{}/versions/{}?include_deleted=true",
            self.prefix,
            encode(&self.spelling_of(name)),
            encode(&text)
        );
        match self.fetch_json(&rel, &format!("{name} {text}")) {
            Ok(None) => Some("the registry no longer has it".to_string()),
            Ok(Some(response)) => match Status::of(response.get("_meta").unwrap_or(&Value::Null)) {
                Status::Deleted(message) => Some(deleted_reason(&message)),
                _ => None,
            },
            Err(_) => None,
        }
    }

    fn search(&self, query: &str) -> Result<Option<Vec<Found>>, RegistryError> {
        // The registry matches one substring of the name: each word is asked for, side by side,
        // and the caller scores every hit by all the words (name and description), so a server
        // named by one word and described by the other comes first.
        let mut words: Vec<&str> = Vec::new();
        for word in query.split_whitespace() {
            if !words.iter().any(|w| w.eq_ignore_ascii_case(word)) {
                words.push(word);
            }
        }
        words.truncate(MAX_SEARCH_WORDS);
        let filters: Vec<String> = match words.is_empty() {
            true => vec![String::new()],
            false => words
                .iter()
                .map(|w| format!("search={}&", encode(w)))
                .collect(),
        };
        // The page budget is shared, so more words cost no more requests than one broad word.
        let pages = (MAX_SEARCH_PAGES / filters.len()).max(1);
        let mut listed = Vec::new();
        let mut cut = Vec::new();
        for (result, word) in crate::util::fsutil::par_map(&filters, |filter| {
            self.list_counted(&format!("{filter}version=latest&"), pages)
        })
        .into_iter()
        .zip(words.iter().copied().chain(std::iter::once("")))
        {
            let (servers, more) = result?;
            if more {
                cut.push((word.to_string(), servers.len()));
            }
            listed.extend(servers);
        }
        *lock(&self.cut) = cut;
        let mut found: BTreeMap<String, Found> = BTreeMap::new();
        for (doc, meta) in listed {
            let Some(name) = doc.get("name").and_then(Value::as_str) else {
                continue;
            };
            let version = doc.get("version").and_then(Value::as_str).unwrap_or("");
            // Listed as the registry spells it, which `add` and `info` take as it is.
            let hit = Found {
                name: name.to_string(),
                version: version.to_string(),
                description: doc
                    .get("description")
                    .and_then(Value::as_str)
                    .map(str::to_string),
                result: line_of(&doc, &meta),
            };
            // A registry that ignores `version=latest` lists every version: keep the newest
            // that is not deleted.
            let key = name.to_ascii_lowercase();
            let newer = match (found.get(&key), &hit.result) {
                (None, _) => true,
                (
                    Some(Found {
                        result: Ok(old), ..
                    }),
                    Ok(new),
                ) => (old.yanked, &new.vers) > (new.yanked, &old.vers),
                (Some(Found { result: Err(_), .. }), Ok(_)) => true,
                (Some(_), Err(_)) => false,
            };
            if newer {
                found.insert(key, hit);
            }
        }
        Ok(Some(found.into_values().collect()))
    }
}

impl McpRegistry {
    fn lock_known(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, Known>> {
        lock(&self.known)
    }
}

/// A panic elsewhere cannot leave these maps half-written: each insert is one call.
fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

pub use crate::model::validate::is_registry_name;

/// The manifest text of the `server.json` document `bytes` (as [`McpRegistry::archive`] returns
/// it). `label` names the document in errors.
pub fn manifest_text(bytes: &[u8], label: &str) -> Result<String, RegistryError> {
    let bad = |reason: String| RegistryError::BadArchive {
        file: label.to_string(),
        reason,
    };
    let doc: Value = serde_json::from_slice(bytes).map_err(|e| bad(e.to_string()))?;
    let mapped = map_server(&doc).map_err(|e| bad(format!("cannot be installed: {e}")))?;
    Ok(mapped.manifest)
}

/// The index line of one `server.json` (with the `_meta` the registry sent with it), or why it
/// cannot be installed.
fn line_of(doc: &Value, meta: &Value) -> Result<IndexLine, String> {
    mapped_line(doc, meta).map(|(line, _)| line)
}

/// [`line_of`], with what the version starts that the lock cannot pin (`Mapped::floating` of `super::mcp_map`),
/// from the one mapping of the document.
fn mapped_line(doc: &Value, meta: &Value) -> Result<(IndexLine, Option<String>), String> {
    let version = doc.get("version").and_then(Value::as_str).unwrap_or("");
    let vers = semver_of(version).map_err(|e| {
        format!("version `{version}` is not semver ({e}); dotpack resolves semver versions only")
    })?;
    let mapped = map_server(doc).map_err(|e| e.reason)?;
    let name = mapped.name.to_ascii_lowercase();
    let path = PathBuf::from(format!("{name}@{}/server.json", mapped.version));
    crate::model::manifest::parse(&path, mapped.manifest.clone())
        .map_err(|e| format!("the package dotpack maps it to is not valid: {e}"))?;
    if let Status::Deleted(message) = Status::of(meta) {
        return Err(deleted_reason(&message));
    }
    let line = IndexLine {
        name,
        vers,
        deps: Vec::new(),
        cksum: sha256_hex(&canonical(doc)),
        // The registry does not yank: it deletes (never installed) or deprecates (warned).
        yanked: false,
        servers: vec![mapped.server],
        resources: Vec::new(),
        description: (!mapped.description.is_empty()).then_some(mapped.description),
        keywords: Vec::new(),
        v: 1,
    };
    Ok((line, mapped.floating))
}

/// A version's lifecycle status in the registry's `_meta`, with its `statusMessage`.
#[derive(Debug, PartialEq, Eq)]
enum Status {
    Active,
    /// Still offered, discouraged: installed with a warning.
    Deprecated(String),
    /// Removed (moderation: malware, spam, a takedown): never installed.
    Deleted(String),
}

impl Status {
    fn of(meta: &Value) -> Status {
        let official = meta.get(OFFICIAL_META);
        let field = |key: &str| {
            official
                .and_then(|o| o.get(key))
                .and_then(Value::as_str)
                .map(str::trim)
                .unwrap_or("")
        };
        let message = one_line(field("statusMessage"));
        match field("status") {
            "deleted" => Status::Deleted(message),
            "deprecated" => Status::Deprecated(message),
            _ => Status::Active,
        }
    }
}

/// A registry's message on one line (its whitespace runs as one space), at most 300 characters:
/// it goes into a warning or an error line. The printer escapes what could act on a terminal.
fn one_line(text: &str) -> String {
    const MAX: usize = 300;
    let joined = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match joined.char_indices().nth(MAX) {
        Some((at, _)) => format!("{}…", &joined[..at]),
        None => joined,
    }
}

/// Why a deleted version is never installed, in the registry's words when it gives them.
fn deleted_reason(message: &str) -> String {
    match message.is_empty() {
        true => "the registry deleted it and gives no reason".to_string(),
        false => format!("the registry deleted it: {message}"),
    }
}

/// The `(server, _meta)` pairs of a `ServerList` response.
fn entries(list: &Value) -> Result<Vec<(Value, Value)>, String> {
    let servers = list
        .get("servers")
        .and_then(Value::as_array)
        .ok_or("the response has no `servers` list")?;
    Ok(servers
        .iter()
        .filter_map(|entry| {
            let doc = entry.get("server")?.clone();
            let meta = entry.get("_meta").cloned().unwrap_or(Value::Null);
            Some((doc, meta))
        })
        .collect())
}

/// `value` as canonical JSON: object keys sorted at every level, no whitespace. Two responses
/// that carry the same document give the same bytes, however they were formatted.
pub fn canonical(value: &Value) -> Vec<u8> {
    serde_json::to_vec(&sorted(value)).unwrap_or_default()
}

fn sorted(value: &Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            let mut out = Map::new();
            for key in keys {
                if let Some(v) = map.get(key) {
                    out.insert(key.clone(), sorted(v));
                }
            }
            Value::Object(out)
        }
        Value::Array(items) => Value::Array(items.iter().map(sorted).collect()),
        other => other.clone(),
    }
}

/// `text` percent-encoded for one path segment or query value: everything but `A-Z a-z 0-9 - .
/// _ ~` (so `/` becomes `%2F`, as the API wants for server names).
fn encode(text: &str) -> String {
    let mut out = String::new();
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests;
