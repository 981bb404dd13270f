//! The JSON Schema (draft-07) of `dotpack.toml`, for editors: taplo-based ones (Even Better TOML)
//! read it through the `#:schema` line `dotpack init` writes, and check a manifest as it is typed.
//!
//! Described once: the schema is derived from the manifest types themselves (`schemars`, behind
//! the `schema` feature), so each section, field and doc comment lives on its type. What a type
//! cannot say comes from the data it is built from, here: server fields from the concept table,
//! host ids from the host list, `allow_lossy` names from [`crate::model::concepts::lossy_names`].
//! `tools/docgen` generates `docs/dotpack.schema.json` and checks it is current; the library
//! embeds that file and writes it beside its state, where the `#:schema` line points.
//!
//! The schema says what an editor can check cheaply; `dotpack validate` remains the judge (it
//! also checks templates, secrets and transports against each field).

/// The schema's file name: beside dotpack's state, in the project's `.dotpack/` (or in
/// `$DOTPACK_HOME` for the user-level manifest), where every transaction puts the schema of the
/// dotpack that ran it (see `ops::schema_file`).
pub const SCHEMA_FILE: &str = "dotpack.schema.json";

/// The `#:schema` line `dotpack init` writes first: a path relative to the manifest (taplo reads
/// it so), the same on every machine, and a file that exists wherever dotpack has run. `global`:
/// the user-level manifest, which sits in `$DOTPACK_HOME` itself.
pub fn directive(global: bool) -> String {
    match global {
        true => format!("#:schema {SCHEMA_FILE}"),
        false => format!("#:schema .dotpack/{SCHEMA_FILE}"),
    }
}

/// The line `init` once wrote, pointing at a URL that does not exist; `validate` says to replace it.
pub const OLD_DIRECTIVE: &str =
    "#:schema https://raw.githubusercontent.com/dotpack/dotpack/main/docs/dotpack.schema.json";

/// Names of packages, servers, inputs and registries (as `validate::is_valid_name` checks).
pub const NAME_PATTERN: &str = "^[A-Za-z0-9][A-Za-z0-9_-]*$";

/// Package names: a plain name, or an MCP Registry name (as `validate::is_valid_package_name`).
pub const PACKAGE_NAME_PATTERN: &str =
    "^([A-Za-z0-9][A-Za-z0-9_-]*|[A-Za-z0-9][A-Za-z0-9.-]*/[A-Za-z0-9._-]+)$";

#[cfg(feature = "schema")]
pub use derived::*;

/// The parts of the schema the manifest types' derives call for (`schema_with`), and the one
/// hand-made type schema: a server, whose fields are the concept table's.
#[cfg(feature = "schema")]
mod derived {
    use std::borrow::Cow;

    use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
    use serde_json::{Map, Value, json};

    use crate::model::concepts::{CONCEPTS, ValueKind};
    use crate::model::hosts::ADAPTERS;
    use crate::model::manifest::Server;

    /// A host id of `[project] hosts`.
    pub fn host_id(_: &mut SchemaGenerator) -> Schema {
        let ids: Vec<&str> = ADAPTERS.iter().map(|h| h.id).collect();
        json_schema!({"type": "string", "enum": ids})
    }

    /// A dependency's `launcher = [...]`: host ids.
    pub fn host_ids(_: &mut SchemaGenerator) -> Schema {
        let ids: Vec<&str> = ADAPTERS.iter().map(|h| h.id).collect();
        json_schema!({"type": "array", "items": {"type": "string", "enum": ids}})
    }

    /// `allow_lossy = [...]`: the field names a project may accept dropping.
    pub fn lossy_names(_: &mut SchemaGenerator) -> Schema {
        json_schema!({"type": "array", "items": {"type": "string", "enum": crate::model::concepts::lossy_names()}})
    }

    /// Any TOML value (an input's default, a `set` value).
    pub fn any_value(_: &mut SchemaGenerator) -> Schema {
        json_schema!({"type": ["string", "number", "boolean", "array", "object"]})
    }

    /// An input's `enum`: the values allowed.
    pub fn any_list(_: &mut SchemaGenerator) -> Schema {
        json_schema!({"type": "array"})
    }

    /// `set = { NAME = VALUE }`.
    pub fn value_map(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "type": "object",
            "additionalProperties": {"type": ["string", "number", "boolean", "array", "object"]},
        })
    }

    /// An input's `type` or `items`.
    pub fn value_type(_: &mut SchemaGenerator) -> Schema {
        json_schema!({"enum": ["string", "number", "bool", "array", "object"]})
    }

    /// A semver requirement.
    pub fn version_req(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "type": "string",
            "description": "A semver requirement: `^1.2`, `~1.2.3`, `=1.0.0`, `>=1, <2` or `*`.",
        })
    }

    impl JsonSchema for Server {
        fn schema_name() -> Cow<'static, str> {
            "server".into()
        }

        fn json_schema(_: &mut SchemaGenerator) -> Schema {
            match server() {
                Value::Object(map) => Schema::from(map),
                _ => Schema::default(),
            }
        }
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
            ValueKind::BoolOrList => {
                json!({"anyOf": [{"type": "boolean"}, {"type": "array", "items": {"type": "string"}}]})
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
            crate::model::bridge_server::FIELD.to_string(),
            json!({"type": "string", "description": "A plain HTTP tool service (GET /tools, POST /call) served to hosts through `dotpack bridge URL` (docs/probe.md)."}),
        );
        properties.insert(
            "hosts".to_string(),
            json!({"type": "array", "items": {"type": "string", "enum": crate::model::hosts::ADAPTERS.iter().map(|h| h.id).collect::<Vec<_>>()}, "uniqueItems": true, "description": "The hosts this server is written into (default: every declared host); `init --import` sets it on a server read from a user-scope file."}),
        );
        json!({
            "type": "object",
            "description": "One MCP server: `command` (+ `args`, `env`) for a local process, `url` for a remote one, or `bridge` for a plain HTTP tool service; every other field is a canonical name from the concept table (docs/host-matrix.md).",
            "additionalProperties": false,
            "properties": properties,
            "oneOf": [{"required": ["command"]}, {"required": ["url"]}, {"required": [crate::model::bridge_server::FIELD]}],
        })
    }
}
