//! Everything that parses bytes a user or a file controls must answer with an error, never a
//! panic: host files, manifests, locks, index lines and archives, fed arbitrary input.

use std::path::Path;

use dotpack::formats::{self, Container, Created, Format, Op};
use proptest::prelude::*;

const FORMATS: [Format; 4] = [Format::Json, Format::Jsonc, Format::Toml, Format::Yaml];

/// Text that looks like config files: brackets, quotes, keys, comments, newlines and noise.
fn configish() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        prop_oneof![
            Just("{".to_string()),
            Just("}".to_string()),
            Just("[".to_string()),
            Just("]".to_string()),
            Just("\"mcpServers\"".to_string()),
            Just("\"x\"".to_string()),
            Just(":".to_string()),
            Just(",".to_string()),
            Just("=".to_string()),
            Just("[mcp_servers.a]".to_string()),
            Just("// c\n".to_string()),
            Just("# c\n".to_string()),
            Just("\r\n".to_string()),
            Just("\n".to_string()),
            Just("\u{feff}".to_string()),
            Just("1.0".to_string()),
            Just("null".to_string()),
            Just("mcp_servers:\n".to_string()),
            Just("  ".to_string()),
            Just("- ".to_string()),
            Just("&a ".to_string()),
            Just("*a".to_string()),
            Just("---\n".to_string()),
            Just("<<: ".to_string()),
            "[ -~]{0,4}",
        ],
        0..40,
    )
    .prop_map(|parts| parts.concat())
}

/// Cases per property: 64 in `cargo test`, 300 with `DOTPACK_LONG_TESTS=1` (as `.ci/run` runs
/// it).
fn cases() -> u32 {
    let long = std::env::var_os("DOTPACK_LONG_TESTS").is_some_and(|v| !v.is_empty() && v != "0");
    if long { 300 } else { 64 }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    #[test]
    fn host_file_edits_never_panic(text in configish()) {
        let entry = serde_json::json!({"command": "npx", "args": ["-y", "x"]});
        for format in FORMATS {
            for path in [&["mcpServers"][..], &["mcp_servers"][..], &["a", "b"][..]] {
                let container = Container::new(path);
                let _ = formats::list_entries(format, &text, container);
                if let Ok(edit) = formats::upsert_entry(format, &text, container, "x", &entry) {
                    // What an edit produced must read back and undo cleanly.
                    let got = formats::get_entry(format, &edit.text, container, "x");
                    prop_assert_eq!(got.ok().flatten(), Some(entry.clone()));
                    let _ = formats::remove_entry(format, &edit.text, container, "x", &edit.created);
                }
                let _ = formats::remove_entry(format, &text, container, "x", &Created::default());
            }
        }
    }

    /// A batch of edits on any text: no panic, and the same outcome as the edits one by one.
    #[test]
    fn host_file_batches_never_panic_and_match_single_edits(text in configish()) {
        let entry = serde_json::json!({"command": "npx", "args": ["-y", "x"]});
        let other = serde_json::json!({"url": "u"});
        let none = Created::default();
        for format in FORMATS {
            for path in [&["mcpServers"][..], &["mcp_servers"][..], &["a", "b"][..]] {
                let container = Container::new(path);
                let mut names: Vec<String> = formats::list_entries(format, &text, container)
                    .map(|entries| entries.into_iter().map(|(n, _)| n).collect())
                    .unwrap_or_default();
                names.extend(["x".to_string(), "y".to_string()]);
                let mut ops: Vec<Op<'_>> = names.iter().map(|n| Op::Upsert(n, &entry)).collect();
                ops.push(Op::Remove("x", &none));
                ops.push(Op::Upsert("y", &other));
                ops.extend(names.iter().map(|n| Op::Remove(n, &none)));
                let batch = formats::apply_ops(format, &text, container, &ops);
                let mut one_by_one = Ok(text.clone());
                let mut created = Created::default();
                for op in &ops {
                    let Ok(current) = &one_by_one else { break };
                    one_by_one = match *op {
                        Op::Upsert(name, value) => {
                            formats::upsert_entry(format, current, container, name, value).map(|e| {
                                created = std::mem::take(&mut created).merge(e.created);
                                e.text
                            })
                        }
                        Op::Remove(name, own) => {
                            let own = own.clone().merge(created.clone());
                            formats::remove_entry(format, current, container, name, &own).map(|e| e.text)
                        }
                    };
                }
                prop_assert_eq!(batch.map(|e| e.text).ok(), one_by_one.ok(), "{:?}", text);
            }
        }
    }

    #[test]
    fn manifests_and_locks_never_panic(text in configish()) {
        let _ = dotpack::model::manifest::parse(Path::new("dotpack.toml"), text.clone());
        let _ = dotpack::model::lock::parse(Path::new("dotpack.lock"), &text);
        let _ = dotpack::registry::parse_index_file(&text, "fi/gm/figma");
    }

    #[test]
    fn archives_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..2048)) {
        let _ = dotpack::registry::archive::read_files(&bytes, "x.tar.gz");
        let _ = dotpack::registry::archive::package_manifest(&bytes, "x.tar.gz");
    }
}
