//! A JSON Schema (draft-07) for `dotpack.toml`, for editors: taplo-based ones (Even Better TOML)
//! read it through the `#:schema` line `dotpack init` writes, and check a manifest as it is typed.
//!
//! Generated, never written by hand: the server fields, their value shapes and descriptions come
//! from the concept table, host ids from the host list, scopes from [`Scope`], and `allow_lossy`
//! names from [`crate::concepts::lossy_names`]. The sections mirror [`crate::manifest::Manifest`];
//! a test serializes a manifest with every field set and fails when the schema misses one.
//! `docs/dotpack.schema.json` is this value, checked by `tests/schema_doc.rs`.
//!
//! The schema says what an editor can check cheaply; `dotpack validate` remains the judge (it
//! also checks templates, secrets and transports against each field).

use clap::ValueEnum;
use serde_json::{Map, Value, json};

use crate::concepts::{CONCEPTS, HOSTS, ValueKind};
use crate::hosts::Scope;

/// Where the schema is published: the checked-in file on the main branch.
pub const SCHEMA_URL: &str =
    "https://raw.githubusercontent.com/dotpack/dotpack/main/docs/dotpack.schema.json";

/// The line that points taplo at [`SCHEMA_URL`]; `dotpack init` writes it first.
pub fn directive() -> String {
    format!("#:schema {SCHEMA_URL}")
}

/// Names of packages, servers, inputs and registries (as `validate::is_valid_name` checks).
const NAME_PATTERN: &str = "^[A-Za-z0-9][A-Za-z0-9_-]*$";

/// Package names: a plain name, or an MCP Registry name (as `validate::is_valid_package_name`).
const PACKAGE_NAME_PATTERN: &str =
    "^([A-Za-z0-9][A-Za-z0-9_-]*|[A-Za-z0-9][A-Za-z0-9.-]*/[A-Za-z0-9._-]+)$";

/// A semver version: `1.2.3`, `1.0.0-beta.2`, `1.0.0+build`.
const VERSION_PATTERN: &str =
    r"^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$";

/// The schema of `dotpack.toml`.
pub fn manifest_schema() -> Value {
    json!({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "$id": SCHEMA_URL,
        "title": "dotpack.toml",
        "description": "A dotpack manifest: a project's MCP server packages, or a published package. Generated from dotpack's manifest types and concept table.",
        "type": "object",
        "additionalProperties": false,
        "properties": {
            "package": package(),
            "project": project(),
            "inputs": named("Values a user may set when installing (`--set NAME=VALUE`), referenced as `{{props.NAME}}`.", input()),
            "servers": named("MCP servers this manifest declares, in canonical form; dotpack writes each host's own spelling.", json!({"$ref": "#/definitions/server"})),
            "dependencies": dependencies(),
            "registries": named("Extra registries by name, for `registry = \"NAME\"` on a dependency.", registry()),
            "settings": settings(),
            "skills": named("Skills: folders holding SKILL.md (frontmatter `name`, `description`), installed into each host's skills folder.", resource("A folder inside the package holding SKILL.md, e.g. `skills/pr-review`.")),
            "commands": named("Slash commands: markdown prompts (frontmatter `description`, `argument-hint`), written in each host's command format.", resource("A markdown file inside the package, e.g. `commands/review.md`.")),
            "agents": named("Subagents: markdown with frontmatter `name`, `description`, `tools`, `model`.", resource("A markdown file inside the package, e.g. `agents/triager.md`.")),
            "rules": named("Rules: markdown guidance with frontmatter `description`, `globs`, `always`.", resource("A markdown file inside the package, e.g. `rules/style.md`.")),
            "memory": named("Memory snippets: markdown written as a managed block into AGENTS.md, CLAUDE.md or GEMINI.md.", resource("A markdown file inside the package, e.g. `memory/conventions.md`.")),
        },
        "definitions": {
            "server": server(),
        },
    })
}

fn string(description: &str) -> Value {
    json!({"type": "string", "description": description})
}

fn string_list(description: &str) -> Value {
    json!({"type": "array", "items": {"type": "string"}, "description": description})
}

fn name_list(description: &str) -> Value {
    json!({"type": "array", "items": {"type": "string", "pattern": NAME_PATTERN}, "description": description})
}

/// A table of named tables (`[servers.NAME]`), names checked.
fn named(description: &str, entry: Value) -> Value {
    json!({
        "type": "object",
        "description": description,
        "propertyNames": {"pattern": NAME_PATTERN},
        "additionalProperties": entry,
    })
}

fn strict(description: &str, properties: Value) -> Value {
    json!({
        "type": "object",
        "description": description,
        "additionalProperties": false,
        "properties": properties,
    })
}

fn scope() -> Value {
    let names: Vec<String> = Scope::value_variants()
        .iter()
        .filter_map(|s| s.to_possible_value())
        .map(|v| v.get_name().to_string())
        .collect();
    json!({"type": "string", "enum": names, "description": "`project` (files inside the project) or `user` (your own files in your home folder)."})
}

fn host_id() -> Value {
    let ids: Vec<&str> = HOSTS.iter().map(|h| h.id).collect();
    json!({"type": "string", "enum": ids})
}

fn package() -> Value {
    let mut table = strict(
        "What a published package says about itself.",
        json!({
            "name": {"type": "string", "pattern": PACKAGE_NAME_PATTERN, "description": "The package name: letters, digits, `-` and `_`, starting with a letter or digit; or an MCP Registry name, `namespace/name`."},
            "version": {"type": "string", "pattern": VERSION_PATTERN, "description": "A full semver version, such as `0.3.1`."},
            "description": string("One line saying what the package's servers do."),
            "keywords": string_list("Words `dotpack search` matches."),
            "homepage": string("The package's home page."),
            "repository": string("Where the package's source lives."),
            "license": string("An SPDX license expression."),
        }),
    );
    table["required"] = json!(["name", "version"]);
    table
}

fn project() -> Value {
    let mut detailed = strict(
        "A host with its own scope or exclusions.",
        json!({
            "host": host_id(),
            "scope": scope(),
            "exclude": name_list("Packages or servers not installed into this host (`dotpack uninstall NAME --host H`)."),
        }),
    );
    detailed["required"] = json!(["host"]);
    strict(
        "Where this project installs its servers.",
        json!({
            "hosts": {
                "type": "array",
                "description": "The hosts whose config files dotpack writes (`dotpack hosts` lists them).",
                "items": {"anyOf": [host_id(), detailed]},
            },
            "scope": scope(),
            "exclude": name_list("Packages or servers this project installs into no host (`dotpack uninstall NAME`)."),
        }),
    )
}

fn input() -> Value {
    strict(
        "A value the user supplies at install time.",
        json!({
            "description": string("What the value is for, shown by `dotpack info`."),
            "default": {"type": ["string", "number", "boolean", "array", "object"], "description": "The value when none is set."},
            "required": {"type": "boolean", "description": "`dotpack add` fails until a value is set."},
            "secret": {"type": "boolean", "description": "Never written to the lock or claims; give it as `{{env.NAME}}`."},
            "type": {"enum": ["string", "number", "bool", "array", "object"], "description": "The value's type; inferred from `default` when absent."},
            "enum": {"type": "array", "description": "The values allowed."},
            "pattern": string("A regular expression a text (or every text item of a list) must match, whole."),
            "min": {"type": "number", "description": "Lower bound: a number's value, a text's length, a list's number of items."},
            "max": {"type": "number", "description": "Upper bound: a number's value, a text's length, a list's number of items."},
            "items": {"enum": ["string", "number", "bool", "array", "object"], "description": "The type of a list's items."},
        }),
    )
}

fn dependencies() -> Value {
    let requirement = json!({
        "type": "string",
        "description": "A semver requirement: `^1.2`, `~1.2.3`, `=1.0.0`, `>=1, <2` or `*`.",
    });
    let mut detailed = strict(
        "A dependency with options.",
        json!({
            "version": requirement,
            "registry": string("A registry declared under [registries]; the default registry when absent."),
            "set": {
                "type": "object",
                "description": "Input values for the package (`--set NAME=VALUE`).",
                "additionalProperties": {"type": ["string", "number", "boolean", "array", "object"]},
            },
            "allow_lossy": {
                "type": "array",
                "description": "Fields this project accepts dropping for this package where a host cannot express them.",
                "items": {"type": "string", "enum": crate::concepts::lossy_names()},
            },
            "scope": scope(),
        }),
    );
    detailed["required"] = json!(["version"]);
    let mut table = named(
        "Packages this project installs, each with a semver requirement.",
        json!({"anyOf": [requirement, detailed]}),
    );
    table["propertyNames"] = json!({"pattern": PACKAGE_NAME_PATTERN});
    table
}

fn registry() -> Value {
    let mut table = strict(
        "A registry index in a local folder or at an http(s) URL.",
        json!({
            "path": string("A folder holding an index, relative to this manifest's folder."),
            "url": {"type": "string", "pattern": "^https?://", "description": "A base URL serving an index as static files, or the MCP Registry API (`kind = \"mcp-registry\"`)."},
            "kind": {"enum": crate::manifest::RegistryKind::NAMES, "description": "What `url` serves: `dotpack` (the default), dotpack's own index, or `mcp-registry`, the MCP Registry API (https://registry.modelcontextprotocol.io or a mirror)."},
            "token_env": {"type": "string", "pattern": "^[A-Za-z_][A-Za-z0-9_]*$", "description": "With `url`: the environment variable holding a bearer token for this registry, sent only to its scheme, host and port."},
        }),
    );
    table["oneOf"] = json!([{"required": ["path"]}, {"required": ["url"]}]);
    table
}

/// `[skills.NAME]` and the other resource kinds: a `path` inside the package.
fn resource(path: &str) -> Value {
    let mut schema = strict(
        "A resource the package carries (see docs/resources.md).",
        json!({
            "path": {
                "type": "string",
                "minLength": 1,
                "pattern": "^[^/\\\\:][^\\\\:]*$",
                "not": {"pattern": "(^|/)\\.\\.?(/|$)"},
                "description": path,
            },
        }),
    );
    schema["required"] = json!(["path"]);
    schema
}

fn settings() -> Value {
    strict(
        "Settings of dotpack itself.",
        json!({
            "keep_generations": {
                "type": "integer",
                "minimum": 0,
                "maximum": u32::MAX,
                "description": "How many generations `dotpack gc` keeps.",
            },
            "pin_tools": {
                "type": "boolean",
                "description": "`dotpack lock` records the tools of every server (see `dotpack lock --pin-tools`).",
            },
        }),
    )
}

/// The JSON Schema shape of a concept-table value kind.
fn kind(kind: ValueKind) -> Value {
    match kind {
        ValueKind::String => json!({"type": "string"}),
        ValueKind::Bool => json!({"type": "boolean"}),
        ValueKind::Integer => json!({"type": "integer"}),
        ValueKind::Number => json!({"type": "number"}),
        ValueKind::StringList => json!({"type": "array", "items": {"type": "string"}}),
        ValueKind::StringMap => {
            json!({"type": "object", "additionalProperties": {"type": "string"}})
        }
        ValueKind::Table => json!({"type": "object"}),
        ValueKind::List => {
            json!({"type": "array", "items": {"type": ["string", "object"]}})
        }
        ValueKind::BoolOrString => json!({"type": ["boolean", "string"]}),
        ValueKind::StringOrList => {
            json!({"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]})
        }
    }
}

/// `[servers.NAME]`: one property per canonical spelling of each concept, and exactly one
/// transport (`command` or `url`).
fn server() -> Value {
    let mut properties = Map::new();
    for concept in CONCEPTS {
        for field in concept.canonical_fields() {
            let mut shape = kind(concept.kind);
            let mut description = concept.description.to_string();
            if field != concept.field {
                description.push_str(&format!(" (`{}` is preferred)", concept.field));
            }
            if concept.security {
                description.push_str(" Security-relevant: a host that cannot express it needs `--allow-lossy=FIELD` named.");
            }
            shape["description"] = json!(description);
            properties.insert(field.to_string(), shape);
        }
    }
    properties.insert(
        crate::bridged::FIELD.to_string(),
        json!({"type": "string", "description": "A plain HTTP tool service (GET /tools, POST /call) served to hosts through `dotpack bridge URL` (docs/probe.md)."}),
    );
    json!({
        "type": "object",
        "description": "One MCP server: `command` (+ `args`, `env`) for a local process, `url` for a remote one, or `bridge` for a plain HTTP tool service; every other field is a canonical name from the concept table (docs/host-matrix.md).",
        "additionalProperties": false,
        "properties": properties,
        "oneOf": [{"required": ["command"]}, {"required": ["url"]}, {"required": [crate::bridged::FIELD]}],
    })
}

/// The schema as `docs/dotpack.schema.json` holds it: pretty, two-space indent, final newline.
pub fn render() -> String {
    let mut text = serde_json::to_string_pretty(&manifest_schema()).unwrap_or_default();
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::manifest::{
        DependencySpec, DetailedDependency, HostDecl, Input, Manifest, PackageMeta,
        ProjectSettings, RegistryKind, RegistrySpec, Settings,
    };

    /// A manifest with every field of every section set. Adding a field to a manifest type
    /// breaks this literal; the test below then fails until the schema knows the field.
    fn every_field() -> Manifest {
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
                    },
                ],
                scope: Some(Scope::Project),
                exclude: vec!["x".into()],
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
                        set: BTreeMap::from([("k".into(), toml::Value::String("v".into()))]),
                        allow_lossy: vec!["cwd".into()],
                        scope: Some(Scope::User),
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

    fn resource(path: &str) -> BTreeMap<String, crate::resources::ResourceDecl> {
        BTreeMap::from([(
            "x".into(),
            crate::resources::ResourceDecl { path: path.into() },
        )])
    }

    /// Every key path of `value` (`project.hosts[].scope`), map keys of named tables as `*`.
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

    /// Whether the schema at `schema` declares the property path `path`.
    fn declares(schema: &Value, path: &[&str]) -> bool {
        let Some((first, rest)) = path.split_first() else {
            return true;
        };
        let (name, array) = match first.strip_suffix("[]") {
            Some(name) => (name, true),
            None => (*first, false),
        };
        let candidates: Vec<&Value> = if name == "*" {
            schema.get("additionalProperties").into_iter().collect()
        } else {
            schema
                .get("properties")
                .and_then(|p| p.get(name))
                .into_iter()
                .collect()
        };
        candidates.into_iter().any(|s| {
            let s = if array { &s["items"] } else { s };
            let options: Vec<&Value> = match s.get("anyOf").and_then(Value::as_array) {
                Some(options) => options.iter().collect(),
                None => vec![s],
            };
            options.iter().any(|o| declares(o, rest))
        })
    }

    #[test]
    fn every_field_of_the_manifest_types_is_in_the_schema() {
        let value = serde_json::to_value(every_field()).unwrap();
        let mut paths = Vec::new();
        key_paths(
            &value,
            "",
            &[
                "inputs",
                "dependencies",
                "registries",
                "dependencies.*.set",
                "skills",
                "commands",
                "agents",
                "rules",
                "memory",
            ],
            &mut paths,
        );
        let schema = manifest_schema();
        for path in &paths {
            let parts: Vec<&str> = path.split('.').collect();
            assert!(declares(&schema, &parts), "the schema lacks `{path}`");
        }
        assert!(paths.contains(&"project.hosts[].exclude".to_string()));
    }

    #[test]
    fn every_spelling_of_the_concept_table_is_a_server_property() {
        let schema = manifest_schema();
        let properties = schema["definitions"]["server"]["properties"]
            .as_object()
            .unwrap();
        let fields: Vec<&str> = crate::concepts::canonical_fields().collect();
        // Plus `bridge`, a server kind of its own (`crate::bridged`).
        assert_eq!(properties.len(), fields.len() + 1);
        assert!(properties.contains_key(crate::bridged::FIELD));
        for field in fields {
            assert!(properties.contains_key(field), "{field}");
        }
    }

    #[test]
    fn the_top_level_sections_are_the_manifests() {
        let schema = manifest_schema();
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
    }
}
