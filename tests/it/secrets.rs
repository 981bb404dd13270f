//! `dotpack secret` and `dotpack run` against the real Secret Service: a private session bus and
//! an unlocked gnome-keyring-daemon (see `support_keyring`). The value must reach the server and
//! no file, output or argument besides.

use std::path::Path;

use dotpack::model::launcher::launcher_args;

use crate::support::Env;
use crate::support_keyring::{Keyring, files_containing};

const VALUE: &str = "ghp_s3cr3t-Value-7f3a9c";

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}

/// Records the pin of the launcher entry `args` as one dotpack wrote on this machine, as an
/// install does: the store gives its secrets only to such entries.
fn written_here(env: &Env, args: &[String]) -> Vec<String> {
    let dir = env.home.path().join(".dotpack");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("launcher-pins");
    let mut text = std::fs::read_to_string(&path).unwrap_or_default();
    text.push_str(&format!("{}\n", args[2]));
    std::fs::write(path, text).unwrap();
    args.to_vec()
}

/// The server: records the TOKEN it received in `file`, and its own command line (what `ps`
/// shows) in `file.cmdline`.
fn recorder(file: &Path) -> Vec<String> {
    strings(&[
        "-c",
        "printf %s \"$TOKEN\" > \"$1\"; cat /proc/$$/cmdline > \"$1.cmdline\"",
        "recorder",
        &file.display().to_string(),
    ])
}

fn set_secret(env: &Env, keyring: &Keyring, name: &str, value: &str) {
    let mut cmd = env.dotpack();
    keyring.apply(&mut cmd);
    let out = cmd
        .args(["secret", "set", name])
        .write_stdin(format!("{value}\n"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert_no_value(&out);
}

fn assert_no_value(out: &std::process::Output) {
    let all = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!all.contains(VALUE), "the value is in the output: {all}");
}

/// A dotpack pointed at a bus where nothing answers.
fn without_store(env: &Env) -> assert_cmd::Command {
    let mut cmd = env.dotpack();
    cmd.env(
        "DBUS_SESSION_BUS_ADDRESS",
        format!("unix:path={}", env.home.path().join("no-bus").display()),
    )
    .env("XDG_RUNTIME_DIR", env.home.path());
    cmd
}

#[test]
fn secret_set_list_rm_keep_the_value_in_the_store_only() {
    let env = Env::new();
    let Some(keyring) = Keyring::start(env.home.path()) else {
        return;
    };
    set_secret(&env, &keyring, "GITHUB_TOKEN", VALUE);
    set_secret(&env, &keyring, "A_TOKEN", "other-value");
    // Setting again replaces the value and lists the name once.
    set_secret(&env, &keyring, "GITHUB_TOKEN", VALUE);

    let mut list = env.dotpack();
    keyring.apply(&mut list);
    let out = list.args(["secret", "list"]).output().unwrap();
    assert!(out.status.success(), "{out:?}");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "A_TOKEN\nGITHUB_TOKEN\n"
    );
    assert_no_value(&out);

    let mut json = env.dotpack();
    keyring.apply(&mut json);
    let out = json.args(["--json", "secret", "list"]).output().unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        doc["secrets"],
        serde_json::json!(["A_TOKEN", "GITHUB_TOKEN"])
    );

    assert_eq!(
        files_containing(env.home.path(), VALUE, &[]),
        Vec::<std::path::PathBuf>::new(),
        "the value is in a file"
    );

    let mut rm = env.dotpack();
    keyring.apply(&mut rm);
    rm.args(["secret", "rm", "GITHUB_TOKEN"]).assert().success();
    let mut list = env.dotpack();
    keyring.apply(&mut list);
    list.args(["secret", "list"])
        .assert()
        .success()
        .stdout("A_TOKEN\n");

    let mut again = env.dotpack();
    keyring.apply(&mut again);
    again
        .args(["secret", "rm", "GITHUB_TOKEN"])
        .assert()
        .code(1)
        .stderr(predicates::str::contains("there is no secret GITHUB_TOKEN"));
}

#[test]
fn run_gives_the_server_its_secret_from_the_store() {
    let env = Env::new();
    let Some(keyring) = Keyring::start(env.home.path()) else {
        return;
    };
    set_secret(&env, &keyring, "TOKEN", VALUE);
    let record = env.project.join("received");
    let args = written_here(
        &env,
        &launcher_args("sh", &recorder(&record), &strings(&["TOKEN"])),
    );
    let mut cmd = env.dotpack();
    keyring.apply(&mut cmd);
    let out = cmd.args(&args).env_remove("TOKEN").output().unwrap();
    assert!(out.status.success(), "{out:?}");
    assert_no_value(&out);
    assert_eq!(std::fs::read_to_string(&record).unwrap(), VALUE);
    let cmdline = std::fs::read(env.project.join("received.cmdline")).unwrap();
    assert!(String::from_utf8_lossy(&cmdline).contains("recorder"));
    assert_eq!(
        files_containing(env.home.path(), VALUE, std::slice::from_ref(&record)),
        Vec::<std::path::PathBuf>::new(),
        "the value is in a file besides the server's record"
    );
}

/// A GUI host may start the launcher with little more than HOME: no DBUS_SESSION_BUS_ADDRESS,
/// no PATH. The bus is found at `$XDG_RUNTIME_DIR/bus`.
#[test]
fn run_with_an_empty_environment_finds_the_bus_in_the_runtime_dir() {
    let env = Env::new();
    let Some(keyring) = Keyring::start(env.home.path()) else {
        return;
    };
    set_secret(&env, &keyring, "TOKEN", VALUE);
    let record = env.project.join("received");
    let args = written_here(
        &env,
        &launcher_args("/bin/sh", &recorder(&record), &strings(&["TOKEN"])),
    );
    let out = std::process::Command::new(assert_cmd::cargo::cargo_bin("dotpack"))
        .args(&args)
        .current_dir(&env.project)
        .env_clear()
        .env("HOME", env.home.path())
        .env("XDG_RUNTIME_DIR", &keyring.runtime_dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert_no_value(&out);
    assert_eq!(std::fs::read_to_string(&record).unwrap(), VALUE);
}

/// An address set but empty is no address: the bus is looked for as if it were unset, and the
/// server's environment does not gain the address found.
#[test]
fn run_with_an_empty_bus_address_finds_the_bus_and_keeps_it_from_the_server() {
    let env = Env::new();
    let Some(keyring) = Keyring::start(env.home.path()) else {
        return;
    };
    set_secret(&env, &keyring, "TOKEN", VALUE);
    let record = env.project.join("received");
    let script = strings(&[
        "-c",
        "printf '%s|%s' \"$TOKEN\" \"${DBUS_SESSION_BUS_ADDRESS-unset}\" > \"$1\"",
        "recorder",
        &record.display().to_string(),
    ]);
    let args = written_here(
        &env,
        &launcher_args("/bin/sh", &script, &strings(&["TOKEN"])),
    );
    let out = std::process::Command::new(assert_cmd::cargo::cargo_bin("dotpack"))
        .args(&args)
        .env_clear()
        .env("HOME", env.home.path())
        .env("XDG_RUNTIME_DIR", &keyring.runtime_dir)
        .env("DBUS_SESSION_BUS_ADDRESS", "")
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert_eq!(
        std::fs::read_to_string(&record).unwrap(),
        format!("{VALUE}|unset")
    );
}

#[test]
fn run_refuses_a_command_that_is_not_the_pinned_one() {
    let env = Env::new();
    let record = env.project.join("received");
    let mut args = launcher_args("sh", &recorder(&record), &[]);
    // The entry as written, then its command changed (dotpack.toml changed, no install since).
    let last = args.len() - 1;
    args[last] = env.project.join("elsewhere").display().to_string();
    let out = without_store(&env).args(&args).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("dotpack.toml changed"), "{stderr}");
    assert!(stderr.contains("dotpack install"), "{stderr}");
    assert!(out.stdout.is_empty());
    assert!(!record.exists() && !env.project.join("elsewhere").exists());
}

#[test]
fn run_takes_a_secret_the_store_lacks_from_the_environment() {
    let env = Env::new();
    let record = env.project.join("received");
    let args = written_here(
        &env,
        &launcher_args("sh", &recorder(&record), &strings(&["TOKEN"])),
    );
    let out = without_store(&env)
        .args(&args)
        .env("TOKEN", VALUE)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert_eq!(std::fs::read_to_string(&record).unwrap(), VALUE);
}

#[test]
fn run_names_a_missing_secret_and_how_to_store_it() {
    let env = Env::new();
    let Some(keyring) = Keyring::start(env.home.path()) else {
        return;
    };
    let record = env.project.join("received");
    let args = written_here(
        &env,
        &launcher_args("sh", &recorder(&record), &strings(&["TOKEN"])),
    );
    let mut cmd = env.dotpack();
    keyring.apply(&mut cmd);
    let out = cmd.args(&args).env_remove("TOKEN").output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr
            .contains("the secret TOKEN is neither in the credential store nor in the environment"),
        "{stderr}"
    );
    assert!(stderr.contains("dotpack secret set TOKEN"), "{stderr}");
    assert!(!record.exists());
}

#[test]
fn secret_set_without_a_store_says_so_and_writes_no_file() {
    let env = Env::new();
    let out = without_store(&env)
        .args(["secret", "set", "TOKEN"])
        .write_stdin(VALUE)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("no credential store answered"), "{stderr}");
    assert!(stderr.contains("gnome-keyring"), "{stderr}");
    assert!(stderr.contains("--resolve-env"), "{stderr}");
    assert_no_value(&out);
    assert_eq!(
        files_containing(env.home.path(), VALUE, &[]),
        Vec::<std::path::PathBuf>::new()
    );
}

#[test]
fn secret_names_must_be_environment_variable_names() {
    let env = Env::new();
    for bad in ["1TOKEN", "MY-TOKEN", "A=B"] {
        without_store(&env)
            .args(["secret", "set", bad])
            .write_stdin(VALUE)
            .assert()
            .code(2)
            .stderr(predicates::str::contains("is not a secret name"));
    }
    without_store(&env)
        .args(["run", "--secret", "MY-TOKEN", "--", "true"])
        .assert()
        .code(2);
}

#[test]
fn run_needs_its_command_after_a_double_dash() {
    let env = Env::new();
    without_store(&env).args(["run"]).assert().code(2);
    without_store(&env)
        .args(["run", "--secret", "TOKEN", "sh"])
        .assert()
        .code(2);
}

/// What a host runs for `entry`: its command and arguments, with `dotpack` from the PATH being
/// this build (as on a machine where dotpack is installed).
fn host_runs(entry: &serde_json::Value) -> (String, Vec<String>) {
    let command = entry["command"].as_str().unwrap().to_string();
    let command = match command.as_str() {
        "dotpack" => assert_cmd::cargo::cargo_bin("dotpack")
            .display()
            .to_string(),
        _ => command,
    };
    let args = entry["args"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap().to_string())
        .collect();
    (command, args)
}

/// Starts `entry` as a desktop app does, with an empty environment but HOME and the runtime
/// folder that holds the session bus.
fn start(env: &Env, keyring: &Keyring, entry: &serde_json::Value) -> std::process::Output {
    let (command, args) = host_runs(entry);
    let mut cmd = std::process::Command::new(command);
    cmd.args(args)
        .current_dir(&env.project)
        .env_clear()
        .env("HOME", env.home.path())
        .env("XDG_RUNTIME_DIR", &keyring.runtime_dir);
    for (name, value) in entry["env"].as_object().into_iter().flatten() {
        cmd.env(name, value.as_str().unwrap());
    }
    cmd.output().unwrap()
}

/// `launcher = true`: every host's entry starts the server through `dotpack run`, which gives it
/// the secret the user stored, so a host that passes no environment (Claude Desktop from the
/// Dock) and one that cannot write a reference still run it with the secret, and no file holds
/// it. The entry runs what it was written with until `install` rewrites it; an entry edited by
/// hand is refused.
#[test]
fn a_launcher_entry_gives_each_host_the_stored_secret_and_no_file_holds_it() {
    let env = Env::new();
    let Some(keyring) = Keyring::start(env.home.path()) else {
        return;
    };
    set_secret(&env, &keyring, "TOKEN", VALUE);
    let record = env.project.join("received");
    let args: Vec<String> = recorder(&record).iter().map(|a| format!("{a:?}")).collect();
    let manifest = format!(
        "[project]\nhosts = [\"claude-code\", \"claude-desktop\"]\nlauncher = true\n\n[servers.rec]\ncommand = \"/bin/sh\"\nargs = [{}]\nenv = {{ TOKEN = \"{{{{env.TOKEN}}}}\", LEVEL = \"info\" }}\n",
        args.join(", ")
    );
    env.write("dotpack.toml", &manifest);
    let mut install = env.dotpack();
    keyring.apply(&mut install);
    let out = install.args(["--trust", "install"]).output().unwrap();
    assert!(out.status.success(), "{out:?}");
    assert_no_value(&out);
    let project: serde_json::Value = serde_json::from_str(&env.read(".mcp.json")).unwrap();
    let desktop_file = env
        .home
        .path()
        .join(".config/Claude/claude_desktop_config.json");
    let desktop: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&desktop_file).unwrap()).unwrap();
    for (name, entry) in [
        (".mcp.json", &project["mcpServers"]["rec"]),
        ("claude_desktop_config.json", &desktop["mcpServers"]["rec"]),
    ] {
        assert_eq!(entry["args"][0], "run", "{name}: {entry}");
        assert!(entry["env"].get("TOKEN").is_none(), "{name}: {entry}");
        let _ = std::fs::remove_file(&record);
        let out = start(&env, &keyring, entry);
        assert!(out.status.success(), "{name}: {out:?}");
        assert_no_value(&out);
        assert_eq!(std::fs::read_to_string(&record).unwrap(), VALUE, "{name}");
    }
    // The committed file names `dotpack`, the same on every machine; the user's own file may
    // name this dotpack's path.
    assert_eq!(project["mcpServers"]["rec"]["command"], "dotpack");
    assert_eq!(
        files_containing(env.home.path(), VALUE, std::slice::from_ref(&record)),
        Vec::<std::path::PathBuf>::new()
    );

    // dotpack.toml changed: the entry still runs what it was written with (and the host's
    // approval of it holds) until `install` rewrites it.
    env.write(
        "dotpack.toml",
        &manifest.replace("LEVEL = \"info\"", "LEVEL = \"debug\""),
    );
    let out = start(&env, &keyring, &project["mcpServers"]["rec"]);
    assert!(out.status.success(), "{out:?}");
    // An entry whose command was edited by hand is refused, and starts nothing.
    let _ = std::fs::remove_file(&record);
    let mut edited = project["mcpServers"]["rec"].clone();
    let last = edited["args"].as_array().unwrap().len() - 1;
    edited["args"][last] = serde_json::Value::from("/tmp/elsewhere");
    let out = start(&env, &keyring, &edited);
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("dotpack install"),
        "{out:?}"
    );
    assert!(!record.exists());
}

/// On a terminal, `add` asks for a secret a launcher server reads and keeps it in the store: what
/// is typed is not shown, and no file holds it.
#[test]
fn on_a_terminal_add_asks_for_a_launcher_secret_and_keeps_it_in_the_store() {
    add_asks_on_a_terminal_for(
        "launcher = true",
        "[servers.vault]\ncommand = \"vault-mcp\"\nargs = []\nenv = { VAULT_TOKEN = \"{{env.VAULT_TOKEN}}\" }\n",
        "VAULT_TOKEN",
    );
}

/// A server behind the gateway gets its secrets from the store too: asked for the same way.
#[test]
fn on_a_terminal_add_asks_for_a_secret_of_a_server_behind_the_gateway() {
    add_asks_on_a_terminal_for(
        "gateway = true",
        "[servers.vault]\ncommand = \"vault-mcp\"\nargs = []\nenv = { VAULT_TOKEN = \"{{env.VAULT_TOKEN}}\" }\n",
        "VAULT_TOKEN",
    );
}

/// A remote server's header secret is asked for the same way: the launcher's proxy sends it.
#[test]
fn on_a_terminal_add_asks_for_a_remote_servers_header_secret() {
    add_asks_on_a_terminal_for(
        "launcher = true",
        "[servers.vault]\nurl = \"https://vault.example.com/mcp\"\nhttp_headers = { Authorization = \"Bearer {{env.VAULT_API_KEY}}\" }\n",
        "VAULT_API_KEY",
    );
}

/// `add vault` on a terminal, in a project with `project` (a line of `[project]`), for a package
/// whose only server is `server`: it asks for `var`, hides what is typed, keeps it in the store,
/// and no file under HOME holds it.
fn add_asks_on_a_terminal_for(project: &str, server: &str, var: &str) {
    use std::io::{Read, Write};
    let env = Env::new();
    let Some(keyring) = Keyring::start(env.home.path()) else {
        return;
    };
    let package = format!("[package]\nname = \"vault\"\nversion = \"1.0.0\"\n\n{server}");
    let reg = crate::support::build_registry(&env, &[("vault", package.as_str())]);
    env.write(
        "dotpack.toml",
        &format!("[project]\nhosts = [\"claude-code\"]\n{project}\n"),
    );
    let mut cmd = env.process_in(&env.project);
    cmd.env("DOTPACK_REGISTRY", &reg)
        .env("DBUS_SESSION_BUS_ADDRESS", &keyring.address)
        .env("XDG_RUNTIME_DIR", &keyring.runtime_dir)
        .env_remove(var)
        .args(["add", "vault"]);
    let mut script = crate::support::terminal(&cmd);
    let mut child = script
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("script (util-linux) runs");
    let mut stdout = child.stdout.take().unwrap();
    let mut shown = Vec::new();
    let mut buf = [0u8; 256];
    // Wait for the question before typing, so the terminal's echo is already off.
    while !String::from_utf8_lossy(&shown).contains("not shown; empty to skip") {
        let n = stdout.read(&mut buf).unwrap();
        assert!(n > 0, "{}", String::from_utf8_lossy(&shown));
        shown.extend_from_slice(&buf[..n]);
    }
    std::thread::sleep(std::time::Duration::from_millis(200));
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(format!("{VALUE}\n").as_bytes()).unwrap();
    stdout.read_to_end(&mut shown).unwrap();
    let status = child.wait().unwrap();
    let shown = String::from_utf8_lossy(&shown).to_string();
    assert!(status.success(), "{shown}");
    assert!(!shown.contains(VALUE), "the secret was shown: {shown}");
    assert!(
        shown.contains(&format!("Stored {var} in the OS credential store")),
        "{shown}"
    );
    assert_eq!(
        files_containing(env.home.path(), VALUE, &[]),
        Vec::<std::path::PathBuf>::new()
    );
    // The launcher entry gives it to the server.
    let mut list = env.dotpack();
    keyring.apply(&mut list);
    list.args(["secret", "list"])
        .assert()
        .success()
        .stdout(predicates::str::contains(var));
}

/// A host that can neither expand nor forward a variable (Claude Desktop) offers the launcher
/// in its refusal, and with `launcher = true` the same server installs.
#[test]
fn a_host_that_cannot_receive_a_secret_offers_the_launcher() {
    let env = Env::new();
    let server = "[servers.gh]\ncommand = \"gh-mcp\"\nargs = []\nenv = { GH_TOKEN = \"{{env.GH_TOKEN}}\" }\n";
    env.write(
        "dotpack.toml",
        &format!("[project]\nhosts = [\"claude-desktop\"]\n\n{server}"),
    );
    env.dotpack()
        .args(["--trust", "install"])
        .assert()
        .code(1)
        .stderr(predicates::str::contains("launcher = true"));
    env.write(
        "dotpack.toml",
        &format!("[project]\nhosts = [\"claude-desktop\"]\nlauncher = true\n\n{server}"),
    );
    env.dotpack()
        .args(["--trust", "install"])
        .assert()
        .success();
    let written = std::fs::read_to_string(
        env.home
            .path()
            .join(".config/Claude/claude_desktop_config.json"),
    )
    .unwrap();
    assert!(written.contains("\"--secret\""), "{written}");
    assert!(!written.contains("GH_TOKEN\": "), "{written}");
}

/// An entry dotpack did not write on this machine (a repository committed it; its pin is right,
/// since anyone can compute one) gets nothing from the store: only what the host's environment
/// gives it.
#[test]
fn an_entry_dotpack_did_not_write_here_gets_no_secret_from_the_store() {
    let env = Env::new();
    let Some(keyring) = Keyring::start(env.home.path()) else {
        return;
    };
    set_secret(&env, &keyring, "TOKEN", VALUE);
    let record = env.project.join("received");
    let args = launcher_args("sh", &recorder(&record), &strings(&["TOKEN"]));
    let mut cmd = env.dotpack();
    keyring.apply(&mut cmd);
    let out = cmd.args(&args).env_remove("TOKEN").output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert_no_value(&out);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("only to an entry dotpack wrote on this machine"),
        "{stderr}"
    );
    assert!(stderr.contains("dotpack install"), "{stderr}");
    assert!(!record.exists());
    // What the host's environment holds, the server gets as it would without the launcher.
    let mut cmd = env.dotpack();
    keyring.apply(&mut cmd);
    let out = cmd
        .args(&args)
        .env("TOKEN", "from-the-host")
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert_eq!(std::fs::read_to_string(&record).unwrap(), "from-the-host");
    // Recorded as one dotpack wrote, the same entry gets the stored value.
    written_here(&env, &args);
    let mut cmd = env.dotpack();
    keyring.apply(&mut cmd);
    let out = cmd.args(&args).env_remove("TOKEN").output().unwrap();
    assert!(out.status.success(), "{out:?}");
    assert_eq!(std::fs::read_to_string(&record).unwrap(), VALUE);
}

/// `add --launcher` records `launcher = true` on the added dependency, in a project of the user's
/// own with no more consent than the command itself: issue 23's journey from a fresh project.
#[test]
fn add_with_launcher_records_it_and_every_host_runs_the_launcher() {
    let env = Env::new();
    std::fs::create_dir_all(env.project.join(".cursor")).unwrap();
    env.dotpack().args(["init", "-q"]).assert().success();
    env.dotpack()
        .args([
            "add",
            "github",
            "--launcher",
            "--host",
            "claude-desktop",
            "--host",
            "codex",
            "--host",
            "cursor",
        ])
        .assert()
        .success()
        .stderr(predicates::str::contains(
            "Starting github's servers through `dotpack run`",
        ));
    assert!(
        env.read("dotpack.toml")
            .contains("github = { version = \"^1.1\", launcher = true }"),
        "{}",
        env.read("dotpack.toml")
    );
    let desktop = std::fs::read_to_string(
        env.home
            .path()
            .join(".config/Claude/claude_desktop_config.json"),
    )
    .unwrap();
    for (name, text) in [
        ("claude-desktop", desktop),
        ("cursor", env.read(".cursor/mcp.json")),
        ("codex", env.read(".codex/config.toml")),
    ] {
        assert!(
            text.contains("--secret") && text.contains("GITHUB_PERSONAL_ACCESS_TOKEN"),
            "{name}: {text}"
        );
        assert!(!text.contains("{{env."), "{name}: {text}");
    }
    // The add that turned the launcher on records its entries as written here, so the store
    // serves them at once, without another install.
    let cursor: serde_json::Value = serde_json::from_str(&env.read(".cursor/mcp.json")).unwrap();
    let pin = cursor["mcpServers"]["github"]["args"][2].as_str().unwrap();
    let pins =
        std::fs::read_to_string(env.home.path().join(".dotpack/launcher-pins")).unwrap_or_default();
    assert!(pins.lines().any(|l| l == pin), "{pin} not in {pins:?}");
    env.dotpack().arg("status").assert().success();
}

/// The gateway, started by a host that passes little more than HOME (an empty bus address, as
/// a host that forwards only named variables does), starts a server with its secret from the
/// store: the host's one `dotpack` entry needs no secret, and the value is in no file.
#[test]
fn the_gateway_started_with_an_empty_environment_gives_a_server_its_stored_secret() {
    use std::io::Write;
    let env = Env::new();
    let Some(keyring) = Keyring::start(env.home.path()) else {
        return;
    };
    set_secret(&env, &keyring, "TOKEN", VALUE);
    let record = env.home.path().join("received");
    let args: Vec<String> = recorder(&record).iter().map(|a| format!("{a:?}")).collect();
    env.write(
        "dotpack.toml",
        &format!(
            "[project]\ngateway = true\ngateway_lifecycle = \"keep-alive\"\n\n\
             [servers.rec]\ncommand = \"sh\"\nargs = [{}]\nenv = {{ TOKEN = \"{{{{env.TOKEN}}}}\" }}\n",
            args.join(", ")
        ),
    );
    let mut serve = env.process_in(&env.project);
    serve
        .env_clear()
        .env("HOME", env.home.path())
        .env("DOTPACK_HOME", env.home.path().join(".dotpack"))
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("DBUS_SESSION_BUS_ADDRESS", "")
        .env("XDG_RUNTIME_DIR", &keyring.runtime_dir)
        .args(["--trust", "serve"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let mut child = serve.spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    writeln!(
        stdin,
        r#"{{"jsonrpc":"2.0","id":1,"method":"initialize","params":{{"protocolVersion":"2025-06-18","capabilities":{{}},"clientInfo":{{"name":"t","version":"1"}}}}}}"#
    )
    .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while !(record.exists() && record.with_extension("cmdline").exists())
        && std::time::Instant::now() < deadline
    {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    assert_no_value(&out);
    assert_eq!(
        std::fs::read_to_string(&record).unwrap_or_default(),
        VALUE,
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let cmdline = std::fs::read_to_string(record.with_extension("cmdline")).unwrap();
    assert!(!cmdline.contains(VALUE), "{cmdline}");
    assert_eq!(
        files_containing(env.home.path(), VALUE, std::slice::from_ref(&record)),
        Vec::<std::path::PathBuf>::new()
    );
}
