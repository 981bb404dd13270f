//! Shared fixtures: a temporary HOME and project, and a `dotpack` command pointed at them.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use tempfile::TempDir;

/// Whether the long runs of the property, model and fuzz tests are asked for:
/// `DOTPACK_LONG_TESTS=1`, which `.ci/run` sets. The default `cargo test` runs every one of them
/// with a few cases, so it stays fast; the long run gives them their full counts.
pub fn long_tests() -> bool {
    switched_on("DOTPACK_LONG_TESTS")
}

/// Whether the environment variable `name` is set to something other than empty or `0`.
pub fn switched_on(name: &str) -> bool {
    std::env::var_os(name).is_some_and(|v| !v.is_empty() && v != "0")
}

/// `short` in the default run, `long` under `DOTPACK_LONG_TESTS=1`.
pub fn cases(short: u32, long: u32) -> u32 {
    if long_tests() { long } else { short }
}

/// A temporary HOME with an empty project folder inside it.
pub struct Env {
    pub home: TempDir,
    pub project: PathBuf,
}

impl Env {
    pub fn new() -> Self {
        let home = tempfile::tempdir().expect("temp dir");
        let project = home.path().join("project");
        std::fs::create_dir_all(&project).expect("create project dir");
        Env { home, project }
    }

    /// `dotpack` run in the project folder with HOME and DOTPACK_HOME inside the temp dir.
    pub fn dotpack(&self) -> Command {
        self.dotpack_in(&self.project)
    }

    pub fn dotpack_in(&self, cwd: &Path) -> Command {
        Command::from_std(self.process_in(cwd))
    }

    /// The same command as a plain process, for tests that spawn it and read it while it runs.
    pub fn process_in(&self, cwd: &Path) -> std::process::Command {
        let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("dotpack"));
        cmd.current_dir(cwd)
            .env("HOME", self.home.path())
            .env("DOTPACK_HOME", self.home.path().join(".dotpack"))
            .env("NO_COLOR", "1")
            // Every command asks the registry, as tests change what it serves between them;
            // tests of the max-age set it themselves.
            .env("DOTPACK_CACHE_MAX_AGE", "0")
            // No flushes to disk, as git's tests run with GIT_TEST_FSYNC=0: a temp HOME need not
            // survive a power loss. The interruption tests turn them back on.
            .env("DOTPACK_FSYNC", "0")
            .env_remove("DOTPACK_COLOR")
            .env_remove("FORCE_COLOR")
            .env_remove("DOTPACK_REGISTRY")
            .env_remove("DOTPACK_ALLOW_REDIRECTS")
            .env_remove("HTTP_PROXY")
            .env_remove("http_proxy")
            .env_remove("HTTPS_PROXY")
            .env_remove("https_proxy")
            .env_remove("ALL_PROXY")
            .env_remove("all_proxy");
        // Every variable a host adapter honours, so host files resolve inside the temp HOME.
        for var in dotpack::model::hosts::honoured_vars() {
            cmd.env_remove(var);
        }
        cmd
    }

    /// Runs `cmd` on a pseudo-terminal (util-linux `script`), so stdin and stderr are
    /// terminals, typing `answer` into it. What the terminal showed (stdout and stderr, merged,
    /// with `\r\n` line ends) is in the output's stdout.
    pub fn on_terminal(&self, cmd: std::process::Command, answer: &str) -> std::process::Output {
        use std::io::Write;
        let mut script = terminal(&cmd);
        script
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped());
        let mut child = script.spawn().expect("script (util-linux) runs");
        child
            .stdin
            .take()
            .expect("stdin is piped")
            .write_all(answer.as_bytes())
            .expect("the answer is written");
        child.wait_with_output().expect("script finishes")
    }

    /// `dotpack ARGS...` in the project folder with REG as the environment's default registry
    /// (`DOTPACK_REGISTRY`, which is not recorded in dotpack.toml, unlike `--registry` on `add`).
    pub fn with_registry(&self, registry: &Path, args: &[&str]) -> Command {
        let mut cmd = self.dotpack();
        cmd.env("DOTPACK_REGISTRY", registry).args(args);
        cmd
    }

    /// A folder for `PATH` (`HOME/bin`) holding an executable stub for each of `programs`, so
    /// what a command finds on PATH is the same on every machine.
    pub fn path_with(&self, programs: &[&str]) -> PathBuf {
        use std::os::unix::fs::PermissionsExt;
        let bin = self.home.path().join("bin");
        std::fs::create_dir_all(&bin).expect("create bin");
        for program in programs {
            let file = bin.join(program);
            std::fs::write(&file, "#!/bin/sh\nexit 0\n").expect("write stub");
            std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o755))
                .expect("make stub executable");
        }
        bin
    }

    pub fn write(&self, rel: &str, text: &str) -> PathBuf {
        let path = self.project.join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("create parent");
        }
        std::fs::write(&path, text).expect("write file");
        path
    }

    /// `git ARGS` in the project, with no configuration of the machine or the user.
    pub fn git(&self, args: &[&str]) -> std::process::Output {
        std::process::Command::new("git")
            .current_dir(&self.project)
            .env("HOME", self.home.path())
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .args([
                "-c",
                "user.name=Test",
                "-c",
                "user.email=test@example.com",
                "-c",
                "commit.gpgsign=false",
                "-c",
                "init.defaultBranch=main",
            ])
            .args(args)
            .output()
            .expect("git is installed")
    }

    /// [`Env::git`], which must succeed; its stdout.
    pub fn git_ok(&self, args: &[&str]) -> String {
        let out = self.git(args);
        assert!(
            out.status.success(),
            "git {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    pub fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.project.join(rel)).expect("read file")
    }
}

/// Fails the test, showing the command's stderr, unless it exited with 0.
pub fn assert_success(out: &std::process::Output) {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The repository root (for `manifests/` and `registry-index/`).
pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A registry built by the real `dotpack registry build` from package manifests given as
/// `(folder, dotpack.toml text)` pairs. Returns the index folder, for `--registry`.
pub fn build_registry(env: &Env, packages: &[(&str, &str)]) -> PathBuf {
    let src = env.home.path().join("registry-src");
    for (folder, text) in packages {
        let dir = src.join(folder);
        std::fs::create_dir_all(&dir).expect("create package dir");
        std::fs::write(dir.join("dotpack.toml"), text).expect("write package manifest");
    }
    let out = env.home.path().join("registry-index");
    env.dotpack_in(env.home.path())
        .arg("registry")
        .arg("build")
        .arg(&src)
        .arg("--out")
        .arg(&out)
        .assert()
        .success();
    out
}

/// The text of a package manifest with one stdio server named after the package.
pub fn package(name: &str, version: &str, deps: &[(&str, &str)]) -> String {
    let mut text = format!(
        "[package]\nname = \"{name}\"\nversion = \"{version}\"\ndescription = \"The {name} server\"\n\n[servers.{name}]\ncommand = \"npx\"\nargs = [\"-y\", \"{name}-mcp@{version}\"]\n"
    );
    if !deps.is_empty() {
        text.push_str("\n[dependencies]\n");
        for (dep, req) in deps {
            text.push_str(&format!("{dep} = \"{req}\"\n"));
        }
    }
    text
}

/// Every file under `dir` with its bytes, to assert that a failed command changed nothing.
pub fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if let Ok(bytes) = std::fs::read(&path) {
                out.push((path, bytes));
            }
        }
    }
    out.sort();
    out
}

/// A static file server on loopback for HTTP registry tests: serves `root` over HTTP/1.1 with an
/// `ETag` per file (a `If-None-Match` that matches gets 304), 404 for anything missing, redirects
/// when asked to ([`StaticServer::redirect`]), and a log of every request. It stops when
/// dropped, so it never outlives its test.
pub struct StaticServer {
    addr: std::net::SocketAddr,
    state: std::sync::Arc<std::sync::Mutex<ServerState>>,
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

#[derive(Default)]
struct ServerState {
    /// `(path, status)` of every request, in order.
    log: Vec<(String, u16)>,
    /// When set, every request gets this status.
    fail: Option<u16>,
    /// `(prefix, target)`: a request whose path starts with `prefix` gets a 302 to `target`
    /// followed by the rest of its path.
    redirect: Option<(String, String)>,
    /// The `Authorization` header of every request (`None` when absent), in order.
    authorization: Vec<Option<String>>,
    /// `(status, n)`: the next `n` requests get `status`, then files are served again.
    fail_next: Option<(u16, usize)>,
    /// The `Retry-After` (seconds) a failure answer carries.
    retry_after: Option<u64>,
    /// When set, a request without exactly this `Authorization` gets 401.
    require_authorization: Option<String>,
}

impl StaticServer {
    pub fn start(root: &Path) -> StaticServer {
        use std::sync::atomic::{AtomicBool, Ordering};
        use std::sync::{Arc, Mutex};
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind loopback");
        let addr = listener.local_addr().expect("local addr");
        let state = Arc::new(Mutex::new(ServerState::default()));
        let stop = Arc::new(AtomicBool::new(false));
        let root = root.to_path_buf();
        let thread = {
            let (state, stop) = (Arc::clone(&state), Arc::clone(&stop));
            std::thread::spawn(move || {
                for stream in listener.incoming() {
                    if stop.load(Ordering::SeqCst) {
                        break;
                    }
                    if let Ok(stream) = stream {
                        serve_one(stream, &root, &state);
                    }
                }
            })
        };
        StaticServer {
            addr,
            state,
            stop,
            thread: Some(thread),
        }
    }

    /// The base URL, ending in `/`.
    pub fn url(&self) -> String {
        format!("http://{}/", self.addr)
    }

    /// `(path, status)` of every request so far.
    pub fn requests(&self) -> Vec<(String, u16)> {
        self.state.lock().expect("server state").log.clone()
    }

    /// The requests so far as `STATUS PATH` lines, oldest first.
    pub fn log(&self) -> Vec<String> {
        self.requests()
            .iter()
            .map(|(path, status)| format!("{status} {path}"))
            .collect()
    }

    /// Forgets the requests and `Authorization` headers seen so far.
    pub fn clear_requests(&self) {
        let mut state = self.state.lock().expect("server state");
        state.log.clear();
        state.authorization.clear();
    }

    /// Answer every request with `status` (`None`: serve files again).
    pub fn fail_with(&self, status: Option<u16>) {
        self.state.lock().expect("server state").fail = status;
    }

    /// Answer the next `n` requests with `status`, then serve files again.
    pub fn fail_next(&self, status: u16, n: usize) {
        self.state.lock().expect("server state").fail_next = Some((status, n));
    }

    /// Failure answers carry `Retry-After: SECS`.
    pub fn retry_after(&self, secs: u64) {
        self.state.lock().expect("server state").retry_after = Some(secs);
    }

    /// The `Authorization` header of every request so far (`None`: not sent).
    pub fn authorizations(&self) -> Vec<Option<String>> {
        self.state
            .lock()
            .expect("server state")
            .authorization
            .clone()
    }

    /// Answer 401 to every request that does not carry exactly `value` as `Authorization`.
    pub fn require_authorization(&self, value: &str) {
        self.state
            .lock()
            .expect("server state")
            .require_authorization = Some(value.to_string());
    }

    /// Answer every request whose path starts with `prefix` with `302 Found` and a `Location` of
    /// `target` followed by the rest of the path (`target` may be a full URL or a path).
    pub fn redirect(&self, prefix: &str, target: &str) {
        self.state.lock().expect("server state").redirect =
            Some((prefix.to_string(), target.to_string()));
    }
}

impl Drop for StaticServer {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::SeqCst);
        // Wake the accept loop so it sees the flag.
        let _ = std::net::TcpStream::connect(self.addr);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// The request line and headers of the request on `stream` (a test client sends no body).
pub fn read_head(stream: &mut std::net::TcpStream) -> String {
    use std::io::Read;
    let _ = stream.set_read_timeout(Some(std::time::Duration::from_secs(5)));
    let mut request = Vec::new();
    let mut buf = [0u8; 1024];
    while !request.windows(4).any(|w| w == b"\r\n\r\n") && request.len() < 64 * 1024 {
        match stream.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => request.extend_from_slice(&buf[..n]),
        }
    }
    String::from_utf8_lossy(&request).into_owned()
}

/// The value of header `wanted` (any case) in a request head from [`read_head`].
pub fn header(head: &str, wanted: &str) -> Option<String> {
    head.lines().skip(1).find_map(|l| {
        let (name, value) = l.split_once(':')?;
        name.eq_ignore_ascii_case(wanted)
            .then(|| value.trim().to_string())
    })
}

fn serve_one(mut stream: std::net::TcpStream, root: &Path, state: &std::sync::Mutex<ServerState>) {
    use std::io::Write;
    let text = read_head(&mut stream);
    let mut lines = text.lines();
    let Some(path) = lines.next().and_then(|l| l.split(' ').nth(1)) else {
        return;
    };
    let path = path.split('?').next().unwrap_or_default().to_string();
    let if_none_match = header(&text, "if-none-match");
    let authorization = header(&text, "authorization");
    let rel = path.trim_start_matches('/');
    let file = (!rel.split('/').any(|p| p == ".." || p.is_empty()))
        .then(|| std::fs::read(root.join(rel)).ok())
        .flatten();
    let (fail, redirect, retry_after) = {
        let mut state = state.lock().expect("server state");
        state.authorization.push(authorization.clone());
        let mut fail = state.fail;
        if let Some((status, n)) = state.fail_next
            && n > 0
        {
            fail = Some(status);
            state.fail_next = Some((status, n - 1));
        }
        if let Some(required) = &state.require_authorization
            && authorization.as_deref() != Some(required.as_str())
        {
            fail = Some(401);
        }
        let redirect = state.redirect.as_ref().and_then(|(prefix, target)| {
            let rest = path.strip_prefix(prefix.as_str())?;
            Some(format!("{target}{rest}"))
        });
        (fail, redirect, state.retry_after)
    };
    let (status, headers, body) = match (fail, redirect, file) {
        (Some(status), _, _) => (
            status,
            retry_after.map_or(String::new(), |s| format!("Retry-After: {s}\r\n")),
            b"server error".to_vec(),
        ),
        (None, Some(location), _) => (302, format!("Location: {location}\r\n"), Vec::new()),
        (None, None, None) => (404, String::new(), b"not found".to_vec()),
        (None, None, Some(bytes)) => {
            let etag = format!(
                "\"{}\"",
                &dotpack::registry::archive::sha256_hex(&bytes)[..16]
            );
            let header = format!("ETag: {etag}\r\n");
            if if_none_match.as_deref() == Some(etag.as_str()) {
                (304, header, Vec::new())
            } else {
                (200, header, bytes)
            }
        }
    };
    state.lock().expect("server state").log.push((path, status));
    let reason = match status {
        200 => "OK",
        302 => "Found",
        304 => "Not Modified",
        401 => "Unauthorized",
        404 => "Not Found",
        _ => "Error",
    };
    let length = if status == 304 {
        String::new()
    } else {
        format!("Content-Length: {}\r\n", body.len())
    };
    let head = format!("HTTP/1.1 {status} {reason}\r\n{headers}{length}Connection: close\r\n\r\n");
    let _ = stream.write_all(head.as_bytes());
    let _ = stream.write_all(&body);
    let _ = stream.flush();
}

/// `dotpack ARGS` run in the project, as a person reads it for a snapshot: the command line, the
/// exit code, then stdout and stderr (each when not empty), with what changes from run to run
/// redacted (see [`redact`]).
pub fn transcript(env: &Env, args: &[&str]) -> String {
    let out = env.dotpack().args(args).output().expect("run dotpack");
    transcript_of(env, args, &out)
}

/// The transcript of a finished run of `dotpack ARGS`.
pub fn transcript_of(env: &Env, args: &[&str], out: &std::process::Output) -> String {
    let mut text = format!("$ dotpack {}\n", args.join(" "));
    match out.status.code() {
        Some(code) => text.push_str(&format!("[exit {code}]\n")),
        None => text.push_str("[killed by a signal]\n"),
    }
    for (name, bytes) in [("stdout", &out.stdout), ("stderr", &out.stderr)] {
        if !bytes.is_empty() {
            text.push_str(&format!("--- {name}\n{}", String::from_utf8_lossy(bytes)));
            if !text.ends_with('\n') {
                text.push('\n');
            }
        }
    }
    redact(env, &text)
}

/// `text` with what differs between runs, or with any change of a package or of the hashing,
/// replaced: the temporary HOME (`[HOME]`), timestamps (`[TIME]`, padded to the width of the
/// timestamp so columns stay aligned), durations (`[DURATION]`), sha256 digests
/// (`sha256:[HASH]`) and dotpack's own version (`[VERSION]`).
pub fn redact(env: &Env, text: &str) -> String {
    let mut text = text.to_string();
    let home = env.home.path();
    let mut homes = vec![home.display().to_string()];
    if let Ok(canonical) = home.canonicalize() {
        homes.push(canonical.display().to_string());
    }
    // The longest first, so a canonical path that extends the other is replaced whole.
    homes.sort_by_key(|h| std::cmp::Reverse(h.len()));
    for h in homes {
        text = text.replace(&h, "[HOME]");
    }
    let version = env!("CARGO_PKG_VERSION");
    text = text.replace(&format!("dotpack {version}"), "dotpack [VERSION]");
    text = text.replace(&format!("dotpack/{version}"), "dotpack/[VERSION]");
    let time = regex::Regex::new(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z").expect("regex");
    text = time
        .replace_all(&text, |m: &regex::Captures<'_>| {
            format!("{:<width$}", "[TIME]", width = m[0].len())
        })
        .into_owned();
    let digest = regex::Regex::new(r"sha256:[0-9a-f]{64}").expect("regex");
    text = digest.replace_all(&text, "sha256:[HASH]").into_owned();
    let duration = regex::Regex::new(r"\b\d+(\.\d+)?(ns|µs|us|ms|s)\b").expect("regex");
    duration.replace_all(&text, "[DURATION]").into_owned()
}

/// `cmd` run on a pseudo-terminal (util-linux `script`): the same program, arguments, folder
/// and environment, with stdin, stdout and stderr the terminal's.
pub fn terminal(cmd: &std::process::Command) -> std::process::Command {
    let quote = |s: &std::ffi::OsStr| format!("'{}'", s.to_string_lossy().replace('\'', "'\\''"));
    let line: Vec<String> = std::iter::once(cmd.get_program())
        .chain(cmd.get_args())
        .map(quote)
        .collect();
    let mut script = std::process::Command::new("script");
    script.args(["-qec", &line.join(" "), "/dev/null"]);
    if let Some(dir) = cmd.get_current_dir() {
        script.current_dir(dir);
    }
    for (key, value) in cmd.get_envs() {
        match value {
            Some(value) => script.env(key, value),
            None => script.env_remove(key),
        };
    }
    script
}
