//! The launcher chosen per host: `{ host = "…", launcher = true }` in `[project] hosts` and a
//! dependency's `launcher = ["host", …]` start the servers through `dotpack run` in those hosts
//! only; every other host gets the plain command.

use predicates::prelude::*;
use predicates::str::contains;

use crate::support::Env;

/// A server that records the `TOKEN` it receives into its first argument's file.
const RECORDER: &str = "[servers.rec]\ncommand = \"/bin/sh\"\nargs = [\"-c\", \"printf %s \\\"$TOKEN\\\" > \\\"$0\\\"\", \"RECORD\"]\nenv = { TOKEN = \"{{env.TOKEN}}\" }\n";

/// Claude Desktop's file (its Linux path) in the test's HOME, parsed.
fn desktop_config(env: &Env) -> serde_json::Value {
    json(
        &env.home
            .path()
            .join(".config/Claude/claude_desktop_config.json"),
    )
}

fn json(path: &std::path::Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// `{ host = "claude-desktop", launcher = true }`: Claude Desktop, which passes its servers no
/// environment and expands no reference, starts the server through `dotpack run`; Claude Code,
/// declared beside it, keeps the plain command with its `${TOKEN}` reference. The launcher
/// entry runs, and gives the server the token from its own environment when no store answers.
#[test]
fn a_host_entry_with_launcher_starts_only_that_hosts_entry_through_dotpack_run() {
    let env = Env::new();
    let record = env.project.join("received");
    env.write(
        "dotpack.toml",
        &format!(
            "[project]\nhosts = [\"claude-code\", {{ host = \"claude-desktop\", launcher = true }}]\n\n{}",
            RECORDER.replace("RECORD", &record.display().to_string())
        ),
    );
    env.dotpack()
        .args(["--trust", "install"])
        .assert()
        .success();
    let plain = &json(&env.project.join(".mcp.json"))["mcpServers"]["rec"];
    assert_eq!(plain["command"], "/bin/sh", "{plain}");
    assert_eq!(plain["env"]["TOKEN"], "${TOKEN}", "{plain}");
    let desktop = desktop_config(&env);
    let launched = &desktop["mcpServers"]["rec"];
    let args: Vec<&str> = launched["args"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect();
    assert_eq!(&args[..2], ["run", "--pin"], "{launched}");
    assert!(
        args.windows(2).any(|w| w == ["--secret", "TOKEN"]),
        "{launched}"
    );
    assert!(launched["env"].get("TOKEN").is_none(), "{launched}");

    // The entry as Claude Desktop would start it: the launcher finds no store here and takes
    // the token from its environment.
    let out = std::process::Command::new(launched["command"].as_str().unwrap())
        .args(&args)
        .env_clear()
        .env("HOME", env.home.path())
        .env("XDG_RUNTIME_DIR", env.home.path())
        .env("DOTPACK_HOME", env.home.path().join(".dotpack"))
        .env("TOKEN", "from-the-environment")
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert_eq!(
        std::fs::read_to_string(&record).unwrap(),
        "from-the-environment"
    );
}

/// A dependency's `launcher = ["codex"]`: Codex's entry starts `dotpack run`, Cursor's the
/// package's own command; naming another host moves the launcher there on the next install.
#[test]
fn a_dependency_launcher_list_names_the_hosts_that_start_it_through_dotpack_run() {
    let env = Env::new();
    let manifest = "[project]\nhosts = [\"codex\", \"cursor\"]\n\n[dependencies]\ngithub = { version = \"^1.1\", launcher = [\"codex\"] }\n";
    env.write("dotpack.toml", manifest);
    env.dotpack()
        .args(["--trust", "install"])
        .assert()
        .success();
    let codex = env.read(".codex/config.toml");
    let cursor = env.read(".cursor/mcp.json");
    assert!(
        codex.contains("\"--secret\", \"GITHUB_PERSONAL_ACCESS_TOKEN\""),
        "{codex}"
    );
    assert!(!cursor.contains("--pin"), "{cursor}");
    assert!(
        cursor.contains("${env:GITHUB_PERSONAL_ACCESS_TOKEN}"),
        "{cursor}"
    );

    env.write(
        "dotpack.toml",
        &manifest.replace("[\"codex\"]", "[\"cursor\"]"),
    );
    env.dotpack()
        .args(["--trust", "install"])
        .assert()
        .success();
    let codex = env.read(".codex/config.toml");
    let cursor = env.read(".cursor/mcp.json");
    assert!(!codex.contains("--pin"), "{codex}");
    assert!(cursor.contains("\"--secret\""), "{cursor}");
    env.dotpack().arg("status").assert().success();
}

/// An unknown host in either spelling is an error naming the key path and the nearest host,
/// and no file is written.
#[test]
fn a_launcher_naming_an_unknown_host_is_refused_with_its_key_path() {
    let env = Env::new();
    env.write(
        "dotpack.toml",
        "[project]\nhosts = [\"codex\", { host = \"cursor\", launcher = \"yes\" }]\n\n[dependencies]\ngithub = { version = \"^1.1\", launcher = [\"claude-desktp\"] }\n",
    );
    env.dotpack()
        .args(["--trust", "install"])
        .assert()
        .failure()
        .code(1)
        .stderr(
            contains("unknown host `claude-desktp`")
                .and(contains("dependencies.github.launcher[0]"))
                .and(contains("did you mean `claude-desktop`?"))
                .and(contains("project.hosts[1].launcher"))
                .and(contains("must be `true` or `false`")),
        );
    assert!(!env.project.join(".codex").exists());
    assert!(!env.project.join("dotpack.lock").exists());
}

/// A remote server for Claude Desktop, which starts stdio servers only: the refusal names the
/// launcher beside `--allow-lossy=transport`, and following it writes the launcher's stdio proxy
/// entry (`dotpack run --url`) with nothing dropped.
#[test]
fn a_remote_server_refused_for_a_stdio_only_host_offers_the_launcher_and_it_works() {
    let env = Env::new();
    let manifest =
        "[project]\nhosts = [HOSTS]\n\n[servers.remote]\nurl = \"https://mcp.example.com/mcp\"\n";
    env.write(
        "dotpack.toml",
        &manifest.replace("HOSTS", "\"claude-desktop\""),
    );
    env.dotpack()
        .args(["--trust", "install"])
        .assert()
        .failure()
        .stderr(contains("field `transport`"))
        .stderr(contains(
            "`{ host = \"claude-desktop\", launcher = true }` in [project] hosts",
        ));
    env.write(
        "dotpack.toml",
        &manifest.replace("HOSTS", "{ host = \"claude-desktop\", launcher = true }"),
    );
    env.dotpack()
        .args(["--trust", "install"])
        .assert()
        .success()
        .stderr(contains("transport").not());
    let desktop = desktop_config(&env);
    let args = &desktop["mcpServers"]["remote"]["args"];
    assert_eq!(args[0], "run", "{desktop}");
    assert!(
        args.as_array()
            .unwrap()
            .windows(2)
            .any(|w| w[0] == "--url" && w[1] == "https://mcp.example.com/mcp"),
        "{desktop}"
    );
}
