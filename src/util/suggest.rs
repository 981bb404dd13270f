//! "Did you mean": the closest known name to a misspelled one.

/// The candidate closest to `name`, if one is close enough to be a likely typo.
pub fn closest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    candidates
        .into_iter()
        .map(|c| (strsim::jaro_winkler(name, c), c))
        .filter(|(score, _)| *score > 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, c)| c)
}

/// Up to `n` candidates close to `name`, best first. Case does not count (an MCP Registry
/// spells `io.github.GLips/Figma-Context-MCP` what was typed `io.github.glips/figma-context`).
pub fn close_names<'a>(
    name: &str,
    candidates: impl IntoIterator<Item = &'a str>,
    n: usize,
) -> Vec<&'a str> {
    let name = name.to_lowercase();
    let mut scored: Vec<(f64, &str)> = candidates
        .into_iter()
        .map(|c| (c.to_lowercase(), c))
        .map(|(lower, c)| (strsim::jaro_winkler(&name, &lower), lower, c))
        .filter(|(score, lower, _)| *score > 0.8 || lower.contains(&name))
        .map(|(score, _, c)| (score, c))
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(b.1)));
    scored.into_iter().take(n).map(|(_, c)| c).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_a_typo() {
        assert_eq!(closest("figam", ["figma", "github"]), Some("figma"));
        assert_eq!(closest("zzz", ["figma", "github"]), None);
    }

    #[test]
    fn close_names_ignore_case() {
        assert_eq!(
            close_names(
                "io.github.glips/figma-context",
                ["io.github.GLips/Figma-Context-MCP", "com.example/weather"],
                3
            ),
            ["io.github.GLips/Figma-Context-MCP"]
        );
    }
}
