//! Servers dotpack starts (`probe`, `call`, `verify`, `lock --pin-tools`) get a small base
//! environment and the variables they declare, never dotpack's whole environment.

use crate::fake_mcp::stdio_script;
use crate::support::{Env, assert_success};

/// A server that writes its environment to `seen-env` and then serves one tool.
fn env_reporting_server(env: &Env, declared: &str) {
    env.write(
        "server.sh",
        &stdio_script(
            "env > seen-env",
            r#"{"name":"envy","version":"1"}"#,
            r#""""#,
            r#"[{"name":"t","description":"d"}]"#,
            r#"{"content":[{"type":"text","text":"ok"}]}"#,
        ),
    );
    env.write(
        "dotpack.toml",
        &format!("[servers.envy]\ncommand = \"sh\"\nargs = [\"server.sh\"]\n{declared}"),
    );
}

fn seen(env: &Env) -> Vec<String> {
    let mut vars: Vec<String> = env
        .read("seen-env")
        .lines()
        .filter_map(|l| l.split_once('=').map(|(k, _)| k.to_string()))
        .collect();
    vars.sort();
    vars
}

#[test]
fn a_started_server_gets_only_the_base_and_its_declared_variables() {
    let env = Env::new();
    env_reporting_server(
        &env,
        "env = { DECLARED = \"yes\", PASSED = \"{{env.PASSED}}\" }\n",
    );
    for args in [
        &["--trust", "probe", "envy"][..],
        &["--trust", "call", "envy", "t"],
    ] {
        let out = env
            .dotpack()
            .env("AWS_SECRET_ACCESS_KEY", "aws-s3cret")
            .env("GITHUB_TOKEN", "ghp_s3cret")
            .env("PASSED", "passed-value")
            .env("LC_TIME", "C")
            .env("BASH_FUNC_x%%", "() { evil; }")
            .env("TERM", "() { evil; }")
            .args(args)
            .output()
            .unwrap();
        assert_success(&out);
        let text = env.read("seen-env");
        for secret in [
            "aws-s3cret",
            "ghp_s3cret",
            "AWS_SECRET_ACCESS_KEY",
            "GITHUB_TOKEN",
            "evil",
        ] {
            assert!(
                !text.contains(secret),
                "{secret} reached the server:\n{text}"
            );
        }
        assert!(text.contains("DECLARED=yes\n"), "{text}");
        assert!(text.contains("PASSED=passed-value\n"), "{text}");
        assert!(text.contains("LC_TIME=C\n"), "{text}");
        let vars = seen(&env);
        for var in ["HOME", "PATH"] {
            assert!(vars.iter().any(|v| v == var), "{var} is missing: {vars:?}");
        }
        // Nothing but the base, the declared variables and what `sh` sets itself.
        let allowed = [
            "DECLARED", "PASSED", "HOME", "LOGNAME", "PATH", "SHELL", "USER", "LANG", "LANGUAGE",
            "TMPDIR", "TZ", "PWD", "OLDPWD", "SHLVL", "_",
        ];
        for var in &vars {
            assert!(
                allowed.contains(&var.as_str()) || var.starts_with("LC_"),
                "{var} reached the server: {vars:?}"
            );
        }
    }
}
