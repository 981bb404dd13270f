//! The stdio transport: a child process reading newline-delimited JSON-RPC on stdin and writing
//! it on stdout. A thread reads stdout line by line (each line and the whole output bounded) and
//! another keeps the end of stderr; the child runs in its own process group, so ending it ends
//! whatever it started too.
//!
//! The child gets a cleared environment: the few variables in [`BASE_ENV`] that programs need to
//! run, taken from dotpack's environment, and the server's own `env`. Nothing else of dotpack's
//! environment (tokens, cloud credentials, `SSH_AUTH_SOCK`) reaches a server unless the server
//! declares it (`GITHUB_TOKEN = "{{env.GITHUB_TOKEN}}"`), which is what a reviewer of its
//! definition sees.
//!
//! On Windows there are no process groups or signals: the child is ended with
//! `TerminateProcess` (`Child::kill`) once stdin closed and the grace ran out, and what it started
//! itself is not ended with it (a documented fallback; a Job object would be the full answer). A
//! batch shim (`npx`, `*.cmd`) is started through `cmd /c`, which Windows needs to run one.

use std::collections::{BTreeMap, VecDeque};
use std::io::{BufRead, BufReader, Read, Write};
#[cfg(unix)]
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio as Pipe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::Value;

use super::jsonrpc::{self, Incoming};
use super::{Failure, Transport};

/// The longest line a server may write: 16 MiB.
pub const MAX_LINE: usize = 16 * 1024 * 1024;
/// The most a server may write on stdout over one session: 256 MiB.
pub const MAX_OUTPUT: usize = 256 * 1024 * 1024;
/// How much of stderr is kept (its end).
const STDERR_KEEP: usize = 8 * 1024;
/// Lines of stderr shown in an error.
const STDERR_LINES: usize = 12;

/// The variables of dotpack's environment every server gets: the list of the official MCP SDKs'
/// `get_default_environment` (`HOME`, `LOGNAME`, `PATH`, `SHELL`, `TERM`, `USER`, itself
/// inspired by sudo's), plus the locale (`LANG`, `LANGUAGE` and every `LC_*`), `TMPDIR` and `TZ`,
/// which change how a program reads and writes text, files and times but carry no credential.
pub const BASE_ENV: &[&str] = &[
    "HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "LANG", "LANGUAGE", "TMPDIR", "TZ",
];

/// [`BASE_ENV`] on Windows: the SDKs' Windows list (`APPDATA`, `PATH`, `SYSTEMROOT`, `TEMP`,
/// `USERPROFILE`, …), plus `PATHEXT` and `COMSPEC`, which finding and running a batch shim need.
/// Names are compared without case there.
pub const BASE_ENV_WINDOWS: &[&str] = &[
    "APPDATA",
    "COMSPEC",
    "HOMEDRIVE",
    "HOMEPATH",
    "LOCALAPPDATA",
    "PATH",
    "PATHEXT",
    "PROCESSOR_ARCHITECTURE",
    "PROGRAMFILES",
    "SYSTEMDRIVE",
    "SYSTEMROOT",
    "TEMP",
    "TMP",
    "USERNAME",
    "USERPROFILE",
];

/// Whether `name` is a variable of the base environment on this platform.
fn is_base_var(name: &str) -> bool {
    if cfg!(windows) {
        BASE_ENV_WINDOWS
            .iter()
            .any(|v| v.eq_ignore_ascii_case(name))
    } else {
        BASE_ENV.contains(&name) || name.starts_with("LC_")
    }
}

/// Commands that are batch files on Windows (npm's shims) and so need `cmd /c` there.
const CMD_SHIMS: &[&str] = &["npx", "npm", "pnpm", "pnpx", "yarn"];

/// The program and arguments that start `command` on the platform `windows` says: on Windows a
/// batch shim goes through `cmd /c`, since `CreateProcess` cannot run a `.cmd` itself.
pub fn program(command: &str, args: &[String], windows: bool) -> (String, Vec<String>) {
    let lower = command.to_ascii_lowercase();
    let name = lower.rsplit(['/', '\\']).next().unwrap_or(&lower);
    let shim = CMD_SHIMS.contains(&name) || name.ends_with(".cmd") || name.ends_with(".bat");
    if windows && shim {
        let mut all = vec!["/c".to_string(), command.to_string()];
        all.extend(args.iter().cloned());
        ("cmd".to_string(), all)
    } else {
        (command.to_string(), args.to_vec())
    }
}

/// The base environment as it is now: the variables of [`BASE_ENV`] and every `LC_*` that are
/// set, except a value starting with `()` (an exported shell function, as the SDKs skip too).
pub fn base_env() -> Vec<(std::ffi::OsString, std::ffi::OsString)> {
    std::env::vars_os()
        .filter(|(name, value)| {
            let Some(name) = name.to_str() else {
                return false;
            };
            is_base_var(name) && !value.as_encoded_bytes().starts_with(b"()")
        })
        .collect()
}

/// What the stdout thread saw.
pub(crate) enum Line {
    Text(String),
    TooLong,
    TooMuch,
    NotUtf8,
    Eof,
    Error(String),
}

pub struct Stdio {
    child: Option<Child>,
    stdin: Option<ChildStdin>,
    lines: Receiver<Line>,
    stderr: Arc<Mutex<VecDeque<u8>>>,
    /// Set when stderr reached its end.
    stderr_done: Arc<AtomicBool>,
    grace: Duration,
}

impl Stdio {
    pub fn spawn(
        command: &str,
        args: &[String],
        env: &BTreeMap<String, String>,
        cwd: Option<&Path>,
        grace: Duration,
    ) -> Result<Stdio, Failure> {
        let (program, args) = program(command, args, cfg!(windows));
        let mut cmd = Command::new(program);
        cmd.args(args)
            .env_clear()
            .envs(base_env())
            .envs(env)
            .stdin(Pipe::piped())
            .stdout(Pipe::piped())
            .stderr(Pipe::piped());
        #[cfg(unix)]
        cmd.process_group(0);
        if let Some(cwd) = cwd {
            cmd.current_dir(cwd);
        }
        let mut child = cmd.spawn().map_err(|e| {
            Failure(format!(
                "could not be started: `{command}`{}: {e}",
                cwd.map(|c| format!(" in {}", c.display()))
                    .unwrap_or_default()
            ))
        })?;
        let stdin = child.stdin.take();
        let (stdout, stderr) = (child.stdout.take(), child.stderr.take());
        let (tx, lines) = mpsc::channel();
        if let Some(stdout) = stdout {
            thread::spawn(move || read_lines(stdout, &tx));
        }
        let tail = Arc::new(Mutex::new(VecDeque::new()));
        let stderr_done = Arc::new(AtomicBool::new(stderr.is_none()));
        if let Some(stderr) = stderr {
            let keep = Arc::clone(&tail);
            let done = Arc::clone(&stderr_done);
            thread::spawn(move || {
                read_tail(stderr, &keep);
                done.store(true, Ordering::Release);
            });
        }
        Ok(Stdio {
            child: Some(child),
            stdin,
            lines,
            stderr: tail,
            stderr_done,
            grace,
        })
    }

    /// The lines the child writes on stdout, for a reader of its own ([`crate::SharedClient`]);
    /// [`Transport::request`] reads none afterwards.
    pub(crate) fn take_lines(&mut self) -> Receiver<Line> {
        std::mem::replace(&mut self.lines, mpsc::channel().1)
    }

    /// Why the session ended, from the line that ended it (anything but text).
    pub(crate) fn failure_of(&mut self, line: Line) -> Failure {
        match line {
            Line::Text(text) => Failure(format!(
                "wrote something that is not JSON-RPC on stdout: {}",
                excerpt(&text)
            )),
            Line::Eof => Failure(match self.exit_status() {
                Some(status) => format!("exited before answering ({status})"),
                None => "closed its output before answering".to_string(),
            }),
            Line::TooLong => Failure(format!(
                "wrote a line longer than {} MiB on stdout",
                MAX_LINE / 1024 / 1024
            )),
            Line::TooMuch => Failure(format!(
                "wrote more than {} MiB on stdout",
                MAX_OUTPUT / 1024 / 1024
            )),
            Line::NotUtf8 => Failure("wrote a line that is not UTF-8 on stdout".to_string()),
            Line::Error(e) => Failure(format!("could not be read: {e}")),
        }
    }

    pub(crate) fn write(&mut self, message: &Value) -> Result<(), Failure> {
        let Some(stdin) = self.stdin.as_mut() else {
            return Err(Failure("is closed".to_string()));
        };
        let mut line = message.to_string();
        line.push('\n');
        stdin
            .write_all(line.as_bytes())
            .and_then(|()| stdin.flush())
            .map_err(|e| match self.exit_status() {
                Some(status) => Failure(format!("exited before answering ({status})")),
                None => Failure(format!("stopped reading its input ({e})")),
            })
    }

    /// How the child exited, when it has (waiting briefly for it).
    fn exit_status(&mut self) -> Option<std::process::ExitStatus> {
        let child = self.child.as_mut()?;
        let until = Instant::now() + Duration::from_millis(200);
        loop {
            match child.try_wait() {
                Ok(Some(status)) => return Some(status),
                Ok(None) if Instant::now() < until => thread::sleep(Duration::from_millis(10)),
                _ => return None,
            }
        }
    }

    /// Signals the child's process group (the child leads it).
    #[cfg(unix)]
    fn signal(&self, signal: rustix::process::Signal) {
        if let Some(child) = &self.child {
            let pid = rustix::process::Pid::from_child(child);
            let _ = rustix::process::kill_process_group(pid, signal);
        }
    }

    /// Asks the child to stop: `SIGTERM` to its group; on Windows, `TerminateProcess`.
    fn terminate(&mut self) {
        #[cfg(unix)]
        self.signal(rustix::process::Signal::TERM);
        #[cfg(not(unix))]
        if let Some(child) = self.child.as_mut() {
            let _ = child.kill();
        }
    }

    /// Ends the child and whatever it started in its group; on Windows the child only.
    fn kill_group(&mut self) {
        #[cfg(unix)]
        self.signal(rustix::process::Signal::KILL);
        #[cfg(not(unix))]
        if let Some(child) = self.child.as_mut() {
            let _ = child.kill();
        }
    }

    /// Waits up to `limit` for the child to exit; true when it has (and was reaped).
    fn wait_for_exit(&mut self, limit: Duration) -> bool {
        let Some(child) = self.child.as_mut() else {
            return true;
        };
        let until = Instant::now() + limit;
        loop {
            match child.try_wait() {
                Ok(Some(_)) => return true,
                Ok(None) if Instant::now() < until => thread::sleep(Duration::from_millis(5)),
                Ok(None) => return false,
                Err(_) => return false,
            }
        }
    }
}

impl Transport for Stdio {
    fn request(&mut self, id: u64, message: &Value, timeout: Duration) -> Result<Value, Failure> {
        self.write(message)?;
        let deadline = Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = match self.lines.recv_timeout(left) {
                Ok(line) => line,
                Err(RecvTimeoutError::Timeout) => {
                    return Err(Failure(format!(
                        "did not answer `{}` within {:.1} s",
                        message.get("method").and_then(Value::as_str).unwrap_or("?"),
                        timeout.as_secs_f64()
                    )));
                }
                Err(RecvTimeoutError::Disconnected) => Line::Eof,
            };
            let text = match line {
                Line::Text(text) => text,
                other => return Err(self.failure_of(other)),
            };
            for message in line_messages(&text)? {
                match jsonrpc::classify(message.clone()) {
                    Ok(Incoming::Response { id: got, .. }) if jsonrpc::is_id(&got, id) => {
                        return Ok(message);
                    }
                    Ok(Incoming::Response { .. }) | Ok(Incoming::Notification { .. }) => {}
                    Ok(Incoming::Request { id, method, .. }) => {
                        self.write(&jsonrpc::answer(id, &method))?;
                    }
                    Err(why) => {
                        return Err(Failure(format!(
                            "wrote {why} on stdout: {}",
                            excerpt(&text)
                        )));
                    }
                }
            }
        }
    }

    fn notify(&mut self, message: &Value) -> Result<(), Failure> {
        self.write(message)
    }

    fn stderr_tail(&mut self) -> String {
        // A server that exited may still have stderr in the pipe: read it to the end first.
        let exited = self
            .child
            .as_mut()
            .is_some_and(|c| matches!(c.try_wait(), Ok(Some(_))));
        let until = Instant::now() + Duration::from_millis(500);
        while exited && !self.stderr_done.load(Ordering::Acquire) && Instant::now() < until {
            thread::sleep(Duration::from_millis(5));
        }
        let bytes: Vec<u8> = match self.stderr.lock() {
            Ok(tail) => tail.iter().copied().collect(),
            Err(_) => return String::new(),
        };
        let text = String::from_utf8_lossy(&bytes);
        let lines: Vec<&str> = text.trim_end().lines().collect();
        let from = lines.len().saturating_sub(STDERR_LINES);
        lines[from..]
            .iter()
            .map(|l| excerpt(l))
            .collect::<Vec<_>>()
            .join("\n")
    }

    fn close(&mut self, graceful: bool) {
        if self.child.is_none() {
            return;
        }
        // Closing stdin is how a stdio server is asked to stop.
        self.stdin = None;
        if !(graceful && self.wait_for_exit(self.grace)) {
            self.terminate();
            if !self.wait_for_exit(Duration::from_millis(500)) {
                self.kill_group();
            }
        }
        // Whatever the child started in its group goes with it.
        self.kill_group();
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Drop for Stdio {
    fn drop(&mut self) {
        self.close(false);
    }
}

/// Reads newline-delimited lines, bounding each line and the total.
fn read_lines(stdout: impl Read, tx: &mpsc::Sender<Line>) {
    let mut reader = BufReader::with_capacity(64 * 1024, stdout);
    let mut total = 0usize;
    let mut buf = Vec::new();
    loop {
        buf.clear();
        let limit = (MAX_LINE + 1) as u64;
        let n = match (&mut reader).take(limit).read_until(b'\n', &mut buf) {
            Ok(n) => n,
            Err(e) => {
                let _ = tx.send(Line::Error(e.to_string()));
                return;
            }
        };
        if n == 0 {
            let _ = tx.send(Line::Eof);
            return;
        }
        total += n;
        let line = if buf.len() > MAX_LINE {
            Line::TooLong
        } else if total > MAX_OUTPUT {
            Line::TooMuch
        } else {
            let end = buf.len() - usize::from(buf.ends_with(b"\n"));
            match std::str::from_utf8(&buf[..end]) {
                Ok(s) => Line::Text(s.trim_end_matches('\r').to_string()),
                Err(_) => Line::NotUtf8,
            }
        };
        let stop = !matches!(line, Line::Text(_));
        if tx.send(line).is_err() || stop {
            return;
        }
    }
}

/// Keeps the last [`STDERR_KEEP`] bytes of stderr, reading until it closes.
fn read_tail(mut stderr: impl Read, tail: &Mutex<VecDeque<u8>>) {
    let mut buf = [0u8; 8192];
    loop {
        let n = match stderr.read(&mut buf) {
            Ok(0) | Err(_) => return,
            Ok(n) => n,
        };
        let Ok(mut tail) = tail.lock() else { return };
        tail.extend(&buf[..n]);
        let excess = tail.len().saturating_sub(STDERR_KEEP);
        tail.drain(..excess);
    }
}

/// The JSON-RPC messages of one line a server wrote on stdout: none for a blank line, the
/// members of a batch, or the one message.
pub(crate) fn line_messages(text: &str) -> Result<Vec<Value>, Failure> {
    if text.trim().is_empty() {
        return Ok(Vec::new());
    }
    let parsed: Value = serde_json::from_str(text).map_err(|_| {
        Failure(format!(
            "wrote something that is not JSON-RPC on stdout: {}",
            excerpt(text)
        ))
    })?;
    Ok(match parsed {
        Value::Array(batch) => batch,
        one => vec![one],
    })
}

/// At most 200 characters of `text`, for messages.
pub(crate) fn excerpt(text: &str) -> String {
    const MAX: usize = 200;
    let text = text.trim();
    match text.char_indices().nth(MAX) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::program;

    fn strings(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn batch_shims_start_through_cmd_on_windows_only() {
        let args = strings(&["-y", "pkg"]);
        for (command, windows, want) in [
            ("npx", true, Some(["cmd", "/c", "npx", "-y", "pkg"])),
            (
                r"C:\node\NPM.CMD",
                true,
                Some(["cmd", "/c", r"C:\node\NPM.CMD", "-y", "pkg"]),
            ),
            ("run.bat", true, Some(["cmd", "/c", "run.bat", "-y", "pkg"])),
            ("npx", false, None),
            ("uvx", true, None),
            ("node", true, None),
        ] {
            let (program, all) = program(command, &args, windows);
            let mut got = vec![program];
            got.extend(all);
            match want {
                Some(want) => assert_eq!(got, strings(&want), "{command}"),
                None => assert_eq!(got, strings(&[command, "-y", "pkg"]), "{command}"),
            }
        }
    }
}
