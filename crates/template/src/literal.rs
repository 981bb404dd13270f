//! Environment references written in one host's syntax (`${X}`, `${env:X}`, `${X:-d}`, `$X`)
//! inside a manifest string. A manifest is written once for every host, so such a reference is
//! read as the `{{env.X}}` it means and written in each host's own syntax; left as it is, a host
//! that does not expand it (Codex, Cursor) would receive the text `${X}`.

use std::borrow::Cow;

/// One literal reference: where it starts, how it is written, and the template it means.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LiteralRef {
    pub offset: usize,
    pub written: String,
    pub template: String,
}

/// Every literal reference in `s`, outside `{{…}}` expressions. `bare` says whether `$X` counts
/// (not in the arguments of a shell, which expands `$X` itself).
pub fn literal_refs(s: &str, bare: bool) -> Vec<LiteralRef> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < s.len() {
        let rest = &s[i..];
        if rest.starts_with("{{") {
            // `{{…}}` is the template language's own; `${{ secrets.X }}` is Continue's.
            i += rest.find("}}").map_or(rest.len(), |e| e + 2);
            continue;
        }
        let Some(c) = rest.chars().next() else { break };
        if c == '$'
            && let Some((len, template)) = reference_at(rest, bare)
        {
            out.push(LiteralRef {
                offset: i,
                written: rest[..len].to_string(),
                template,
            });
            i += len;
            continue;
        }
        i += c.len_utf8();
    }
    out
}

/// `s` with every literal reference written as the template it means.
pub fn as_templates(s: &str, bare: bool) -> Cow<'_, str> {
    if !s.contains('$') {
        return Cow::Borrowed(s);
    }
    let refs = literal_refs(s, bare);
    if refs.is_empty() {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    let mut at = 0;
    for r in refs {
        out.push_str(&s[at..r.offset]);
        out.push_str(&r.template);
        at = r.offset + r.written.len();
    }
    out.push_str(&s[at..]);
    Cow::Owned(out)
}

/// The reference `rest` (starting at `$`) begins: its length and its template.
fn reference_at(rest: &str, bare: bool) -> Option<(usize, String)> {
    let ident_len = |s: &str| {
        let mut chars = s.char_indices();
        match chars.next() {
            Some((_, c)) if c.is_ascii_alphabetic() || c == '_' => {}
            _ => return 0,
        }
        chars
            .find(|(_, c)| !(c.is_ascii_alphanumeric() || *c == '_'))
            .map_or(s.len(), |(i, _)| i)
    };
    if let Some(inner) = rest.strip_prefix("${") {
        let close = inner.find('}')?;
        let body = &inner[..close];
        let len = 2 + close + 1;
        let body = body.strip_prefix("env:").unwrap_or(body);
        let n = ident_len(body);
        if n == 0 {
            return None;
        }
        let (name, tail) = body.split_at(n);
        return match tail.strip_prefix(":-") {
            None if tail.is_empty() => Some((len, format!("{{{{env.{name}}}}}"))),
            Some(d) if !d.contains('\'') => Some((len, format!("{{{{env.{name}|'{d}'}}}}"))),
            Some(d) if !d.contains('"') => Some((len, format!("{{{{env.{name}|\"{d}\"}}}}"))),
            _ => None,
        };
    }
    if !bare {
        return None;
    }
    let n = ident_len(&rest[1..]);
    (n > 0).then(|| (1 + n, format!("{{{{env.{}}}}}", &rest[1..1 + n])))
}

/// Whether `command` is a shell, whose arguments expand `$X` themselves.
pub fn is_shell(command: &str) -> bool {
    let base = command.rsplit(['/', '\\']).next().unwrap_or(command);
    let base = base.strip_suffix(".exe").unwrap_or(base);
    matches!(
        base,
        "sh" | "bash" | "zsh" | "dash" | "ksh" | "fish" | "pwsh" | "powershell" | "cmd"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_references_become_templates() {
        assert_eq!(
            as_templates("Bearer ${TOKEN}", true),
            "Bearer {{env.TOKEN}}"
        );
        assert_eq!(as_templates("${env:API_KEY}", true), "{{env.API_KEY}}");
        assert_eq!(
            as_templates("${URL:-http://x}/a", true),
            "{{env.URL|'http://x'}}/a"
        );
        assert_eq!(as_templates("$HOME/x", true), "{{env.HOME}}/x");
        assert_eq!(as_templates("$HOME/x", false), "$HOME/x");
        assert_eq!(as_templates("${X}", false), "{{env.X}}");
    }

    #[test]
    fn other_dollars_stay_text() {
        for s in [
            "$5 or $ alone",
            "${{ secrets.X }}",
            "${{item.price}}",
            "{{props.a|'$HOME'}}",
            "${1}",
            "${unclosed",
            "$$",
        ] {
            assert_eq!(as_templates(s, true), s, "{s}");
            assert!(literal_refs(s, true).is_empty(), "{s}");
        }
        let refs = literal_refs("a ${A} b $B", true);
        assert_eq!(
            refs.iter()
                .map(|r| (r.offset, r.written.as_str()))
                .collect::<Vec<_>>(),
            [(2, "${A}"), (9, "$B")]
        );
    }

    #[test]
    fn shells_are_recognised() {
        assert!(is_shell("sh") && is_shell("/bin/bash") && is_shell("cmd.exe"));
        assert!(!is_shell("npx") && !is_shell("shx"));
    }
}
