//! Every `.rs` file under a folder, for the tests that read the source (the arrows, the size
//! rules, the Unix-only calls).

use std::path::{Path, PathBuf};

/// Appends every `.rs` file under `dir` (recursively) to `out`; a folder that cannot be read
/// adds nothing.
pub fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}
