//! Which of the service's tools the bridge serves: a server's `enabled_tools` and
//! `disabled_tools`, enforced by the bridge itself, so a host that cannot express them loses
//! nothing.

/// The tools the bridge serves: those `enabled` (every tool when `None`), less those
/// `disabled` — the deny list applies after the allow list, as Codex, Gemini CLI and pi read
/// them. A name may hold the wildcards `*` (any run of characters) and `?` (any one
/// character), as pi and Hermes read them; every other character matches itself.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ToolFilter {
    pub enabled: Option<Vec<String>>,
    pub disabled: Vec<String>,
}

impl ToolFilter {
    /// Whether the tool `name` is served.
    pub fn allows(&self, name: &str) -> bool {
        let enabled = match &self.enabled {
            None => true,
            Some(patterns) => patterns.iter().any(|p| matches(p, name)),
        };
        enabled && !self.disabled.iter().any(|p| matches(p, name))
    }
}

/// Whether `name` matches `pattern` (`*` and `?` wildcards). Linear in the pattern times the
/// name at worst: the matcher backtracks only to the last `*`, so a pattern from a package
/// cannot make one name take seconds.
pub fn matches(pattern: &str, name: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = name.chars().collect();
    let (mut pi, mut ti) = (0, 0);
    // Where the last `*` was, and the position in the name it has absorbed up to.
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        match p.get(pi) {
            Some('*') => {
                star = Some((pi, ti));
                pi += 1;
            }
            Some(&c) if c == '?' || c == t[ti] => {
                pi += 1;
                ti += 1;
            }
            _ => match star {
                Some((spi, sti)) => {
                    pi = spi + 1;
                    ti = sti + 1;
                    star = Some((spi, sti + 1));
                }
                None => return false,
            },
        }
    }
    p[pi..].iter().all(|&c| c == '*')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn filter(enabled: Option<&[&str]>, disabled: &[&str]) -> ToolFilter {
        ToolFilter {
            enabled: enabled.map(|e| e.iter().map(|s| s.to_string()).collect()),
            disabled: disabled.iter().map(|s| s.to_string()).collect(),
        }
    }

    #[test]
    fn the_deny_list_applies_after_the_allow_list() {
        assert!(filter(None, &[]).allows("anything"));
        let f = filter(Some(&["read_*", "search"]), &["read_secret"]);
        assert!(f.allows("search") && f.allows("read_file"));
        assert!(!f.allows("read_secret") && !f.allows("write") && !f.allows("searches"));
        assert!(!filter(Some(&[]), &[]).allows("search"));
        assert!(!filter(None, &["*"]).allows("search"));
    }

    #[test]
    fn wildcards_match_runs_and_single_characters() {
        assert!(matches("a?c", "abc") && !matches("a?c", "ac"));
        assert!(matches("*", "") && matches("a*b*c", "axxbyyc") && !matches("a*b", "ab_c"));
        assert!(matches("[x]", "[x]") && !matches("[x]", "x"));
        let long = "a".repeat(40);
        assert!(!matches(&format!("{}b", "*a".repeat(20)), &long));
    }
}
