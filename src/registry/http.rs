//! A registry served over HTTP(S) as static files (`--registry https://...`,
//! `[registries] x = { url = "..." }`), read through an on-disk cache.
//!
//! The layout is the one every registry has (`config.json`, one index file per package, archives
//! at `config.dl`), so any static web server serves it. Nothing is fetched when the index is
//! opened: `config.json` on the first lookup, then one request per package asked for, never the
//! whole registry. The cache lives in `$DOTPACK_HOME/cache/registries/<host>-<hash of URL>/`:
//!
//! - `index/<path>`: `config.json`, `names.txt` and index files, each stored with the `ETag` and
//!   `Last-Modified` the server sent and revalidated with a conditional request (304 keeps the
//!   cached copy). Each entry records the sha256 of its body, so a damaged entry is refetched,
//!   never trusted.
//! - `archives/<sha256>.tar.gz`: archives by checksum. They are immutable, so one that is cached
//!   and still matches its checksum is never fetched again.
//!
//! Every write is atomic (temporary file, then rename). Writing the cache is best effort: a
//! read-only cache costs requests, not correctness.
//!
//! Offline (`--offline`, `--frozen`), only the cache is read and anything missing from it is an
//! error that says so.
//!
//! Redirects are followed only within the registry's own origin (see `http/redirect.rs`).
//!
//! Names for `search` and "did you mean" come from `names.txt` at the root (one name per line,
//! written by `dotpack registry build`); a registry without it has no listing, so search finds
//! nothing and unknown names get no suggestions.

use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::archive::sha256_hex;
use super::index::is_plain_name;
use super::sparse::{FileStore, SparseIndex, read_config, verify_archive};
use super::{IndexLine, IndexSource, RegistryError};
use crate::util::error::Error;

mod auth;
pub mod freshness;
mod redirect;
mod retry;

pub use auth::Auth;
pub use redirect::ALLOW_REDIRECTS_ENV;
pub use retry::{RETRIES_ENV, RETRY_DELAY_ENV, TIMEOUT_ENV, from_env as network_from_env};

/// How dotpack may use the network for HTTP registries, decided once from flags and the
/// environment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Network {
    /// `--offline`, `--frozen`: no request at all, only the cache.
    pub offline: bool,
    /// `DOTPACK_ALLOW_REDIRECTS=1`: follow redirects to other origins than the registry's.
    pub allow_redirects: bool,
    /// How long to wait for a connection, and then for the server to start answering
    /// (`DOTPACK_HTTP_TIMEOUT`, seconds; default 30).
    pub timeout: Duration,
    /// How many times a request is tried again after a 5xx or a reset connection
    /// (`DOTPACK_HTTP_RETRIES`; default 3).
    pub retries: u32,
    /// The wait before the first retry, doubled before each next one
    /// (`DOTPACK_HTTP_RETRY_DELAY_MS`; default 250 ms).
    pub retry_delay: Duration,
    /// The spinner requests report to (on only for a terminal; see [`crate::ui::progress`]).
    pub progress: crate::ui::progress::ProgressHandle,
    /// `--refresh`: ask the server again whatever the age of the cached copy.
    pub refresh: bool,
    /// How long a cached response is used without asking (`DOTPACK_CACHE_MAX_AGE`; default
    /// five minutes; see [`freshness`]).
    pub max_age: Duration,
}

impl Default for Network {
    fn default() -> Self {
        Network {
            offline: false,
            allow_redirects: false,
            timeout: retry::DEFAULT_TIMEOUT,
            retries: retry::DEFAULT_RETRIES,
            retry_delay: retry::DEFAULT_RETRY_DELAY,
            progress: crate::ui::progress::ProgressHandle::off(),
            refresh: false,
            max_age: freshness::DEFAULT_MAX_AGE,
        }
    }
}

/// The optional listing of package names at the root of an index, one per line, sorted.
pub const NAMES_FILE: &str = "names.txt";

/// Largest `config.json`, `names.txt` or index file accepted from a server.
const MAX_INDEX_BYTES: u64 = 16 * 1024 * 1024;
/// Largest archive accepted from a server (unpacking has its own, smaller limits).
const MAX_ARCHIVE_BYTES: u64 = 64 * 1024 * 1024;

/// A registry at an `http://` or `https://` base URL.
pub struct HttpIndex {
    remote: Arc<Remote>,
    source_id: String,
    /// Opened on first use, so commands that never look anything up never touch the network.
    inner: OnceLock<SparseIndex<HttpFiles>>,
    /// Held while `config.json` is read, so lookups started side by side read it once.
    opening: std::sync::Mutex<()>,
}

impl HttpIndex {
    /// Prepares the registry at `base_url`, caching under `cache_dir` (a folder of its own, see
    /// [`cache_dir`]). `network.offline` forbids every request. Fails only on a URL that is not
    /// `http(s)://HOST/...`; nothing is fetched yet.
    pub fn open(
        base_url: &str,
        source_id: impl Into<String>,
        cache_dir: &Path,
        network: Network,
    ) -> Result<HttpIndex, RegistryError> {
        Self::open_with_auth(base_url, source_id, cache_dir, network, None)
    }

    /// [`HttpIndex::open`] for a private registry: `auth` is sent to the registry's own origin
    /// only (see [`Auth`]).
    pub fn open_with_auth(
        base_url: &str,
        source_id: impl Into<String>,
        cache_dir: &Path,
        network: Network,
        auth: Option<Auth>,
    ) -> Result<HttpIndex, RegistryError> {
        Ok(HttpIndex {
            remote: Arc::new(Remote::new(base_url, cache_dir, network, auth)?),
            source_id: source_id.into(),
            inner: OnceLock::new(),
            opening: std::sync::Mutex::new(()),
        })
    }

    /// The base URL, ending in `/`.
    pub fn base_url(&self) -> &str {
        &self.remote.base
    }

    fn inner(&self) -> Result<&SparseIndex<HttpFiles>, RegistryError> {
        if let Some(inner) = self.inner.get() {
            return Ok(inner);
        }
        // Whoever holds the lock reads `config.json`; the others wait and find it read. A
        // poisoned lock only means another thread failed: reading again is still right.
        let _opening = self.opening.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(inner) = self.inner.get() {
            return Ok(inner);
        }
        let files = HttpFiles(Arc::clone(&self.remote));
        let config = read_config(&files)?;
        let index = SparseIndex::new(files, self.source_id.clone(), config);
        // Another thread may have won the race; either copy is as good.
        let _ = self.inner.set(index);
        self.inner
            .get()
            .ok_or_else(|| RegistryError::Other("registry index was not initialised".to_string()))
    }
}

impl IndexSource for HttpIndex {
    fn source_id(&self) -> &str {
        &self.source_id
    }

    fn versions(&self, name: &str) -> Result<Option<Arc<Vec<IndexLine>>>, RegistryError> {
        self.inner()?.versions(name)
    }

    fn names(&self) -> Result<Vec<String>, RegistryError> {
        self.inner()?.names()
    }

    fn is_remote(&self) -> bool {
        !self.remote.network.offline
    }

    fn archive(&self, line: &IndexLine) -> Result<Vec<u8>, RegistryError> {
        let inner = self.inner()?;
        let rel = inner.config().archive_path(&line.name, &line.vers);
        let url = self.remote.url(&rel);
        let missing = || RegistryError::MissingArchive {
            name: line.name.clone(),
            version: line.vers.to_string(),
            file: loggable(&url),
        };
        if !is_plain_name(&line.name) {
            return Err(missing());
        }
        let cached = archive_cache_path(&self.remote.dir, &line.cksum);
        if let Some(path) = &cached
            && let Ok(bytes) = std::fs::read(path)
        {
            if verify_archive(line, &bytes, &loggable(&url)).is_ok() {
                tracing::debug!(package = %line.name, version = %line.vers, bytes = bytes.len(), "archive from the cache");
                return Ok(bytes);
            }
            // Damaged in the cache: drop it and fetch it again.
            let _ = std::fs::remove_file(path);
        }
        if self.remote.network.offline {
            return Err(RegistryError::NotCached {
                what: format!("the archive of {} {}", line.name, line.vers),
                url: loggable(&url),
            });
        }
        let Some(fetched) = self.remote.get(&rel, None, MAX_ARCHIVE_BYTES)? else {
            return Err(missing());
        };
        let Fetched::Body { body, .. } = fetched else {
            return Err(self.remote.status_error(&url, 304, false));
        };
        verify_archive(line, &body, &loggable(&url))?;
        if let Some(path) = &cached {
            store(path, &body);
        }
        Ok(body)
    }
}

/// An HTTP API that is not in dotpack's layout (the MCP Registry's REST API), read through the
/// same revalidated cache, redirect rule and `--offline` rule as [`HttpIndex`].
pub struct CachedApi(Remote);

impl CachedApi {
    /// Prepares the API at `base_url`, caching under `cache_dir`; nothing is fetched yet.
    pub fn open(
        base_url: &str,
        cache_dir: &Path,
        network: Network,
        auth: Option<Auth>,
    ) -> Result<Self, RegistryError> {
        Ok(CachedApi(Remote::new(base_url, cache_dir, network, auth)?))
    }

    /// `rel` (a path and query under the base URL) as an absolute URL, as messages show it
    /// (no user information, no query values).
    pub fn url(&self, rel: &str) -> String {
        loggable(&self.0.url(rel))
    }

    /// The cache folder.
    pub fn dir(&self) -> &Path {
        &self.0.dir
    }

    /// The current body of `rel`, cached at `cache_rel` (a relative path of plain segments that
    /// the caller derives, never from a server), revalidated with its ETag; offline, the cached
    /// copy or [`RegistryError::NotCached`] naming `what`. `None` for 404 and 410.
    pub fn fetch(
        &self,
        rel: &str,
        cache_rel: &str,
        what: &str,
    ) -> Result<Option<Vec<u8>>, RegistryError> {
        self.0.fetch_as(rel, cache_rel, || what.to_string())
    }
}

/// The cache folder of the registry at `url` under `dotpack_home`:
/// `cache/registries/<host>-<first 16 hex digits of the URL's sha256>`. The host (with its port)
/// keeps the folder recognisable; the hash keeps two registries on one host apart.
pub fn cache_dir(dotpack_home: &Path, url: &str) -> PathBuf {
    dotpack_home
        .join("cache")
        .join("registries")
        .join(cache_key(url))
}

fn cache_key(url: &str) -> String {
    let normalized = normalize_url(url).unwrap_or_else(|_| url.to_string());
    let host = crate::urls::split(&normalized).map_or("", |parts| parts.host_port);
    let mut clean: String = host
        .chars()
        .map(|c| {
            let c = c.to_ascii_lowercase();
            if c.is_ascii_alphanumeric() || c == '.' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .take(64)
        .collect();
    if clean.is_empty() || clean.starts_with('.') {
        clean.insert(0, '_');
    }
    let hash = sha256_hex(normalized.as_bytes());
    format!("{clean}-{}", &hash[..16])
}

/// `url` as the one spelling of its registry ([`crate::urls::registry_url`]): lowercase scheme
/// and host, no default port, a trailing `/`; an error for anything but `http(s)://HOST...` with
/// no query or fragment.
pub fn normalize_url(url: &str) -> Result<String, RegistryError> {
    crate::urls::registry_url(url).map_err(|why| {
        RegistryError::from(
            Error::new(format!("`{url}` is not a registry URL: {why}"))
                .help("give the base URL of the index, like https://example.com/dotpack/"),
        )
    })
}

/// `url` as logs and messages show it: user information (`user:token@`) and query values,
/// either of which may hold a credential (a redirect to a signed URL), as `***`.
fn loggable(url: &str) -> String {
    crate::urls::redacted(url)
}

/// Whether `location` (a `--registry` value) is a URL rather than a folder.
pub fn is_url(location: &str) -> bool {
    crate::urls::has_http_scheme(location)
}

/// Where the archive with sha256 `cksum` is cached, when `cksum` is a well-formed checksum (a
/// malformed one is never turned into a path).
fn archive_cache_path(dir: &Path, cksum: &str) -> Option<PathBuf> {
    let ok = cksum.len() == 64 && cksum.bytes().all(|b| b.is_ascii_hexdigit());
    ok.then(|| {
        dir.join("archives")
            .join(format!("{}.tar.gz", cksum.to_ascii_lowercase()))
    })
}

/// Writes a cache file atomically. Failures are ignored: the cache only saves requests.
fn store(path: &Path, bytes: &[u8]) {
    if let Some(parent) = path.parent()
        && std::fs::create_dir_all(parent).is_err()
    {
        return;
    }
    let _ = crate::util::fsutil::write_atomic(path, bytes);
}

/// The validators a server sent with a file, kept to ask "has it changed?" next time.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
struct Validators {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    etag: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    last_modified: Option<String>,
}

impl Validators {
    /// The headers of a conditional GET: `If-None-Match` for an ETag, else `If-Modified-Since`
    /// (a server that sent both must honour the ETag, so sending only it is enough).
    fn conditional_headers(&self) -> Option<(&'static str, &str)> {
        if let Some(etag) = &self.etag {
            Some(("If-None-Match", etag))
        } else {
            self.last_modified
                .as_deref()
                .map(|date| ("If-Modified-Since", date))
        }
    }
}

/// The first line of a cached index file: validators, when it was fetched, how long the server
/// lets it be used, and the sha256 of the body that follows.
#[derive(Debug, Serialize, Deserialize)]
struct EntryHeader {
    #[serde(flatten)]
    validators: Validators,
    sha256: String,
    /// Seconds since the epoch when the server last sent or confirmed it (0: unknown, as in
    /// entries written before dotpack kept it).
    #[serde(default, skip_serializing_if = "is_zero")]
    fetched: u64,
    /// The server's `Cache-Control` max-age, in seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    server_max_age: Option<u64>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// A cached index file: one line of JSON ([`EntryHeader`]), then the body as served.
#[derive(Debug, PartialEq, Eq)]
struct CacheEntry {
    validators: Validators,
    fetched: u64,
    server_max_age: Option<u64>,
    body: Vec<u8>,
}

impl CacheEntry {
    fn encode(&self) -> Vec<u8> {
        let header = EntryHeader {
            validators: self.validators.clone(),
            sha256: sha256_hex(&self.body),
            fetched: self.fetched,
            server_max_age: self.server_max_age,
        };
        let mut out = serde_json::to_vec(&header).unwrap_or_default();
        out.push(b'\n');
        out.extend_from_slice(&self.body);
        out
    }

    /// The entry in `bytes`, or `None` when it is damaged in any way (unreadable header, body
    /// that does not match its checksum).
    fn decode(bytes: &[u8]) -> Option<CacheEntry> {
        let split = bytes.iter().position(|&b| b == b'\n')?;
        let header: EntryHeader = serde_json::from_slice(&bytes[..split]).ok()?;
        let body = &bytes[split + 1..];
        (sha256_hex(body) == header.sha256).then(|| CacheEntry {
            validators: header.validators,
            fetched: header.fetched,
            server_max_age: header.server_max_age,
            body: body.to_vec(),
        })
    }
}

/// What a GET brought back.
enum Fetched {
    /// 304: the cached copy is current.
    NotModified,
    /// 200, with the validators to keep and the server's max-age.
    Body {
        body: Vec<u8>,
        validators: Validators,
        max_age: Option<u64>,
    },
}

struct Remote {
    /// Base URL, ending in `/`.
    base: String,
    agent: ureq::Agent,
    /// The cache folder of this registry.
    dir: PathBuf,
    network: Network,
    /// The token of a private registry, sent to its own origin only.
    auth: Option<Auth>,
}

impl Remote {
    fn new(
        base_url: &str,
        cache_dir: &Path,
        network: Network,
        auth: Option<Auth>,
    ) -> Result<Remote, RegistryError> {
        let base = normalize_url(base_url)?;
        let agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            // Redirects are followed by `Remote::get`, which checks where each one goes.
            .max_redirects(0)
            .timeout_connect(Some(network.timeout))
            // A server that accepts the connection and never answers is a stall, not a slow
            // download: it gets `timeout` to start answering.
            .timeout_recv_response(Some(network.timeout))
            .timeout_global(Some(network.timeout.max(Duration::from_secs(120))))
            .user_agent(concat!("dotpack/", env!("CARGO_PKG_VERSION")))
            .build()
            .new_agent();
        Ok(Remote {
            base,
            agent,
            dir: cache_dir.to_path_buf(),
            network,
            auth,
        })
    }

    fn url(&self, rel: &str) -> String {
        format!("{}{rel}", self.base)
    }

    fn index_cache_path(&self, rel: &str) -> PathBuf {
        rel.split('/')
            .fold(self.dir.join("index"), |path, part| path.join(part))
    }

    /// GET `rel`, conditional on `validators`. `None` for 404 and 410 (no such file).
    /// Redirects are followed while they stay on the registry's origin (anywhere, with
    /// [`Network::allow_redirects`]), at most [`redirect::MAX_REDIRECTS`] of them.
    fn get(
        &self,
        rel: &str,
        validators: Option<&Validators>,
        limit: u64,
    ) -> Result<Option<Fetched>, RegistryError> {
        let mut url = self.url(rel);
        let mut hops = 0;
        let mut response = loop {
            let response = self.call(&url, validators)?;
            let status = response.status().as_u16();
            if !redirect::is_redirect(status) {
                break response;
            }
            let location = response
                .headers()
                .get("location")
                .and_then(|v| v.to_str().ok())
                .and_then(|location| redirect::resolve(&url, location));
            let Some(next) = location else {
                return Err(self.status_error(&url, status, validators.is_some()));
            };
            self.check_redirect(&url, &next)?;
            hops += 1;
            if hops > redirect::MAX_REDIRECTS {
                return Err(RegistryError::Network {
                    url: loggable(&self.url(rel)),
                    reason: format!("more than {} redirects", redirect::MAX_REDIRECTS),
                    help: "check the registry URL; the server redirects in a loop".to_string(),
                });
            }
            url = next;
        };
        let status = response.status().as_u16();
        tracing::debug!(
            url = %loggable(&url),
            status,
            conditional = validators.is_some(),
            "registry request"
        );
        match status {
            200 => {}
            304 if validators.is_some() => return Ok(Some(Fetched::NotModified)),
            404 | 410 => return Ok(None),
            _ => return Err(self.status_error(&url, status, validators.is_some())),
        }
        let header = |name: &str| {
            response
                .headers()
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::to_string)
        };
        let validators = Validators {
            etag: header("etag"),
            last_modified: header("last-modified"),
        };
        let max_age = freshness::server_max_age(header("cache-control").as_deref());
        let body = response
            .body_mut()
            .with_config()
            .limit(limit)
            .read_to_vec()
            .map_err(|e| RegistryError::Network {
                url: loggable(&url),
                reason: match e {
                    ureq::Error::BodyExceedsLimit(n) => {
                        format!("the response is larger than {n} bytes")
                    }
                    e => e.to_string(),
                },
                help: "check the URL; the file is not a dotpack registry file".to_string(),
            })?;
        Ok(Some(Fetched::Body {
            body,
            validators,
            max_age,
        }))
    }

    /// One GET of `url`, redirects not followed, tried again with growing waits after a 5xx,
    /// a 429 or a reset connection ([`retry`]), as long as a `Retry-After` asks for no more than
    /// dotpack waits; never after another 4xx or a timeout.
    fn call(
        &self,
        url: &str,
        validators: Option<&Validators>,
    ) -> Result<ureq::http::Response<ureq::Body>, RegistryError> {
        let policy = retry::Policy::from(&self.network);
        let mut attempt = 0;
        loop {
            let result = self.call_once(url, validators);
            let retry = match &result {
                Ok(response) => retry::is_retryable_status(response.status().as_u16()),
                Err(e) => retry::is_retryable_error(e),
            };
            let asked = result.as_ref().ok().and_then(|response| {
                retry::retry_after(
                    response
                        .headers()
                        .get("retry-after")
                        .and_then(|v| v.to_str().ok()),
                )
            });
            let Some(wait) = policy.wait_asked(attempt + 1, asked).filter(|_| retry) else {
                return result.map_err(|e| self.transport_error(url, e, validators, attempt));
            };
            attempt += 1;
            tracing::debug!(
                url = %loggable(url),
                attempt,
                wait_ms = wait.as_millis() as u64,
                outcome = %match &result {
                    Ok(response) => response.status().as_u16().to_string(),
                    Err(e) => e.to_string(),
                },
                "retrying"
            );
            std::thread::sleep(wait);
        }
    }

    fn call_once(
        &self,
        url: &str,
        validators: Option<&Validators>,
    ) -> Result<ureq::http::Response<ureq::Body>, ureq::Error> {
        let _progress = self.network.progress.start(&loggable(url));
        let mut request = self.agent.get(url);
        if let Some((name, value)) = validators.and_then(Validators::conditional_headers) {
            request = request.header(name, value);
        }
        if let Some(value) = self
            .auth
            .as_ref()
            .and_then(|a| a.header_for(&self.base, url))
        {
            request = request.header("Authorization", value);
        }
        request.call()
    }

    /// A failed request as an error naming the URL and what to try.
    fn transport_error(
        &self,
        url: &str,
        e: ureq::Error,
        validators: Option<&Validators>,
        retries: u32,
    ) -> RegistryError {
        if let ureq::Error::Timeout(_) = e {
            return RegistryError::Network {
                url: loggable(url),
                reason: format!("no answer within {}s", self.network.timeout.as_secs_f64()),
                help: format!(
                    "the server did not answer in time; try again later, or set {}=SECONDS to wait longer{}",
                    retry::TIMEOUT_ENV,
                    if validators.is_some() {
                        ", or pass --offline to use what is cached"
                    } else {
                        ""
                    }
                ),
            };
        }
        let mut reason = e.to_string().replace(url, &loggable(url));
        if retries > 0 {
            reason.push_str(&format!(" (after {} attempts)", retries + 1));
        }
        RegistryError::Network {
            url: loggable(url),
            reason,
            help: if validators.is_some() {
                "check your connection, or pass --offline to use what is cached".to_string()
            } else {
                "check the URL and your connection".to_string()
            },
        }
    }

    /// A redirect from `from` to `to` is followed when `to` is on the registry's own origin, or
    /// when the user allowed redirects anywhere.
    fn check_redirect(&self, from: &str, to: &str) -> Result<(), RegistryError> {
        let own = redirect::origin(&self.base);
        let allowed = self.network.allow_redirects && redirect::origin(to).is_some();
        if allowed || (own.is_some() && redirect::origin(to) == own) {
            return Ok(());
        }
        Err(RegistryError::Redirect {
            from: loggable(from),
            to: loggable(to),
            registry: loggable(&self.base),
        })
    }

    fn status_error(&self, url: &str, status: u16, cached: bool) -> RegistryError {
        let mut help = match status {
            401 | 403 => match &self.auth {
                Some(auth) => auth.refused_help(),
                None => auth::no_token_help(),
            },
            retry::TOO_MANY_REQUESTS => {
                "the registry is asking to be asked less often (too many requests); try again in a minute".to_string()
            }
            500..=599 => "the registry's server failed; try again later".to_string(),
            _ => "check the registry URL".to_string(),
        };
        if cached {
            help.push_str(", or pass --offline to use what is cached");
        }
        RegistryError::HttpStatus {
            url: loggable(url),
            status,
            help,
        }
    }

    /// The current bytes of the index file `rel`: revalidated against the server when cached,
    /// fetched when not, read from the cache alone when offline. `None` when the server has no
    /// such file.
    fn fetch(&self, rel: &str) -> Result<Option<Vec<u8>>, RegistryError> {
        self.fetch_as(rel, rel, || describe(rel))
    }

    /// [`Remote::fetch`] of `rel`, cached at `cache_rel`; `what` names it in the offline error.
    fn fetch_as(
        &self,
        rel: &str,
        cache_rel: &str,
        what: impl FnOnce() -> String,
    ) -> Result<Option<Vec<u8>>, RegistryError> {
        let path = self.index_cache_path(cache_rel);
        let cached = std::fs::read(&path)
            .ok()
            .and_then(|bytes| CacheEntry::decode(&bytes));
        if self.network.offline {
            tracing::debug!(url = %loggable(&self.url(rel)), cached = cached.is_some(), "offline: read from the cache");
            return match cached {
                Some(entry) => Ok(Some(entry.body)),
                None => Err(RegistryError::NotCached {
                    what: what(),
                    url: loggable(&self.url(rel)),
                }),
            };
        }
        let now = freshness::now();
        if let Some(entry) = &cached
            && !self.network.refresh
            && freshness::is_fresh(
                entry.fetched,
                entry.server_max_age,
                self.network.max_age,
                now,
            )
        {
            tracing::debug!(url = %loggable(&self.url(rel)), "fresh: the cached copy is used without a request");
            return Ok(cached.map(|entry| entry.body));
        }
        let validators = cached.as_ref().map(|entry| &entry.validators);
        match self.get(rel, validators, MAX_INDEX_BYTES)? {
            None => {
                let _ = std::fs::remove_file(&path);
                Ok(None)
            }
            Some(Fetched::NotModified) => {
                tracing::debug!(url = %loggable(&self.url(rel)), "revalidated: the cached copy is current");
                let Some(mut entry) = cached else {
                    return Ok(None);
                };
                // Confirmed now: fresh again for another max-age.
                entry.fetched = now;
                store(&path, &entry.encode());
                Ok(Some(entry.body))
            }
            Some(Fetched::Body {
                body,
                validators,
                max_age,
            }) => {
                tracing::debug!(
                    url = %loggable(&self.url(rel)),
                    bytes = body.len(),
                    revalidated = cached.is_some(),
                    "fetched and cached"
                );
                let entry = CacheEntry {
                    validators,
                    fetched: now,
                    server_max_age: max_age,
                    body,
                };
                store(&path, &entry.encode());
                Ok(Some(entry.body))
            }
        }
    }
}

/// How to name the index file `rel` in messages: by its package when it is one.
fn describe(rel: &str) -> String {
    match rel.rsplit('/').next() {
        Some(name) if is_plain_name(name) && super::index_path(name) == rel => {
            format!("package `{name}`")
        }
        _ => format!("the registry's `{rel}`"),
    }
}

/// The files of a remote index, as the sparse reader sees them.
struct HttpFiles(Arc<Remote>);

impl FileStore for HttpFiles {
    fn read(&self, rel: &str) -> Result<Option<Cow<'_, [u8]>>, RegistryError> {
        Ok(self.0.fetch(rel)?.map(Cow::Owned))
    }

    /// The index paths of the names in `names.txt`; none when the registry has no such file
    /// (or, offline, when it is not cached).
    fn list(&self) -> Result<Vec<String>, RegistryError> {
        let bytes = match self.0.fetch(NAMES_FILE) {
            Ok(Some(bytes)) => bytes,
            Ok(None) | Err(RegistryError::NotCached { .. }) => return Ok(Vec::new()),
            Err(e) => return Err(e),
        };
        let text = String::from_utf8_lossy(&bytes);
        Ok(text
            .lines()
            .map(str::trim)
            .filter(|name| is_plain_name(name))
            .map(super::index_path)
            .collect())
    }

    fn label(&self, rel: &str) -> String {
        loggable(&self.0.url(rel))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn logged_urls_carry_no_credentials() {
        assert_eq!(
            loggable("https://user:tok@example.com/index/fi/gm/figma?sig=abc"),
            "https://***@example.com/index/fi/gm/figma?sig=***"
        );
        assert_eq!(loggable("http://127.0.0.1:8/x"), "http://127.0.0.1:8/x");
    }

    #[test]
    fn cache_key_keeps_the_host_and_separates_urls() {
        let a = cache_key("https://Example.com:8443/reg");
        assert!(a.starts_with("example.com_8443-"), "{a}");
        assert_eq!(a.len(), "example.com_8443-".len() + 16);
        assert_eq!(a, cache_key("https://example.com:8443/reg/"));
        assert_ne!(a, cache_key("https://example.com:8443/other/"));
        assert_ne!(a, cache_key("http://example.com:8443/reg/"));
        let b = cache_key("http://user:secret@host/");
        assert!(b.starts_with("host-"), "{b}");
        for weird in ["http://../x", "http://a\\b/", "https://[::1]:80/"] {
            let key = cache_key(weird);
            assert!(!key.starts_with('.'), "{key}");
            assert!(
                key.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "._-".contains(c)),
                "{key}"
            );
        }
    }

    #[test]
    fn urls_are_checked_and_normalized() {
        assert_eq!(normalize_url("HTTP://h:1/x").unwrap(), "http://h:1/x/");
        assert_eq!(normalize_url("https://h/").unwrap(), "https://h/");
        assert_eq!(
            normalize_url("HTTPS://Me:PassWord@Example.COM/Reg").unwrap(),
            "https://Me:PassWord@example.com/Reg/"
        );
        for bad in [
            "ftp://h/",
            "http://",
            "https:///x",
            "http://h/?q",
            "http://h/#f",
            "h/x",
        ] {
            assert!(normalize_url(bad).is_err(), "{bad}");
        }
        assert!(is_url("HTTPS://x") && !is_url("./http"));
    }

    #[test]
    fn cache_entries_round_trip_and_damage_is_detected() {
        let entry = CacheEntry {
            validators: Validators {
                etag: Some("\"abc\"".to_string()),
                last_modified: None,
            },
            fetched: 1_700_000_000,
            server_max_age: Some(60),
            body: b"{\"name\":\"a\"}\n".to_vec(),
        };
        let bytes = entry.encode();
        assert_eq!(CacheEntry::decode(&bytes), Some(entry));
        // An entry written before the fetch time was kept reads as fetched at an unknown time.
        let old = CacheEntry::decode(b"{\"sha256\":\"ca3d163bab055381827226140568f3bef7eaac187cebd76878e0b63e9e442356\"}\n{}\n")
            .map(|e| (e.fetched, e.server_max_age));
        assert_eq!(old, Some((0, None)));
        let mut damaged = bytes.clone();
        if let Some(last) = damaged.last_mut() {
            *last = b'x';
        }
        assert_eq!(CacheEntry::decode(&damaged), None);
        assert_eq!(CacheEntry::decode(b"no header"), None);
        assert_eq!(CacheEntry::decode(b"{}\nbody"), None);
        assert_eq!(CacheEntry::decode(&bytes[..bytes.len() - 1]), None);
    }

    #[test]
    fn conditional_requests_prefer_the_etag() {
        let both = Validators {
            etag: Some("\"e\"".to_string()),
            last_modified: Some("Tue, 01 Dec 2026 00:00:00 GMT".to_string()),
        };
        assert_eq!(both.conditional_headers(), Some(("If-None-Match", "\"e\"")));
        let date = Validators {
            etag: None,
            ..both.clone()
        };
        assert_eq!(
            date.conditional_headers(),
            Some(("If-Modified-Since", "Tue, 01 Dec 2026 00:00:00 GMT"))
        );
        assert_eq!(Validators::default().conditional_headers(), None);
    }

    #[test]
    fn archive_cache_paths_come_only_from_checksums() {
        let dir = Path::new("/c");
        let sum = "A".repeat(64);
        assert_eq!(
            archive_cache_path(dir, &sum),
            Some(
                dir.join("archives")
                    .join(format!("{}.tar.gz", "a".repeat(64)))
            )
        );
        for bad in ["../../etc/passwd", "", "zz", &"g".repeat(64)] {
            assert_eq!(archive_cache_path(dir, bad), None, "{bad}");
        }
    }

    #[test]
    fn offline_without_a_cache_names_the_url_and_the_flag() {
        let home = tempfile::tempdir().unwrap();
        let url = "http://127.0.0.1:9/reg/";
        let offline = Network {
            offline: true,
            ..Network::default()
        };
        let index =
            HttpIndex::open(url, "registry+x", &cache_dir(home.path(), url), offline).unwrap();
        let err = index.versions("alpha").unwrap_err().to_string();
        assert!(err.contains("http://127.0.0.1:9/reg/config.json"), "{err}");
        assert!(err.contains("--offline"), "{err}");
        assert!(err.contains("run once without --offline"), "{err}");
    }
}
