//! What dotpack's docs carry that is generated, not written: the JSON Schema of `dotpack.toml`
//! (`docs/dotpack.schema.json`), derived from the manifest types with `schemars`. A dev tool, so
//! the generator does not ship in dotpack itself; `cargo run -p dotpack-docgen` rewrites the
//! file and `cargo test --workspace` checks it is current.

use schemars::Schema;
use schemars::generate::SchemaSettings;
use schemars::transform::{Transform, transform_subschemas};
use serde_json::Value;

use dotpack::model::manifest::Manifest;

/// The schema of `dotpack.toml`, draft-07 (what taplo reads).
pub fn manifest_schema() -> Value {
    let mut schema = SchemaSettings::draft07()
        .into_generator()
        .into_root_schema_for::<Manifest>();
    Tidy.transform(&mut schema);
    schema.to_value()
}

/// The schema as `docs/dotpack.schema.json` holds it: pretty, two-space indent, final newline.
pub fn render() -> String {
    let mut text = serde_json::to_string_pretty(&manifest_schema()).unwrap_or_default();
    text.push('\n');
    text
}

/// TOML has no null and editors show defaults from the docs: a field that may be left out is
/// described by its type alone, not as "T or null" with a `default`.
struct Tidy;

impl Transform for Tidy {
    fn transform(&mut self, schema: &mut Schema) {
        if let Some(map) = schema.as_object_mut() {
            map.remove("default");
            if let Some(Value::Array(types)) = map.get_mut("type") {
                types.retain(|t| t != "null");
                if types.len() == 1 {
                    let only = types.remove(0);
                    map.insert("type".into(), only);
                }
            }
            if let Some(Value::Array(options)) = map.get_mut("anyOf") {
                options.retain(|o| o.get("type").and_then(Value::as_str) != Some("null"));
                if options.len() == 1 {
                    let only = options.remove(0);
                    map.remove("anyOf");
                    map.insert("allOf".into(), Value::Array(vec![only]));
                }
            }
        }
        transform_subschemas(self, schema);
    }
}
