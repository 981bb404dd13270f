//! `--resolve-env`: environment values written into user-scope host files that cannot express a
//! reference in a field (Codex `args`, `url`).
//!
//! Inside dotpack such a value never exists as bytes: plans, claims, diffs, reports and the
//! generation snapshots hold a marker, `<dotpack:env:NAME>`, and the value is put in its place
//! only when the file is written ([`materialize`]), which also makes the file readable by its
//! owner only. Reading the file back replaces the values of the variables its claims name with
//! their markers again ([`redact`]), so every comparison and snapshot works on the marker form.
//! The variable's value is read from the environment each time; the lock, the claims and the
//! history hold only its name.

use anyhow::Result;

use crate::template::EnvSyntax;
use crate::util::error::Error;

/// The start of a marker (see [`EnvSyntax::Resolved`]).
const OPEN: &str = "<dotpack:env:";
/// The end of a marker.
const CLOSE: char = '>';

/// Shortest value `--resolve-env` writes: the value is found again in the file by its bytes, and
/// a short one (`8080`, `true`) would also match text that is not it.
pub const MIN_LEN: usize = 8;

/// The marker standing for the value of `var`.
pub fn marker(var: &str) -> String {
    EnvSyntax::Resolved.example(var)
}

/// The variables whose markers `text` holds, in order of first appearance, each once.
pub fn vars_in(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find(OPEN) {
        let after = &rest[at + OPEN.len()..];
        let Some(end) = after.find(CLOSE) else { break };
        let var = &after[..end];
        if is_var_name(var) && !out.iter().any(|v| v == var) {
            out.push(var.to_string());
        }
        rest = &after[end..];
    }
    out
}

fn is_var_name(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// Why the current value of `var` cannot be written by `--resolve-env`; `None` when it can.
/// A value must be there, long enough to be found again, and free of the characters that a
/// string in JSON, TOML or YAML would have to escape (it is written byte for byte in place of
/// its marker).
pub fn unusable(var: &str, value: Option<&str>) -> Option<Error> {
    let Some(value) = value else {
        return Some(
            Error::new(format!(
                "`--resolve-env` writes the current value of {var}, which is not set"
            ))
            .help(format!("export {var}=… and run the command again")),
        );
    };
    if value.chars().count() < MIN_LEN {
        return Some(Error::new(format!("`--resolve-env` writes only values of at least {MIN_LEN} characters, and {var} is shorter; dotpack could not tell it apart from the rest of the file")).help("pass the value as an input (`--set`) if it is not a secret"));
    }
    if value.contains(['"', '\'', '\\', '<', '>']) || value.chars().any(char::is_control) {
        return Some(Error::new(format!(
            "{var} holds a quote, backslash, angle bracket or control character, which `--resolve-env` cannot write safely into a config file"
        )));
    }
    None
}

/// The current value of `var`, or the error saying why `--resolve-env` cannot write it.
pub fn value_of(var: &str) -> Result<String> {
    let value = std::env::var(var).ok();
    if let Some(why) = unusable(var, value.as_deref()) {
        return Err(why.into());
    }
    Ok(value.unwrap_or_default())
}

/// `text` with the marker of each of `allowed` replaced by its variable's current value (other
/// markers stay as they are: only a claim's own variables are ever written). A variable that is
/// not set (or holds a value `--resolve-env` cannot write) is an error naming it.
pub fn materialize(text: &str, allowed: &[String]) -> Result<String> {
    let mut out = text.to_string();
    for var in vars_in(text) {
        if allowed.contains(&var) {
            out = out.replace(&marker(&var), &value_of(&var)?);
        }
    }
    Ok(out)
}

/// `text` with the current value of each of `vars` replaced by its marker. Variables that are
/// not set, or whose value `--resolve-env` would not have written, are left out: their values
/// cannot be in the file.
pub fn redact(text: &str, vars: &[String]) -> String {
    let mut values: Vec<(String, String)> = vars
        .iter()
        .filter_map(|var| {
            let value = std::env::var(var).ok()?;
            unusable(var, Some(&value))
                .is_none()
                .then(|| (value, marker(var)))
        })
        .collect();
    // Longest first: a value that contains another is replaced whole.
    values.sort_by_key(|v| std::cmp::Reverse(v.0.len()));
    let mut out = text.to_string();
    for (value, marker) in values {
        if out.contains(&value) {
            out = out.replace(&value, &marker);
        }
    }
    out
}

/// [`redact`] for a file's bytes as read (`None`: absent). Bytes that are not UTF-8 cannot hold
/// a value dotpack wrote and stay as they are.
pub fn redact_bytes(bytes: Option<Vec<u8>>, vars: &[String]) -> Option<Vec<u8>> {
    match bytes {
        Some(b) if !vars.is_empty() => Some(match String::from_utf8(b) {
            Ok(text) => redact(&text, vars).into_bytes(),
            Err(e) => e.into_bytes(),
        }),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers_are_found_once_each_in_order() {
        let text = format!(
            "a {} b {} c {}",
            marker("B_TOK"),
            marker("A"),
            marker("B_TOK")
        );
        assert_eq!(vars_in(&text), ["B_TOK", "A"]);
        assert!(vars_in("<dotpack:env:not a name> <dotpack:env:").is_empty());
    }

    #[test]
    fn values_that_cannot_be_written_are_refused_with_the_reason() {
        assert!(unusable("T", None).unwrap().to_string().contains("not set"));
        assert!(
            unusable("T", Some("short"))
                .unwrap()
                .to_string()
                .contains("at least 8")
        );
        assert!(
            unusable("T", Some("abc\"defghij"))
                .unwrap()
                .message()
                .contains("quote")
        );
        assert!(unusable("T", Some("abcdefgh\n")).is_some());
        assert!(unusable("T", Some("ghp_0123456789abcdef")).is_none());
    }

    #[test]
    fn redact_then_materialize_round_trips() {
        // SAFETY of the test: a variable name no other test uses.
        unsafe { std::env::set_var("DOTPACK_RESOLVED_TEST_TOKEN", "s3cr3t-value-42") };
        let vars = vec!["DOTPACK_RESOLVED_TEST_TOKEN".to_string()];
        let file = "args = [\"--token\", \"s3cr3t-value-42\"]\n";
        let redacted = redact(file, &vars);
        assert_eq!(
            redacted,
            "args = [\"--token\", \"<dotpack:env:DOTPACK_RESOLVED_TEST_TOKEN>\"]\n"
        );
        assert!(!redacted.contains("s3cr3t"));
        assert_eq!(materialize(&redacted, &vars).unwrap(), file);
        // Only the variables the claims name are written.
        assert_eq!(materialize(&redacted, &[]).unwrap(), redacted);
        let unset = vec!["DOTPACK_RESOLVED_TEST_UNSET".to_string()];
        assert!(
            materialize("<dotpack:env:DOTPACK_RESOLVED_TEST_UNSET>", &unset)
                .unwrap_err()
                .to_string()
                .contains("not set")
        );
    }
}
