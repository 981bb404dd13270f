use serde_json::json;

use crate::{
    Container, Created, Format, FormatError, Op, apply_ops, get_entry, list_entries, remove_entry,
    upsert_entry,
};

const HERMES: Container<'static> = Container::new(&["mcp_servers"]);
const CONTINUE: Container<'static> = Container::keyed_list(&["mcpServers"], "name");

fn entry() -> serde_json::Value {
    json!({"command": "npx", "args": ["-y", "figma"], "env": {"TOKEN": "yes"}})
}

/// Upserts `figma` into `text`, checks it reads back, and that removing it gives `text` back.
fn round_trip(text: &str, c: Container<'_>) -> String {
    let added = upsert_entry(Format::Yaml, text, c, "figma", &entry()).unwrap();
    assert_eq!(
        get_entry(Format::Yaml, &added.text, c, "figma").unwrap(),
        Some(entry()),
        "{}",
        added.text
    );
    let removed = remove_entry(Format::Yaml, &added.text, c, "figma", &added.created).unwrap();
    assert_eq!(removed.text, text, "after {:?}", added.text);
    added.text
}

#[test]
fn a_fresh_file_gets_the_container_and_loses_it_again() {
    let text = round_trip("", HERMES);
    assert_eq!(
        text,
        "mcp_servers:\n  figma:\n    command: npx\n    args:\n      - -y\n      - figma\n    env:\n      TOKEN: \"yes\"\n"
    );
    let edit = upsert_entry(Format::Yaml, "", HERMES, "figma", &entry()).unwrap();
    let gone = remove_entry(Format::Yaml, &edit.text, HERMES, "figma", &edit.created).unwrap();
    assert!(gone.delete_file);
    round_trip("# hermes\n", HERMES);
    round_trip("# hermes", HERMES);
    round_trip("---\n", HERMES);
}

#[test]
fn a_missing_container_goes_after_the_other_keys_and_comments_stay() {
    let text = "# Hermes config\nmodel: gpt-5  # best\n\n# trailing\n";
    let added = round_trip(text, HERMES);
    assert_eq!(
        added,
        "# Hermes config\nmodel: gpt-5  # best\nmcp_servers:\n  figma:\n    command: npx\n    args:\n      - -y\n      - figma\n    env:\n      TOKEN: \"yes\"\n\n# trailing\n"
    );
    round_trip("model: x", HERMES);
    let nested = Container::new(&["a", "b"]);
    round_trip("a:\n  x: 1\nz: 2\n", nested);
}

#[test]
fn siblings_keep_their_bytes() {
    let text = "\
model: 'o3'   # quoted
mcp_servers:
  # the first one
  a:
    command: \"a\"   # why
    args: [x, 'y']

  b: {url: 'http://b'}
other:
  - 1
";
    let added = round_trip(text, HERMES);
    assert!(
        added.contains("  b: {url: 'http://b'}\n  figma:\n    command: npx\n"),
        "{added}"
    );
    let names: Vec<String> = list_entries(Format::Yaml, text, HERMES)
        .unwrap()
        .into_iter()
        .map(|(n, _)| n)
        .collect();
    assert_eq!(names, ["a", "b"]);
}

#[test]
fn crlf_bom_and_no_final_newline_are_kept() {
    round_trip(
        "\u{feff}model: x\r\nmcp_servers:\r\n  a:\r\n    command: a\r\n",
        HERMES,
    );
    let added = round_trip("mcp_servers:\r\n  a:\r\n    command: a", HERMES);
    assert!(added.contains("\r\n  figma:\r\n    command: npx\r\n"));
    assert!(!added.ends_with('\n'));
    assert!(!added.replace("\r\n", "").contains('\n'));
}

#[test]
fn four_space_indentation_is_followed() {
    let text = "extensions:\n    dev:\n        cmd: x\n        args:\n        - a\n";
    let added = round_trip(text, Container::new(&["extensions"]));
    assert!(
        added.ends_with(
            "    figma:\n        command: npx\n        args:\n        - -y\n        - figma\n        env:\n            TOKEN: \"yes\"\n"
        ),
        "{added}"
    );
}

#[test]
fn strings_that_would_read_as_something_else_are_quoted() {
    let value = json!({"a": "yes", "b": "1.0", "c": "~", "d": "*x", "e": "# x", "f": "a: b",
        "g": " pad ", "h": "on", "i": "null", "j": "", "k": "multi\nline", "l": 3, "m": true,
        "n": null, "o": 1.5, "p": [], "q": {}, "r": [[1, "x"], {"s": "t"}], "yes": "key"});
    let edit = upsert_entry(Format::Yaml, "", HERMES, "odd", &value).unwrap();
    assert_eq!(
        get_entry(Format::Yaml, &edit.text, HERMES, "odd").unwrap(),
        Some(value)
    );
    assert!(
        edit.text
            .contains("    l: 3\n    m: true\n    \"n\": null\n    o: 1.5\n    p: []\n"),
        "{}",
        edit.text
    );
    assert!(edit.text.contains("    \"yes\": key\n"), "{}", edit.text);
}

#[test]
fn replacing_an_entry_changes_only_its_lines() {
    let text = "mcp_servers:\n  a:\n    command: old  # c\n  b:\n    command: b\n# end\n";
    let edit = upsert_entry(Format::Yaml, text, HERMES, "a", &json!({"url": "u"})).unwrap();
    assert_eq!(
        edit.text,
        "mcp_servers:\n  a:\n    url: u\n  b:\n    command: b\n# end\n"
    );
    assert_eq!(edit.created, Created::default());
}

#[test]
fn removing_the_last_entry_of_a_file_dotpack_did_not_create_leaves_an_empty_map() {
    let text = "mcp_servers:\n  a:\n    command: a\nz: 1\n";
    let edit = remove_entry(Format::Yaml, text, HERMES, "a", &Created::default()).unwrap();
    assert_eq!(edit.text, "mcp_servers: {}\nz: 1\n");
    for empty in [
        "mcp_servers:\nz: 1\n",
        "mcp_servers: {}  # none\n",
        "mcp_servers: ~",
    ] {
        round_trip(empty, HERMES);
    }
}

#[test]
fn keyed_lists_are_upserted_in_place_appended_and_removed() {
    let text = "name: cfg\nmcpServers:\n  - name: a\n    command: a\n  # between\n  - name: b\n    command: b\nmodels: []\n";
    assert_eq!(
        list_entries(Format::Yaml, text, CONTINUE).unwrap(),
        vec![
            ("a".to_owned(), json!({"command": "a"})),
            ("b".to_owned(), json!({"command": "b"}))
        ]
    );
    let added = round_trip(text, CONTINUE);
    assert!(
        added
            .contains("    command: b\n  - name: figma\n    command: npx\n    args:\n      - -y\n"),
        "{added}"
    );
    let replaced = upsert_entry(Format::Yaml, text, CONTINUE, "a", &json!({"url": "u"})).unwrap();
    assert_eq!(
        replaced.text,
        text.replace("  - name: a\n    command: a\n", "  - name: a\n    url: u\n")
    );
    let removed = remove_entry(Format::Yaml, text, CONTINUE, "a", &Created::default()).unwrap();
    assert_eq!(
        removed.text,
        text.replace("  - name: a\n    command: a\n", "")
    );
    round_trip("", CONTINUE);
    round_trip("mcpServers: []\n", CONTINUE);
    round_trip("mcpServers:\n- name: a\n  command: a\n", CONTINUE);
    let with_name = json!({"name": "x"});
    assert!(matches!(
        upsert_entry(Format::Yaml, text, CONTINUE, "x", &with_name),
        Err(FormatError::Unrepresentable { .. })
    ));
}

#[test]
fn a_batch_gives_what_edits_in_turn_give() {
    let text = "mcp_servers:\n  a:\n    command: a\n";
    let (one, two) = (json!({"command": "x"}), json!({"url": "u"}));
    let none = Created::default();
    let ops = [
        Op::Upsert("b", &one),
        Op::Upsert("a", &two),
        Op::Remove("b", &none),
    ];
    let edit = apply_ops(Format::Yaml, text, HERMES, &ops).unwrap();
    assert_eq!(edit.text, "mcp_servers:\n  a:\n    url: u\n");
}

#[test]
fn what_cannot_be_edited_exactly_is_refused_with_its_place() {
    let not_editable = [
        ("mcp_servers: {a: {command: x}}\n", (1, 14)),
        ("mcp_servers:\n  a: &x\n    command: x\n", (2, 6)),
        ("base: &b {command: x}\nmcp_servers:\n  a: *b\n", (3, 6)),
        ("mcp_servers:\n  a:\n    <<: {command: x}\n", (3, 5)),
        ("mcp_servers:\n  a: !!map\n    command: x\n", (2, 6)),
        ("a: 1\n---\nb: 2\n", (2, 1)),
        ("{mcp_servers: {}}\n", (1, 1)),
        ("<<: {mcp_servers: {}}\n", (1, 1)),
    ];
    for (text, (line, column)) in not_editable {
        let err = upsert_entry(Format::Yaml, text, HERMES, "a", &json!({})).unwrap_err();
        assert!(
            matches!(&err, FormatError::NotEditable { line: l, column: c, .. } if (*l, *c) == (line, column)),
            "{text:?}: {err:?}"
        );
        assert_eq!(list_entries(Format::Yaml, text, HERMES).unwrap_err(), err);
    }
    let dup = "mcp_servers:\n  a: {}\n  a: {}\n";
    assert!(matches!(
        list_entries(Format::Yaml, dup, HERMES),
        Err(FormatError::DuplicateKey {
            first_line: 2,
            second_line: 3,
            ..
        })
    ));
    let dup_list = "mcpServers:\n  - name: a\n  - name: a\n";
    assert!(matches!(
        list_entries(Format::Yaml, dup_list, CONTINUE),
        Err(FormatError::DuplicateKey { .. })
    ));
    assert_eq!(
        list_entries(Format::Yaml, "a: 1\r\nb: 2\n", HERMES),
        Err(FormatError::MixedLineEndings)
    );
    assert!(matches!(
        list_entries(Format::Yaml, "a: [1\n", HERMES),
        Err(FormatError::Parse { .. })
    ));
    for (text, c) in [
        ("mcp_servers: 3\n", HERMES),
        ("mcp_servers:\n  - a\n", HERMES),
        ("mcpServers:\n  a: {}\n", CONTINUE),
        ("- 1\n", HERMES),
    ] {
        assert!(
            matches!(
                list_entries(Format::Yaml, text, c),
                Err(FormatError::ContainerNotObject { .. })
            ),
            "{text}"
        );
    }
    assert!(matches!(
        list_entries(Format::Json, "{}", CONTINUE),
        Err(FormatError::ListContainer { .. })
    ));
}
