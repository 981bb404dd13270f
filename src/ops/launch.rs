//! `dotpack run`: what a host starts instead of a server whose secrets it cannot give. Checks the
//! pin, reads each secret from the credential store (else from this process's environment), and
//! executes the server in this process's place: same process, stdio and signals untouched, its
//! exit code the host's to read.
//!
//! Start-up is on the path of every server a host starts, so this reads no project, registry or
//! state folder: the pin in the entry's arguments is all it trusts.

use anyhow::Result;

use crate::model::launcher::{PIN_PREFIX, pin};
use crate::ops::secrets;
use crate::util::error::Error;

/// What the entry asks for: `dotpack run [--pin DIGEST] [--secret NAME]... -- COMMAND ARGS...`.
#[derive(Debug, Clone)]
pub struct LaunchOptions {
    pub pin: Option<String>,
    pub secrets: Vec<String>,
    /// The server's program, then its arguments.
    pub command: Vec<String>,
}

/// Starts the server. On Unix it returns only on failure (the server has replaced this
/// process); elsewhere it waits for the server and returns its exit code.
pub fn launch(options: &LaunchOptions) -> Result<i32> {
    let Some((program, args)) = options.command.split_first() else {
        return Err(Error::usage("dotpack run needs a command after `--`").into());
    };
    for name in &options.secrets {
        secrets::check_name(name)?;
    }
    if let Some(expected) = &options.pin {
        check_pin(expected, program, args, &options.secrets)?;
    }
    let mut command = std::process::Command::new(program);
    command.args(args);
    if !options.secrets.is_empty() && find_session_bus() {
        // Found for the store only: the server's environment gains nothing but its secrets.
        command.env_remove(BUS_VAR);
    }
    for name in &options.secrets {
        command.env(name, secret_value(name)?);
    }
    start(command, program)
}

const BUS_VAR: &str = "DBUS_SESSION_BUS_ADDRESS";

/// Where a host passed no session bus address (unset, or set but empty): the first of
/// `$XDG_RUNTIME_DIR/bus` and `/run/user/UID/bus` that is a socket becomes this process's
/// `DBUS_SESSION_BUS_ADDRESS`, so that the store is reached the way the platform defines it.
/// Returns whether it set the variable.
#[cfg(all(unix, not(target_os = "macos")))]
fn find_session_bus() -> bool {
    use std::os::unix::fs::FileTypeExt;
    if std::env::var_os(BUS_VAR).is_some_and(|v| !v.is_empty()) {
        return false;
    }
    let runtime = std::env::var_os("XDG_RUNTIME_DIR")
        .filter(|v| !v.is_empty())
        .map(std::path::PathBuf::from);
    let user =
        std::path::PathBuf::from(format!("/run/user/{}", rustix::process::getuid().as_raw()));
    let Some(socket) = runtime
        .into_iter()
        .chain([user])
        .map(|dir| dir.join("bus"))
        .find(|path| std::fs::metadata(path).is_ok_and(|m| m.file_type().is_socket()))
    else {
        return false;
    };
    // SAFETY: the launcher runs before any thread is started (`cli::main` sends `dotpack run`
    // here first: no logging, no spinner), so nothing reads the environment meanwhile.
    unsafe { std::env::set_var(BUS_VAR, format!("unix:path={}", socket.display())) };
    true
}

#[cfg(not(all(unix, not(target_os = "macos"))))]
fn find_session_bus() -> bool {
    false
}

fn check_pin(expected: &str, program: &str, args: &[String], names: &[String]) -> Result<()> {
    let hex = expected.strip_prefix(PIN_PREFIX).unwrap_or("");
    if hex.len() != 64
        || !hex
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    {
        return Err(Error::usage(format!(
            "--pin {expected}: expected {PIN_PREFIX} and 64 hex digits"
        ))
        .into());
    }
    if pin(program, args, names) == expected {
        return Ok(());
    }
    Err(Error::new(format!(
        "dotpack run refuses to start `{program}`: this entry's command, arguments or secrets are \
         not the ones it was written with (pin {expected}); dotpack.toml changed since the entry \
         was written, or the entry was edited by hand"
    ))
    .code("pin-mismatch")
    .help(
        "run `dotpack install` in the project to write the entry again (the host may ask you to \
         approve the server again)",
    )
    .into())
}

/// The secret from the store, else from the environment; an error naming it otherwise. When the
/// store cannot be reached and the environment has no value, the store's error says why.
fn secret_value(name: &str) -> Result<String> {
    let from_store = secrets::get(name);
    if let Ok(Some(value)) = from_store {
        return Ok(value);
    }
    if let Some(value) = std::env::var(name).ok().filter(|v| !v.is_empty()) {
        return Ok(value);
    }
    match from_store {
        Err(err) => Err(err.context(format!(
            "dotpack run: the secret {name} is not in the environment, and the credential store \
             could not be read"
        ))),
        Ok(_) => Err(Error::new(format!(
            "dotpack run: the secret {name} is neither in the credential store nor in the \
             environment"
        ))
        .help(format!("store it with `dotpack secret set {name}`"))
        .into()),
    }
}

#[cfg(unix)]
fn start(mut command: std::process::Command, program: &str) -> Result<i32> {
    use std::os::unix::process::CommandExt;
    let err = command.exec();
    Err(cannot_start(program, err))
}

#[cfg(not(unix))]
fn start(mut command: std::process::Command, program: &str) -> Result<i32> {
    let status = command.status().map_err(|e| cannot_start(program, e))?;
    Ok(status.code().unwrap_or(1))
}

fn cannot_start(program: &str, err: std::io::Error) -> anyhow::Error {
    Error::new(format!("dotpack run cannot start `{program}`: {err}"))
        .help("check that the server's program is installed and on the PATH the host passes")
        .into()
}
