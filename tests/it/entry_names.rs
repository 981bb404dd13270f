//! Entry names the user chooses: 65 published MCP Registry servers are all called `mcp` in the
//! hosts, so two of them exclude each other unless one gets another name. `add NAME --as ENTRY`
//! records `entries = { SERVER = "ENTRY" }` on the dependency; claims, `status`, `tree`,
//! `remove`, `install --locked` and `import` all go by the entry name.

use predicates::str::contains;
use serde_json::{Value, json};

use crate::support::Env;
use crate::support_mcp::McpServer;

const SCHEMA: &str = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json";

fn remote(name: &str, url: &str) -> Value {
    json!({
        "$schema": SCHEMA, "name": name, "description": "d", "version": "1.0.0",
        "remotes": [{"type": "streamable-http", "url": url}]
    })
}

fn project() -> (Env, McpServer) {
    let server = McpServer::start(
        vec![
            remote("com.notion/mcp", "https://mcp.notion.com/mcp"),
            remote("com.stripe/mcp", "https://mcp.stripe.com"),
        ],
        100,
    );
    let env = Env::new();
    env.write(
        "dotpack.toml",
        &format!(
            "[project]\nhosts = [\"claude-code\", \"codex\"]\n\n[registries]\nmcp = {{ url = \"{}\", kind = \"mcp-registry\" }}\n",
            server.url()
        ),
    );
    (env, server)
}

fn claude(env: &Env) -> Value {
    serde_json::from_str(&env.read(".mcp.json")).expect(".mcp.json is JSON")
}

#[test]
fn two_servers_of_the_same_name_install_side_by_side_once_one_is_named() {
    let (env, _server) = project();
    env.dotpack()
        .args(["add", "com.notion/mcp"])
        .assert()
        .success();
    let before = env.read("dotpack.toml");
    // The collision fails fast, names both packages and the way out; nothing is written.
    env.dotpack()
        .args(["add", "com.stripe/mcp"])
        .assert()
        .failure()
        .stderr(contains(
            "packages `com.notion/mcp` 1.0.0 and `com.stripe/mcp` 1.0.0 would both write the entry `mcp`",
        ))
        .stderr(contains("dotpack add com.stripe/mcp --as NEW-NAME"));
    assert_eq!(env.read("dotpack.toml"), before);

    env.dotpack()
        .args(["add", "com.stripe/mcp", "--as", "stripe"])
        .assert()
        .success()
        .stderr(contains(
            "Naming com.stripe/mcp's server `mcp` `stripe` in the hosts",
        ));
    assert!(
        env.read("dotpack.toml")
            .contains("entries = { mcp = \"stripe\" }"),
        "{}",
        env.read("dotpack.toml")
    );
    let servers = &claude(&env)["mcpServers"];
    assert_eq!(servers["mcp"]["url"], "https://mcp.notion.com/mcp");
    assert_eq!(servers["stripe"]["url"], "https://mcp.stripe.com");
    let codex = env.read(".codex/config.toml");
    assert!(codex.contains("[mcp_servers.stripe]"), "{codex}");
    assert!(codex.contains("[mcp_servers.mcp]"), "{codex}");
    // The claim is the entry's name.
    let lock = env.read("dotpack.lock");
    assert!(lock.contains("server = \"stripe\""), "{lock}");

    // Both entries are where their claims say, under the names they have.
    env.dotpack()
        .args(["status"])
        .assert()
        .success()
        .stderr(contains("every declared server is installed as locked"));
    env.dotpack()
        .args(["list"])
        .assert()
        .success()
        .stdout(contains("stripe"));
    env.dotpack()
        .args(["tree"])
        .assert()
        .success()
        .stdout(contains("stripe"));

    // A hand edit of the renamed entry is seen under its name.
    let edited = env
        .read(".mcp.json")
        .replace("https://mcp.stripe.com", "https://evil.example");
    env.write(".mcp.json", &edited);
    let out = env.dotpack().args(["status"]).assert().failure();
    let text = String::from_utf8_lossy(&out.get_output().stdout).to_string()
        + &String::from_utf8_lossy(&out.get_output().stderr);
    assert!(
        text.contains("stripe") && text.contains("edited by hand"),
        "{text}"
    );
    env.dotpack()
        .args(["install", "--force"])
        .assert()
        .success();
    assert_eq!(
        claude(&env)["mcpServers"]["stripe"]["url"],
        "https://mcp.stripe.com"
    );

    // A teammate's clone reproduces both entries.
    let teammate = Env::new();
    teammate.write("dotpack.toml", &env.read("dotpack.toml"));
    teammate.write("dotpack.lock", &env.read("dotpack.lock"));
    teammate
        .dotpack()
        .args(["install", "--locked"])
        .assert()
        .success();
    assert_eq!(claude(&teammate), claude(&env));

    // Removing the package removes exactly its entry, by the name it has.
    env.dotpack()
        .args(["remove", "com.stripe/mcp"])
        .assert()
        .success();
    let servers = &claude(&env)["mcpServers"];
    assert!(servers.get("stripe").is_none(), "{servers}");
    assert_eq!(servers["mcp"]["url"], "https://mcp.notion.com/mcp");
}

#[test]
fn renaming_an_entry_moves_it_and_a_name_the_package_lacks_is_an_error() {
    let (env, _server) = project();
    env.dotpack()
        .args(["add", "com.notion/mcp", "--as", "notion"])
        .assert()
        .success();
    assert!(claude(&env)["mcpServers"].get("notion").is_some());
    // Naming it again moves the entry: the old one goes, the claim follows.
    env.dotpack()
        .args(["add", "com.notion/mcp", "--as", "notion-docs"])
        .assert()
        .success();
    let servers = &claude(&env)["mcpServers"];
    assert!(servers.get("notion").is_none(), "{servers}");
    assert!(servers.get("notion-docs").is_some(), "{servers}");
    // Back to its own name: `entries` goes from dotpack.toml.
    env.dotpack()
        .args(["add", "com.notion/mcp", "--as", "mcp"])
        .assert()
        .success();
    assert!(!env.read("dotpack.toml").contains("entries"));
    assert!(claude(&env)["mcpServers"].get("mcp").is_some());

    // A hand-written `entries` naming a server the package does not have.
    let manifest = env.read("dotpack.toml").replace(
        "registry = \"mcp\"",
        "registry = \"mcp\", entries = { notion = \"docs\" }",
    );
    env.write("dotpack.toml", &manifest);
    env.dotpack()
        .args(["install"])
        .assert()
        .failure()
        .stderr(contains(
            "`dependencies.\"com.notion/mcp\".entries` names server `notion`, which package `com.notion/mcp` 1.0.0 does not declare",
        ))
        .stderr(contains("its servers are: mcp"));
    // An entry name that is not a name at all is a manifest error with its key path.
    let bad = env
        .read("dotpack.toml")
        .replace("{ notion = \"docs\" }", "{ mcp = \"has space\" }");
    env.write("dotpack.toml", &bad);
    env.dotpack()
        .args(["install"])
        .assert()
        .failure()
        .stderr(contains("`has space` is not a valid entry name"));
}
