//! The size rules of the top floors, checked: commands stay thin and operations readable.
//!
//! `docs/architecture.md` says a command file turns its arguments into options, calls one
//! operation and prints; past a size, logic has crept back in. So no function in `src/commands`
//! or `src/ops` holds more than 80 lines of code, and no command file more than 120 (both count
//! lines that are not blank and not only a comment; unit tests at the end of a file and the
//! shared argument types of `commands/args.rs` aside).

use std::path::{Path, PathBuf};

#[path = "common/rust_files.rs"]
mod files;
use files::rust_files;

const MAX_FN_LINES: usize = 80;
const MAX_COMMAND_FILE_LINES: usize = 120;

/// A function longer than the rule allows: `file:line`, its name, its lines of code.
#[derive(Debug, PartialEq)]
struct Long {
    line: usize,
    name: String,
    lines: usize,
}

fn is_code(line: &str) -> bool {
    let t = line.trim();
    !t.is_empty() && !t.starts_with("//")
}

/// The code of a file without its unit tests (a `#[cfg(test)]` module at the end).
fn without_tests(text: &str) -> &str {
    match text.find("\n#[cfg(test)]\nmod ") {
        Some(at) => &text[..at],
        None => text,
    }
}

/// The name of the function a line starts (`fn`, `pub fn`, `pub(crate) async fn`, …).
fn fn_name(line: &str) -> Option<String> {
    let mut words = line.split_whitespace().peekable();
    while let Some(word) = words.next() {
        match word {
            "pub" | "async" | "const" | "unsafe" => continue,
            w if w.starts_with("pub(") => continue,
            "fn" => {
                let name = words.next()?;
                let end = name.find(['(', '<']).unwrap_or(name.len());
                return Some(name[..end].to_string());
            }
            _ => return None,
        }
    }
    None
}

/// Every function of `text` with more than `max` lines of code, from its `fn` line to the
/// closing brace at its own indentation.
fn long_functions(text: &str, max: usize) -> Vec<Long> {
    let lines: Vec<&str> = without_tests(text).lines().collect();
    let mut found = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let Some(name) = fn_name(line) else { continue };
        let trimmed = line.trim_end();
        if trimmed.ends_with(';') || (trimmed.ends_with('}') && trimmed.contains('{')) {
            continue;
        }
        let indent = &line[..line.len() - line.trim_start().len()];
        let close = format!("{indent}}}");
        let Some(end) = lines[i..].iter().position(|l| l.trim_end() == close) else {
            continue;
        };
        let code = lines[i..=i + end].iter().filter(|l| is_code(l)).count();
        if code > max {
            found.push(Long {
                line: i + 1,
                name,
                lines: code,
            });
        }
    }
    found
}

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

#[test]
fn no_function_of_commands_or_operations_is_over_80_lines() {
    let mut files = Vec::new();
    rust_files(&src().join("commands"), &mut files);
    rust_files(&src().join("ops"), &mut files);
    files.retain(|f| !f.ends_with("tests.rs"));
    assert!(files.len() > 60, "read {} files", files.len());
    let mut long = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        for f in long_functions(&text, MAX_FN_LINES) {
            let rel = file.strip_prefix(src()).unwrap().display().to_string();
            long.push(format!(
                "src/{rel}:{} `{}` has {} lines",
                f.line, f.name, f.lines
            ));
        }
    }
    assert!(
        long.is_empty(),
        "functions over {MAX_FN_LINES} lines of code (split out a step with a name):\n{}",
        long.join("\n")
    );
}

#[test]
fn no_command_file_is_over_120_lines() {
    let mut files = Vec::new();
    rust_files(&src().join("commands"), &mut files);
    files.retain(|f| !f.ends_with("tests.rs"));
    let mut long = Vec::new();
    for file in files.iter().filter(|f| !f.ends_with("args.rs")) {
        let text = std::fs::read_to_string(file).unwrap();
        let code = without_tests(&text).lines().filter(|l| is_code(l)).count();
        if code > MAX_COMMAND_FILE_LINES {
            long.push(format!("{} has {code} lines", file.display()));
        }
    }
    assert!(
        long.is_empty(),
        "command files over {MAX_COMMAND_FILE_LINES} lines of code (move logic into an operation):\n{}",
        long.join("\n")
    );
}

#[test]
fn a_long_function_is_caught() {
    let body: String = (0..81).map(|i| format!("    let x{i} = {i};\n")).collect();
    let text = format!(
        "/// doc\npub(crate) fn long_one(a: u8) -> u8 {{\n{body}    a\n}}\n\nfn short() {{}}\n\
         fn blank_and_comments() {{\n{}\n}}\n",
        "    // a comment\n\n".repeat(90)
    );
    let found = long_functions(&text, MAX_FN_LINES);
    assert_eq!(
        found,
        vec![Long {
            line: 2,
            name: "long_one".into(),
            lines: 84
        }]
    );
    // A method, indented, is measured to its own closing brace.
    let method = format!("impl X {{\n    fn m(&self) {{\n{body}    }}\n}}\n");
    assert_eq!(long_functions(&method, MAX_FN_LINES)[0].name, "m");
    // Unit tests at the end of a file are not measured.
    let tests = format!("fn ok() {{}}\n#[cfg(test)]\nmod tests {{\nfn t() {{\n{body}}}\n}}\n");
    assert_eq!(long_functions(&tests, MAX_FN_LINES), Vec::new());
}
