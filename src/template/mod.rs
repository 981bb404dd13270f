//! MCI templates in manifest strings.
//!
//! dotpack implements the MCI template language (`seeds/mci-templates.txt`) for the strings of a
//! package manifest. A template is rendered once, at install time, for one host:
//!
//! - `{{props.x}}` (or the legacy `{{input.x}}`) is replaced by the input's value. Inputs are
//!   plain strings, so nested paths (`{{props.a.b}}`) and indexing (`{{props.a[0]}}`) are errors.
//! - `{{env.X}}` is **never** resolved: it stays a reference ([`Part::Env`]) and is written in the
//!   host's own syntax ([`EnvSyntax`]), so a secret never lands on disk.
//! - `|` gives alternatives, tried left to right: `{{props.x|'d'}}`, `{{env.A|env.B|'d'}}`,
//!   `{{props.x|env.Y}}`. An input counts as set when it has a value (even an empty one). A quoted
//!   text (`'…'` or `"…"`, no escapes inside; use the other quote to include one) is a default
//!   and must come last. Once an `env.` alternative is met, the result is a reference, and the
//!   first later input with a value (or the literal) becomes its default.
//! - `@if(cond)` / `@elseif(cond)` / `@else` / `@endif`, `@for(i in range(a, b))` / `@endfor`
//!   (`b` excluded; `range(b)` starts at 0; bounds may add or subtract: `props.n + 1`) and
//!   `@foreach(x in props.list)` / `@endforeach`, nested freely, inline or across lines. A
//!   directive alone on its line takes that whole line with it. Inside a loop, `{{i}}` is the
//!   loop variable.
//! - Conditions: a truthy value (`@if(props.x)`), or one comparison `==`, `!=`, `>`, `<`, `>=`,
//!   `<=` between `props.x`, a loop variable, `'text'`, a number, `true` or `false`. Values that
//!   are both numbers compare as numbers (`'007' == 7`); `>`, `<`, `>=`, `<=` need numbers. An
//!   input with no value equals nothing but another unset input, and is an error under `>` etc.
//!   Falsy values: no value, empty, `false`, `no`, `off`, `0` (any case).
//! - Lists: inputs are strings, so `@foreach` goes through a comma-separated value
//!   (`"a, b,c"` gives `a`, `b`, `c`; items are trimmed and empty items skipped).
//! - `env.` cannot appear in a condition, range or `@foreach`: its value is only known when the
//!   host starts the server ([`TemplateError::EnvCondition`]).
//! - `@` starts a directive only as `@if(`, `@elseif(`, `@for(`, `@foreach(` or as `@else`,
//!   `@endif`, `@endfor`, `@endforeach` not followed by a letter, digit or `_`: e-mail addresses
//!   and `@scope/package` names stay text.
//! - Escaping: a literal `{{` is written `{{'{{'}}`, a literal directive `{{'@'}}if(`. There is no
//!   backslash escape, so Windows paths such as `C:\{{props.dir}}` work as written.
//! - Loops run at most 10 000 times in all and output is capped at 1 MiB; blocks nest at most 32
//!   deep. No input makes rendering panic.

mod eval;
mod syntax;
#[cfg(test)]
mod tests;

use std::collections::BTreeMap;

/// Input values of one package: what the user set, else the input's default.
pub type Props = BTreeMap<String, String>;

/// How a host writes a reference to an environment variable inside a string value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EnvSyntax {
    /// `${VAR}` (Claude Code, Gemini CLI, Hermes, Kiro, Copilot CLI, pi); a default is
    /// `${VAR:-default}`.
    DollarBrace,
    /// `${env:VAR}` (Cursor, VS Code, Windsurf, Amazon Q); no default can be written.
    EnvColon,
    /// `{env:VAR}` (opencode); no default can be written.
    BraceEnv,
    /// `${{ secrets.VAR }}` (Continue's YAML config; secrets resolve from Continue's `.env` files
    /// and the environment); no default can be written.
    Secrets,
    /// The host cannot interpolate environment variables in config values (Codex).
    None,
}

impl EnvSyntax {
    /// How a reference to `name` reads in this syntax, for messages.
    pub fn example(self, name: &str) -> String {
        match self {
            EnvSyntax::DollarBrace => format!("${{{name}}}"),
            EnvSyntax::EnvColon => format!("${{env:{name}}}"),
            EnvSyntax::BraceEnv => format!("{{env:{name}}}"),
            EnvSyntax::Secrets => format!("${{{{ secrets.{name} }}}}"),
            EnvSyntax::None => format!("{{{{env.{name}}}}}"),
        }
    }
}

/// Why a template cannot be rendered. Every message quotes the offending piece and says the fix.
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
    /// `{{env.A|env.B}}`: a host config names one variable per reference.
    #[error("{}", chain_message(.0))]
    EnvChainUnsupported(Vec<String>),
    /// `{{env.A|'d'}}` on a host whose syntax has no default (or cannot hold this one).
    #[error("{}", default_message(.name, .default, *.syntax))]
    DefaultUnsupported {
        name: String,
        default: String,
        syntax: EnvSyntax,
    },
    /// `env.` in a condition, range or `@foreach` (the directive as written).
    #[error(
        "`{0}`: environment variables are only known when the host starts the server, not at \
         install time, so they cannot decide a condition or a loop: use an input (`props.NAME`)"
    )]
    EnvCondition(String),
}

fn chain_message(names: &[String]) -> String {
    let chain = names
        .iter()
        .map(|n| format!("env.{n}"))
        .collect::<Vec<_>>()
        .join("|");
    let first = names.first().map(String::as_str).unwrap_or_default();
    format!(
        "`{{{{{chain}}}}}` falls back across several environment variables, but a host config \
         can name only one: keep one (`{{{{env.{first}}}}}`) and set it from the others in your \
         shell"
    )
}

fn default_message(name: &str, default: &str, syntax: EnvSyntax) -> String {
    match syntax {
        EnvSyntax::DollarBrace => format!(
            "the default `{default}` of `{{{{env.{name}}}}}` contains `}}`, which `${{{name}:-…}}` \
             cannot hold: remove the `}}` from the default, or drop the default and set {name}"
        ),
        _ => format!(
            "`{{{{env.{name}|'{default}'}}}}`: this host writes `{}`, which cannot express a \
             default: remove the default and make sure {name} is set, or use an input \
             (`{{{{props.NAME|'{default}'}}}}`)",
            syntax.example(name)
        ),
    }
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

/// Evaluates `s` against `props` (conditions, loops, substitutions) and splits out environment
/// references. Adjacent text is merged; empty text is left out.
pub fn parse_parts(s: &str, props: &Props) -> Result<Vec<Part>, TemplateError> {
    let nodes = syntax::parse(s)?;
    let mut eval = eval::Eval::new(props);
    eval.nodes(&nodes)?;
    Ok(eval.parts)
}

/// Checks `s` for every error that does not depend on the props' values (syntax, unknown
/// contexts, unclosed blocks, bad conditions, `env.` in conditions).
pub fn check(s: &str) -> Result<(), TemplateError> {
    syntax::parse(s).map(|_| ())
}

/// Renders `s` for a host: props substituted, environment references in `syntax`.
///
/// A reference with several variables (`{{env.A|env.B}}`) is [`TemplateError::EnvChainUnsupported`]
/// on every host; a default is written `${VAR:-d}` for [`EnvSyntax::DollarBrace`] and is
/// [`TemplateError::DefaultUnsupported`] for the other syntaxes.
pub fn render_for_host(s: &str, props: &Props, syntax: EnvSyntax) -> Result<String, TemplateError> {
    // Without `{` or `@` there is no expression or directive: the text is the rendering (most
    // strings of a server are plain: commands, flags, package names).
    if !s.contains(['{', '@']) && s.len() <= eval::MAX_OUTPUT {
        return Ok(s.to_owned());
    }
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

/// One environment reference in a host's syntax.
pub fn env_ref(
    names: &[String],
    default: Option<&str>,
    syntax: EnvSyntax,
) -> Result<String, TemplateError> {
    let name = match names {
        [name] => name.as_str(),
        [] => return Err(TemplateError::Malformed("an empty `{{env.}}`".to_string())),
        _ => {
            return Err(match syntax {
                EnvSyntax::None => TemplateError::EnvUnsupported(names[0].clone()),
                _ => TemplateError::EnvChainUnsupported(names.to_vec()),
            });
        }
    };
    let unsupported = |d: &str| TemplateError::DefaultUnsupported {
        name: name.to_string(),
        default: d.to_string(),
        syntax,
    };
    match (syntax, default) {
        (EnvSyntax::None, _) => Err(TemplateError::EnvUnsupported(name.to_string())),
        (EnvSyntax::DollarBrace, Some(d)) if d.contains('}') => Err(unsupported(d)),
        (EnvSyntax::DollarBrace, Some(d)) => Ok(format!("${{{name}:-{d}}}")),
        (_, Some(d)) => Err(unsupported(d)),
        (syntax, None) => Ok(syntax.example(name)),
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

/// Every environment variable the servers of `package` read (`{{env.X}}` anywhere in their
/// values, or in its inputs' defaults), sorted and without repeats.
pub fn env_vars_of(package: &crate::manifest::Manifest) -> Vec<String> {
    let defaults = package
        .inputs
        .values()
        .filter_map(|i| i.default.as_ref().and_then(toml::Value::as_str))
        .map(str::to_string);
    let mut vars: Vec<String> = package
        .servers
        .values()
        .flat_map(crate::manifest::Server::strings)
        .chain(defaults)
        .flat_map(|s| env_refs(&s))
        .collect();
    vars.sort();
    vars.dedup();
    vars
}

/// Every environment variable `s` mentions, in every branch and alternative, in order of first
/// appearance, without duplicates. Never fails: a malformed template yields what could be read.
pub fn env_refs(s: &str) -> Vec<String> {
    refs(s, &["env"])
}

/// Every input `s` mentions (`props.x` and `input.x` both give `x`), in expressions, conditions,
/// ranges and `@foreach`, in every branch, in order of first appearance, without duplicates.
/// Never fails: a malformed template yields what could be read.
pub fn prop_refs(s: &str) -> Vec<String> {
    refs(s, &["props", "input"])
}

fn refs(s: &str, contexts: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    for (ctx, name) in scan_refs(s) {
        if contexts.contains(&ctx) && !out.contains(&name) {
            out.push(name);
        }
    }
    out
}

/// `(context, name)` of every `props.`/`input.`/`env.` path in `s`, read leniently.
fn scan_refs(s: &str) -> Vec<(&'static str, String)> {
    let (toks, _) = syntax::lex(s);
    let mut out = Vec::new();
    for tok in toks {
        match tok {
            syntax::Tok::Text(_) => {}
            syntax::Tok::Expr(e) => {
                for piece in syntax::split_outside_quotes(&e, '|') {
                    push_path(piece.trim(), &mut out);
                }
            }
            syntax::Tok::Dir(d) => {
                // Words outside quotes; `-` ends a word in a range, where it subtracts.
                let in_range = d.arg.contains("range");
                let mut quote = None;
                let mut word = String::new();
                for c in d.arg.chars().chain(std::iter::once(' ')) {
                    match quote {
                        Some(q) => {
                            if c == q {
                                quote = None;
                            }
                        }
                        None if c == '\'' || c == '"' => quote = Some(c),
                        None if c.is_ascii_alphanumeric()
                            || c == '_'
                            || c == '.'
                            || (c == '-' && !in_range) =>
                        {
                            word.push(c)
                        }
                        None => push_path(&std::mem::take(&mut word), &mut out),
                    }
                }
            }
        }
    }
    out
}

fn push_path(piece: &str, out: &mut Vec<(&'static str, String)>) {
    let Some((ctx, name)) = piece.split_once('.') else {
        return;
    };
    match ctx {
        "env" if syntax::is_ident(name) => out.push(("env", name.to_string())),
        "props" if syntax::is_prop_name(name) => out.push(("props", name.to_string())),
        "input" if syntax::is_prop_name(name) => out.push(("input", name.to_string())),
        _ => {}
    }
}
