//! The user's secrets in the OS credential store: the Secret Service over D-Bus on Linux, the
//! Keychain on macOS, the Credential Manager on Windows (through the `keyring` crate).
//!
//! Each secret is one credential of the service `dotpack`, its user the secret's name. The
//! store cannot list what it holds, so the names (which are not secret) are kept in one more
//! credential of the same service, under a user no secret can have (names are environment
//! variable names, without a dot). Where no store answers there is no fallback: a plain file
//! would be exactly what the store is for avoiding, so the error says what to start instead.
//!
//! On Linux, without `DBUS_SESSION_BUS_ADDRESS`, libdbus looks for the session bus at
//! `$XDG_RUNTIME_DIR/bus` (it is built without X11 autolaunch, so it never starts a bus);
//! [`find_session_bus`] looks past an empty address and a runtime folder without a bus too, to
//! `/run/user/UID/bus`, so that the launcher and the gateway, started by a host with little more
//! than HOME, and `doctor` and `secret` all reach the same store.

use anyhow::Result;

use crate::model::launcher::is_secret_name;
use crate::util::error::Error;

/// The service every dotpack credential is stored under.
pub const SERVICE: &str = "dotpack";

/// The user of the credential that holds the names of the secrets, one a line.
const INDEX: &str = "dotpack.names";

/// A secret name checked against the rule of environment variable names (exit 2 otherwise).
pub fn check_name(name: &str) -> Result<()> {
    if is_secret_name(name) {
        return Ok(());
    }
    Err(Error::usage(format!("`{name}` is not a secret name"))
        .help(
            "a secret is named like an environment variable: a letter or `_`, then letters, \
             digits and `_` (GITHUB_PERSONAL_ACCESS_TOKEN)",
        )
        .into())
}

/// Stores `value` as the secret `name`, replacing any value it had.
pub fn set(name: &str, value: &str) -> Result<()> {
    check_name(name)?;
    if value.is_empty() {
        return Err(Error::usage(format!("the value of secret {name} is empty"))
            .help("type the value, or pipe it in: `printf %s \"$VALUE\" | dotpack secret set NAME`")
            .into());
    }
    entry(name)?
        .set_password(value)
        .map_err(|e| store_error(e, "store the secret"))?;
    let mut names = list()?;
    if !names.iter().any(|n| n == name) {
        names.push(name.to_string());
        write_index(&names)?;
    }
    Ok(())
}

/// The secret `name`'s value, or `None` when the store has no such secret.
pub fn get(name: &str) -> Result<Option<String>> {
    match entry(name)?.get_password() {
        Ok(value) => Ok(Some(value)),
        Err(keyring::Error::NoEntry) => Ok(None),
        Err(e) => Err(store_error(e, &format!("read the secret {name}"))),
    }
}

/// The names of the stored secrets, sorted.
pub fn list() -> Result<Vec<String>> {
    let text = match entry(INDEX)?.get_password() {
        Ok(text) => text,
        Err(keyring::Error::NoEntry) => String::new(),
        Err(e) => return Err(store_error(e, "read the names of the secrets")),
    };
    let mut names: Vec<String> = text
        .lines()
        .filter(|l| is_secret_name(l))
        .map(str::to_string)
        .collect();
    names.sort();
    names.dedup();
    Ok(names)
}

/// Deletes the secret `name`; an error when the store has no such secret.
pub fn remove(name: &str) -> Result<()> {
    check_name(name)?;
    let gone = match entry(name)?.delete_credential() {
        Ok(()) => true,
        Err(keyring::Error::NoEntry) => false,
        Err(e) => return Err(store_error(e, "delete the secret")),
    };
    let mut names = list()?;
    let listed = names.iter().any(|n| n == name);
    if listed {
        names.retain(|n| n != name);
        write_index(&names)?;
    }
    if !gone && !listed {
        return Err(Error::new(format!("there is no secret {name}"))
            .help("`dotpack secret list` shows the names of the stored secrets")
            .into());
    }
    Ok(())
}

fn write_index(names: &[String]) -> Result<()> {
    let index = entry(INDEX)?;
    let result = if names.is_empty() {
        match index.delete_credential() {
            Err(keyring::Error::NoEntry) => Ok(()),
            other => other,
        }
    } else {
        index.set_password(&names.join("\n"))
    };
    result.map_err(|e| store_error(e, "record the names of the secrets"))
}

fn entry(user: &str) -> Result<keyring::Entry> {
    keyring::Entry::new(SERVICE, user).map_err(|e| store_error(e, "open the credential store"))
}

/// A store error with what to do: which store dotpack uses here and how to get one running.
fn store_error(err: keyring::Error, doing: &str) -> anyhow::Error {
    let (message, help) = match &err {
        keyring::Error::NoStorageAccess(cause) => (
            format!("cannot {doing}: the credential store is locked or refused access ({cause})"),
            format!("unlock it ({UNLOCK}) and try again"),
        ),
        keyring::Error::PlatformFailure(cause) => (
            format!("cannot {doing}: no credential store answered ({cause})"),
            NO_STORE.to_string(),
        ),
        other => (format!("cannot {doing}: {other}"), NO_STORE.to_string()),
    };
    Error::new(message).help(help).into()
}

#[cfg(target_os = "linux")]
const UNLOCK: &str = "log in to the desktop session, or `gnome-keyring-daemon --unlock`";
#[cfg(target_os = "macos")]
const UNLOCK: &str = "Keychain Access";
#[cfg(not(any(target_os = "linux", target_os = "macos")))]
const UNLOCK: &str = "the system's credential manager";

#[cfg(all(unix, not(target_os = "macos")))]
const NO_STORE: &str = "dotpack keeps secrets in the Secret Service, over the D-Bus session bus \
    (DBUS_SESSION_BUS_ADDRESS, else $XDG_RUNTIME_DIR/bus, else /run/user/UID/bus), and never in a \
    plain file. Start one in your session: install gnome-keyring (or KeePassXC with its Secret \
    Service on) and run `gnome-keyring-daemon --start --components=secrets` (a headless machine \
    needs `dbus-run-session` or a user bus too). Without a store, give servers their secrets as \
    environment variables ({{env.NAME}} references), or write values with --resolve-env";
#[cfg(target_os = "macos")]
const NO_STORE: &str = "dotpack keeps secrets in the login Keychain; check that it exists and \
    is unlocked (Keychain Access). Without it, give servers their secrets as environment \
    variables ({{env.NAME}} references), or write values with --resolve-env";
#[cfg(windows)]
const NO_STORE: &str = "dotpack keeps secrets in the Windows Credential Manager; check that it \
    runs. Without it, give servers their secrets as environment variables ({{env.NAME}} \
    references), or write values with --resolve-env";

pub const BUS_VAR: &str = "DBUS_SESSION_BUS_ADDRESS";

/// Where a host passed no session bus address (unset, or set but empty): the first of
/// `$XDG_RUNTIME_DIR/bus` and `/run/user/UID/bus` that is a socket becomes this process's
/// `DBUS_SESSION_BUS_ADDRESS`, so that the store is reached the way the platform defines it.
/// Returns whether it set the variable.
#[cfg(all(unix, not(target_os = "macos")))]
pub fn find_session_bus() -> bool {
    if std::env::var_os(BUS_VAR).is_some_and(|v| !v.is_empty()) {
        return false;
    }
    let runtime = std::env::var_os("XDG_RUNTIME_DIR")
        .filter(|v| !v.is_empty())
        .map(std::path::PathBuf::from);
    let user =
        std::path::PathBuf::from(format!("/run/user/{}", rustix::process::getuid().as_raw()));
    let Some(socket) = session_bus_socket(runtime.into_iter().chain([user])) else {
        return false;
    };
    // SAFETY: called only from `cli::main` before any thread is started (no logging, no
    // spinner yet), so nothing reads the environment meanwhile.
    unsafe { std::env::set_var(BUS_VAR, format!("unix:path={}", socket.display())) };
    true
}

/// The first `DIR/bus` of `dirs` that is a socket.
#[cfg(all(unix, not(target_os = "macos")))]
fn session_bus_socket(
    dirs: impl IntoIterator<Item = std::path::PathBuf>,
) -> Option<std::path::PathBuf> {
    use std::os::unix::fs::FileTypeExt;
    dirs.into_iter()
        .map(|dir| dir.join("bus"))
        .find(|path| std::fs::metadata(path).is_ok_and(|m| m.file_type().is_socket()))
}

#[cfg(not(all(unix, not(target_os = "macos"))))]
pub fn find_session_bus() -> bool {
    false
}

#[cfg(all(test, unix, not(target_os = "macos")))]
mod tests {
    use super::session_bus_socket;

    /// A runtime folder without a bus (or with a plain file named `bus`) is passed over for the
    /// next one, as `/run/user/UID` is after an `XDG_RUNTIME_DIR` a host set to somewhere else.
    #[test]
    fn the_bus_is_the_first_socket_of_the_runtime_folders() {
        let root = tempfile::TempDir::new().expect("temp dir");
        let [empty, file, socket] = ["empty", "file", "socket"].map(|n| root.path().join(n));
        for dir in [&empty, &file, &socket] {
            std::fs::create_dir(dir).expect("folder");
        }
        std::fs::write(file.join("bus"), "").expect("plain file");
        let _listener =
            std::os::unix::net::UnixListener::bind(socket.join("bus")).expect("bind a socket");
        assert_eq!(
            session_bus_socket([empty.clone(), file.clone(), socket.clone()]),
            Some(socket.join("bus"))
        );
        assert_eq!(session_bus_socket([empty, file]), None);
    }
}
