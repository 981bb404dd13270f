//! Everything that parses bytes a user or a file controls must answer with an error, never a
//! panic: host files, manifests, locks, index lines and archives, fed arbitrary input.

use std::path::Path;

use dotpack::formats::{self, Container, Created, Format};
use proptest::prelude::*;

const FORMATS: [Format; 3] = [Format::Json, Format::Jsonc, Format::Toml];

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
            "[ -~]{0,4}",
        ],
        0..40,
    )
    .prop_map(|parts| parts.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

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

    #[test]
    fn manifests_and_locks_never_panic(text in configish()) {
        let _ = dotpack::manifest::parse(Path::new("dotpack.toml"), text.clone());
        let _ = dotpack::lock::parse(Path::new("dotpack.lock"), &text);
        let _ = dotpack::registry::parse_index_file(&text, "fi/gm/figma");
    }

    #[test]
    fn archives_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..2048)) {
        let _ = dotpack::registry::archive::read_files(&bytes, "x.tar.gz");
        let _ = dotpack::registry::archive::package_manifest(&bytes, "x.tar.gz");
    }
}
