//! One model session of a real host CLI, non-interactive, against the fake model provider
//! ([`super::model`]): what each host needs to be told to use the loopback model, to read the
//! project's servers without asking, and to call one MCP server's tools without asking — as a
//! user who approved them once would have it.

use super::model::Model;
use super::*;

/// What the model is asked; the fake model follows its script whatever it says.
const PROMPT: &str = "Use the MCP tool.";

/// The host CLIs that hold a model session in these tests.
#[derive(Clone, Copy, Debug)]
pub enum Host {
    ClaudeCode,
    Codex,
    GeminiCli,
}

impl Host {
    /// The name under which the host offers the model `tool` of MCP server `server`.
    pub fn tool(self, server: &str, tool: &str) -> String {
        match self {
            // Codex offers a namespace `mcp__SERVER` with the function `TOOL`.
            Host::ClaudeCode | Host::Codex => format!("mcp__{server}__{tool}"),
            Host::GeminiCli => format!("mcp_{server}_{tool}"),
        }
    }
}

/// `bin` (a `host`) asked [`PROMPT`] in the World's project, its model `model`, allowed to call
/// the tools of the MCP server `server` without asking, with `dotpack` on its PATH and no
/// variable of the World's references. Writes what the host reads to trust the project.
pub fn command(w: &World, bin: &Path, host: Host, server: &str, model: &Model) -> Command {
    let mut cmd = host_command(bin, &w.root(), &w.project);
    cmd.env("PATH", path_with_dotpack());
    match host {
        Host::ClaudeCode => {
            // The project's `.mcp.json` server approved in the user's settings, as the user's
            // "yes" at Claude Code's prompt would (a project cannot approve its own).
            let settings = w.root().join(".claude");
            std::fs::create_dir_all(&settings).expect("CLAUDE_CONFIG_DIR");
            std::fs::write(
                settings.join("settings.json"),
                json!({ "enabledMcpjsonServers": [server] }).to_string(),
            )
            .expect("approve the project's server");
            // Without tool search the MCP tools are offered to the model, not deferred.
            cmd.env("ANTHROPIC_BASE_URL", model.base_url())
                .env("ANTHROPIC_API_KEY", "sk-ant-fake")
                .env("ENABLE_TOOL_SEARCH", "false")
                .args(["-p", PROMPT, "--output-format", "json", "--allowedTools"])
                .arg(format!("mcp__{server}"));
        }
        Host::Codex => {
            let config = w.root().join(".codex/config.toml");
            let mut text = std::fs::read_to_string(&config).unwrap_or_default();
            text.push_str(&format!(
                "\n[projects.{:?}]\ntrust_level = \"trusted\"\n",
                w.project.to_str().expect("utf-8 temp path")
            ));
            std::fs::write(&config, text).expect("trust the project");
            let provider = format!(
                "model_providers.fake={{name=\"fake\", base_url=\"{}/v1\", wire_api=\"responses\", \
                 env_key=\"FAKE_MODEL_KEY\"}}",
                model.base_url()
            );
            // Analytics off: its export would wait for a DNS answer that never comes.
            cmd.env("FAKE_MODEL_KEY", "sk-fake")
                .args(["exec", "--skip-git-repo-check", "-m", "fake-model"])
                .args(["-c", "model_provider=\"fake\"", "-c", &provider])
                .args(["-c", "analytics.enabled=false", "-c"])
                .arg(format!(
                    "mcp_servers.{server}.default_tools_approval_mode=\"approve\""
                ))
                .arg(PROMPT);
        }
        Host::GeminiCli => {
            let gemini = w.root().join(".gemini");
            std::fs::create_dir_all(&gemini).expect("gemini dir");
            let trusted = json!({ w.project.to_str().expect("utf-8 temp path"): "TRUST_FOLDER" });
            std::fs::write(gemini.join("trustedFolders.json"), trusted.to_string())
                .expect("trust folder");
            // The API key from the environment, kept beside what dotpack wrote at user scope.
            let settings = gemini.join("settings.json");
            let mut user: Value = std::fs::read_to_string(&settings)
                .ok()
                .and_then(|t| serde_json::from_str(&t).ok())
                .unwrap_or_else(|| json!({}));
            user["security"] = json!({"auth": {"selectedType": "gemini-api-key"}});
            std::fs::write(&settings, user.to_string()).expect("gemini settings");
            let policy = w.root().join("allow-mcp.toml");
            std::fs::write(
                &policy,
                format!(
                    "[[rule]]\nmcpName = \"{server}\"\ntoolName = \"*\"\ndecision = \"allow\"\n\
                     priority = 100\n"
                ),
            )
            .expect("policy");
            // A model named, so no routing request asks the model to classify the prompt.
            cmd.env("GEMINI_API_KEY", "fake-key")
                .env("GOOGLE_GEMINI_BASE_URL", model.base_url())
                .args([
                    "-p",
                    PROMPT,
                    "-o",
                    "json",
                    "-m",
                    "gemini-2.5-flash",
                    "--policy",
                ])
                .arg(policy);
        }
    }
    cmd
}

/// What a finished session printed, stdout then stderr; the host must have succeeded.
pub fn run(mut cmd: Command, model: &Model) -> String {
    let out = cmd.output().expect("run the host");
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.status.success(),
        "the session failed: {}\n{said}\nthe model received:\n{}",
        out.status,
        model.summary()
    );
    said
}

/// What the host's own list command says of its MCP servers (`mcp list`; Codex's as JSON), its
/// stdout then its stderr, connecting to each as the host does, with `dotpack` on its PATH. Run
/// after [`command`], which wrote what the host reads to trust the project.
pub fn list(w: &World, bin: &Path, host: Host) -> (String, String) {
    let args: &[&str] = match host {
        Host::Codex => &["mcp", "list", "--json"],
        Host::ClaudeCode | Host::GeminiCli => &["mcp", "list"],
    };
    let out = host_command(bin, &w.root(), &w.project)
        .env("PATH", path_with_dotpack())
        .args(args)
        .output()
        .expect("run the host");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        out.status.success(),
        "{args:?} failed: {}\n{stdout}{stderr}",
        out.status
    );
    (stdout, stderr)
}
