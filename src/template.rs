//! MCI templates in manifest strings: `{{props.x}}` takes an input's value, `{{env.X}}` stays a
//! reference to an environment variable and is written in each host's own syntax.
//!
//! (Interface stub: a fuller implementation of the MCI template language replaces the body.)

use std::collections::BTreeMap;

/// Input values of one package: what the user set, else the input's default.
pub type Props = BTreeMap<String, String>;

/// How a host writes a reference to an environment variable inside a string value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EnvSyntax {
    /// `${VAR}` (Claude Code, Gemini CLI, Hermes, Kiro, Copilot CLI, pi)
    DollarBrace,
    /// `${env:VAR}` (Cursor, VS Code, Windsurf, Amazon Q)
    EnvColon,
    /// `{env:VAR}` (opencode)
    BraceEnv,
    /// The host cannot interpolate environment variables in config values (Codex).
    None,
}

/// Why a template cannot be rendered.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TemplateError {
    #[error(
        "`{{{{props.{0}}}}}` has no value: set it with `--set {0}=VALUE` or give the input a default"
    )]
    MissingProp(String),
    #[error("this host cannot read environment variables inside config values (`{{{{env.{0}}}}}`)")]
    EnvUnsupported(String),
    #[error("malformed template: {0}")]
    Malformed(String),
}

/// A string split into literal text and environment references, after props are substituted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Part {
    Text(String),
    /// `{{env.A|env.B|'default'}}`: the first variable that is set, else the default.
    Env {
        names: Vec<String>,
        default: Option<String>,
    },
}

/// Substitutes props in `s` and splits out environment references.
pub fn parse_parts(s: &str, props: &Props) -> Result<Vec<Part>, TemplateError> {
    let mut parts = Vec::new();
    let mut rest = s;
    while let Some(start) = rest.find("{{") {
        if start > 0 {
            push_text(&mut parts, &rest[..start]);
        }
        let after = &rest[start + 2..];
        let Some(end) = after.find("}}") else {
            return Err(TemplateError::Malformed(format!(
                "`{{{{` without `}}}}` in `{s}`"
            )));
        };
        let expr = after[..end].trim();
        let mut names = Vec::new();
        let mut default = None;
        let mut text = None;
        for alt in expr.split('|').map(str::trim) {
            if let Some(lit) = alt.strip_prefix('\'').and_then(|a| a.strip_suffix('\'')) {
                default = Some(lit.to_string());
                break;
            } else if let Some(name) = alt.strip_prefix("props.").or(alt.strip_prefix("input.")) {
                if let Some(v) = props.get(name) {
                    text = Some(v.clone());
                    break;
                }
            } else if let Some(name) = alt.strip_prefix("env.") {
                names.push(name.to_string());
            } else {
                return Err(TemplateError::Malformed(format!(
                    "`{{{{{expr}}}}}` in `{s}`"
                )));
            }
        }
        match (names.is_empty(), text.or(default)) {
            (true, Some(t)) => push_text(&mut parts, &t),
            (false, default) => parts.push(Part::Env { names, default }),
            (true, None) => {
                let name = expr.split('|').next().unwrap_or(expr).trim();
                let name = name
                    .trim_start_matches("props.")
                    .trim_start_matches("input.");
                return Err(TemplateError::MissingProp(name.to_string()));
            }
        }
        rest = &after[end + 2..];
    }
    if !rest.is_empty() {
        push_text(&mut parts, rest);
    }
    Ok(parts)
}

fn push_text(parts: &mut Vec<Part>, text: &str) {
    if let Some(Part::Text(last)) = parts.last_mut() {
        last.push_str(text);
    } else {
        parts.push(Part::Text(text.to_string()));
    }
}

/// Renders `s` for a host: props substituted, environment references in `syntax`.
pub fn render_for_host(s: &str, props: &Props, syntax: EnvSyntax) -> Result<String, TemplateError> {
    let mut out = String::new();
    for part in parse_parts(s, props)? {
        match part {
            Part::Text(t) => out.push_str(&t),
            Part::Env { names, default } => {
                out.push_str(&env_ref(&names, default.as_deref(), syntax)?)
            }
        }
    }
    Ok(out)
}

fn env_ref(
    names: &[String],
    default: Option<&str>,
    syntax: EnvSyntax,
) -> Result<String, TemplateError> {
    let first = names.first().map(String::as_str).unwrap_or_default();
    match syntax {
        EnvSyntax::DollarBrace => Ok(match default {
            Some(d) => format!("${{{first}:-{d}}}"),
            None => format!("${{{first}}}"),
        }),
        EnvSyntax::EnvColon => Ok(format!("${{env:{first}}}")),
        EnvSyntax::BraceEnv => Ok(format!("{{env:{first}}}")),
        EnvSyntax::None => Err(TemplateError::EnvUnsupported(first.to_string())),
    }
}

/// When `s` is exactly one environment reference (`{{env.X}}`), its variable name. Hosts without
/// interpolation can still forward such a value by name (Codex `env_vars`, `env_http_headers`).
pub fn sole_env_ref(s: &str, props: &Props) -> Option<String> {
    match parse_parts(s, props).ok()?.as_slice() {
        [
            Part::Env {
                names,
                default: None,
            },
        ] if names.len() == 1 => Some(names[0].clone()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn props_and_env_render_per_host() {
        let props = Props::from([("port".to_string(), "4000".to_string())]);
        let s = "http://127.0.0.1:{{props.port}}/mcp?k={{env.KEY}}";
        assert_eq!(
            render_for_host(s, &props, EnvSyntax::DollarBrace).unwrap(),
            "http://127.0.0.1:4000/mcp?k=${KEY}"
        );
        assert_eq!(
            render_for_host(s, &props, EnvSyntax::EnvColon).unwrap(),
            "http://127.0.0.1:4000/mcp?k=${env:KEY}"
        );
        assert!(render_for_host(s, &props, EnvSyntax::None).is_err());
        assert_eq!(
            sole_env_ref("{{env.TOKEN}}", &props).as_deref(),
            Some("TOKEN")
        );
        assert_eq!(sole_env_ref("Bearer {{env.TOKEN}}", &props), None);
    }
}
