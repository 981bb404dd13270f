//! pi (1.6+, MCP built in) asked with its own `pi mcp list --json` what it read from the files
//! dotpack wrote for both of pi's readers: a tool allow list and a deny list as the built-in's
//! `exposure`/`toolExposure`, a disabled server not started, a bearer token sent as the
//! `Authorization` header, references expanded; at project and user scope, and after pi's own
//! `pi mcp add` rewrote the file.

use super::*;

/// `[servers]` for pi: three stdio servers answering MCP (tools `alpha`, `beta`, `gamma`), one
/// allowing only `alpha`, one denying `beta`, one disabled, and a remote one with a bearer token.
fn manifest(w: &World, scope: &str) -> String {
    let fake = w.mcp_server_arg();
    format!(
        "[project]\nhosts = [{{ host = \"pi\", scope = \"{scope}\" }}]\n\n\
         [servers.allow]\ncommand = \"node\"\nargs = [{fake:?}, \"allow\"]\n\
         env = {{ TOKEN = \"{{{{env.TOKEN}}}}\" }}\nenabled_tools = [\"alpha\"]\ntimeout = 5000\n\n\
         [servers.deny]\ncommand = \"node\"\nargs = [{fake:?}, \"deny\"]\ndisabled_tools = [\"beta\"]\n\n\
         [servers.off]\ncommand = \"node\"\nargs = [{fake:?}, \"off\"]\nenabled = false\n\n\
         [servers.remote-api]\nurl = \"{url}\"\nbearer_token_env_var = \"API_TOKEN\"\n\
         http_headers = {{ X-Client = \"dotpack\" }}\n",
        url = w.url(),
    )
}

/// `pi mcp list --json`, which connects every enabled server; it exits 1 when one fails, as the
/// remote one does (the listener answers 404).
fn list(w: &World, pi: &Path) -> Value {
    let out = host_command(pi, &w.root(), &w.project)
        .env("TOKEN", TOKEN)
        .env("API_TOKEN", API_TOKEN)
        .env("PI_OFFLINE", "1")
        .env("PI_SKIP_VERSION_CHECK", "1")
        .env("PI_TELEMETRY", "0")
        .args(["mcp", "list", "--json"])
        .output()
        .expect("run pi");
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "pi mcp list --json: {e}\nstdout:\n{}\nstderr:\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

fn server<'a>(list: &'a Value, name: &str) -> &'a Value {
    list["servers"]
        .as_array()
        .and_then(|s| s.iter().find(|s| s["name"] == name))
        .unwrap_or_else(|| panic!("pi lists no {name}: {list:#}"))
}

/// What pi read, checked against what dotpack declared.
fn assert_read(w: &World, list: &Value, scope: &str) {
    let what = format!("pi mcp list ({scope}): {list:#}");
    assert_eq!(list["errors"], json!([]), "{what}");
    let allow = server(list, "allow");
    assert_eq!(
        allow["scope"],
        if scope == "user" { "global" } else { "project" },
        "{what}"
    );
    assert_eq!(allow["state"], "connected", "{what}");
    // Only `alpha` reaches the model: the server's tools are hidden but that one.
    assert_eq!(allow["exposure"], "hidden", "{what}");
    assert_eq!(
        allow["toolExposure"],
        json!({"alpha": "codemode"}),
        "{what}"
    );
    let deny = server(list, "deny");
    assert_eq!(deny["state"], "connected", "{what}");
    assert_eq!(deny["exposure"], "codemode", "{what}");
    assert_eq!(deny["toolExposure"], json!({"beta": "hidden"}), "{what}");
    let off = server(list, "off");
    assert_eq!(
        (&off["enabled"], &off["state"]),
        (&json!(false), &json!("disabled")),
        "{what}"
    );
    let remote = server(list, "remote-api");
    assert_eq!(remote["transport"], w.url(), "{what}");

    // Started with args and env, `${TOKEN}` expanded; the disabled one never.
    let starts = w.stdio_starts();
    assert!(
        starts.contains(&json!({"argv": ["allow"], "TOKEN": TOKEN})),
        "{what}\nstarts {starts:?}"
    );
    assert!(
        !starts.iter().any(|s| s["argv"] == json!(["off"])),
        "a disabled server was started: {starts:?}"
    );
    // The token went as the header, `${API_TOKEN}` expanded.
    let requests = w.http.requests();
    let post = requests
        .iter()
        .find(|r| r.starts_with("POST /mcp "))
        .unwrap_or_else(|| panic!("{what}: no POST /mcp in {requests:?}"));
    assert_has(
        &post.to_ascii_lowercase(),
        &format!("authorization: bearer {API_TOKEN}"),
        "pi's request",
    );
    assert_has(
        &post.to_ascii_lowercase(),
        "x-client: dotpack",
        "pi's request",
    );
}

#[test]
fn pi_reads_what_dotpack_wrote_at_each_scope_and_after_its_own_mcp_add() {
    let Some(pi) = cli("pi", "@earendil-works/pi-coding-agent") else {
        return;
    };
    for scope in ["project", "user"] {
        let w = World::new();
        std::fs::write(w.project.join("dotpack.toml"), manifest(&w, scope)).expect("manifest");
        w.dotpack().args(["--trust", "install"]).assert().success();
        // pi reads `.pi/mcp.json` only in a project the user trusts.
        let agent = w.root().join(".pi/agent");
        std::fs::create_dir_all(&agent).expect("pi's folder");
        let trusted = json!({ w.project.to_str().expect("utf-8 temp path"): true });
        std::fs::write(agent.join("trust.json"), trusted.to_string()).expect("trust");

        assert_read(&w, &list(&w, &pi), scope);

        // pi's own `mcp add` rewrites the file; what dotpack wrote reads the same after it, and
        // dotpack's next install finds its entries as it left them.
        let mut add = vec!["mcp", "add", "extra"];
        if scope == "project" {
            add.push("--local");
        }
        add.extend(["--", "node", "extra.js"]);
        let out = host_command(&pi, &w.root(), &w.project)
            .env("PI_OFFLINE", "1")
            .args(&add)
            .output()
            .expect("pi mcp add");
        assert!(out.status.success(), "pi mcp add: {out:?}");
        let after = list(&w, &pi);
        server(&after, "extra");
        assert_read(&w, &after, scope);
        w.dotpack().args(["install", "--locked"]).assert().success();
    }
}
