//! opencode asked with its own `opencode mcp list`, which starts every enabled server: at
//! project and user scope, the stdio server started with its args and env (`{env:TOKEN}`
//! expanded), the remote one sent its headers (`{env:API_TOKEN}` expanded), and a disabled
//! server listed as disabled and not started.

use super::*;

#[test]
fn opencode_reads_and_starts_what_dotpack_wrote_at_each_scope() {
    let Some(opencode) = cli("opencode", "opencode-ai") else {
        return;
    };
    for scope in ["project", "user"] {
        let w = World::new();
        let off = format!(
            "\n[servers.off]\ncommand = \"node\"\nargs = [{:?}, \"off\"]\nenabled = false\n",
            w.mcp_server_arg()
        );
        w.install_with("opencode", scope, &off);
        let file = match scope {
            "project" => w.project.join("opencode.json"),
            _ => w.root().join(".config/opencode/opencode.json"),
        };
        assert!(file.exists(), "dotpack wrote {}", file.display());

        let out = host_command(&opencode, &w.root(), &w.project)
            .env("TOKEN", TOKEN)
            .env("API_TOKEN", API_TOKEN)
            .args(["mcp", "list"])
            .output()
            .expect("run opencode");
        let said = plain(&format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ));
        let what = format!("opencode mcp list ({scope})");
        assert_has(&said, "local-tool", &what);
        assert_has(
            &said,
            &format!("node {} --port 4000", w.recorder_arg()),
            &what,
        );
        assert_has(&said, "off disabled", &what);
        assert_has(&said, &w.url(), &what);
        assert_has(&said, "3 server(s)", &what);

        let starts = w.stdio_starts();
        assert!(
            starts.contains(&json!({"argv": ["--port", "4000"], "TOKEN": TOKEN, "LEVEL": "debug"})),
            "{what}: stdio starts {starts:?}\n{said}"
        );
        assert!(
            !starts.iter().any(|s| s["argv"] == json!(["off"])),
            "{what}: a disabled server was started: {starts:?}"
        );
        let requests = w.http.requests();
        let post = requests
            .iter()
            .find(|r| r.starts_with("POST /mcp "))
            .unwrap_or_else(|| panic!("{what}: no POST /mcp in {requests:?}\n{said}"))
            .to_ascii_lowercase();
        assert_has(
            &post,
            &format!("authorization: bearer {API_TOKEN}"),
            "opencode's request",
        );
        assert_has(&post, "x-client: dotpack", "opencode's request");
    }
}

/// `text` without its terminal colour codes (opencode colours its list whatever `NO_COLOR` says).
fn plain(text: &str) -> String {
    let mut out = String::new();
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}
