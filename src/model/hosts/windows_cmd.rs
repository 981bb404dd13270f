//! `npx` on Windows is `npx.cmd`, a batch file: a host that starts a server without a shell
//! (Node's `spawn`, Rust's `Command`) cannot run it ("spawn npx ENOENT"; since Node 18.20.2 a
//! `.cmd` is refused outright without a shell), the best-known MCP failure on Windows. Written
//! for Windows, such an entry starts `cmd /c npx …` instead, which every host can run; import
//! takes the wrapper off again, so the canonical server stays `npx …`.

use super::{HostAdapter, Platform};
use crate::model::manifest::Server;

/// Commands that are batch shims on Windows (npm installs them as `NAME.cmd`).
pub const CMD_SHIMS: &[&str] = &["npx", "npm", "pnpm", "pnpx", "yarn"];

/// Hosts that find and run a batch shim themselves, so their entries stay as declared: Crush
/// (Go's `os/exec` looks the command up with `PATHEXT`, and Windows runs a found `.cmd` through
/// `cmd`), Hermes (the Python MCP SDK's `get_windows_executable_command` resolves `.cmd`).
pub const RUNS_SHIMS_ITSELF: &[&str] = &["crush", "hermes"];

/// Whether `command` is a batch shim: one of [`CMD_SHIMS`], or any `*.cmd` / `*.bat`.
pub fn is_cmd_shim(command: &str) -> bool {
    let lower = command.to_ascii_lowercase();
    let name = lower.rsplit(['/', '\\']).next().unwrap_or(&lower);
    CMD_SHIMS.contains(&name) || name.ends_with(".cmd") || name.ends_with(".bat")
}

/// Whether `host`'s entry for a server started by `command` needs `cmd /c` on `platform`.
pub fn needs_cmd(host: &HostAdapter, platform: Platform, command: &str) -> bool {
    platform == Platform::Windows && !RUNS_SHIMS_ITSELF.contains(&host.id) && is_cmd_shim(command)
}

/// `server` started through `cmd /c` when [`needs_cmd`] says so; `None` when it stays as it is.
pub fn wrap(host: &HostAdapter, platform: Platform, server: &Server) -> Option<Server> {
    let command = server.command.as_deref()?;
    if !needs_cmd(host, platform, command) {
        return None;
    }
    let mut args = vec!["/c".to_string(), command.to_string()];
    args.extend(server.args.iter().flatten().cloned());
    Some(Server {
        command: Some("cmd".to_string()),
        args: Some(args),
        ..server.clone()
    })
}

/// The command and arguments inside a `cmd /c SHIM …` wrapper (read from a host file): `SHIM`
/// and the rest; `None` for any other command, `cmd` used otherwise included.
pub fn unwrapped(command: &str, args: &[String]) -> Option<(String, Vec<String>)> {
    let is_cmd = command.eq_ignore_ascii_case("cmd") || command.eq_ignore_ascii_case("cmd.exe");
    match args {
        [c, shim, rest @ ..] if is_cmd && c.eq_ignore_ascii_case("/c") && is_cmd_shim(shim) => {
            Some((shim.clone(), rest.to_vec()))
        }
        _ => None,
    }
}

/// [`unwrapped`] applied to `server` in place.
pub fn unwrap(server: &mut Server) {
    let command = server.command.as_deref().unwrap_or_default();
    let args = server.args.as_deref().unwrap_or_default();
    if let Some((shim, rest)) = unwrapped(command, args) {
        server.command = Some(shim);
        server.args = Some(rest);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::hosts::{ADAPTERS, adapter};

    fn server(command: &str, args: &[&str]) -> Server {
        Server {
            command: Some(command.to_string()),
            args: Some(args.iter().map(|a| a.to_string()).collect()),
            ..Server::default()
        }
    }

    /// (host, platform, command) → whether the entry is written as `cmd /c command …`.
    const CASES: &[(&str, Platform, &str, bool)] = &[
        ("claude-code", Platform::Windows, "npx", true),
        ("claude-desktop", Platform::Windows, "npx", true),
        ("cursor", Platform::Windows, "npm", true),
        ("gemini-cli", Platform::Windows, "pnpm", true),
        ("codex", Platform::Windows, "yarn", true),
        ("vscode", Platform::Windows, "npx.cmd", true),
        (
            "windsurf",
            Platform::Windows,
            r"C:\Program Files\nodejs\npx.cmd",
            true,
        ),
        ("goose", Platform::Windows, "setup.BAT", true),
        ("crush", Platform::Windows, "npx", false),
        ("hermes", Platform::Windows, "npx", false),
        ("claude-code", Platform::Windows, "uvx", false),
        ("claude-code", Platform::Windows, "node", false),
        ("claude-code", Platform::Windows, "dotpack", false),
        ("claude-code", Platform::Linux, "npx", false),
        ("claude-code", Platform::Macos, "npx", false),
    ];

    #[test]
    fn shims_are_wrapped_on_windows_for_hosts_that_spawn_without_a_shell() {
        for &(id, platform, command, wrapped) in CASES {
            let host = adapter(id).unwrap();
            let declared = server(command, &["-y", "@scope/pkg", "--flag"]);
            let written = wrap(host, platform, &declared);
            if wrapped {
                let written = written.unwrap_or_else(|| panic!("{id} {platform} {command}"));
                assert_eq!(written.command.as_deref(), Some("cmd"));
                assert_eq!(
                    written.args.as_deref().unwrap(),
                    ["/c", command, "-y", "@scope/pkg", "--flag"]
                );
                let mut back = written.clone();
                unwrap(&mut back);
                assert_eq!(back, declared, "import undoes it");
            } else {
                assert_eq!(written, None, "{id} {platform} {command}");
            }
        }
    }

    #[test]
    fn every_host_but_the_ones_that_resolve_shims_gets_cmd_on_windows() {
        for host in ADAPTERS {
            assert_eq!(
                needs_cmd(host, Platform::Windows, "npx"),
                !RUNS_SHIMS_ITSELF.contains(&host.id),
                "{}",
                host.id
            );
        }
    }

    #[test]
    fn only_a_cmd_wrapper_of_a_shim_is_taken_off() {
        for (command, args) in [
            ("cmd", &["/c", "dir"][..]),
            ("cmd", &["/k", "npx", "x"][..]),
            ("cmd", &["/c"][..]),
            ("npx", &["/c", "npx"][..]),
        ] {
            let mut s = server(command, args);
            let before = s.clone();
            unwrap(&mut s);
            assert_eq!(s, before, "{command} {args:?}");
        }
        let mut s = server("CMD.EXE", &["/C", "npx", "-y", "pkg"]);
        unwrap(&mut s);
        assert_eq!(s, server("npx", &["-y", "pkg"]));
    }
}
