//! A published package's own manifest, read from its verified archive.
//!
//! Three things must agree before a package is used: the bytes the lock pinned (when there is a
//! lock), the registry's index line, and the archive's own `dotpack.toml`. The index is what
//! resolution and collision checks read; the archive is what gets installed; the lock is what the
//! user reviewed and committed. Any disagreement is an error naming both values.

use std::collections::{BTreeMap, BTreeSet};

use anyhow::{Context, Result, bail};
use semver::Version;

use super::archive::{package_manifest, sha256_hex};
use super::{ArchiveKind, IndexLine, IndexSource, RegistryError};
use crate::model::manifest::Manifest;

/// The checksum of `line` as `dotpack.lock` writes it: `sha256:` and lowercase hex.
pub fn pin_of(line: &IndexLine) -> String {
    format!("sha256:{}", line.cksum.to_ascii_lowercase())
}

/// Loads the manifest of `name` at `version` from `source`: the archive is fetched, checked
/// against the index's sha256, and its `dotpack.toml` parsed, validated and checked against the
/// index line.
pub fn load_package(source: &dyn IndexSource, name: &str, version: &Version) -> Result<Manifest> {
    let Some(lines) = source.versions(name)? else {
        bail!(
            "package `{name}` is not in the registry {}",
            source.source_id()
        );
    };
    let Some(line) = lines.iter().find(|l| &l.vers == version) else {
        crate::bail_help!(
            help = format!("run `dotpack update {name}` to pick a version that exists"),
            "{name} {version} is not in the registry {}",
            source.source_id()
        );
    };
    package_of_line(source, line, None)
}

/// Loads the manifest of `name` at `version` as `dotpack.lock` pins it, with checksum `pinned`
/// (`sha256:HEX`): the index must still list that checksum and the archive must hash to it, or
/// the error is [`RegistryError::LockedChecksumChanged`]. Nothing but `dotpack update` moves a pin.
pub fn load_locked(
    source: &dyn IndexSource,
    name: &str,
    version: &Version,
    pinned: &str,
) -> Result<Manifest> {
    load_locked_with_files(source, name, version, pinned).map(|(manifest, _)| manifest)
}

/// Checks that the index line `line` of registry `source_id` still lists the checksum the lock
/// pinned.
pub fn check_pin(source_id: &str, line: &IndexLine, pinned: &str) -> Result<(), RegistryError> {
    let found = pin_of(line);
    if found.eq_ignore_ascii_case(pinned) {
        return Ok(());
    }
    Err(RegistryError::LockedChecksumChanged {
        name: line.name.clone(),
        version: line.vers.to_string(),
        locked: pinned.to_string(),
        found: format!("the index of registry {source_id} now lists {found}"),
    })
}

/// The manifest of the version `line` describes: its archive fetched from `source` (verified
/// against `line.cksum` and, when the lock pins one, against `pinned` too), and its
/// `dotpack.toml` parsed, validated and checked to say what the index line says (name, version,
/// servers, dependencies).
pub fn package_of_line(
    source: &dyn IndexSource,
    line: &IndexLine,
    pinned: Option<&str>,
) -> Result<Manifest> {
    package_and_files_of_line(source, line, pinned).map(|(manifest, _)| manifest)
}

/// A locked package's manifest and the files of its resources (see [`load_locked`]).
pub fn load_locked_with_files(
    source: &dyn IndexSource,
    name: &str,
    version: &Version,
    pinned: &str,
) -> Result<(Manifest, crate::model::resources::Files)> {
    let lines = source.versions(name)?;
    let Some(line) = lines
        .as_deref()
        .and_then(|l| l.iter().find(|l| &l.vers == version))
    else {
        crate::bail_help!(
            help = format!("run `dotpack update {name}`"),
            "{name} {version} (pinned in dotpack.lock) is not in the registry {}",
            source.source_id()
        );
    };
    check_pin(source.source_id(), line, pinned)?;
    package_and_files_of_line(source, line, Some(pinned))
}

/// [`package_of_line`], with the files of the package's resources (by path inside the package),
/// each resource checked (`SKILL.md`, frontmatter, paths) against what the archive holds.
pub fn package_and_files_of_line(
    source: &dyn IndexSource,
    line: &IndexLine,
    pinned: Option<&str>,
) -> Result<(Manifest, crate::model::resources::Files)> {
    let (name, version) = (&line.name, &line.vers);
    let bytes = source.archive(line)?;
    if let Some(pinned) = pinned {
        let found = format!("sha256:{}", sha256_hex(&bytes));
        if !found.eq_ignore_ascii_case(pinned) {
            return Err(RegistryError::LockedChecksumChanged {
                name: name.clone(),
                version: version.to_string(),
                locked: pinned.to_string(),
                found: format!(
                    "the archive served by registry {} is {found}",
                    source.source_id()
                ),
            }
            .into());
        }
    }
    let (text, path, label) = match source.archive_kind() {
        ArchiveKind::TarGz => {
            let label = format!("{name}-{version}.tar.gz");
            let text = package_manifest(&bytes, &label)?;
            (text, format!("{label}/dotpack.toml"), label)
        }
        ArchiveKind::ServerJson => {
            // The manifest is not in the document: dotpack maps it, deterministically.
            let label = format!("{name}@{version}/server.json");
            let text = super::mcp::manifest_text(&bytes, &label)?;
            (text, label.clone(), label)
        }
    };
    let path = std::path::PathBuf::from(path);
    let loaded = crate::model::manifest::parse(&path, text)
        .with_context(|| format!("the manifest inside {label} is invalid"))?;
    check_matches_index(source.source_id(), line, &loaded.manifest)?;
    let mut files = crate::model::resources::Files::new();
    if !loaded.manifest.resources().is_empty() {
        files = crate::model::resources::files_of_archive(crate::registry::archive::read_files(
            &bytes, &label,
        )?);
        let diags = crate::model::validate::resources::check_files(
            &path,
            &loaded.text,
            &loaded.manifest,
            &files,
        );
        if !diags.is_empty() {
            return Err(anyhow::Error::new(crate::ui::diag::Diagnostics(diags)))
                .with_context(|| format!("the resources inside {label} are invalid"));
        }
    }
    Ok((loaded.manifest, files))
}

/// The archive's manifest must describe the version its index line describes: resolution,
/// collision checks and `dotpack.lock` are built from the index, installation from the archive.
pub fn check_matches_index(
    source_id: &str,
    line: &IndexLine,
    manifest: &Manifest,
) -> Result<(), RegistryError> {
    let mismatch = |field: &'static str, index: String, archive: String| {
        Err(RegistryError::IndexMismatch {
            source_id: source_id.to_string(),
            package: format!("{} {}", line.name, line.vers),
            field,
            index,
            archive,
        })
    };
    let Some(package) = &manifest.package else {
        return mismatch(
            "package name",
            format!("`{}`", line.name),
            "no [package] table".to_string(),
        );
    };
    if package.name != line.name {
        return mismatch(
            "package name",
            format!("`{}`", line.name),
            format!("`{}`", package.name),
        );
    }
    if package.version != line.vers {
        return mismatch(
            "version",
            line.vers.to_string(),
            package.version.to_string(),
        );
    }
    let index_servers: BTreeSet<&str> = line.servers.iter().map(String::as_str).collect();
    let archive_servers: BTreeSet<&str> = manifest.servers.keys().map(String::as_str).collect();
    if index_servers != archive_servers {
        return mismatch("servers", list(&index_servers), list(&archive_servers));
    }
    let index_resources: BTreeSet<String> = line.resources.iter().cloned().collect();
    let archive_resources: BTreeSet<String> = manifest
        .resources()
        .into_iter()
        .map(|(kind, name, _)| crate::model::resources::label(kind, name))
        .collect();
    if index_resources != archive_resources {
        let show = |set: &BTreeSet<String>| list(&set.iter().map(String::as_str).collect());
        return mismatch(
            "resources",
            show(&index_resources),
            show(&archive_resources),
        );
    }
    let index_deps: BTreeMap<&str, String> = line
        .deps
        .iter()
        .map(|d| (d.name.as_str(), d.req.to_string()))
        .collect();
    let archive_deps: BTreeMap<&str, String> = manifest
        .dependencies
        .iter()
        .map(|(name, spec)| (name.as_str(), spec.req().to_string()))
        .collect();
    if index_deps != archive_deps || index_deps.len() != line.deps.len() {
        return mismatch(
            "dependencies",
            deps_list(
                line.deps
                    .iter()
                    .map(|d| (d.name.as_str(), d.req.to_string())),
            ),
            deps_list(archive_deps.into_iter()),
        );
    }
    Ok(())
}

fn list(names: &BTreeSet<&str>) -> String {
    let quoted: Vec<String> = names.iter().map(|n| format!("\"{n}\"")).collect();
    format!("[{}]", quoted.join(", "))
}

fn deps_list<'a>(deps: impl Iterator<Item = (&'a str, String)>) -> String {
    let items: Vec<String> = deps
        .map(|(name, req)| format!("{name} = \"{req}\""))
        .collect();
    format!("{{ {} }}", items.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::IndexDep;

    fn line(servers: &[&str], deps: &[(&str, &str)]) -> IndexLine {
        IndexLine {
            resources: Vec::new(),
            name: "alpha".into(),
            vers: "1.0.0".parse().unwrap(),
            deps: deps
                .iter()
                .map(|(name, req)| IndexDep {
                    name: (*name).into(),
                    req: req.parse().unwrap(),
                })
                .collect(),
            cksum: "AB".into(),
            yanked: false,
            servers: servers.iter().map(|s| (*s).to_string()).collect(),
            description: None,
            keywords: vec![],
            v: 1,
        }
    }

    fn manifest(text: &str) -> Manifest {
        crate::model::manifest::parse(std::path::Path::new("dotpack.toml"), text.to_string())
            .unwrap()
            .manifest
    }

    const ALPHA: &str = "[package]\nname = \"alpha\"\nversion = \"1.0.0\"\n\n[servers.alpha]\ncommand = \"npx\"\nargs = []\n\n[dependencies]\nbeta = \"^1\"\n";

    fn mismatch(line: &IndexLine, text: &str) -> (&'static str, String, String) {
        match check_matches_index("registry+test", line, &manifest(text)) {
            Err(RegistryError::IndexMismatch {
                field,
                index,
                archive,
                ..
            }) => (field, index, archive),
            other => panic!("expected IndexMismatch, got {other:?}"),
        }
    }

    #[test]
    fn a_manifest_that_says_what_its_index_line_says_is_accepted() {
        let line = line(&["alpha"], &[("beta", "^1")]);
        check_matches_index("registry+test", &line, &manifest(ALPHA)).unwrap();
    }

    #[test]
    fn server_names_must_match_the_index() {
        let line = line(&["alpha"], &[("beta", "^1")]);
        let text = ALPHA.replace("[servers.alpha]", "[servers.figma]");
        let (field, index, archive) = mismatch(&line, &text);
        assert_eq!(field, "servers");
        assert_eq!(index, "[\"alpha\"]");
        assert_eq!(archive, "[\"figma\"]");
    }

    #[test]
    fn name_and_version_must_match_the_index() {
        let line = line(&["alpha"], &[("beta", "^1")]);
        let (field, index, archive) = mismatch(&line, &ALPHA.replace("\"alpha\"", "\"other\""));
        assert_eq!(
            (field, index.as_str(), archive.as_str()),
            ("package name", "`alpha`", "`other`")
        );
        let (field, index, archive) = mismatch(&line, &ALPHA.replace("1.0.0", "2.0.0"));
        assert_eq!(
            (field, index.as_str(), archive.as_str()),
            ("version", "1.0.0", "2.0.0")
        );
    }

    #[test]
    fn dependencies_must_match_the_index() {
        let line = line(&["alpha"], &[]);
        let (field, index, archive) = mismatch(&line, ALPHA);
        assert_eq!(field, "dependencies");
        assert_eq!(index, "{  }");
        assert_eq!(archive, "{ beta = \"^1\" }");
        let other_req = line_with_dep("^2");
        assert_eq!(mismatch(&other_req, ALPHA).0, "dependencies");
    }

    fn line_with_dep(req: &str) -> IndexLine {
        line(&["alpha"], &[("beta", req)])
    }

    #[test]
    fn the_error_names_registry_package_version_and_both_values() {
        let line = line(&["alpha"], &[("beta", "^1")]);
        let text = ALPHA.replace("[servers.alpha]", "[servers.figma]");
        let err = check_matches_index("registry+file:/r", &line, &manifest(&text))
            .unwrap_err()
            .to_string();
        for part in [
            "registry+file:/r",
            "alpha 1.0.0",
            "servers [\"alpha\"]",
            "[\"figma\"]",
        ] {
            assert!(err.contains(part), "{part} in {err}");
        }
    }

    #[test]
    fn a_pin_is_checked_against_the_index_line() {
        let line = line(&["alpha"], &[]);
        assert_eq!(pin_of(&line), "sha256:ab");
        check_pin("registry+test", &line, "sha256:ab").unwrap();
        let err = check_pin("registry+test", &line, "sha256:cd").unwrap_err();
        let text = err.to_string();
        assert!(matches!(err, RegistryError::LockedChecksumChanged { .. }));
        for part in [
            "checksum for `alpha v1.0.0` changed",
            "dotpack.lock pins sha256:cd",
            "the index of registry registry+test now lists sha256:ab",
            "dotpack update alpha",
        ] {
            assert!(text.contains(part), "{part} in {text}");
        }
    }

    /// A registry that serves whatever bytes it holds, checked against nothing: what
    /// [`load_locked`] must not rely on.
    struct Careless {
        lines: std::sync::Arc<Vec<IndexLine>>,
        bytes: Vec<u8>,
    }

    impl IndexSource for Careless {
        fn source_id(&self) -> &str {
            "registry+careless"
        }
        fn versions(
            &self,
            _: &str,
        ) -> Result<Option<std::sync::Arc<Vec<IndexLine>>>, RegistryError> {
            Ok(Some(self.lines.clone()))
        }
        fn names(&self) -> Result<Vec<String>, RegistryError> {
            Ok(vec!["alpha".into()])
        }
        fn archive(&self, _: &IndexLine) -> Result<Vec<u8>, RegistryError> {
            Ok(self.bytes.clone())
        }
    }

    #[test]
    fn locked_archives_are_checked_against_the_lock_not_only_the_index() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("dotpack.toml"), ALPHA).unwrap();
        let bytes = crate::registry::archive::pack(dir.path(), "alpha-1.0.0").unwrap();
        let pinned = format!("sha256:{}", sha256_hex(&bytes));
        let mut honest = line(&["alpha"], &[("beta", "^1")]);
        honest.cksum = sha256_hex(&bytes);
        let version = honest.vers.clone();
        let source = Careless {
            lines: std::sync::Arc::new(vec![honest]),
            bytes: bytes.clone(),
        };
        let manifest = load_locked(&source, "alpha", &version, &pinned).unwrap();
        assert!(manifest.servers.contains_key("alpha"));

        let other = Careless {
            bytes: b"other bytes".to_vec(),
            ..source
        };
        let err = load_locked(&other, "alpha", &version, &pinned).unwrap_err();
        let text = format!("{err:#}");
        assert!(
            text.contains("checksum for `alpha v1.0.0` changed"),
            "{text}"
        );
        assert!(
            text.contains("the archive served by registry registry+careless is sha256:"),
            "{text}"
        );
    }
}
