//! The index format: `config.json` and one file of JSON lines per package.

use semver::{Version, VersionReq};
use serde::{Deserialize, Serialize};

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

/// Where the index file of `name` lives, relative to the index root: `1/a`, `2/ab`, `3/a/abc`,
/// and `fi/gm/figma` for longer names. Names are lowercased, as in Cargo's sparse index.
pub fn index_path(name: &str) -> String {
    let name = name.to_ascii_lowercase();
    match name.len() {
        0 => String::new(),
        1 => format!("1/{name}"),
        2 => format!("2/{name}"),
        3 => format!("3/{}/{name}", &name[..1]),
        _ => format!("{}/{}/{name}", &name[..2], &name[2..4]),
    }
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
