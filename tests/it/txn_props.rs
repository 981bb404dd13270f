//! Property: any sequence of add / remove / install / rollback over any set of hosts, starting
//! from absent or hand-written host files, leaves files that parse and claims that match them
//! after every step, and `rollback N` gives back generation N's bytes exactly.

use std::collections::BTreeMap;
use std::path::PathBuf;

use proptest::prelude::*;

use crate::support::Env;
use crate::txn::{HOST_FILES, files, registry};

const HOST_IDS: &[&str] = &["claude-code", "codex", "gemini-cli", "cursor", "vscode"];

/// A hand-written file per host, with an entry `mine` dotpack does not own.
const FIXTURES: &[&str] = &[
    "{\n  \"mcpServers\": {\n    \"mine\": {\"command\": \"node\"}\n  },\n  \"numStartups\": 3\n}\n",
    "model = \"o3\"\n\n[mcp_servers.mine]\ncommand = \"node\"\n",
    "{\n  \"theme\": \"Dracula\",\n  \"mcpServers\": {\n    \"mine\": {\"command\": \"node\"}\n  }\n}\n",
    "{\r\n\t\"mcpServers\": {\r\n\t\t\"mine\": {\"command\": \"node\"}\r\n\t}\r\n}",
    "{\n\t\"servers\": {\n\t\t\"mine\": {\"type\": \"stdio\", \"command\": \"node\"}\n\t}\n}\n",
];

#[derive(Clone, Debug)]
enum Op {
    Add(u8),
    Remove(u8),
    Install,
    Rollback(Option<u8>),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => (0u8..4).prop_map(Op::Add),
        2 => (0u8..4).prop_map(Op::Remove),
        1 => Just(Op::Install),
        2 => proptest::option::of(0u8..8).prop_map(Op::Rollback),
    ]
}

fn hosts() -> impl Strategy<Value = Vec<(usize, bool)>> {
    proptest::sample::subsequence((0..HOST_IDS.len()).collect::<Vec<_>>(), 1..=3)
        .prop_flat_map(|ids| {
            let n = ids.len();
            (Just(ids), proptest::collection::vec(any::<bool>(), n))
        })
        .prop_map(|(ids, hand)| ids.into_iter().zip(hand).collect())
}

fn check_files_parse(env: &Env, hosts: &[(usize, bool)]) {
    for (i, _) in hosts {
        let path = env.project.join(HOST_FILES[*i]);
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        if HOST_FILES[*i].ends_with(".toml") {
            toml::from_str::<toml::Table>(&text).expect("toml parses");
        } else {
            serde_json::from_str::<serde_json::Value>(&text).expect("json parses");
        }
    }
}

proptest! {
    // 6 cases in `cargo test`, 24 with `DOTPACK_LONG_TESTS=1` (as `.ci/run` runs it).
    #![proptest_config(ProptestConfig {
        cases: crate::support::cases(6, 24),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn random_histories_keep_files_and_claims_consistent_and_rollback_exact(
        hosts in hosts(),
        ops in proptest::collection::vec(op(), 1..7),
        pick in any::<proptest::sample::Index>(),
    ) {
        let reg_env = Env::new();
        let reg = registry(&reg_env);
        let env = Env::new();
        let ids: Vec<String> = hosts.iter().map(|(i, _)| format!("\"{}\"", HOST_IDS[*i])).collect();
        crate::txn::project(&env, &format!("[{}]", ids.join(", ")), "");
        for (i, hand) in &hosts {
            if *hand {
                env.write(HOST_FILES[*i], FIXTURES[*i]);
            }
        }
        let mut generations: BTreeMap<u64, Vec<(PathBuf, Vec<u8>)>> = BTreeMap::new();
        generations.insert(0, files(&env));
        for op in &ops {
            let args: Vec<String> = match op {
                Op::Add(p) => vec!["add".into(), format!("p{p}")],
                Op::Remove(p) => vec!["remove".into(), format!("p{p}")],
                Op::Install => vec!["install".into()],
                Op::Rollback(None) => vec!["rollback".into()],
                Op::Rollback(Some(n)) => vec!["rollback".into(), n.to_string()],
            };
            let out = env.dotpack().env("DOTPACK_REGISTRY", &reg).args(&args).output().unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr).to_string();
            if out.status.success() {
                if let Some(rest) = stderr.split("Finished generation ").nth(1) {
                    let id: u64 = rest
                        .split(|c: char| !c.is_ascii_digit())
                        .next()
                        .unwrap()
                        .parse()
                        .unwrap();
                    generations.insert(id, files(&env));
                }
            } else {
                // Expected refusals only: not a dependency, nothing to roll back, no such
                // generation, nothing installed yet.
                prop_assert_eq!(out.status.code(), Some(1), "{:?}: {}", args, stderr);
            }
            check_files_parse(&env, &hosts);
            if env.project.join("dotpack.lock").exists() {
                let status = env.with_registry(&reg, &["status", "--json"]).output().unwrap();
                let text = String::from_utf8_lossy(&status.stdout).to_string();
                prop_assert!(status.status.success(), "{}", String::from_utf8_lossy(&status.stderr));
                prop_assert!(text.contains("\"entries\": []"), "after {:?}: {}", args, text);
            }
        }
        let ids: Vec<u64> = generations.keys().copied().collect();
        let n = ids[pick.index(ids.len())];
        if ids.len() > 1 {
            let out = env.with_registry(&reg, &["rollback", &n.to_string()]).output().unwrap();
            prop_assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
            prop_assert_eq!(&files(&env), &generations[&n], "rollback {}", n);
        }
    }
}
