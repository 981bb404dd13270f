//! Evaluating a parsed template against props: conditions and loops are decided at install
//! time, `{{env.X}}` stays a reference.

use super::syntax::{Alt, Bound, Chain, CmpOp, Cond, Node, Operand};
use super::{Part, Props, TemplateError};

/// Loop iterations a whole template may run, all loops together.
pub(super) const MAX_ITERATIONS: usize = 10_000;
/// Bytes of text a template may render to.
pub(super) const MAX_OUTPUT: usize = 1 << 20;

pub(super) struct Eval<'p> {
    props: &'p Props,
    /// Loop variables and their current values, innermost last.
    vars: Vec<(String, String)>,
    pub parts: Vec<Part>,
    iterations: usize,
    size: usize,
}

impl<'p> Eval<'p> {
    pub fn new(props: &'p Props) -> Self {
        Eval {
            props,
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
                    var,
                    start,
                    end,
                    body,
                } => {
                    let from = self.bound(src, start)?;
                    let to = self.bound(src, end)?;
                    let mut i = from;
                    while i < to {
                        self.iteration(src, var, i.to_string(), body)?;
                        i += 1;
                    }
                }
                Node::Foreach {
                    src,
                    var,
                    list,
                    body,
                } => {
                    let value = self.value(list).ok_or_else(|| missing(list))?;
                    for item in list_items(&value) {
                        self.iteration(src, var, item.to_string(), body)?;
                    }
                }
            }
        }
        Ok(())
    }

    fn iteration(
        &mut self,
        src: &str,
        var: &str,
        value: String,
        body: &[Node],
    ) -> Result<(), TemplateError> {
        self.iterations += 1;
        if self.iterations > MAX_ITERATIONS {
            return Err(TemplateError::Malformed(format!(
                "`{src}`: the template's loops run more than {MAX_ITERATIONS} times in all: \
                 use smaller ranges"
            )));
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
            return Err(TemplateError::Malformed(format!(
                "the template renders to more than {MAX_OUTPUT} bytes: use smaller loops"
            )));
        }
        if let Some(Part::Text(last)) = self.parts.last_mut() {
            last.push_str(t);
        } else {
            self.parts.push(Part::Text(t.to_string()));
        }
        Ok(())
    }

    fn var(&self, name: &str) -> Option<&str> {
        self.vars
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The operand's value; `None` when it names an input that has no value.
    fn value(&self, op: &Operand) -> Option<String> {
        match op {
            Operand::Prop(p) => self.props.get(p).cloned(),
            Operand::Var(v) => self.var(v).map(str::to_string),
            Operand::Lit(l) => Some(l.clone()),
        }
    }

    /// `{{a|b|'d'}}`: the first input that has a value, else the literal; environment variables
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
                Alt::Prop(p) => self.props.get(p).cloned(),
                Alt::Var(v) => self.var(v).map(str::to_string),
                Alt::Lit(l) => Some(l.clone()),
            };
            if value.is_some() {
                found = value;
                break;
            }
        }
        if !names.is_empty() {
            self.parts.push(Part::Env {
                names,
                default: found,
            });
            return Ok(());
        }
        match found {
            Some(v) => self.text(&v),
            None => Err(chain
                .alts
                .iter()
                .find_map(|a| match a {
                    Alt::Prop(p) => Some(TemplateError::MissingProp(p.clone())),
                    _ => None,
                })
                .unwrap_or_else(|| {
                    TemplateError::Malformed(format!("`{}` has no value", chain.src))
                })),
        }
    }

    fn cond(&self, cond: &Cond) -> Result<bool, TemplateError> {
        match cond {
            Cond::Truthy(op) => Ok(self.value(op).is_some_and(|v| truthy(&v))),
            Cond::Cmp(a, op, b) => {
                let (l, r) = (self.value(a), self.value(b));
                match op {
                    CmpOp::Eq | CmpOp::Ne => {
                        let equal = match (&l, &r) {
                            (Some(l), Some(r)) => match (number(l), number(r)) {
                                (Some(x), Some(y)) => x == y,
                                _ => l == r,
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

    fn bound(&self, src: &str, bound: &Bound) -> Result<i64, TemplateError> {
        let mut sum: i64 = 0;
        for (negative, op) in &bound.terms {
            let raw = self.value(op).ok_or_else(|| missing(op))?;
            let n: i64 = raw.trim().parse().map_err(|_| {
                TemplateError::Malformed(format!(
                    "`{src}`: `{}` is `{raw}`, not a whole number: a range needs whole numbers",
                    op.describe()
                ))
            })?;
            let term = if *negative { n.checked_neg() } else { Some(n) };
            sum = term.and_then(|t| sum.checked_add(t)).ok_or_else(|| {
                TemplateError::Malformed(format!(
                    "`{src}`: range bound `{}` is too large",
                    bound.src
                ))
            })?;
        }
        Ok(sum)
    }
}

fn missing(op: &Operand) -> TemplateError {
    match op {
        Operand::Prop(p) => TemplateError::MissingProp(p.clone()),
        other => TemplateError::Malformed(format!("`{}` has no value", other.describe())),
    }
}

fn not_number(op: &Operand, cmp: CmpOp, value: &str) -> TemplateError {
    TemplateError::Malformed(format!(
        "`{}` is `{value}`, but `{}` compares numbers: compare text with `==` or `!=`",
        op.describe(),
        cmp.symbol()
    ))
}

/// A number, when the whole (trimmed) text is one.
fn number(s: &str) -> Option<f64> {
    let t = s.trim();
    let digits = t.strip_prefix(['-', '+']).unwrap_or(t);
    let valid = digits.chars().any(|c| c.is_ascii_digit())
        && digits.chars().all(|c| c.is_ascii_digit() || c == '.')
        && digits.matches('.').count() <= 1;
    if valid { t.parse().ok() } else { None }
}

/// Whether an input's value counts as true: anything but empty, `false`, `0`, `no` and `off`
/// (any case). Inputs are strings set on the command line, where `--set verbose=false` means
/// false.
pub(super) fn truthy(v: &str) -> bool {
    let v = v.trim();
    !(v.is_empty()
        || v.eq_ignore_ascii_case("false")
        || v.eq_ignore_ascii_case("no")
        || v.eq_ignore_ascii_case("off")
        || number(v) == Some(0.0))
}

/// A list input is a comma-separated string; items are trimmed and empty items skipped.
pub(super) fn list_items(v: &str) -> impl Iterator<Item = &str> {
    v.split(',').map(str::trim).filter(|s| !s.is_empty())
}
