//! Hermes Agent (PyPI, in the virtualenv `install.sh` makes) asked with its own `hermes mcp list`
//! (the servers, their tool selection and whether each is enabled) and `hermes mcp test NAME`
//! (which connects: the stdio server started with its env, `${TOKEN}` expanded; the remote one
//! sent its headers), with `$HERMES_HOME` set, so dotpack wrote `$HERMES_HOME/config.yaml`.

use super::*;

/// The pinned Hermes from `pip-versions.txt`, or `None` after saying why it is skipped (a
/// failure where the peers are required).
#[allow(clippy::print_stderr)]
fn hermes() -> Option<PathBuf> {
    offline::enter();
    let pin = include_str!("pip-versions.txt")
        .lines()
        .find_map(|l| l.strip_prefix("hermes-agent[mcp]=="))
        .expect("hermes-agent pinned in pip-versions.txt");
    if !wanted("Hermes Agent") {
        return None;
    }
    let bin = hosts_dir().join("hermes/bin/hermes");
    let home = TempDir::new().expect("temp dir");
    let version = std::process::Command::new(&bin)
        .arg("--version")
        .env("HOME", home.path())
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default();
    if version.contains(&format!("v{pin} ")) {
        return Some(bin);
    }
    let message = format!(
        "SKIPPED: real-host test for Hermes Agent: {} is not Hermes {pin} ({:?}). Install it with `{INSTALL}`, or run .ci/run.",
        bin.display(),
        version.lines().next().unwrap_or_default()
    );
    assert!(
        std::env::var_os("DOTPACK_REQUIRE_TEST_PEERS").is_none_or(|v| v.is_empty() || v == "0"),
        "{message} (DOTPACK_REQUIRE_TEST_PEERS is set: the program must be there)"
    );
    eprintln!("{message}");
    None
}

#[test]
fn hermes_reads_what_dotpack_wrote_under_hermes_home() {
    let Some(hermes) = hermes() else {
        return;
    };
    let w = World::new();
    let hermes_home = w.root().join("hermes-home");
    std::fs::create_dir_all(&hermes_home).expect("HERMES_HOME");
    let extra = format!(
        "enabled_tools = [\"alpha\"]\n\n[servers.off]\ncommand = \"node\"\nargs = [{:?}, \"off\"]\nenabled = false\n",
        w.mcp_server_arg()
    );
    let manifest = format!(
        "[project]\nhosts = [{{ host = \"hermes\", scope = \"user\" }}]\n\n\
         [servers.local-tool]\ncommand = \"node\"\nargs = [{fake:?}, \"hermes\"]\n\
         env = {{ TOKEN = \"{{{{env.TOKEN}}}}\", LEVEL = \"debug\" }}\n\n\
         [servers.remote-api]\nurl = \"{url}\"\n\
         http_headers = {{ Authorization = \"Bearer {{{{env.API_TOKEN}}}}\", X-Client = \"dotpack\" }}\n\
         {extra}",
        fake = w.mcp_server_arg(),
        url = w.url(),
    );
    std::fs::write(w.project.join("dotpack.toml"), manifest).expect("manifest");
    w.dotpack()
        .env("HERMES_HOME", &hermes_home)
        .args(["--trust", "install"])
        .assert()
        .success();
    assert!(
        hermes_home.join("config.yaml").exists(),
        "dotpack wrote $HERMES_HOME/config.yaml"
    );
    assert!(!w.root().join(".hermes/config.yaml").exists());

    let run = |args: &[&str]| {
        let out = host_command(&hermes, &w.root(), &w.project)
            .env("HERMES_HOME", &hermes_home)
            .env("TOKEN", TOKEN)
            .env("API_TOKEN", API_TOKEN)
            .args(args)
            .output()
            .expect("run hermes");
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    };
    let listed = run(&["mcp", "list"]);
    let row = |name: &str| {
        listed
            .lines()
            .find(|l| l.trim_start().starts_with(&format!("{name} ")))
            .unwrap_or_else(|| panic!("hermes mcp list has no {name}:\n{listed}"))
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    };
    // The remote server has the allow list (the last server before `off` in the manifest).
    // Hermes cuts a long command short; the tool selection and state are whole.
    assert_has(&row("local-tool"), "all ✓ enabled", "hermes mcp list");
    assert_has(
        &row("remote-api"),
        "1 selected ✓ enabled",
        "hermes mcp list",
    );
    assert_has(&row("off"), "✗ disabled", "hermes mcp list");

    let tested = run(&["mcp", "test", "local-tool"]);
    assert_has(&tested, "Tools discovered: 3", "hermes mcp test local-tool");
    let starts = w.stdio_starts();
    assert!(
        starts.contains(&json!({"argv": ["hermes"], "TOKEN": TOKEN, "LEVEL": "debug"})),
        "hermes started {starts:?}\n{tested}"
    );
    let tested = run(&["mcp", "test", "remote-api"]);
    let requests = w.http.requests();
    let post = requests
        .iter()
        .find(|r| r.starts_with("POST /mcp "))
        .unwrap_or_else(|| panic!("no POST /mcp in {requests:?}\n{tested}"))
        .to_ascii_lowercase();
    assert_has(
        &post,
        &format!("authorization: bearer {API_TOKEN}"),
        "Hermes's request",
    );
    assert_has(&post, "x-client: dotpack", "Hermes's request");
}
