//! Checks of the template language inside manifest strings: `{{props.x}}` must name a declared
//! input, `{{` must be closed. `{{env.X}}` is always fine (it stays a reference), and other names
//! are left alone because `@foreach(x in props.list)` binds loop variables.

use std::collections::BTreeSet;

/// One problem in one string.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TemplateIssue {
    pub code: &'static str,
    pub message: String,
    pub help: String,
}

/// Every problem with the `{{…}}` expressions in `text`, given the declared input names.
pub fn check(text: &str, inputs: &BTreeSet<String>) -> Vec<TemplateIssue> {
    let mut issues = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find("{{") {
        let after = &rest[open + 2..];
        let Some(close) = after.find("}}") else {
            issues.push(TemplateIssue {
                code: "unclosed-template",
                message: "`{{` is not closed by `}}`".to_string(),
                help: "close the expression, e.g. `{{props.port}}`".to_string(),
            });
            break;
        };
        let expr = after[..close].trim();
        if expr.is_empty() {
            issues.push(TemplateIssue {
                code: "empty-template",
                message: "empty template expression `{{}}`".to_string(),
                help: "write `{{props.NAME}}` or `{{env.NAME}}`".to_string(),
            });
        }
        for alternative in expr.split('|').map(str::trim) {
            if let Some(name) = alternative.strip_prefix("props.")
                && !inputs.contains(name)
            {
                issues.push(TemplateIssue {
                    code: "undeclared-input",
                    message: format!("`{{{{props.{name}}}}}` names an input that is not declared"),
                    help: format!("declare it: `[inputs.{name}]` with a `description`"),
                });
            }
        }
        rest = &after[close + 2..];
    }
    issues
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inputs() -> BTreeSet<String> {
        ["port".to_string()].into()
    }

    fn codes(text: &str) -> Vec<&'static str> {
        check(text, &inputs()).into_iter().map(|i| i.code).collect()
    }

    #[test]
    fn declared_props_env_and_defaults_pass() {
        for ok in [
            "http://127.0.0.1:{{props.port}}/mcp",
            "{{env.GITHUB_TOKEN}}",
            "{{ props.port | '3845' }}",
            "{{env.A|env.B|'d'}}",
            "plain text",
            "{{x}}",
            "a } and { alone",
        ] {
            assert!(codes(ok).is_empty(), "{ok}");
        }
    }

    #[test]
    fn undeclared_props_are_errors() {
        assert_eq!(codes("{{props.host}}"), ["undeclared-input"]);
        assert_eq!(codes("{{env.X|props.nope|'d'}}"), ["undeclared-input"]);
        let issue = &check("{{props.host}}", &inputs())[0];
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
    }
}
