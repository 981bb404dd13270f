//! `dotpack search`: packages found by name, keywords and description, in every registry the
//! project knows (or the one `--registry` names).

use anyhow::Result;
use serde_json::json;

use crate::registry::{IndexLine, RegistryError};
use crate::ui::printer::Printer;

use super::Settings;

/// One hit, with the newest stable version's line.
pub struct Hit {
    pub score: u32,
    pub line: IndexLine,
    /// The `[registries]` name it came from; `None` for the default registry.
    pub registry: Option<String>,
    /// Why dotpack cannot install it (a `server.json` it cannot map), when it cannot.
    pub refused: Option<(String, String)>,
}

/// Every package of the registries (the one `--registry` names, else all) that matches every
/// word of `query`, unsorted. One registry that cannot answer is warned about when others can.
pub fn search(settings: &Settings, printer: &Printer, query: &[String]) -> Result<Vec<Hit>> {
    let manifest = super::optional_manifest(settings);
    let registries = super::registries(settings, manifest.as_ref())?;
    let sources: Vec<(Option<String>, &dyn crate::registry::IndexSource)> =
        match super::registry_flag(settings, manifest.as_ref()) {
            super::RegistryFlag::Named(name) => {
                let source = registries.named(&name, "")?;
                vec![(Some(name), source)]
            }
            _ => std::iter::once((None, registries.default_index()))
                .chain(
                    registries
                        .named_all()
                        .map(|(name, source)| (Some(name.to_string()), source)),
                )
                .collect(),
        };
    let words: Vec<String> = query.iter().map(|w| w.to_lowercase()).collect();
    let mut hits = Vec::new();
    let several = sources.len() > 1;
    let mut failed = Vec::new();
    for (registry, source) in &sources {
        // With several registries, every hit names its own, the default one included.
        let label = match registry {
            Some(name) => Some(name.clone()),
            None if several => Some(DEFAULT_LABEL.to_string()),
            None => None,
        };
        let searched = search_one(*source, &label, &words, &mut hits);
        // A broad word is cut at the page budget: never silently.
        for cut in source.search_cut() {
            printer.warning(cut);
        }
        if let Err(e) = searched {
            if !several {
                return Err(e);
            }
            // One registry that cannot answer does not hide the others' results.
            let name = label.as_deref().unwrap_or(DEFAULT_LABEL);
            printer.warning(format!("registry {name} was not searched: {e:#}"));
            failed.push(name.to_string());
        }
    }
    if several && failed.len() == sources.len() {
        anyhow::bail!("no registry could be searched ({})", failed.join(", "));
    }
    Ok(hits)
}

/// `hits` best first (then by name), at most `limit` of them, and how many matched.
pub fn best(mut hits: Vec<Hit>, limit: usize) -> (Vec<Hit>, usize) {
    hits.sort_by(|a, b| b.score.cmp(&a.score).then(a.line.name.cmp(&b.line.name)));
    let total = hits.len();
    hits.truncate(limit);
    (hits, total)
}

/// The `--json` document of `dotpack search`.
pub fn json_report(hits: &[Hit], total: usize) -> serde_json::Value {
    let items: Vec<_> = hits
        .iter()
        .map(|h| {
            json!({
                "name": h.line.name,
                "version": h.refused.as_ref().map_or_else(|| h.line.vers.to_string(), |(v, _)| v.clone()),
                "installable": h.refused.is_none(),
                "reason": h.refused.as_ref().map(|(_, r)| r),
                "description": h.line.description,
                "keywords": h.line.keywords,
                "servers": h.line.servers,
                "registry": h.registry,
            })
        })
        .collect();
    json!({ "total": total, "packages": items })
}

/// How hits of the default registry are labelled when several registries are searched.
const DEFAULT_LABEL: &str = "default";

/// The hits of one registry.
fn search_one(
    source: &dyn crate::registry::IndexSource,
    registry: &Option<String>,
    words: &[String],
    hits: &mut Vec<Hit>,
) -> Result<()> {
    let searched = match source.search(&words.join(" ")) {
        // Offline, a search the cache has not seen finds nothing in this registry.
        Err(RegistryError::NotCached { .. }) => return Ok(()),
        other => other?,
    };
    if let Some(found) = searched {
        for f in found {
            let (line, refused) = match f.result {
                // Named as the registry spells it, which `add` and `info` take as it is.
                Ok(line) => (
                    IndexLine {
                        name: f.name,
                        ..line
                    },
                    None,
                ),
                Err(reason) => (
                    refused_line(&f.name, f.description),
                    Some((f.version, reason)),
                ),
            };
            let score = score(&line, words);
            if score > 0 {
                hits.push(Hit {
                    score,
                    line,
                    registry: registry.clone(),
                    refused,
                });
            }
        }
        return Ok(());
    }
    let names = source.names()?;
    // Each package's index file is its own request to an HTTP registry: a few at once.
    let found = crate::util::fsutil::par_map(&names, |name| source.versions(name));
    for found in found {
        let lines = match found {
            Ok(Some(lines)) => lines,
            // Offline, search what is cached.
            Ok(None) | Err(RegistryError::NotCached { .. }) => continue,
            Err(e) => return Err(e.into()),
        };
        let Some(line) = newest(&lines) else {
            continue;
        };
        let score = score(line, words);
        if score > 0 {
            hits.push(Hit {
                score,
                line: line.clone(),
                registry: registry.clone(),
                refused: None,
            });
        }
    }
    Ok(())
}

/// A line to score a package that cannot be installed by its name and description.
fn refused_line(name: &str, description: Option<String>) -> IndexLine {
    IndexLine {
        name: name.to_string(),
        vers: semver::Version::new(0, 0, 0),
        deps: Vec::new(),
        cksum: String::new(),
        yanked: true,
        servers: Vec::new(),
        resources: Vec::new(),
        description,
        keywords: Vec::new(),
        v: 1,
    }
}

/// The newest version that is neither yanked nor a pre-release, else the newest unyanked one.
pub fn newest(lines: &[IndexLine]) -> Option<&IndexLine> {
    let unyanked = || lines.iter().filter(|l| !l.yanked);
    unyanked()
        .filter(|l| l.vers.pre.is_empty())
        .max_by(|a, b| a.vers.cmp(&b.vers))
        .or_else(|| unyanked().max_by(|a, b| a.vers.cmp(&b.vers)))
}

/// Every word must match somewhere; a name match weighs most, then keywords, then description.
fn score(line: &IndexLine, words: &[String]) -> u32 {
    let name = line.name.to_lowercase();
    let desc = line.description.as_deref().unwrap_or("").to_lowercase();
    let mut total = 0;
    for word in words {
        let s = if name == *word {
            100
        } else if name.starts_with(word.as_str()) {
            50
        } else if name.contains(word.as_str()) {
            30
        } else if line.keywords.iter().any(|k| k.to_lowercase() == *word) {
            20
        } else if line
            .servers
            .iter()
            .any(|s| s.to_lowercase().contains(word.as_str()))
        {
            15
        } else if desc.contains(word.as_str()) {
            10
        } else {
            return 0;
        };
        total += s;
    }
    total
}
