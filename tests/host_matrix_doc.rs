//! `docs/host-matrix.md` is generated from the concept table (its rows, and each adapter's cells),
//! so the documentation of which host can express which field never drifts from what dotpack
//! does. Run with `UPDATE_DOCS=1` to rewrite it after changing a row or a host's cells.

use dotpack::model::concepts::{CONCEPTS, Form};
use dotpack::model::hosts::ADAPTERS;

fn render() -> String {
    let hosts: Vec<&str> = ADAPTERS.iter().map(|a| a.id).collect();
    let mut out = String::from(
        "# Host matrix\n\n\
         Generated from the concept table (rows in `src/model/concepts/table.rs`, each host's cells in\n\
         its adapter, `src/model/hosts/HOST.rs`) by `tests/host_matrix_doc.rs`;\n\
         do not edit by hand (`UPDATE_DOCS=1 cargo test --test host_matrix_doc` rewrites it).\n\n\
         Each row is a field of `[servers.NAME]` in `dotpack.toml`. A cell names the field as the\n\
         host spells it; `-` means the host cannot express it, so installing there is lossy: the\n\
         install refuses unless `--allow-lossy` (or, for security-relevant fields, the field named\n\
         in `--allow-lossy=FIELD`). Core fields are never lossy. A few missing fields are still\n\
         expressed another way: `bearer_token_env_var`, `env_http_headers` and `env_vars` become\n\
         headers and `env` references on hosts that interpolate (see `docs/hosts.md`).\n\n",
    );
    out.push_str("| field | lossy | security |");
    for h in &hosts {
        out.push_str(&format!(" {h} |"));
    }
    out.push_str("\n| --- | --- | --- |");
    for _ in &hosts {
        out.push_str(" --- |");
    }
    out.push('\n');
    for concept in CONCEPTS {
        let mark = |b: bool| if b { "yes" } else { "" };
        out.push_str(&format!(
            "| `{}` | {} | {} |",
            concept.field,
            if concept.core {
                "core"
            } else {
                mark(concept.lossy)
            },
            mark(concept.security)
        ));
        for host in ADAPTERS {
            let cells: Vec<String> = host
                .cells_of(concept)
                .filter(|f| f.form != Form::Legacy)
                .map(|f| match f.form {
                    Form::Millis => format!("`{}` (ms)", f.field),
                    Form::Seconds => format!("`{}` (s)", f.field),
                    Form::Inverted => format!("`{}` (inverted)", f.field),
                    _ => format!("`{}`", f.field),
                })
                .collect();
            let cell = if cells.is_empty() {
                "-".to_string()
            } else {
                cells.join(", ")
            };
            out.push_str(&format!(" {cell} |"));
        }
        out.push('\n');
    }
    out
}

#[test]
fn host_matrix_doc_is_current() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/host-matrix.md");
    let want = render();
    if std::env::var_os("UPDATE_DOCS").is_some() {
        std::fs::write(&path, &want).unwrap();
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        have == want,
        "docs/host-matrix.md is out of date: run `UPDATE_DOCS=1 cargo test --test host_matrix_doc`"
    );
}
