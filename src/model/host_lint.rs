//! The footguns of hosts' config files (`reference/hosts.md` §22), found by reading them: a
//! server the host will never load, or a value it will not read the way its author meant. Pure:
//! text in, findings out; `dotpack doctor` reads the files and prints the findings with their fix.

use serde::Serialize;
use serde_json::Value;

use crate::formats::{self, Container, Format};
use crate::model::hosts::{HostAdapter, adapter};
use crate::model::validate::secrets;
use crate::template::EnvSyntax;

/// One footgun in one file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// Stable: `settings-json-servers`, `vscode-servers-key`, `url-without-type`,
    /// `desktop-remote`, `unexpanded-reference`, `resolved-secret`, `shared-command`.
    pub code: &'static str,
    pub host: &'static str,
    pub file: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server: Option<String>,
    pub message: String,
    pub fix: String,
}

/// The footguns of host file `file` (holding `text`) of `host`.
pub fn check_host_file(host: &HostAdapter, file: &str, text: &str) -> Vec<Finding> {
    let mut out = Vec::new();
    let Ok(entries) = formats::list_entries(host.format, text, host.container) else {
        return out; // a file that does not parse is reported by the commands that edit it
    };
    let finding = |code, server: &str, message: String, fix: String| Finding {
        code,
        host: host.id,
        file: file.to_string(),
        server: Some(server.to_string()),
        message,
        fix,
    };
    if host.id == "claude-code"
        && file.ends_with(".mcp.json")
        && let Ok(vscode) = formats::list_entries(Format::Json, text, Container::new(&["servers"]))
        && !vscode.is_empty()
    {
        out.push(Finding {
            code: "vscode-servers-key",
            host: host.id,
            file: file.to_string(),
            server: None,
            message:
                "holds a `servers` key, VS Code's spelling: Claude Code reads only `mcpServers`"
                    .to_string(),
            fix: "move these servers under `mcpServers`, or into `.vscode/mcp.json` for VS Code"
                .to_string(),
        });
    }
    for (name, entry) in &entries {
        let Some(fields) = entry.as_object() else {
            continue;
        };
        let has_url = ["url", "serverUrl", "httpUrl", "uri"]
            .iter()
            .any(|k| fields.contains_key(*k));
        if host.id == "claude-code" && has_url && !fields.contains_key("type") {
            out.push(finding(
                "url-without-type",
                name,
                "has `url` but no `type`: Claude Code takes it as a stdio server and skips it"
                    .to_string(),
                "add `\"type\": \"http\"` (or `\"sse\"` for a legacy SSE server)".to_string(),
            ));
        }
        if host.remote_wrapper.is_some() && (has_url || is_remote_type(fields.get("type"))) {
            out.push(finding(
                "desktop-remote",
                name,
                format!(
                    "is a remote entry: {} runs stdio servers only and skips it (or fails to start)",
                    host.name()
                ),
                "reach it through `npx -y mcp-remote URL`: declare it in dotpack.toml and install with `--allow-lossy=transport`".to_string(),
            ));
        }
        let mut strings = Vec::new();
        collect_strings("", entry, &mut strings);
        for (path, value) in &strings {
            if let Some(written) = foreign_reference(host, value) {
                out.push(finding(
                    "unexpanded-reference",
                    name,
                    format!(
                        "`{path}` holds `{written}`, which {} does not expand: the server gets it literally",
                        host.name()
                    ),
                    reference_fix(host, written),
                ));
            }
            let key = path.rsplit('.').next().unwrap_or(path);
            let secret = if path.starts_with("args") {
                secrets::arg_secret(value, None)
            } else {
                secrets::named_secret(key, value)
            };
            if let Some(reason) = secret {
                let who = match host.id {
                    "gemini-cli" => {
                        " `gemini mcp add` resolves every `${VAR}` of the file into its value, so it may have written it."
                    }
                    _ => "",
                };
                out.push(finding(
                    "resolved-secret",
                    name,
                    format!("`{path}` holds what looks like a literal credential ({reason}).{who}"),
                    format!(
                        "replace it with a reference ({}) and export the variable; rotate the credential if the file was shared",
                        host.env_syntax.example("NAME")
                    ),
                ));
            }
        }
    }
    out
}

/// What `doctor` checked of the host files: on which platform, which files (so a user sees
/// where dotpack looked, `CODEX_HOME` and the like applied), and what it found.
#[derive(Clone, Debug, Serialize)]
pub struct HostCheck {
    pub platform: crate::model::hosts::Platform,
    pub checked: Vec<Checked>,
    pub findings: Vec<Finding>,
}

/// One host file that exists and was read.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Checked {
    pub host: &'static str,
    pub scope: crate::model::hosts::Scope,
    pub file: String,
}

/// Every host file that exists for the project at `root` (when there is one) and the user, and
/// Claude Code's `settings.json` files, checked. Files that cannot be read are skipped: the
/// commands that edit them report that.
pub fn check_all(root: Option<&std::path::Path>, env: &crate::model::hosts::HostEnv) -> HostCheck {
    let mut checked = Vec::new();
    let findings = check_files(root, env, &mut checked);
    HostCheck {
        platform: env.platform,
        checked,
        findings,
    }
}

fn check_files(
    root: Option<&std::path::Path>,
    env: &crate::model::hosts::HostEnv,
    checked: &mut Vec<Checked>,
) -> Vec<Finding> {
    use crate::model::hosts::{ADAPTERS, Scope};
    let mut out = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    for host in ADAPTERS {
        for scope in [Scope::Project, Scope::User] {
            let path = match (scope, root) {
                (Scope::Project, None) => continue,
                (Scope::Project, Some(root)) => host.path(scope, root, env),
                (Scope::User, _) => host.path(scope, env.home.as_path(), env),
            };
            let Some(path) = path else { continue };
            if host.shares_file_with(scope).is_some() || !seen.insert(path.clone()) {
                continue;
            }
            let fence = match (scope, root) {
                (Scope::Project, Some(root)) => Some(crate::util::fence::Fence::project(root)),
                _ => None,
            };
            if let Ok(Some(text)) = crate::util::fence::read_text(
                &path,
                fence.as_ref(),
                crate::util::fence::USER_FILE_CAP,
            ) {
                let file = path.display().to_string();
                out.extend(check_host_file(host, &file, &text));
                checked.push(Checked {
                    host: host.id,
                    scope,
                    file,
                });
            }
        }
    }
    // The shared files a host loads servers from too (pi's `~/.agents/mcp.json`), as that host
    // reads them, where no host writes them; and in every one, a value it would run.
    for host in ADAPTERS {
        for shared in host.also_reads() {
            let scope = shared.scope();
            let path = match (scope, root) {
                (Scope::Project, None) => continue,
                (Scope::Project, Some(root)) => shared.path(root, env),
                (Scope::User, _) => shared.path(env.home.as_path(), env),
            };
            let fence = match (scope, root) {
                (Scope::Project, Some(root)) => Some(crate::util::fence::Fence::project(root)),
                _ => None,
            };
            let Ok(Some(text)) = crate::util::fence::read_text(
                &path,
                fence.as_ref(),
                crate::util::fence::USER_FILE_CAP,
            ) else {
                continue;
            };
            let file = path.display().to_string();
            if seen.insert(path.clone()) {
                out.extend(check_host_file(host, &file, &text));
                checked.push(Checked {
                    host: host.id,
                    scope,
                    file: file.clone(),
                });
            }
            out.extend(check_shared_commands(host, &file, &text));
        }
    }
    let claude_dir = env
        .vars
        .get("CLAUDE_CONFIG_DIR")
        .cloned()
        .unwrap_or_else(|| env.home.join(".claude"));
    let mut settings = vec![(claude_dir.join("settings.json"), None)];
    if let Some(root) = root {
        let fence = crate::util::fence::Fence::project(root);
        settings.push((root.join(".claude/settings.json"), Some(fence.clone())));
        settings.push((root.join(".claude/settings.local.json"), Some(fence)));
    }
    for (path, fence) in settings {
        if let Ok(Some(text)) =
            crate::util::fence::read_text(&path, fence.as_ref(), crate::util::fence::USER_FILE_CAP)
        {
            out.extend(check_claude_settings(&path.display().to_string(), &text));
        }
    }
    out
}

/// Values of a shared file that `host` (pi) runs as a shell command, which the other hosts
/// reading the file take literally.
fn check_shared_commands(host: &HostAdapter, file: &str, text: &str) -> Vec<Finding> {
    let Some(rule) = host.hooks.command_values else {
        return Vec::new();
    };
    let Ok(entries) = formats::list_entries(host.format, text, host.container) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (name, entry) in entries {
        let Value::Object(mut fields) = entry else {
            continue;
        };
        let mut found = Vec::new();
        rule.visit(&mut fields, &mut |path, text| {
            if rule.runs(text) {
                found.push(format!("`{path}`"));
            }
        });
        if found.is_empty() {
            continue;
        }
        out.push(Finding {
            code: "shared-command",
            host: host.id,
            file: file.to_string(),
            server: Some(name),
            message: format!(
                "{} starts with `{p}`: {} runs it as a shell command when it connects, and the other hosts reading this file take it literally",
                found.join(", "),
                host.name(),
                p = rule.prefix
            ),
            fix: format!(
                "move the server into {}'s own file, or give the value without a leading `{}`",
                host.name(),
                rule.prefix
            ),
        });
    }
    out
}

/// Claude Code servers in a `settings.json`, which Claude Code never reads them from.
pub fn check_claude_settings(file: &str, text: &str) -> Option<Finding> {
    let entries =
        formats::list_entries(Format::Jsonc, text, Container::new(&["mcpServers"])).ok()?;
    (!entries.is_empty()).then(|| Finding {
        code: "settings-json-servers",
        host: adapter("claude-code").map_or("claude-code", |a| a.id),
        file: file.to_string(),
        server: None,
        message: format!(
            "has `mcpServers` ({} server{}): Claude Code ignores servers in any settings.json",
            entries.len(),
            if entries.len() == 1 { "" } else { "s" }
        ),
        fix: format!(
            "`dotpack import claude-code --file {path}` prints them as `[servers.NAME]` tables: add those to dotpack.toml (with `claude-code` in `[project] hosts`) and run `dotpack install`, which writes them to `.mcp.json` (project) or `~/.claude.json` (user); then delete `mcpServers` from {file}",
            path = shell_word(file)
        ),
    })
}

/// `text` as one word for a POSIX shell: as it is when it holds nothing the shell reads
/// specially, else in single quotes, so a fix can be pasted as it is.
fn shell_word(text: &str) -> String {
    let plain = !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+:@%,=".contains(c));
    if plain {
        text.to_string()
    } else {
        format!("'{}'", text.replace('\'', "'\\''"))
    }
}

fn is_remote_type(value: Option<&Value>) -> bool {
    matches!(
        value.and_then(Value::as_str),
        Some("http" | "sse" | "streamable-http" | "streamableHttp" | "remote")
    )
}

/// Every string in `value` with its dotted path (`env.TOKEN`, `args[1]`).
fn collect_strings(path: &str, value: &Value, out: &mut Vec<(String, String)>) {
    match value {
        Value::String(s) => out.push((path.to_string(), s.clone())),
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                collect_strings(&format!("{path}[{i}]"), item, out);
            }
        }
        Value::Object(fields) => {
            for (k, v) in fields {
                let p = if path.is_empty() {
                    k.clone()
                } else {
                    format!("{path}.{k}")
                };
                collect_strings(&p, v, out);
            }
        }
        _ => {}
    }
}

/// A reference in `value` written in a syntax the host does not expand, as written.
fn foreign_reference<'v>(host: &HostAdapter, value: &'v str) -> Option<&'v str> {
    let mut rest = value;
    while let Some(start) = rest.find(['$', '{']) {
        let tail = &rest[start..];
        let syntax = if tail.starts_with("${env:") {
            Some(EnvSyntax::EnvColon)
        } else if tail.starts_with("${input:") || tail.starts_with("${{") {
            None // VS Code inputs and Continue secrets are the hosts' own features
        } else if tail.starts_with("${") {
            Some(EnvSyntax::DollarBrace)
        } else if tail.starts_with("{env:") {
            Some(EnvSyntax::BraceEnv)
        } else {
            None
        };
        if let Some(syntax) = syntax
            && let Some(end) = tail.find('}')
        {
            let written = &tail[..=end];
            // By spelling: Amazon Q reads `${env:X}` as the editors do, unset or not.
            let spelled = |s: &EnvSyntax| s.example("X") == syntax.example("X");
            if !host.reference_syntaxes().iter().any(spelled) {
                return Some(written);
            }
            rest = &tail[end + 1..];
            continue;
        }
        rest = &tail[1..];
    }
    None
}

fn reference_fix(host: &HostAdapter, written: &str) -> String {
    match host.env_syntax {
        EnvSyntax::None | EnvSyntax::Resolved => format!(
            "{} expands no variables: declare the server in dotpack.toml with `{{{{env.NAME}}}}` and dotpack writes what the host can read{}",
            host.name(),
            if host.id == "codex" {
                " (`env_vars`, `bearer_token_env_var`)"
            } else {
                ""
            }
        ),
        syntax => {
            let name = written
                .trim_start_matches('$')
                .trim_start_matches('{')
                .trim_end_matches('}')
                .trim_start_matches("env:");
            format!("write it as `{}`", syntax.example(name))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn codes(host: &str, text: &str) -> Vec<&'static str> {
        check_host_file(adapter(host).unwrap(), "f", text)
            .into_iter()
            .map(|f| f.code)
            .collect()
    }

    #[test]
    fn references_a_host_will_not_expand_are_found_with_the_hosts_spelling() {
        let cursor =
            r#"{"mcpServers": {"a": {"command": "x", "args": [], "env": {"T": "${TOKEN}"}}}}"#;
        let found = check_host_file(adapter("cursor").unwrap(), "f", cursor);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].code, "unexpanded-reference");
        assert!(found[0].fix.contains("${env:TOKEN}"), "{}", found[0].fix);
        assert_eq!(
            codes(
                "codex",
                "[mcp_servers.a]\ncommand = \"x\"\nargs = [\"${TOKEN}\"]\n"
            ),
            ["unexpanded-reference"]
        );
        assert!(codes("claude-code", cursor).is_empty());
        assert!(codes("cursor", &cursor.replace("${TOKEN}", "${env:TOKEN}")).is_empty());
        // Hermes reads `${env:VAR}` as well as its own `${VAR}`.
        let hermes = "mcp_servers:\n  a:\n    command: x\n    env:\n      T: \"${env:TOKEN}\"\n";
        assert!(codes("hermes", hermes).is_empty());
        assert_eq!(
            codes("hermes", &hermes.replace("${env:TOKEN}", "{env:TOKEN}")),
            ["unexpanded-reference"]
        );
    }

    #[test]
    fn claude_code_url_without_type_and_vscode_key() {
        assert_eq!(
            codes(
                "claude-code",
                r#"{"mcpServers": {"a": {"url": "https://x"}}}"#
            ),
            ["url-without-type"]
        );
        assert!(
            codes(
                "claude-code",
                r#"{"mcpServers": {"a": {"type": "http", "url": "https://x"}}}"#
            )
            .is_empty()
        );
        let found = check_host_file(
            adapter("claude-code").unwrap(),
            "/p/.mcp.json",
            r#"{"servers": {"a": {"command": "x"}}}"#,
        );
        assert_eq!(found[0].code, "vscode-servers-key");
    }

    #[test]
    fn desktop_remote_and_resolved_secrets() {
        assert_eq!(
            codes(
                "claude-desktop",
                r#"{"mcpServers": {"a": {"url": "https://x"}}}"#
            ),
            ["desktop-remote"]
        );
        let gemini = r#"{"mcpServers": {"gh": {"command": "x", "args": [], "env": {"GITHUB_TOKEN": "ghp_abcdefghijklmnopqrstuvwxyz0123456789"}}}}"#;
        let found = check_host_file(adapter("gemini-cli").unwrap(), "f", gemini);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].code, "resolved-secret");
        assert!(found[0].message.contains("gemini mcp add"));
    }

    #[test]
    fn servers_in_claude_settings_json() {
        assert!(check_claude_settings("f", r#"{"mcpServers": {"a": {"command": "x"}}}"#).is_some());
        assert!(check_claude_settings("f", r#"{"permissions": {}}"#).is_none());
    }
}
