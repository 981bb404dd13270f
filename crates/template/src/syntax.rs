//! Reading a template: the lexer splits a string into text, `{{...}}` expressions and `@`
//! directives; the parser builds a tree and reports every static error (unknown context, unclosed
//! block, bad condition, bad range) whatever the props' values are.

use super::TemplateError;

/// How deeply blocks may nest; deeper templates are refused instead of exhausting the stack.
pub(super) const MAX_DEPTH: usize = 32;

/// Where a path starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Root {
    /// `props.` or `input.`: the first segment is the input's name.
    Props,
    /// A loop variable.
    Var(String),
    /// `host` or `host.id`: the id of the host being written.
    Host,
}

/// One step into a value: `.name` or `[expression]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Seg {
    Key(String),
    Index(Sum),
}

/// `props.a.b[i - 1]`, `user.name`, `host.id`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Path {
    pub root: Root,
    pub segs: Vec<Seg>,
    /// The path as written, for messages.
    pub src: String,
    /// Offset of the expression or directive holding it.
    pub at: usize,
}

impl Path {
    /// The input the path starts from (`props.NAME…`).
    pub fn input(&self) -> Option<&str> {
        match (&self.root, self.segs.first()) {
            (Root::Props, Some(Seg::Key(name))) => Some(name),
            _ => None,
        }
    }
}

/// One alternative of a `|` chain inside `{{...}}`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Alt {
    Path(Path),
    Env(String),
    Lit(String),
}

/// `{{a|b|'d'}}`: `src` is the whole expression as written, for messages.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Chain {
    pub src: String,
    pub alts: Vec<Alt>,
    pub at: usize,
}

/// A value in a condition, a sum or a `@foreach` source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Operand {
    Path(Path),
    Lit(String),
}

impl Operand {
    /// How the operand reads in the template, for messages.
    pub fn describe(&self) -> String {
        match self {
            Operand::Path(p) => p.src.clone(),
            Operand::Lit(l) => format!("'{l}'"),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum CmpOp {
    Eq,
    Ne,
    Gt,
    Lt,
    Ge,
    Le,
}

impl CmpOp {
    pub fn symbol(self) -> &'static str {
        match self {
            CmpOp::Eq => "==",
            CmpOp::Ne => "!=",
            CmpOp::Gt => ">",
            CmpOp::Lt => "<",
            CmpOp::Ge => ">=",
            CmpOp::Le => "<=",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Cond {
    Truthy(Operand),
    Cmp(Operand, CmpOp, Operand),
}

/// A sum of signed integer terms, e.g. `props.count + 1` or `i - 1`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Sum {
    pub src: String,
    pub terms: Vec<(bool, Operand)>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Node {
    Text(String),
    Expr(Chain),
    If {
        branches: Vec<(Cond, Vec<Node>)>,
        otherwise: Vec<Node>,
    },
    For {
        src: String,
        at: usize,
        var: String,
        start: Sum,
        end: Sum,
        body: Vec<Node>,
    },
    Foreach {
        src: String,
        at: usize,
        var: String,
        list: Operand,
        body: Vec<Node>,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum DirKind {
    If,
    ElseIf,
    Else,
    EndIf,
    For,
    EndFor,
    Foreach,
    EndForeach,
}

impl DirKind {
    fn keyword(self) -> &'static str {
        match self {
            DirKind::If => "if",
            DirKind::ElseIf => "elseif",
            DirKind::Else => "else",
            DirKind::EndIf => "endif",
            DirKind::For => "for",
            DirKind::EndFor => "endfor",
            DirKind::Foreach => "foreach",
            DirKind::EndForeach => "endforeach",
        }
    }

    fn takes_arg(self) -> bool {
        matches!(
            self,
            DirKind::If | DirKind::ElseIf | DirKind::For | DirKind::Foreach
        )
    }
}

const DIRECTIVES: [DirKind; 8] = [
    DirKind::ElseIf,
    DirKind::Else,
    DirKind::EndForeach,
    DirKind::EndFor,
    DirKind::EndIf,
    DirKind::Foreach,
    DirKind::For,
    DirKind::If,
];

#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Dir {
    pub kind: DirKind,
    /// The text between the parentheses, for directives that take one.
    pub arg: String,
    /// The directive as written, e.g. `@if(props.x)`.
    pub src: String,
    /// Byte offset of the `@` in the template.
    pub at: usize,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Tok {
    Text(String),
    /// The inside of `{{...}}`, and the offset of its `{{`.
    Expr(String, usize),
    Dir(Dir),
}

/// An error at byte offset `at` of the template; [`TemplateError::located`] adds the line and
/// column once the whole template is known.
pub(super) fn malformed(at: usize, message: String) -> TemplateError {
    TemplateError::Malformed {
        message,
        offset: at,
        line: 0,
        column: 0,
    }
}

/// At most 60 characters of `s`, for quoting in messages.
pub(super) fn snippet(s: &str) -> String {
    let mut out: String = s.chars().take(60).collect();
    if out.len() < s.len() {
        out.push('…');
    }
    out
}

fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Splits `s` into tokens. On a lexical error, returns the tokens read so far with the error, so
/// that `env_refs` and `prop_refs` can still report what precedes it.
pub(super) fn lex(s: &str) -> (Vec<Tok>, Option<TemplateError>) {
    let mut toks = Vec::new();
    let mut text = String::new();
    let mut i = 0;
    while i < s.len() {
        let Some(off) = s[i..].find(['{', '@']) else {
            text.push_str(&s[i..]);
            break;
        };
        let at = i + off;
        text.push_str(&s[i..at]);
        let rest = &s[at..];
        if rest.starts_with("{{") {
            match scan_expr(s, at) {
                Ok((inner, next)) => {
                    flush(&mut toks, &mut text);
                    toks.push(Tok::Expr(inner.to_string(), at));
                    i = next;
                }
                Err(e) => {
                    flush(&mut toks, &mut text);
                    return (toks, Some(e));
                }
            }
        } else if let Some(kind) = directive_at(rest) {
            let kw_end = at + 1 + kind.keyword().len();
            if kind.takes_arg() {
                match scan_paren(s, at, kw_end + 1) {
                    Ok((arg, next)) => {
                        flush(&mut toks, &mut text);
                        toks.push(Tok::Dir(Dir {
                            kind,
                            arg: arg.to_string(),
                            src: s[at..next].to_string(),
                            at,
                        }));
                        i = next;
                    }
                    Err(e) => {
                        flush(&mut toks, &mut text);
                        return (toks, Some(e));
                    }
                }
            } else {
                flush(&mut toks, &mut text);
                toks.push(Tok::Dir(Dir {
                    kind,
                    arg: String::new(),
                    src: s[at..kw_end].to_string(),
                    at,
                }));
                i = kw_end;
            }
        } else {
            // A `{` or `@` that starts nothing: plain text. Both are ASCII, so `at + 1` is a
            // character boundary.
            text.push_str(&s[at..at + 1]);
            i = at + 1;
        }
    }
    flush(&mut toks, &mut text);
    strip_standalone(&mut toks);
    (toks, None)
}

fn flush(toks: &mut Vec<Tok>, text: &mut String) {
    if !text.is_empty() {
        toks.push(Tok::Text(std::mem::take(text)));
    }
}

/// Which directive `rest` (starting at `@`) begins, if any. A directive that takes a condition
/// must be followed directly by `(`; the others must not be followed by a letter, digit or `_`
/// (so `user@elsewhere.org` and `@iffy` stay text).
fn directive_at(rest: &str) -> Option<DirKind> {
    let after_at = rest.strip_prefix('@')?;
    DIRECTIVES.into_iter().find(|kind| {
        let Some(after) = after_at.strip_prefix(kind.keyword()) else {
            return false;
        };
        if kind.takes_arg() {
            after.starts_with('(')
        } else {
            !after.starts_with(is_ident_char)
        }
    })
}

/// `start` is the index of `{{`; returns the inside and the index after `}}`. Quotes inside the
/// expression are honoured, so a default may contain `|` or `}}`.
fn scan_expr(s: &str, start: usize) -> Result<(&str, usize), TemplateError> {
    let from = start + 2;
    let mut quote = None;
    for (j, c) in s[from..].char_indices() {
        let at = from + j;
        match quote {
            Some(q) => {
                if c == q {
                    quote = None;
                }
            }
            None => match c {
                '\'' | '"' => quote = Some(c),
                '}' if s[at..].starts_with("}}") => return Ok((&s[from..at], at + 2)),
                '{' if s[at..].starts_with("{{") => {
                    return Err(malformed(
                        start,
                        format!(
                            "`{}` is not closed before the next `{{{{`: add `}}}}` after the \
                             expression (write `{{{{'{{{{'}}}}` for a literal `{{{{`)",
                            snippet(&s[start..at])
                        ),
                    ));
                }
                _ => {}
            },
        }
    }
    Err(malformed(
        start,
        match quote {
            Some(q) => format!(
                "`{}` has a {q} quote that is never closed: close it, or quote a text that \
                 contains {q} with the other kind of quote",
                snippet(&s[start..])
            ),
            None => format!(
                "`{}` is never closed: add `}}}}` (write `{{{{'{{{{'}}}}` for a literal `{{{{`)",
                snippet(&s[start..])
            ),
        },
    ))
}

/// `open` is the index of `@`, `from` the index after `(`; returns the inside of the balanced
/// parentheses and the index after `)`.
fn scan_paren(s: &str, open: usize, from: usize) -> Result<(&str, usize), TemplateError> {
    let mut depth = 1usize;
    let mut quote = None;
    for (j, c) in s[from..].char_indices() {
        let at = from + j;
        match quote {
            Some(q) => {
                if c == q {
                    quote = None;
                }
            }
            None => match c {
                '\'' | '"' => quote = Some(c),
                '(' => depth += 1,
                ')' => {
                    depth -= 1;
                    if depth == 0 {
                        return Ok((&s[from..at], at + 1));
                    }
                }
                _ => {}
            },
        }
    }
    Err(malformed(
        open,
        format!(
            "`{}` has no closing `)`: close the parenthesis after the condition",
            snippet(&s[open..])
        ),
    ))
}

/// A directive alone on its line (only spaces or tabs around it) takes the whole line with it,
/// so multi-line templates do not leave blank lines where `@if`/`@endif` stood.
fn strip_standalone(toks: &mut [Tok]) {
    let n = toks.len();
    let text_of = |t: &Tok| match t {
        Tok::Text(s) => Some(s.clone()),
        _ => None,
    };
    // For each text token: how much to cut at its start (through its first newline) and where
    // to cut its end (after its last newline), decided on the original texts.
    let mut cut_start = vec![None; n];
    let mut cut_end = vec![None; n];
    for k in 0..n {
        if !matches!(toks[k], Tok::Dir(_)) {
            continue;
        }
        let left = if k == 0 {
            Some(None)
        } else {
            match text_of(&toks[k - 1]) {
                Some(t) => match t.rfind('\n') {
                    Some(nl) if is_blank(&t[nl + 1..]) => Some(Some(nl + 1)),
                    None if k == 1 && is_blank(&t) => Some(Some(0)),
                    _ => None,
                },
                None => None,
            }
        };
        let right = if k + 1 == n {
            Some(None)
        } else {
            match text_of(&toks[k + 1]) {
                Some(t) => match t.find('\n') {
                    Some(nl) if is_blank(&t[..nl]) => Some(Some(nl + 1)),
                    None if k + 2 == n && is_blank(&t) => Some(Some(t.len())),
                    _ => None,
                },
                None => None,
            }
        };
        if let (Some(l), Some(r)) = (left, right) {
            if let Some(end) = l {
                cut_end[k - 1] = Some(end);
            }
            if let Some(start) = r {
                cut_start[k + 1] = Some(start);
            }
        }
    }
    for (k, tok) in toks.iter_mut().enumerate() {
        if let Tok::Text(t) = tok {
            let start = cut_start[k].unwrap_or(0);
            let end = cut_end[k].unwrap_or(t.len()).max(start);
            *t = t.get(start..end).unwrap_or_default().to_string();
        }
    }
}

fn is_blank(s: &str) -> bool {
    s.chars().all(|c| c == ' ' || c == '\t' || c == '\r')
}

/// Parses a whole template.
pub(super) fn parse(s: &str) -> Result<Vec<Node>, TemplateError> {
    let (toks, err) = lex(s);
    if let Some(e) = err {
        return Err(e);
    }
    let mut parser = Parser {
        toks: toks.into_iter(),
        scope: Vec::new(),
    };
    let (nodes, end) = parser.block(0)?;
    match end {
        None => Ok(nodes),
        Some(dir) => Err(stray(&dir)),
    }
}

fn stray(dir: &Dir) -> TemplateError {
    let opener = match dir.kind {
        DirKind::ElseIf | DirKind::Else | DirKind::EndIf => "@if(...)",
        DirKind::EndFor => "@for(...)",
        _ => "@foreach(...)",
    };
    malformed(
        dir.at,
        format!(
            "`{}` has no matching `{opener}` before it: remove it or add the `{opener}` (with \
             no space before `(`)",
            dir.src
        ),
    )
}

struct Parser {
    toks: std::vec::IntoIter<Tok>,
    /// Loop variables visible here, innermost last.
    scope: Vec<String>,
}

impl Parser {
    /// Reads nodes until a directive that ends or continues a block (returned) or the end.
    fn block(&mut self, depth: usize) -> Result<(Vec<Node>, Option<Dir>), TemplateError> {
        let mut nodes = Vec::new();
        while let Some(tok) = self.toks.next() {
            match tok {
                Tok::Text(t) => nodes.push(Node::Text(t)),
                Tok::Expr(e, at) => nodes.push(Node::Expr(parse_chain(&e, at, &self.scope)?)),
                Tok::Dir(dir) => {
                    if dir.kind.takes_arg() && depth >= MAX_DEPTH {
                        return Err(malformed(
                            dir.at,
                            format!(
                                "`{}` nests blocks more than {MAX_DEPTH} deep: simplify the \
                                 template",
                                dir.src
                            ),
                        ));
                    }
                    match dir.kind {
                        DirKind::If => nodes.push(self.if_block(dir, depth + 1)?),
                        DirKind::For => nodes.push(self.for_block(dir, depth + 1)?),
                        DirKind::Foreach => nodes.push(self.foreach_block(dir, depth + 1)?),
                        _ => return Ok((nodes, Some(dir))),
                    }
                }
            }
        }
        Ok((nodes, None))
    }

    fn if_block(&mut self, open: Dir, depth: usize) -> Result<Node, TemplateError> {
        let mut branches = Vec::new();
        let mut cond = parse_cond(&open, &self.scope)?;
        loop {
            let (body, end) = self.block(depth)?;
            let Some(end) = end else {
                return Err(unclosed(&open, "@endif"));
            };
            match end.kind {
                DirKind::ElseIf => {
                    let next = parse_cond(&end, &self.scope)?;
                    branches.push((std::mem::replace(&mut cond, next), body));
                }
                DirKind::EndIf => {
                    branches.push((cond, body));
                    return Ok(Node::If {
                        branches,
                        otherwise: Vec::new(),
                    });
                }
                DirKind::Else => {
                    branches.push((cond, body));
                    let (otherwise, end) = self.block(depth)?;
                    let Some(end) = end else {
                        return Err(unclosed(&open, "@endif"));
                    };
                    return match end.kind {
                        DirKind::EndIf => Ok(Node::If {
                            branches,
                            otherwise,
                        }),
                        DirKind::ElseIf | DirKind::Else => Err(malformed(
                            end.at,
                            format!(
                                "`{}` comes after `@else` in `{}`: `@else` must be the last \
                                 branch, move it down",
                                end.src, open.src
                            ),
                        )),
                        _ => Err(mismatched(&open, &end, "@endif")),
                    };
                }
                _ => return Err(mismatched(&open, &end, "@endif")),
            }
        }
    }

    fn for_block(&mut self, open: Dir, depth: usize) -> Result<Node, TemplateError> {
        let (var, source) = loop_header(&open, "range(START, END)")?;
        let (start, end) = parse_range(&open, source, &self.scope)?;
        let body = self.loop_body(&open, &var, DirKind::EndFor, depth)?;
        Ok(Node::For {
            src: open.src,
            at: open.at,
            var,
            start,
            end,
            body,
        })
    }

    fn foreach_block(&mut self, open: Dir, depth: usize) -> Result<Node, TemplateError> {
        let (var, source) = loop_header(&open, "props.LIST")?;
        let list = parse_operand(source, &self.scope, &open)?;
        let body = self.loop_body(&open, &var, DirKind::EndForeach, depth)?;
        Ok(Node::Foreach {
            src: open.src,
            at: open.at,
            var,
            list,
            body,
        })
    }

    fn loop_body(
        &mut self,
        open: &Dir,
        var: &str,
        closer: DirKind,
        depth: usize,
    ) -> Result<Vec<Node>, TemplateError> {
        self.scope.push(var.to_string());
        let result = self.block(depth);
        self.scope.pop();
        let (body, end) = result?;
        let want = format!("@{}", closer.keyword());
        match end {
            None => Err(unclosed(open, &want)),
            Some(end) if end.kind == closer => Ok(body),
            Some(end) => Err(mismatched(open, &end, &want)),
        }
    }
}

fn unclosed(open: &Dir, closer: &str) -> TemplateError {
    malformed(
        open.at,
        format!(
            "`{}` is never closed: add `{closer}` after its body",
            open.src
        ),
    )
}

fn mismatched(open: &Dir, found: &Dir, want: &str) -> TemplateError {
    malformed(
        found.at,
        format!(
            "`{}` is closed by `{}`: close it with `{want}` (blocks close in reverse order of \
             opening)",
            open.src, found.src
        ),
    )
}

/// `VAR in SOURCE` of a `@for`/`@foreach`.
fn loop_header<'a>(open: &'a Dir, shape: &str) -> Result<(String, &'a str), TemplateError> {
    let arg = open.arg.trim();
    let bad = || {
        malformed(
            open.at,
            format!(
                "`{}` should read `@{}(NAME in {shape})`",
                open.src,
                open.kind.keyword()
            ),
        )
    };
    let (var, rest) = arg.split_once(char::is_whitespace).ok_or_else(bad)?;
    let rest = rest.trim_start().strip_prefix("in").ok_or_else(bad)?;
    if !rest.starts_with(char::is_whitespace) {
        return Err(bad());
    }
    if !is_ident(var) {
        return Err(malformed(
            open.at,
            format!(
                "`{}`: the loop variable `{var}` must be a name of letters, digits and `_`",
                open.src
            ),
        ));
    }
    if matches!(var, "props" | "input" | "env" | "host") {
        return Err(malformed(
            open.at,
            format!(
                "`{}`: `{var}` is reserved; name the loop variable something else, e.g. `item`",
                open.src
            ),
        ));
    }
    Ok((var.to_string(), rest.trim()))
}

fn parse_range(open: &Dir, source: &str, scope: &[String]) -> Result<(Sum, Sum), TemplateError> {
    let inner = source
        .strip_prefix("range")
        .map(str::trim_start)
        .and_then(|r| r.strip_prefix('('))
        .and_then(|r| r.strip_suffix(')'))
        .ok_or_else(|| {
            malformed(
                open.at,
                format!(
                    "`{}`: `@for` loops over `range(START, END)` (END excluded); use `@foreach` \
                     to loop over a list",
                    open.src
                ),
            )
        })?;
    let cx = Cx {
        scope,
        src: &open.src,
        at: open.at,
    };
    let args = split_outside_brackets(inner, ',');
    match args.as_slice() {
        [end] => Ok((
            Sum {
                src: "0".to_string(),
                terms: vec![(false, Operand::Lit("0".to_string()))],
            },
            parse_sum(end, &cx)?,
        )),
        [start, end] => Ok((parse_sum(start, &cx)?, parse_sum(end, &cx)?)),
        _ => Err(malformed(
            open.at,
            format!(
                "`{}`: `range` takes `START, END` (whole numbers, END excluded)",
                open.src
            ),
        )),
    }
}

/// What a path or expression is read in: the loop variables in scope, and the expression or
/// directive holding it, for messages.
struct Cx<'a> {
    scope: &'a [String],
    src: &'a str,
    at: usize,
}

impl Cx<'_> {
    fn err(&self, message: String) -> TemplateError {
        malformed(self.at, message)
    }
}

/// A sum such as `props.count + 1`, `i - 1` or `-2`. Names used here cannot contain `-`, which
/// is the subtraction operator.
fn parse_sum(text: &str, cx: &Cx<'_>) -> Result<Sum, TemplateError> {
    let bad = |why: &str| {
        cx.err(format!(
            "`{}`: `{}` {why}; an expression here is a whole number, an input or a loop \
             variable, optionally plus or minus others (`props.count + 1`)",
            cx.src,
            text.trim()
        ))
    };
    let mut terms = Vec::new();
    let mut negative = false;
    let mut expect_operand = true;
    let mut i = 0;
    while i < text.len() {
        let rest = &text[i..];
        let Some(c) = rest.chars().next() else { break };
        if c.is_whitespace() {
            i += c.len_utf8();
            continue;
        }
        if expect_operand {
            if c == '-' || c == '+' {
                negative ^= c == '-';
                i += 1;
                continue;
            }
            let (operand, used) = if c.is_ascii_digit() {
                let used = rest
                    .find(|c: char| !(c.is_ascii_digit() || c == '.'))
                    .unwrap_or(rest.len());
                (Operand::Lit(rest[..used].to_string()), used)
            } else if c.is_ascii_alphabetic() || c == '_' {
                match read_path(rest, false, cx)? {
                    (Read::Path(p), used) => (Operand::Path(p), used),
                    (Read::Env, _) => return Err(TemplateError::EnvCondition(cx.src.to_string())),
                }
            } else {
                return Err(bad(&format!("has an unexpected `{c}`")));
            };
            terms.push((negative, operand));
            negative = false;
            expect_operand = false;
            i += used;
        } else {
            match c {
                '+' => negative = false,
                '-' => negative = true,
                _ => return Err(bad(&format!("has an unexpected `{c}`"))),
            }
            expect_operand = true;
            i += 1;
        }
    }
    if expect_operand {
        return Err(bad(if terms.is_empty() {
            "is empty"
        } else {
            "ends with an operator"
        }));
    }
    Ok(Sum {
        src: text.trim().to_string(),
        terms,
    })
}

/// What [`read_path`] found.
enum Read {
    Path(Path),
    /// `env.NAME`, which only the callers that accept references turn into one.
    Env,
}

/// Reads the path at the start of `text`: `props.a.b[i - 1]`, `input.x`, a loop variable with
/// fields, `host`, `host.id` or `env.X`. Returns it and the bytes read. `dash` says whether names
/// may contain `-` (not in sums, where `-` subtracts).
fn read_path(text: &str, dash: bool, cx: &Cx<'_>) -> Result<(Read, usize), TemplateError> {
    let name_end = |from: usize, dash: bool| {
        text[from..]
            .find(|c: char| !(is_ident_char(c) || (dash && c == '-')))
            .map_or(text.len(), |n| from + n)
    };
    let root_end = name_end(0, false);
    let word = &text[..root_end];
    let mut i = root_end;
    let root = match word {
        "env" => {
            if !text[i..].starts_with('.') {
                return Err(cx.err(format!(
                    "`{}`: name the field, e.g. `{{{{env.NAME}}}}`",
                    cx.src
                )));
            }
            let end = name_end(i + 1, false);
            if !is_ident(&text[i + 1..end]) {
                return Err(not_env_name(text[i + 1..].trim(), cx));
            }
            if text[end..].starts_with(['.', '[']) {
                return Err(cx.err(format!(
                    "`{}`: an environment variable is one text and has no fields: write \
                     `{}`",
                    cx.src,
                    &text[..end]
                )));
            }
            return Ok((Read::Env, end));
        }
        "props" | "input" => {
            if !text[i..].starts_with('.') {
                return Err(cx.err(format!(
                    "`{}`: name the field, e.g. `{{{{{word}.NAME}}}}`",
                    cx.src
                )));
            }
            Root::Props
        }
        "host" => Root::Host,
        var if cx.scope.iter().any(|v| v == var) => Root::Var(var.to_string()),
        "" => {
            return Err(cx.err(format!(
                "`{}`: cannot read `{}`: a value is `props.NAME`, a loop variable, `'text'` or a \
                 number",
                cx.src,
                snippet(text)
            )));
        }
        other if text[i..].starts_with('.') => {
            return Err(cx.err(format!(
                "`{}`: unknown context `{other}`: use `props.NAME` for an input, `env.NAME` for \
                 an environment variable or `host.id` for the host",
                cx.src
            )));
        }
        other => {
            return Err(cx.err(format!(
                "`{}`: `{other}` is not a loop variable here: write `{{{{props.{other}}}}}` \
                 for an input or `{{{{env.{other}}}}}` for an environment variable",
                cx.src
            )));
        }
    };
    let mut segs = Vec::new();
    loop {
        let rest = &text[i..];
        if rest.starts_with('.') {
            let end = name_end(i + 1, dash);
            let name = &text[i + 1..end];
            if name.is_empty() {
                return Err(cx.err(format!(
                    "`{}`: `{}` ends with `.`: name a field after it",
                    cx.src,
                    &text[..=i]
                )));
            }
            segs.push(Seg::Key(name.to_string()));
            i = end;
        } else if rest.starts_with('[') {
            let close = matching_bracket(rest).ok_or_else(|| {
                cx.err(format!(
                    "`{}`: `{}` has no closing `]`",
                    cx.src,
                    snippet(text)
                ))
            })?;
            let inner = rest[1..close].trim();
            let seg = match quoted(inner) {
                Some(key) => Seg::Key(key.to_string()),
                None => Seg::Index(parse_sum(inner, cx)?),
            };
            segs.push(seg);
            i += close + 1;
        } else {
            break;
        }
    }
    match (&root, segs.as_slice()) {
        (Root::Host, []) => {}
        (Root::Host, [Seg::Key(k)]) if k == "id" => {}
        (Root::Host, _) => {
            return Err(cx.err(format!(
                "`{}`: the host has only an id: write `host` or `host.id`",
                cx.src
            )));
        }
        _ => {}
    }
    let path = Path {
        root,
        segs,
        src: text[..i].to_string(),
        at: cx.at,
    };
    Ok((Read::Path(path), i))
}

/// The index of the `]` closing the `[` that `s` starts with.
fn matching_bracket(s: &str) -> Option<usize> {
    let mut depth = 0usize;
    let mut quote = None;
    for (i, c) in s.char_indices() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None => match c {
                '\'' | '"' => quote = Some(c),
                '[' => depth += 1,
                ']' => {
                    depth = depth.checked_sub(1)?;
                    if depth == 0 {
                        return Some(i);
                    }
                }
                _ => {}
            },
        }
    }
    None
}

/// A whole operand that must be one path: what follows it is reported.
fn whole_path(text: &str, cx: &Cx<'_>) -> Result<Read, TemplateError> {
    let (read, used) = read_path(text, true, cx)?;
    if used == text.len() {
        return Ok(read);
    }
    let rest = &text[used..];
    if let Some(name) = text.strip_prefix("env.") {
        return Err(not_env_name(name, cx));
    }
    Err(cx.err(match text.split_once('.') {
        Some(("props" | "input", name)) if !name.contains(['.', '[']) => {
            format!(
                "`{}`: `{name}` is not an input name (letters, digits, `_` and `-`)",
                cx.src
            )
        }
        _ => format!(
            "`{}`: cannot read `{}` after `{}`: a value is `props.NAME`, a loop variable, \
             `'text'` or a number",
            cx.src,
            rest.trim(),
            &text[..used]
        ),
    }))
}

fn not_env_name(name: &str, cx: &Cx<'_>) -> TemplateError {
    cx.err(format!(
        "`{}`: `{name}` is not an environment variable name (letters, digits and `_`, not \
         starting with a digit)",
        cx.src
    ))
}

pub(super) fn is_ident(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(is_ident_char)
}

/// Input names: letters, digits, `_` and `-`.
pub(super) fn is_prop_name(s: &str) -> bool {
    !s.is_empty() && s.chars().all(|c| is_ident_char(c) || c == '-')
}

/// Splits `s` at `sep` outside quotes.
pub(super) fn split_outside_quotes(s: &str, sep: char) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut quote = None;
    let mut from = 0;
    for (i, c) in s.char_indices() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if c == '\'' || c == '"' => quote = Some(c),
            None if c == sep => {
                parts.push(&s[from..i]);
                from = i + c.len_utf8();
            }
            None => {}
        }
    }
    parts.push(&s[from..]);
    parts
}

/// Splits `s` at `sep` outside quotes, brackets and parentheses.
fn split_outside_brackets(s: &str, sep: char) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut quote = None;
    let mut depth = 0usize;
    let mut from = 0;
    for (i, c) in s.char_indices() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None => match c {
                '\'' | '"' => quote = Some(c),
                '[' | '(' => depth += 1,
                ']' | ')' => depth = depth.saturating_sub(1),
                c if c == sep && depth == 0 => {
                    parts.push(&s[from..i]);
                    from = i + c.len_utf8();
                }
                _ => {}
            },
        }
    }
    parts.push(&s[from..]);
    parts
}

/// `'text'` or `"text"` without the quotes.
pub(super) fn quoted(s: &str) -> Option<&str> {
    let q = s.chars().next().filter(|c| *c == '\'' || *c == '"')?;
    let inner = s.get(1..)?.strip_suffix(q)?;
    (!inner.contains(q)).then_some(inner)
}

/// The inside of `{{...}}` at offset `at`.
pub(super) fn parse_chain(expr: &str, at: usize, scope: &[String]) -> Result<Chain, TemplateError> {
    let src = format!("{{{{{expr}}}}}");
    let cx = Cx {
        scope,
        src: &src,
        at,
    };
    let mut alts = Vec::new();
    let pieces = split_outside_quotes(expr, '|');
    let count = pieces.len();
    for (n, piece) in pieces.into_iter().enumerate() {
        let piece = piece.trim();
        if piece.is_empty() {
            return Err(cx.err(if count == 1 {
                format!("`{src}` is empty: write `{{{{props.NAME}}}}` or `{{{{env.NAME}}}}`")
            } else {
                format!(
                    "`{src}` has an empty alternative: remove the extra `|` or put a value \
                     between them"
                )
            }));
        }
        if piece.starts_with(['\'', '"']) {
            let lit = quoted(piece).ok_or_else(|| {
                cx.err(format!(
                    "`{src}`: `{piece}` is not one quoted text: write a default as `'text'` \
                     or `\"text\"` (a `'` goes inside `\"…\"`, a `\"` inside `'…'`)"
                ))
            })?;
            if n + 1 != count {
                return Err(cx.err(format!(
                    "`{src}`: the default `{piece}` must come last, because nothing after it \
                     is ever used"
                )));
            }
            alts.push(Alt::Lit(lit.to_string()));
            continue;
        }
        alts.push(match whole_path(piece, &cx)? {
            Read::Path(p) => Alt::Path(p),
            Read::Env => Alt::Env(piece["env.".len()..].to_string()),
        });
    }
    Ok(Chain { src, alts, at })
}

fn is_number(s: &str) -> bool {
    let digits = s.strip_prefix(['-', '+']).unwrap_or(s);
    let mut seen_digit = false;
    let mut seen_dot = false;
    for c in digits.chars() {
        match c {
            '0'..='9' => seen_digit = true,
            '.' if !seen_dot => seen_dot = true,
            _ => return false,
        }
    }
    seen_digit
}

/// An operand of a condition or `@foreach`: a path (`props.x`, `item.name`, `host`), `'text'`, a
/// number, `true` or `false`.
fn parse_operand(text: &str, scope: &[String], dir: &Dir) -> Result<Operand, TemplateError> {
    let text = text.trim();
    let cx = Cx {
        scope,
        src: &dir.src,
        at: dir.at,
    };
    if text.is_empty() {
        return Err(cx.err(format!(
            "`{}` is missing a value: write e.g. `props.NAME`, `'text'` or a number",
            dir.src
        )));
    }
    if text.starts_with(['\'', '"']) {
        return quoted(text)
            .map(|l| Operand::Lit(l.to_string()))
            .ok_or_else(|| {
                cx.err(format!(
                    "`{}`: `{text}` is not one quoted text: write `'text'` or `\"text\"`",
                    dir.src
                ))
            });
    }
    if is_number(text) || text == "true" || text == "false" {
        return Ok(Operand::Lit(text.to_string()));
    }
    if text.starts_with("env.") {
        return Err(TemplateError::EnvCondition(dir.src.clone()));
    }
    let word_end = text.find(|c: char| !is_ident_char(c)).unwrap_or(text.len());
    let word = &text[..word_end];
    let known = matches!(word, "props" | "input" | "host") || scope.iter().any(|v| v == word);
    if !known && !text[word_end..].starts_with('.') {
        if word_end == text.len() {
            return Err(bad_operand(text, &cx));
        }
        return Err(cx.err(format!(
            "`{}`: cannot read `{text}`: a value is `props.NAME`, a loop variable, `'text'` or \
             a number (combine conditions by nesting `@if` blocks)",
            dir.src
        )));
    }
    match whole_path(text, &cx)? {
        Read::Path(p) => Ok(Operand::Path(p)),
        Read::Env => Err(TemplateError::EnvCondition(dir.src.clone())),
    }
}

fn bad_operand(text: &str, cx: &Cx<'_>) -> TemplateError {
    cx.err(format!(
        "`{}`: `{text}` is neither `props.NAME`, a loop variable, a quoted text nor a number: \
         quote it (`'{text}'`) if you meant the text",
        cx.src
    ))
}

fn parse_cond(dir: &Dir, scope: &[String]) -> Result<Cond, TemplateError> {
    let arg = dir.arg.trim();
    let err = |message: String| malformed(dir.at, message);
    if arg.is_empty() {
        return Err(err(format!(
            "`{}` has no condition: write e.g. `@{}(props.NAME)`",
            dir.src,
            dir.kind.keyword()
        )));
    }
    if arg.contains("{{") {
        return Err(err(format!(
            "`{}`: conditions name values directly, without braces: `@{}(props.NAME)`",
            dir.src,
            dir.kind.keyword()
        )));
    }
    if arg.contains("&&") || arg.contains("||") {
        return Err(err(format!(
            "`{}`: `&&` and `||` are not supported: nest `@if` blocks, or use `@elseif`",
            dir.src
        )));
    }
    match find_operator(arg) {
        Some((at, op)) => {
            let left = &arg[..at];
            let right = &arg[at + op.symbol().len()..];
            if right.trim().is_empty() || left.trim().is_empty() {
                return Err(err(format!(
                    "`{}`: `{}` needs a value on both sides",
                    dir.src,
                    op.symbol()
                )));
            }
            Ok(Cond::Cmp(
                parse_operand(left, scope, dir)?,
                op,
                parse_operand(right, scope, dir)?,
            ))
        }
        None => {
            if split_outside_quotes(arg, '=').len() > 1 {
                return Err(err(format!("`{}`: compare with `==`, not `=`", dir.src)));
            }
            if arg.starts_with('!') {
                return Err(err(format!(
                    "`{}`: `!` is not supported: write `@if({})@else...@endif`, or compare with \
                     `== 'false'`",
                    dir.src,
                    arg.trim_start_matches('!').trim()
                )));
            }
            Ok(Cond::Truthy(parse_operand(arg, scope, dir)?))
        }
    }
}

/// The first comparison operator outside quotes and brackets.
fn find_operator(s: &str) -> Option<(usize, CmpOp)> {
    let mut quote = None;
    let mut depth = 0usize;
    for (i, c) in s.char_indices() {
        match quote {
            Some(q) => {
                if c == q {
                    quote = None;
                }
            }
            None => {
                match c {
                    '[' => depth += 1,
                    ']' => depth = depth.saturating_sub(1),
                    _ => {}
                }
                if depth > 0 {
                    continue;
                }
                let rest = &s[i..];
                let two = [
                    ("==", CmpOp::Eq),
                    ("!=", CmpOp::Ne),
                    (">=", CmpOp::Ge),
                    ("<=", CmpOp::Le),
                ];
                if let Some((_, op)) = two.iter().find(|(sym, _)| rest.starts_with(sym)) {
                    return Some((i, *op));
                }
                match c {
                    '\'' | '"' => quote = Some(c),
                    '>' => return Some((i, CmpOp::Gt)),
                    '<' => return Some((i, CmpOp::Lt)),
                    _ => {}
                }
            }
        }
    }
    None
}

/// Every path starting at `props.`/`input.` in `nodes`, in every branch, with fields and indexes.
pub(super) fn prop_paths<'n>(nodes: &'n [Node], out: &mut Vec<&'n Path>) {
    fn path<'n>(p: &'n Path, out: &mut Vec<&'n Path>) {
        if p.root == Root::Props {
            out.push(p);
        }
        for seg in &p.segs {
            if let Seg::Index(index) = seg {
                sum(index, out);
            }
        }
    }
    fn operand<'n>(op: &'n Operand, out: &mut Vec<&'n Path>) {
        if let Operand::Path(p) = op {
            path(p, out);
        }
    }
    fn sum<'n>(s: &'n Sum, out: &mut Vec<&'n Path>) {
        for (_, op) in &s.terms {
            operand(op, out);
        }
    }
    for node in nodes {
        match node {
            Node::Text(_) => {}
            Node::Expr(chain) => {
                for alt in &chain.alts {
                    if let Alt::Path(p) = alt {
                        path(p, out);
                    }
                }
            }
            Node::If {
                branches,
                otherwise,
            } => {
                for (cond, body) in branches {
                    match cond {
                        Cond::Truthy(op) => operand(op, out),
                        Cond::Cmp(a, _, b) => {
                            operand(a, out);
                            operand(b, out);
                        }
                    }
                    prop_paths(body, out);
                }
                prop_paths(otherwise, out);
            }
            Node::For {
                start, end, body, ..
            } => {
                sum(start, out);
                sum(end, out);
                prop_paths(body, out);
            }
            Node::Foreach { list, body, .. } => {
                operand(list, out);
                prop_paths(body, out);
            }
        }
    }
}
