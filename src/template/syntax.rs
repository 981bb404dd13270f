//! Reading a template: the lexer splits a string into text, `{{...}}` expressions and `@`
//! directives; the parser builds a tree and reports every static error (unknown context, unclosed
//! block, bad condition, bad range) whatever the props' values are.

use super::TemplateError;

/// How deeply blocks may nest; deeper templates are refused instead of exhausting the stack.
pub(super) const MAX_DEPTH: usize = 32;

/// One alternative of a `|` chain inside `{{...}}`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Alt {
    Prop(String),
    Env(String),
    Lit(String),
    Var(String),
}

/// `{{a|b|'d'}}`: `src` is the whole expression as written, for messages.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Chain {
    pub src: String,
    pub alts: Vec<Alt>,
}

/// A value in a condition, a range bound or a `@foreach` source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Operand {
    Prop(String),
    Var(String),
    Lit(String),
}

impl Operand {
    /// How the operand reads in the template, for messages.
    pub fn describe(&self) -> String {
        match self {
            Operand::Prop(n) => format!("props.{n}"),
            Operand::Var(n) => n.clone(),
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

/// A range bound: a sum of signed integer terms, e.g. `props.count + 1`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Bound {
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
        var: String,
        start: Bound,
        end: Bound,
        body: Vec<Node>,
    },
    Foreach {
        src: String,
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
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Tok {
    Text(String),
    /// The inside of `{{...}}`.
    Expr(String),
    Dir(Dir),
}

fn malformed(msg: String) -> TemplateError {
    TemplateError::Malformed(msg)
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
                    toks.push(Tok::Expr(inner.to_string()));
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
                    return Err(malformed(format!(
                        "`{}` is not closed before the next `{{{{`: add `}}}}` after the \
                         expression (write `{{{{'{{{{'}}}}` for a literal `{{{{`)",
                        snippet(&s[start..at])
                    )));
                }
                _ => {}
            },
        }
    }
    match quote {
        Some(q) => Err(malformed(format!(
            "`{}` has a {q} quote that is never closed: close it, or quote a text that \
             contains {q} with the other kind of quote",
            snippet(&s[start..])
        ))),
        None => Err(malformed(format!(
            "`{}` is never closed: add `}}}}` (write `{{{{'{{{{'}}}}` for a literal `{{{{`)",
            snippet(&s[start..])
        ))),
    }
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
    Err(malformed(format!(
        "`{}` has no closing `)`: close the parenthesis after the condition",
        snippet(&s[open..])
    )))
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
    malformed(format!(
        "`{}` has no matching `{opener}` before it: remove it or add the `{opener}` (with \
         no space before `(`)",
        dir.src
    ))
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
                Tok::Expr(e) => nodes.push(Node::Expr(parse_chain(&e, &self.scope)?)),
                Tok::Dir(dir) => {
                    if dir.kind.takes_arg() && depth >= MAX_DEPTH {
                        return Err(malformed(format!(
                            "`{}` nests blocks more than {MAX_DEPTH} deep: simplify the template",
                            dir.src
                        )));
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
                        DirKind::ElseIf | DirKind::Else => Err(malformed(format!(
                            "`{}` comes after `@else` in `{}`: `@else` must be the last branch, \
                             move it down",
                            end.src, open.src
                        ))),
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
            var,
            start,
            end,
            body,
        })
    }

    fn foreach_block(&mut self, open: Dir, depth: usize) -> Result<Node, TemplateError> {
        let (var, source) = loop_header(&open, "props.LIST")?;
        let list = parse_operand(source, &self.scope, &open.src)?;
        let body = self.loop_body(&open, &var, DirKind::EndForeach, depth)?;
        Ok(Node::Foreach {
            src: open.src,
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
    malformed(format!(
        "`{}` is never closed: add `{closer}` after its body",
        open.src
    ))
}

fn mismatched(open: &Dir, found: &Dir, want: &str) -> TemplateError {
    malformed(format!(
        "`{}` is closed by `{}`: close it with `{want}` (blocks close in reverse order of opening)",
        open.src, found.src
    ))
}

/// `VAR in SOURCE` of a `@for`/`@foreach`.
fn loop_header<'a>(open: &'a Dir, shape: &str) -> Result<(String, &'a str), TemplateError> {
    let arg = open.arg.trim();
    let bad = || {
        malformed(format!(
            "`{}` should read `@{}(NAME in {shape})`",
            open.src,
            open.kind.keyword()
        ))
    };
    let (var, rest) = arg.split_once(char::is_whitespace).ok_or_else(bad)?;
    let rest = rest.trim_start().strip_prefix("in").ok_or_else(bad)?;
    if !rest.starts_with(char::is_whitespace) {
        return Err(bad());
    }
    if !is_ident(var) {
        return Err(malformed(format!(
            "`{}`: the loop variable `{var}` must be a name of letters, digits and `_`",
            open.src
        )));
    }
    if matches!(var, "props" | "input" | "env") {
        return Err(malformed(format!(
            "`{}`: `{var}` is reserved; name the loop variable something else, e.g. `item`",
            open.src
        )));
    }
    Ok((var.to_string(), rest.trim()))
}

fn parse_range(
    open: &Dir,
    source: &str,
    scope: &[String],
) -> Result<(Bound, Bound), TemplateError> {
    let inner = source
        .strip_prefix("range")
        .map(str::trim_start)
        .and_then(|r| r.strip_prefix('('))
        .and_then(|r| r.strip_suffix(')'))
        .ok_or_else(|| {
            malformed(format!(
                "`{}`: `@for` loops over `range(START, END)` (END excluded); use `@foreach` \
                 to loop over a list",
                open.src
            ))
        })?;
    let args: Vec<&str> = inner.split(',').collect();
    match args.as_slice() {
        [end] => Ok((
            Bound {
                src: "0".to_string(),
                terms: vec![(false, Operand::Lit("0".to_string()))],
            },
            parse_bound(open, end, scope)?,
        )),
        [start, end] => Ok((
            parse_bound(open, start, scope)?,
            parse_bound(open, end, scope)?,
        )),
        _ => Err(malformed(format!(
            "`{}`: `range` takes `START, END` (whole numbers, END excluded)",
            open.src
        ))),
    }
}

/// A sum such as `props.count + 1` or `-2`. Names used here cannot contain `-`, which is the
/// subtraction operator.
fn parse_bound(open: &Dir, text: &str, scope: &[String]) -> Result<Bound, TemplateError> {
    let bad = |why: &str| {
        malformed(format!(
            "`{}`: range bound `{}` {why}; a bound is a whole number, an input or a loop \
             variable, optionally plus or minus others (`props.count + 1`)",
            open.src,
            text.trim()
        ))
    };
    let mut terms = Vec::new();
    let mut negative = false;
    let mut expect_operand = true;
    let mut chars = text.char_indices().peekable();
    while let Some(&(at, c)) = chars.peek() {
        if c.is_whitespace() {
            chars.next();
            continue;
        }
        if expect_operand {
            if c == '-' || c == '+' {
                negative ^= c == '-';
                chars.next();
                continue;
            }
            let mut end = at;
            while let Some(&(j, c)) = chars.peek() {
                if is_ident_char(c) || c == '.' {
                    end = j + c.len_utf8();
                    chars.next();
                } else {
                    break;
                }
            }
            let word = &text[at..end];
            if word.is_empty() {
                return Err(bad(&format!("has an unexpected `{c}`")));
            }
            terms.push((negative, parse_operand(word, scope, &open.src)?));
            negative = false;
            expect_operand = false;
        } else {
            match c {
                '+' => negative = false,
                '-' => negative = true,
                _ => return Err(bad(&format!("has an unexpected `{c}`"))),
            }
            expect_operand = true;
            chars.next();
        }
    }
    if expect_operand {
        return Err(bad(if terms.is_empty() {
            "is empty"
        } else {
            "ends with an operator"
        }));
    }
    Ok(Bound {
        src: text.trim().to_string(),
        terms,
    })
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

/// `'text'` or `"text"` without the quotes.
pub(super) fn quoted(s: &str) -> Option<&str> {
    let q = s.chars().next().filter(|c| *c == '\'' || *c == '"')?;
    let inner = s.get(1..)?.strip_suffix(q)?;
    (!inner.contains(q)).then_some(inner)
}

/// The inside of `{{...}}`.
pub(super) fn parse_chain(expr: &str, scope: &[String]) -> Result<Chain, TemplateError> {
    let src = format!("{{{{{expr}}}}}");
    let mut alts = Vec::new();
    let pieces = split_outside_quotes(expr, '|');
    let count = pieces.len();
    for (n, piece) in pieces.into_iter().enumerate() {
        let piece = piece.trim();
        if piece.is_empty() {
            return Err(malformed(if count == 1 {
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
                malformed(format!(
                    "`{src}`: `{piece}` is not one quoted text: write a default as `'text'` \
                     or `\"text\"` (a `'` goes inside `\"…\"`, a `\"` inside `'…'`)"
                ))
            })?;
            if n + 1 != count {
                return Err(malformed(format!(
                    "`{src}`: the default `{piece}` must come last, because nothing after it \
                     is ever used"
                )));
            }
            alts.push(Alt::Lit(lit.to_string()));
            continue;
        }
        alts.push(parse_path(piece, scope, &src)?);
    }
    Ok(Chain { src, alts })
}

/// `props.x`, `input.x`, `env.X` or a loop variable.
fn parse_path(piece: &str, scope: &[String], src: &str) -> Result<Alt, TemplateError> {
    if piece.contains(['[', ']']) {
        return Err(malformed(format!(
            "`{src}`: indexing (`{piece}`) is not supported: inputs are plain strings; use \
             `@foreach(item in props.LIST)` to go through a comma-separated list"
        )));
    }
    let (ctx, rest) = match piece.split_once('.') {
        Some((ctx, rest)) => (ctx, Some(rest)),
        None => (piece, None),
    };
    match (ctx, rest) {
        ("props" | "input", Some(name)) => {
            if name.contains('.') {
                Err(malformed(format!(
                    "`{src}`: `{piece}` reaches into a nested field, but inputs are plain \
                     strings: use `{ctx}.{}` or a separate input",
                    name.split('.').next().unwrap_or_default()
                )))
            } else if is_prop_name(name) {
                Ok(Alt::Prop(name.to_string()))
            } else {
                Err(malformed(format!(
                    "`{src}`: `{name}` is not an input name (letters, digits, `_` and `-`)"
                )))
            }
        }
        ("env", Some(name)) => {
            if is_ident(name) {
                Ok(Alt::Env(name.to_string()))
            } else {
                Err(malformed(format!(
                    "`{src}`: `{name}` is not an environment variable name (letters, digits \
                     and `_`, not starting with a digit)"
                )))
            }
        }
        ("props" | "input" | "env", None) => Err(malformed(format!(
            "`{src}`: name the field, e.g. `{{{{{ctx}.NAME}}}}`"
        ))),
        (var, rest) if scope.iter().any(|v| v == var) => match rest {
            None => Ok(Alt::Var(var.to_string())),
            Some(_) => Err(malformed(format!(
                "`{src}`: the loop variable `{var}` is a plain string and has no fields: \
                 write `{{{{{var}}}}}`"
            ))),
        },
        (ctx, Some(_)) => Err(malformed(format!(
            "`{src}`: unknown context `{ctx}`: use `props.NAME` for an input or `env.NAME` \
             for an environment variable"
        ))),
        (name, None) => Err(malformed(format!(
            "`{src}`: `{name}` is not a loop variable here: write `{{{{props.{name}}}}}` \
             for an input or `{{{{env.{name}}}}}` for an environment variable"
        ))),
    }
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

/// An operand of a condition, range or `@foreach`: `props.x`, a loop variable, `'text'`, a
/// number, `true` or `false`.
pub(super) fn parse_operand(
    text: &str,
    scope: &[String],
    dir_src: &str,
) -> Result<Operand, TemplateError> {
    let text = text.trim();
    if text.is_empty() {
        return Err(malformed(format!(
            "`{dir_src}` is missing a value: write e.g. `props.NAME`, `'text'` or a number"
        )));
    }
    if text.starts_with(['\'', '"']) {
        return quoted(text)
            .map(|l| Operand::Lit(l.to_string()))
            .ok_or_else(|| {
                malformed(format!(
                    "`{dir_src}`: `{text}` is not one quoted text: write `'text'` or `\"text\"`"
                ))
            });
    }
    if is_number(text) || text == "true" || text == "false" {
        return Ok(Operand::Lit(text.to_string()));
    }
    if text.starts_with("env.") {
        return Err(TemplateError::EnvCondition(dir_src.to_string()));
    }
    let plain = text
        .chars()
        .all(|c| is_ident_char(c) || c == '.' || c == '-');
    if !plain {
        return Err(malformed(format!(
            "`{dir_src}`: cannot read `{text}`: a value is `props.NAME`, a loop variable, \
             `'text'` or a number (combine conditions by nesting `@if` blocks)"
        )));
    }
    if !text.contains('.') && !scope.iter().any(|v| v == text) {
        return Err(bad_operand(text, dir_src));
    }
    match parse_path(text, scope, dir_src)? {
        Alt::Prop(p) => Ok(Operand::Prop(p)),
        Alt::Var(v) => Ok(Operand::Var(v)),
        Alt::Env(_) => Err(TemplateError::EnvCondition(dir_src.to_string())),
        Alt::Lit(l) => Ok(Operand::Lit(l)),
    }
}

fn bad_operand(text: &str, dir_src: &str) -> TemplateError {
    malformed(format!(
        "`{dir_src}`: `{text}` is neither `props.NAME`, a loop variable, a quoted text nor a \
         number: quote it (`'{text}'`) if you meant the text"
    ))
}

fn parse_cond(dir: &Dir, scope: &[String]) -> Result<Cond, TemplateError> {
    let arg = dir.arg.trim();
    if arg.is_empty() {
        return Err(malformed(format!(
            "`{}` has no condition: write e.g. `@{}(props.NAME)`",
            dir.src,
            dir.kind.keyword()
        )));
    }
    if arg.contains("{{") {
        return Err(malformed(format!(
            "`{}`: conditions name values directly, without braces: `@{}(props.NAME)`",
            dir.src,
            dir.kind.keyword()
        )));
    }
    if arg.contains("&&") || arg.contains("||") {
        return Err(malformed(format!(
            "`{}`: `&&` and `||` are not supported: nest `@if` blocks, or use `@elseif`",
            dir.src
        )));
    }
    match find_operator(arg) {
        Some((at, op)) => {
            let left = &arg[..at];
            let right = &arg[at + op.symbol().len()..];
            if right.trim().is_empty() || left.trim().is_empty() {
                return Err(malformed(format!(
                    "`{}`: `{}` needs a value on both sides",
                    dir.src,
                    op.symbol()
                )));
            }
            Ok(Cond::Cmp(
                parse_operand(left, scope, &dir.src)?,
                op,
                parse_operand(right, scope, &dir.src)?,
            ))
        }
        None => {
            if split_outside_quotes(arg, '=').len() > 1 {
                return Err(malformed(format!(
                    "`{}`: compare with `==`, not `=`",
                    dir.src
                )));
            }
            if arg.starts_with('!') {
                return Err(malformed(format!(
                    "`{}`: `!` is not supported: write `@if({})@else...@endif`, or compare with \
                     `== 'false'`",
                    dir.src,
                    arg.trim_start_matches('!').trim()
                )));
            }
            Ok(Cond::Truthy(parse_operand(arg, scope, &dir.src)?))
        }
    }
}

/// The first comparison operator outside quotes.
fn find_operator(s: &str) -> Option<(usize, CmpOp)> {
    let mut quote = None;
    for (i, c) in s.char_indices() {
        match quote {
            Some(q) => {
                if c == q {
                    quote = None;
                }
            }
            None => {
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
