use super::*;
use serde_json::json;

#[test]
fn registry_names_are_namespace_slash_name_and_never_a_path_trick() {
    for good in [
        "io.github.user/weather",
        "com.example/my-server",
        "ai.x/a_b.c",
        "a/b",
    ] {
        assert!(is_registry_name(good), "{good}");
    }
    for bad in [
        "weather",
        "/weather",
        "io.github.user/",
        "a/b/c",
        "../x",
        "a/..",
        "./a",
        "a/.",
        "-a/b",
        "a b/c",
        "a/b\\c",
        "io.github.user/wea%2Fther",
        "",
    ] {
        assert!(!is_registry_name(bad), "{bad}");
    }
}

#[test]
fn registry_names_stay_out_of_dotpack_indexes() {
    // A sparse index reads plain names only, so an MCP name cannot become an index path there.
    assert!(!crate::registry::index::is_plain_name(
        "io.github.user/weather"
    ));
}

#[test]
fn names_and_versions_are_encoded_as_one_path_segment() {
    assert_eq!(encode("io.github.user/weather"), "io.github.user%2Fweather");
    assert_eq!(encode("1.0.0+build.1"), "1.0.0%2Bbuild.1");
    assert_eq!(encode("a b&c=d"), "a%20b%26c%3Dd");
}

#[test]
fn canonical_json_ignores_key_order_and_whitespace_but_not_values() {
    let a: Value =
        serde_json::from_str(r#"{"b": 1, "a": {"y": [1, {"d": 2, "c": 3}], "x": "s"}}"#).unwrap();
    let b: Value = serde_json::from_str(r#"{"a":{"x":"s","y":[1,{"c":3,"d":2}]},"b":1}"#).unwrap();
    assert_eq!(canonical(&a), canonical(&b));
    assert_eq!(
        String::from_utf8(canonical(&b)).unwrap(),
        r#"{"a":{"x":"s","y":[1,{"c":3,"d":2}]},"b":1}"#
    );
    let c: Value = serde_json::from_str(r#"{"a":{"x":"t","y":[1,{"c":3,"d":2}]},"b":1}"#).unwrap();
    assert_ne!(canonical(&a), canonical(&c));
}

fn weather(version: &str) -> Value {
    json!({
        "$schema": "https://static.modelcontextprotocol.io/schemas/2025-09-29/server.schema.json",
        "name": "io.github.user/weather",
        "description": "Weather",
        "version": version,
        "packages": [{"registryType": "npm", "identifier": "@user/weather", "version": version,
                      "transport": {"type": "stdio"}}]
    })
}

#[test]
fn a_document_becomes_a_line_pinned_to_its_canonical_bytes() {
    let doc = weather("1.2.0");
    let line = line_of(&doc, &Value::Null).unwrap();
    assert_eq!(line.name, "io.github.user/weather");
    assert_eq!(line.vers, Version::new(1, 2, 0));
    assert_eq!(line.servers, ["weather"]);
    assert_eq!(line.cksum, sha256_hex(&canonical(&doc)));
    assert!(!line.yanked);
    let text = manifest_text(&canonical(&doc), "label").unwrap();
    assert!(text.contains("npx"), "{text}");
}

#[test]
fn a_deleted_version_is_refused_with_the_registrys_message_and_a_deprecated_one_is_not() {
    let doc = weather("1.2.0");
    let deleted =
        json!({OFFICIAL_META: {"status": "deleted", "statusMessage": " Spam:\n  fake\tserver "}});
    assert_eq!(
        line_of(&doc, &deleted).unwrap_err(),
        "the registry deleted it: Spam: fake server"
    );
    let silent = json!({OFFICIAL_META: {"status": "deleted"}});
    assert_eq!(
        line_of(&doc, &silent).unwrap_err(),
        "the registry deleted it and gives no reason"
    );
    let deprecated = json!({OFFICIAL_META: {"status": "deprecated", "statusMessage": "use v2"}});
    assert!(!line_of(&doc, &deprecated).unwrap().yanked);
    assert_eq!(
        Status::of(&deprecated),
        Status::Deprecated("use v2".to_string())
    );
    assert_eq!(Status::of(&Value::Null), Status::Active);
    let long = "x".repeat(400);
    assert_eq!(one_line(&long).chars().count(), 301);
}

#[test]
fn a_manifest_text_is_the_mapped_package() {
    let doc = weather("1.2.0");
    let text = manifest_text(&canonical(&doc), "label").unwrap();
    assert!(text.contains("npx"), "{text}");
}

#[test]
fn a_version_that_reads_as_one_semver_version_is_taken_as_it() {
    let cases = [
        ("1.2.3", "1.2.3"),
        ("v7.5.0", "7.5.0"),
        ("V1.0.0-beta.1", "1.0.0-beta.1"),
        ("2.1", "2.1.0"),
        ("1", "1.0.0"),
        ("v17.1.7-3", "17.1.7-3"),
    ];
    for (text, semver) in cases {
        assert_eq!(semver_of(text).unwrap().to_string(), semver, "{text}");
    }
    for text in ["2025.10.01", "1.2.3.4", "latest", "", "v", "1..2", "01.2"] {
        assert!(semver_of(text).is_err(), "{text}");
    }
}

#[test]
fn refusals_say_why() {
    let reason = line_of(&weather("2025.10.01"), &Value::Null).unwrap_err();
    assert!(reason.contains("not semver"), "{reason}");
    let mut bundle = weather("1.0.0");
    bundle["packages"][0]["registryType"] = json!("mcpb");
    let reason = line_of(&bundle, &Value::Null).unwrap_err();
    assert!(reason.contains("mcpb"), "{reason}");
    let err = manifest_text(
        &canonical(&bundle),
        "io.github.user/weather@1.0.0/server.json",
    )
    .unwrap_err()
    .to_string();
    assert!(
        err.contains("io.github.user/weather@1.0.0/server.json"),
        "{err}"
    );
    assert!(err.contains("cannot be installed"), "{err}");
}

#[test]
fn a_name_with_capitals_is_a_line_named_in_lowercase_and_pinned_to_the_document_as_published() {
    let mut doc = weather("1.0.0");
    doc["name"] = json!("io.github.GLips/Figma-Context-MCP");
    let line = line_of(&doc, &Value::Null).unwrap();
    assert_eq!(line.name, "io.github.glips/figma-context-mcp");
    assert_eq!(line.servers, ["figma-context-mcp"]);
    assert_eq!(line.cksum, sha256_hex(&canonical(&doc)));
    let text = manifest_text(&canonical(&doc), "label").unwrap();
    assert!(
        text.contains("name = \"io.github.glips/figma-context-mcp\""),
        "{text}"
    );
}

#[test]
fn a_recorded_spelling_must_be_the_name_in_another_case() {
    let home = tempfile::tempdir().unwrap();
    let registry = McpRegistry::open(OFFICIAL_URL, home.path(), Network::default()).unwrap();
    registry.remember_spelling("io.github.glips/figma", "io.github.GLips/Figma");
    registry.remember_spelling("io.github.acme/x", "io.github.evil/x");
    assert_eq!(
        registry.spelling_of("io.github.glips/figma"),
        "io.github.GLips/Figma"
    );
    assert_eq!(registry.spelling_of("io.github.acme/x"), "io.github.acme/x");
}

#[test]
fn the_api_version_is_v0_1_unless_the_url_names_one() {
    let home = tempfile::tempdir().unwrap();
    let open = |url: &str| McpRegistry::open(url, home.path(), Network::default()).unwrap();
    let official = open(OFFICIAL_URL);
    assert_eq!(official.prefix, "v0.1/");
    assert_eq!(
        official.source_id(),
        "mcp-registry+https://registry.modelcontextprotocol.io/"
    );
    assert_eq!(open("https://mirror.example/v0").prefix, "");
    assert_eq!(open("https://mirror.example/v0.1/").prefix, "");
    assert!(McpRegistry::open("ftp://x", home.path(), Network::default()).is_err());
}

#[test]
fn plain_names_are_not_looked_up() {
    let home = tempfile::tempdir().unwrap();
    let offline = Network {
        offline: true,
        ..Network::default()
    };
    let registry = McpRegistry::open("http://127.0.0.1:9/", home.path(), offline).unwrap();
    // No request (offline with an empty cache would be an error): the name cannot be there.
    assert!(registry.versions("figma").unwrap().is_none());
    let err = registry
        .versions("io.github.user/weather")
        .unwrap_err()
        .to_string();
    assert!(err.contains("package `io.github.user/weather`"), "{err}");
    assert!(err.contains("--offline"), "{err}");
}
