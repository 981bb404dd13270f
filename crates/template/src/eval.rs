//! Evaluating a parsed template against typed props: conditions and loops are decided at
//! install time, `{{env.X}}` stays a reference.

use serde_json::Value;

use super::syntax::{Alt, Chain, CmpOp, Cond, Node, Operand, Path, Root, Seg, Sum, malformed};
use super::{Context, Part, TemplateError};

/// Loop iterations a whole template may run, all loops together.
pub(super) const MAX_ITERATIONS: usize = 10_000;
/// Bytes of text a template may render to.
pub(super) const MAX_OUTPUT: usize = 1 << 20;

pub(super) struct Eval<'c> {
    cx: &'c Context<'c>,
    /// Loop variables and their current values, innermost last.
    vars: Vec<(String, Value)>,
    pub parts: Vec<Part>,
    iterations: usize,
    size: usize,
}

impl<'c> Eval<'c> {
    pub fn new(cx: &'c Context<'c>) -> Self {
        Eval {
            cx,
            vars: Vec::new(),
            parts: Vec::new(),
            iterations: 0,
            size: 0,
        }
    }

    pub fn nodes(&mut self, nodes: &[Node]) -> Result<(), TemplateError> {
        for node in nodes {
            match node {
                Node::Text(t) => self.text(t)?,
                Node::Expr(chain) => self.chain(chain)?,
                Node::If {
                    branches,
                    otherwise,
                } => {
                    let mut taken = None;
                    for (cond, body) in branches {
                        if self.cond(cond)? {
                            taken = Some(body);
                            break;
                        }
                    }
                    self.nodes(taken.unwrap_or(otherwise))?;
                }
                Node::For {
                    src,
                    at,
                    var,
                    start,
                    end,
                    body,
                } => {
                    let from = self.sum(src, *at, start)?;
                    let to = self.sum(src, *at, end)?;
                    let mut i = from;
                    while i < to {
                        self.iteration(*at, src, var, Value::from(i), body)?;
                        i += 1;
                    }
                }
                Node::Foreach {
                    src,
                    at,
                    var,
                    list,
                    body,
                } => {
                    let value = self.value(list)?.ok_or_else(|| missing(list))?;
                    for item in items(&value, list, *at)? {
                        self.iteration(*at, src, var, item, body)?;
                    }
                }
            }
        }
        Ok(())
    }

    fn iteration(
        &mut self,
        at: usize,
        src: &str,
        var: &str,
        value: Value,
        body: &[Node],
    ) -> Result<(), TemplateError> {
        self.iterations += 1;
        if self.iterations > MAX_ITERATIONS {
            return Err(malformed(
                at,
                format!(
                    "`{src}`: the template's loops run more than {MAX_ITERATIONS} times in all: \
                     use smaller ranges"
                ),
            ));
        }
        self.vars.push((var.to_string(), value));
        let result = self.nodes(body);
        self.vars.pop();
        result
    }

    fn text(&mut self, t: &str) -> Result<(), TemplateError> {
        if t.is_empty() {
            return Ok(());
        }
        self.size += t.len();
        if self.size > MAX_OUTPUT {
            return Err(malformed(
                0,
                format!("the template renders to more than {MAX_OUTPUT} bytes: use smaller loops"),
            ));
        }
        if let Some(Part::Text(last)) = self.parts.last_mut() {
            last.push_str(t);
        } else {
            self.parts.push(Part::Text(t.to_string()));
        }
        Ok(())
    }

    /// The value at `path`; `None` when an input has no value, a field is absent or an index is
    /// past the end. A field of a text, a number or a list is an error.
    pub fn lookup(&self, path: &Path) -> Result<Option<Value>, TemplateError> {
        let mut segs = path.segs.iter();
        let mut current = match &path.root {
            Root::Props => {
                let Some(Seg::Key(name)) = segs.next() else {
                    return Ok(None);
                };
                match self.cx.props.get(name) {
                    Some(v) => v.clone(),
                    None => return Ok(None),
                }
            }
            Root::Var(name) => match self.vars.iter().rev().find(|(n, _)| n == name) {
                Some((_, v)) => v.clone(),
                None => return Ok(None),
            },
            Root::Host => {
                return match self.cx.host {
                    Some(id) => Ok(Some(Value::from(id))),
                    None => Err(malformed(
                        path.at,
                        format!(
                            "`{}` is only known when dotpack writes the server for a host",
                            path.src
                        ),
                    )),
                };
            }
        };
        let mut walked = match &path.root {
            Root::Var(name) => name.clone(),
            _ => String::new(),
        };
        if let Root::Props = path.root
            && let Some(Seg::Key(name)) = path.segs.first()
        {
            walked = format!("props.{name}");
        }
        for seg in segs {
            let next = match (seg, &current) {
                (_, Value::Null) => return Ok(None),
                (Seg::Key(k), Value::Object(map)) => map.get(k).cloned(),
                (Seg::Index(sum), Value::Array(list)) => {
                    let i = self.sum(&path.src, path.at, sum)?;
                    usize::try_from(i).ok().and_then(|i| list.get(i)).cloned()
                }
                (Seg::Index(sum), Value::String(s)) => {
                    let i = self.sum(&path.src, path.at, sum)?;
                    usize::try_from(i)
                        .ok()
                        .and_then(|i| list_items(s).nth(i))
                        .map(Value::from)
                }
                (Seg::Index(sum), Value::Object(map)) => {
                    let i = self.sum(&path.src, path.at, sum)?;
                    map.get(&i.to_string()).cloned()
                }
                (seg, other) => {
                    let what = match seg {
                        Seg::Key(k) => format!("no field `{k}`"),
                        Seg::Index(_) => "no items to index".to_string(),
                    };
                    return Err(malformed(
                        path.at,
                        format!(
                            "`{}`: `{walked}` is {}, which has {what}",
                            path.src,
                            kind_of(other)
                        ),
                    ));
                }
            };
            match next {
                Some(v) => current = v,
                None => return Ok(None),
            }
            match seg {
                Seg::Key(k) => walked = format!("{walked}.{k}"),
                Seg::Index(sum) => walked = format!("{walked}[{}]", sum.src),
            }
        }
        Ok((!current.is_null()).then_some(current))
    }

    fn value(&self, op: &Operand) -> Result<Option<Value>, TemplateError> {
        match op {
            Operand::Path(p) => self.lookup(p),
            Operand::Lit(l) => Ok(Some(Value::from(l.as_str()))),
        }
    }

    /// `{{a|b|'d'}}` as a typed value: the first alternative that has one. `None` when an
    /// environment variable comes first (the result is a reference) or nothing has a value.
    pub fn chain_value(&self, chain: &Chain) -> Result<Option<Value>, TemplateError> {
        for alt in &chain.alts {
            match alt {
                Alt::Env(_) => return Ok(None),
                Alt::Path(p) => {
                    if let Some(v) = self.lookup(p)? {
                        return Ok(Some(v));
                    }
                }
                Alt::Lit(l) => return Ok(Some(Value::from(l.as_str()))),
            }
        }
        Ok(None)
    }

    /// `{{a|b|'d'}}`: the first path that has a value, else the literal; environment variables
    /// met on the way make the result a reference whose default is whatever follows them.
    fn chain(&mut self, chain: &Chain) -> Result<(), TemplateError> {
        let mut names = Vec::new();
        let mut found = None;
        for alt in &chain.alts {
            let value = match alt {
                Alt::Env(n) => {
                    names.push(n.clone());
                    continue;
                }
                Alt::Path(p) => self.lookup(p)?,
                Alt::Lit(l) => Some(Value::from(l.as_str())),
            };
            if value.is_some() {
                found = value;
                break;
            }
        }
        if !names.is_empty() {
            self.parts.push(Part::Env {
                names,
                default: found.as_ref().map(text),
            });
            return Ok(());
        }
        match found {
            Some(v) => self.text(&text(&v)),
            None => Err(chain
                .alts
                .iter()
                .find_map(|a| match a {
                    Alt::Path(p) => Some(missing_path(p)),
                    _ => None,
                })
                .unwrap_or_else(|| malformed(chain.at, format!("`{}` has no value", chain.src)))),
        }
    }

    fn cond(&self, cond: &Cond) -> Result<bool, TemplateError> {
        match cond {
            Cond::Truthy(op) => Ok(self.value(op)?.is_some_and(|v| truthy(&v))),
            Cond::Cmp(a, op, b) => {
                let (l, r) = (self.value(a)?, self.value(b)?);
                match op {
                    CmpOp::Eq | CmpOp::Ne => {
                        let equal = match (&l, &r) {
                            (Some(l), Some(r)) => match (number(l), number(r)) {
                                (Some(x), Some(y)) => x == y,
                                _ => text(l) == text(r),
                            },
                            (None, None) => true,
                            _ => false,
                        };
                        Ok(equal == (*op == CmpOp::Eq))
                    }
                    _ => {
                        let l = l.ok_or_else(|| missing(a))?;
                        let r = r.ok_or_else(|| missing(b))?;
                        let x = number(&l).ok_or_else(|| not_number(a, *op, &l))?;
                        let y = number(&r).ok_or_else(|| not_number(b, *op, &r))?;
                        Ok(match op {
                            CmpOp::Gt => x > y,
                            CmpOp::Lt => x < y,
                            CmpOp::Ge => x >= y,
                            _ => x <= y,
                        })
                    }
                }
            }
        }
    }

    /// A sum of whole numbers (range bounds, indexes).
    fn sum(&self, src: &str, at: usize, sum: &Sum) -> Result<i64, TemplateError> {
        let mut total: i64 = 0;
        for (negative, op) in &sum.terms {
            let value = self.value(op)?.ok_or_else(|| missing(op))?;
            let n = whole(&value).ok_or_else(|| {
                malformed(
                    at,
                    format!(
                        "`{src}`: `{}` is `{}`, not a whole number: a range or an index needs \
                         whole numbers",
                        op.describe(),
                        text(&value)
                    ),
                )
            })?;
            let term = if *negative { n.checked_neg() } else { Some(n) };
            total = term
                .and_then(|t| total.checked_add(t))
                .ok_or_else(|| malformed(at, format!("`{src}`: `{}` is too large", sum.src)))?;
        }
        Ok(total)
    }
}

/// The items a `@foreach` goes through: a list's items, an object's `{key, value}` pairs in
/// order, or the comma-separated parts of a text.
fn items(value: &Value, list: &Operand, at: usize) -> Result<Vec<Value>, TemplateError> {
    match value {
        Value::Array(items) => Ok(items.clone()),
        Value::Object(map) => Ok(map
            .iter()
            .map(|(k, v)| {
                let mut pair = serde_json::Map::new();
                pair.insert("key".to_string(), Value::from(k.as_str()));
                pair.insert("value".to_string(), v.clone());
                Value::Object(pair)
            })
            .collect()),
        Value::String(s) => Ok(list_items(s).map(Value::from).collect()),
        other => Err(malformed(
            at,
            format!(
                "`{}` is {} (`{}`), not a list: `@foreach` goes through a list, an object or a \
                 comma-separated text",
                list.describe(),
                kind_of(other),
                text(other)
            ),
        )),
    }
}

fn missing(op: &Operand) -> TemplateError {
    match op {
        Operand::Path(p) => missing_path(p),
        Operand::Lit(l) => malformed(0, format!("`'{l}'` has no value")),
    }
}

fn missing_path(p: &Path) -> TemplateError {
    match (p.input(), p.segs.len()) {
        (Some(name), 1) => TemplateError::MissingProp(name.to_string()),
        _ => malformed(
            p.at,
            format!(
                "`{}` has no value: the field or item it names is absent (give a default with \
                 `|'…'`, or test it first with `@if({})`)",
                p.src, p.src
            ),
        ),
    }
}

fn not_number(op: &Operand, cmp: CmpOp, value: &Value) -> TemplateError {
    let at = match op {
        Operand::Path(p) => p.at,
        Operand::Lit(_) => 0,
    };
    malformed(
        at,
        format!(
            "`{}` is `{}`, but `{}` compares numbers: compare text with `==` or `!=`",
            op.describe(),
            text(value),
            cmp.symbol()
        ),
    )
}

/// How a value reads in text: a text as it is, numbers and booleans as written, lists and
/// objects as compact JSON.
pub(super) fn text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        other => other.to_string(),
    }
}

/// "a text", "a number", … for messages.
pub(super) fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "nothing",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a text",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

/// A number: a JSON number, or a text that is one.
fn number(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => number_text(s),
        _ => None,
    }
}

/// A whole number: an integral number, or a text that is one.
fn whole(v: &Value) -> Option<i64> {
    match v {
        Value::Number(n) => n.as_i64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// A number, when the whole (trimmed) text is one.
fn number_text(s: &str) -> Option<f64> {
    let t = s.trim();
    let digits = t.strip_prefix(['-', '+']).unwrap_or(t);
    let valid = digits.chars().any(|c| c.is_ascii_digit())
        && digits.chars().all(|c| c.is_ascii_digit() || c == '.')
        && digits.matches('.').count() <= 1;
    if valid { t.parse().ok() } else { None }
}

/// Whether a value counts as true. False: no value, `false`, `0`, an empty list or object, and
/// the texts empty, `false`, `0`, `no` and `off` (any case): inputs set on the command line are
/// text, where `--set verbose=false` means false.
pub(super) fn truthy(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0),
        Value::String(s) => {
            let v = s.trim();
            !(v.is_empty()
                || v.eq_ignore_ascii_case("false")
                || v.eq_ignore_ascii_case("no")
                || v.eq_ignore_ascii_case("off")
                || number_text(v) == Some(0.0))
        }
        Value::Array(a) => !a.is_empty(),
        Value::Object(o) => !o.is_empty(),
    }
}

/// A list given as text is comma-separated; items are trimmed and empty items skipped.
pub(super) fn list_items(v: &str) -> impl Iterator<Item = &str> {
    v.split(',').map(str::trim).filter(|s| !s.is_empty())
}
