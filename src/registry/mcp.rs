//! The official MCP Registry (and any mirror or subregistry speaking its REST API) as a package
//! source: `[registries] mcp = { url = "https://registry.modelcontextprotocol.io", kind =
//! "mcp-registry" }`.
//!
//! Requests, all through the revalidated cache of [`CachedApi`] (ETag, `--offline`):
//! - `versions(name)`: `GET {api}/servers/{name}/versions`, one request per package;
//! - `archive(line)`: `GET {api}/servers/{name}/versions/{version}`, skipped when the document
//!   with that checksum is already cached (documents are kept by checksum, like archives);
//! - `search(query)`: `GET {api}/servers?search=WORD&version=latest&limit=100`, following
//!   `metadata.nextCursor`;
//! - `names()`: every page of `GET {api}/servers?version=latest&limit=100`.
//!
//! `{api}` is the base URL followed by `v0.1/`, the registry's stable API version; a base URL
//! that already ends in `/v0/` or `/v0.1/` is used as it is.
//!
//! The "archive" of a version is its `server.json` document in canonical form (keys sorted,
//! no whitespace), and its checksum the sha256 of those bytes: reformatting a response does not
//! change a pin, changing any value does. The document is mapped by [`super::mcp_map`] and the
//! manifest validated like any package's; a version that cannot be mapped, is not semver, or
//! whose name has capitals (dotpack's names are lowercase) is listed by [`IndexSource::refused`]
//! with the reason and never installed.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use semver::Version;
use serde_json::{Map, Value};

use super::archive::sha256_hex;
use super::http::{CachedApi, Network, cache_dir, normalize_url};
use super::mcp_map::map_server;
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

/// Where the registry keeps its metadata about a server, in each response's `_meta`.
const OFFICIAL_META: &str = "io.modelcontextprotocol.registry/official";

/// A registry speaking the MCP Registry REST API.
pub struct McpRegistry {
    api: CachedApi,
    source_id: String,
    /// The API's path under the base URL: `v0.1/`, or empty when the base names a version.
    prefix: &'static str,
    known: Mutex<BTreeMap<String, Known>>,
}

/// What one `versions` request said about a package.
#[derive(Clone)]
struct Known {
    lines: Arc<Vec<IndexLine>>,
    refused: Vec<Refusal>,
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
        })
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
    fn list(&self, query: &str, max_pages: usize) -> Result<Vec<(Value, Value)>, RegistryError> {
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
        Ok(out)
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
        if let Some(known) = self.lock_known().get(name) {
            return Ok(Some(Arc::clone(&known.lines)));
        }
        let rel = format!("{}servers/{}/versions", self.prefix, encode(name));
        let Some(list) = self.fetch_json(&rel, &format!("package `{name}`"))? else {
            return Ok(None);
        };
        let mut lines = Vec::new();
        let mut refused = Vec::new();
        for (doc, meta) in entries(&list).map_err(|e| self.not_an_api(&rel, &e))? {
            let version = doc
                .get("version")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string();
            if !doc
                .get("name")
                .and_then(Value::as_str)
                .is_some_and(|n| n.eq_ignore_ascii_case(name))
            {
                continue; // a response about another server is not about this one
            }
            match line_of(&doc, &meta) {
                Ok(line) => lines.push(line),
                Err(reason) => refused.push(Refusal { version, reason }),
            }
        }
        let lines = Arc::new(lines);
        self.lock_known().insert(
            name.to_string(),
            Known {
                lines: Arc::clone(&lines),
                refused,
            },
        );
        Ok(Some(lines))
    }

    fn names(&self) -> Result<Vec<String>, RegistryError> {
        let mut names: Vec<String> = self
            .list("version=latest&", MAX_LIST_PAGES)?
            .iter()
            .filter_map(|(doc, _)| doc.get("name").and_then(Value::as_str))
            // Names with capitals cannot be installed (dotpack's names are lowercase).
            .filter(|n| is_registry_name(n) && check_lowercase(n).is_ok())
            .map(str::to_string)
            .collect();
        names.sort();
        names.dedup();
        Ok(names)
    }

    fn archive(&self, line: &IndexLine) -> Result<Vec<u8>, RegistryError> {
        let rel = format!(
            "{}servers/{}/versions/{}",
            self.prefix,
            encode(&line.name),
            encode(&line.vers.to_string())
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
            .get(name)
            .map(|k| k.refused.clone())
            .unwrap_or_default()
    }

    fn search(&self, query: &str) -> Result<Option<Vec<Found>>, RegistryError> {
        // The registry matches one substring; the longest word narrows most, and the caller
        // scores every word.
        let word = query
            .split_whitespace()
            .max_by_key(|w| w.len())
            .unwrap_or_default();
        let filter = if word.is_empty() {
            String::new()
        } else {
            format!("search={}&", encode(word))
        };
        let mut found: BTreeMap<String, Found> = BTreeMap::new();
        for (doc, meta) in self.list(&format!("{filter}version=latest&"), MAX_SEARCH_PAGES)? {
            let Some(name) = doc.get("name").and_then(Value::as_str) else {
                continue;
            };
            let version = doc.get("version").and_then(Value::as_str).unwrap_or("");
            let hit = Found {
                name: name.to_ascii_lowercase(),
                version: version.to_string(),
                description: doc
                    .get("description")
                    .and_then(Value::as_str)
                    .map(str::to_string),
                result: line_of(&doc, &meta),
            };
            // A registry that ignores `version=latest` lists every version: keep the newest
            // that is not deleted.
            let newer = match (found.get(&hit.name), &hit.result) {
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
                found.insert(hit.name.clone(), hit);
            }
        }
        Ok(Some(found.into_values().collect()))
    }
}

impl McpRegistry {
    fn lock_known(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, Known>> {
        // A panic elsewhere cannot leave this map half-written: each insert is one call.
        self.known
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
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
    check_lowercase(&mapped.name).map_err(bad)?;
    Ok(mapped.manifest)
}

fn check_lowercase(name: &str) -> Result<(), String> {
    if name.bytes().any(|b| b.is_ascii_uppercase()) {
        return Err(format!(
            "`{name}` has capital letters, and dotpack names packages in lowercase only"
        ));
    }
    Ok(())
}

/// The index line of one `server.json` (with the `_meta` the registry sent with it), or why it
/// cannot be installed.
fn line_of(doc: &Value, meta: &Value) -> Result<IndexLine, String> {
    let version = doc.get("version").and_then(Value::as_str).unwrap_or("");
    let vers = Version::parse(version).map_err(|e| {
        format!("version `{version}` is not semver ({e}); dotpack resolves semver versions only")
    })?;
    let mapped = map_server(doc).map_err(|e| e.reason)?;
    check_lowercase(&mapped.name)?;
    let path = PathBuf::from(format!("{}@{}/server.json", mapped.name, mapped.version));
    crate::model::manifest::parse(&path, mapped.manifest.clone())
        .map_err(|e| format!("the package dotpack maps it to is not valid: {e}"))?;
    let status = meta
        .pointer(&format!("/{}/status", OFFICIAL_META.replace('/', "~1")))
        .and_then(Value::as_str);
    Ok(IndexLine {
        name: mapped.name,
        vers,
        deps: Vec::new(),
        cksum: sha256_hex(&canonical(doc)),
        yanked: status == Some("deleted"),
        servers: vec![mapped.server],
        resources: Vec::new(),
        description: (!mapped.description.is_empty()).then_some(mapped.description),
        keywords: Vec::new(),
        v: 1,
    })
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
