//! `doctor` says, for each host and each of its servers that needs a secret, how it will receive
//! it and what is missing, without printing a value.

use crate::support::{Env, transcript_of};
use crate::support_keyring::Keyring;

const VALUE: &str = "doctor-secret-9f8e7d6c5b4a";

/// Claude Code expands `${TOKEN}` from its environment; Cursor, a desktop app, holds only the
/// reference; Claude Desktop starts the launcher.
fn project(env: &Env) {
    env.write(
        "dotpack.toml",
        "[project]\nhosts = [\"claude-code\", \"cursor\", { host = \"claude-desktop\", launcher = true }]\n\n[servers.rec]\ncommand = \"/bin/sh\"\nargs = [\"-c\", \"true\"]\nenv = { TOKEN = \"{{env.TOKEN}}\", LEVEL = \"info\" }\n",
    );
    std::fs::create_dir_all(env.project.join(".cursor")).unwrap();
    let out = env.dotpack().args(["--trust", "install"]).output().unwrap();
    assert!(out.status.success(), "{out:?}");
}

/// `dotpack` with a PATH that holds no host program, so what doctor says of them is the same on
/// every machine.
fn dotpack(env: &Env) -> assert_cmd::Command {
    let mut cmd = env.dotpack();
    cmd.env("PATH", env.home.path().join("no-programs"));
    cmd
}

/// `doctor` with no TOKEN in the environment and no store answering.
fn doctor(env: &Env, args: &[&str]) -> std::process::Output {
    dotpack(env)
        .args(args)
        .env_remove("TOKEN")
        .env(
            "DBUS_SESSION_BUS_ADDRESS",
            format!("unix:path={}", env.home.path().join("no-bus").display()),
        )
        .output()
        .unwrap()
}

#[test]
fn doctor_says_how_each_server_receives_its_secret_and_what_is_missing() {
    let env = Env::new();
    project(&env);
    let out = doctor(&env, &["doctor"]);
    insta::assert_snapshot!(transcript_of(&env, &["doctor"], &out));
}

fn servers(out: &std::process::Output) -> Vec<serde_json::Value> {
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(!text.contains(VALUE), "{text}");
    assert!(!String::from_utf8_lossy(&out.stderr).contains(VALUE));
    let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
    doc["secrets"]["servers"].as_array().unwrap().clone()
}

fn of<'a>(servers: &'a [serde_json::Value], host: &str) -> &'a serde_json::Value {
    servers
        .iter()
        .find(|s| s["host"] == host && s["secret"] == "TOKEN")
        .unwrap_or_else(|| panic!("no TOKEN for {host}: {servers:?}"))
}

/// The project of [`project`] with a real store holding `TOKEN`; `None` where no store can be
/// started (outside CI).
fn project_with_stored_token(env: &Env) -> Option<Keyring> {
    let keyring = Keyring::start(env.home.path())?;
    project(env);
    let mut set = env.dotpack();
    keyring.apply(&mut set);
    set.args(["secret", "set", "TOKEN"])
        .write_stdin(VALUE)
        .assert()
        .success();
    Some(keyring)
}

/// With a real store: the launcher entry reads the secret from it while it is there, and says
/// what is missing once it is removed; the value is in no output.
#[test]
fn doctor_json_says_whether_the_store_holds_a_launcher_secret() {
    let env = Env::new();
    let Some(keyring) = project_with_stored_token(&env) else {
        return;
    };

    let mut cmd = env.dotpack();
    keyring.apply(&mut cmd);
    let out = cmd
        .args(["--json", "doctor"])
        .env("TOKEN", VALUE)
        .output()
        .unwrap();
    let present = servers(&out);
    let desktop = of(&present, "claude-desktop");
    assert_eq!(desktop["via"], "launcher-store", "{desktop}");
    assert!(desktop.get("missing").is_none(), "{desktop}");
    let code = of(&present, "claude-code");
    assert_eq!(code["via"], "host-environment", "{code}");
    assert!(code.get("missing").is_none(), "{code}");
    // What people read, with the secret in the store and in the shell's environment.
    let mut cmd = dotpack(&env);
    keyring.apply(&mut cmd);
    let human = cmd.arg("doctor").env("TOKEN", VALUE).output().unwrap();
    assert!(!String::from_utf8_lossy(&human.stderr).contains(VALUE));
    insta::assert_snapshot!(transcript_of(&env, &["doctor"], &human));
    let cursor = of(&present, "cursor");
    assert!(
        cursor["missing"].as_str().unwrap().contains("desktop app"),
        "{cursor}"
    );

    let mut rm = env.dotpack();
    keyring.apply(&mut rm);
    rm.args(["secret", "rm", "TOKEN"]).assert().success();
    let mut cmd = env.dotpack();
    keyring.apply(&mut cmd);
    let out = cmd
        .args(["--json", "doctor"])
        .env_remove("TOKEN")
        .output()
        .unwrap();
    let absent = servers(&out);
    let desktop = of(&absent, "claude-desktop");
    assert_eq!(desktop["via"], "launcher-environment", "{desktop}");
    assert!(
        desktop["missing"]
            .as_str()
            .unwrap()
            .contains("TOKEN is not in the credential store"),
        "{desktop}"
    );
    assert_eq!(desktop["fix"], "run `dotpack secret set TOKEN`");
    assert!(of(&absent, "claude-code")["missing"].is_string());
}

/// With an empty bus address (a host's reduced environment), doctor finds the store at
/// `$XDG_RUNTIME_DIR/bus`, as the launcher does, instead of calling it unreachable.
#[test]
fn doctor_finds_the_store_through_the_runtime_folder_as_the_launcher_does() {
    let env = Env::new();
    let Some(keyring) = project_with_stored_token(&env) else {
        return;
    };
    // A host that passes the variable empty, as some do: the runtime folder's bus is used.
    let out = dotpack(&env)
        .args(["--json", "doctor"])
        .env("DBUS_SESSION_BUS_ADDRESS", "")
        .env("XDG_RUNTIME_DIR", &keyring.runtime_dir)
        .env_remove("TOKEN")
        .output()
        .unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["secrets"]["store"]["reachable"], true, "{doc}");
    let found = servers(&out);
    let desktop = of(&found, "claude-desktop");
    assert_eq!(desktop["via"], "launcher-store", "{desktop}");
    assert!(desktop.get("missing").is_none(), "{desktop}");
}
