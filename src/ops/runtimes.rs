//! What the servers dotpack installed need to start, checked where `dotpack doctor` runs: the
//! program each entry runs (and the runtime behind a runner such as `npx` or `uvx`), and the
//! host program that reads each file. Read from the entries as the host files hold them, so it
//! is what the host will start, launcher entries included; nothing is started or fetched.

use std::cell::OnceCell;
use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::Serialize;

use crate::model::claims::Claim;
use crate::plan::Target;

use super::{Project, Settings};

/// A program a server or a host needs that this machine does not have, with the fix.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Missing {
    /// The host file, as claims name it.
    pub file: String,
    pub host: String,
    /// The entry that needs the program; `None` for the host program itself.
    pub server: Option<String>,
    /// The gateway entry the server is behind (`dotpack`), when the host starts the gateway
    /// and the gateway starts the server.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub behind: Option<String>,
    pub program: String,
    pub fix: String,
}

/// [`check`] for the project of this command (`None` outside one, or when its files cannot be
/// read: `doctor` reports those elsewhere), with the process's `PATH`.
pub fn check_here(settings: &Settings, project: Option<&Project>) -> Vec<Missing> {
    match project {
        Some(project) => check(settings, project, std::env::var("PATH").ok().as_deref()),
        None => Vec::new(),
    }
}

/// Each finding with its fix, once: a runner and its runtime (`npx`, `node`) missing together
/// have the same fix.
pub fn print(missing: &[Missing], printer: &crate::ui::printer::Printer) {
    let mut lines: Vec<String> = missing
        .iter()
        .map(|m| format!("{} ({}): {}", m.file, m.host, m.fix))
        .collect();
    lines.dedup();
    lines.into_iter().for_each(|line| printer.warning(line));
}

/// The programs the entries this project claims need, and the hosts that read them, that are
/// not found on `path` (a `PATH` value): one finding per (file, server, program). A gateway
/// entry needs dotpack, and each server behind it what that server needs: `dotpack serve`
/// starts them with the PATH the host gives it.
pub fn check(settings: &Settings, project: &Project, path: Option<&str>) -> Vec<Missing> {
    let dirs: Vec<PathBuf> = path
        .map(|p| std::env::split_paths(p).collect())
        .unwrap_or_default();
    let found = |program: &str| crate::util::program::found(program, &dirs, project.root());
    let behind = OnceCell::new();
    let behind = || behind.get_or_init(|| super::gateway::behind::servers(settings, project));
    let mut missing = Vec::new();
    for (file, (target, claims)) in by_file(settings, project) {
        let host = target.host.id;
        if let Some(program) = target.host.program
            && !found(program)
        {
            missing.push(Missing {
                file: file.clone(),
                host: host.to_string(),
                server: None,
                behind: None,
                program: program.to_string(),
                fix: format!(
                    "{} reads {file}, but `{program}` is not on PATH: install {} (or ignore this where it runs elsewhere)",
                    target.host.display_name, target.host.display_name
                ),
            });
        }
        let Ok(Some(text)) = target.read() else {
            continue;
        };
        let entries = target.entries_in(&text).unwrap_or_default();
        let imported = crate::plan::from_host::import_entries(target.host, entries);
        let at = |server: &str, behind: Option<&str>, program: String, fix: String| Missing {
            file: file.clone(),
            host: host.to_string(),
            server: Some(server.to_string()),
            behind: behind.map(str::to_string),
            program,
            fix,
        };
        for claim in claims {
            let Some(server) = imported.servers.get(&claim.server) else {
                continue;
            };
            let gateway = claim.package == crate::model::gateway::PACKAGE;
            for program in needed(server).into_iter().filter(|p| !found(p)) {
                let fix = match gateway {
                    true => gateway_fix(&program),
                    false => fix_for(&program, &claim.server),
                };
                missing.push(at(&claim.server, None, program, fix));
            }
            for located in behind().iter().filter(|_| gateway) {
                for program in needed(&fields(&located.def))
                    .into_iter()
                    .filter(|p| !found(p))
                {
                    let fix = behind_fix(&program, &located.server);
                    missing.push(at(&located.server, Some(&claim.server), program, fix));
                }
            }
        }
    }
    missing.dedup();
    missing
}

/// The claims of this project, by the file they are in, with that file's host target.
fn by_file(settings: &Settings, project: &Project) -> BTreeMap<String, (Target, Vec<Claim>)> {
    let mut by_file: BTreeMap<String, (Target, Vec<Claim>)> = BTreeMap::new();
    for claim in super::all_claims(project)
        .iter()
        .filter(|c| mine(project, c))
    {
        if let Some(target) = Target::of_claim(claim, project.root(), &settings.host_env) {
            by_file
                .entry(claim.file.clone())
                .or_insert_with(|| (target, Vec::new()))
                .1
                .push(claim.clone());
        }
    }
    by_file
}

/// A server definition's `command` and `args` as the canonical fields [`needed`] reads; a
/// bridged server needs nothing here (the gateway runs the bridge itself).
fn fields(def: &crate::model::manifest::Server) -> serde_json::Map<String, serde_json::Value> {
    let mut out = serde_json::Map::new();
    if crate::model::bridge_server::url_of(def).is_some() {
        return out;
    }
    if let Some(command) = &def.command {
        out.insert("command".into(), command.clone().into());
    }
    if let Some(args) = &def.args {
        out.insert("args".into(), args.clone().into());
    }
    out
}

/// Whether `claim` is this project's: every claim of its lock, and the user-scope claims it
/// owns (other projects' user-scope entries are theirs to check).
fn mine(project: &Project, claim: &Claim) -> bool {
    claim.scope != "user" || claim.owners.is_empty() || claim.owners.contains(&project.owner)
}

/// The programs a server's canonical fields need on PATH, in the order it needs them: its
/// `command`, the real program behind `dotpack run … -- PROGRAM`, and the runtime a runner
/// script is run by (`npx` is a Node.js script).
fn needed(server: &serde_json::Map<String, serde_json::Value>) -> Vec<String> {
    let Some(command) = server.get("command").and_then(|c| c.as_str()) else {
        return Vec::new();
    };
    let args: Vec<&str> = server
        .get("args")
        .and_then(|a| a.as_array())
        .map(|a| a.iter().filter_map(|v| v.as_str()).collect())
        .unwrap_or_default();
    let mut programs = vec![command.to_string()];
    // The launcher runs the program after `--`; Windows' `cmd /c PROGRAM` runs PROGRAM.
    let behind = match program_name(command) {
        "dotpack" => args
            .iter()
            .position(|a| *a == "--")
            .and_then(|i| args.get(i + 1)),
        "cmd" | "cmd.exe" if args.first().is_some_and(|a| a.eq_ignore_ascii_case("/c")) => {
            args.get(1)
        }
        _ => None,
    };
    if let Some(program) = behind {
        programs.push(program.to_string());
    }
    let runtimes: Vec<String> = programs
        .iter()
        .filter_map(|p| runtime_of(program_name(p)))
        .map(str::to_string)
        .collect();
    programs.extend(runtimes);
    // A reference the host expands (`${VAR}/bin/x`) is not a program name to look for.
    programs.retain(|p| !p.contains('$') && !p.contains("{{"));
    programs
}

/// The runtime a runner needs beside it: `npx` and `npm` are scripts Node.js runs.
fn runtime_of(program: &str) -> Option<&'static str> {
    match program {
        "npx" | "npm" | "pnpm" | "yarn" => Some("node"),
        _ => None,
    }
}

/// The file name of `program` without a Windows extension (`C:\…\npx.cmd` → `npx`).
fn program_name(program: &str) -> &str {
    let name = program.rsplit(['/', '\\']).next().unwrap_or(program);
    [".exe", ".cmd", ".bat"]
        .iter()
        .find_map(|ext| name.strip_suffix(ext))
        .unwrap_or(name)
}

/// What a server needing `program` does with it, and how to install it; `None` for dotpack.
fn remedy(program: &str) -> Option<(String, &'static str)> {
    Some(match program_name(program) {
        "node" | "npx" | "npm" => (
            "starts with Node.js".to_string(),
            "install Node.js (it brings npx), from nodejs.org or the system's package manager",
        ),
        "uvx" | "uv" => (
            "starts with uv".to_string(),
            "install uv (docs.astral.sh/uv; `pipx install uv` or the system's package manager)",
        ),
        "docker" => (
            "runs in Docker".to_string(),
            "install Docker (docs.docker.com) and start it",
        ),
        "dotpack" => return None,
        other => (
            format!("runs `{other}`"),
            "install it, or change the server's `command`",
        ),
    })
}

/// What to do about a missing `program` that server `server` needs.
fn fix_for(program: &str, server: &str) -> String {
    match remedy(program) {
        Some((does, install)) => format!("`{server}` {does}, which is not on PATH: {install}"),
        None => format!(
            "`{server}` starts through `dotpack run`, but the host will not find `dotpack` on PATH: put dotpack on PATH, or `dotpack install` again from where it is"
        ),
    }
}

/// What to do about a missing `program` that server `server`, behind the gateway, needs.
fn behind_fix(program: &str, server: &str) -> String {
    let (does, install) = remedy(program).unwrap_or_else(|| {
        (
            "runs `dotpack`".to_string(),
            "put dotpack on PATH, or change the server's `command`",
        )
    });
    format!(
        "`{server}` {does}, which is not on PATH, and the gateway (`dotpack serve`) starts it with the PATH the host gives the gateway: {install}"
    )
}

/// What to do when the gateway's own program, `dotpack` (a project file names it so, the same
/// for every teammate) or this dotpack's path (a user file), is not found.
fn gateway_fix(program: &str) -> String {
    match program.contains(['/', '\\']) {
        false => "the host starts the gateway with `dotpack serve`, but will not find `dotpack` on PATH: put dotpack on the PATH the host starts with (a project file names dotpack by name, the same for every teammate)".to_string(),
        true => format!(
            "the host starts the gateway with `{program} … serve`, which is not there any more: run `dotpack install` again with the dotpack you use now"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn server(v: serde_json::Value) -> serde_json::Map<String, serde_json::Value> {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn a_runner_needs_its_runtime_and_the_launcher_the_program_behind_it() {
        let cases = [
            (
                serde_json::json!({"command": "npx", "args": ["-y", "x"]}),
                vec!["npx", "node"],
            ),
            (
                serde_json::json!({"command": "uvx", "args": ["x"]}),
                vec!["uvx"],
            ),
            (
                serde_json::json!({"command": "dotpack", "args": ["run", "--pin", "p", "--", "npx", "-y", "x"]}),
                vec!["dotpack", "npx", "node"],
            ),
            (
                serde_json::json!({"command": "cmd", "args": ["/c", "npx", "x"]}),
                vec!["cmd", "npx", "node"],
            ),
            (serde_json::json!({"command": "${HOME}/bin/srv"}), vec![]),
            (
                serde_json::json!({"url": "https://example.com/mcp"}),
                vec![],
            ),
        ];
        for (fields, want) in cases {
            assert_eq!(needed(&server(fields.clone())), want, "{fields}");
        }
    }

    #[test]
    fn each_fix_names_what_to_install() {
        assert!(fix_for("npx", "figma").contains("install Node.js"));
        assert!(fix_for("/usr/bin/uvx", "git").contains("install uv"));
        assert!(fix_for("docker", "db").contains("install Docker"));
        assert!(fix_for("my-server", "own").contains("`my-server`"));
        assert_eq!(program_name("C:\\tools\\npx.cmd"), "npx");
    }

    #[test]
    fn the_gateway_and_the_servers_behind_it_have_their_own_fixes() {
        let entry = gateway_fix("dotpack");
        assert!(entry.contains("`dotpack serve`") && !entry.contains("dotpack run"));
        assert!(gateway_fix("/gone/dotpack").contains("run `dotpack install` again"));
        let behind = behind_fix("npx", "web");
        assert!(behind.starts_with("`web` starts with Node.js"), "{behind}");
        assert!(behind.contains("the gateway (`dotpack serve`) starts it"));
        assert_eq!(
            fix_for("npx", "figma"),
            "`figma` starts with Node.js, which is not on PATH: install Node.js (it brings npx), from nodejs.org or the system's package manager"
        );
    }
}
