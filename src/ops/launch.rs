//! `dotpack run`: what a host starts instead of a server whose secrets it cannot give. Checks the
//! pin, reads each secret from the credential store (else from this process's environment), and
//! executes the server in this process's place: same process, stdio and signals untouched, its
//! exit code the host's to read.
//!
//! Start-up is on the path of every server a host starts, so this reads no project, registry or
//! state folder. The store gives its secrets only to an entry dotpack wrote on this machine:
//! every install records the pins of the launcher entries it leaves in host files in
//! `$DOTPACK_HOME/launcher-pins` (see [`record_pins`]), and an entry whose pin is not there (one
//! a repository committed, say, whose pin anyone can compute) gets its secrets from the
//! environment the host passed, never from the store. Run by hand on a terminal, the user's own
//! command is consent enough.

use anyhow::Result;

use crate::model::launcher::{PIN_PREFIX, pin};
use crate::ops::secrets::{self, BUS_VAR, find_session_bus};
use crate::util::error::Error;

/// What the entry asks for: `dotpack run [--pin DIGEST] [--secret NAME]... -- COMMAND ARGS...`.
#[derive(Debug, Clone)]
pub struct LaunchOptions {
    pub pin: Option<String>,
    pub secrets: Vec<String>,
    /// `--url`: proxy stdio to this remote server instead of starting a command
    /// (`ops::proxy`).
    pub url: Option<String>,
    /// `--header 'NAME: TEMPLATE'`, sent to the remote server with each `{{env.SECRET}}`
    /// replaced by the secret.
    pub headers: Vec<String>,
    /// The server's program, then its arguments.
    pub command: Vec<String>,
}

/// Starts the server. On Unix it returns only on failure (the server has replaced this
/// process); elsewhere it waits for the server and returns its exit code.
pub fn launch(options: &LaunchOptions) -> Result<i32> {
    if let Some(url) = &options.url {
        return crate::ops::proxy::proxy(url, options);
    }
    if !options.headers.is_empty() {
        return Err(Error::usage("dotpack run: --header goes with --url").into());
    }
    let Some((program, args)) = options.command.split_first() else {
        return Err(Error::usage("dotpack run needs a command after `--`").into());
    };
    for name in &options.secrets {
        secrets::check_name(name)?;
    }
    if let Some(expected) = &options.pin {
        check_pin(expected, program, args, &options.secrets)?;
    }
    let mut command = spawnable(program, args, cfg!(windows));
    let from_store = !options.secrets.is_empty() && written_here(options.pin.as_deref());
    if from_store && find_session_bus() {
        // Found for the store only: the server's environment gains nothing but its secrets.
        command.env_remove(BUS_VAR);
    }
    for name in &options.secrets {
        let value = match from_store {
            true => secret_value(name)?,
            false => from_environment(name)?,
        };
        command.env(name, value);
    }
    start(command, program)
}

/// The file of the pins of the launcher entries dotpack wrote on this machine, one a line.
pub const PINS_FILE: &str = "launcher-pins";

/// How many pins the file keeps, newest last: enough for every entry of many projects.
const PINS_KEPT: usize = 4096;

/// `$DOTPACK_HOME`, else `~/.dotpack`, as the other commands find it, from what a host passes.
fn dotpack_home() -> Option<std::path::PathBuf> {
    match std::env::var_os("DOTPACK_HOME") {
        Some(dir) if !dir.is_empty() => Some(dir.into()),
        _ => std::env::var_os("HOME")
            .filter(|h| !h.is_empty())
            .map(|h| std::path::PathBuf::from(h).join(".dotpack")),
    }
}

/// Whether the store may give this entry its secrets: its pin is one dotpack recorded here, or
/// the user runs it on a terminal.
pub(super) fn written_here(pin: Option<&str>) -> bool {
    use std::io::IsTerminal;
    if std::io::stdin().is_terminal() && std::io::stderr().is_terminal() {
        return true;
    }
    let (Some(pin), Some(home)) = (pin, dotpack_home()) else {
        return false;
    };
    std::fs::read_to_string(home.join(PINS_FILE)).is_ok_and(|text| text.lines().any(|l| l == pin))
}

/// The secret from the environment the host passed, for an entry the store does not serve.
pub(super) fn from_environment(name: &str) -> Result<String> {
    if let Some(value) = std::env::var(name).ok().filter(|v| !v.is_empty()) {
        return Ok(value);
    }
    Err(Error::new(format!(
        "dotpack run: the credential store gives {name} only to an entry dotpack wrote on this \
         machine, and this one was not (it may have come with a repository); the environment \
         has no {name} either"
    ))
    .code("launcher-not-written-here")
    .help(
        "if you trust the project, run `dotpack install` in it: dotpack writes the entry again \
         and records it (`$DOTPACK_HOME/launcher-pins`)",
    )
    .into())
}

/// The pins recorded in `$DOTPACK_HOME/launcher-pins` (`home`): the launcher entries dotpack
/// wrote on this machine.
pub fn recorded_pins(home: &std::path::Path) -> Vec<String> {
    std::fs::read_to_string(home.join(PINS_FILE))
        .map(|text| text.lines().map(str::to_string).collect())
        .unwrap_or_default()
}

/// Adds `pins` to `$DOTPACK_HOME/launcher-pins` (`home`), keeping the newest [`PINS_KEPT`].
/// Best effort for the caller: an entry whose pin is not recorded gets no secret from the store,
/// and says so.
pub fn record_pins(home: &std::path::Path, pins: &[String]) -> Result<()> {
    if pins.is_empty() {
        return Ok(());
    }
    std::fs::create_dir_all(home)?;
    let path = home.join(PINS_FILE);
    let old = std::fs::read_to_string(&path).unwrap_or_default();
    let mut kept: Vec<&str> = old
        .lines()
        .filter(|l| l.starts_with(PIN_PREFIX) && !pins.iter().any(|p| p == l))
        .collect();
    for pin in pins {
        if !kept.contains(&pin.as_str()) {
            kept.push(pin);
        }
    }
    let skip = kept.len().saturating_sub(PINS_KEPT);
    let text: String = kept[skip..].iter().map(|p| format!("{p}\n")).collect();
    if text == old {
        return Ok(());
    }
    crate::util::fsutil::write_atomic_with(
        &path,
        text.as_bytes(),
        crate::util::fsutil::WriteOptions::PRIVATE,
    )
}

fn check_pin(expected: &str, program: &str, args: &[String], names: &[String]) -> Result<()> {
    check_pin_of(
        expected,
        &format!("start `{program}`"),
        &pin(program, args, names),
    )
}

/// Refuses, saying `what` it would have done, when `actual` (the pin of what the arguments ask
/// for) is not the `expected` one the entry carries.
pub(super) fn check_pin_of(expected: &str, what: &str, actual: &str) -> Result<()> {
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
    if actual == expected {
        return Ok(());
    }
    Err(Error::new(format!(
        "dotpack run refuses to {what}: this entry's command, arguments or secrets are \
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
pub(super) fn secret_value(name: &str) -> Result<String> {
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

/// The command that starts `program`: on Windows a batch shim (`npx`) through `cmd /c`, as
/// `CreateProcess` cannot run a `.cmd` itself.
fn spawnable(program: &str, args: &[String], windows: bool) -> std::process::Command {
    if windows && crate::model::hosts::windows_cmd::is_cmd_shim(program) {
        let mut command = std::process::Command::new("cmd");
        command.arg("/c").arg(program).args(args);
        command
    } else {
        let mut command = std::process::Command::new(program);
        command.args(args);
        command
    }
}

fn cannot_start(program: &str, err: std::io::Error) -> anyhow::Error {
    Error::new(format!("dotpack run cannot start `{program}`: {err}"))
        .help("check that the server's program is installed and on the PATH the host passes")
        .into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_pin_is_recorded_once_and_the_newest_last() {
        let home = tempfile::tempdir().unwrap();
        let a = format!("{PIN_PREFIX}{}", "a".repeat(64));
        let b = format!("{PIN_PREFIX}{}", "b".repeat(64));
        record_pins(home.path(), &[a.clone(), a.clone(), b.clone()]).unwrap();
        record_pins(home.path(), std::slice::from_ref(&a)).unwrap();
        let text = std::fs::read_to_string(home.path().join(PINS_FILE)).unwrap();
        assert_eq!(text, format!("{b}\n{a}\n"));
    }

    #[test]
    fn a_batch_shim_starts_through_cmd_on_windows() {
        let args = vec!["-y".to_string(), "pkg".to_string()];
        let shown = |c: std::process::Command| {
            let mut all = vec![c.get_program().to_string_lossy().into_owned()];
            all.extend(c.get_args().map(|a| a.to_string_lossy().into_owned()));
            all
        };
        assert_eq!(
            shown(spawnable("npx", &args, true)),
            ["cmd", "/c", "npx", "-y", "pkg"]
        );
        assert_eq!(shown(spawnable("npx", &args, false)), ["npx", "-y", "pkg"]);
        assert_eq!(shown(spawnable("uvx", &args, true)), ["uvx", "-y", "pkg"]);
    }
}
