//! `dotpack doctor` names what a server needs to start and this machine lacks: the program an
//! installed entry runs, the runtime behind a runner (`npx` needs Node.js), and the host program
//! that reads the file, each with its fix. Read from the host files as written; nothing starts.

use std::path::Path;

use serde_json::Value;

use crate::support::{Env, assert_success};

fn doctor_json(env: &Env, path: &Path) -> Value {
    let out = env
        .dotpack()
        .env("PATH", path)
        .args(["doctor", "--json"])
        .output()
        .unwrap();
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {out:?}"))
}

fn missing(doc: &Value) -> Vec<(String, String)> {
    doc["programs"]
        .as_array()
        .unwrap_or_else(|| panic!("{doc}"))
        .iter()
        .map(|m| {
            (
                m["server"].as_str().unwrap_or("-").to_string(),
                m["program"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn doctor_names_a_missing_runtime_and_host_program_with_the_fix() {
    let env = Env::new();
    env.write(
        "dotpack.toml",
        "[project]\nhosts = [\"claude-code\", \"codex\"]\n\n\
         [servers.web]\ncommand = \"npx\"\nargs = [\"-y\", \"web-mcp@1.0.0\"]\n\n\
         [servers.own]\ncommand = \"./bin/own-server\"\nargs = []\n\n\
         [servers.gone]\ncommand = \"gone-server\"\nargs = []\n",
    );
    env.write("bin/own-server", "#!/bin/sh\n");
    assert_success(&env.dotpack().args(["install"]).output().unwrap());
    {
        use std::os::unix::fs::PermissionsExt;
        let own = env.project.join("bin/own-server");
        std::fs::set_permissions(own, std::fs::Permissions::from_mode(0o755)).unwrap();
    }

    // npx is there, Node.js is not; Claude Code is installed, Codex is not.
    let bin = env.path_with(&["npx", "claude"]);
    let doc = doctor_json(&env, &bin);
    let mut found = missing(&doc);
    found.sort();
    let want = [
        ("-", "codex"),
        ("gone", "gone-server"),
        ("gone", "gone-server"),
        ("web", "node"),
        ("web", "node"),
    ];
    let want: Vec<(String, String)> = want
        .iter()
        .map(|(s, p)| (s.to_string(), p.to_string()))
        .collect();
    assert_eq!(found, want, "{doc}");
    let node = doc["programs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["program"] == "node")
        .unwrap();
    assert!(
        node["fix"].as_str().unwrap().contains("install Node.js"),
        "{node}"
    );

    // The human output: one line per problem, naming the file, the host and the fix.
    let out = env
        .dotpack()
        .env("PATH", &bin)
        .arg("doctor")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(".mcp.json (claude-code): `gone` runs `gone-server`, which is not on PATH"),
        "{stderr}"
    );
    assert!(
        stderr.contains("`codex` is not on PATH: install Codex"),
        "{stderr}"
    );

    // With everything installed, nothing is named.
    let bin = env.path_with(&["npx", "node", "claude", "codex", "gone-server"]);
    assert_eq!(missing(&doctor_json(&env, &bin)), Vec::new());
}

#[test]
fn doctor_checks_the_program_behind_the_launcher() {
    let env = Env::new();
    env.write(
        "dotpack.toml",
        "[project]\nhosts = [\"claude-code\"]\nlauncher = true\n\n\
         [servers.tool]\ncommand = \"uvx\"\nargs = [\"tool-mcp\"]\nenv = { TOKEN = \"{{env.TOKEN}}\" }\n",
    );
    assert_success(&env.dotpack().args(["install"]).output().unwrap());
    let mcp: Value =
        serde_json::from_str(&std::fs::read_to_string(env.project.join(".mcp.json")).unwrap())
            .unwrap();
    assert_eq!(mcp["mcpServers"]["tool"]["command"], "dotpack", "{mcp}");
    let bin = env.path_with(&["claude", "dotpack"]);
    let doc = doctor_json(&env, &bin);
    assert_eq!(
        missing(&doc),
        vec![("tool".to_string(), "uvx".to_string())],
        "{doc}"
    );
    let fix = doc["programs"][0]["fix"].as_str().unwrap();
    assert!(fix.contains("install uv"), "{fix}");
}
