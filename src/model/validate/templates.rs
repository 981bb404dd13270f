//! Checks of the template language inside manifest strings: the whole template must parse (every
//! block closed, every expression readable, no unknown context, no `env.` deciding a condition),
//! and every `props.X` must name a declared input. Each issue carries its byte offset in the
//! string, so validation points at the place inside the value.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;

use crate::model::inputs::InputType;

/// One problem in one string.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TemplateIssue {
    pub code: &'static str,
    pub message: String,
    pub help: String,
    /// Byte offset in the string where the problem starts.
    pub offset: usize,
}

/// Every problem with the templates in `text`, given the declared input names and the type of
/// each input that has one: a field of a text, number or boolean input, or of a list, is an
/// error here rather than at install.
pub fn check(
    text: &str,
    inputs: &BTreeSet<String>,
    types: &BTreeMap<String, InputType>,
) -> Vec<TemplateIssue> {
    let mut issues = Vec::new();
    if let Err(e) = crate::template::check(text) {
        let message = e.message();
        let code = if message.contains("is never closed") && message.starts_with("`{{") {
            "unclosed-template"
        } else if message.contains("is empty: write") {
            "empty-template"
        } else if message.contains("is never closed") {
            "unclosed-block"
        } else {
            "template-syntax"
        };
        issues.push(TemplateIssue {
            code,
            help: "see docs/templates.md for the template language".to_string(),
            message,
            offset: e.position().map_or(0, |(offset, _, _)| offset),
        });
    }
    for path in crate::template::input_paths(text) {
        let Some(ty) = types.get(&path.input) else {
            continue;
        };
        let Some(step) = path.steps.first() else {
            continue;
        };
        let what = match (ty, step) {
            (InputType::Object, _) => continue,
            // A comma-separated text can be indexed; a list too.
            (InputType::String | InputType::Array, None) => continue,
            (_, Some(field)) => format!("no field `{field}`"),
            (_, None) => "no items to index".to_string(),
        };
        issues.push(TemplateIssue {
            code: "template-path",
            message: format!(
                "`{}`: input `{}` is {}, which has {what}",
                path.src,
                path.input,
                ty.name()
            ),
            help: format!(
                "write `props.{}`, or declare the input as an object (`type = \"object\"`)",
                path.input
            ),
            offset: path.offset,
        });
    }
    for name in crate::template::prop_refs(text) {
        if !inputs.contains(&name) {
            let offset = ["props.", "input."]
                .iter()
                .filter_map(|ctx| text.find(&format!("{ctx}{name}")))
                .min()
                .map_or(0, |at| {
                    let before = text[..at].trim_end();
                    before.strip_suffix("{{").map_or(at, str::len)
                });
            issues.push(TemplateIssue {
                code: "undeclared-input",
                message: format!("`{{{{props.{name}}}}}` names an input that is not declared"),
                help: format!("declare it: `[inputs.{name}]` with a `description`"),
                offset,
            });
        }
    }
    issues
}

/// The place in the manifest of byte `offset` inside a string value whose literal (quotes
/// included) spans `span` of `source` and reads `decoded`: exact when the literal holds the
/// string as written (no escapes), else the whole literal.
pub fn span_in_literal(
    source: &str,
    span: Option<Range<usize>>,
    decoded: &str,
    offset: usize,
) -> Option<Range<usize>> {
    let span = span?;
    let Some(raw) = source.get(span.clone()) else {
        return Some(span);
    };
    let mut prefix = if raw.starts_with("\"\"\"") || raw.starts_with("'''") {
        3
    } else {
        1
    };
    if prefix == 3 {
        if raw[3..].starts_with("\r\n") {
            prefix += 2;
        } else if raw[3..].starts_with('\n') {
            prefix += 1;
        }
    }
    let exact = raw
        .get(prefix..)
        .is_some_and(|inner| inner.starts_with(decoded));
    if exact && offset <= decoded.len() {
        let start = span.start + prefix + offset;
        Some(start..(start + 1).min(span.end))
    } else {
        Some(span)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn types() -> BTreeMap<String, InputType> {
        [("port".to_string(), InputType::Number)].into()
    }

    #[test]
    fn paths_into_inputs_without_fields_are_errors() {
        assert_eq!(codes("{{props.port.x}}"), ["template-path"]);
        assert_eq!(codes("@if(props.port[0])x@endif"), ["template-path"]);
        let issue = &check("ab {{props.port.x}}", &inputs(), &types())[0];
        assert_eq!(issue.offset, 3);
        assert!(
            issue
                .message
                .contains("input `port` is number, which has no field `x`")
        );
    }

    fn inputs() -> BTreeSet<String> {
        ["port".to_string()].into()
    }

    fn codes(text: &str) -> Vec<&'static str> {
        check(text, &inputs(), &types())
            .into_iter()
            .map(|i| i.code)
            .collect()
    }

    #[test]
    fn declared_props_env_and_defaults_pass() {
        for ok in [
            "http://127.0.0.1:{{props.port}}/mcp",
            "{{env.GITHUB_TOKEN}}",
            "{{ props.port | '3845' }}",
            "{{env.A|env.B|'d'}}",
            "plain text",
            "a } and { alone",
        ] {
            assert!(codes(ok).is_empty(), "{ok}");
        }
    }

    #[test]
    fn undeclared_props_are_errors() {
        assert_eq!(codes("{{props.host}}"), ["undeclared-input"]);
        assert_eq!(codes("{{env.X|props.nope|'d'}}"), ["undeclared-input"]);
        let issue = &check("{{props.host}}", &inputs(), &types())[0];
        assert!(
            issue.message.contains("{{props.host}}"),
            "{}",
            issue.message
        );
    }

    #[test]
    fn unclosed_and_empty_templates_are_errors() {
        assert_eq!(codes("http://{{props.port/mcp"), ["unclosed-template"]);
        assert_eq!(codes("{{props.port}} then {{"), ["unclosed-template"]);
        assert_eq!(codes("{{ }}"), ["empty-template"]);
        assert_eq!(codes("@if(props.port)unclosed"), ["unclosed-block"]);
        assert_eq!(codes("{{x}}"), ["template-syntax"]);
        assert_eq!(codes("{{foo.bar}}"), ["template-syntax"]);
        let issue = &check("ab @if(props.port)x", &inputs(), &types())[0];
        assert_eq!(issue.offset, 3);
    }
}
