//! Turning pubgrub's derivation tree into an explanation a user can act on.
//!
//! pubgrub's default report speaks in version sets (`>=0.3.0, <0.4.0-0`); users wrote
//! requirements (`^0.3`). The report is rendered by `DefaultStringReporter`, then every version
//! set that came straight from a requirement is replaced by that requirement, the root is called
//! "your dotpack.toml", and notes explain requirements that only yanked or only pre-release
//! versions match.

use pubgrub::{DefaultStringReporter, Reporter};

use super::RootDep;
use super::provider::{Edge, Known, Provider, ROOT_LABEL, root_version};
use crate::util::error::Error;

type Tree = pubgrub::DerivationTree<super::provider::Pkg, super::ranges::VersionSet, String>;

pub fn explain(mut tree: Tree, provider: &Provider<'_>, root: &[RootDep]) -> Error {
    tree.collapse_no_versions();
    let raw = DefaultStringReporter::report(&tree);
    let mut text = readable(&strip_zero_bounds(&requirements_for_ranges(
        &raw,
        &provider.edges(),
    )));
    for note in notes(provider) {
        text.push_str("\n  note: ");
        text.push_str(&note);
    }
    let name = root
        .iter()
        .map(|d| d.name.as_str())
        .find(|n| raw.contains(n))
        .or_else(|| root.first().map(|d| d.name.as_str()))
        .unwrap_or("NAME");
    Error::new(text).help(format!(
        "loosen the requirement in dotpack.toml or run `dotpack info {name}` to see available versions"
    ))
}

/// Replaces `name <version set>` by `name <requirement>` wherever the set is exactly one a
/// requirement produced, longest first so one replacement never cuts into another.
fn requirements_for_ranges(raw: &str, edges: &[Edge]) -> String {
    let mut pairs: Vec<(String, String)> = edges
        .iter()
        .map(|e| {
            (
                format!("{} {}", e.name, e.ranges),
                format!("{} {}", e.name, e.req),
            )
        })
        .collect();
    pairs.push((
        format!("{ROOT_LABEL} {}", root_version()),
        ROOT_LABEL.to_string(),
    ));
    pairs.sort_by(|a, b| b.0.len().cmp(&a.0.len()).then_with(|| a.cmp(b)));
    pairs.dedup();
    pairs
        .iter()
        .fold(raw.to_string(), |text, (from, to)| text.replace(from, to))
}

/// `<0.4.0-0` reads as `<0.4.0`: the `-0` only keeps pre-releases out, which users need not see.
fn strip_zero_bounds(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < text.len() {
        let is_zero_pre = text[i..].starts_with("-0")
            && i > 0
            && bytes[i - 1].is_ascii_digit()
            && !bytes
                .get(i + 2)
                .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'.' || *b == b'-');
        if is_zero_pre {
            i += 2;
            continue;
        }
        let ch_len = text[i..].chars().next().map_or(1, char::len_utf8);
        out.push_str(&text[i..i + ch_len]);
        i += ch_len;
    }
    out
}

/// Final wording: the root is not "forbidden", its requirements cannot all be met; and a
/// one-line report (a requirement nothing matches) says what went wrong.
fn readable(text: &str) -> String {
    let text = text.replace(
        &format!("{ROOT_LABEL} is forbidden"),
        &format!("the requirements in {ROOT_LABEL} cannot all be met"),
    );
    if text.contains("Because") || text.contains("because") {
        return text;
    }
    format!(
        "{}, but no usable version matches",
        text.trim_end_matches('.')
    )
}

/// One note per requirement that nothing usable matches but yanked or pre-release versions do.
fn notes(provider: &Provider<'_>) -> Vec<String> {
    let mut notes: Vec<String> = provider
        .edges()
        .iter()
        .filter_map(|edge| {
            provider
                .known(&edge.name)
                .and_then(|k| note(edge, &k, provider))
        })
        .collect();
    notes.sort();
    notes.dedup();
    notes
}

fn note(edge: &Edge, known: &Known, provider: &Provider<'_>) -> Option<String> {
    let usable = known.descending().any(|l| {
        edge.ranges.contains(&l.vers) && (!l.yanked || provider.is_preferred(&edge.name, &l.vers))
    });
    if usable {
        return None;
    }
    let who = format!("`{} {}` (required by {})", edge.name, edge.req, edge.from);
    let yanked: Vec<String> = known
        .descending()
        .filter(|l| l.yanked && edge.ranges.contains(&l.vers))
        .map(|l| l.vers.to_string())
        .collect();
    if !yanked.is_empty() {
        return Some(format!(
            "{who} matches only yanked versions ({}); a yanked version is used only when dotpack.lock already pins it",
            yanked.join(", ")
        ));
    }
    let pre: Vec<String> = known
        .descending()
        .filter(|l| !l.vers.pre.is_empty() && !l.yanked && edge.req.matches(&release_of(&l.vers)))
        .map(|l| l.vers.to_string())
        .collect();
    let first = pre.first()?;
    Some(format!(
        "{who} matches only pre-release versions ({}); to use one, name it in the requirement, e.g. `{} = \"^{first}\"`",
        pre.join(", "),
        edge.name
    ))
}

/// `1.0.0` for `1.0.0-beta.2`: what a pre-release will become, to ask whether the requirement
/// would accept it once released.
fn release_of(version: &semver::Version) -> semver::Version {
    semver::Version::new(version.major, version.minor, version.patch)
}

#[cfg(test)]
mod tests {
    use super::strip_zero_bounds;

    #[test]
    fn zero_prerelease_bounds_are_hidden() {
        assert_eq!(
            strip_zero_bounds("figma >=0.3.0, <0.4.0-0 and x <2.0.0-0"),
            "figma >=0.3.0, <0.4.0 and x <2.0.0"
        );
        assert_eq!(strip_zero_bounds("a 1.0.0-0.3 b-0"), "a 1.0.0-0.3 b-0");
    }
}
