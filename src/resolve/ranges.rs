//! Semver requirements as pubgrub version sets.
//!
//! pubgrub reasons about sets of versions ([`Ranges`]); requirements arrive as
//! [`semver::VersionReq`]. [`req_to_ranges`] turns each comparator into the interval the semver
//! crate accepts, numerically. Exclusive upper bounds are written `X.Y.Z-0`, the lowest version
//! of `X.Y.Z`, so `^1.2` stops before `2.0.0-alpha`.
//!
//! Intervals cannot express semver's pre-release rule (`^1.0` matches `1.2.0` but never
//! `1.1.0-alpha`), so [`exact_ranges`] then removes every known version of the package that lies
//! in the interval but that the requirement does not match. The result agrees with
//! `VersionReq::matches` on every version the registry has, which is all the resolver can pick.

use pubgrub::Ranges;
use semver::{Comparator, Op, Prerelease, Version, VersionReq};

/// The version set type the resolver works with.
pub type VersionSet = Ranges<Version>;

/// The interval (or intersection of intervals) of `req`, pre-releases included numerically.
pub fn req_to_ranges(req: &VersionReq) -> VersionSet {
    req.comparators.iter().fold(VersionSet::full(), |acc, c| {
        acc.intersection(&comparator_to_ranges(c))
    })
}

/// `req_to_ranges(req)` minus the `known` versions inside it that `req` does not match.
pub fn exact_ranges<'a>(
    req: &VersionReq,
    known: impl IntoIterator<Item = &'a Version>,
) -> VersionSet {
    let interval = req_to_ranges(req);
    let excluded: Vec<&Version> = known
        .into_iter()
        .filter(|v| interval.contains(v) && !req.matches(v))
        .collect();
    excluded.into_iter().fold(interval, |acc, v| {
        acc.intersection(&VersionSet::singleton(v.clone()).complement())
    })
}

/// One comparator as an interval, following `semver`'s own matching rules, including partial
/// versions (`>1` means `>=2.0.0`, `<=1.2` means `<1.3.0`).
fn comparator_to_ranges(c: &Comparator) -> VersionSet {
    let low = lowest(c);
    match c.op {
        Op::Exact | Op::Wildcard => match (c.patch, c.pre.is_empty()) {
            (Some(_), false) => VersionSet::singleton(low),
            _ => from(low, after_last_component(c)),
        },
        Op::Greater => match c.patch {
            Some(_) => VersionSet::strictly_higher_than(low),
            None => after_last_component(c).map_or_else(VersionSet::empty, VersionSet::higher_than),
        },
        Op::GreaterEq => VersionSet::higher_than(low),
        Op::Less => VersionSet::strictly_lower_than(match c.patch {
            Some(_) => low,
            None => with_zero_pre(low),
        }),
        Op::LessEq => match (c.patch, c.pre.is_empty()) {
            (Some(_), false) => VersionSet::lower_than(low),
            _ => after_last_component(c)
                .map_or_else(VersionSet::full, VersionSet::strictly_lower_than),
        },
        Op::Tilde => from(low, bump_minor_or_major(c)),
        Op::Caret => from(low, caret_upper(c)),
        _ => VersionSet::empty(),
    }
}

/// `[low, high)`, or `[low, ∞)` when the upper bound overflows.
fn from(low: Version, high: Option<Version>) -> VersionSet {
    match high {
        Some(high) => VersionSet::between(low, high),
        None => VersionSet::higher_than(low),
    }
}

/// The smallest version the comparator names: missing parts are zero.
fn lowest(c: &Comparator) -> Version {
    Version {
        major: c.major,
        minor: c.minor.unwrap_or(0),
        patch: c.patch.unwrap_or(0),
        pre: c.pre.clone(),
        build: semver::BuildMetadata::EMPTY,
    }
}

/// The first version past everything the comparator's written parts cover: `1` -> `2.0.0-0`,
/// `1.2` -> `1.3.0-0`, `1.2.3` -> `1.2.4-0`. `None` on overflow.
fn after_last_component(c: &Comparator) -> Option<Version> {
    match (c.minor, c.patch) {
        (None, _) => bound(c.major.checked_add(1)?, 0, 0),
        (Some(minor), None) => bound(c.major, minor.checked_add(1)?, 0),
        (Some(minor), Some(patch)) => bound(c.major, minor, patch.checked_add(1)?),
    }
}

/// Tilde's upper bound: next minor when a minor is written, else next major.
fn bump_minor_or_major(c: &Comparator) -> Option<Version> {
    match c.minor {
        None => bound(c.major.checked_add(1)?, 0, 0),
        Some(minor) => bound(c.major, minor.checked_add(1)?, 0),
    }
}

/// Caret's upper bound: the first version that changes the leftmost non-zero written part.
fn caret_upper(c: &Comparator) -> Option<Version> {
    match (c.major, c.minor, c.patch) {
        (major, None, _) => bound(major.checked_add(1)?, 0, 0),
        (0, Some(minor), None) => bound(0, minor.checked_add(1)?, 0),
        (0, Some(0), Some(patch)) => bound(0, 0, patch.checked_add(1)?),
        (0, Some(minor), Some(_)) => bound(0, minor.checked_add(1)?, 0),
        (major, Some(_), _) => bound(major.checked_add(1)?, 0, 0),
    }
}

/// `major.minor.patch-0`: the lowest version of that triple, used as an exclusive bound.
fn bound(major: u64, minor: u64, patch: u64) -> Option<Version> {
    Some(with_zero_pre(Version::new(major, minor, patch)))
}

fn with_zero_pre(mut v: Version) -> Version {
    // "0" is always a valid pre-release identifier; the fallback only guards the type.
    v.pre = Prerelease::new("0").unwrap_or(Prerelease::EMPTY);
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn v(s: &str) -> Version {
        Version::parse(s).unwrap()
    }

    fn r(s: &str) -> VersionReq {
        VersionReq::parse(s).unwrap()
    }

    const REQS: &[&str] = &[
        "^1.2.3",
        "^1.2",
        "^1",
        "^0.2.3",
        "^0.2",
        "^0.0.3",
        "^0.0",
        "^0",
        "~1.2.3",
        "~1.2",
        "~1",
        "=1.2.3",
        "=1.2",
        "=1",
        "1.*",
        "1.2.*",
        "*",
        ">1.2.3",
        ">1.2",
        ">1",
        ">=1.2.3",
        ">=1.2",
        ">=1",
        "<1.2.3",
        "<1.2",
        "<1",
        "<=1.2.3",
        "<=1.2",
        "<=1",
        ">=1.2, <1.5",
        ">0.1, <=2.3.4",
        "^1.0.0-beta.1",
        "~1.2.3-rc.1",
        "=1.2.3-alpha",
        ">1.2.3-alpha",
        "<=1.2.3-alpha",
    ];

    #[test]
    fn every_operator_agrees_with_semver_on_sample_versions() {
        let versions = [
            "0.0.0",
            "0.0.3",
            "0.0.4",
            "0.1.0",
            "0.2.0",
            "0.2.3",
            "0.2.9",
            "0.3.0",
            "0.9.0",
            "1.0.0",
            "1.0.0-beta.1",
            "1.0.0-beta.2",
            "1.1.0-alpha",
            "1.2.0",
            "1.2.2",
            "1.2.3",
            "1.2.3-alpha",
            "1.2.3-rc.2",
            "1.2.4",
            "1.3.0",
            "1.4.9",
            "1.5.0",
            "2.0.0-alpha",
            "2.0.0",
            "2.3.4",
            "3.0.0",
        ]
        .map(v);
        for req in REQS {
            let req = r(req);
            let exact = exact_ranges(&req, &versions);
            for version in &versions {
                assert_eq!(
                    exact.contains(version),
                    req.matches(version),
                    "{req} vs {version}"
                );
            }
        }
    }

    #[test]
    fn caret_excludes_next_major_prerelease() {
        let ranges = req_to_ranges(&r("^1.2"));
        assert!(!ranges.contains(&v("2.0.0-alpha")));
        assert!(ranges.contains(&v("1.9.9")));
    }

    #[test]
    fn huge_components_do_not_overflow() {
        let max = u64::MAX;
        let ranges = req_to_ranges(&r(&format!("^{max}.0.0")));
        assert!(ranges.contains(&Version::new(max, 5, 0)));
        assert_eq!(req_to_ranges(&r(&format!(">{max}"))), VersionSet::empty());
    }

    fn version() -> impl Strategy<Value = Version> {
        (0u64..4, 0u64..4, 0u64..4).prop_map(|(a, b, c)| Version::new(a, b, c))
    }

    fn prerelease_version() -> impl Strategy<Value = Version> {
        (
            version(),
            prop::option::of(prop::sample::select(vec!["alpha", "beta.1", "rc.2"])),
        )
            .prop_map(|(mut v, pre)| {
                if let Some(pre) = pre {
                    v.pre = Prerelease::new(pre).unwrap();
                }
                v
            })
    }

    fn comparator() -> impl Strategy<Value = String> {
        let ops = prop::sample::select(vec!["^", "~", "=", ">", ">=", "<", "<=", ""]);
        (
            ops,
            0u64..4,
            prop::option::of(0u64..4),
            prop::option::of(0u64..4),
        )
            .prop_map(|(op, a, b, c)| match (b, c) {
                (Some(b), Some(c)) => format!("{op}{a}.{b}.{c}"),
                (Some(b), None) => format!("{op}{a}.{b}"),
                _ => format!("{op}{a}"),
            })
    }

    fn requirement() -> impl Strategy<Value = VersionReq> {
        prop::collection::vec(comparator(), 1..3).prop_map(|cs| r(&cs.join(", ")))
    }

    proptest! {
        #[test]
        fn intervals_match_semver_on_release_versions(req in requirement(), ver in version()) {
            prop_assert_eq!(req_to_ranges(&req).contains(&ver), req.matches(&ver));
        }

        #[test]
        fn exact_ranges_match_semver_on_known_versions(
            req in requirement(),
            known in prop::collection::vec(prerelease_version(), 1..12),
        ) {
            let exact = exact_ranges(&req, &known);
            for ver in &known {
                prop_assert_eq!(exact.contains(ver), req.matches(ver), "{} vs {}", req, ver);
            }
        }
    }
}
