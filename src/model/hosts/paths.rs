//! Where a host's user file is, as data: a [`UserPath`] says it for Linux, macOS and Windows at
//! once, and is resolved against a [`HostEnv`] that names the platform, the home folder and the
//! variables the hosts honour. Nothing here reads the process environment except
//! [`HostEnv::from_env`], so tests compute every platform's paths on any machine.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::fmt;
use std::path::{Path, PathBuf};

use serde::Serialize;

/// The operating systems whose host paths dotpack knows. Other Unix systems use Linux's (XDG).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Platform {
    Linux,
    Macos,
    Windows,
}

impl Platform {
    pub const ALL: [Platform; 3] = [Platform::Linux, Platform::Macos, Platform::Windows];

    /// The platform dotpack was built for.
    pub const fn current() -> Platform {
        if cfg!(windows) {
            Platform::Windows
        } else if cfg!(target_os = "macos") {
            Platform::Macos
        } else {
            Platform::Linux
        }
    }

    /// How docs and messages name it.
    pub fn name(self) -> &'static str {
        match self {
            Platform::Linux => "linux",
            Platform::Macos => "macos",
            Platform::Windows => "windows",
        }
    }

    fn separator(self) -> char {
        match self {
            Platform::Windows => '\\',
            Platform::Linux | Platform::Macos => '/',
        }
    }

    /// Whether `path` is absolute on this platform (a Windows path is judged on any machine:
    /// `C:\…`, `C:/…` or `\\server\…`).
    pub fn is_absolute(self, path: &Path) -> bool {
        let text = path.to_string_lossy();
        match self {
            Platform::Windows => {
                let b = text.as_bytes();
                text.starts_with("\\\\")
                    || (b.len() >= 3
                        && b[0].is_ascii_alphabetic()
                        && b[1] == b':'
                        && (b[2] == b'\\' || b[2] == b'/'))
            }
            Platform::Linux | Platform::Macos => text.starts_with('/'),
        }
    }
}

impl fmt::Display for Platform {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A location under the user's home or config directories, resolved against a [`HostEnv`].
/// Relative parts are written with `/` and joined with the platform's own separator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UserPath {
    /// Relative to the home directory (`%USERPROFILE%` on Windows).
    Home(&'static str),
    /// `$var/file` when the variable is set (non-empty), else `~/default/file`. Hosts that let
    /// users move their config directory (`CODEX_HOME`, `CLAUDE_CONFIG_DIR`) use this, so dotpack
    /// writes the file the host actually reads. An empty `default` or `file` adds nothing.
    EnvDir {
        var: &'static str,
        default: &'static str,
        file: &'static str,
    },
    /// `$var/file` when the variable is set (non-empty), else `otherwise`: a variable in front of
    /// a location that is not simply under the home folder (`GOOSE_PATH_ROOT`).
    VarOr {
        var: &'static str,
        file: &'static str,
        otherwise: &'static UserPath,
    },
    /// Relative to the OS's per-user application-data directory, as Electron and VS Code find
    /// it: Linux `$XDG_CONFIG_HOME`, else `~/.config`; macOS `~/Library/Application Support`;
    /// Windows `%APPDATA%`, else `%USERPROFILE%\AppData\Roaming`.
    Config(&'static str),
    /// Relative to `$XDG_CONFIG_HOME`, else `~/.config`, on every OS, Windows included
    /// (programs that follow the XDG layout everywhere, like opencode and Crush).
    XdgConfig(&'static str),
    /// A different location per platform (Zed keeps `~/.config/zed` on macOS but
    /// `%APPDATA%\Zed` on Windows).
    PerPlatform {
        linux: &'static UserPath,
        macos: &'static UserPath,
        windows: &'static UserPath,
    },
}

impl UserPath {
    /// The absolute path in `env`, on `env.platform`.
    pub fn resolve(&self, env: &HostEnv) -> PathBuf {
        let at = |base: &Path, rel: &str| env.join(base, rel);
        match *self {
            UserPath::Home(rel) => at(&env.home, rel),
            UserPath::EnvDir { var, default, file } => match env.vars.get(var) {
                Some(dir) => at(dir, file),
                None => at(&at(&env.home, default), file),
            },
            UserPath::VarOr {
                var,
                file,
                otherwise,
            } => match env.vars.get(var) {
                Some(dir) => at(dir, file),
                None => otherwise.resolve(env),
            },
            UserPath::Config(rel) => at(&env.config_dir(), rel),
            UserPath::XdgConfig(rel) => at(&env.xdg_config_dir(), rel),
            UserPath::PerPlatform {
                linux,
                macos,
                windows,
            } => match env.platform {
                Platform::Linux => linux.resolve(env),
                Platform::Macos => macos.resolve(env),
                Platform::Windows => windows.resolve(env),
            },
        }
    }

    /// Every environment variable this location honours on some platform.
    pub(super) fn vars(&self, out: &mut Vec<&'static str>) {
        match *self {
            UserPath::Home(_) => {}
            UserPath::EnvDir { var, .. } => out.push(var),
            UserPath::VarOr { var, otherwise, .. } => {
                out.push(var);
                otherwise.vars(out);
            }
            UserPath::Config(_) => out.extend([XDG_CONFIG_HOME, APPDATA]),
            UserPath::XdgConfig(_) => out.push(XDG_CONFIG_HOME),
            UserPath::PerPlatform {
                linux,
                macos,
                windows,
            } => {
                linux.vars(out);
                macos.vars(out);
                windows.vars(out);
            }
        }
    }
}

pub(super) const XDG_CONFIG_HOME: &str = "XDG_CONFIG_HOME";
pub(super) const APPDATA: &str = "APPDATA";

/// The parts of the environment that decide where host files live: the platform, the home
/// folder and the directory variables the hosts honour. Built once at the edge
/// ([`HostEnv::from_env`]) so nothing deeper reads environment variables, and built by hand in
/// tests for any platform.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostEnv {
    pub platform: Platform,
    pub home: PathBuf,
    /// Directory overrides by variable name (`CODEX_HOME`, `CLAUDE_CONFIG_DIR`,
    /// `XDG_CONFIG_HOME`, `APPDATA`); only variables some adapter honours, only when set and
    /// non-empty.
    pub vars: BTreeMap<String, PathBuf>,
}

/// Why the host environment cannot be determined.
#[derive(Debug, thiserror::Error)]
pub enum HostEnvError {
    #[error("cannot find your home directory: set HOME (USERPROFILE on Windows)")]
    NoHome,
}

impl HostEnv {
    /// A home directory on this machine's platform, with no overrides.
    pub fn new(home: impl Into<PathBuf>) -> Self {
        HostEnv::on(Platform::current(), home)
    }

    /// A home directory on `platform`, with no overrides.
    pub fn on(platform: Platform, home: impl Into<PathBuf>) -> Self {
        HostEnv {
            platform,
            home: home.into(),
            vars: BTreeMap::new(),
        }
    }

    /// The same environment with `var` set to `dir`.
    pub fn with_var(mut self, var: &str, dir: impl Into<PathBuf>) -> Self {
        self.vars.insert(var.to_string(), dir.into());
        self
    }

    /// Reads the home folder and the directory variables the adapters honour from the process
    /// environment.
    pub fn from_env() -> Result<Self, HostEnvError> {
        Self::from_lookup(|name| std::env::var_os(name).map(PathBuf::from))
    }

    /// [`HostEnv::from_env`] over any lookup, on this machine's platform.
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<PathBuf>) -> Result<Self, HostEnvError> {
        Self::from_lookup_on(Platform::current(), lookup)
    }

    /// [`HostEnv::from_lookup`] on `platform`. The home folder is `HOME` (Windows:
    /// `USERPROFILE` first, as Node, Go and Python read it there); empty values count as unset;
    /// a relative `XDG_CONFIG_HOME` or `APPDATA` is ignored, as the XDG base directory spec (and
    /// the `dirs` crate hosts use) requires.
    pub fn from_lookup_on(
        platform: Platform,
        lookup: impl Fn(&str) -> Option<PathBuf>,
    ) -> Result<Self, HostEnvError> {
        let get = |name: &str| lookup(name).filter(|p| !p.as_os_str().is_empty());
        let home = match platform {
            Platform::Windows => get("USERPROFILE").or_else(|| get("HOME")),
            Platform::Linux | Platform::Macos => get("HOME").or_else(|| get("USERPROFILE")),
        }
        .ok_or(HostEnvError::NoHome)?;
        let mut env = HostEnv::on(platform, home);
        for var in super::honoured_vars() {
            if let Some(dir) = get(var)
                && (![XDG_CONFIG_HOME, APPDATA].contains(&var) || platform.is_absolute(&dir))
            {
                env.vars.insert(var.to_string(), dir);
            }
        }
        Ok(env)
    }

    /// `rel` (parts separated by `/`) under `base`, joined with the platform's separator.
    pub fn join(&self, base: &Path, rel: &str) -> PathBuf {
        let sep = self.platform.separator();
        let mut out: OsString = base.as_os_str().to_owned();
        for part in rel.split('/').filter(|p| !p.is_empty()) {
            let text = out.to_string_lossy();
            if !text.is_empty() && !text.ends_with(sep) && !text.ends_with('/') {
                out.push(sep.to_string());
            }
            out.push(part);
        }
        PathBuf::from(out)
    }

    /// The per-user application-data directory ([`UserPath::Config`]).
    pub fn config_dir(&self) -> PathBuf {
        match self.platform {
            Platform::Linux => self.xdg_config_dir(),
            Platform::Macos => self.join(&self.home, "Library/Application Support"),
            Platform::Windows => match self.vars.get(APPDATA) {
                Some(dir) => dir.clone(),
                None => self.join(&self.home, "AppData/Roaming"),
            },
        }
    }

    /// `$XDG_CONFIG_HOME`, else `~/.config` ([`UserPath::XdgConfig`]).
    pub fn xdg_config_dir(&self) -> PathBuf {
        match self.vars.get(XDG_CONFIG_HOME) {
            Some(dir) => dir.clone(),
            None => self.join(&self.home, ".config"),
        }
    }
}
