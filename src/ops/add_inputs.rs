//! `dotpack add --set`: the values given for a package's inputs, typed by the version the lock
//! picked, and the check that every required input has a value.

use std::collections::BTreeMap;

use anyhow::Result;

use crate::model::lock::Lockfile;

/// One `--set`: `KEY=VALUE` replaces, `KEY+=VALUE` appends to a list input.
pub struct SetArg {
    pub key: String,
    pub value: String,
    pub append: bool,
}

/// Parses every `--set`.
pub fn parse_inputs(sets: &[String]) -> Result<Vec<SetArg>> {
    sets.iter()
        .map(|s| match s.split_once('=') {
            Some((k, v)) if !k.trim().trim_end_matches('+').trim().is_empty() => {
                let k = k.trim();
                Ok(SetArg {
                    key: k.trim_end_matches('+').trim().to_string(),
                    value: v.to_string(),
                    append: k.ends_with('+'),
                })
            }
            _ => Err(crate::util::error::Error::usage(format!(
                "--set `{s}` must look like KEY=VALUE (or KEY+=VALUE to add to a list)"
            ))
            .into()),
        })
        .collect()
}

/// The values `--set` gives the inputs of package `name`, typed as its inputs are: a `--set`
/// must name an input the package declares, never a secret one, and give a value that keeps
/// the input's rules. `KEY+=VALUE` appends to what `previous` (the dependency's `set`) or an
/// earlier `--set` holds.
pub fn typed_inputs(
    registries: &crate::resolve::RegistrySet,
    lock: &Lockfile,
    name: &str,
    inputs: &[SetArg],
    previous: Option<&BTreeMap<String, toml::Value>>,
) -> Result<Vec<(String, toml::Value)>> {
    let Some(locked) = lock.get(name) else {
        return Ok(Vec::new());
    };
    let Some(source) = registries.by_source(&locked.source) else {
        return Ok(Vec::new());
    };
    let package = crate::registry::load_package(source, name, &locked.version)?;
    let mut values: BTreeMap<String, toml::Value> = BTreeMap::new();
    for arg in inputs {
        let key = arg.key.as_str();
        let Some(input) = package.inputs.get(key) else {
            return Err(unknown_input(name, key, &package).into());
        };
        if input.secret {
            return Err(crate::util::error::Error::usage(
                crate::plan::desired::secret_input_error(name, key, &package, "--set gives"),
            )
            .into());
        }
        let bad = |why: String| {
            crate::util::error::Error::usage(crate::plan::desired::input_value_error(
                name, key, &why,
            ))
        };
        let ty = crate::model::inputs::type_of(input);
        let value = if arg.append {
            if ty != crate::model::inputs::InputType::Array {
                return Err(bad(format!(
                    "`{key}+=` adds to a list, but `{key}` is {}: write `--set {key}=VALUE`",
                    ty.name()
                ))
                .into());
            }
            let mut list = match values
                .get(key)
                .cloned()
                .or_else(|| previous.and_then(|p| p.get(key)).cloned())
                .map(|v| crate::model::inputs::coerce(input, &v))
                .transpose()
                .map_err(bad)?
            {
                Some(toml::Value::Array(items)) => items,
                _ => Vec::new(),
            };
            let added =
                crate::model::inputs::coerce(input, &toml::Value::String(arg.value.clone()))
                    .map_err(bad)?;
            if let toml::Value::Array(items) = added {
                list.extend(items);
            }
            toml::Value::Array(list)
        } else {
            crate::model::inputs::coerce(input, &toml::Value::String(arg.value.clone()))
                .map_err(bad)?
        };
        let broken = crate::model::inputs::check(input, &value);
        if !broken.is_empty() {
            return Err(bad(broken.join("; ")).into());
        }
        values.insert(key.to_string(), value);
    }
    Ok(values.into_iter().collect())
}

/// The error for a `--set` naming an input package `name` does not declare: a credential it
/// reads from the environment is never a `--set` value, so its variable is named instead.
fn unknown_input(
    name: &str,
    key: &str,
    package: &crate::model::manifest::Manifest,
) -> crate::util::error::Error {
    let declared: Vec<&str> = package.inputs.keys().map(String::as_str).collect();
    let variable = package
        .env_vars()
        .into_iter()
        .find(|v| v.eq_ignore_ascii_case(key));
    let help = match variable {
        Some(var) => format!(
            "`{key}` is read from the environment variable {var}, so it never lands in a file: export {var}=… where the host runs"
        ),
        None if declared.is_empty() => format!("{name} declares no inputs"),
        None => format!("{name} declares: {}", declared.join(", ")),
    };
    crate::util::error::Error::usage(format!("package `{name}` has no input `{key}`")).help(help)
}

/// Every required input of every added package that is not a secret must have a value, and
/// every value must keep its input's rules.
pub fn check_inputs(
    registries: &crate::resolve::RegistrySet,
    manifest: &crate::model::manifest::LoadedManifest,
    lock: &Lockfile,
    added: &[String],
) -> Result<()> {
    let mut problems = Vec::new();
    for name in added {
        let Some(locked) = lock.get(name) else {
            continue;
        };
        let Some(source) = registries.by_source(&locked.source) else {
            continue;
        };
        let package = crate::registry::load_package(source, name, &locked.version)?;
        let spec = manifest.manifest.dependencies.get(name);
        if let Err(mut more) = crate::plan::desired::input_props(name, &package, spec) {
            problems.append(&mut more);
        }
    }
    // An input the command line must give is an input error: exit code 2, as for bad usage,
    // with the exact `--set` to pass.
    match crate::util::error::Error::all(problems) {
        Some(problems) => Err(problems.code(crate::util::error::USAGE).into()),
        None => Ok(()),
    }
}

/// On a terminal, asks for each required input of the `added` packages that has no value yet
/// (neither set in dotpack.toml, nor a default, nor given with `--set`), and returns the answers
/// as `--set`s, by package. An empty answer leaves the input unset, so the command fails as it
/// would without a terminal, naming the `--set` to pass. Secret inputs are not asked here:
/// their values never land in a file.
pub fn ask_missing(
    printer: &crate::ui::printer::Printer,
    registries: &crate::resolve::RegistrySet,
    manifest: &crate::model::manifest::LoadedManifest,
    lock: &Lockfile,
    added: &[String],
    given: &[SetArg],
) -> Result<BTreeMap<String, Vec<SetArg>>> {
    let mut answers: BTreeMap<String, Vec<SetArg>> = BTreeMap::new();
    if !crate::ui::ask::can_ask(printer) {
        return Ok(answers);
    }
    for (index, name) in added.iter().enumerate() {
        let Some(locked) = lock.get(name) else {
            continue;
        };
        let Some(source) = registries.by_source(&locked.source) else {
            continue;
        };
        let package = crate::registry::load_package(source, name, &locked.version)?;
        let set = manifest
            .manifest
            .dependencies
            .get(name)
            .and_then(|d| d.set());
        for (input, def) in &package.inputs {
            let has_value = def.default.is_some()
                || set.is_some_and(|s| s.contains_key(input))
                || (index == 0 && given.iter().any(|g| g.key == *input));
            if !def.required || def.secret || has_value {
                continue;
            }
            if let Some(value) = ask_one(printer, name, input, def) {
                answers.entry(name.clone()).or_default().push(SetArg {
                    key: input.clone(),
                    value,
                    append: false,
                });
            }
        }
    }
    Ok(answers)
}

/// Asks for input `input` of `name` until the answer keeps the input's rules (three tries).
fn ask_one(
    printer: &crate::ui::printer::Printer,
    name: &str,
    input: &str,
    def: &crate::model::manifest::Input,
) -> Option<String> {
    let about = def
        .description
        .as_deref()
        .map(|d| format!(" ({d})"))
        .unwrap_or_default();
    let kind = crate::model::inputs::type_of(def).name();
    let question = format!("{name} needs a value for input `{input}`{about}, a {kind}: ");
    for _ in 0..3 {
        let answer = crate::ui::ask::line(printer, &question)?;
        let value = crate::model::inputs::coerce(def, &toml::Value::String(answer.clone()))
            .map(|v| crate::model::inputs::check(def, &v))
            .unwrap_or_else(|why| vec![why]);
        if value.is_empty() {
            return Some(answer);
        }
        printer.warning(format!("input `{input}`: {}", value.join("; ")));
    }
    None
}
