//! The planner's decision table (see the module's doc comment), one row per case: what the
//! target file holds and what the claims say before, what the command wants, and the outcome.
//! Every "before" that dotpack wrote is made by the planner itself, from an empty file, so the
//! claims and bytes are the ones a real install leaves.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use semver::Version;

use super::*;
use crate::model::hosts::{HostEnv, adapter};

const ROOT: &str = "/nonexistent/project";
const HOME: &str = "/nonexistent/home";
/// How the project under test names itself as an owner of user-scope entries.
const ME: &str = "/nonexistent/project";
/// Another project declaring user-scope entries.
const OTHER: &str = "/nonexistent/other";

/// A server a package declares, as its canonical TOML.
#[derive(Clone, Copy, Debug)]
struct S {
    server: &'static str,
    package: &'static str,
    version: &'static str,
    def: &'static str,
}

const FIGMA: S = S {
    server: "figma",
    package: "figma",
    version: "0.3.1",
    def: "url = \"http://127.0.0.1:3845/mcp\"\n",
};
/// The next version of FIGMA, with another port: its entry changes.
const FIGMA_NEXT: S = S {
    version: "0.3.2",
    def: "url = \"http://127.0.0.1:4000/mcp\"\n",
    ..FIGMA
};
/// The next version of FIGMA with the same definition: its entry does not change.
const FIGMA_SAME: S = S {
    version: "0.3.2",
    ..FIGMA
};
/// Another package declaring a server named `figma`.
const FIGMA_FORK: S = S {
    package: "figma-fork",
    ..FIGMA
};
const GITHUB: S = S {
    server: "github",
    package: "github",
    version: "1.0.0",
    def: "command = \"npx\"\nargs = [\"-y\", \"@modelcontextprotocol/server-github\"]\n",
};
/// `cwd` is lossy for claude-code and not security-relevant.
const WITH_CWD: S = S {
    server: "tool",
    package: "tool",
    version: "2.0.0",
    def: "command = \"tool\"\nargs = []\ncwd = \"/srv\"\n",
};
/// `oauth` is lossy for cursor and security-relevant.
const WITH_OAUTH: S = S {
    server: "remote",
    package: "remote",
    version: "1.0.0",
    def: "url = \"https://example.invalid/mcp\"\noauth = { client_id = \"c\" }\n",
};

/// An entry the user wrote by hand in claude-code's `.mcp.json`.
const HAND_WRITTEN: &str =
    "{\n  \"mcpServers\": {\n    \"figma\": {\n      \"command\": \"my-figma\"\n    }\n  }\n}\n";

fn desired(s: S, allow_lossy: &[&str]) -> Desired {
    let def: Server = toml::from_str(s.def).unwrap();
    Desired {
        server: s.server.to_string(),
        package: s.package.to_string(),
        version: Version::parse(s.version).unwrap(),
        def: Some(def),
        props: Props::new(),
        inputs: String::new(),
        switched_off: false,
        launcher: Default::default(),
        allow_lossy: allow_lossy.iter().map(|f| f.to_string()).collect(),
        keep_current: false,
    }
}

fn target(host: &str, scope: Scope) -> Target {
    Target::new(
        adapter(host).unwrap(),
        scope,
        Path::new(ROOT),
        &HostEnv::new(HOME),
    )
    .unwrap()
}

/// The state of one target file: its bytes and every claim.
#[derive(Clone, Debug, Default)]
struct State {
    text: Option<String>,
    claims: Vec<Claim>,
}

/// Everything a run of the planner is given besides the file's state.
#[derive(Clone)]
struct Run {
    host: &'static str,
    scope: Scope,
    owner: &'static str,
    want: Vec<Desired>,
    force: bool,
    lossy: LossyPolicy,
    mode: Mode,
}

impl Run {
    fn sync(host: &'static str, scope: Scope, want: &[S]) -> Run {
        Run {
            host,
            scope,
            owner: ME,
            want: want.iter().map(|s| desired(*s, &[])).collect(),
            force: false,
            lossy: LossyPolicy::default(),
            mode: Mode::Sync,
        }
    }

    fn plan(&self, state: &State) -> Result<Plan, PlanError> {
        self.plan_all(&[self.host], state)
    }

    /// Plans the same servers into the file of each of `hosts`; `state.text` is the text of
    /// every one of them.
    fn plan_all(&self, hosts: &[&'static str], state: &State) -> Result<Plan, PlanError> {
        let targets: Vec<Target> = hosts.iter().map(|h| target(h, self.scope)).collect();
        let inputs: Vec<TargetInput<'_>> = targets
            .iter()
            .map(|t| TargetInput {
                target: t.clone(),
                desired: self.want.iter().collect(),
            })
            .collect();
        let files: BTreeMap<_, _> = targets
            .iter()
            .map(|t| {
                (
                    t.path.clone(),
                    state.text.as_deref().map(crate::util::text::Text::from),
                )
            })
            .collect();
        plan(&PlanInput {
            targets: &inputs,
            files: &files,
            parsed: &BTreeMap::new(),
            claims: &state.claims,
            owner: self.owner,
            force: self.force,
            keep_edited: false,
            keep_adopted: false,
            originals: &Default::default(),
            lossy: &self.lossy,
            mode: self.mode.clone(),
            resolve_env: false,
        })
    }
}

/// The state after applying `plan` to a single-file state.
fn applied(plan: &Plan) -> State {
    assert_eq!(plan.files.len(), 1, "one file planned");
    State {
        text: plan.files[0].after.as_deref().map(str::to_owned),
        claims: plan.claims.clone(),
    }
}

/// What a real install of `servers` by `owner` leaves in the host file.
fn installed(host: &'static str, scope: Scope, owner: &'static str, servers: &[S]) -> State {
    let run = Run {
        owner,
        ..Run::sync(host, scope, servers)
    };
    let plan = run.plan(&State::default()).expect("a fresh install plans");
    applied(&plan)
}

fn actions(plan: &Plan) -> Vec<(String, Action)> {
    plan.files
        .iter()
        .flat_map(|f| f.changes.iter().map(|c| (c.server.clone(), c.action)))
        .collect()
}

/// The entries of the file's new text.
fn entries_after(host: &str, scope: Scope, plan: &Plan) -> BTreeMap<String, serde_json::Value> {
    let t = target(host, scope);
    let text = plan.files[0].after.clone().unwrap_or_default();
    formats::list_entries(t.format(), &text, t.container())
        .unwrap()
        .into_iter()
        .collect()
}

/// What a row of the table expects.
enum Expect {
    /// The plan succeeds with these entry actions, in order.
    Actions(&'static [(&'static str, Action)]),
    /// The plan is refused; the message contains every one of these.
    Refused(&'static [&'static str]),
}

/// How a row's "before" state is made.
#[derive(Clone, Copy)]
enum Before {
    Absent,
    /// A file the user wrote; no claims.
    Text(&'static str),
    /// What installing these servers (by this project) left.
    Installed(&'static [S]),
    /// Installed, then the entry of the first server edited by hand.
    EditedByHand(&'static [S]),
    /// Installed, then the entry of the first server deleted by hand.
    DeletedByHand(&'static [S]),
}

fn before(b: Before, host: &'static str, scope: Scope) -> State {
    match b {
        Before::Absent => State::default(),
        Before::Text(text) => State {
            text: Some(text.to_string()),
            claims: Vec::new(),
        },
        Before::Installed(servers) => installed(host, scope, ME, servers),
        Before::EditedByHand(servers) | Before::DeletedByHand(servers) => {
            let mut state = installed(host, scope, ME, servers);
            let t = target(host, scope);
            let text = state.text.take().unwrap_or_default();
            let server = servers[0].server;
            let edited = if matches!(b, Before::EditedByHand(_)) {
                let hand = serde_json::json!({"command": "edited-by-hand"});
                formats::apply_ops(
                    t.format(),
                    &text,
                    t.container(),
                    &[Op::Upsert(server, &hand)],
                )
            } else {
                let created = Created::default();
                formats::apply_ops(
                    t.format(),
                    &text,
                    t.container(),
                    &[Op::Remove(server, &created)],
                )
            };
            state.text = Some(edited.unwrap().text);
            state
        }
    }
}

struct Row {
    name: &'static str,
    host: &'static str,
    scope: Scope,
    before: Before,
    want: &'static [S],
    force: bool,
    expect: Expect,
}

const fn row(
    name: &'static str,
    host: &'static str,
    before: Before,
    want: &'static [S],
    expect: Expect,
) -> Row {
    Row {
        name,
        host,
        scope: Scope::Project,
        before,
        want,
        force: false,
        expect,
    }
}

const fn forced(r: Row) -> Row {
    Row { force: true, ..r }
}

const fn at_user(r: Row) -> Row {
    Row {
        scope: Scope::User,
        ..r
    }
}

use Action::{Add, Forget, KeptEdited, Remove, Unchanged, Update};
use Before::{Absent, DeletedByHand, EditedByHand, Installed, Text};
use Expect::{Actions, Refused};

const UNCLAIMED: &[&str] = &[
    ".mcp.json#mcpServers.figma already exists and was not written by dotpack",
    "package `figma` wants server `figma` there",
    "`--force` replaces it",
    "`dotpack adopt figma`",
];

/// Sync mode (`install`, `add`, `update`, `remove`): the decision table of the module's doc.
#[rustfmt::skip]
const SYNC: &[Row] = &[
    row("install into an absent file", "claude-code", Absent, &[FIGMA], Actions(&[("figma", Add)])),
    row("install into an empty object", "claude-code", Text("{}\n"), &[FIGMA], Actions(&[("figma", Add)])),
    row("install two servers", "claude-code", Absent, &[FIGMA, GITHUB], Actions(&[("figma", Add), ("github", Add)])),
    row("install beside a hand-written entry of another name", "claude-code", Text("{\"mcpServers\": {\"mine\": {\"command\": \"m\"}}}\n"), &[FIGMA], Actions(&[("figma", Add)])),
    row("install into codex's TOML", "codex", Absent, &[GITHUB], Actions(&[("github", Add)])),
    row("install into vscode's own shape", "vscode", Absent, &[FIGMA], Actions(&[("figma", Add)])),
    row("an unchanged entry is a no-op", "claude-code", Installed(&[FIGMA]), &[FIGMA], Actions(&[("figma", Unchanged)])),
    row("a new version with the same entry is a no-op", "claude-code", Installed(&[FIGMA]), &[FIGMA_SAME], Actions(&[("figma", Unchanged)])),
    row("a changed entry is updated", "claude-code", Installed(&[FIGMA]), &[FIGMA_NEXT], Actions(&[("figma", Update)])),
    row("a changed entry is updated in TOML", "codex", Installed(&[FIGMA]), &[FIGMA_NEXT], Actions(&[("figma", Update)])),
    row("a removed dependency is removed through its claim", "claude-code", Installed(&[FIGMA, GITHUB]), &[GITHUB], Actions(&[("github", Unchanged), ("figma", Remove)])),
    row("the last dependency removed", "codex", Installed(&[GITHUB]), &[], Actions(&[("github", Remove)])),
    row("an entry deleted by hand is added again", "claude-code", DeletedByHand(&[FIGMA]), &[FIGMA], Actions(&[("figma", Add)])),
    row("an entry deleted by hand and no longer wanted: only the claim goes", "claude-code", DeletedByHand(&[FIGMA, GITHUB]), &[GITHUB], Actions(&[("github", Unchanged), ("figma", Forget)])),
    row("an entry edited by hand is kept", "claude-code", EditedByHand(&[FIGMA]), &[FIGMA_NEXT], Actions(&[("figma", KeptEdited)])),
    forced(row("an entry edited by hand is replaced with --force", "claude-code", EditedByHand(&[FIGMA]), &[FIGMA_NEXT], Actions(&[("figma", Update)]))),
    row("an entry edited by hand and no longer wanted is kept", "claude-code", EditedByHand(&[FIGMA]), &[], Actions(&[("figma", KeptEdited)])),
    forced(row("an entry edited by hand and no longer wanted goes with --force", "claude-code", EditedByHand(&[FIGMA]), &[], Actions(&[("figma", Remove)]))),
    row("a collision with an entry the user wrote is refused", "claude-code", Text(HAND_WRITTEN), &[FIGMA], Refused(UNCLAIMED)),
    forced(row("a collision with an entry the user wrote is replaced with --force", "claude-code", Text(HAND_WRITTEN), &[FIGMA], Actions(&[("figma", Update)]))),
    row("a server another package owns is refused", "claude-code", Installed(&[FIGMA]), &[FIGMA_FORK], Refused(&["belongs to package `figma`", "package `figma-fork` declares the same server"])),
    row("a file that does not parse is refused", "claude-code", Text("{ not json"), &[FIGMA], Refused(&[".mcp.json:", "dotpack never rewrites a file it cannot read"])),
    at_user(row("install at user scope", "claude-code", Absent, &[FIGMA], Actions(&[("figma", Add)]))),
    at_user(row("a removed dependency at user scope goes with its last owner", "claude-code", Installed(&[FIGMA, GITHUB]), &[GITHUB], Actions(&[("github", Unchanged), ("figma", Remove)]))),
];

#[test]
fn sync_follows_the_decision_table() {
    for r in SYNC {
        let state = before(r.before, r.host, r.scope);
        let run = Run {
            force: r.force,
            ..Run::sync(r.host, r.scope, r.want)
        };
        let result = run.plan(&state);
        match (&r.expect, result) {
            (Actions(want), Ok(plan)) => {
                let want: Vec<(String, Action)> =
                    want.iter().map(|(s, a)| (s.to_string(), *a)).collect();
                assert_eq!(actions(&plan), want, "{}", r.name);
                check_plan(r, &state, &plan);
            }
            (Refused(parts), Err(err)) => {
                let text = err.to_string();
                for part in *parts {
                    assert!(text.contains(part), "{}: {text:?} lacks {part:?}", r.name);
                }
            }
            (Actions(_), Err(err)) => panic!("{}: refused: {err}", r.name),
            (Refused(_), Ok(plan)) => panic!("{}: planned {:?}", r.name, actions(&plan)),
        }
    }
}

/// What holds for every successful sync plan: the file holds exactly the entries it should, the
/// claims match them, and a plan of no edits leaves the bytes alone.
fn check_plan(r: &Row, state: &State, plan: &Plan) {
    let file = &plan.files[0];
    assert_eq!(
        file.before.as_deref(),
        state.text.as_deref(),
        "{}: before is the bytes read",
        r.name
    );
    let edits = file
        .changes
        .iter()
        .any(|c| matches!(c.action, Add | Update | Remove));
    assert_eq!(
        file.is_changed(),
        edits,
        "{}: changed exactly when edited",
        r.name
    );
    let entries = entries_after(r.host, r.scope, plan);
    for change in &file.changes {
        let present = entries.contains_key(&change.server);
        let should = !matches!(change.action, Remove | Forget);
        assert_eq!(present, should, "{}: {} present", r.name, change.server);
        let claimed = plan.claims.iter().find(|c| c.server == change.server);
        assert_eq!(
            claimed.is_some(),
            should,
            "{}: {} claimed",
            r.name,
            change.server
        );
        if let (Some(claim), Some(entry)) = (claimed, entries.get(&change.server))
            && change.action != KeptEdited
        {
            assert_eq!(claim.entry, entry_hash(entry), "{}: claim hash", r.name);
            let t = target(r.host, r.scope);
            assert_eq!(claim.file, t.claim_file, "{}: claim file", r.name);
            assert_eq!(claim.host, r.host, "{}: claim host", r.name);
        }
    }
    // An edited entry warns; nothing else does.
    let kept = file.changes.iter().any(|c| c.action == KeptEdited);
    assert_eq!(
        !plan.warnings.is_empty(),
        kept,
        "{}: {:?}",
        r.name,
        plan.warnings
    );
    if kept {
        assert!(
            plan.warnings.iter().all(|w| w.contains("edited by hand")),
            "{}: {:?}",
            r.name,
            plan.warnings
        );
    }
    // Planning what was planned is a no-op.
    if !kept {
        let run = Run {
            force: r.force,
            ..Run::sync(r.host, r.scope, r.want)
        };
        let again = run.plan(&applied(plan)).expect("plans again");
        assert!(
            !again.files[0].is_changed(),
            "{}: second plan edits",
            r.name
        );
    }
}

#[test]
fn a_hand_written_entry_keeps_its_bytes_when_another_server_is_added() {
    let text = "{\n  // comment\n  \"mcpServers\": {\"mine\": {\"command\": \"m\"}}\n}\n";
    let run = Run::sync("claude-code", Scope::Project, &[FIGMA]);
    let state = State {
        text: Some(text.to_string()),
        claims: Vec::new(),
    };
    // .mcp.json is strict JSON: a comment is a file that does not parse.
    assert!(run.plan(&state).is_err());
    let text = "{\n  \"mcpServers\": {\"mine\": {\"command\": \"m\"}}\n}\n";
    let state = State {
        text: Some(text.to_string()),
        claims: Vec::new(),
    };
    let plan = run.plan(&state).unwrap();
    let after = plan.files[0].after.as_deref().unwrap();
    assert!(after.contains("\"mine\": {\"command\": \"m\"}"), "{after}");
    assert_eq!(plan.claims.len(), 1, "only figma is claimed");
}

#[test]
fn a_file_dotpack_created_goes_with_its_last_entry() {
    let state = installed("claude-code", Scope::Project, ME, &[FIGMA]);
    assert!(state.claims.iter().all(|c| c.created_file));
    let plan = Run::sync("claude-code", Scope::Project, &[])
        .plan(&state)
        .unwrap();
    assert_eq!(plan.files[0].after, None, "the file is deleted");
    assert!(plan.claims.is_empty());
    // A file the user had keeps its container when the last entry goes.
    let state = before(Text("{}\n"), "claude-code", Scope::Project);
    let plan = Run::sync("claude-code", Scope::Project, &[FIGMA])
        .plan(&state)
        .unwrap();
    let state = applied(&plan);
    assert!(state.claims.iter().all(|c| !c.created_file));
    let plan = Run::sync("claude-code", Scope::Project, &[])
        .plan(&state)
        .unwrap();
    assert_eq!(plan.files[0].after.as_deref(), Some("{}\n"));
}

/// `(name, host, server, --allow-lossy, allow_lossy on the dependency, refusal or dropped field)`.
type LossyRow = (
    &'static str,
    &'static str,
    S,
    LossyPolicy,
    &'static [&'static str],
    Result<&'static str, &'static [&'static str]>,
);

fn policy(bare: bool, named: &[&str]) -> LossyPolicy {
    LossyPolicy {
        bare,
        named: named.iter().map(|n| n.to_string()).collect(),
    }
}

#[test]
fn lossy_fields_are_refused_unless_allowed() {
    let none = LossyPolicy::default();
    #[rustfmt::skip]
    let rows: Vec<LossyRow> = vec![
        ("a host that has the field drops nothing", "codex", WITH_CWD, none.clone(), &[], Ok("")),
        ("a plain lossy field is refused", "claude-code", WITH_CWD, none.clone(), &[], Err(&[
            "installing would drop fields these hosts cannot express",
            "claude-code .mcp.json: server `tool` field `cwd`, concept stdio_working_directory",
            "`--allow-lossy` to drop the fields that are not security-relevant",
        ])),
        ("a bare --allow-lossy drops a plain field", "claude-code", WITH_CWD, policy(true, &[]), &[], Ok("cwd")),
        ("naming the field drops it", "claude-code", WITH_CWD, policy(false, &["cwd"]), &[], Ok("cwd")),
        ("naming the concept drops it", "claude-code", WITH_CWD, policy(false, &["stdio_working_directory"]), &[], Ok("cwd")),
        ("the dependency's allow_lossy drops it", "claude-code", WITH_CWD, none.clone(), &["cwd"], Ok("cwd")),
        ("a security-relevant field is refused", "cursor", WITH_OAUTH, none.clone(), &[], Err(&[
            "field `oauth` (security-relevant)",
            "`--allow-lossy=oauth` to drop security-relevant fields",
        ])),
        ("a bare --allow-lossy does not drop a security-relevant field", "cursor", WITH_OAUTH, policy(true, &[]), &[], Err(&["field `oauth` (security-relevant)"])),
        ("a named security-relevant field is dropped", "cursor", WITH_OAUTH, policy(false, &["oauth"]), &[], Ok("oauth")),
        ("the dependency may name a security-relevant field", "cursor", WITH_OAUTH, none.clone(), &["oauth"], Ok("oauth")),
        ("another named field does not drop it", "cursor", WITH_OAUTH, policy(true, &["cwd"]), &[], Err(&["field `oauth`"])),
    ];
    for (name, host, server, lossy, on_dependency, expect) in rows {
        let run = Run {
            lossy,
            want: vec![desired(server, on_dependency)],
            ..Run::sync(host, Scope::Project, &[])
        };
        match (run.plan(&State::default()), expect) {
            (Ok(plan), Ok(field)) => {
                let dropped: Vec<&str> = if field.is_empty() {
                    vec![]
                } else {
                    vec![field]
                };
                assert_eq!(plan.files[0].changes[0].dropped, dropped, "{name}");
                assert_eq!(
                    plan.claims[0].dropped, dropped,
                    "{name}: recorded in the claim"
                );
                assert!(
                    !entries_after(host, Scope::Project, &plan)[server.server]
                        .as_object()
                        .unwrap()
                        .contains_key(field),
                    "{name}: not written"
                );
            }
            (Err(err), Err(parts)) => {
                let text = err.to_string();
                for part in parts {
                    assert!(text.contains(part), "{name}: {text:?} lacks {part:?}");
                }
            }
            (got, want) => panic!("{name}: got {:?}, want {want:?}", got.map(|p| actions(&p))),
        }
    }
}

#[test]
fn a_drop_allowed_once_stays_allowed_for_the_same_package() {
    let run = Run {
        lossy: policy(true, &[]),
        ..Run::sync("claude-code", Scope::Project, &[WITH_CWD])
    };
    let state = applied(&run.plan(&State::default()).unwrap());
    // The next install, with no flag: the claim records the drop, so it is not asked again.
    let plan = Run::sync("claude-code", Scope::Project, &[WITH_CWD])
        .plan(&state)
        .unwrap();
    assert_eq!(actions(&plan), [("tool".to_string(), Unchanged)]);
    assert_eq!(plan.files[0].changes[0].dropped, ["cwd"]);
}

#[test]
fn every_problem_of_every_host_is_reported_at_once() {
    let run = Run::sync("claude-code", Scope::Project, &[WITH_CWD, WITH_OAUTH]);
    let err = run
        .plan_all(&["claude-code", "cursor", "gemini-cli"], &State::default())
        .unwrap_err();
    let text = err.to_string();
    // An `oauth` table no host's converter takes drops everywhere; `cwd` only where the host
    // has no working directory (gemini-cli has one).
    for part in [
        "claude-code .mcp.json: server `tool` field `cwd`",
        "claude-code .mcp.json: server `remote` field `oauth`",
        "cursor .cursor/mcp.json: server `tool` field `cwd`",
        "cursor .cursor/mcp.json: server `remote` field `oauth`",
        "gemini-cli .gemini/settings.json: server `remote` field `oauth`",
    ] {
        assert!(text.contains(part), "{text}");
    }
    assert!(
        !text.contains("gemini-cli .gemini/settings.json: server `tool`"),
        "{text}"
    );
    assert_eq!(
        text.matches("installing would drop fields").count(),
        1,
        "one lossy list: {text}"
    );
}

#[test]
fn several_hosts_get_one_file_each_in_their_own_shape() {
    let hosts = ["claude-code", "codex", "cursor", "vscode", "gemini-cli"];
    let run = Run::sync("claude-code", Scope::Project, &[FIGMA, GITHUB]);
    let plan = run.plan_all(&hosts, &State::default()).unwrap();
    assert_eq!(plan.files.len(), hosts.len());
    assert_eq!(plan.claims.len(), 2 * hosts.len());
    for (file, host) in plan.files.iter().zip(hosts) {
        assert_eq!(file.target.host.id, host);
        assert!(file.before.is_none());
        let after = file.after.as_deref().unwrap();
        assert!(
            after.contains("figma") && after.contains("github"),
            "{host}: {after}"
        );
        let claims: BTreeSet<&str> = plan
            .claims
            .iter()
            .filter(|c| c.host == host)
            .map(|c| c.file.as_str())
            .collect();
        assert_eq!(claims, BTreeSet::from([file.target.claim_file.as_str()]));
    }
    let codex = plan.files[1].after.as_deref().unwrap();
    assert!(codex.contains("[mcp_servers.github]"), "{codex}");
    let vscode = plan.files[3].after.as_deref().unwrap();
    assert!(vscode.contains("\"servers\""), "{vscode}");
    // Claims are sorted, whatever the order of the targets.
    let mut sorted = plan.claims.clone();
    crate::model::claims::sort(&mut sorted);
    assert_eq!(
        sorted
            .iter()
            .map(|c| (&c.file, &c.server))
            .collect::<Vec<_>>(),
        plan.claims
            .iter()
            .map(|c| (&c.file, &c.server))
            .collect::<Vec<_>>()
    );
}

#[test]
fn claims_of_files_not_planned_are_kept() {
    let codex = installed("codex", Scope::Project, ME, &[GITHUB]);
    let mut state = installed("claude-code", Scope::Project, ME, &[FIGMA]);
    state.claims.extend(codex.claims.clone());
    // Planning only claude-code, with nothing wanted: codex's claim is not touched.
    let plan = Run::sync("claude-code", Scope::Project, &[])
        .plan(&state)
        .unwrap();
    assert_eq!(actions(&plan), [("figma".to_string(), Remove)]);
    assert_eq!(plan.claims, codex.claims);
}

#[test]
fn scope_decides_owners_and_files() {
    let project = installed("claude-code", Scope::Project, ME, &[FIGMA]);
    assert!(
        project.claims[0].owners.is_empty(),
        "project claims have no owners"
    );
    assert_eq!(project.claims[0].file, ".mcp.json");
    assert_eq!(project.claims[0].scope, "project");
    let user = installed("claude-code", Scope::User, ME, &[FIGMA]);
    assert_eq!(user.claims[0].owners, [ME]);
    assert_eq!(user.claims[0].scope, "user");
    assert!(
        Path::new(&user.claims[0].file).starts_with(HOME),
        "{}",
        user.claims[0].file
    );
}

/// `(name, state by OTHER, what ME wants, force, actions or refusal, owners of figma after)`.
type SharedRow = (
    &'static str,
    &'static [S],
    &'static [S],
    bool,
    Result<&'static [(&'static str, Action)], &'static str>,
    &'static [&'static str],
);

#[test]
fn user_scope_entries_are_shared_between_owners() {
    #[rustfmt::skip]
    let rows: &[SharedRow] = &[
        ("the same definition is shared", &[FIGMA], &[FIGMA], false, Ok(&[("figma", Action::Share)]), &[OTHER, ME]),
        ("another definition is refused", &[FIGMA], &[FIGMA_NEXT], false, Err("is declared differently by `/nonexistent/other`"), &[]),
        ("another definition with --force is written", &[FIGMA], &[FIGMA_NEXT], true, Ok(&[("figma", Update)]), &[OTHER, ME]),
        ("another package of the same name is refused", &[FIGMA], &[FIGMA_FORK], false, Err("belongs to package `figma`"), &[]),
        ("nothing wanted leaves another owner's entry alone", &[FIGMA], &[], false, Ok(&[]), &[OTHER]),
    ];
    for (name, theirs, mine, force, expect, owners) in rows {
        let state = installed("claude-code", Scope::User, OTHER, theirs);
        let run = Run {
            force: *force,
            ..Run::sync("claude-code", Scope::User, mine)
        };
        match (run.plan(&state), expect) {
            (Ok(plan), Ok(want)) => {
                let want: Vec<(String, Action)> =
                    want.iter().map(|(s, a)| (s.to_string(), *a)).collect();
                assert_eq!(actions(&plan), want, "{name}");
                let claim = plan.claims.iter().find(|c| c.server == "figma").unwrap();
                assert_eq!(claim.owners, *owners, "{name}");
                if want.first().is_some_and(|(_, a)| *a == Action::Share) {
                    assert!(
                        !plan.files[0].is_changed(),
                        "{name}: sharing writes nothing"
                    );
                }
            }
            (Err(err), Err(part)) => assert!(err.to_string().contains(part), "{name}: {err}"),
            (got, want) => panic!("{name}: got {:?}, want {want:?}", got.map(|p| actions(&p))),
        }
    }
}

#[test]
fn a_shared_user_entry_stays_until_its_last_owner_leaves() {
    let theirs = installed("claude-code", Scope::User, OTHER, &[FIGMA]);
    let shared = applied(
        &Run::sync("claude-code", Scope::User, &[FIGMA])
            .plan(&theirs)
            .unwrap(),
    );
    assert_eq!(shared.claims[0].owners, [OTHER, ME]);
    // ME leaves: the entry stays, OTHER alone owns it.
    let plan = Run::sync("claude-code", Scope::User, &[])
        .plan(&shared)
        .unwrap();
    assert_eq!(actions(&plan), [("figma".to_string(), Action::Release)]);
    assert!(!plan.files[0].is_changed());
    assert_eq!(plan.claims[0].owners, [OTHER]);
    // OTHER leaves too: the entry goes.
    let left = applied(&plan);
    let run = Run {
        owner: OTHER,
        ..Run::sync("claude-code", Scope::User, &[])
    };
    let plan = run.plan(&left).unwrap();
    assert_eq!(actions(&plan), [("figma".to_string(), Remove)]);
    assert!(plan.claims.is_empty());
}

#[test]
fn adopt_claims_an_entry_as_it_stands() {
    let state = before(Text(HAND_WRITTEN), "claude-code", Scope::Project);
    let run = Run {
        mode: Mode::Adopt(BTreeSet::from(["figma".to_string()])),
        ..Run::sync("claude-code", Scope::Project, &[FIGMA])
    };
    let plan = run.plan(&state).unwrap();
    assert_eq!(actions(&plan), [("figma".to_string(), Action::Adopt)]);
    assert!(!plan.files[0].is_changed(), "adopting writes nothing");
    assert_eq!(plan.claims.len(), 1);
    let hand: serde_json::Value = serde_json::json!({"command": "my-figma"});
    assert_eq!(plan.claims[0].entry, entry_hash(&hand));
    // Once adopted, the next sync updates it to the package's entry.
    let plan = Run::sync("claude-code", Scope::Project, &[FIGMA])
        .plan(&applied(&plan))
        .unwrap();
    assert_eq!(actions(&plan), [("figma".to_string(), Update)]);
    // Adopting an entry another package claims is refused.
    let state = installed("claude-code", Scope::Project, ME, &[FIGMA]);
    let run = Run {
        mode: Mode::Adopt(BTreeSet::from(["figma".to_string()])),
        ..Run::sync("claude-code", Scope::Project, &[FIGMA_FORK])
    };
    let err = run.plan(&state).unwrap_err().to_string();
    assert!(err.contains("belongs to package `figma`"), "{err}");
}

#[test]
fn uninstall_removes_only_what_is_not_desired_and_never_adds() {
    let state = installed("claude-code", Scope::Project, ME, &[FIGMA, GITHUB]);
    // Uninstall of figma: github is desired and stays exactly as it is, even at a new version.
    let run = Run {
        mode: Mode::Uninstall,
        want: vec![desired(GITHUB, &[]), desired(FIGMA_NEXT, &[])],
        ..Run::sync("claude-code", Scope::Project, &[])
    };
    let plan = run.plan(&state).unwrap();
    assert!(actions(&plan).is_empty(), "{:?}", actions(&plan));
    assert!(!plan.files[0].is_changed());
    assert_eq!(plan.claims, state.claims);
    let run = Run {
        mode: Mode::Uninstall,
        want: vec![desired(GITHUB, &[])],
        ..Run::sync("claude-code", Scope::Project, &[])
    };
    let plan = run.plan(&state).unwrap();
    assert_eq!(actions(&plan), [("figma".to_string(), Remove)]);
    // A server wanted but never installed is not added by an uninstall.
    let run = Run {
        mode: Mode::Uninstall,
        want: vec![desired(GITHUB, &[]), desired(WITH_CWD, &[])],
        ..Run::sync("claude-code", Scope::Project, &[])
    };
    let plan = run.plan(&state).unwrap();
    assert!(!entries_after("claude-code", Scope::Project, &plan).contains_key("tool"));
}

#[test]
fn a_current_entry_is_kept_without_translation() {
    let state = installed("claude-code", Scope::Project, ME, &[FIGMA]);
    // Not loaded (def = None): the caller saw the claim is current.
    let mut d = desired(FIGMA, &[]);
    d.def = None;
    let run = Run {
        want: vec![d],
        ..Run::sync("claude-code", Scope::Project, &[])
    };
    let plan = run.plan(&state).unwrap();
    assert_eq!(actions(&plan), [("figma".to_string(), Unchanged)]);
    assert_eq!(plan.claims, state.claims);
    // keep_current: a current claim keeps the entry even when translating would differ.
    let mut d = desired(FIGMA_NEXT, &[]);
    d.version = Version::parse(FIGMA.version).unwrap();
    d.keep_current = true;
    let run = Run {
        want: vec![d],
        ..Run::sync("claude-code", Scope::Project, &[])
    };
    let plan = run.plan(&state).unwrap();
    assert_eq!(actions(&plan), [("figma".to_string(), Unchanged)]);
    assert!(!plan.files[0].is_changed());
}

#[test]
fn is_current_needs_package_version_inputs_and_bytes() {
    let state = installed("claude-code", Scope::Project, ME, &[FIGMA]);
    let claim = &state.claims[0];
    let t = target("claude-code", Scope::Project);
    let entries: BTreeMap<String, serde_json::Value> =
        formats::list_entries(t.format(), state.text.as_deref().unwrap(), t.container())
            .unwrap()
            .into_iter()
            .collect();
    let on_disk = entries.get("figma");
    let v = Version::parse(FIGMA.version).unwrap();
    let next = Version::parse(FIGMA_NEXT.version).unwrap();
    let edited = serde_json::json!({"command": "x"});
    type CurrentRow<'a> = (
        &'a str,
        &'a str,
        &'a Version,
        &'a str,
        Option<&'a serde_json::Value>,
        bool,
    );
    #[rustfmt::skip]
    let rows: &[CurrentRow<'_>] = &[
        ("as claimed", "figma", &v, "", on_disk, true),
        ("another package", "figma-fork", &v, "", on_disk, false),
        ("another version", "figma", &next, "", on_disk, false),
        ("other inputs", "figma", &v, "port=1", on_disk, false),
        ("deleted", "figma", &v, "", None, false),
        ("edited", "figma", &v, "", Some(&edited), false),
    ];
    for (name, package, version, inputs, entry, want) in rows {
        assert_eq!(
            is_current(claim, package, version, inputs, *entry),
            *want,
            "{name}"
        );
    }
}

#[test]
fn a_translation_error_names_the_host_and_server() {
    // An input the package uses and nobody set.
    const NEEDS_PORT: S = S {
        def: "command = \"x\"\nargs = [\"{{props.port}}\"]\n",
        ..FIGMA
    };
    let err = Run::sync("codex", Scope::Project, &[NEEDS_PORT])
        .plan(&State::default())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("server `figma` cannot be written for codex"),
        "{err}"
    );
    assert!(err.contains("--set port=VALUE"), "{err}");
    // Claude Desktop has no remote servers: the url is lossy there, and security-relevant.
    let err = Run::sync("claude-desktop", Scope::User, &[FIGMA])
        .plan(&State::default())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("server `figma` field `transport` (security-relevant)"),
        "{err}"
    );
}

#[test]
fn the_lossy_policy_matches_field_concept_and_root() {
    let env_key = Dropped {
        field: "env.API_KEY".into(),
        concept: "env",
        security: false,
        supported_on: vec![],
    };
    let secure = Dropped {
        field: "enabled_tools".into(),
        concept: "tool_allowlist",
        security: true,
        supported_on: vec!["codex"],
    };
    #[rustfmt::skip]
    let rows: &[(&str, LossyPolicy, &[&str], &Dropped, bool)] = &[
        ("nothing allowed", LossyPolicy::default(), &[], &env_key, false),
        ("bare, plain", policy(true, &[]), &[], &env_key, true),
        ("bare, security", policy(true, &[]), &[], &secure, false),
        ("the root of a dotted field", policy(false, &["env"]), &[], &env_key, true),
        ("the full dotted field", policy(false, &["env.API_KEY"]), &[], &env_key, true),
        ("another key", policy(false, &["env.OTHER"]), &[], &env_key, false),
        ("the concept", policy(false, &["tool_allowlist"]), &[], &secure, true),
        ("on the dependency", LossyPolicy::default(), &["enabled_tools"], &secure, true),
    ];
    for (name, lossy, per_dependency, dropped, want) in rows {
        let per: Vec<String> = per_dependency.iter().map(|s| s.to_string()).collect();
        assert_eq!(lossy.allows(dropped, &per), *want, "{name}");
    }
}

#[test]
fn only_what_the_flag_alone_allows_is_recorded_and_under_a_name_allow_lossy_takes() {
    let env_key = Dropped {
        field: "env.API_KEY".into(),
        concept: "env",
        security: false,
        supported_on: vec![],
    };
    let bare = policy(true, &[]);
    assert!(bare.allows_by_flag_only(&env_key, &[]));
    assert!(!bare.allows_by_flag_only(&env_key, &["env".to_string()]));
    assert!(!LossyPolicy::default().allows_by_flag_only(&env_key, &[]));
    assert_eq!(crate::plan::recorded_lossy_name(&env_key), "env");
    let cwd = Dropped {
        field: "cwd".into(),
        concept: "cwd",
        security: false,
        supported_on: vec![],
    };
    assert_eq!(crate::plan::recorded_lossy_name(&cwd), "cwd");
}
