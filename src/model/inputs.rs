//! Typed inputs: what type an `[inputs.NAME]` holds, how a `--set` text becomes a value of that
//! type, and whether a value keeps the input's rules (`enum`, `pattern`, `min`/`max`, `items`).
//! Pure functions over [`Input`]; validation, `add --set` and installing all use them, so a rule
//! reads the same wherever it is broken.

use crate::model::manifest::Input;

/// The type of an input's value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InputType {
    String,
    Number,
    Bool,
    Array,
    Object,
}

/// The names `type` and `items` accept.
pub const TYPE_NAMES: &[&str] = &["string", "number", "bool", "array", "object"];

impl InputType {
    pub fn parse(name: &str) -> Option<Self> {
        Some(match name {
            "string" => InputType::String,
            "number" => InputType::Number,
            "bool" | "boolean" => InputType::Bool,
            "array" => InputType::Array,
            "object" => InputType::Object,
            _ => return None,
        })
    }

    /// The type of a TOML value.
    pub fn of(value: &toml::Value) -> Self {
        match value {
            toml::Value::Integer(_) | toml::Value::Float(_) => InputType::Number,
            toml::Value::Boolean(_) => InputType::Bool,
            toml::Value::Array(_) => InputType::Array,
            toml::Value::Table(_) => InputType::Object,
            toml::Value::String(_) | toml::Value::Datetime(_) => InputType::String,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            InputType::String => "string",
            InputType::Number => "number",
            InputType::Bool => "bool",
            InputType::Array => "array",
            InputType::Object => "object",
        }
    }
}

/// The input's type: `type` when declared (and known), else the default's, else a string.
pub fn type_of(input: &Input) -> InputType {
    input
        .kind
        .as_deref()
        .and_then(InputType::parse)
        .or_else(|| input.default.as_ref().map(InputType::of))
        .unwrap_or(InputType::String)
}

/// The type of a list input's items, when declared.
fn items_of(input: &Input) -> Option<InputType> {
    input.items.as_deref().and_then(InputType::parse)
}

/// A `--set` text as a value of type `ty`: numbers and booleans parsed, lists and objects read
/// as JSON (`'["~/src","~/docs"]'`); a list input given a text that is not JSON becomes a list
/// of that one text.
pub fn parse_text(
    ty: InputType,
    items: Option<InputType>,
    raw: &str,
) -> Result<toml::Value, String> {
    let t = raw.trim();
    match ty {
        InputType::String => Ok(toml::Value::String(raw.to_string())),
        InputType::Number => match (t.parse::<i64>(), t.parse::<f64>()) {
            (Ok(i), _) => Ok(toml::Value::Integer(i)),
            (_, Ok(f)) if f.is_finite() => Ok(toml::Value::Float(f)),
            _ => Err(format!("`{raw}` is not a number")),
        },
        InputType::Bool => match t.to_ascii_lowercase().as_str() {
            "true" | "yes" | "on" | "1" => Ok(toml::Value::Boolean(true)),
            "false" | "no" | "off" | "0" => Ok(toml::Value::Boolean(false)),
            _ => Err(format!("`{raw}` is not a boolean: write `true` or `false`")),
        },
        InputType::Array if !t.starts_with('[') => {
            let item = parse_text(items.unwrap_or(InputType::String), None, raw)?;
            Ok(toml::Value::Array(vec![item]))
        }
        InputType::Array | InputType::Object => {
            let json: serde_json::Value = serde_json::from_str(t)
                .map_err(|e| format!("`{raw}` is not JSON ({e}): write e.g. '[\"a\", \"b\"]'"))?;
            let value = json_to_toml(&json)
                .ok_or_else(|| format!("`{raw}` holds a null, which an input cannot"))?;
            if InputType::of(&value) == ty {
                Ok(value)
            } else {
                Err(format!("`{raw}` is not {}", article(ty)))
            }
        }
    }
}

/// A value recorded in `set` (or given by `--set`) as the input's type: a text for a typed input
/// is parsed as `--set` would (dotpack.toml files written before inputs had types hold texts).
pub fn coerce(input: &Input, value: &toml::Value) -> Result<toml::Value, String> {
    let ty = type_of(input);
    match value {
        toml::Value::String(s) if ty != InputType::String => parse_text(ty, items_of(input), s),
        other => Ok(other.clone()),
    }
}

/// Every way `value` breaks the rules of `input`, as sentences.
pub fn check(input: &Input, value: &toml::Value) -> Vec<String> {
    let mut problems = Vec::new();
    let ty = type_of(input);
    if InputType::of(value) != ty {
        problems.push(format!("{} is not {}", show(value), article(ty)));
        return problems;
    }
    if let Some(allowed) = &input.allowed
        && !allowed.iter().any(|a| same(a, value))
    {
        let list: Vec<String> = allowed.iter().map(show).collect();
        problems.push(format!("{} is not one of {}", show(value), list.join(", ")));
    }
    let size = match value {
        toml::Value::Integer(i) => Some(*i as f64),
        toml::Value::Float(f) => Some(*f),
        toml::Value::String(s) => Some(s.chars().count() as f64),
        toml::Value::Array(a) => Some(a.len() as f64),
        _ => None,
    };
    let measure = match ty {
        InputType::Number => "",
        InputType::Array => " items",
        _ => " characters",
    };
    if let (Some(n), Some(min)) = (size, input.min)
        && n < min
    {
        let verb = if ty == InputType::Number {
            "is less than"
        } else {
            "has fewer than"
        };
        problems.push(format!("{} {verb} {min}{measure}", show(value)));
    }
    if let (Some(n), Some(max)) = (size, input.max)
        && n > max
    {
        problems.push(format!(
            "{} {} {max}{measure}",
            show(value),
            if ty == InputType::Number {
                "is more than"
            } else {
                "has more than"
            }
        ));
    }
    if let toml::Value::Array(items) = value
        && let Some(item_ty) = items_of(input)
    {
        for (i, item) in items.iter().enumerate() {
            if InputType::of(item) != item_ty {
                problems.push(format!(
                    "item {i} ({}) is not {}",
                    show(item),
                    article(item_ty)
                ));
            }
        }
    }
    if let Some(pattern) = &input.pattern {
        match compile(pattern) {
            Ok(re) => {
                let texts: Vec<&str> = match value {
                    toml::Value::String(s) => vec![s.as_str()],
                    toml::Value::Array(items) => items.iter().filter_map(|v| v.as_str()).collect(),
                    _ => Vec::new(),
                };
                for t in texts {
                    if !re.is_match(t) {
                        problems.push(format!("`{t}` does not match the pattern `{pattern}`"));
                    }
                }
            }
            Err(e) => problems.push(e),
        }
    }
    problems
}

/// `pattern` as a regular expression anchored at both ends.
pub fn compile(pattern: &str) -> Result<regex::Regex, String> {
    regex::Regex::new(&format!("^(?:{pattern})$"))
        .map_err(|e| format!("`{pattern}` is not a regular expression: {e}"))
}

fn same(a: &toml::Value, b: &toml::Value) -> bool {
    match (a, b) {
        (toml::Value::Integer(x), toml::Value::Float(y))
        | (toml::Value::Float(y), toml::Value::Integer(x)) => (*x as f64) == *y,
        _ => a == b,
    }
}

fn show(v: &toml::Value) -> String {
    match v {
        toml::Value::String(s) => format!("`{s}`"),
        other => format!("`{other}`"),
    }
}

fn article(ty: InputType) -> &'static str {
    match ty {
        InputType::String => "a string",
        InputType::Number => "a number",
        InputType::Bool => "a boolean",
        InputType::Array => "an array",
        InputType::Object => "an object",
    }
}

/// A JSON value as TOML; `None` when it holds a null, which TOML cannot.
pub fn json_to_toml(v: &serde_json::Value) -> Option<toml::Value> {
    use serde_json::Value;
    Some(match v {
        Value::Null => return None,
        Value::Bool(b) => toml::Value::Boolean(*b),
        Value::Number(n) => match n.as_i64() {
            Some(i) => toml::Value::Integer(i),
            None => toml::Value::Float(n.as_f64()?),
        },
        Value::String(s) => toml::Value::String(s.clone()),
        Value::Array(items) => {
            toml::Value::Array(items.iter().map(json_to_toml).collect::<Option<_>>()?)
        }
        Value::Object(map) => toml::Value::Table(
            map.iter()
                .map(|(k, v)| Some((k.clone(), json_to_toml(v)?)))
                .collect::<Option<_>>()?,
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(toml: &str) -> Input {
        toml::from_str(toml).unwrap()
    }

    #[test]
    fn types_are_declared_or_inferred() {
        assert_eq!(type_of(&input("type = \"array\"")), InputType::Array);
        assert_eq!(type_of(&input("default = 30")), InputType::Number);
        assert_eq!(type_of(&input("default = [\"a\"]")), InputType::Array);
        assert_eq!(type_of(&input("default = { a = 1 }")), InputType::Object);
        assert_eq!(type_of(&input("description = \"d\"")), InputType::String);
    }

    #[test]
    fn set_texts_parse_as_the_type() {
        let dirs = input("type = \"array\"\nitems = \"string\"");
        assert_eq!(
            coerce(&dirs, &toml::Value::from("[\"~/src\",\"~/docs\"]")).unwrap(),
            toml::Value::Array(vec!["~/src".into(), "~/docs".into()])
        );
        assert_eq!(
            coerce(&dirs, &toml::Value::from("~/src")).unwrap(),
            toml::Value::Array(vec!["~/src".into()])
        );
        let n = input("type = \"number\"");
        assert_eq!(coerce(&n, &"30".into()).unwrap(), toml::Value::Integer(30));
        assert_eq!(coerce(&n, &"2.5".into()).unwrap(), toml::Value::Float(2.5));
        assert!(
            coerce(&n, &"abc".into())
                .unwrap_err()
                .contains("not a number")
        );
        let b = input("default = false");
        assert_eq!(
            coerce(&b, &"yes".into()).unwrap(),
            toml::Value::Boolean(true)
        );
        let o = input("type = \"object\"");
        assert!(
            coerce(&o, &"[1]".into())
                .unwrap_err()
                .contains("not an object")
        );
        assert!(coerce(&o, &"{".into()).unwrap_err().contains("not JSON"));
    }

    #[test]
    fn rules_are_checked() {
        let level = input("enum = [\"debug\", \"info\"]");
        assert!(check(&level, &"info".into()).is_empty());
        assert_eq!(
            check(&level, &"loud".into()),
            ["`loud` is not one of `debug`, `info`"]
        );
        let port = input("type = \"number\"\nmin = 1\nmax = 65535");
        assert!(check(&port, &toml::Value::Integer(80)).is_empty());
        assert_eq!(
            check(&port, &toml::Value::Integer(0)),
            ["`0` is less than 1"]
        );
        assert_eq!(check(&port, &"80".into()), ["`80` is not a number"]);
        let dirs = input("type = \"array\"\nitems = \"string\"\nmin = 1\npattern = \"[~/].*\"");
        assert_eq!(
            check(&dirs, &toml::Value::Array(vec![])),
            ["`[]` has fewer than 1 items"]
        );
        assert_eq!(
            check(
                &dirs,
                &toml::Value::Array(vec!["x".into(), toml::Value::Integer(1)])
            ),
            [
                "item 1 (`1`) is not a string",
                "`x` does not match the pattern `[~/].*`"
            ]
        );
        let bad = input("pattern = \"(\"");
        assert!(check(&bad, &"x".into())[0].contains("not a regular expression"));
    }
}
