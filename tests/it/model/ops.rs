//! The steps of a sequence and how proptest draws them.

use std::collections::BTreeSet;

use proptest::prelude::*;
use proptest::sample::Index;

use super::reference::{NAMES, PACKAGES, Scope};
use super::world::Set;

#[derive(Clone, Debug)]
pub enum Edit {
    /// Change a value inside an entry dotpack wrote (in any host file).
    Change(Index),
    /// Delete an entry dotpack wrote (in any host file).
    Delete(Index),
    /// Add the hand-written entry `mine` to a project file (0..3) or `~/.claude.json` (3).
    Mine(usize),
}

/// A name chosen when the step runs: one the project knows (its dependencies, their packages
/// and servers), so that removing and uninstalling mostly name something; or any of a fixed
/// list (an index into `NAMES`, whose first entries are the packages in `PACKAGES` order).
#[derive(Clone, Copy, Debug)]
pub enum Pick {
    Known(Index),
    Any(usize),
}

impl Pick {
    pub fn index(self) -> usize {
        match self {
            Pick::Any(i) => i,
            Pick::Known(_) => unreachable!("picked when the step runs"),
        }
    }

    /// The name this pick stands for among `known` (names in `NAMES`), or `fallback` picks.
    pub fn choose(self, known: &BTreeSet<String>, fallback: usize) -> Pick {
        match self {
            Pick::Known(i) if !known.is_empty() => {
                let name = known.iter().nth(i.index(known.len())).expect("in range");
                Pick::Any(NAMES.iter().position(|n| n == name).expect("a known name"))
            }
            Pick::Known(i) => Pick::Any(i.index(fallback)),
            any => any,
        }
    }
}

#[derive(Clone, Debug)]
pub enum Op {
    Init,
    Add {
        packages: Vec<usize>,
        host: Option<usize>,
        scope: Option<Scope>,
        set: Option<Set>,
    },
    Remove {
        package: Pick,
        host: Option<usize>,
    },
    Install {
        name: Option<Pick>,
        host: Option<usize>,
        scope: Option<Scope>,
        force: bool,
    },
    Uninstall {
        name: Option<Pick>,
        host: Option<usize>,
        scope: Option<Scope>,
        force: bool,
    },
    Update,
    Lock,
    Rollback(Option<u64>),
    Edit(Edit),
    /// Replace dotpack.lock with a git conflict between it and one of its earlier versions.
    Conflict(Index),
    /// In project B: `add X --scope user --host claude-code`.
    BAdd(usize),
    /// In project B: `remove X`.
    BRemove(Pick),
    /// A command with `--dry-run`: it ends as it would, and writes nothing.
    DryRun(Box<Op>),
}

pub fn scope() -> impl Strategy<Value = Option<Scope>> {
    prop_oneof![
        3 => Just(None),
        3 => Just(Some(Scope::User)),
        1 => Just(Some(Scope::Project)),
    ]
}

/// claude-code, the host project B shares, most often.
pub fn host() -> impl Strategy<Value = Option<usize>> {
    prop_oneof![
        3 => Just(None),
        2 => Just(Some(0usize)),
        1 => Just(Some(1usize)),
        1 => Just(Some(2usize)),
    ]
}

pub fn set() -> impl Strategy<Value = Option<Set>> {
    prop_oneof![
        10 => Just(None),
        2 => prop_oneof![Just(4000u16), Just(5000u16)].prop_map(|p| Some(Set::Port(p))),
        1 => Just(Some(Set::Secret)),
    ]
}

pub fn pick(names: usize) -> impl Strategy<Value = Pick> {
    prop_oneof![
        4 => any::<Index>().prop_map(Pick::Known),
        1 => (0..names).prop_map(Pick::Any),
    ]
}

pub fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        1 => Just(Op::Init),
        6 => (
            proptest::sample::subsequence((0..PACKAGES.len()).collect::<Vec<_>>(), 1..=2),
            host(),
            scope(),
            set(),
        )
            .prop_map(|(packages, host, scope, set)| Op::Add { packages, host, scope, set }),
        // tuned with its input set, which makes its definition differ from project B's.
        1 => (host(), scope(), prop_oneof![Just(4000u16), Just(5000u16)]).prop_map(
            |(host, scope, port)| Op::Add {
                packages: vec![4],
                host,
                scope,
                set: Some(Set::Port(port)),
            }
        ),
        2 => (pick(PACKAGES.len()), prop_oneof![8 => Just(None), 1 => Just(Some(0usize))])
            .prop_map(|(package, host)| Op::Remove { package, host }),
        3 => (proptest::option::of(pick(NAMES.len())), host(), scope(), proptest::bool::weighted(0.3))
            .prop_map(|(name, host, scope, force)| Op::Install { name, host, scope, force }),
        3 => (proptest::option::of(pick(NAMES.len())), host(), scope(), proptest::bool::weighted(0.2))
            .prop_map(|(name, host, scope, force)| Op::Uninstall { name, host, scope, force }),
        1 => Just(Op::Update),
        1 => Just(Op::Lock),
        2 => proptest::option::weighted(0.3, 0u64..6).prop_map(Op::Rollback),
        4 => prop_oneof![
            any::<Index>().prop_map(Edit::Change),
            any::<Index>().prop_map(Edit::Delete),
            (0usize..4).prop_map(Edit::Mine),
        ]
        .prop_map(Op::Edit),
        2 => any::<Index>().prop_map(Op::Conflict),
        3 => (0..PACKAGES.len()).prop_map(Op::BAdd),
        1 => pick(PACKAGES.len()).prop_map(Op::BRemove),
    ]
}

/// Most sequences start with `init` in A.
pub fn ops(max: usize) -> impl Strategy<Value = Vec<Op>> {
    (
        proptest::bool::weighted(0.9),
        proptest::collection::vec(
            (op(), proptest::bool::weighted(0.08)).prop_map(|(op, dry)| match op {
                Op::Edit(_) | Op::Conflict(_) => op,
                op if dry => Op::DryRun(Box::new(op)),
                op => op,
            }),
            1..max,
        ),
    )
        .prop_map(|(init, mut ops)| {
            if init {
                ops.insert(0, Op::Init);
            }
            ops
        })
}
