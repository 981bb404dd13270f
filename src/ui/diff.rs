//! Unified diffs of a file's old and new text, as `--dry-run` shows them.

/// A unified diff of `old` -> `new`, labelled with `path` (`a/PATH`, `b/PATH`), three lines of
/// context.
pub fn unified(path: &str, old: &str, new: &str) -> String {
    similar::TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(3)
        .header(&format!("a/{path}"), &format!("b/{path}"))
        .to_string()
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_diff_names_the_file_on_both_sides_and_marks_the_changed_line() {
        let diff = super::unified(".mcp.json", "a\nb\n", "a\nc\n");
        assert!(
            diff.starts_with("--- a/.mcp.json\n+++ b/.mcp.json\n"),
            "{diff}"
        );
        assert!(diff.contains("-b\n+c\n"), "{diff}");
        assert_eq!(super::unified("f", "same\n", "same\n"), "");
    }
}
