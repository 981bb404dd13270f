//! One test per rule, positive and negative, on in-memory manifests.

use std::path::Path;

use super::check_manifest;

/// `(code, line, key_path)` of every finding.
fn findings(text: &str) -> Vec<(&'static str, usize, String)> {
    check_manifest(Path::new("dotpack.toml"), text)
        .into_iter()
        .map(|d| (d.code, d.line.unwrap_or(0), d.key_path.unwrap_or_default()))
        .collect()
}

fn codes(text: &str) -> Vec<&'static str> {
    findings(text).into_iter().map(|f| f.0).collect()
}

const GOOD: &str = r#"
[package]
name = "figma"
version = "0.3.1"
description = "Figma Dev Mode MCP server"
keywords = ["design"]

[project]
hosts = ["claude-code", "codex"]
scope = "project"

[inputs.port]
description = "Port"
default = "3845"

[inputs.token]
secret = true

[servers.figma]
url = "http://127.0.0.1:{{props.port}}/mcp"
type = "http"
http_headers = { Authorization = "Bearer {{env.FIGMA_TOKEN}}" }

[servers.github]
command = "npx"
args = ["-y", "@modelcontextprotocol/server-github"]
env = { GITHUB_TOKEN = "{{env.GITHUB_TOKEN}}" }
enabled_tools = ["search"]
startup_timeout_sec = 20

[dependencies]
fetch = "^1.2"
local = { version = ">=1, <2", registry = "mine", set = { port = "1" }, allow_lossy = ["cwd"] }

[registries.mine]
path = "../index"

[settings]
keep_generations = 10
"#;

#[test]
fn a_good_manifest_has_no_findings() {
    assert_eq!(findings(GOOD), vec![]);
}

#[test]
fn syntax_error_is_one_error_with_position() {
    let f = findings("[servers.x]\ncommand = \n");
    assert_eq!(f.len(), 1);
    assert_eq!(f[0].0, "toml-syntax");
    assert_eq!(f[0].1, 2);
}

#[test]
fn unknown_top_level_table_suggests_close_name() {
    let d = check_manifest(Path::new("dotpack.toml"), "[dependecies]\nx = \"1\"\n");
    assert_eq!(d[0].code, "unknown-table");
    assert!(d[0].help.as_deref().unwrap().contains("dependencies"));
}

#[test]
fn unknown_keys_per_section() {
    assert_eq!(codes("[project]\nhost = []\n"), ["unknown-key"]);
    assert_eq!(codes("[settings]\nkeep = 1\n"), ["unknown-key"]);
    assert_eq!(codes("[inputs.a]\ndefualt = \"1\"\n"), ["unknown-key"]);
    assert_eq!(
        codes("[registries.a]\npath = \"x\"\nurll = \"y\"\n"),
        ["unknown-key"]
    );
    assert_eq!(
        codes("[dependencies]\na = { version = \"1\", regsitry = \"x\" }\n"),
        ["unknown-key"]
    );
    let d = check_manifest(
        Path::new("dotpack.toml"),
        "[package]\nname = \"a\"\nversion = \"1.0.0\"\nauthors = []\n",
    );
    assert_eq!(d.len(), 1);
    assert!(!d[0].is_error(), "unknown package keys only warn");
}

#[test]
fn package_name_and_version() {
    assert_eq!(
        codes("[package]\nname = \"bad name\"\nversion = \"1.0\"\n"),
        ["invalid-name", "invalid-version"]
    );
    assert_eq!(codes("[package]\nname = \"a\"\n"), ["missing-key"]);
    assert_eq!(
        codes("[package]\nname = \"a\"\nversion = \"1.0.0\"\nkeywords = \"x\"\n"),
        ["wrong-type"]
    );
}

#[test]
fn names_of_servers_inputs_dependencies() {
    let text = "[servers.\"my server\"]\nurl = \"https://x\"\n[inputs.\"-a\"]\n[dependencies]\n\"a.b\" = \"1\"\n";
    assert_eq!(
        codes(text),
        ["invalid-name", "invalid-name", "invalid-name"]
    );
    assert!(super::is_valid_name("a_b-9"));
    assert!(!super::is_valid_name("_a"));
    assert!(!super::is_valid_name(""));
}

#[test]
fn transport_rules() {
    assert_eq!(
        codes("[servers.a]\ncommand = \"x\"\nargs = []\nurl = \"https://x\"\n"),
        ["two-transports"]
    );
    assert_eq!(codes("[servers.a]\nenv = {}\n"), ["no-transport"]);
    assert_eq!(codes("[servers.a]\ncommand = \"x\"\n"), ["missing-args"]);
    assert_eq!(codes("[servers.a]\nurl = \"ftp://x\"\n"), ["invalid-url"]);
    assert_eq!(
        codes("[servers.a]\nurl = \"{{props.u}}\"\n[inputs.u]\n"),
        Vec::<&str>::new()
    );
}

#[test]
fn args_and_env_kinds() {
    let f = findings("[servers.a]\ncommand = \"x\"\nargs = [\"a\", 1]\nenv = { A = 2 }\n");
    assert_eq!(f[0], ("wrong-type", 3, "servers.a.args[1]".to_string()));
    assert_eq!(f[1], ("wrong-type", 4, "servers.a.env.A".to_string()));
    assert_eq!(
        codes("[servers.a]\ncommand = [\"x\"]\nargs = []\n"),
        ["wrong-type"]
    );
}

#[test]
fn type_must_agree_with_transport() {
    assert_eq!(
        codes("[servers.a]\nurl = \"https://x\"\ntype = \"stdio\"\n"),
        ["type-contradicts-transport"]
    );
    assert_eq!(
        codes("[servers.a]\ncommand = \"x\"\nargs = []\ntype = \"sse\"\n"),
        ["type-contradicts-transport"]
    );
    assert_eq!(
        codes("[servers.a]\ncommand = \"x\"\nargs = []\ntype = \"local\"\n"),
        ["unknown-type"]
    );
    assert!(codes("[servers.a]\nurl = \"https://x\"\ntype = \"streamable-http\"\n").is_empty());
    assert!(codes("[servers.a]\ncommand = \"x\"\nargs = []\ntype = \"stdio\"\n").is_empty());
}

#[test]
fn startup_timeout_spellings_conflict() {
    let d = check_manifest(
        Path::new("dotpack.toml"),
        "[servers.a]\ncommand = \"x\"\nargs = []\nstartup_timeout_sec = 1\nstartup_timeout_ms = 1000\n",
    );
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].code, "conflicting-fields");
    assert!(!d[0].is_error());
    assert!(
        codes("[servers.a]\ncommand = \"x\"\nargs = []\nstartup_timeout_ms = 1000\n").is_empty()
    );
}

#[test]
fn literal_secrets_warn_with_key_path() {
    let f = findings(
        "[servers.a]\ncommand = \"x\"\nargs = [\"--token\", \"k9X2mQ7pL4vB8nR3\"]\nenv = { GITHUB_TOKEN = \"ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8\" }\n",
    );
    assert_eq!(f[0], ("literal-secret", 3, "servers.a.args[1]".to_string()));
    assert_eq!(
        f[1],
        (
            "literal-secret",
            4,
            "servers.a.env.GITHUB_TOKEN".to_string()
        )
    );
    assert_eq!(
        codes("[servers.a]\nurl = \"https://u:pw1234@x.com/mcp\"\n"),
        ["literal-secret"]
    );
    assert_eq!(
        codes(
            "[servers.a]\nurl = \"https://x\"\nhttp_headers = { Authorization = \"Bearer q8Zr2LmX9vTb4NcW7yKd\" }\n"
        ),
        ["literal-secret"]
    );
}

#[test]
fn unknown_fields_and_host_spellings() {
    let d = check_manifest(
        Path::new("dotpack.toml"),
        "[servers.a]\nurl = \"https://x\"\nenabled_tool = []\nhttpUrl = \"https://y\"\nheaders = {}\n",
    );
    assert_eq!(
        d.iter().map(|d| d.code).collect::<Vec<_>>(),
        ["unknown-field", "host-spelling", "normalised-spelling"]
    );
    assert!(
        !d[2].is_error(),
        "`headers` is read as `http_headers`, warned"
    );
    assert!(d[0].message.contains("not in the concept table"));
    assert!(d[0].help.as_deref().unwrap().contains("enabled_tools"));
    assert!(d[1].help.as_deref().unwrap().contains("`url`"));
    assert!(d[2].help.as_deref().unwrap().contains("`http_headers`"));
}

#[test]
fn extension_kinds() {
    assert_eq!(
        codes("[servers.a]\ncommand = \"x\"\nargs = []\nenabled = \"yes\"\n"),
        ["wrong-type"]
    );
    assert_eq!(
        codes("[servers.a]\ncommand = \"x\"\nargs = []\nenabled_tools = \"a\"\n"),
        ["wrong-type"]
    );
    assert_eq!(
        codes("[servers.a]\ncommand = \"x\"\nargs = []\nstartup_timeout_sec = \"10\"\n"),
        ["wrong-type"]
    );
    assert!(codes("[servers.a]\ncommand = \"x\"\nargs = []\nstartup_timeout_sec = 2.5\nssl_verify = false\n").is_empty());
}

#[test]
fn templates_in_servers() {
    assert_eq!(
        codes("[servers.a]\nurl = \"http://h:{{props.port}}/\"\n"),
        ["undeclared-input"]
    );
    assert_eq!(
        codes("[servers.a]\ncommand = \"x\"\nargs = [\"{{props.p\"]\n"),
        ["unclosed-template"]
    );
    assert!(codes("[servers.a]\ncommand = \"x\"\nargs = [\"{{env.P}}\"]\n").is_empty());
}

#[test]
fn dependency_rules() {
    let f = findings("[dependencies]\na = \"^^1\"\nb = { registry = \"nope\" }\n");
    assert_eq!(
        f.iter().map(|f| f.0).collect::<Vec<_>>(),
        ["invalid-version-req", "missing-key", "unknown-registry"]
    );
    assert_eq!(f[0].2, "dependencies.a");
    assert_eq!(codes("[dependencies]\na = 1\n"), ["wrong-type"]);
    assert_eq!(
        codes("[dependencies]\na = { version = \"1\", allow_lossy = [\"enabled_tool\"] }\n"),
        ["unknown-field"]
    );
}

#[test]
fn project_hosts_and_scope() {
    let d = check_manifest(
        Path::new("dotpack.toml"),
        "[project]\nhosts = [\"claude-code\", \"cluade-code\"]\nscope = \"global\"\n",
    );
    assert_eq!(
        d.iter().map(|d| d.code).collect::<Vec<_>>(),
        ["unknown-host", "invalid-scope"]
    );
    assert_eq!(d[0].key_path.as_deref(), Some("project.hosts[1]"));
    assert!(d[0].help.as_deref().unwrap().contains("claude-code"));
}

#[test]
fn gateway_is_a_bool_or_a_surface_in_project_and_a_surface_in_a_dependency() {
    for ok in ["true", "false", "\"proxy\"", "\"direct\"", "\"off\""] {
        assert!(
            codes(&format!("[project]\ngateway = {ok}\n")).is_empty(),
            "{ok}"
        );
    }
    let d = check_manifest(
        Path::new("dotpack.toml"),
        "[project]\ngateway = \"lazy\"\n[dependencies]\na = { version = \"1\", gateway = true }\n",
    );
    assert_eq!(
        d.iter().map(|d| d.code).collect::<Vec<_>>(),
        ["invalid-value", "invalid-value"]
    );
    assert_eq!(d[0].key_path.as_deref(), Some("project.gateway"));
    assert!(d[0].help.as_deref().unwrap().contains("docs/gateway.md"));
    assert_eq!(d[1].key_path.as_deref(), Some("dependencies.a.gateway"));
    assert!(codes("[dependencies]\na = { version = \"1\", gateway = \"direct\" }\n").is_empty());
    assert!(codes("[project]\ngateway_lifecycle = \"keep-alive\"\n").is_empty());
    assert_eq!(
        codes("[dependencies]\na = { version = \"1\", gateway_lifecycle = \"always\" }\n"),
        ["invalid-value"]
    );
}

#[test]
fn secret_input_with_literal_default_warns() {
    assert_eq!(
        codes("[inputs.t]\nsecret = true\ndefault = \"abc\"\n"),
        ["secret-default"]
    );
    assert!(codes("[inputs.t]\nsecret = true\ndefault = \"{{env.T}}\"\n").is_empty());
    assert!(codes("[inputs.t]\nsecret = false\ndefault = \"abc\"\n").is_empty());
}

#[test]
fn registries_need_one_source() {
    assert_eq!(codes("[registries.a]\n"), ["registry-source"]);
    assert_eq!(
        codes("[registries.a]\npath = \"x\"\nurl = \"https://x\"\n"),
        ["registry-source"]
    );
    assert_eq!(
        codes("[registries.a]\nurl = \"file:///x\"\n"),
        ["invalid-url"]
    );
}

#[test]
fn findings_come_in_file_order() {
    let text = "[servers.b]\nfoo = 1\ncommand = \"x\"\n[project]\nscope = \"x\"\n[bogus]\n";
    let lines: Vec<usize> = findings(text).into_iter().map(|f| f.1).collect();
    let mut sorted = lines.clone();
    sorted.sort();
    assert_eq!(lines, sorted);
}

#[test]
fn fields_of_the_other_transport_are_errors() {
    let remote = "[servers.x]\nurl = \"https://x/mcp\"\nenv = { A = \"b\" }\ncwd = \"/tmp\"\n";
    let f = findings(remote);
    assert_eq!(
        f,
        [
            ("wrong-transport-field", 3, "servers.x.env".to_string()),
            ("wrong-transport-field", 4, "servers.x.cwd".to_string()),
        ]
    );
    let local = "[servers.x]\ncommand = \"x\"\nargs = []\nhttp_headers = { A = \"b\" }\n";
    assert_eq!(
        findings(local),
        [(
            "wrong-transport-field",
            4,
            "servers.x.http_headers".to_string()
        )]
    );
}

#[test]
fn a_bom_and_crlf_are_accepted_and_lines_still_count_from_one() {
    let text = format!("\u{feff}{}", GOOD.replace('\n', "\r\n"));
    assert_eq!(findings(&text), []);
    let loaded = crate::model::manifest::parse(Path::new("dotpack.toml"), text).unwrap();
    assert!(loaded.manifest.servers.contains_key("figma"));
    let bad = "\u{feff}[package]\r\nname = 3\r\nversion = \"1.0.0\"\r\n";
    let found = findings(bad);
    assert_eq!(found, [("wrong-type", 2, "package.name".to_string())]);
}

#[test]
fn a_hermes_shaped_tools_table_is_refused_and_codex_overrides_pass() {
    let base =
        "[package]\nname = \"x\"\nversion = \"1.0.0\"\n\n[servers.x]\ncommand = \"a\"\nargs = []\n";
    assert_eq!(
        findings(&format!(
            "{base}tools = {{ include = [\"a\"], exclude = [\"b\"] }}\n"
        )),
        [
            ("wrong-type", 8, "servers.x.tools.include".to_string()),
            ("wrong-type", 8, "servers.x.tools.exclude".to_string())
        ]
    );
    assert!(
        findings(&format!(
            "{base}tools = {{ search = {{ approval_mode = \"approve\" }} }}\n"
        ))
        .is_empty()
    );
}

#[test]
fn an_untyped_inputs_default_gives_its_type() {
    for default in ["30", "2.5", "true", "[\"a\"]", "{ a = 1 }", "\"text\""] {
        let text = format!("[inputs.x]\ndefault = {default}\n");
        assert!(codes(&text).is_empty(), "{default}: {:?}", codes(&text));
    }
    // A sub-table default is an object too.
    assert!(codes("[inputs.x.default]\na = 1\n").is_empty());
    // The inferred type still carries the rules.
    assert_eq!(
        codes("[inputs.x]\ndefault = 30\nmax = 10\n"),
        ["invalid-default"]
    );
    assert_eq!(
        codes("[inputs.x]\ndefault = 30\nenum = [10, \"a\"]\n"),
        ["invalid-default", "invalid-enum"]
    );
    // A templated number field fed by such an input is a number.
    assert!(
        codes("[inputs.t]\ndefault = 30\n\n[servers.a]\ncommand = \"x\"\nargs = []\ntimeout = \"{{props.t}}\"\n")
            .is_empty()
    );
}
