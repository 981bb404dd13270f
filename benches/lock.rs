//! How long `dotpack lock` takes: resolve a 50-dependency project and emit its lockfile, reading
//! a registry laid out on disk exactly as a real one (config.json + sparse index files).
//!
//! Two registries share the same first 1,000 packages; the project only reaches those, so the
//! two timings should match: resolution costs what the closure costs, not what the index holds.
//!
//! `read lock` reads a large `dotpack.lock` back (1,000 packages, 10,000 claims): what every
//! command pays before it does anything.

use std::path::Path;

use criterion::{Criterion, criterion_group, criterion_main};
use dotpack::formats::Created;
use dotpack::model::claims::Claim;
use dotpack::model::lock::{LOCK_VERSION, LockedPackage, Lockfile};
use dotpack::registry::{DirIndex, IndexDep, IndexLine, RegistryConfig, index_path};
use dotpack::resolve::{RegistrySet, ResolveOptions, RootDep, resolve_counting};
use semver::{Version, VersionReq};

const VERSIONS: u64 = 20;
const DIRECT: usize = 50;

/// A tiny deterministic generator, so every run benchmarks the same registry.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

fn name(i: usize) -> String {
    format!("pkg{i:05}")
}

/// The major version line every dependent of package `i` asks for, so the graph is solvable.
fn major_of(i: usize) -> u64 {
    (i % 4) as u64
}

/// Versions `M.m.p` for 20 releases of package `i`, each depending on 0–4 lower-numbered
/// packages (mostly 0 or 1, as MCP packages rarely depend on much) with caret requirements.
/// Package `i`'s lines depend only on `i`, so a smaller registry is a prefix of a larger one.
fn lines_of(i: usize) -> Vec<IndexLine> {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ (i as u64 + 1).wrapping_mul(0x2545_F491_4F6C_DD1D));
    (0..VERSIONS)
        .map(|k| {
            let vers = Version::new(k / 5, k % 5, rng.next() % 3);
            let count = match rng.next() % 20 {
                0..=7 => 0,
                8..=13 => 1,
                14..=16 => 2,
                17..=18 => 3,
                _ => 4,
            };
            let mut deps: Vec<IndexDep> = (0..count)
                .filter(|_| i > 0)
                .map(|_| {
                    let d = i - 1 - (rng.next() as usize % i.min(200));
                    let req = format!("^{}.{}", major_of(d), rng.next() % 3);
                    IndexDep {
                        name: name(d),
                        req: VersionReq::parse(&req).unwrap_or(VersionReq::STAR),
                    }
                })
                .collect();
            deps.sort_by(|a, b| a.name.cmp(&b.name));
            deps.dedup_by(|a, b| a.name == b.name);
            IndexLine {
                resources: Vec::new(),
                name: name(i),
                vers,
                deps,
                cksum: format!("{:064x}", rng.next()),
                yanked: false,
                servers: vec![name(i)],
                description: Some(format!("synthetic package {i}")),
                keywords: Vec::new(),
                v: 1,
            }
        })
        .collect()
}

fn write_registry(root: &Path, packages: usize) {
    std::fs::write(
        root.join("config.json"),
        serde_json::to_string(&RegistryConfig::default()).unwrap(),
    )
    .unwrap();
    for i in 0..packages {
        let path = root.join(index_path(&name(i)));
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        let text: String = lines_of(i)
            .iter()
            .map(|l| serde_json::to_string(l).unwrap() + "\n")
            .collect();
        std::fs::write(path, text).unwrap();
    }
}

/// 50 direct dependencies spread over the first 1,000 packages.
fn project() -> Vec<RootDep> {
    (0..DIRECT)
        .map(|k| {
            let i = 19 + k * 19;
            RootDep::new(
                name(i),
                VersionReq::parse(&format!("^{}", major_of(i))).unwrap(),
            )
        })
        .collect()
}

/// Resolves from a freshly opened registry (cold cache) and emits the lockfile.
fn lock_once(root: &Path, project: &[RootDep]) -> (String, usize) {
    let registries = RegistrySet::new(Box::new(
        DirIndex::open(root, "registry+file:bench").unwrap(),
    ));
    let (resolution, reached) =
        resolve_counting(project, &registries, &ResolveOptions::default()).unwrap();
    (resolution.to_lockfile(project).emit(), reached)
}

// The sizes measured are notes to whoever runs the benchmark.
#[allow(clippy::print_stderr)]
fn bench(c: &mut Criterion) {
    let project = project();
    for packages in [10_000usize, 1_000] {
        let dir = tempfile::tempdir().unwrap();
        write_registry(dir.path(), packages);
        let (lock, reached) = lock_once(dir.path(), &project);
        let locked = lock.matches("[[package]]").count();
        eprintln!(
            "index of {packages} packages x {VERSIONS} versions: {reached} packages reached, {locked} locked, {} bytes of lockfile",
            lock.len()
        );
        c.bench_function(&format!("lock 50 deps / index {packages} packages"), |b| {
            b.iter(|| lock_once(dir.path(), &project))
        });
    }
}

/// A lock of `packages` packages and `claims` claims, as `dotpack lock` writes it.
fn large_lock(packages: usize, claims: usize) -> String {
    let sum = |c: char| format!("sha256:{}", c.to_string().repeat(64));
    let packages: Vec<LockedPackage> = (0..packages)
        .map(|i| LockedPackage {
            name: name(i),
            version: Version::new(1, (i % 7) as u64, 0),
            source: "registry+https://registry.example/index/".to_string(),
            checksum: sum('a'),
            dependencies: if i > 0 { vec![name(i - 1)] } else { Vec::new() },
            servers: vec![name(i)],
            resources: Vec::new(),
        })
        .collect();
    let claims: Vec<Claim> = (0..claims)
        .map(|i| Claim {
            file: ".mcp.json".to_string(),
            host: "claude-code".to_string(),
            scope: "project".to_string(),
            key: format!("mcpServers.server{i:05}"),
            server: format!("server{i:05}"),
            package: name(i % packages.len().max(1)),
            version: Version::new(1, 0, 0),
            entry: sum('c'),
            inputs: sum('d'),
            dropped: vec!["cwd".to_string()],
            created: Created::default(),
            created_file: false,
            created_dirs: 0,
            owners: Vec::new(),
            resolved_env: Vec::new(),
            adopted: false,
            project: None,
        })
        .collect();
    Lockfile {
        version: LOCK_VERSION,
        requirements: [(name(0), "^1".to_string())].into_iter().collect(),
        packages,
        claims,
        files: Vec::new(),
        tools: Default::default(),
    }
    .emit()
}

#[allow(clippy::print_stderr)]
fn bench_read(c: &mut Criterion) {
    let text = large_lock(1_000, 10_000);
    let path = Path::new("dotpack.lock");
    let read = dotpack::model::lock::read(path, &text).unwrap();
    assert_eq!(
        (read.0.packages.len(), read.0.claims.len()),
        (1_000, 10_000)
    );
    eprintln!(
        "lock of 1,000 packages and 10,000 claims: {} bytes",
        text.len()
    );
    c.bench_function("read lock / 1,000 packages, 10,000 claims", |b| {
        b.iter(|| dotpack::model::lock::read(path, &text).unwrap())
    });
    // A lock edited by hand (no longer in the canonical layout) is read by the general path.
    let edited = text.replace("[[claim]]\n", "[[claim]] # edited\n");
    assert_eq!(
        dotpack::model::lock::read(path, &edited)
            .unwrap()
            .0
            .claims
            .len(),
        10_000
    );
    c.bench_function("read edited lock / 1,000 packages, 10,000 claims", |b| {
        b.iter(|| dotpack::model::lock::read(path, &edited).unwrap())
    });
}

criterion_group!(benches, bench, bench_read);
criterion_main!(benches);
