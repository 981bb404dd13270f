//! What a registry says of a package name, as errors name it: a name it does not have (with
//! close names), a package whose every version dotpack refuses, the newer versions resolution
//! skipped because dotpack refuses them, the versions it lists.

use anyhow::Result;

use crate::model::lock::Lockfile;
use crate::registry::{ArchiveKind, IndexLine, IndexSource, Refusal};
use crate::resolve::RegistrySet;

/// The `kind = "mcp-registry"` registries under `[registries]`, in order, for the MCP Registry
/// name `name`: an error saying how to declare one when there is none.
pub fn mcp_registries<'r>(
    registries: &'r RegistrySet,
    name: &str,
) -> Result<Vec<(&'r str, &'r dyn IndexSource)>> {
    let found: Vec<(&str, &dyn IndexSource)> = registries
        .named_all()
        .filter(|(_, source)| source.archive_kind() == ArchiveKind::ServerJson)
        .collect();
    if found.is_empty() {
        crate::bail_help!(
            help = format!(
                "add to dotpack.toml\n\n    [registries]\n    mcp = {{ url = \"{}\", kind = \"mcp-registry\" }}\n",
                crate::registry::mcp::OFFICIAL_URL
            ),
            "`{name}` is an MCP Registry name, and no registry under [registries] is an MCP registry"
        );
    }
    Ok(found)
}

/// The error for a package whose every version the registry lists is one dotpack refuses.
pub fn refused_message(name: &str, source: &dyn IndexSource, refused: &[Refusal]) -> String {
    let reasons: Vec<String> = refused
        .iter()
        .map(|r| format!("  {name} {}: {}", r.version, r.reason))
        .collect();
    format!(
        "`{name}` cannot be installed from the registry {}: dotpack installs nothing it cannot map without loss\n{}",
        source.source_id(),
        reasons.join("\n")
    )
}

/// The error for a package the registry does not have, with close names when there are some.
pub fn unknown_package(name: &str, source: &dyn IndexSource) -> Result<String> {
    // A registry that searches itself is asked one narrow question instead of listed whole
    // (`IndexSource::suggestion_candidates`). Suggestions are a courtesy: offline or failing,
    // the error stays the same.
    let names = source.suggestion_candidates(name).unwrap_or_default();
    // The name that failed is no suggestion, in whatever case the registry spells it.
    let close = crate::util::suggest::close_names(
        name,
        names
            .iter()
            .map(String::as_str)
            .filter(|n| !n.eq_ignore_ascii_case(name)),
        3,
    );
    let help = if close.is_empty() {
        "search the registry with `dotpack search WORDS`".to_string()
    } else {
        format!(
            "did you mean {}?",
            close
                .iter()
                .map(|c| format!("`{c}`"))
                .collect::<Vec<_>>()
                .join(", ")
        )
    };
    Ok(format!(
        "package `{name}` was not found in the registry {}\n  help: {help}",
        source.source_id()
    ))
}

/// For each package `lock` newly pins (absent from `old`, or at another version), the versions
/// newer than the one locked that its registry lists but dotpack cannot install: resolution took
/// an older version instead, and the user is told which one it skipped and why. A version that
/// is not semver cannot be placed, so it counts as newer. One sentence per package.
pub fn skipped_versions(
    registries: &RegistrySet,
    lock: &Lockfile,
    old: Option<&Lockfile>,
) -> Vec<String> {
    let mut out = Vec::new();
    for locked in &lock.packages {
        let before = old.and_then(|l| l.get(&locked.name));
        if before.is_some_and(|b| b.version == locked.version && b.source == locked.source) {
            continue;
        }
        let Some(source) = registries.by_source(&locked.source) else {
            continue;
        };
        let mut newer: Vec<(Option<semver::Version>, Refusal)> = source
            .refused(&locked.name)
            .into_iter()
            .map(|r| (semver::Version::parse(&r.version).ok(), r))
            .filter(|(v, _)| v.as_ref().is_none_or(|v| *v > locked.version))
            .collect();
        // Newest first; a version that is not semver after those that are.
        newer.sort_by(|(a, _), (b, _)| match (a, b) {
            (Some(a), Some(b)) => b.cmp(a),
            (Some(_), None) => std::cmp::Ordering::Less,
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (None, None) => std::cmp::Ordering::Equal,
        });
        let Some((_, newest)) = newer.first() else {
            continue;
        };
        let name = &locked.name;
        let more = match newer.len() - 1 {
            0 => String::new(),
            n => format!(
                "; {n} other newer version{} cannot be installed either (`dotpack info {name}` lists them)",
                if n == 1 { "" } else { "s" }
            ),
        };
        out.push(format!(
            "skipped `{name}` {}, which cannot be installed: {}; locked {} instead{more}",
            newest.version, newest.reason, locked.version
        ));
    }
    out
}

/// Every version of a package, oldest first, yanked ones marked: for "no version matches".
pub fn versions_list(lines: &[IndexLine]) -> String {
    let mut sorted: Vec<&IndexLine> = lines.iter().collect();
    sorted.sort_by(|a, b| a.vers.cmp(&b.vers));
    let vs: Vec<String> = sorted
        .iter()
        .map(|l| {
            if l.yanked {
                format!("{} (yanked)", l.vers)
            } else {
                l.vers.to_string()
            }
        })
        .collect::<Vec<_>>();
    vs.join(", ")
}
