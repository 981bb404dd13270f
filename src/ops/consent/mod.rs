//! What a project asks for beyond itself, and whether the user agreed to it on this machine.
//!
//! A cloned repository's `dotpack.toml` and `dotpack.lock` are not the user's: they may ask for
//! things that reach outside the project (writing the user's own host files, sending one of the
//! user's variables to a registry, starting a server, reading a folder outside the project, or
//! being used at all when another user owns them). Each such thing is a [`Request`]: its kind,
//! a key naming it, and a digest of exactly what is asked, so that a changed request is a new
//! one. A request happens only when
//!
//! - the command line allows it for this run ([`Grant`]: `--trust`, `--scope user`, the packages
//!   named on the command line, `--pin-tools`), or
//! - the user approved it for this project folder, recorded in `$DOTPACK_HOME/approvals.json`
//!   (`dotpack trust`, or the user's own earlier commands: see [`store`]).
//!
//! Nothing within the project needs either: a project that asks for nothing beyond itself never
//! reads the approvals file.

pub(crate) mod ask;
mod describe;
pub(crate) mod store;

use std::collections::BTreeSet;
use std::fmt::Write as _;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

pub use describe::{entry_summary, launch_summary};
pub use store::{Approvals, state_digest};

/// The kinds of things a project may ask for beyond itself.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, Default,
)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    /// Write an entry or file into a user-scope host file (every session of that host, in every
    /// project, sees it).
    #[default]
    UserScope,
    /// Send the value of one of the user's environment variables to a registry.
    Token,
    /// Start a server the project declares (`verify`, `lock` with `pin_tools`).
    Start,
    /// Read a registry folder outside the project.
    Folder,
    /// Use a project whose files another user owns.
    Owner,
    /// Read and write a project host file through a link that leads out of the project.
    Outside,
}

impl Kind {
    pub const ALL: [Kind; 6] = [
        Kind::UserScope,
        Kind::Token,
        Kind::Start,
        Kind::Folder,
        Kind::Owner,
        Kind::Outside,
    ];

    /// How a list of requests of this kind is introduced.
    fn heading(self) -> &'static str {
        match self {
            Kind::UserScope => {
                "to write into your own (user-scope) host files, which every session of those hosts reads in every project"
            }
            Kind::Token => "to send your environment variables to registries it names",
            Kind::Start => "to start programs on this machine",
            Kind::Folder => "to read registry folders outside the project",
            Kind::Owner => "to be used although another user owns its files",
            Kind::Outside => "to write files outside the project through links",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Kind::UserScope => "user-scope",
            Kind::Token => "token",
            Kind::Start => "start",
            Kind::Folder => "folder",
            Kind::Owner => "owner",
            Kind::Outside => "outside",
        }
    }
}

/// One thing a project asks for beyond itself.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Request {
    pub kind: Kind,
    /// What it is about, stable while the request changes: `FILE ENTRY` for a user-scope entry,
    /// the registry URL and variable for a token, the server's name for a start.
    pub key: String,
    /// `sha256:<hex>` of exactly what is asked (the entry as it would be written, the command
    /// line that would start): an approval holds for this digest only.
    pub digest: String,
    /// What the user is shown: the file, the server and its command or URL.
    pub detail: String,
}

impl Request {
    pub fn new(kind: Kind, key: impl Into<String>, digest: String, detail: String) -> Request {
        Request {
            kind,
            key: key.into(),
            digest,
            detail,
        }
    }

    /// The same request: kind, key and digest (the detail is only for reading).
    pub fn same(&self, other: &Request) -> bool {
        self.kind == other.kind && self.key == other.key && self.digest == other.digest
    }
}

/// `sha256:<hex>` of `parts`, each length-prefixed so no two lists hash alike.
pub fn digest(parts: &[&str]) -> String {
    let mut hasher = Sha256::new();
    for part in parts {
        hasher.update((part.len() as u64).to_le_bytes());
        hasher.update(part.as_bytes());
    }
    let mut out = String::from("sha256:");
    for b in hasher.finalize() {
        let _ = write!(out, "{b:02x}");
    }
    out
}

/// What the command line allows for this run, beyond what was approved.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Grant {
    /// `--trust`: everything this project asks for, this run.
    pub all: bool,
    /// `--scope user` on a command that installs the whole project (`install --scope user`):
    /// every user-scope write of this run, into the hosts named with `--host` when some are.
    pub user_scope: bool,
    /// Registry packages named on the command line (`add NAME`, `install NAME`, `update
    /// NAME`), with what they pull in. In a state of the user's own they may go wherever the
    /// manifest sends them; elsewhere only those in `scope_user`.
    pub named: BTreeSet<String>,
    /// Packages the command line itself sent to the user scope (`add NAME --scope user`), from
    /// a registry the user chose (the default one, or `--registry`): not one the manifest
    /// already tied the name to.
    pub scope_user: BTreeSet<String>,
    /// `dotpack update`: user-scope entries already approved may move to their new versions.
    pub updating: bool,
    /// Hosts named with `--host`: with `user_scope`, the only hosts whose user files it allows.
    pub hosts: BTreeSet<String>,
}

/// One thing a command is about to do beyond the project, with what may allow it besides an
/// approval of the request itself.
#[derive(Clone, Debug)]
pub struct Ask {
    pub request: Request,
    /// The package it comes from (`dotpack.toml` for the project's own servers and files,
    /// which no command line names).
    pub package: String,
    /// The host whose file it writes, for user-scope requests.
    pub host: String,
    /// The approval of its package, as locked: in a state of the user's own, it allows the
    /// package's entries wherever the manifest sends them (a host added since, say).
    pub package_request: Option<Request>,
    /// A server the manifest itself declares (not a package's, not a resource file): in a
    /// state the user's own commands left the project in, the user declared it.
    pub declared: bool,
    /// Its package comes from a registry folder inside the project, whose bytes a pull can
    /// change without changing the manifest or the lock.
    pub in_project_registry: bool,
}

impl Grant {
    /// Whether the command line alone allows `ask`.
    pub fn allows(&self, ask: &Ask) -> bool {
        let user = ask.request.kind == Kind::UserScope;
        let whole = self.user_scope && (self.hosts.is_empty() || self.hosts.contains(&ask.host));
        self.all || (user && (whole || self.scope_user.contains(&ask.package)))
    }
}

/// The requests of `asked` that neither `grant` nor the approvals of `project` allow, when
/// its manifest and lock are in `state`. `approvals` is read only when something is asked.
pub fn unapproved<'a>(
    asked: &'a [Ask],
    grant: &Grant,
    approvals: &dyn Fn() -> anyhow::Result<Approvals>,
    project: &str,
    state: &str,
) -> anyhow::Result<Vec<&'a Request>> {
    let open: Vec<&Ask> = asked.iter().filter(|a| !grant.allows(a)).collect();
    if open.is_empty() {
        return Ok(Vec::new());
    }
    let approvals = approvals()?;
    let own_state = approvals.owns_state(project, state);
    Ok(open
        .into_iter()
        .filter(|a| {
            let r = &a.request;
            let user = r.kind == Kind::UserScope;
            let package_approved = || {
                a.package_request
                    .as_ref()
                    .is_some_and(|p| approvals.covers(project, p))
            };
            // In a state of the user's own, their command decides where what they chose goes:
            // the manifest's own servers, packages named now or approved exactly as locked, and
            // (`update`) approved package entries moving to the new version. Content they never
            // saw (a registry answering differently, a resource file a pull changed, a new server
            // an update brings) still asks.
            let owned = own_state
                && user
                && (a.declared
                    || grant.named.contains(&a.package)
                    || package_approved()
                    || (grant.updating
                        && a.package_request.is_some()
                        && !a.in_project_registry
                        && approvals.knows(project, r)));
            !(owned || approvals.covers(project, r))
        })
        .map(|a| &a.request)
        .collect())
}

/// The error for requests no one approved: what they are, that nothing happened, and the two
/// ways to allow them.
pub fn refusal(requests: &[&Request], source: &str, what_happened: &str) -> anyhow::Error {
    refusal_error(requests, source, what_happened).into()
}

/// The text of [`refusal`], also used for warnings.
pub fn refusal_text(requests: &[&Request], source: &str, what_happened: &str) -> String {
    refusal_error(requests, source, what_happened).to_string()
}

/// [`refusal`] as an [`Error`](crate::util::error::Error), its fix the two ways to allow them.
pub fn refusal_error(
    requests: &[&Request],
    source: &str,
    what_happened: &str,
) -> crate::util::error::Error {
    let mut text = listing(requests, source);
    let _ = write!(text, "\n  {what_happened}");
    crate::util::error::Error::new(text).help(
        "if you trust it, `dotpack trust` shows and approves these for this folder; `--trust` allows them for this run only",
    )
}

/// What `source` asks for, grouped by kind, one request a line.
pub fn listing(requests: &[&Request], source: &str) -> String {
    let mut text = format!("{source} asks for what needs your approval on this machine:");
    for kind in Kind::ALL {
        let of_kind: Vec<&&Request> = requests.iter().filter(|r| r.kind == kind).collect();
        if of_kind.is_empty() {
            continue;
        }
        let _ = write!(text, "\n  {}:", kind.heading());
        for r in of_kind {
            // The printer shows any control character in it as an escape.
            let _ = write!(text, "\n    {}", r.detail);
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn user(key: &str, digest: &str) -> Request {
        Request::new(Kind::UserScope, key, digest.to_string(), key.to_string())
    }

    fn ask(request: Request) -> Ask {
        Ask {
            request,
            package: "p".to_string(),
            host: "codex".to_string(),
            package_request: Some(Request::new(
                Kind::UserScope,
                "package p",
                "sha256:p1".to_string(),
                String::new(),
            )),
            declared: false,
            in_project_registry: false,
        }
    }

    #[test]
    fn a_package_approved_as_locked_goes_into_new_hosts_only_in_ones_own_state() {
        let home = tempfile::tempdir().unwrap();
        let load = || Approvals::load(home.path());
        let asked = vec![ask(user("f x", "1"))];
        let package = asked[0].package_request.clone().unwrap();
        store::record(home.path(), "/p", &[Kind::UserScope], &[package]).unwrap();
        // Outside a state of the user's own (a pull added the host), it asks, even with --host.
        let with_host = Grant {
            hosts: ["codex".to_string()].into(),
            ..Grant::default()
        };
        assert_eq!(
            unapproved(&asked, &with_host, &load, "/p", "s")
                .unwrap()
                .len(),
            1
        );
        // In one, the package approved as locked goes where the user's command sends it.
        store::remember_state(home.path(), "/p", "own").unwrap();
        assert!(
            unapproved(&asked, &Grant::default(), &load, "/p", "own")
                .unwrap()
                .is_empty()
        );
    }

    #[test]
    fn in_a_state_of_ones_own_a_package_version_never_seen_still_asks() {
        let home = tempfile::tempdir().unwrap();
        let load = || Approvals::load(home.path());
        store::remember_state(home.path(), "/p", "own").unwrap();
        // An update brought a new server of a package whose new version was never approved.
        let asked = [ask(user("f evil", "1"))];
        let updating = Grant {
            updating: true,
            ..Grant::default()
        };
        assert_eq!(
            unapproved(&asked, &updating, &load, "/p", "own")
                .unwrap()
                .len(),
            1
        );
        // Named on the command line, it is the user's choice.
        let named = Grant {
            named: ["p".to_string()].into(),
            ..Grant::default()
        };
        assert!(
            unapproved(&asked, &named, &load, "/p", "own")
                .unwrap()
                .is_empty()
        );
        // Not in a state of the user's own, naming alone is not enough.
        assert_eq!(
            unapproved(&asked, &named, &load, "/p", "pulled")
                .unwrap()
                .len(),
            1
        );
    }

    #[test]
    fn digests_separate_their_parts() {
        assert_ne!(digest(&["ab", "c"]), digest(&["a", "bc"]));
        assert_eq!(digest(&["a"]).len(), 7 + 64);
    }

    #[test]
    fn named_packages_and_scope_user_allow_user_scope_writes_only() {
        let a = ask(user("f x", "sha256:1"));
        let only_named = Grant {
            named: ["p".to_string()].into(),
            ..Grant::default()
        };
        assert!(
            !only_named.allows(&a),
            "naming is not choosing the user scope"
        );
        let sent = Grant {
            scope_user: ["p".to_string()].into(),
            ..Grant::default()
        };
        assert!(sent.allows(&a));
        let token = Ask {
            request: Request::new(Kind::Token, "u V", "d".into(), String::new()),
            ..a.clone()
        };
        assert!(!sent.allows(&token));
        let all = Grant {
            all: true,
            ..Grant::default()
        };
        assert!(all.allows(&token));
        // `install --host gemini-cli --scope user` is the user scope of that host only.
        let one_host = Grant {
            user_scope: true,
            hosts: ["gemini-cli".to_string()].into(),
            ..Grant::default()
        };
        assert!(!one_host.allows(&a));
        let whole = Grant {
            user_scope: true,
            ..Grant::default()
        };
        assert!(whole.allows(&a));
    }

    #[test]
    fn approvals_are_read_only_when_something_is_asked() {
        let never = || -> anyhow::Result<Approvals> { anyhow::bail!("read") };
        assert!(
            unapproved(&[], &Grant::default(), &never, "/p", "s")
                .unwrap()
                .is_empty()
        );
        let asked = vec![ask(user("f x", "1"))];
        assert!(unapproved(&asked, &Grant::default(), &never, "/p", "s").is_err());
    }

    #[test]
    fn an_update_in_ones_own_state_may_move_an_approved_entry_but_not_add_one() {
        let home = tempfile::tempdir().unwrap();
        store::record(home.path(), "/p", &[Kind::UserScope], &[user("f x", "1")]).unwrap();
        store::remember_state(home.path(), "/p", "own").unwrap();
        let load = || Approvals::load(home.path());
        let asked = vec![ask(user("f x", "2")), ask(user("f y", "1"))];
        let updating = Grant {
            updating: true,
            ..Grant::default()
        };
        let open = unapproved(&asked, &updating, &load, "/p", "own").unwrap();
        assert_eq!(open.len(), 1);
        assert_eq!(open[0].key, "f y");
        // After a pull (not a state of one's own), an update asks for both.
        let open = unapproved(&asked, &updating, &load, "/p", "pulled").unwrap();
        assert_eq!(open.len(), 2);
        let open = unapproved(&asked, &Grant::default(), &load, "/p", "own").unwrap();
        assert_eq!(open.len(), 2);
    }
}
