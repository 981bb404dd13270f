//! The Cline CLI reads `~/.cline/data/settings/cline_mcp_settings.json`, the file of host
//! `cline-cli`. It has no command that lists servers without a terminal, so it is asked through
//! a headless session (`cline --json "…"`) against the test's loopback listener as its model
//! provider: the session starts every enabled server before its first model call, so the
//! recording servers say what it read (command, args, env, headers), and a disabled one is not
//! started. The listener answers 404, which ends the session at once.

use super::*;

#[test]
fn cline_cli_starts_what_dotpack_wrote_for_it() {
    let Some(cline) = cli("cline", "cline") else {
        return;
    };
    let w = World::new();
    // No references: Cline expands none (dotpack refuses them there), so values are literal.
    let manifest = format!(
        "[project]\nhosts = [{{ host = \"cline-cli\", scope = \"user\" }}]\n\n\
         [servers.local-tool]\ncommand = \"node\"\nargs = [{fake:?}, \"cline\"]\n\
         env = {{ LEVEL = \"debug\" }}\n\n\
         [servers.off]\ncommand = \"node\"\nargs = [{fake:?}, \"off\"]\nenabled = false\n\n\
         [servers.remote-api]\nurl = \"{url}\"\nhttp_headers = {{ X-Client = \"dotpack\" }}\n",
        fake = w.mcp_server_arg(),
        url = w.url(),
    );
    std::fs::write(w.project.join("dotpack.toml"), manifest).expect("manifest");
    w.dotpack().args(["--trust", "install"]).assert().success();
    let file = w
        .root()
        .join(".cline/data/settings/cline_mcp_settings.json");
    assert!(file.exists(), "dotpack wrote {}", file.display());

    let provider = format!("http://{}/v1", w.http.addr);
    let run = |args: &[&str]| {
        let out = host_command(&cline, &w.root(), &w.project)
            .args(args)
            .output()
            .expect("run cline");
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    };
    let said = run(&[
        "auth", "-p", "openai", "-k", "sk-test", "-m", "gpt-4o", "-b", &provider,
    ]);
    assert_has(&said, "Provider configured", "cline auth");
    let said = run(&["--json", "say hello"]);

    let starts = w.stdio_starts();
    assert!(
        starts.contains(&json!({"argv": ["cline"], "LEVEL": "debug"})),
        "cline started {starts:?}\n{said}"
    );
    assert!(
        !starts.iter().any(|s| s["argv"] == json!(["off"])),
        "a disabled server was started: {starts:?}"
    );
    let requests = w.http.requests();
    let post = requests
        .iter()
        .find(|r| r.starts_with("POST /mcp "))
        .unwrap_or_else(|| panic!("no POST /mcp in {requests:?}\n{said}"));
    assert_has(
        &post.to_ascii_lowercase(),
        "x-client: dotpack",
        "Cline's request",
    );
}
