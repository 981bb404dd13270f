//! MCI templates in manifest strings.
//!
//! dotpack implements the MCI template language (`seeds/mci-templates.txt`) for the strings of a
//! package manifest. A template is rendered once, at install time, for one host:
//!
//! - `{{props.x}}` (or the legacy `{{input.x}}`) is replaced by the input's value. Values are
//!   typed (text, number, boolean, list, object): paths reach into them (`{{props.a.b}}`,
//!   `{{props.list[i - 1]}}`, `{{props.a['key']}}`); an absent field or an index past the end has
//!   no value, and a field of a text, number or list is an error. Numbers and booleans read as
//!   written, lists and objects as compact JSON. `{{host}}` / `{{host.id}}` is the id of the host
//!   being written.
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
//!   `<=` between paths, `host`, `'text'`, a number, `true` or `false`. Values that are both
//!   numbers compare as numbers (`'007' == 7`); `>`, `<`, `>=`, `<=` need numbers. A path with no
//!   value equals nothing but another one without, and is an error under `>` etc. Falsy: no
//!   value, `false`, `0`, an empty list or object, and the texts empty, `false`, `no`, `off`,
//!   `0` (any case).
//! - The module depends on nothing else in dotpack: callers pass a [`Context`].
//! - `@foreach` goes through a list's items, an object's entries as `{key, value}` pairs, or a
//!   comma-separated text (`"a, b,c"` gives `a`, `b`, `c`; items trimmed, empty ones skipped).
//!   Loop variables have fields too (`{{user.name}}`).
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
mod literal;
#[cfg(test)]
mod spec_tests;
mod syntax;
#[cfg(test)]
mod tests;

use std::collections::BTreeMap;

pub use literal::{LiteralRef, as_templates, is_shell, literal_refs};

pub use serde_json::Value;

/// Input values of one package: what the user set, else the input's default. Values are typed:
/// a text, a number, a boolean, a list or an object.
pub type Props = BTreeMap<String, Value>;

/// What a template is rendered against: the package's input values and, when writing for one
/// host, that host's id (`{{host.id}}`, `@if(host == "codex")`).
#[derive(Clone, Copy, Debug)]
pub struct Context<'a> {
    pub props: &'a Props,
    pub host: Option<&'a str>,
}

impl<'a> Context<'a> {
    /// Props alone: a template that names `host` is an error.
    pub fn new(props: &'a Props) -> Self {
        Context { props, host: None }
    }

    /// Props, rendering for host `id`.
    pub fn for_host(props: &'a Props, id: &'a str) -> Self {
        Context {
            props,
            host: Some(id),
        }
    }
}

/// How a host writes a reference to an environment variable inside a string value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EnvSyntax {
    /// `${VAR}` (Claude Code, Gemini CLI, Hermes, Kiro, Copilot CLI, pi); a default is
    /// `${VAR:-default}`.
    DollarBrace,
    /// `${env:VAR}` (Cursor, VS Code, Windsurf); no default can be written but an empty one
    /// (an optional variable), which is the plain reference: VS Code's variable resolver gives
    /// an unset variable as the empty text.
    EnvColon,
    /// `${env:VAR}` as Amazon Q reads it: an unset variable is passed on as the text `${VAR}`,
    /// so no default can be written, not even an empty one.
    EnvColonKeepsUnset,
    /// `{env:VAR}` (opencode, which gives an unset variable as the empty text); no default can
    /// be written but an empty one, which is the plain reference.
    BraceEnv,
    /// `${{ secrets.VAR }}` (Continue's YAML config; secrets resolve from Continue's `.env` files
    /// and the environment); no default can be written but an empty one, which is the plain
    /// reference.
    Secrets,
    /// The host cannot interpolate environment variables in config values (Codex).
    None,
    /// The host cannot interpolate here, and the user asked for the variable's current value
    /// (`--resolve-env`): a marker, `<dotpack:env:VAR>`, that dotpack replaces with the value
    /// only when it writes the file. No default can be written.
    Resolved,
}

impl EnvSyntax {
    /// How a reference to `name` reads in this syntax, for messages.
    pub fn example(self, name: &str) -> String {
        match self {
            EnvSyntax::DollarBrace => format!("${{{name}}}"),
            EnvSyntax::EnvColon | EnvSyntax::EnvColonKeepsUnset => format!("${{env:{name}}}"),
            EnvSyntax::BraceEnv => format!("{{env:{name}}}"),
            EnvSyntax::Secrets => format!("${{{{ secrets.{name} }}}}"),
            EnvSyntax::None => format!("{{{{env.{name}}}}}"),
            EnvSyntax::Resolved => format!("<dotpack:env:{name}>"),
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
    /// A template that cannot be read or evaluated. `offset` is the byte offset of the
    /// expression or directive at fault; `line` and `column` (1-based, in characters) are filled
    /// by the public functions, 0 when unknown.
    #[error("malformed template{}: {message}", position(*.line, *.column))]
    Malformed {
        message: String,
        offset: usize,
        line: usize,
        column: usize,
    },
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

fn position(line: usize, column: usize) -> String {
    match (line, column) {
        (0, _) => String::new(),
        (1, c) => format!(" at column {c}"),
        (l, c) => format!(" at line {l}, column {c}"),
    }
}

impl TemplateError {
    /// The error with the line and column of its offset in template `s`.
    fn located(self, s: &str) -> Self {
        match self {
            TemplateError::Malformed {
                message, offset, ..
            } => {
                let offset = offset.min(s.len());
                let before = s.get(..offset).unwrap_or_default();
                let line = before.matches('\n').count() + 1;
                let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
                TemplateError::Malformed {
                    message,
                    offset,
                    line,
                    column,
                }
            }
            other => other,
        }
    }

    /// Where in the template the error is, when it has a place: `(offset, line, column)`.
    pub fn position(&self) -> Option<(usize, usize, usize)> {
        match self {
            TemplateError::Malformed {
                offset,
                line,
                column,
                ..
            } => Some((*offset, *line, *column)),
            _ => None,
        }
    }

    /// The message without its position, for reports that point at the place themselves.
    pub fn message(&self) -> String {
        match self {
            TemplateError::Malformed { message, .. } => message.clone(),
            other => other.to_string(),
        }
    }
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

/// Evaluates `s` in `cx` (conditions, loops, substitutions) and splits out environment
/// references. Adjacent text is merged; empty text is left out.
pub fn parse_parts(s: &str, cx: &Context<'_>) -> Result<Vec<Part>, TemplateError> {
    let run = || {
        let nodes = syntax::parse(s)?;
        let mut eval = eval::Eval::new(cx);
        eval.nodes(&nodes)?;
        Ok(eval.parts)
    };
    run().map_err(|e: TemplateError| e.located(s))
}

/// Checks `s` for every error that does not depend on the props' values (syntax, unknown
/// contexts, unclosed blocks, bad conditions, `env.` in conditions).
pub fn check(s: &str) -> Result<(), TemplateError> {
    syntax::parse(s).map(|_| ()).map_err(|e| e.located(s))
}

/// Renders `s` for a host: props substituted, environment references in `syntax`.
///
/// A reference with several variables (`{{env.A|env.B}}`) is [`TemplateError::EnvChainUnsupported`]
/// on every host; a default is written `${VAR:-d}` for [`EnvSyntax::DollarBrace`] and is
/// [`TemplateError::DefaultUnsupported`] for the other syntaxes, except an empty default (an
/// optional variable, `{{env.X|''}}`) where the host gives an unset variable as the empty text.
pub fn render_for_host(
    s: &str,
    cx: &Context<'_>,
    syntax: EnvSyntax,
) -> Result<String, TemplateError> {
    // Without `{` or `@` there is no expression or directive: the text is the rendering (most
    // strings of a server are plain: commands, flags, package names).
    if !s.contains(['{', '@']) && s.len() <= eval::MAX_OUTPUT {
        return Ok(s.to_owned());
    }
    let mut out = String::new();
    for part in parse_parts(s, cx)? {
        match part {
            Part::Text(t) => out.push_str(&t),
            Part::Env { names, default } => {
                out.push_str(&env_ref(&names, default.as_deref(), syntax)?)
            }
        }
    }
    Ok(out)
}

/// When `s` is exactly one expression (`{{props.dirs}}`, `{{props.timeout|'30'}}`) whose first
/// alternative with a value is not an environment variable, that value with its type: a list
/// stays a list, a number a number. `None` for any other string.
pub fn value_of(s: &str, cx: &Context<'_>) -> Result<Option<Value>, TemplateError> {
    let trimmed = s.trim();
    if !(trimmed.starts_with("{{") && trimmed.ends_with("}}")) {
        return Ok(None);
    }
    let run = || {
        let nodes = syntax::parse(s)?;
        match nodes.as_slice() {
            [syntax::Node::Expr(chain)] => eval::Eval::new(cx).chain_value(chain),
            _ => Ok(None),
        }
    };
    run().map_err(|e: TemplateError| e.located(s))
}

/// One input path of a template: the input, the steps after it, and the offset of the expression
/// or directive holding it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputPath {
    pub input: String,
    /// `Some(name)` for `.name`, `None` for an index `[…]`.
    pub steps: Vec<Option<String>>,
    pub src: String,
    pub offset: usize,
}

/// Every `props.`/`input.` path of `s`, in every branch; empty when `s` does not parse (see
/// [`check`] for why).
pub fn input_paths(s: &str) -> Vec<InputPath> {
    let Ok(nodes) = syntax::parse(s) else {
        return Vec::new();
    };
    let mut paths = Vec::new();
    syntax::prop_paths(&nodes, &mut paths);
    paths
        .into_iter()
        .filter_map(|p| {
            let input = p.input()?.to_string();
            let steps = p.segs[1..]
                .iter()
                .map(|seg| match seg {
                    syntax::Seg::Key(k) => Some(k.clone()),
                    syntax::Seg::Index(_) => None,
                })
                .collect();
            Some(InputPath {
                input,
                steps,
                src: p.src.clone(),
                offset: p.at,
            })
        })
        .collect()
}

/// How a typed value reads inside a text: texts as they are, numbers and booleans as written,
/// lists and objects as compact JSON.
pub fn value_text(v: &Value) -> String {
    eval::text(v)
}

/// "a text", "a number", "a list", … for messages.
pub fn kind_of(v: &Value) -> &'static str {
    eval::kind_of(v)
}

/// One environment reference in a host's syntax.
pub fn env_ref(
    names: &[String],
    default: Option<&str>,
    syntax: EnvSyntax,
) -> Result<String, TemplateError> {
    let name = match names {
        [name] => name.as_str(),
        [] => return Err(syntax::malformed(0, "an empty `{{env.}}`".to_string())),
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
        // `{{env.X|''}}`, an optional variable: these hosts give an unset variable as the empty
        // text, so the plain reference says it.
        (EnvSyntax::EnvColon | EnvSyntax::BraceEnv | EnvSyntax::Secrets, Some("")) => {
            Ok(syntax.example(name))
        }
        (_, Some(d)) => Err(unsupported(d)),
        (syntax, None) => Ok(syntax.example(name)),
    }
}

/// When `s` is exactly one environment reference (`{{env.X}}`), its variable name. Hosts without
/// interpolation can still forward such a value by name (Codex `env_vars`, `env_http_headers`).
pub fn sole_env_ref(s: &str, cx: &Context<'_>) -> Option<String> {
    match parse_parts(s, cx).ok()?.as_slice() {
        [
            Part::Env {
                names,
                default: None,
            },
        ] if names.len() == 1 => Some(names[0].clone()),
        _ => None,
    }
}

/// When `s` is exactly one environment reference a host can forward by name: `{{env.X}}`, or
/// `{{env.X|''}}` (an optional variable: forwarding passes nothing when `X` is unset, which is
/// what the empty default asks). Codex `env_vars` and `env_http_headers` forward this way.
pub fn forwarded_env_ref(s: &str, cx: &Context<'_>) -> Option<String> {
    match parse_parts(s, cx).ok()?.as_slice() {
        [Part::Env { names, default }]
            if names.len() == 1 && default.as_deref().is_none_or(str::is_empty) =>
        {
            Some(names[0].clone())
        }
        _ => None,
    }
}

/// A name that is safe to splice into a template as an environment variable:
/// `[A-Za-z_][A-Za-z0-9_]*`.
pub fn is_env_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
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

/// Every expression of `s` that falls back across several environment variables
/// (`{{env.A|env.B|'d'}}`), as the byte offset of its `{{` and the variables in order. No host
/// config can name more than one variable in a reference, so such an expression can be checked
/// without knowing the props. Never fails: a malformed template yields what could be read.
pub fn env_chains(s: &str) -> Vec<(usize, Vec<String>)> {
    let (toks, _) = syntax::lex(s);
    let mut out = Vec::new();
    for tok in toks {
        if let syntax::Tok::Expr(e, at) = tok {
            let mut names = Vec::new();
            for piece in syntax::split_outside_quotes(&e, '|') {
                push_path(piece.trim(), &mut names);
            }
            let names: Vec<String> = names
                .into_iter()
                .filter(|(ctx, _)| *ctx == "env")
                .map(|(_, name)| name)
                .collect();
            if names.len() > 1 {
                out.push((at, names));
            }
        }
    }
    out
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
            syntax::Tok::Expr(e, _) => {
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
    let Some((ctx, rest)) = piece.split_once('.') else {
        return;
    };
    let name = match ctx {
        "env" => rest,
        _ => rest.split(['.', '[']).next().unwrap_or_default(),
    };
    match ctx {
        "env" if syntax::is_ident(name) => out.push(("env", name.to_string())),
        "props" if syntax::is_prop_name(name) => out.push(("props", name.to_string())),
        "input" if syntax::is_prop_name(name) => out.push(("input", name.to_string())),
        _ => {}
    }
}
