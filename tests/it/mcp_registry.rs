//! The MCP Registry as a package source: a loopback server speaking its REST API over the
//! `server.json` fixtures in `tests/fixtures/mcp-registry/`, driven through `search`, `info`,
//! `add` (into every host), `install --locked`, `--offline`, and a document changed after locking.

use predicates::prelude::*;
use predicates::str::contains;

use crate::support::{Env, snapshot};
use crate::support_mcp::McpServer;

const HOSTS: &str = r#"hosts = ["claude-code", "codex", "cursor", "vscode", "gemini-cli"]"#;

/// A project with every host and the loopback registry declared as `mcp`.
fn project(env: &Env, server: &McpServer) {
    env.write(
        "dotpack.toml",
        &format!(
            "[project]\n{HOSTS}\n\n[registries]\nmcp = {{ url = \"{}\", kind = \"mcp-registry\" }}\n",
            server.url()
        ),
    );
}

/// The sha256 of a fixture's canonical form, as the lock pins it.
fn pin(server: &McpServer, name: &str, version: &str) -> String {
    let doc = server.document(name, version);
    format!(
        "sha256:{}",
        dotpack::registry::archive::sha256_hex(&dotpack::registry::mcp::canonical(&doc))
    )
}

#[test]
fn search_follows_the_cursor_and_lists_what_cannot_be_installed_with_the_reason() {
    let env = Env::new();
    let server = McpServer::fixtures();
    project(&env, &server);
    let out = env.dotpack().args(["search", "io"]).assert().success();
    let text = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    for line in [
        "io.github.acme/weather = \"1.1.0\"",
        "io.github.acme/db = \"2.0.0\"",
        "io.github.acme/tickets = \"2.0.0\"",
        "(registry mcp)",
    ] {
        assert!(text.contains(line), "{line} in {text}");
    }
    assert!(
        text.contains("io.github.acme/bundle = \"1.0.0\"")
            && text.contains("cannot be installed: `mcpb` packages"),
        "{text}"
    );
    assert!(
        text.contains("io.github.old/legacy") && text.contains("snake_case"),
        "{text}"
    );
    // Two servers a page: the search followed `nextCursor` to the end.
    let requests = server.requests();
    assert_eq!(
        requests,
        [
            "200 /v0.1/servers?search=io&version=latest&limit=100",
            "200 /v0.1/servers?search=io&version=latest&limit=100&cursor=2",
            "200 /v0.1/servers?search=io&version=latest&limit=100&cursor=4",
        ]
    );
    assert!(
        text.contains("io.github.acme/calver = \"2025.10.01\"") && text.contains("not semver"),
        "{text}"
    );
    // Offline, the same search comes from the cache; one the cache has not seen finds nothing.
    server.clear_requests();
    env.dotpack()
        .args(["--offline", "search", "io"])
        .assert()
        .success()
        .stdout(contains("io.github.acme/weather = \"1.1.0\""));
    env.dotpack()
        .args(["--offline", "search", "tickets"])
        .assert()
        .success()
        .stdout(contains("tickets").not());
    assert_eq!(server.requests(), Vec::<String>::new());
    let json = env
        .dotpack()
        .args(["search", "bundle", "--json"])
        .assert()
        .success();
    let value: serde_json::Value = serde_json::from_slice(&json.get_output().stdout).unwrap();
    assert_eq!(value["packages"][0]["name"], "io.github.acme/bundle");
    assert_eq!(value["packages"][0]["installable"], false);
    assert!(
        value["packages"][0]["reason"]
            .as_str()
            .unwrap()
            .contains("mcpb")
    );
}

#[test]
fn info_shows_the_mapped_package_or_why_it_cannot_be_installed() {
    let env = Env::new();
    let server = McpServer::fixtures();
    project(&env, &server);
    env.dotpack()
        .args(["info", "io.github.acme/weather"])
        .assert()
        .success()
        .stdout(contains("io.github.acme/weather 1.1.0"))
        .stdout(contains("versions: 1.0.0, 1.1.0"))
        .stdout(contains(
            "weather: stdio: npx -y @acme/weather-mcp@1.1.0 --units {{props.units}}",
        ))
        .stdout(contains("units"));
    env.dotpack()
        .args(["info", "io.github.acme/bundle"])
        .assert()
        .success()
        .stdout(contains("cannot be installed"))
        .stdout(contains("1.0.0: `mcpb` packages (`https://github.com/acme/bundle/releases/download/v1.0.0/bundle.mcpb`)"));
    let json = env
        .dotpack()
        .args(["info", "io.github.acme/calver", "--json"])
        .assert()
        .success();
    let value: serde_json::Value = serde_json::from_slice(&json.get_output().stdout).unwrap();
    assert_eq!(value["installable"], false);
    assert_eq!(value["refused"][0]["version"], "2025.10.01");
    assert!(
        value["refused"][0]["reason"]
            .as_str()
            .unwrap()
            .contains("not semver")
    );
    env.dotpack()
        .args(["info", "io.github.old/legacy"])
        .assert()
        .success()
        .stdout(contains("snake_case draft"))
        .stdout(contains(
            "`$schema` https://static.modelcontextprotocol.io/schemas/2025-07-09",
        ));
}

#[test]
fn add_pins_the_document_and_writes_the_server_into_every_host() {
    let env = Env::new();
    let server = McpServer::fixtures();
    project(&env, &server);
    env.dotpack()
        .args(["add", "io.github.acme/weather"])
        .assert()
        .success();
    let manifest = env.read("dotpack.toml");
    assert!(
        manifest.contains(r#""io.github.acme/weather" = { version = "^1.1", registry = "mcp" }"#),
        "{manifest}"
    );
    let lock = env.read("dotpack.lock");
    for part in [
        "name = \"io.github.acme/weather\"".to_string(),
        "version = \"1.1.0\"".to_string(),
        format!("source = \"mcp-registry+{}/\"", server.url()),
        format!(
            "checksum = \"{}\"",
            pin(&server, "io.github.acme/weather", "1.1.0")
        ),
    ] {
        assert!(lock.contains(&part), "{part} in {lock}");
    }
    // Each host's own shape and reference syntax.
    let claude = env.read(".mcp.json");
    assert!(claude.contains("\"weather\": {"), "{claude}");
    assert!(
        claude.contains("\"@acme/weather-mcp@1.1.0\",\n        \"--units\",\n        \"metric\""),
        "{claude}"
    );
    assert!(
        claude.contains("\"WEATHER_API_KEY\": \"${WEATHER_API_KEY}\""),
        "{claude}"
    );
    let codex = env.read(".codex/config.toml");
    assert!(codex.contains("[mcp_servers.weather]"), "{codex}");
    assert!(
        codex.contains("\"-y\", \"@acme/weather-mcp@1.1.0\", \"--units\", \"metric\""),
        "{codex}"
    );
    assert!(codex.contains("WEATHER_API_KEY"), "{codex}");
    let cursor = env.read(".cursor/mcp.json");
    assert!(cursor.contains("\"weather\""), "{cursor}");
    assert!(
        cursor.contains("\"WEATHER_API_KEY\": \"${env:WEATHER_API_KEY}\""),
        "{cursor}"
    );
    let vscode = env.read(".vscode/mcp.json");
    assert!(vscode.contains("\"servers\""), "{vscode}");
    assert!(vscode.contains("@acme/weather-mcp@1.1.0"), "{vscode}");
    assert!(
        vscode.contains("\"WEATHER_API_KEY\": \"${env:WEATHER_API_KEY}\""),
        "{vscode}"
    );
    let gemini = env.read(".gemini/settings.json");
    assert!(gemini.contains("\"mcpServers\""), "{gemini}");
    assert!(gemini.contains("@acme/weather-mcp@1.1.0"), "{gemini}");
    assert!(
        gemini.contains("\"WEATHER_API_KEY\": \"${WEATHER_API_KEY}\""),
        "{gemini}"
    );
    // Resolution read the versions list once; the document came from its own URL.
    assert_eq!(
        server.requests(),
        [
            "200 /v0.1/servers/io.github.acme%2Fweather/versions",
            "200 /v0.1/servers/io.github.acme%2Fweather/versions/1.1.0",
        ]
    );
}

#[test]
fn remotes_secret_headers_and_oci_runtime_arguments_are_mapped() {
    let env = Env::new();
    let server = McpServer::fixtures();
    env.write(
        "dotpack.toml",
        &format!(
            "[project]\nhosts = [\"claude-code\"]\n\n[registries]\nmcp = {{ url = \"{}\", kind = \"mcp-registry\" }}\n",
            server.url()
        ),
    );
    env.dotpack()
        .args([
            "add",
            "io.github.acme/tickets",
            "io.github.acme/db",
            "com.example/notes",
        ])
        .assert()
        .success();
    let claude: serde_json::Value = serde_json::from_str(&env.read(".mcp.json")).unwrap();
    let servers = &claude["mcpServers"];
    assert_eq!(
        servers["tickets"]["url"],
        "https://acme.tickets.example.com/mcp"
    );
    assert_eq!(
        servers["tickets"]["headers"]["Authorization"],
        "Bearer ${TOKEN}"
    );
    assert_eq!(servers["notes"]["type"], "sse");
    assert_eq!(servers["notes"]["url"], "https://notes.example.com/sse");
    assert_eq!(servers["db"]["command"], "docker");
    assert_eq!(
        servers["db"]["args"],
        serde_json::json!([
            "run",
            "-i",
            "--rm",
            "--network",
            "host",
            "-e",
            "DB_PASSWORD",
            "-e",
            "DB_HOST",
            "ghcr.io/acme/db-mcp:2.0.0",
            "--read-only",
            "true"
        ])
    );
    assert_eq!(servers["db"]["env"]["DB_PASSWORD"], "${DB_PASSWORD}");
    assert_eq!(servers["db"]["env"]["DB_HOST"], "localhost");
    // No secret value reached the lock or the manifest.
    let lock = env.read("dotpack.lock");
    assert!(!lock.contains("Bearer"), "{lock}");
}

#[test]
fn unmappable_and_snake_case_documents_are_refused_and_nothing_is_written() {
    let env = Env::new();
    let server = McpServer::fixtures();
    project(&env, &server);
    let before = snapshot(env.home.path());
    env.dotpack()
        .args(["add", "io.github.acme/bundle"])
        .assert()
        .failure()
        .stderr(contains("`io.github.acme/bundle` cannot be installed"))
        .stderr(contains(
            "`mcpb` packages (`https://github.com/acme/bundle/releases/download/v1.0.0/bundle.mcpb`) cannot be run",
        ));
    env.dotpack()
        .args(["add", "io.github.old/legacy"])
        .assert()
        .failure()
        .stderr(contains("snake_case draft"))
        .stderr(contains("`$schema`"));
    let after: Vec<_> = snapshot(env.home.path())
        .into_iter()
        .filter(|(path, _)| !path.starts_with(env.home.path().join(".dotpack/cache")))
        .collect();
    assert_eq!(after, before);
}

#[test]
fn a_name_with_a_slash_needs_an_mcp_registry_and_never_reaches_a_sparse_index() {
    let env = Env::new();
    env.write("dotpack.toml", "[project]\nhosts = [\"claude-code\"]\n");
    env.dotpack()
        .args(["add", "io.github.acme/weather"])
        .assert()
        .failure()
        .stderr(contains("is an MCP Registry name"))
        .stderr(contains("kind = \"mcp-registry\""));
    // `../x` is no name at all.
    env.dotpack()
        .args(["add", "../x"])
        .assert()
        .code(2)
        .stderr(contains("not a valid package name"));
}

#[test]
fn an_unknown_registry_kind_is_an_error_naming_the_key() {
    let env = Env::new();
    env.write(
        "dotpack.toml",
        "[registries]\nmcp = { url = \"https://registry.modelcontextprotocol.io\", kind = \"npm\" }\n",
    );
    env.dotpack()
        .arg("validate")
        .assert()
        .failure()
        .stderr(contains("registry kind `npm` is not one dotpack reads"))
        .stderr(contains("registries.mcp.kind"))
        .stderr(contains("mcp-registry"));
}

#[test]
fn install_locked_reproduces_on_a_fresh_home_and_offline_reads_the_cache() {
    let env = Env::new();
    let server = McpServer::fixtures();
    project(&env, &server);
    env.dotpack()
        .args(["add", "io.github.acme/weather@=1.0.0"])
        .assert()
        .success();
    let claude = env.read(".mcp.json");
    // A teammate clones the manifest and the lock.
    let teammate = Env::new();
    teammate.write("dotpack.toml", &env.read("dotpack.toml"));
    teammate.write("dotpack.lock", &env.read("dotpack.lock"));
    teammate
        .dotpack()
        .args(["install", "--locked"])
        .assert()
        .success();
    assert_eq!(teammate.read(".mcp.json"), claude);
    assert!(claude.contains("@acme/weather-mcp@1.0.0"), "{claude}");
    assert_eq!(teammate.read("dotpack.lock"), env.read("dotpack.lock"));

    // Warm cache: offline needs no request at all.
    server.clear_requests();
    teammate
        .dotpack()
        .args(["--offline", "install", "--locked"])
        .assert()
        .success();
    assert_eq!(server.requests(), Vec::<String>::new());
    // Cold cache: offline names what is missing and the flag.
    let cold = Env::new();
    cold.write("dotpack.toml", &env.read("dotpack.toml"));
    cold.write("dotpack.lock", &env.read("dotpack.lock"));
    cold.dotpack()
        .args(["--offline", "install", "--locked"])
        .assert()
        .failure()
        .stderr(contains(
            "package `io.github.acme/weather` is not in the cache",
        ))
        .stderr(contains("--offline"));
}

#[test]
fn a_document_changed_after_locking_is_a_checksum_error_and_nothing_is_written() {
    let env = Env::new();
    let server = McpServer::fixtures();
    project(&env, &server);
    env.dotpack()
        .args(["add", "io.github.acme/weather"])
        .assert()
        .success();
    let mut changed = server.document("io.github.acme/weather", "1.1.0");
    changed["packages"][0]["identifier"] = serde_json::json!("@evil/weather-mcp");
    server.replace("io.github.acme/weather", "1.1.0", changed);
    let teammate = Env::new();
    teammate.write("dotpack.toml", &env.read("dotpack.toml"));
    teammate.write("dotpack.lock", &env.read("dotpack.lock"));
    let before = snapshot(&teammate.project);
    teammate
        .dotpack()
        .args(["install", "--locked"])
        .assert()
        .failure()
        .stderr(contains(
            "checksum for `io.github.acme/weather v1.1.0` changed since dotpack.lock pinned it",
        ))
        .stderr(contains(format!(
            "the index of registry mcp-registry+{}/ now lists {}",
            server.url(),
            pin(&server, "io.github.acme/weather", "1.1.0")
        )));
    assert_eq!(snapshot(&teammate.project), before);
}

#[test]
fn names_with_a_slash_work_in_tree_why_outdated_and_remove() {
    let env = Env::new();
    let server = McpServer::fixtures();
    project(&env, &server);
    env.dotpack()
        .args(["add", "io.github.acme/weather@=1.0.0"])
        .assert()
        .success();
    env.dotpack()
        .arg("tree")
        .assert()
        .success()
        .stdout(contains("io.github.acme/weather v1.0.0"));
    env.dotpack()
        .args(["why", "io.github.acme/weather"])
        .assert()
        .success()
        .stdout(contains("io.github.acme/weather"));
    env.dotpack()
        .arg("outdated")
        .assert()
        .stdout(contains("io.github.acme/weather"))
        .stdout(contains("1.1.0"));
    env.dotpack()
        .args(["remove", "io.github.acme/weather"])
        .assert()
        .success();
    assert!(!env.read("dotpack.toml").contains("io.github.acme/weather"));
    let claude = std::fs::read_to_string(env.project.join(".mcp.json")).unwrap_or_default();
    assert!(!claude.contains("weather"), "{claude}");
}

#[test]
fn a_url_naming_the_v0_api_is_used_as_it_is() {
    let env = Env::new();
    let server = McpServer::fixtures();
    env.write(
        "dotpack.toml",
        &format!(
            "[project]\nhosts = [\"claude-code\"]\n\n[registries]\nmcp = {{ url = \"{}/v0\", kind = \"mcp-registry\" }}\n",
            server.url()
        ),
    );
    env.dotpack()
        .args(["add", "com.example/notes"])
        .assert()
        .success();
    assert_eq!(
        server.requests(),
        [
            "200 /v0/servers/com.example%2Fnotes/versions",
            "200 /v0/servers/com.example%2Fnotes/versions/0.3.0",
        ]
    );
    assert!(
        env.read("dotpack.lock")
            .contains(&format!("source = \"mcp-registry+{}/v0/\"", server.url()))
    );
}

#[test]
fn a_mistyped_name_gets_close_names_from_the_registry_search() {
    let env = Env::new();
    let server = McpServer::fixtures();
    project(&env, &server);
    env.dotpack()
        .args(["add", "io.github.acme/weathr"])
        .assert()
        .failure()
        .stderr(contains("package `io.github.acme/weathr` was not found"))
        .stderr(contains("did you mean `io.github.acme/weather`"));
}

#[test]
fn a_deleted_version_is_refused_and_a_registry_without_latest_still_lists_each_server_once() {
    let env = Env::new();
    let server = McpServer::fixtures();
    project(&env, &server);
    server.delete("io.github.acme/weather", "1.1.0");
    env.dotpack()
        .args(["add", "io.github.acme/weather"])
        .assert()
        .success();
    let lock = env.read("dotpack.lock");
    assert!(lock.contains("version = \"1.0.0\""), "{lock}");
    env.dotpack()
        .args(["info", "io.github.acme/weather"])
        .assert()
        .success()
        .stdout(contains("versions: 1.0.0\n"))
        .stdout(contains(
            "cannot be installed: 1.1.0 (the registry deleted it and gives no reason)",
        ));

    server.ignore_latest();
    let out = env.dotpack().args(["search", "weather"]).assert().success();
    let text = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    assert_eq!(
        text.matches("io.github.acme/weather =").count(),
        1,
        "{text}"
    );
    // 1.1.0 is deleted: the newest the registry still offers is 1.0.0.
    assert!(
        text.contains("io.github.acme/weather = \"1.0.0\""),
        "{text}"
    );
}

#[test]
fn a_private_subregistry_gets_its_token_and_a_refusal_names_the_variable() {
    let env = Env::new();
    let server = McpServer::fixtures();
    server.require_authorization("Bearer sub-registry-token-1");
    env.write(
        "dotpack.toml",
        &format!(
            "[project]\nhosts = [\"claude-code\"]\n\n[registries]\nmcp = {{ url = \"{}\", kind = \"mcp-registry\", token_env = \"SUB_TOKEN\" }}\n",
            server.url()
        ),
    );
    // The project names the variable: it is sent only once the user approves that.
    env.dotpack()
        .args(["add", "io.github.acme/weather"])
        .env("SUB_TOKEN", "sub-registry-token-1")
        .assert()
        .failure()
        .stderr(contains("SUB_TOKEN"))
        .stderr(contains("dotpack trust"));
    assert!(!env.project.join(".mcp.json").exists());
    env.dotpack()
        .args(["--trust", "add", "io.github.acme/weather"])
        .env_remove("SUB_TOKEN")
        .assert()
        .failure()
        .stderr(contains("SUB_TOKEN"));
    assert!(!env.project.join(".mcp.json").exists());
    env.dotpack()
        .args(["-vv", "--trust", "add", "io.github.acme/weather"])
        .env("SUB_TOKEN", "sub-registry-token-1")
        .assert()
        .success()
        .stderr(contains("sub-registry-token-1").not());
    assert!(env.read(".mcp.json").contains("\"weather\""));
}

#[test]
fn lock_with_a_misspelled_name_asks_the_registry_at_most_three_times() {
    let env = Env::new();
    let server = McpServer::fixtures();
    project(&env, &server);
    let manifest = env.read("dotpack.toml");
    env.write(
        "dotpack.toml",
        &format!("{manifest}\n[dependencies]\n\"io.github.acme/weathr\" = {{ version = \"*\", registry = \"mcp\" }}\n"),
    );
    server.clear_requests();
    env.dotpack()
        .args(["lock"])
        .assert()
        .failure()
        .stderr(contains("io.github.acme/weathr"))
        .stderr(contains("io.github.acme/weather"));
    let requests = server.requests();
    assert!(requests.len() <= 3, "{requests:#?}");
}

#[test]
fn search_with_two_words_finds_the_server_that_matches_both() {
    let env = Env::new();
    let server = McpServer::fixtures();
    project(&env, &server);
    // `forecasts` is in no name, only in weather's description; `acme` is in its name. The
    // registry matches one substring of the name, so each word is asked for.
    let out = env
        .dotpack()
        .args(["search", "acme", "forecasts"])
        .assert()
        .success();
    let text = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    let first = text.lines().next().unwrap_or_default();
    assert!(first.starts_with("io.github.acme/weather"), "{text}");
    let requests = server.requests();
    assert!(
        requests.iter().any(|r| r.contains("search=acme&"))
            && requests.iter().any(|r| r.contains("search=forecasts&")),
        "{requests:#?}"
    );
}

#[test]
fn a_fresh_cache_answers_without_a_request_until_refresh_or_the_max_age() {
    let env = Env::new();
    let server = McpServer::fixtures();
    project(&env, &server);
    let fresh = |cmd: &mut assert_cmd::Command| {
        cmd.env_remove("DOTPACK_CACHE_MAX_AGE");
    };
    let mut add = env.dotpack();
    fresh(&mut add);
    add.args(["add", "io.github.acme/weather"])
        .assert()
        .success();
    // `install` right after asks the registry nothing: what it sent is minutes old at most.
    server.clear_requests();
    let mut install = env.dotpack();
    fresh(&mut install);
    install.args(["install"]).assert().success();
    assert_eq!(server.requests(), Vec::<String>::new());
    // `--refresh` asks again, and the ETag saves the bytes.
    let mut refresh = env.dotpack();
    fresh(&mut refresh);
    refresh.args(["--refresh", "install"]).assert().success();
    let requests = server.requests();
    assert!(
        !requests.is_empty() && requests.iter().all(|r| r.starts_with("304 ")),
        "{requests:#?}"
    );
    // A max-age of 0 asks every time.
    server.clear_requests();
    env.dotpack()
        .env("DOTPACK_CACHE_MAX_AGE", "0")
        .args(["install"])
        .assert()
        .success();
    assert!(!server.requests().is_empty());
    // A bad value is an error naming the variable.
    env.dotpack()
        .env("DOTPACK_CACHE_MAX_AGE", "soon")
        .args(["install"])
        .assert()
        .failure()
        .stderr(contains(
            "DOTPACK_CACHE_MAX_AGE=`soon` is not a number of seconds",
        ));
}

#[test]
fn a_search_cut_at_the_page_budget_says_so() {
    let docs: Vec<serde_json::Value> = (0..50)
        .map(|i| {
            serde_json::json!({
                "$schema": "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json",
                "name": format!("io.github.acme/tool-{i:02}"), "description": "d", "version": "1.0.0",
                "remotes": [{"type": "streamable-http", "url": "https://acme.example/mcp"}]
            })
        })
        .collect();
    // Two servers a page: the 20-page budget reads 40 of the 50.
    let server = McpServer::start(docs, 2);
    let env = Env::new();
    project(&env, &server);
    env.dotpack()
        .args(["search", "tool"])
        .assert()
        .success()
        .stderr(contains(
            "the registry lists more servers matching `tool` than the 40 dotpack read: add a word or use a longer one",
        ));
    // A narrow word is read whole and says nothing.
    env.dotpack()
        .args(["search", "tool-4"])
        .assert()
        .success()
        .stderr(contains("dotpack read").not());
}
