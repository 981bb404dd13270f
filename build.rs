//! Rebuilds the binary whenever the embedded registry index (`registry-index/`) changes:
//! `include_dir!` cannot tell Cargo which files it read on stable Rust.

// Cargo reads a build script's instructions from its stdout.
#![allow(clippy::print_stdout)]

fn main() {
    println!("cargo:rerun-if-changed=registry-index");
    println!("cargo:rerun-if-changed=build.rs");
}
