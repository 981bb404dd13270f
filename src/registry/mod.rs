//! Registries: where packages come from.
//!
//! A registry is a sparse index (one file per package, one JSON line per version, at a path
//! derived from the name, as in Cargo's sparse index) plus `.tar.gz` archives checked against the
//! sha256 in the index. The same layout is read from the index compiled into the binary, from a
//! local directory, or from a static HTTP(S) server through a cache ([`http`]). The MCP Registry
//! ([`mcp`]) is a source of another kind: an API whose `server.json` documents are mapped to
//! packages ([`mcp_map`]) instead of unpacked ([`ArchiveKind`]).

pub mod archive;
pub(crate) mod build;
pub(crate) mod dir;
pub(crate) mod embedded;
pub(crate) mod http;
pub(crate) mod index;
pub mod mcp;
pub(crate) mod mcp_map;
/// An index in memory for tests, behind the `test-support` feature so it never ships.
#[cfg(any(test, feature = "test-support"))]
pub(crate) mod memory;
pub(crate) mod package;
pub(crate) mod publish;
pub mod server_json;
mod sparse;

pub use package::{check_pin, load_locked, load_package, package_of_line, pin_of};

use semver::Version;
use std::path::Path;
use std::sync::Arc;

use crate::util::error::{Error, Fix};

pub use dir::DirIndex;
pub use embedded::EmbeddedIndex;
pub use http::{HttpIndex, Network};
pub use index::{
    IndexDep, IndexLine, RegistryConfig, index_path, parse_index_file, render_index_file,
};

/// The source string written into `dotpack.lock` for packages of the embedded default registry.
pub const BUILTIN_SOURCE: &str = "registry+builtin";

/// Errors reading a registry. Each names the file and what to do; the fix is the `help` of
/// [`RegistryError::error`](Fix::error), which `Display` prints on its own line.
#[derive(Debug, thiserror::Error)]
pub enum RegistryError {
    #[error("{}", self.error())]
    BadIndexLine {
        file: String,
        line: usize,
        reason: String,
    },
    #[error("{}", self.error())]
    ChecksumMismatch {
        name: String,
        version: String,
        file: String,
        expected: String,
        actual: String,
    },
    #[error("{}", self.error())]
    LockedChecksumChanged {
        name: String,
        version: String,
        locked: String,
        /// What the registry has instead, and where that comes from (its index, or the archive
        /// it served): `the index of registry X now lists sha256:...`.
        found: String,
    },
    #[error("{}", self.error())]
    IndexMismatch {
        source_id: String,
        /// Name and version, as `alpha 1.0.0`.
        package: String,
        /// What disagrees: `package name`, `version`, `servers` or `dependencies`.
        field: &'static str,
        index: String,
        archive: String,
    },
    #[error("{}", self.error())]
    MissingArchive {
        name: String,
        version: String,
        file: String,
    },
    #[error("{file}: bad package archive: {reason}")]
    BadArchive { file: String, reason: String },
    #[error("{}", self.error())]
    Network {
        url: String,
        reason: String,
        help: String,
    },
    #[error("{}", self.error())]
    Redirect {
        from: String,
        to: String,
        registry: String,
    },
    #[error("{}", self.error())]
    HttpStatus {
        url: String,
        status: u16,
        help: String,
    },
    #[error("{}", self.error())]
    NotCached { what: String, url: String },
    #[error("{path}: {reason}")]
    Io { path: String, reason: String },
    #[error("{0}")]
    Other(String),
    /// Any other failure that knows its fix.
    #[error("{0}")]
    Fixed(Box<Error>),
}

impl From<Error> for RegistryError {
    fn from(error: Error) -> Self {
        RegistryError::Fixed(Box::new(error))
    }
}

impl Fix for RegistryError {
    fn error(&self) -> Error {
        match self {
            RegistryError::BadIndexLine { file, line, reason } => Error::new(format!(
                "{file}:{line}: index line does not parse: {reason}"
            ))
            .help("the registry index is corrupt; rebuild it with `dotpack registry build` or report it to the registry's maintainer")
            .file(file),
            RegistryError::ChecksumMismatch {
                name,
                version,
                file,
                expected,
                actual,
            } => Error::new(format!(
                "checksum mismatch for {name} {version}: the index says sha256:{expected} but {file} is sha256:{actual}"
            ))
            .help("the archive was changed after it was published; do not use it. Rebuild the registry or ask its maintainer")
            .file(file),
            RegistryError::LockedChecksumChanged {
                name,
                version,
                locked,
                found,
            } => Error::new(format!(
                "checksum for `{name} v{version}` changed since dotpack.lock pinned it\n  dotpack.lock pins {locked}\n  {found}\n  this could mean that the registry replaced a version it had published (a published archive must never change), that it is not the registry the lock was made with (a mirror, or another folder at the same path), or that dotpack.lock was edited or is corrupt"
            ))
            .help(format!(
                "nothing was written; dotpack installs only the bytes the lock pinned. If you trust the registry's new archive, run `dotpack update {name}` to pin it"
            )),
            RegistryError::IndexMismatch {
                source_id,
                package,
                field,
                index,
                archive,
            } => Error::new(format!(
                "registry {source_id}: the index says {package} has {field} {index}, but the dotpack.toml inside its archive says {archive}"
            ))
            .help("the registry's index does not describe its archive, so dotpack will not use this version; ask the registry's maintainer to rebuild it with `dotpack registry build`"),
            RegistryError::MissingArchive {
                name,
                version,
                file,
            } => Error::new(format!("archive for {name} {version} not found at {file}"))
                .help("the registry is incomplete; rebuild it with `dotpack registry build`")
                .file(file),
            RegistryError::Network { url, reason, help } => {
                Error::new(format!("cannot reach {url}: {reason}")).help(help)
            }
            RegistryError::Redirect { from, to, registry } => Error::new(format!(
                "{from} redirects to {to}, which is not on the registry's server ({registry})"
            ))
            .help("dotpack follows redirects only to the same scheme, host and port, so a registry cannot hand out files from a server you did not name. If you trust that server, use its URL as the registry, or set DOTPACK_ALLOW_REDIRECTS=1 to follow redirects to other servers"),
            RegistryError::HttpStatus { url, status, help } => {
                Error::new(format!("{url} answered HTTP {status}")).help(help)
            }
            RegistryError::NotCached { what, url } => Error::new(format!(
                "{what} is not in the cache ({url}), and --offline forbids using the network"
            ))
            .help("run once without --offline to fill the cache"),
            RegistryError::Fixed(error) => (**error).clone(),
            other => Error::new(other.to_string()),
        }
    }
}

/// One registry, wherever it lives. Implementations must make [`IndexSource::versions`] cost what
/// one package costs, not what the whole registry costs.
pub trait IndexSource: Send + Sync {
    /// Identity written into `dotpack.lock` as each package's `source`.
    fn source_id(&self) -> &str;

    /// Every version line of `name` in index order, or `None` when the registry has no such
    /// package. Lines that do not parse are an error naming the file and line.
    fn versions(&self, name: &str) -> Result<Option<Arc<Vec<IndexLine>>>, RegistryError>;

    /// Every package name in the registry, sorted. For search and "did you mean"; not on the
    /// resolution path.
    fn names(&self) -> Result<Vec<String>, RegistryError>;

    /// The bytes of the archive of `line`, verified against `line.cksum`.
    fn archive(&self, line: &IndexLine) -> Result<Vec<u8>, RegistryError>;

    /// Whether lookups cost a network round trip, so that a resolution reads index files
    /// ahead, several at once (see `resolve::prefetch`). Local registries answer at once.
    fn is_remote(&self) -> bool {
        false
    }
    /// What [`IndexSource::archive`] returns: a `.tar.gz` unless the source says otherwise.
    fn archive_kind(&self) -> ArchiveKind {
        ArchiveKind::TarGz
    }

    /// The versions of `name` that the registry lists but dotpack cannot install, each with the
    /// reason (a `server.json` that cannot be mapped without loss, a version that is not semver).
    /// Known after [`IndexSource::versions`] of `name`; empty for dotpack's own registries.
    fn refused(&self, _name: &str) -> Vec<Refusal> {
        Vec::new()
    }

    /// The packages matching `query` when the registry searches itself (an API with a search
    /// endpoint), or `None` when `search` must walk [`IndexSource::names`].
    fn search(&self, _query: &str) -> Result<Option<Vec<Found>>, RegistryError> {
        Ok(None)
    }

    /// How the registry itself spells the package dotpack calls `name`, when that is not `name`
    /// as given: MCP Registry names are case-sensitive, dotpack's lowercase. Known after
    /// [`IndexSource::versions`] of `name`; `None` for dotpack's own registries.
    fn registry_name(&self, _name: &str) -> Option<String> {
        None
    }

    /// Names among which "did you mean" looks for ones close to `name`, a package the registry
    /// does not have: every name ([`IndexSource::names`]) where that is cheap, or what a few
    /// requests return where listing the registry costs a request per page (an MCP Registry
    /// holds tens of thousands of servers).
    fn suggestion_candidates(&self, _name: &str) -> Result<Vec<String>, RegistryError> {
        self.names()
    }

    /// What the registry says against `version` of `name`, which it still offers (an MCP
    /// Registry's `deprecated` status and its message), for a warning wherever it is locked.
    /// Known after [`IndexSource::versions`] of `name`.
    fn deprecation(&self, _name: &str, _version: &Version) -> Option<String> {
        None
    }

    /// Why the last [`IndexSource::search`] may have missed servers: a word the registry
    /// matches more servers for than dotpack reads. One sentence each; empty when it read all.
    fn search_cut(&self) -> Vec<String> {
        Vec::new()
    }

    /// What `version` of `name` starts when that is not pinned by the lock (an MCP Registry
    /// document running `NAME@latest`), for a warning when it is newly locked. Known after
    /// [`IndexSource::versions`] of `name`.
    fn floating(&self, _name: &str, _version: &Version) -> Option<String> {
        None
    }

    /// Why `version` of `name`, which a lock pins, is no longer among
    /// [`IndexSource::versions`]: the reason dotpack refuses it, or what the registry says of it
    /// (an MCP Registry hides deleted versions from its lists but says why when asked for one).
    /// `None` when the registry gives no reason. May cost one request.
    fn gone(&self, name: &str, version: &Version) -> Option<String> {
        let text = version.to_string();
        self.refused(name)
            .into_iter()
            .find(|r| r.version == text)
            .map(|r| r.reason)
    }
}

/// The format of a source's archives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArchiveKind {
    /// A `.tar.gz` holding the package's `dotpack.toml`.
    TarGz,
    /// One `server.json` document of the MCP Registry, mapped by [`mcp_map`].
    ServerJson,
}

/// A version a registry lists that dotpack cannot install.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    pub version: String,
    pub reason: String,
}

/// One package found by a registry's own search: its newest line when it can be installed, or
/// why it cannot.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Found {
    pub name: String,
    pub version: String,
    pub description: Option<String>,
    pub result: Result<IndexLine, String>,
}

/// Opens the registry a command reads: the built-in index when `location` is `None`; the index
/// served at `location` when it is an `http://` or `https://` URL (source
/// `registry+` followed by the URL ending in `/`, cached under `dotpack_home`, see [`open_url`]);
/// else the index in the local folder `location` (`--registry`, `DOTPACK_REGISTRY`), whose
/// lock-file source is `registry+file:` followed by the path exactly as given, so lock files stay
/// stable across runs. `network` says whether HTTP registries may be fetched, and where their
/// redirects may go.
pub fn open(
    location: Option<&Path>,
    dotpack_home: &Path,
    network: Network,
) -> Result<Box<dyn IndexSource>, RegistryError> {
    match location {
        None => Ok(Box::new(EmbeddedIndex::builtin())),
        Some(location) => match location.to_str() {
            Some(url) if http::is_url(url) => Ok(Box::new(open_url(url, dotpack_home, network)?)),
            // Any other scheme is a mistake, not a folder name: say which schemes work.
            Some(url) if crate::urls::has_scheme(url) => Err(http::normalize_url(url)
                .err()
                .unwrap_or_else(|| RegistryError::Other(format!("`{url}` is not a registry")))),
            _ => {
                let source_id = format!("registry+file:{}", location.display());
                Ok(Box::new(DirIndex::open(location, source_id)?))
            }
        },
    }
}

/// Opens the HTTP(S) registry at `url`, cached in its own folder under
/// `dotpack_home/cache/registries/`. Its lock-file source is `registry+URL/`.
pub fn open_url(
    url: &str,
    dotpack_home: &Path,
    network: Network,
) -> Result<HttpIndex, RegistryError> {
    open_url_with_auth(url, dotpack_home, network, None)
}

/// [`open_url`] for a private registry whose token `auth` holds (see [`http::Auth`]). The
/// token is not part of the registry's identity: its source and cache are those of the URL.
pub fn open_url_with_auth(
    url: &str,
    dotpack_home: &Path,
    network: Network,
    auth: Option<http::Auth>,
) -> Result<HttpIndex, RegistryError> {
    let base = http::normalize_url(url)?;
    let cache = http::cache_dir(dotpack_home, &base);
    HttpIndex::open_with_auth(&base, format!("registry+{base}"), &cache, network, auth)
}

/// A shared registry is a registry too, so `open` can hand out the process-wide built-in index.
impl<T: IndexSource + ?Sized> IndexSource for &T {
    fn source_id(&self) -> &str {
        (**self).source_id()
    }

    fn versions(&self, name: &str) -> Result<Option<Arc<Vec<IndexLine>>>, RegistryError> {
        (**self).versions(name)
    }

    fn names(&self) -> Result<Vec<String>, RegistryError> {
        (**self).names()
    }

    fn archive(&self, line: &IndexLine) -> Result<Vec<u8>, RegistryError> {
        (**self).archive(line)
    }

    fn is_remote(&self) -> bool {
        (**self).is_remote()
    }

    fn archive_kind(&self) -> ArchiveKind {
        (**self).archive_kind()
    }

    fn refused(&self, name: &str) -> Vec<Refusal> {
        (**self).refused(name)
    }

    fn search(&self, query: &str) -> Result<Option<Vec<Found>>, RegistryError> {
        (**self).search(query)
    }

    fn registry_name(&self, name: &str) -> Option<String> {
        (**self).registry_name(name)
    }

    fn suggestion_candidates(&self, name: &str) -> Result<Vec<String>, RegistryError> {
        (**self).suggestion_candidates(name)
    }

    fn deprecation(&self, name: &str, version: &Version) -> Option<String> {
        (**self).deprecation(name, version)
    }

    fn gone(&self, name: &str, version: &Version) -> Option<String> {
        (**self).gone(name, version)
    }

    fn floating(&self, name: &str, version: &Version) -> Option<String> {
        (**self).floating(name, version)
    }

    fn search_cut(&self) -> Vec<String> {
        (**self).search_cut()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn open_picks_builtin_folder_or_url() {
        let home = tempfile::tempdir().unwrap();
        assert_eq!(
            open(None, home.path(), Network::default())
                .unwrap()
                .source_id(),
            BUILTIN_SOURCE
        );
        let url = open(
            Some(Path::new("http://127.0.0.1:9/r")),
            home.path(),
            Network {
                offline: true,
                ..Network::default()
            },
        )
        .unwrap();
        assert_eq!(url.source_id(), "registry+http://127.0.0.1:9/r/");
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("config.json"),
            r#"{"v":1,"dl":"{name}/{version}"}"#,
        )
        .unwrap();
        let source = open(Some(dir.path()), home.path(), Network::default()).unwrap();
        assert_eq!(
            source.source_id(),
            format!("registry+file:{}", dir.path().display())
        );
    }

    #[test]
    fn a_registry_error_prints_its_fix_and_keeps_it_apart() {
        let err = RegistryError::MissingArchive {
            name: "figma".into(),
            version: "1.0.0".into(),
            file: "figma/1.0.0.tar.gz".into(),
        };
        assert_eq!(
            err.to_string(),
            "archive for figma 1.0.0 not found at figma/1.0.0.tar.gz\n  help: the registry is incomplete; rebuild it with `dotpack registry build`"
        );
        let fields = err.error();
        assert!(!fields.message().contains("help:"));
        assert_eq!(
            fields.fix(),
            Some("the registry is incomplete; rebuild it with `dotpack registry build`")
        );
        let plain = RegistryError::Io {
            path: "x".into(),
            reason: "denied".into(),
        };
        assert_eq!(plain.error().fix(), None);
        assert_eq!(plain.to_string(), "x: denied");
    }
}
