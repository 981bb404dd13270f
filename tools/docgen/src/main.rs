//! `cargo run -p dotpack-docgen`: rewrites `docs/dotpack.schema.json` from the manifest types.

use std::path::Path;
use std::process::ExitCode;

fn main() -> ExitCode {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/dotpack.schema.json");
    match std::fs::write(&path, dotpack_docgen::render()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            let _ = std::io::Write::write_all(
                &mut std::io::stderr(),
                format!("error: cannot write {}: {e}\n", path.display()).as_bytes(),
            );
            ExitCode::FAILURE
        }
    }
}
