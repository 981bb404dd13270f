//! opencode reads `opencode.jsonc` as well as `opencode.json`, in the project and in
//! `~/.config/opencode/`: a setup that keeps the `.jsonc` is edited there in place, comments and
//! all, and read there by `import`, `hosts` and `init --import`; no second file appears beside it.

use serde_json::Value;

use crate::support::{Env, assert_success};

/// A hand-written `opencode.jsonc`: comments of both kinds, a trailing comma, a server of its own.
const JSONC: &str = "// my opencode setup\n{\n  \"$schema\": \"https://opencode.ai/config.json\",\n  /* servers I wrote */\n  \"mcp\": {\n    \"mine\": { \"type\": \"local\", \"command\": [\"node\", \"server.js\"] }, // keep me\n  },\n}\n";

const SERVER: &str = "\n[servers.files]\ncommand = \"npx\"\nargs = [\"-y\", \"files-mcp\"]\n";

fn run(env: &Env, args: &[&str]) -> std::process::Output {
    let out = env.dotpack().args(args).output().unwrap();
    assert_success(&out);
    out
}

#[test]
fn a_project_opencode_jsonc_is_written_in_place_and_read_by_every_command() {
    let env = Env::new();
    env.write("opencode.jsonc", JSONC);
    env.write(
        "dotpack.toml",
        &format!("[project]\nhosts = [\"opencode\"]\n{SERVER}"),
    );
    run(&env, &["install"]);
    assert!(!env.project.join("opencode.json").exists());
    let text = env.read("opencode.jsonc");
    assert!(text.contains("files-mcp"), "{text}");
    for kept in [
        "// my opencode setup\n",
        "/* servers I wrote */",
        "// keep me",
    ] {
        assert!(text.contains(kept), "{kept}: {text}");
    }
    assert!(
        env.read("dotpack.lock")
            .contains("file = \"opencode.jsonc\"")
    );
    // Taking the server out gives back the user's bytes exactly.
    run(&env, &["uninstall"]);
    assert_eq!(env.read("opencode.jsonc"), JSONC);

    let doc: Value =
        serde_json::from_slice(&run(&env, &["import", "opencode", "--json"]).stdout).unwrap();
    assert_eq!(doc["file"], "opencode.jsonc", "{doc}");
    assert_eq!(doc["servers"]["mine"]["command"], "node", "{doc}");

    let hosts: Value = serde_json::from_slice(&run(&env, &["hosts", "--json"]).stdout).unwrap();
    let opencode = hosts["hosts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["id"] == "opencode")
        .unwrap();
    let project = &opencode["scopes"][0];
    assert!(
        project["file"]
            .as_str()
            .unwrap()
            .ends_with("opencode.jsonc")
            && project["exists"] == true,
        "{opencode}"
    );
}

#[test]
fn init_import_reads_a_project_opencode_jsonc() {
    let env = Env::new();
    env.write("opencode.jsonc", JSONC);
    run(&env, &["init", "--import"]);
    let manifest = env.read("dotpack.toml");
    assert!(manifest.contains("[servers.mine]"), "{manifest}");
    assert!(
        env.read("dotpack.lock")
            .contains("file = \"opencode.jsonc\"")
    );
    run(&env, &["install"]);
    assert_eq!(env.read("opencode.jsonc"), JSONC);
    assert!(!env.project.join("opencode.json").exists());
}

#[test]
fn the_users_opencode_jsonc_is_written_in_place_and_imported() {
    let env = Env::new();
    let file = env.home.path().join(".config/opencode/opencode.jsonc");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(&file, JSONC).unwrap();
    env.write(
        "dotpack.toml",
        &format!("[project]\nhosts = [{{ host = \"opencode\", scope = \"user\" }}]\n{SERVER}"),
    );
    // The manifest was written by hand: approving it makes it the user's own.
    run(&env, &["trust"]);
    run(&env, &["install"]);
    assert!(!file.with_file_name("opencode.json").exists());
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(
        text.contains("files-mcp") && text.contains("// keep me"),
        "{text}"
    );
    let doc: Value = serde_json::from_slice(
        &run(&env, &["import", "opencode", "--scope", "user", "--json"]).stdout,
    )
    .unwrap();
    assert!(doc["servers"]["mine"].is_object(), "{doc}");
    run(&env, &["uninstall"]);
    assert_eq!(std::fs::read_to_string(&file).unwrap(), JSONC);
}
