//! Rendering cost: every server of every curated package (`manifests/*/dotpack.toml`) translated
//! for every host, templates rendered with the packages' default inputs. Criterion reports the
//! time per (server, host) pair as throughput; it must be negligible next to a file write.
//! A second group renders the specification's largest template (typed props, nested loops).

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use dotpack::model::hosts::ADAPTERS;
use dotpack::model::manifest::{Manifest, Server};
use dotpack::template::{Context, EnvSyntax, Props, Value, render_for_host};

/// `(server name, server, props)` of every curated package; required inputs without a default
/// get a placeholder value.
fn curated() -> Vec<(String, Server, Props)> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("manifests");
    let mut dirs: Vec<_> = std::fs::read_dir(&root)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path().join("dotpack.toml"))
        .filter(|p| p.is_file())
        .collect();
    dirs.sort();
    let mut out = Vec::new();
    for path in dirs {
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let Ok(manifest) = toml::from_str::<Manifest>(&text) else {
            continue;
        };
        let mut props = Props::new();
        for (name, input) in &manifest.inputs {
            let value = match &input.default {
                Some(v) => dotpack::plan::desired::toml_to_json(v),
                None => Value::from("placeholder"),
            };
            props.insert(name.clone(), value);
        }
        for (name, server) in manifest.servers {
            out.push((name, server, props.clone()));
        }
    }
    out
}

fn every_package_for_every_host(c: &mut Criterion) {
    let servers = curated();
    let pairs = servers.len() * ADAPTERS.len();
    let mut group = c.benchmark_group("render");
    group.throughput(Throughput::Elements(pairs as u64));
    group.bench_function(
        format!("{} servers x {} hosts", servers.len(), ADAPTERS.len()),
        |b| {
            b.iter(|| {
                let mut written = 0usize;
                for host in ADAPTERS {
                    for (name, server, props) in &servers {
                        if dotpack::plan::to_host::translate(host, name, server, props).is_ok() {
                            written += 1;
                        }
                    }
                }
                black_box(written)
            })
        },
    );
    group.finish();
}

const PROMPT: &str = "Task: {{props.task_type}}
@for(i in range(1, props.step_count + 1))
Step {{i}}:
  @if(props.steps[i - 1])
  {{props.steps[i - 1]}}
  @else
  (Step not defined)
  @endif
@endfor
@foreach(resource in props.resources)
- {{resource.name}} ({{resource.type}}): {{resource.url}} {{env.TOKEN}}
@endforeach
";

fn specification_template(c: &mut Criterion) {
    let props: Props = [
        ("task_type", serde_json::json!("review")),
        ("step_count", serde_json::json!(10)),
        (
            "steps",
            serde_json::json!(["a", "b", "c", "d", "e", "f", "g", "h"]),
        ),
        (
            "resources",
            serde_json::json!((0..10)
                .map(|i| serde_json::json!({"name": format!("r{i}"), "type": "doc", "url": "https://x"}))
                .collect::<Vec<_>>()),
        ),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    let cx = Context::for_host(&props, "claude-code");
    c.bench_function("render/complex template", |b| {
        b.iter(|| render_for_host(black_box(PROMPT), &cx, EnvSyntax::DollarBrace))
    });
}

criterion_group!(
    benches,
    every_package_for_every_host,
    specification_template
);
criterion_main!(benches);
