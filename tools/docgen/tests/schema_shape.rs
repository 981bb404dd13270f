//! The derived schema covers every field of the manifest types and every spelling of the concept
//! table, with the sections in the manifest's own order.

use std::collections::BTreeMap;

use dotpack::model::hosts::Scope;
use dotpack::model::manifest::{
    DependencySpec, DetailedDependency, HostDecl, Input, LauncherDecl, Manifest, PackageMeta,
    ProjectSettings, RegistryKind, RegistrySpec, Settings,
};
use dotpack::model::resources::ResourceDecl;
use serde_json::Value;

/// A manifest with every field of every section set. Adding a field to a manifest type breaks
/// this literal; the test below then checks that the derived schema knows the field.
fn every_field() -> Manifest {
    let resource = |path: &str| BTreeMap::from([("x".into(), ResourceDecl { path: path.into() })]);
    Manifest {
        package: Some(PackageMeta {
            name: "n".into(),
            version: semver::Version::new(1, 0, 0),
            description: Some("d".into()),
            keywords: vec!["k".into()],
            homepage: Some("h".into()),
            repository: Some("r".into()),
            license: Some("l".into()),
        }),
        project: Some(ProjectSettings {
            hosts: vec![
                HostDecl::Id("codex".into()),
                HostDecl::Detailed {
                    host: "cursor".into(),
                    scope: Some(Scope::User),
                    exclude: vec!["x".into()],
                    launcher: true,
                },
            ],
            scope: Some(Scope::Project),
            exclude: vec!["x".into()],
            allow_lossy: vec!["commands".into()],
            launcher: true,
            gateway: Some(dotpack::model::gateway::ProjectGateway(
                dotpack::model::gateway::Surface::Direct,
            )),
            gateway_lifecycle: Some(dotpack::model::gateway::Lifecycle::Eager),
        }),
        inputs: BTreeMap::from([(
            "port".into(),
            Input {
                description: Some("d".into()),
                default: Some(toml::Value::String("1".into())),
                required: true,
                secret: true,
                kind: Some("string".into()),
                allowed: Some(vec![toml::Value::String("1".into())]),
                pattern: Some("[0-9]+".into()),
                min: Some(1.0),
                max: Some(2.0),
                items: Some("string".into()),
            },
        )]),
        servers: BTreeMap::new(),
        dependencies: BTreeMap::from([
            ("a".into(), DependencySpec::Req("^1".parse().unwrap())),
            (
                "b".into(),
                DependencySpec::Detailed(DetailedDependency {
                    version: "^1".parse().unwrap(),
                    registry: Some("r".into()),
                    package: Some("B".into()),
                    set: BTreeMap::from([("k".into(), toml::Value::String("v".into()))]),
                    allow_lossy: vec!["cwd".into()],
                    launcher: LauncherDecl::Hosts(vec!["codex".into()]),
                    gateway: Some(dotpack::model::gateway::Surface::Proxy),
                    gateway_lifecycle: Some(dotpack::model::gateway::Lifecycle::KeepAlive),
                    scope: Some(Scope::User),
                    entries: BTreeMap::from([("mcp".into(), "b-mcp".into())]),
                }),
            ),
        ]),
        registries: BTreeMap::from([(
            "r".into(),
            RegistrySpec {
                path: Some("p".into()),
                url: None,
                kind: Some(RegistryKind::McpRegistry),
                token_env: None,
            },
        )]),
        settings: Some(Settings {
            keep_generations: Some(3),
            pin_tools: Some(true),
        }),
        skills: resource("skills/s"),
        commands: resource("commands/c.md"),
        agents: resource("agents/a.md"),
        rules: resource("rules/r.md"),
        memory: resource("memory/m.md"),
    }
}

/// The schema `schema` names, following `$ref`s into `root`'s definitions and through
/// `allOf` / `anyOf` wrappers.
fn options<'a>(root: &'a Value, schema: &'a Value) -> Vec<&'a Value> {
    if let Some(target) = schema.get("$ref").and_then(Value::as_str) {
        let name = target.trim_start_matches("#/definitions/");
        return options(root, &root["definitions"][name]);
    }
    let mut out = vec![schema];
    for key in ["allOf", "anyOf", "oneOf"] {
        for sub in schema
            .get(key)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            out.extend(options(root, sub));
        }
    }
    out
}

/// Whether the schema at `schema` declares the key path `path` (`*` for a named table's keys).
fn declares(root: &Value, schema: &Value, path: &[&str]) -> bool {
    let Some((first, rest)) = path.split_first() else {
        return true;
    };
    let (name, array) = match first.strip_suffix("[]") {
        Some(name) => (name, true),
        None => (*first, false),
    };
    options(root, schema).into_iter().any(|s| {
        let found = if name == "*" {
            s.get("additionalProperties")
        } else {
            s.get("properties").and_then(|p| p.get(name))
        };
        found.is_some_and(|f| {
            options(root, f).into_iter().any(|f| {
                let f = if array { &f["items"] } else { f };
                options(root, f)
                    .into_iter()
                    .any(|o| declares(root, o, rest))
            })
        })
    })
}

fn key_paths(value: &Value, at: &str, named: &[&str], out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                let segment = if named.contains(&at) { "*" } else { k.as_str() };
                let path = if at.is_empty() {
                    segment.to_string()
                } else {
                    format!("{at}.{segment}")
                };
                out.push(path.clone());
                key_paths(v, &path, named, out);
            }
        }
        Value::Array(items) => {
            for item in items {
                key_paths(item, &format!("{at}[]"), named, out);
            }
        }
        _ => {}
    }
}

#[test]
fn every_field_of_the_manifest_types_is_in_the_schema() {
    let value = serde_json::to_value(every_field()).unwrap();
    let mut paths = Vec::new();
    let named = [
        "inputs",
        "dependencies",
        "registries",
        "dependencies.*.set",
        "dependencies.*.entries",
        "skills",
        "commands",
        "agents",
        "rules",
        "memory",
    ];
    key_paths(&value, "", &named, &mut paths);
    let schema = dotpack_docgen::manifest_schema();
    for path in &paths {
        let parts: Vec<&str> = path.split('.').collect();
        assert!(
            declares(&schema, &schema, &parts),
            "the schema lacks `{path}`"
        );
    }
    assert!(paths.contains(&"project.hosts[].exclude".to_string()));
}

#[test]
fn every_spelling_of_the_concept_table_is_a_server_property() {
    let schema = dotpack_docgen::manifest_schema();
    let properties = schema["definitions"]["server"]["properties"]
        .as_object()
        .unwrap();
    let fields: Vec<&str> = dotpack::model::concepts::canonical_fields().collect();
    // Plus `bridge`, a server kind of its own, and `hosts`, where a server goes.
    assert_eq!(properties.len(), fields.len() + 2);
    assert!(properties.contains_key(dotpack::model::bridge_server::FIELD));
    assert!(properties.contains_key("hosts"));
    for field in fields {
        assert!(properties.contains_key(field), "{field}");
    }
}

#[test]
fn the_top_level_sections_are_the_manifests() {
    let schema = dotpack_docgen::manifest_schema();
    let sections: Vec<&String> = schema["properties"].as_object().unwrap().keys().collect();
    assert_eq!(
        sections,
        [
            "package",
            "project",
            "inputs",
            "servers",
            "dependencies",
            "registries",
            "settings",
            "skills",
            "commands",
            "agents",
            "rules",
            "memory"
        ]
    );
    assert_eq!(schema["additionalProperties"], Value::Bool(false));
    assert_eq!(schema["$schema"], "http://json-schema.org/draft-07/schema#");
}
