//! The index format: `config.json` and one file of JSON lines per package.

use semver::{Version, VersionReq};
use serde::{Deserialize, Serialize};

use super::RegistryError;

/// `config.json` at the root of an index.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RegistryConfig {
    /// Format version of the index.
    pub v: u32,
    /// Archive location relative to the index root, with `{name}` and `{version}` placeholders.
    pub dl: String,
}

impl Default for RegistryConfig {
    fn default() -> Self {
        RegistryConfig {
            v: 1,
            dl: "dl/{name}/{name}-{version}.tar.gz".to_string(),
        }
    }
}

impl RegistryConfig {
    /// Path of the archive of `name`@`version`, relative to the index root.
    pub fn archive_path(&self, name: &str, version: &Version) -> String {
        self.dl
            .replace("{name}", name)
            .replace("{version}", &version.to_string())
    }
}

/// One published version of one package: one line of an index file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct IndexLine {
    pub name: String,
    pub vers: Version,
    #[serde(default)]
    pub deps: Vec<IndexDep>,
    /// sha256 of the package archive, lowercase hex.
    pub cksum: String,
    #[serde(default)]
    pub yanked: bool,
    /// Names of the MCP servers this version declares, so collisions are found before download.
    #[serde(default)]
    pub servers: Vec<String>,
    /// The resources this version carries, as `skills.NAME`, `commands.NAME`, …, so the files
    /// they become are known before download.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resources: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub keywords: Vec<String>,
    /// Line format version.
    #[serde(default = "one")]
    pub v: u32,
}

fn one() -> u32 {
    1
}

/// A dependency edge of an index line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct IndexDep {
    pub name: String,
    pub req: VersionReq,
}

impl RegistryConfig {
    /// Checks what a reader and `registry build` rely on before turning `dl` into a file path:
    /// a format this dotpack understands, and an archive location that stays inside the index
    /// (relative, no `..`), so a hostile `config.json` cannot make dotpack read or write
    /// elsewhere.
    pub fn check(&self) -> Result<(), String> {
        if self.v != 1 {
            return Err(format!(
                "index format v{} is not supported by this dotpack (it reads v1); upgrade dotpack",
                self.v
            ));
        }
        if !self.dl.contains("{name}") || !self.dl.contains("{version}") {
            return Err(format!(
                "`dl` must contain {{name}} and {{version}}, found {:?}",
                self.dl
            ));
        }
        let escapes = self.dl.starts_with('/')
            || self.dl.contains('\\')
            || self.dl.contains(':')
            || self
                .dl
                .split('/')
                .any(|part| part.is_empty() || part == "..");
        if escapes {
            return Err(format!(
                "`dl` must be a relative path inside the index (no `..`, `:`, `\\` or empty parts), found {:?}",
                self.dl
            ));
        }
        Ok(())
    }
}

/// Where the index file of `name` lives, relative to the index root: `1/a`, `2/ab`, `3/a/abc`,
/// and `fi/gm/figma` for longer names. Names are lowercased, as in Cargo's sparse index.
///
/// Names are validated elsewhere; this never panics on any input (it counts characters, not
/// bytes) and returns an empty path for an empty name.
pub fn index_path(name: &str) -> String {
    let name = name.to_ascii_lowercase();
    let chars: Vec<char> = name.chars().collect();
    let part = |range: std::ops::Range<usize>| chars[range].iter().collect::<String>();
    match chars.len() {
        0 => String::new(),
        1 => format!("1/{name}"),
        2 => format!("2/{name}"),
        3 => format!("3/{}/{name}", part(0..1)),
        _ => format!("{}/{}/{name}", part(0..2), part(2..4)),
    }
}

/// Whether `name` can be turned into an index or archive path without escaping the index: ASCII
/// letters, digits, `-` and `_` only. Readers treat any other name as absent.
pub fn is_plain_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// Parses one index file: one JSON object per line, blank lines skipped. `label` names the file
/// in errors, which carry the 1-based line number.
pub fn parse_index_file(text: &str, label: &str) -> Result<Vec<IndexLine>, RegistryError> {
    let mut lines = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let parsed = serde_json::from_str(line).map_err(|e| RegistryError::BadIndexLine {
            file: label.to_string(),
            line: i + 1,
            reason: e.to_string(),
        })?;
        lines.push(parsed);
    }
    Ok(lines)
}

/// Renders index lines as a file: one compact JSON object per line, each ending in `\n`.
pub fn render_index_file(lines: &[IndexLine]) -> String {
    let mut out = String::new();
    for line in lines {
        // Serializing these plain structs cannot fail (string keys, no maps with odd keys).
        if let Ok(json) = serde_json::to_string(line) {
            out.push_str(&json);
            out.push('\n');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_paths_follow_cargo_sparse_layout() {
        assert_eq!(index_path("a"), "1/a");
        assert_eq!(index_path("ab"), "2/ab");
        assert_eq!(index_path("abc"), "3/a/abc");
        assert_eq!(index_path("figma"), "fi/gm/figma");
        assert_eq!(index_path("Figma"), "fi/gm/figma");
    }
}

#[cfg(test)]
mod more_tests {
    use super::*;

    #[test]
    fn index_path_never_panics_on_odd_names() {
        assert_eq!(index_path(""), "");
        assert_eq!(index_path("é"), "1/é");
        assert_eq!(index_path("éàü"), "3/é/éàü");
        assert_eq!(index_path("日本語のサーバ"), "日本/語の/日本語のサーバ");
    }

    #[test]
    fn plain_names_exclude_path_characters() {
        assert!(is_plain_name("figma-dev_2"));
        for bad in ["", "../x", "a/b", "a\\b", ".", "é"] {
            assert!(!is_plain_name(bad), "{bad}");
        }
    }

    #[test]
    fn parse_errors_name_file_and_line() {
        let good = r#"{"name":"a","vers":"1.0.0","cksum":"00"}"#;
        let text = format!("{good}\n\n{{not json\n");
        match parse_index_file(&text, "2/ab") {
            Err(RegistryError::BadIndexLine { file, line, .. }) => {
                assert_eq!((file.as_str(), line), ("2/ab", 3));
            }
            other => panic!("expected BadIndexLine, got {other:?}"),
        }
    }

    #[test]
    fn render_then_parse_round_trips() {
        let line = IndexLine {
            resources: Vec::new(),
            name: "figma".into(),
            vers: "0.3.1".parse().unwrap(),
            deps: vec![IndexDep {
                name: "time".into(),
                req: "^0.2".parse().unwrap(),
            }],
            cksum: "ab".into(),
            yanked: false,
            servers: vec!["figma".into()],
            description: Some("Figma".into()),
            keywords: vec![],
            v: 1,
        };
        let text = render_index_file(&[line.clone(), line.clone()]);
        assert_eq!(text.lines().count(), 2);
        assert!(text.ends_with("\"v\":1}\n"));
        assert_eq!(
            parse_index_file(&text, "f").unwrap(),
            vec![line.clone(), line]
        );
    }

    #[test]
    fn config_check_keeps_archives_inside_the_index() {
        assert!(RegistryConfig::default().check().is_ok());
        for dl in [
            "../{name}-{version}.tar.gz",
            "/abs/{name}-{version}",
            "dl//{name}-{version}",
            "c:/{name}{version}",
            "dl/{name}.tar.gz",
        ] {
            let config = RegistryConfig {
                v: 1,
                dl: dl.to_string(),
            };
            assert!(config.check().is_err(), "{dl}");
        }
        let newer = RegistryConfig {
            v: 2,
            ..RegistryConfig::default()
        };
        assert!(newer.check().unwrap_err().contains("v2"));
    }
}
