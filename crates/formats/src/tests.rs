//! Golden tests over a corpus of realistic host files: each upsert is snapshotted, and removing
//! the entry again must give back the original bytes.

use serde_json::{Value, json};

use super::*;

/// `short` in a plain `cargo test`, `long` with `DOTPACK_LONG_TESTS=1` (as the project's
/// `.ci/run` runs it): the property runs and the large loops stay in the default run, smaller.
fn cases(short: u32, long: u32) -> u32 {
    let long_run =
        std::env::var_os("DOTPACK_LONG_TESTS").is_some_and(|v| !v.is_empty() && v != "0");
    if long_run { long } else { short }
}

const MCP: &[&str] = &["mcpServers"];
const VSCODE: &[&str] = &["servers"];
const CODEX: &[&str] = &["mcp_servers"];

/// A corpus file: name, format, container, text.
struct Case {
    name: &'static str,
    format: Format,
    path: &'static [&'static str],
    text: &'static str,
}

const fn case(
    name: &'static str,
    format: Format,
    path: &'static [&'static str],
    text: &'static str,
) -> Case {
    Case {
        name,
        format,
        path,
        text,
    }
}

const CORPUS: &[Case] = &[
    case("json_empty_file", Format::Json, MCP, ""),
    case("json_whitespace_only", Format::Json, MCP, "\n\n"),
    case("json_empty_object", Format::Json, MCP, "{}\n"),
    case("json_empty_object_multiline", Format::Json, MCP, "{\n}\n"),
    case(
        "json_mcp_json_two_spaces",
        Format::Json,
        MCP,
        "{\n  \"mcpServers\": {\n    \"github\": {\n      \"command\": \"npx\",\n      \"args\": [\n        \"-y\",\n        \"@modelcontextprotocol/server-github\"\n      ],\n      \"env\": {\n        \"GITHUB_TOKEN\": \"${GITHUB_TOKEN}\"\n      }\n    }\n  }\n}\n",
    ),
    case(
        "json_empty_container",
        Format::Json,
        MCP,
        "{\n  \"mcpServers\": {}\n}\n",
    ),
    case(
        "json_missing_container_other_keys",
        Format::Json,
        MCP,
        "{\n    \"numStartups\": 12,\n    \"theme\": \"dark\",\n    \"ratio\": 1.0\n}\n",
    ),
    case(
        "json_tabs_no_final_newline",
        Format::Json,
        MCP,
        "{\n\t\"mcpServers\": {\n\t\t\"a\": {\n\t\t\t\"url\": \"http://localhost:1/mcp\"\n\t\t}\n\t}\n}",
    ),
    case(
        "json_crlf_bom",
        Format::Json,
        MCP,
        "\u{feff}{\r\n  \"mcpServers\": {\r\n    \"a\": {\r\n      \"command\": \"a\"\r\n    }\r\n  },\r\n  \"x\": 1e3\r\n}\r\n",
    ),
    case(
        "json_one_line",
        Format::Json,
        MCP,
        "{\"mcpServers\":{\"a\":{\"command\":\"a\"}},\"x\":1}",
    ),
    case(
        "json_inline_args_siblings",
        Format::Json,
        MCP,
        "{\n  \"mcpServers\": {\n    \"a\": { \"command\": \"a\", \"args\": [\"x\"] },\n    \"b\": {\n      \"command\": \"b\",\n      \"args\": [\"y\", \"z\"]\n    }\n  }\n}\n",
    ),
    case(
        "json_container_at_root_start",
        Format::Json,
        MCP,
        "{\n  \"mcpServers\": {\n    \"a\": {\n      \"command\": \"a\"\n    }\n  },\n  \"projects\": {\n    \"/home/u/p\": {\n      \"allowedTools\": []\n    }\n  }\n}\n",
    ),
    case(
        "jsonc_comments_trailing_commas",
        Format::Jsonc,
        MCP,
        "// Gemini settings\n{\n  \"theme\": \"GitHub\", // my theme\n  \"mcpServers\": {\n    /* the one I use */\n    \"a\": {\n      \"command\": \"a\",\n    },\n  },\n}\n",
    ),
    case(
        "jsonc_last_member_line_comment",
        Format::Jsonc,
        MCP,
        "{\n  \"mcpServers\": {\n    \"a\": {\n      \"command\": \"a\"\n    } // keep me\n  }\n}\n",
    ),
    case(
        "jsonc_comment_only_file",
        Format::Jsonc,
        MCP,
        "// Cursor MCP config\n// add servers below\n",
    ),
    case(
        "jsonc_empty_container_with_comment",
        Format::Jsonc,
        MCP,
        "{\n  \"mcpServers\": {\n    // nothing yet\n  }\n}\n",
    ),
    case(
        "jsonc_mixed_indentation",
        Format::Jsonc,
        MCP,
        "{\n   \"mcpServers\": {\n      \"a\": {\n         \"command\": \"a\"\n      }\n   },\n  \"other\": true\n}\n",
    ),
    case(
        "jsonc_blank_lines_between_entries",
        Format::Jsonc,
        MCP,
        "{\n  \"mcpServers\": {\n\n    \"a\": {\n      \"command\": \"a\"\n    }\n\n  }\n}\n",
    ),
    case(
        "jsonc_vscode_servers_inputs",
        Format::Jsonc,
        VSCODE,
        "{\n\t\"inputs\": [\n\t\t{ \"type\": \"promptString\", \"id\": \"key\", \"password\": true }\n\t],\n\t\"servers\": {\n\t\t\"fetch\": {\n\t\t\t\"type\": \"stdio\",\n\t\t\t\"command\": \"uvx\",\n\t\t\t\"args\": [\"mcp-server-fetch\"]\n\t\t},\n\t}\n}\n",
    ),
    case("toml_empty_file", Format::Toml, CODEX, ""),
    case("toml_comment_only", Format::Toml, CODEX, "# Codex config\n"),
    case(
        "toml_codex_config",
        Format::Toml,
        CODEX,
        "model = \"o3\" # default model\napproval_policy = \"on-request\"\n\n[mcp_servers.a]\ncommand = \"npx\"\nargs = [\"-y\", \"a\"]\n\n[mcp_servers.a.env]\nKEY = \"v\"\n\n[profiles.fast]\nmodel = \"o4-mini\"\n",
    ),
    case(
        "toml_subtable_after_other_server",
        Format::Toml,
        CODEX,
        "[mcp_servers.a]\ncommand = \"a\"\n\n[mcp_servers.b]\ncommand = \"b\"\n\n[mcp_servers.a.env]\nX = \"1\"\n\n[tui]\nnotifications = true\n",
    ),
    case(
        "toml_no_blank_lines",
        Format::Toml,
        CODEX,
        "model = \"o3\"\n[mcp_servers.a]\ncommand = \"a\"\n[history]\npersistence = \"none\"\n",
    ),
    case(
        "toml_crlf_bom_no_final_newline",
        Format::Toml,
        CODEX,
        "\u{feff}model = \"o3\"\r\n\r\n[mcp_servers.a]\r\ncommand = \"a\"",
    ),
    case(
        "toml_missing_container",
        Format::Toml,
        CODEX,
        "model = \"o3\"\nratio = 1.0\n\n[profiles.x]\nmodel = \"gpt-5\"\n",
    ),
];

fn entry() -> Value {
    json!({
        "command": "npx",
        "args": ["-y", "@acme/mcp"],
        "env": {"ACME_TOKEN": "${ACME_TOKEN}"}
    })
}

/// Makes CR, BOM and the end of the text visible in snapshots.
fn visible(text: &str) -> String {
    let shown = text.replace('\u{feff}', "<BOM>").replace('\r', "␍");
    format!("{shown}<EOF>")
}

#[test]
fn upsert_into_each_corpus_file_then_remove_gives_back_the_original() {
    let mut report = String::new();
    for c in CORPUS {
        let container = Container::new(c.path);
        let added = upsert_entry(c.format, c.text, container, "acme", &entry())
            .unwrap_or_else(|e| panic!("{}: upsert failed: {e}", c.name));
        let removed = remove_entry(c.format, &added.text, container, "acme", &added.created)
            .unwrap_or_else(|e| panic!("{}: remove failed: {e}", c.name));
        assert_eq!(removed.text, c.text, "{}: remove(upsert(x)) != x", c.name);
        assert_eq!(removed.delete_file, c.text.is_empty(), "{}", c.name);
        let got = get_entry(c.format, &added.text, container, "acme").unwrap();
        assert_eq!(got, Some(entry()), "{}", c.name);
        report.push_str(&format!("===== {}\n{}\n", c.name, visible(&added.text)));
    }
    insta::assert_snapshot!("upsert_corpus", report);
}

#[test]
fn replacing_an_entry_keeps_its_position_and_everything_else() {
    let mut report = String::new();
    for c in CORPUS {
        let container = Container::new(c.path);
        let Some((first, _)) = list_entries(c.format, c.text, container)
            .unwrap()
            .into_iter()
            .next()
        else {
            continue;
        };
        let new = json!({"url": "https://example.com/mcp", "n": 2});
        let edit = upsert_entry(c.format, c.text, container, &first, &new).unwrap();
        let names: Vec<_> = list_entries(c.format, &edit.text, container)
            .unwrap()
            .into_iter()
            .map(|(n, _)| n)
            .collect();
        let before: Vec<_> = list_entries(c.format, c.text, container)
            .unwrap()
            .into_iter()
            .map(|(n, _)| n)
            .collect();
        assert_eq!(names, before, "{}: order changed", c.name);
        assert_eq!(edit.created, Created::default(), "{}", c.name);
        report.push_str(&format!("===== {}\n{}\n", c.name, visible(&edit.text)));
    }
    insta::assert_snapshot!("replace_corpus", report);
}

#[test]
fn upsert_twice_is_stable() {
    for c in CORPUS {
        let container = Container::new(c.path);
        let once = upsert_entry(c.format, c.text, container, "acme", &entry()).unwrap();
        let twice = upsert_entry(c.format, &once.text, container, "acme", &entry()).unwrap();
        assert_eq!(once.text, twice.text, "{}", c.name);
    }
}

#[test]
fn removing_an_absent_entry_changes_nothing() {
    for c in CORPUS {
        let container = Container::new(c.path);
        let edit =
            remove_entry(c.format, c.text, container, "absent", &Created::default()).unwrap();
        assert_eq!(edit.text, c.text, "{}", c.name);
        assert!(!edit.delete_file);
    }
}

#[test]
fn removing_every_entry_of_a_file_dotpack_did_not_create_keeps_the_container() {
    let text = "{\n  \"mcpServers\": {\n    \"a\": {\n      \"command\": \"a\"\n    }\n  }\n}\n";
    let edit = remove_entry(
        Format::Json,
        text,
        Container::new(MCP),
        "a",
        &Created::default(),
    )
    .unwrap();
    assert_eq!(edit.text, "{\n  \"mcpServers\": {}\n}\n");
}

#[test]
fn removing_a_middle_entry_takes_only_its_lines() {
    let text = "{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"a\"},\n    // about b\n    \"b\": {\"command\": \"b\"}, // b!\n    \"c\": {\"command\": \"c\"}\n  }\n}\n";
    let edit = remove_entry(
        Format::Jsonc,
        text,
        Container::new(MCP),
        "b",
        &Created::default(),
    )
    .unwrap();
    assert_eq!(
        edit.text,
        "{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"a\"},\n    // about b\n    \"c\": {\"command\": \"c\"}\n  }\n}\n"
    );
    let one_line = "{\"mcpServers\": {\"a\": 1, \"b\": 2, \"c\": 3}}";
    let edit = remove_entry(
        Format::Json,
        one_line,
        Container::new(MCP),
        "b",
        &Created::default(),
    )
    .unwrap();
    assert_eq!(edit.text, "{\"mcpServers\": {\"a\": 1, \"c\": 3}}");
}

#[test]
fn wrong_typed_containers_are_refused() {
    let cases: &[(Format, &str, &str)] = &[
        (Format::Json, "{\"mcpServers\": []}", "an array"),
        (Format::Json, "{\"mcpServers\": null}", "null"),
        (Format::Jsonc, "{\"mcpServers\": \"x\", // c\n}", "a string"),
        (Format::Json, "[]", "an array"),
        (Format::Toml, "mcp_servers = 3\n", "an integer"),
        (Format::Toml, "mcp_servers = [1]\n", "an array"),
        (
            Format::Toml,
            "[[mcp_servers]]\nx = 1\n",
            "an array of tables",
        ),
    ];
    for (format, text, found) in cases {
        let path = if *format == Format::Toml { CODEX } else { MCP };
        let err = upsert_entry(*format, text, Container::new(path), "acme", &entry()).unwrap_err();
        match &err {
            FormatError::ContainerNotObject { found: f, .. } => assert_eq!(f, found, "{text}"),
            other => panic!("{text}: unexpected {other:?}"),
        }
        let err = remove_entry(
            *format,
            text,
            Container::new(path),
            "acme",
            &Created::default(),
        );
        assert!(err.is_err(), "{text}");
    }
    let err = upsert_entry(
        Format::Json,
        "{\"mcpServers\": []}",
        Container::new(MCP),
        "a",
        &entry(),
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "`mcpServers` is an array; it must be an object of servers. Fix or remove it by hand"
    );
}

#[test]
fn files_that_do_not_parse_give_line_and_column() {
    let cases: &[(Format, &str, (usize, usize))] = &[
        (Format::Json, "{\n  \"a\": 1,\n}\n", (2, 9)),
        (Format::Json, "{\n  // c\n  \"a\": 1\n}\n", (2, 3)),
        (Format::Json, "{\n  'a': 1\n}", (2, 3)),
        (Format::Jsonc, "{\n  \"a\": 0x10\n}", (2, 8)),
        (Format::Jsonc, "{\n  \"a\": 1\n  \"b\": 2\n}", (2, 9)),
        (Format::Jsonc, "{\n  # no\n}", (2, 3)),
        (Format::Toml, "a = 1\nb = \n", (2, 5)),
        (Format::Toml, "[x]\na = 1\n[x]\n", (3, 2)),
    ];
    for (format, text, (line, column)) in cases {
        let path = if *format == Format::Toml { CODEX } else { MCP };
        let err = upsert_entry(*format, text, Container::new(path), "a", &entry()).unwrap_err();
        match err {
            FormatError::Parse {
                line: l,
                column: c,
                message,
            } => {
                assert!(!message.is_empty());
                assert_eq!((l, c), (*line, *column), "{text:?}")
            }
            other => panic!("{text:?}: unexpected {other:?}"),
        }
    }
}

/// A file with a duplicate key: format, text, container path, the key path reported and the
/// lines of both occurrences.
type Duplicate = (
    Format,
    String,
    &'static [&'static str],
    &'static str,
    (usize, usize),
);

#[test]
fn duplicate_keys_on_the_container_path_are_refused() {
    let b = "\"b\": {\"command\": \"b\"}";
    let cases: Vec<Duplicate> = vec![
        (
            Format::Json,
            format!("{{\"mcpServers\": {{}},\n\"mcpServers\": {{{b}}}}}"),
            MCP,
            "mcpServers",
            (1, 2),
        ),
        (
            Format::Jsonc,
            format!("{{\n  // mine\n  \"mcpServers\": {{{b}}},\n  \"mcpServers\": {{}},\n}}"),
            MCP,
            "mcpServers",
            (3, 4),
        ),
        (
            Format::Json,
            format!("{{\"mcpServers\": {{\n  {b},\n  \"a\": {{}},\n  {b}\n}}}}"),
            MCP,
            "mcpServers.b",
            (2, 4),
        ),
        (
            Format::Jsonc,
            "{\"a\": {\"x\": {}}, \"a\": {\"x\": {}}}".to_string(),
            &["a", "x"],
            "a",
            (1, 1),
        ),
        (
            Format::Json,
            "{\"a\": {\"x\": {}, \"x\": {}}}".to_string(),
            &["a", "x"],
            "a.x",
            (1, 1),
        ),
        // An escaped key is the same key to every reader.
        (
            Format::Json,
            "{\"mcpServers\": {\"b\": {},\n\"\\u0062\": {}}}".to_string(),
            MCP,
            "mcpServers.b",
            (1, 2),
        ),
    ];
    for (format, text, path, key_path, (first, second)) in &cases {
        let c = Container::new(path);
        let expected = FormatError::DuplicateKey {
            key_path: key_path.to_string(),
            first_line: *first,
            second_line: *second,
        };
        assert_eq!(
            list_entries(*format, text, c).unwrap_err(),
            expected,
            "{text}"
        );
        assert_eq!(
            upsert_entry(*format, text, c, "figma", &entry()).unwrap_err(),
            expected,
            "{text}"
        );
        let removed = remove_entry(*format, text, c, "b", &Created::default());
        assert_eq!(removed.unwrap_err(), expected, "{text}");
        assert!(Document::parse(*format, text, c).is_err(), "{text}");
    }
    // Duplicates off the container's path are the host's business, not dotpack's.
    let text = "{\"theme\": 1, \"theme\": 2, \"mcpServers\": {\"x\": {\"a\": 1, \"a\": 2}}}";
    assert_eq!(
        list_entries(Format::Json, text, Container::new(MCP))
            .unwrap()
            .len(),
        1
    );
    let message = FormatError::DuplicateKey {
        key_path: "mcpServers".into(),
        first_line: 1,
        second_line: 3,
    }
    .to_string();
    assert!(message.contains("lines 1 and 3"), "{message}");
    assert!(message.contains("by hand"), "{message}");
}

#[test]
fn duplicate_keys_in_large_json_files_are_refused_on_the_fast_path() {
    let servers =
        ",\n  \"mcpServers\": {\n    \"a\": {}\n  },\n  \"mcpServers\": {\n    \"b\": {}\n  }";
    let big = large_json(servers);
    assert!(big.len() > 256 * 1024);
    let lines = big.lines().count();
    let first = big
        .lines()
        .position(|l| l.contains("\"mcpServers\""))
        .unwrap()
        + 1;
    let c = Container::new(MCP);
    let err = upsert_entry(Format::Json, &big, c, "figma", &entry()).unwrap_err();
    assert_eq!(
        err,
        FormatError::DuplicateKey {
            key_path: "mcpServers".into(),
            first_line: first,
            second_line: first + 3,
        }
    );
    assert!(first + 3 < lines);
    let servers = ",\n  \"mcpServers\": {\n    \"a\": {},\n    \"a\": {}\n  }";
    let err = list_entries(Format::Json, &large_json(servers), c).unwrap_err();
    assert!(
        matches!(&err, FormatError::DuplicateKey { key_path, .. } if key_path == "mcpServers.a"),
        "{err:?}"
    );
}

#[test]
fn toml_refuses_duplicate_tables_and_keys() {
    let cases = [
        "[mcp_servers.a]\ncommand = \"a\"\n\n[mcp_servers.a]\ncommand = \"b\"\n",
        "[mcp_servers]\na = { command = \"a\" }\n\n[mcp_servers]\nb = { command = \"b\" }\n",
        "[mcp_servers]\na = { command = \"a\" }\na = { command = \"b\" }\n",
        "mcp_servers.a.command = \"a\"\n\n[mcp_servers.a]\nargs = []\n",
    ];
    for text in cases {
        let c = Container::new(CODEX);
        for err in [
            list_entries(Format::Toml, text, c).unwrap_err(),
            upsert_entry(Format::Toml, text, c, "figma", &entry()).unwrap_err(),
        ] {
            match err {
                FormatError::Parse { line, message, .. } => {
                    assert!(line > 1, "{text:?}: {line}");
                    assert!(message.contains("duplicate key"), "{text:?}: {message}");
                }
                other => panic!("{text:?}: unexpected {other:?}"),
            }
        }
    }
}

#[test]
fn toml_refuses_null_and_mixed_line_endings() {
    let err = upsert_entry(
        Format::Toml,
        "",
        Container::new(CODEX),
        "a",
        &json!({"x": null}),
    )
    .unwrap_err();
    assert!(
        matches!(err, FormatError::Unrepresentable { .. }),
        "{err:?}"
    );
    let err = upsert_entry(
        Format::Toml,
        "a = 1\r\nb = 2\n",
        Container::new(CODEX),
        "a",
        &entry(),
    )
    .unwrap_err();
    assert_eq!(err, FormatError::MixedLineEndings);
}

#[test]
fn entries_must_be_objects() {
    let err = upsert_entry(Format::Json, "{}", Container::new(MCP), "a", &json!([1])).unwrap_err();
    assert_eq!(err, FormatError::EntryNotObject { found: "an array" });
}

#[test]
fn toml_replace_keeps_unchanged_keys_and_comments() {
    let text = "[mcp_servers.a]\ncommand = \"npx\" # pinned\nargs = [ \"-y\", \"a\" ]\n\n[mcp_servers.a.env]\nK = \"v\"\n\n[mcp_servers.b]\ncommand = \"b\"\n";
    let new = json!({"command": "npx", "args": ["-y", "a@2"], "env": {"K": "v"}});
    let edit = upsert_entry(Format::Toml, text, Container::new(CODEX), "a", &new).unwrap();
    assert_eq!(
        edit.text,
        "[mcp_servers.a]\ncommand = \"npx\" # pinned\nargs = [\"-y\", \"a@2\"]\n\n[mcp_servers.a.env]\nK = \"v\"\n\n[mcp_servers.b]\ncommand = \"b\"\n"
    );
}

#[test]
fn comments_at_the_end_of_a_toml_file_stay_there_once() {
    let text = "model = \"o3\"\n[mcp_servers.a]\ncommand = \"a\"\n# args = [\"x\"]\n";
    let c = Container::new(CODEX);
    let value = json!({"command": "npx", "args": []});
    let one = upsert_entry(Format::Toml, text, c, "s1", &value).unwrap();
    let two = upsert_entry(Format::Toml, &one.text, c, "s2", &value).unwrap();
    assert_eq!(
        two.text,
        "model = \"o3\"\n[mcp_servers.a]\ncommand = \"a\"\n[mcp_servers.s1]\ncommand = \"npx\"\nargs = []\n[mcp_servers.s2]\ncommand = \"npx\"\nargs = []\n# args = [\"x\"]\n"
    );
    let back = remove_entry(Format::Toml, &two.text, c, "s2", &Created::default()).unwrap();
    let back = remove_entry(Format::Toml, &back.text, c, "s1", &Created::default()).unwrap();
    assert_eq!(back.text, text);
}

#[test]
fn nested_container_paths_are_created_and_removed() {
    let path: &[&str] = &["a", "b"];
    let text = "{\n  \"x\": 1\n}\n";
    let added = upsert_entry(
        Format::Json,
        text,
        Container::new(path),
        "s",
        &json!({"url": "u"}),
    )
    .unwrap();
    assert_eq!(added.created.container_levels, 2);
    assert_eq!(
        added.text,
        "{\n  \"x\": 1,\n  \"a\": {\n    \"b\": {\n      \"s\": {\n        \"url\": \"u\"\n      }\n    }\n  }\n}\n"
    );
    let removed = remove_entry(
        Format::Json,
        &added.text,
        Container::new(path),
        "s",
        &added.created,
    )
    .unwrap();
    assert_eq!(removed.text, text);
}

/// Asserts that a [`Document`] parsed from `text` answers exactly as the text functions do: its
/// entries, an upsert of a new entry and of each existing one, a non-object entry, and removals
/// (also of the entry just added, from a document of the edited text).
fn document_matches_text_functions(format: Format, text: &str, path: &[&str]) {
    let c = Container::new(path);
    let listed = list_entries(format, text, c);
    let doc = match Document::parse(format, text, c) {
        Ok(doc) => doc,
        Err(e) => {
            assert_eq!(listed, Err(e.clone()), "{text:?}");
            assert_eq!(
                upsert_entry(format, text, c, "acme", &entry()),
                Err(e.clone())
            );
            let removed = remove_entry(format, text, c, "acme", &Created::default());
            assert_eq!(removed, Err(e), "{text:?}");
            return;
        }
    };
    let listed = listed.unwrap();
    assert_eq!(doc.entries(), listed, "{text:?}");
    let mut names: Vec<String> = listed.iter().map(|(n, _)| n.clone()).collect();
    names.push("acme".to_owned());
    let creations = [
        Created::default(),
        Created {
            container_levels: 1,
            empty_object_inner: Some(String::new()),
            file_content: Some(String::new()),
        },
    ];
    for name in &names {
        assert_eq!(
            doc.upsert(name, &entry()),
            upsert_entry(format, text, c, name, &entry()),
            "upsert {name} into {text:?}"
        );
        for created in &creations {
            assert_eq!(
                doc.remove(name, created),
                remove_entry(format, text, c, name, created),
                "remove {name} from {text:?}"
            );
        }
    }
    assert_eq!(
        doc.upsert("acme", &json!([1])),
        upsert_entry(format, text, c, "acme", &json!([1]))
    );
    if let Ok(added) = upsert_entry(format, text, c, "acme", &entry()) {
        let again = Document::parse(format, &added.text, c).ok().unwrap();
        assert_eq!(
            again.remove("acme", &added.created),
            remove_entry(format, &added.text, c, "acme", &added.created)
        );
    }
}

/// A strict-JSON file above the size where loading takes the shallow path.
fn large_json(servers: &str) -> String {
    let projects: Vec<String> = (0..5000)
        .map(|i| format!("    \"/p/{i}\": {{\"history\": [\"a \\\" b\", {{\"x\": [1, 2.5e3, null]}}], \"ok\": true}}"))
        .collect();
    format!(
        "{{\n  \"projects\": {{\n{}\n  }}{servers},\n  \"tail\": \"\\u00e9\"\n}}\n",
        projects.join(",\n")
    )
}

#[test]
fn a_parsed_document_answers_as_the_text_functions_do() {
    for c in CORPUS {
        document_matches_text_functions(c.format, c.text, c.path);
    }
    let odd: &[(Format, &str)] = &[
        (Format::Json, "{\"mcpServers\": []}"),
        (Format::Json, "[]"),
        (Format::Jsonc, "{\"mcpServers\": \"x\", // c\n}"),
        (Format::Json, "{\n  \"a\": 1,\n}\n"),
        (Format::Jsonc, "{\n  # no\n}"),
        (Format::Jsonc, "// only a comment\n"),
        (Format::Json, "\u{feff}{\"mcpServers\": {\"a\": {}}}"),
        (Format::Toml, "mcp_servers = 3\n"),
        (Format::Toml, "a = 1\nb = \n"),
        (Format::Toml, "a = 1\r\nb = 2\n"),
        (Format::Toml, "[mcp_servers.a]\ncommand = \"a\"\n"),
    ];
    for (format, text) in odd {
        let path = if *format == Format::Toml { CODEX } else { MCP };
        document_matches_text_functions(*format, text, path);
    }
    let servers = ",\n  \"mcpServers\": {\n    \"a\": {\n      \"command\": \"a\"\n    },\n    \"b\": {}\n  }";
    for big in [
        large_json(servers),
        large_json(""),
        large_json(",\n  \"mcpServers\": {}"),
        large_json(",\n  \"mcpServers\": 3"),
        large_json(servers) + "x",
    ] {
        assert!(big.len() > 256 * 1024);
        document_matches_text_functions(Format::Json, &big, MCP);
        document_matches_text_functions(Format::Jsonc, &big, MCP);
        document_matches_text_functions(Format::Json, &big, &["projects", "/p/7"]);
    }
}

mod round_trip {
    use super::*;
    use proptest::prelude::*;

    /// A JSON document written in one of the styles people and tools use.
    pub(super) fn document() -> impl Strategy<Value = String> {
        let key = "[a-z]{1,6}";
        let scalar = prop_oneof![
            any::<i32>().prop_map(Value::from),
            "[a-z ]{0,5}".prop_map(Value::from),
            any::<bool>().prop_map(Value::from),
            Just(Value::Null),
            Just(json!(1.0)),
        ];
        let entry = prop::collection::btree_map("[a-z]{1,5}", scalar.clone(), 0..3)
            .prop_map(|m| Value::Object(m.into_iter().collect()));
        let servers = prop::option::of(prop::collection::btree_map(key, entry, 0..4));
        let others = prop::collection::btree_map(key, scalar, 0..4);
        let indent = prop_oneof![Just("  "), Just("    "), Just("\t")];
        (
            servers,
            others,
            indent,
            any::<bool>(),
            any::<bool>(),
            any::<bool>(),
        )
            .prop_map(|(servers, others, indent, crlf, final_nl, servers_first)| {
                let mut doc = serde_json::Map::new();
                let servers = servers.map(|s| Value::Object(s.into_iter().collect()));
                if let (Some(s), true) = (&servers, servers_first) {
                    doc.insert("mcpServers".into(), s.clone());
                }
                doc.extend(others.into_iter().filter(|(k, _)| k != "mcpServers"));
                if let (Some(s), false) = (servers, servers_first) {
                    doc.insert("mcpServers".into(), s);
                }
                let mut buf = Vec::new();
                let fmt = serde_json::ser::PrettyFormatter::with_indent(indent.as_bytes());
                let mut ser = serde_json::Serializer::with_formatter(&mut buf, fmt);
                serde::Serialize::serialize(&Value::Object(doc), &mut ser).unwrap();
                let mut text = String::from_utf8(buf).unwrap();
                if final_nl {
                    text.push('\n');
                }
                if crlf {
                    text = text.replace('\n', "\r\n");
                }
                text
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(cases(64, 256)))]

        #[test]
        fn remove_after_upsert_gives_back_the_document(doc in document(), jsonc in any::<bool>()) {
            let format = if jsonc { Format::Jsonc } else { Format::Json };
            let c = Container::new(MCP);
            let added = upsert_entry(format, &doc, c, "zz-new", &entry()).unwrap();
            prop_assert_eq!(get_entry(format, &added.text, c, "zz-new").unwrap(), Some(entry()));
            let removed = remove_entry(format, &added.text, c, "zz-new", &added.created).unwrap();
            prop_assert_eq!(removed.text, doc);
        }

        #[test]
        fn a_parsed_document_answers_as_the_text_functions_do(doc in document(), jsonc in any::<bool>()) {
            let format = if jsonc { Format::Jsonc } else { Format::Json };
            document_matches_text_functions(format, &doc, MCP);
        }
    }
}

#[test]
fn the_guard_refuses_a_result_that_changed_anything_else() {
    use super::{Backend, Parse, guard};
    let old = "{\"a\": {\"command\": \"a\"}, \"b\": 1}";
    let c = Container::new(&[]);
    let before = json::Loaded::parse(Format::Json, old, c).unwrap();
    let check = |new: &str, name: &str, value: Option<&Value>| {
        let expected = guard::with_change(before.entries(), name, value.cloned());
        guard::check::<json::Loaded>(Format::Json, new, c, &before.outside(), &expected)
    };
    let u = json!({"url": "u"});
    let added = "{\"a\": {\"command\": \"a\"}, \"b\": 1, \"c\": {\"url\": \"u\"}}";
    assert!(check(added, "c", Some(&u)).is_ok());
    let refused = [
        (
            "{\"a\": {\"command\": \"a\"}, \"b\": 2, \"c\": {\"url\": \"u\"}}",
            Some(&u),
        ),
        (
            "{\"a\": {\"command\": \"a\"}, \"b\": 1, \"c\": {\"url\": \"x\"}}",
            Some(&u),
        ),
        (
            "{\"c\": {\"url\": \"u\"}, \"a\": {\"command\": \"a\"}, \"b\": 1}",
            Some(&u),
        ),
        ("{\"a\": 1} {}", None),
    ];
    for (text, value) in refused {
        assert!(
            matches!(
                check(text, "c", value),
                Err(FormatError::GuardFailed { .. })
            ),
            "{text}"
        );
    }
    assert!(check(old, "c", None).is_ok());
}

#[test]
fn the_guard_refuses_a_toml_result_that_changed_anything_else() {
    use super::{Backend, Parse, guard};
    let c = Container::new(CODEX);
    let before = "model = \"o3\"\n[mcp_servers.a]\ncommand = \"a\"\n";
    let old = toml::Doc::parse(Format::Toml, before, c).unwrap();
    let b = json!({"command": "b", "args": ["x"]});
    let expected = guard::with_change(old.entries(), "b", Some(b));
    let check =
        |text: &str| guard::check::<toml::Doc>(Format::Toml, text, c, &old.outside(), &expected);
    let entries =
        "[mcp_servers.a]\ncommand = \"a\"\n[mcp_servers.b]\ncommand = \"b\"\nargs = [\"x\"]\n";
    assert!(check(&format!("model = \"o3\"\n{entries}")).is_ok());
    let refused = [
        format!("model = \"o4\"\n{entries}"),
        format!("model = \"o3\"\nx = 1\n{entries}"),
        format!("model = \"o3\"\n{entries}[mcp_servers.c]\ncommand = \"c\"\n"),
        "model = \"o3\"\n[mcp_servers.a]\ncommand = \"a\"\n".to_owned(),
        format!("model = \"o3\"\n{}", entries.replace("[\"x\"]", "[\"y\"]")),
        format!("model = \"o3\"\n{entries}["),
    ];
    for text in &refused {
        assert!(
            matches!(check(text), Err(FormatError::GuardFailed { .. })),
            "{text}"
        );
    }
}

/// Applies `ops` one at a time with the one-entry functions, each removal taking back what its
/// `Created` and the earlier upserts created: what [`apply_ops`] must give, byte for byte.
fn one_by_one(
    format: Format,
    text: &str,
    c: Container<'_>,
    ops: &[Op<'_>],
) -> Result<Edit, FormatError> {
    let mut text = text.to_owned();
    let mut created = Created::default();
    let mut delete_file = false;
    for op in ops {
        let edit = match *op {
            Op::Upsert(name, value) => {
                let edit = upsert_entry(format, &text, c, name, value)?;
                created = created.merge(edit.created.clone());
                edit
            }
            Op::Remove(name, own) => {
                let own = own.clone().merge(created.clone());
                remove_entry(format, &text, c, name, &own)?
            }
        };
        delete_file = edit.delete_file;
        text = edit.text;
    }
    Ok(Edit {
        text,
        created,
        delete_file,
    })
}

/// Asserts that a batch of `ops` on `text` gives what applying them one by one gives, through
/// [`apply_ops`] and through a parsed [`Document`].
fn batch_matches_one_by_one(format: Format, text: &str, path: &[&str], ops: &[Op<'_>]) {
    let c = Container::new(path);
    let want = one_by_one(format, text, c, ops);
    let got = apply_ops(format, text, c, ops);
    match (&got, &want) {
        (Ok(got), Ok(want)) => {
            assert_eq!(got.text, want.text, "text of {ops:?} on {text:?}");
            assert_eq!(got, want, "{ops:?} on {text:?}");
        }
        // Both refused by the check after the edit; the reasons name what each one compared.
        (Err(FormatError::GuardFailed { .. }), Err(FormatError::GuardFailed { .. })) => {}
        (Err(got), Err(want)) => assert_eq!(got, want, "{ops:?} on {text:?}"),
        _ => panic!("{ops:?} on {text:?}: batch {got:?}, one by one {want:?}"),
    }
    if let Ok(doc) = Document::parse(format, text, c) {
        assert_eq!(doc.apply(ops), got, "Document::apply {ops:?} on {text:?}");
    }
}

/// Entry values a batch writes: stdio and HTTP shapes, nested objects, empty ones, and (for the
/// error path) a value that is not an object.
fn batch_values() -> Vec<Value> {
    vec![
        entry(),
        json!({"url": "https://example.com/mcp"}),
        json!({}),
        json!({"args": [], "command": "x"}),
        json!({"env": {"A": "1"}, "args": ["-y", {"k": [1, 2.5]}], "n": 3}),
        json!({"command": "npx", "args": ["-y", "pkg"]}),
    ]
}

/// The records a removal may carry: nothing created, and the kinds an earlier edit records.
fn batch_creations() -> Vec<Created> {
    vec![
        Created::default(),
        Created {
            container_levels: 1,
            empty_object_inner: None,
            file_content: None,
        },
        Created {
            container_levels: 0,
            empty_object_inner: Some(String::new()),
            file_content: None,
        },
        Created {
            container_levels: 1,
            empty_object_inner: Some("\n".into()),
            file_content: Some(String::new()),
        },
    ]
}

/// An op list from indexes: `(remove?, name, value, created)`.
fn batch_ops<'a>(
    spec: &[(bool, usize, usize, usize)],
    names: &'a [String],
    values: &'a [Value],
    creations: &'a [Created],
) -> Vec<Op<'a>> {
    spec.iter()
        .map(|&(remove, n, v, k)| {
            let name = names[n % names.len()].as_str();
            if remove {
                Op::Remove(name, &creations[k % creations.len()])
            } else {
                Op::Upsert(name, &values[v % values.len()])
            }
        })
        .collect()
}

/// The names ops use on `text`: its own entries' and a few new ones.
fn batch_names(format: Format, text: &str, path: &[&str]) -> Vec<String> {
    let mut names: Vec<String> = list_entries(format, text, Container::new(path))
        .unwrap_or_default()
        .into_iter()
        .map(|(n, _)| n)
        .collect();
    names.extend(["acme", "b", "zz", "a\"q"].map(String::from));
    names
}

#[test]
fn a_batch_of_many_edits_gives_what_one_edit_after_another_gives() {
    let values = batch_values();
    let (array, null) = (json!([1]), json!({"x": null}));
    for c in CORPUS {
        let mut names = batch_names(c.format, c.text, c.path);
        let old: Vec<String> = names[..names.len() - 4].to_vec();
        let new: Vec<String> = (0..cases(10, 40)).map(|i| format!("s{i}")).collect();
        names.extend(new.iter().cloned());
        let v = &values[5];
        let first_created = upsert_entry(c.format, c.text, Container::new(c.path), "s0", v)
            .map(|e| e.created)
            .unwrap_or_default();
        // What planning does: add many, update the file's own, remove them again.
        let adds: Vec<Op<'_>> = new.iter().map(|n| Op::Upsert(n, v)).collect();
        let updates: Vec<Op<'_>> = old.iter().map(|n| Op::Upsert(n, &values[1])).collect();
        let removes: Vec<Op<'_>> = old
            .iter()
            .chain(&new)
            .map(|n| Op::Remove(n, &first_created))
            .collect();
        let sequences = [
            adds.clone(),
            [adds.clone(), updates.clone()].concat(),
            [updates.clone(), adds.clone()].concat(),
            removes.clone(),
            [adds.clone(), removes.clone()].concat(),
            [adds.clone(), removes[old.len()..].to_vec()].concat(),
            [adds.clone(), removes.iter().rev().copied().collect()].concat(),
            [removes.clone(), adds.clone()].concat(),
            vec![Op::Upsert("bad", &array)],
            [adds[..3].to_vec(), vec![Op::Upsert("bad", &null)]].concat(),
        ];
        for ops in &sequences {
            batch_matches_one_by_one(c.format, c.text, c.path, ops);
        }
    }
}

/// Layouts beyond the corpus that batches must handle as single edits do.
const BATCH_ODD: &[(Format, &str)] = &[
    (
        Format::Json,
        "{\"mcpServers\": {\"a\": {\"x\": [1]}, \"b\": 2, \"c\": {}}}",
    ),
    (
        Format::Jsonc,
        "{\"mcpServers\": {\"a\": 1, /* c */ \"b\": 2 , }}",
    ),
    (
        Format::Jsonc,
        "{\n  \"mcpServers\": {\n    \"a\": {}, \"b\": {\"args\": [\"x\",\n \"y\"]},\n    \"c\": {\n      \"k\": 1\n    } /* after */ }\n}",
    ),
    (
        Format::Jsonc,
        "{\n  \"mcpServers\": {\n    // lead\n    \"a\": {\"command\": \"a\"}, // a\n\n    /* b */ \"b\": {\n\t\"args\": [1, 2]\n    },\n    \"c\": 3 // last\n  },\n  \"z\": 1,\n}",
    ),
    (
        Format::Json,
        "{\"x\": 1, \"mcpServers\": {\r\n  \"a\": {\n    \"u\": 1\r\n  },\n  \"b\": {}\r\n}\n}",
    ),
    (
        Format::Json,
        "{\"mcpServers\":{\"a\":{},\n\"b\":{\"c\":[1,\n2]}}}",
    ),
    (
        Format::Jsonc,
        "{ \"mcpServers\" /* c */ : { \"a\" : { } ,\n  \"b\"\n  : 1 } }",
    ),
];

/// TOML layouts beyond the corpus that batches must handle as single edits do.
const BATCH_ODD_TOML: &[&str] = &[
    "mcp_servers = { a = { command = \"a\" }, b = { command = \"b\" } }\n",
    "[mcp_servers]\na = { command = \"a\" }\nb = { url = \"u\" }\n",
    "mcp_servers.a.command = \"x\"\n\n[profiles.x]\nm = 1\n",
    "model = \"o3\"\n[mcp_servers.a]\ncommand = \"a\"\n# end\n",
    "# top\n\n[mcp_servers.a]\ncommand = \"a\"\n",
    "[mcp_servers.a]\ncommand = \"a\"\n[mcp_servers.a.env]\nK = \"v\"\n[mcp_servers.b]\ncommand = \"b\"\n",
    "[mcp_servers.a]\ncommand = \"a\"\n\n[profiles.p]\nx = 1\n\n[mcp_servers.a.env]\nK = \"v\"\n",
    "[[mcp_servers.a]]\ncommand = \"a\"\n\n[mcp_servers.b]\ncommand = \"b\"\n",
    "[mcp_servers.a]\r\ncommand = \"a\"\r\nargs = [\"x\"]\r\n\r\n[mcp_servers.a.env]\r\nK = \"v\"\r\n",
    "[mcp_servers.zz]\nenv = { K = \"v\" }\n\n[mcp_servers.acme.env]\nA = \"1\"\n",
    "[profiles.p]\nx = 1\n",
    "\n\n# only comments\n\n",
];

#[test]
fn batches_on_large_files_take_the_fast_path_and_match() {
    let values = batch_values();
    let created = Created::default();
    let servers = ",\n  \"mcpServers\": {\n    \"a\": {\n      \"command\": \"a\"\n    },\n    \"b\": {}\n  }";
    let big = large_json(servers);
    let names: Vec<String> = (0..cases(8, 30)).map(|i| format!("n{i}")).collect();
    let mut ops: Vec<Op<'_>> = names.iter().map(|n| Op::Upsert(n, &values[0])).collect();
    ops.push(Op::Upsert("a", &values[1]));
    ops.extend(names.iter().step_by(3).map(|n| Op::Remove(n, &created)));
    ops.push(Op::Remove("b", &created));
    for format in [Format::Json, Format::Jsonc] {
        batch_matches_one_by_one(format, &big, MCP, &ops);
        batch_matches_one_by_one(format, &large_json(""), MCP, &ops);
    }
}

/// YAML host files as people and tools write them, and the same properties JSON and TOML hold.
mod yaml_round_trip {
    use super::*;
    use proptest::prelude::*;

    const LIST: Container<'static> = Container::keyed_list(&["mcpServers"], "name");

    /// A YAML document: other keys with scalars in various styles, comments and blank lines, and
    /// (maybe) the container, as a map (`mcp_servers`) or a keyed list (`mcpServers`).
    pub(super) fn document() -> impl Strategy<Value = (String, bool)> {
        let scalar = prop_oneof![
            Just("1"),
            Just("'q'"),
            Just("\"d # x\""),
            Just("a b"),
            Just("true"),
            Just("~"),
            Just("[1, 2]"),
            Just("{a: 1}"),
            Just("-y"),
        ];
        let field = ("[a-z]{1,5}", scalar.clone(), any::<bool>());
        let entry = (
            "[a-z]{1,6}",
            prop::collection::vec(field, 1..3),
            any::<bool>(),
        );
        let servers = prop::option::of(prop::collection::vec(entry, 0..4));
        let others = prop::collection::vec(("[a-z]{1,6}", scalar), 0..4);
        (
            servers,
            others,
            prop_oneof![Just(2usize), Just(4)],
            any::<bool>(),
            any::<bool>(),
            any::<bool>(),
            any::<bool>(),
        )
            .prop_map(
                |(servers, others, unit, crlf, final_nl, servers_first, list)| {
                    let ind = " ".repeat(unit);
                    let key = if list { "mcpServers" } else { "mcp_servers" };
                    let mut block = Vec::new();
                    if let Some(servers) = servers {
                        let mut seen = std::collections::BTreeSet::new();
                        let servers: Vec<_> = servers
                            .into_iter()
                            .filter(|(n, _, _)| seen.insert(n.clone()))
                            .collect();
                        if servers.is_empty() {
                            block.push(format!("{key}: {}", if list { "[]" } else { "{}" }));
                        } else {
                            block.push(format!("{key}:  # servers"));
                        }
                        for (name, fields, blank) in servers {
                            let mut fseen = std::collections::BTreeSet::new();
                            let fields: Vec<_> = fields
                                .into_iter()
                                .filter(|(k, _, _)| k != "name" && fseen.insert(k.clone()))
                                .collect();
                            if list {
                                block.push(format!("{ind}- name: {name}"));
                            } else {
                                block.push(format!("{ind}{name}:"));
                            }
                            let fi = if list {
                                format!("{ind}  ")
                            } else {
                                format!("{ind}{ind}")
                            };
                            for (k, v, comment) in fields {
                                block.push(format!("{fi}{k}: {v}"));
                                if comment {
                                    block.push(format!("{fi}# about {k}"));
                                }
                            }
                            if blank {
                                block.push(String::new());
                            }
                        }
                    }
                    let mut lines = vec!["# config".to_owned()];
                    let mut seen = std::collections::BTreeSet::new();
                    let others: Vec<String> = others
                        .into_iter()
                        .filter(|(k, _)| k != key && seen.insert(k.clone()))
                        .map(|(k, v)| format!("{k}: {v}"))
                        .collect();
                    if servers_first {
                        lines.extend(block);
                        lines.extend(others);
                    } else {
                        lines.extend(others);
                        lines.extend(block);
                    }
                    let mut text = lines.join("\n");
                    if final_nl {
                        text.push('\n');
                    }
                    if crlf {
                        text = text.replace('\n', "\r\n");
                    }
                    (text, list)
                },
            )
    }

    fn container(list: bool) -> Container<'static> {
        if list { LIST } else { Container::new(CODEX) }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(cases(64, 256)))]

        #[test]
        fn remove_after_upsert_gives_back_the_document((doc, list) in document()) {
            let c = container(list);
            prop_assert!(list_entries(Format::Yaml, &doc, c).is_ok(), "{doc:?}");
            let added = upsert_entry(Format::Yaml, &doc, c, "zz-new", &entry()).unwrap();
            prop_assert_eq!(get_entry(Format::Yaml, &added.text, c, "zz-new").unwrap(), Some(entry()));
            let removed = remove_entry(Format::Yaml, &added.text, c, "zz-new", &added.created).unwrap();
            prop_assert_eq!(removed.text, doc);
        }

        #[test]
        fn replacing_each_entry_keeps_the_others((doc, list) in document()) {
            let c = container(list);
            let entries = list_entries(Format::Yaml, &doc, c).unwrap();
            for (name, _) in &entries {
                let edit = upsert_entry(Format::Yaml, &doc, c, name, &entry()).unwrap();
                let after = list_entries(Format::Yaml, &edit.text, c).unwrap();
                let want: Vec<_> = entries
                    .iter()
                    .map(|(n, v)| (n.clone(), if n == name { entry() } else { v.clone() }))
                    .collect();
                prop_assert_eq!(after, want);
            }
        }

        #[test]
        fn a_parsed_document_answers_as_the_text_functions_do((doc, list) in document()) {
            if !list {
                document_matches_text_functions(Format::Yaml, &doc, CODEX);
            }
        }

        #[test]
        fn a_batch_gives_what_edits_in_turn_give((doc, list) in document(), spec in prop::collection::vec((any::<bool>(), 0..12usize, 0..6usize, 0..4usize), 0..8)) {
            if !list {
                let names = batch_names(Format::Yaml, &doc, CODEX);
                let (values, creations) = (batch_values(), batch_creations());
                let ops = batch_ops(&spec, &names, &values, &creations);
                batch_matches_one_by_one(Format::Yaml, &doc, CODEX, &ops);
            }
        }
    }
}

mod batch_round_trip {
    use super::*;
    use proptest::prelude::*;

    fn ops() -> impl Strategy<Value = Vec<(bool, usize, usize, usize)>> {
        prop::collection::vec((any::<bool>(), 0..12usize, 0..6usize, 0..4usize), 0..12)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(cases(64, 512)))]

        #[test]
        fn on_the_corpus(case in 0..CORPUS.len(), spec in ops()) {
            let c = &CORPUS[case];
            let names = batch_names(c.format, c.text, c.path);
            let (values, creations) = (batch_values(), batch_creations());
            let ops = batch_ops(&spec, &names, &values, &creations);
            batch_matches_one_by_one(c.format, c.text, c.path, &ops);
        }

        #[test]
        fn on_odd_layouts(case in 0..BATCH_ODD.len(), spec in ops()) {
            let (format, text) = BATCH_ODD[case];
            prop_assert!(list_entries(format, text, Container::new(MCP)).is_ok(), "{text}");
            let names = batch_names(format, text, MCP);
            let (values, creations) = (batch_values(), batch_creations());
            let ops = batch_ops(&spec, &names, &values, &creations);
            batch_matches_one_by_one(format, text, MCP, &ops);
        }

        #[test]
        fn on_odd_toml_layouts(case in 0..BATCH_ODD_TOML.len(), spec in ops()) {
            let text = BATCH_ODD_TOML[case];
            prop_assert!(list_entries(Format::Toml, text, Container::new(CODEX)).is_ok(), "{text}");
            let names = batch_names(Format::Toml, text, CODEX);
            let (values, creations) = (batch_values(), batch_creations());
            let ops = batch_ops(&spec, &names, &values, &creations);
            batch_matches_one_by_one(Format::Toml, text, CODEX, &ops);
        }

        #[test]
        fn on_generated_documents(doc in round_trip::document(), jsonc in any::<bool>(), spec in ops()) {
            let format = if jsonc { Format::Jsonc } else { Format::Json };
            let names = batch_names(format, &doc, MCP);
            let (values, creations) = (batch_values(), batch_creations());
            let ops = batch_ops(&spec, &names, &values, &creations);
            batch_matches_one_by_one(format, &doc, MCP, &ops);
        }
    }
}

mod guard_changes {
    use super::guard::{Changes, with_change};
    use proptest::prelude::*;
    use serde_json::{Value, json};

    proptest! {
        /// The indexed entries a batch checks against are exactly what the edits made one by one
        /// expect, repeated names and removals included.
        #[test]
        fn changes_keep_what_edits_in_turn_keep(
            start in prop::collection::vec(0..6u8, 0..8),
            edits in prop::collection::vec((0..8u8, prop::option::of(0..3u8)), 0..24),
        ) {
            let entries: Vec<(String, Value)> =
                start.iter().enumerate().map(|(i, n)| (format!("s{n}"), json!(i))).collect();
            let mut want = entries.clone();
            let mut changes = Changes::new(entries);
            for (name, value) in edits {
                let name = format!("s{name}");
                let value = value.map(|v| json!({ "v": v }));
                let held = want.iter().any(|(n, _)| *n == name);
                want = with_change(want, &name, value.clone());
                prop_assert_eq!(changes.set(&name, value), held);
                prop_assert_eq!(changes.len(), want.len());
            }
            prop_assert_eq!(changes.into_vec(), want);
        }
    }
}
