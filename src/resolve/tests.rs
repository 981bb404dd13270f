use std::collections::BTreeMap;

use proptest::prelude::*;
use semver::{Version, VersionReq};

use super::*;
use crate::registry::memory::{MemoryIndex, MemoryIndexBuilder};

fn dep(name: &str, req: &str) -> RootDep {
    RootDep::new(name, VersionReq::parse(req).unwrap())
}

fn set(builder: MemoryIndexBuilder) -> RegistrySet {
    RegistrySet::new(Box::new(builder.build()))
}

fn index() -> MemoryIndexBuilder {
    MemoryIndex::builder("registry+test")
}

fn picked(res: &Resolution) -> Vec<String> {
    res.packages
        .iter()
        .map(|p| format!("{} {}", p.line.name, p.line.vers))
        .collect()
}

fn run(root: &[RootDep], reg: &RegistrySet) -> Result<Resolution, ResolveError> {
    resolve(root, reg, &ResolveOptions::default())
}

fn preferring(pairs: &[(&str, &str)]) -> ResolveOptions {
    ResolveOptions {
        preferred: pairs
            .iter()
            .map(|(n, v)| (n.to_string(), Version::parse(v).unwrap()))
            .collect(),
    }
}

fn explanation(err: ResolveError) -> String {
    match err {
        ResolveError::NoSolution { explanation } => explanation.to_string(),
        other => panic!("expected no solution, got {other}"),
    }
}

#[test]
fn picks_highest_matching_version() {
    let reg = set(index()
        .package("figma", "0.3.0", &[])
        .package("figma", "0.3.4", &[])
        .package("figma", "0.4.0", &[]));
    let res = run(&[dep("figma", "^0.3")], &reg).unwrap();
    assert_eq!(picked(&res), ["figma 0.3.4"]);
    assert_eq!(res.packages[0].source, "registry+test");
}

#[test]
fn keeps_preferred_version_while_it_satisfies() {
    let reg = set(index()
        .package("figma", "0.3.0", &[])
        .package("figma", "0.3.4", &[]));
    let opts = preferring(&[("figma", "0.3.0")]);
    let res = resolve(&[dep("figma", "^0.3")], &reg, &opts).unwrap();
    assert_eq!(picked(&res), ["figma 0.3.0"]);
    let moved = resolve(&[dep("figma", ">=0.3.1")], &reg, &opts).unwrap();
    assert_eq!(picked(&moved), ["figma 0.3.4"]);
}

#[test]
fn follows_transitive_dependencies() {
    let reg = set(index()
        .package("app", "1.0.0", &[("node-runtime", "^2.1")])
        .package("node-runtime", "2.0.0", &[])
        .package("node-runtime", "2.3.0", &[("shell", "~1.1")])
        .package("node-runtime", "3.0.0", &[])
        .package("shell", "1.1.7", &[])
        .package("shell", "1.2.0", &[])
        .package("unrelated", "1.0.0", &[]));
    let res = run(&[dep("app", "1")], &reg).unwrap();
    assert_eq!(
        picked(&res),
        ["app 1.0.0", "node-runtime 2.3.0", "shell 1.1.7"]
    );
    let lock = res.to_lockfile(&[dep("app", "1")]);
    assert_eq!(lock.packages[0].dependencies, ["node-runtime"]);
}

#[test]
fn backtracks_to_an_older_version_that_fits() {
    let reg = set(index()
        .package("a", "1.0.0", &[("c", "^1")])
        .package("a", "1.1.0", &[("c", "^2")])
        .package("b", "1.0.0", &[("c", "^1")])
        .package("c", "1.0.0", &[])
        .package("c", "2.0.0", &[]));
    let res = run(&[dep("a", "^1"), dep("b", "^1")], &reg).unwrap();
    assert_eq!(picked(&res), ["a 1.0.0", "b 1.0.0", "c 1.0.0"]);
}

#[test]
fn conflict_explanation_names_both_requirements_and_a_hint() {
    let reg = set(index()
        .package("figma", "0.3.1", &[("node-runtime", "^1.2")])
        .package("github", "2.0.0", &[("node-runtime", "^2")])
        .package("node-runtime", "1.4.0", &[])
        .package("node-runtime", "2.0.0", &[]));
    let err = run(&[dep("figma", "^0.3"), dep("github", "^2")], &reg).unwrap_err();
    let text = explanation(err);
    assert!(text.contains("your dotpack.toml"), "{text}");
    assert!(text.contains("figma ^0.3"), "{text}");
    assert!(text.contains("github ^2"), "{text}");
    assert!(text.contains("node-runtime ^1.2"), "{text}");
    assert!(text.contains("node-runtime ^2"), "{text}");
    assert!(
        text.contains("help: loosen the requirement in dotpack.toml"),
        "{text}"
    );
    assert!(!text.contains("-0"), "{text}");
}

#[test]
fn unknown_package_suggests_close_names() {
    let reg = set(index()
        .package("figma", "0.3.1", &[])
        .package("github", "1.0.0", &[]));
    match run(&[dep("figam", "^0.3")], &reg).unwrap_err() {
        ResolveError::UnknownPackage {
            name,
            required_by,
            suggestions,
        } => {
            assert_eq!(name, "figam");
            assert_eq!(required_by, None);
            assert_eq!(suggestions, ["figma"]);
        }
        other => panic!("{other}"),
    }
}

#[test]
fn unknown_transitive_package_names_who_requires_it() {
    let reg = set(index().package("figma", "0.3.1", &[("nope", "^1")]));
    let err = run(&[dep("figma", "^0.3")], &reg).unwrap_err();
    assert!(err.to_string().contains("required by figma 0.3.1"), "{err}");
}

#[test]
fn yanked_versions_are_skipped_unless_locked() {
    let reg = set(index()
        .package("figma", "0.3.0", &[])
        .yanked("figma", "0.3.1", &[]));
    let res = run(&[dep("figma", "^0.3")], &reg).unwrap();
    assert_eq!(picked(&res), ["figma 0.3.0"]);
    let locked = resolve(
        &[dep("figma", "^0.3")],
        &reg,
        &preferring(&[("figma", "0.3.1")]),
    )
    .unwrap();
    assert_eq!(picked(&locked), ["figma 0.3.1"]);
}

#[test]
fn requirement_matching_only_yanked_versions_says_so() {
    let reg = set(index().yanked("figma", "0.3.1", &[]));
    let text = explanation(run(&[dep("figma", "^0.3")], &reg).unwrap_err());
    assert!(text.contains("only yanked versions (0.3.1)"), "{text}");
}

#[test]
fn prereleases_only_when_a_requirement_names_one() {
    let reg = set(index()
        .package("figma", "1.0.0", &[])
        .package("figma", "1.1.0-alpha", &[])
        .package("beta", "1.0.0-beta.1", &[])
        .package("beta", "1.0.0-beta.2", &[]));
    let res = run(&[dep("figma", "^1.0")], &reg).unwrap();
    assert_eq!(picked(&res), ["figma 1.0.0"]);
    let res = run(&[dep("beta", "^1.0.0-beta.1")], &reg).unwrap();
    assert_eq!(picked(&res), ["beta 1.0.0-beta.2"]);
    let text = explanation(run(&[dep("beta", "^1")], &reg).unwrap_err());
    assert!(text.contains("only pre-release versions"), "{text}");
}

#[test]
fn named_registry_is_used_for_root_and_its_transitive_dependencies() {
    let local = MemoryIndex::builder("registry+file:local")
        .package("tool", "1.0.0", &[("helper", "^1"), ("shared", "^1")])
        .package("helper", "1.0.0", &[])
        .build();
    let default = index()
        .package("helper", "1.5.0", &[])
        .package("shared", "1.0.0", &[]);
    let reg = set(default).with_named("local", Box::new(local));
    let root = [RootDep {
        registry: Some("local".into()),
        ..dep("tool", "^1")
    }];
    let res = run(&root, &reg).unwrap();
    let sources: Vec<(String, String)> = res
        .packages
        .iter()
        .map(|p| (p.line.name.clone(), p.source.clone()))
        .collect();
    assert_eq!(
        sources,
        [
            ("helper".into(), "registry+file:local".into()),
            ("shared".into(), "registry+test".into()),
            ("tool".into(), "registry+file:local".into()),
        ]
    );
}

#[test]
fn unknown_registry_says_to_declare_it() {
    let reg = set(index().package("tool", "1.0.0", &[]));
    let root = [RootDep {
        registry: Some("corp".into()),
        ..dep("tool", "^1")
    }];
    let err = run(&root, &reg).unwrap_err();
    assert!(
        err.to_string().contains("add it under [registries]"),
        "{err}"
    );
}

#[test]
fn same_input_gives_same_lockfile_bytes() {
    let builder = index()
        .package("a", "1.0.0", &[("c", "^1"), ("b", "^1")])
        .package("b", "1.0.0", &[("c", ">=1.1")])
        .package("b", "1.2.0", &[("c", "^1.2")])
        .package("c", "1.1.0", &[])
        .package("c", "1.2.5", &[]);
    let root = [dep("a", "^1")];
    let first = run(&root, &set(builder.clone()))
        .unwrap()
        .to_lockfile(&root)
        .emit();
    for _ in 0..5 {
        let again = run(&root, &set(builder.clone()))
            .unwrap()
            .to_lockfile(&root)
            .emit();
        assert_eq!(first, again);
    }
}

// --- agreement with brute force on small graphs ---

/// Generated versions: (package, major, [(dependency package, requirement)]).
type Graph = Vec<(usize, u64, Vec<(usize, String)>)>;
/// Index lines by (package, major).
type Lines = BTreeMap<(usize, u64), Vec<(usize, VersionReq)>>;

/// A registry of up to 4 packages × 4 versions; package i depends only on packages > i.
fn small_graph() -> impl Strategy<Value = Graph> {
    let req = prop::sample::select(vec!["^1", "^2", ">=2", "<3", "=1.0.0", "*", "~3.0"]);
    let version = (1u64..=4, prop::collection::vec((0usize..4, req), 0..3));
    prop::collection::vec((0usize..4, version), 1..12).prop_map(|entries| {
        entries
            .into_iter()
            .map(|(pkg, (major, deps))| {
                let deps = deps
                    .into_iter()
                    .filter(|(d, _)| *d > pkg)
                    .map(|(d, r)| (d, r.to_string()))
                    .collect();
                (pkg, major, deps)
            })
            .collect()
    })
}

fn graph_index(graph: &Graph) -> (RegistrySet, Lines) {
    // A dependency on a package the registry lacks is a hard error by design (a broken
    // registry), so the generated graphs only point at packages that exist.
    let present: Vec<usize> = graph.iter().map(|(p, _, _)| *p).collect();
    let mut lines = BTreeMap::new();
    for (pkg, major, deps) in graph {
        let deps: Vec<(usize, VersionReq)> = deps
            .iter()
            .filter(|(d, _)| present.contains(d))
            .map(|(d, r)| (*d, VersionReq::parse(r).unwrap()))
            .collect();
        lines.entry((*pkg, *major)).or_insert(deps);
    }
    let mut builder = index();
    for ((pkg, major), deps) in &lines {
        let deps: Vec<(String, String)> = deps
            .iter()
            .map(|(d, r)| (format!("p{d}"), r.to_string()))
            .collect();
        let deps: Vec<(&str, &str)> = deps.iter().map(|(d, r)| (d.as_str(), r.as_str())).collect();
        builder = builder.package(&format!("p{pkg}"), &format!("{major}.0.0"), &deps);
    }
    (set(builder), lines)
}

/// Whether some assignment (each package absent or one of its versions) satisfies the root
/// requirement `p0 *` and every edge of every chosen version.
fn brute_force_solvable(lines: &Lines) -> bool {
    let options: Vec<Vec<Option<u64>>> = (0..4)
        .map(|p| {
            let mut o: Vec<Option<u64>> = vec![None];
            o.extend(lines.keys().filter(|(q, _)| *q == p).map(|(_, m)| Some(*m)));
            o
        })
        .collect();
    let mut choice = [None; 4];
    search(0, &options, &mut choice, lines)
}

fn search(
    i: usize,
    options: &[Vec<Option<u64>>],
    choice: &mut [Option<u64>; 4],
    lines: &Lines,
) -> bool {
    if i == 4 {
        return valid(choice, lines);
    }
    options[i].iter().any(|o| {
        choice[i] = *o;
        search(i + 1, options, choice, lines)
    })
}

fn valid(choice: &[Option<u64>; 4], lines: &Lines) -> bool {
    choice[0].is_some()
        && (0..4).all(|p| match choice[p] {
            None => true,
            Some(m) => lines[&(p, m)]
                .iter()
                .all(|(d, req)| choice[*d].is_some_and(|dm| req.matches(&Version::new(dm, 0, 0)))),
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn resolver_agrees_with_brute_force(graph in small_graph()) {
        let (reg, lines) = graph_index(&graph);
        prop_assume!(lines.keys().any(|(p, _)| *p == 0));
        let root = [dep("p0", "*")];
        match run(&root, &reg) {
            Ok(res) => {
                // every edge of every chosen version is satisfied by the chosen versions
                let chosen: BTreeMap<&str, &Version> =
                    res.packages.iter().map(|p| (p.line.name.as_str(), &p.line.vers)).collect();
                for p in &res.packages {
                    for d in &p.line.deps {
                        let v = chosen.get(d.name.as_str());
                        prop_assert!(v.is_some_and(|v| d.req.matches(v)), "{} -> {} {}", p.line.name, d.name, d.req);
                    }
                }
                prop_assert!(brute_force_solvable(&lines));
            }
            Err(ResolveError::NoSolution { .. }) => prop_assert!(!brute_force_solvable(&lines)),
            Err(other) => prop_assert!(false, "unexpected error {}", other),
        }
    }
}
