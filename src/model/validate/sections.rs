//! The non-server sections: `[package]`, `[project]`, `[inputs.X]`, `[registries.X]`,
//! `[settings]` and `[dependencies]`.

use semver::{Version, VersionReq};
use toml_edit::{Item, Key};

use super::{Checker, entries, is_registry_name, is_valid_package_name, segment, type_name};
use crate::model::concepts::{ValueKind, canonical_fields};
use crate::model::hosts::{ADAPTERS, is_known_host};

const PACKAGE_KEYS: &[&str] = &[
    "name",
    "version",
    "description",
    "keywords",
    "homepage",
    "repository",
    "license",
];
const PROJECT_KEYS: &[&str] = &[
    "hosts",
    "scope",
    "exclude",
    "allow_lossy",
    "launcher",
    "gateway",
    "gateway_lifecycle",
];
const INPUT_KEYS: &[&str] = &[
    "description",
    "default",
    "required",
    "secret",
    "type",
    "enum",
    "pattern",
    "min",
    "max",
    "items",
];
const REGISTRY_KEYS: &[&str] = &["path", "url", "kind", "token_env"];
const SETTINGS_KEYS: &[&str] = &["keep_generations", "pin_tools"];
const DEPENDENCY_KEYS: &[&str] = &[
    "version",
    "registry",
    "package",
    "set",
    "allow_lossy",
    "launcher",
    "gateway",
    "gateway_lifecycle",
    "scope",
    "entries",
];
const REQ_EXAMPLES: &str =
    "write a semver requirement such as `^1.2`, `~1.2.3`, `=1.0.0`, `>=1, <2` or `*`";

impl Checker<'_> {
    pub(super) fn package(&mut self, key: &Key, item: &Item) {
        let Some(table) = self.expect_table(key, item, "package") else {
            return;
        };
        for (k, v) in entries(table) {
            let at = format!("package.{}", segment(k.get()));
            match k.get() {
                "name" => {
                    if let Some(name) = self.expect_str(k, v, &at)
                        && !is_valid_package_name(name)
                    {
                        self.error(
                            "invalid-name",
                            format!("package name `{name}` is not valid"),
                            v.span(),
                            &at,
                            "use letters, digits, `-` and `_`, starting with a letter or digit (lowercase recommended); an MCP Registry name is `namespace/name`",
                        );
                    }
                }
                "version" => {
                    if let Some(text) = self.expect_str(k, v, &at)
                        && let Err(e) = Version::parse(text)
                    {
                        self.error(
                            "invalid-version",
                            format!("`{text}` is not a semver version: {e}"),
                            v.span(),
                            &at,
                            "write a full version such as `0.3.1` or `1.0.0-beta.2`",
                        );
                    }
                }
                "keywords" => {
                    self.expect_kind(k, v, &at, ValueKind::StringList);
                }
                "description" | "homepage" | "repository" | "license" => {
                    self.expect_kind(k, v, &at, ValueKind::String);
                }
                _ => self.unknown_key(k, v, "package", PACKAGE_KEYS, true),
            }
        }
        for required in ["name", "version"] {
            if !table.contains_key(required) {
                self.error(
                    "missing-key",
                    format!("`[package]` has no `{required}`"),
                    key.span().or_else(|| item.span()),
                    "package",
                    format!("add `{required} = \"…\"` under `[package]`"),
                );
            }
        }
    }

    pub(super) fn project(&mut self, key: &Key, item: &Item) {
        let Some(table) = self.expect_table(key, item, "project") else {
            return;
        };
        for (k, v) in entries(table) {
            let at = format!("project.{}", segment(k.get()));
            match k.get() {
                "hosts" => self.project_hosts(k, v, &at),
                "scope" => self.scope_value(k, v, &at),
                "exclude" => self.name_list(k, v, &at),
                "allow_lossy" => self.lossy_list(k, v, &at),
                "launcher" => {
                    self.expect_kind(k, v, &at, ValueKind::Bool);
                }
                "gateway" => self.gateway_value(v, &at, true),
                "gateway_lifecycle" => self.lifecycle_value(v, &at),
                _ => self.unknown_key(k, v, "project", PROJECT_KEYS, false),
            }
        }
    }

    /// `hosts = ["claude-code", { host = "windsurf", scope = "user", exclude = ["x"] }]`: every
    /// host known, none twice.
    fn project_hosts(&mut self, key: &Key, item: &Item, at: &str) {
        let Some(array) = item.as_array() else {
            self.error(
                "wrong-type",
                format!("`hosts` must be a list, not {}", type_name(item)),
                item.span().or_else(|| key.span()),
                at,
                "write `hosts = [\"claude-code\", { host = \"windsurf\", scope = \"user\" }]`",
            );
            return;
        };
        let mut seen = std::collections::BTreeSet::new();
        for (i, entry) in array.iter().enumerate() {
            let entry_at = format!("{at}[{i}]");
            let (id, span) = match entry {
                toml_edit::Value::String(s) => (s.value().as_str(), entry.span()),
                toml_edit::Value::InlineTable(t) => {
                    for (k, v) in t.iter() {
                        let key_at = format!("{entry_at}.{}", segment(k));
                        match k {
                                "host" if v.as_str().is_some() => {}
                                "scope" => self.scope_str(v.as_str(), v.span(), &key_at),
                                "launcher" if v.as_bool().is_none() => self.error(
                                    "wrong-type",
                                    "`launcher` in a host entry must be `true` or `false`",
                                    v.span(),
                                    &key_at,
                                    "write `{ host = \"claude-desktop\", launcher = true }`",
                                ),
                                "launcher" => {}
                                "exclude" => {
                                    if !v
                                        .as_array()
                                        .is_some_and(|a| a.iter().all(|x| x.as_str().is_some()))
                                    {
                                        self.error(
                                            "wrong-type",
                                            "`exclude` must be a list of package or server names",
                                            v.span(),
                                            &key_at,
                                            "write `exclude = [\"playwright\"]`",
                                        );
                                    }
                                }
                                _ => self.error(
                                    "unknown-key",
                                    format!("unknown key `{k}` in a host entry"),
                                    v.span(),
                                    &key_at,
                                    "a host entry has `host`, and optionally `scope`, `exclude` and `launcher`",
                                ),
                            }
                    }
                    match t.get("host").and_then(toml_edit::Value::as_str) {
                        Some(id) => (id, t.get("host").and_then(toml_edit::Value::span)),
                        None => {
                            self.error(
                                "missing-key",
                                "a host entry has no `host`",
                                entry.span(),
                                &entry_at,
                                "write `{ host = \"windsurf\", scope = \"user\" }`",
                            );
                            continue;
                        }
                    }
                }
                other => {
                    self.error(
                        "wrong-type",
                        format!(
                            "a host must be a string or a table, not {}",
                            other.type_name()
                        ),
                        other.span(),
                        &entry_at,
                        "write `\"claude-code\"` or `{ host = \"windsurf\", scope = \"user\" }`",
                    );
                    continue;
                }
            };
            if !is_known_host(id) {
                let help = unknown_host_help(id);
                self.error(
                    "unknown-host",
                    format!("unknown host `{id}`"),
                    span,
                    &entry_at,
                    help,
                );
            } else if !seen.insert(id.to_string()) {
                self.error(
                    "duplicate-host",
                    format!("host `{id}` is listed twice"),
                    span,
                    &entry_at,
                    "keep one entry per host",
                );
            }
        }
    }

    /// A dependency's `launcher`: `true`, `false`, or a list of known host ids, each once.
    fn launcher_hosts(&mut self, item: &Item, at: &str) {
        const FIX: &str = "write `launcher = true` (every host) or `launcher = [\"claude-desktop\", \"codex\"]` (host ids, see `dotpack hosts`)";
        if item.as_bool().is_some() {
            return;
        }
        let Some(array) = item.as_array() else {
            self.error(
                "wrong-type",
                format!(
                    "`launcher` must be `true`, `false` or a list of host ids, not {}",
                    type_name(item)
                ),
                item.span(),
                at,
                FIX,
            );
            return;
        };
        let mut seen = std::collections::BTreeSet::new();
        for (i, entry) in array.iter().enumerate() {
            let entry_at = format!("{at}[{i}]");
            let Some(id) = entry.as_str() else {
                self.error(
                    "wrong-type",
                    format!("a host id must be a string, not {}", entry.type_name()),
                    entry.span(),
                    &entry_at,
                    FIX,
                );
                continue;
            };
            if !is_known_host(id) {
                let help = unknown_host_help(id);
                self.error(
                    "unknown-host",
                    format!("unknown host `{id}`"),
                    entry.span(),
                    &entry_at,
                    help,
                );
            } else if !seen.insert(id) {
                self.error(
                    "duplicate-host",
                    format!("host `{id}` is listed twice"),
                    entry.span(),
                    &entry_at,
                    "name each host once",
                );
            }
        }
    }

    /// `gateway`: a surface name, or (in `[project]`) a bool that turns the gateway on or off.
    fn gateway_value(&mut self, item: &Item, at: &str, project: bool) {
        let ok = match (item.as_str(), item.as_bool()) {
            (Some(surface), _) => ["proxy", "direct", "off"].contains(&surface),
            (None, Some(_)) => project,
            _ => false,
        };
        if ok {
            return;
        }
        let (what, help) = if project {
            (
                r#"true, false, "proxy", "direct" or "off""#,
                "write `gateway = true` (hosts get one `dotpack serve` entry, the servers behind its search, describe and call tools), `gateway = \"direct\"` (their own tools) or `gateway = false` (see docs/gateway.md)",
            )
        } else {
            (
                r#""proxy", "direct" or "off""#,
                "write `gateway = \"proxy\"` (behind the gateway's search, describe and call tools), `\"direct\"` (its own tools, as SERVER__TOOL) or `\"off\"` (not served by the gateway)",
            )
        };
        self.error(
            "invalid-value",
            format!("`gateway` must be {what}"),
            item.span(),
            at,
            help,
        );
    }

    /// `gateway_lifecycle`: `"lazy"`, `"eager"` or `"keep-alive"`.
    fn lifecycle_value(&mut self, item: &Item, at: &str) {
        if item
            .as_str()
            .is_some_and(|l| ["lazy", "eager", "keep-alive"].contains(&l))
        {
            return;
        }
        self.error(
            "invalid-value",
            r#"`gateway_lifecycle` must be "lazy", "eager" or "keep-alive""#,
            item.span(),
            at,
            "write `gateway_lifecycle = \"lazy\"` (start on the first call), `\"eager\"` (start with `dotpack serve`) or `\"keep-alive\"` (start with it, never stop when idle); see docs/gateway.md",
        );
    }

    fn scope_value(&mut self, key: &Key, item: &Item, at: &str) {
        if self.expect_kind(key, item, at, ValueKind::String) {
            self.scope_str(item.as_str(), item.span(), at);
        }
    }

    fn scope_str(&mut self, scope: Option<&str>, span: Option<std::ops::Range<usize>>, at: &str) {
        if let Some(scope) = scope
            && scope != "project"
            && scope != "user"
        {
            self.error(
                "invalid-scope",
                format!("scope `{scope}` is neither `project` nor `user`"),
                span,
                at,
                "write `scope = \"project\"` (files in the project) or `scope = \"user\"` (your home folder)",
            );
        } else if scope.is_none() {
            self.error(
                "wrong-type",
                "`scope` must be a string",
                span,
                at,
                "write `scope = \"project\"` or `scope = \"user\"`",
            );
        }
    }

    /// A list of package or server names.
    fn name_list(&mut self, key: &Key, item: &Item, at: &str) {
        if !self.expect_kind(key, item, at, ValueKind::StringList) {
            return;
        }
        for (i, name) in item.as_array().into_iter().flatten().enumerate() {
            if let Some(n) = name.as_str()
                && !is_valid_package_name(n)
            {
                self.error(
                    "invalid-name",
                    format!("`{n}` is not a package or server name"),
                    name.span(),
                    &format!("{at}[{i}]"),
                    "names start with a letter or digit and hold only letters, digits, `-` and `_`",
                );
            }
        }
    }

    pub(super) fn input(&mut self, at: &str, key: &Key, item: &Item) {
        let Some(table) = self.expect_table(key, item, at) else {
            return;
        };
        for (k, v) in entries(table) {
            let key_path = format!("{at}.{}", segment(k.get()));
            match k.get() {
                "description" => {
                    self.expect_kind(k, v, &key_path, ValueKind::String);
                }
                "required" | "secret" => {
                    self.expect_kind(k, v, &key_path, ValueKind::Bool);
                }
                "default" => {}
                "type" | "items" => {
                    if self.expect_kind(k, v, &key_path, ValueKind::String)
                        && let Some(name) = v.as_str()
                        && crate::model::inputs::InputType::parse(name).is_none()
                    {
                        self.error(
                            "unknown-type",
                            format!("unknown input type `{name}`"),
                            v.span(),
                            &key_path,
                            format!("write one of {}", list(crate::model::inputs::TYPE_NAMES)),
                        );
                    }
                }
                "enum" => {
                    if v.as_array().is_none() {
                        self.error(
                            "wrong-type",
                            format!("`enum` must be an array, not {}", type_name(v)),
                            v.span(),
                            &key_path,
                            "list the allowed values: `enum = [\"a\", \"b\"]`",
                        );
                    }
                }
                "pattern" => {
                    if self.expect_kind(k, v, &key_path, ValueKind::String)
                        && let Some(Err(e)) = v.as_str().map(crate::model::inputs::compile)
                    {
                        self.error(
                            "invalid-pattern",
                            e,
                            v.span(),
                            &key_path,
                            "fix the regular expression",
                        );
                    }
                }
                "min" | "max" => {
                    self.expect_kind(k, v, &key_path, ValueKind::Number);
                }
                _ => self.unknown_key(k, v, at, INPUT_KEYS, false),
            }
        }
        self.input_rules(at, table);
        let secret = table.get("secret").and_then(Item::as_bool) == Some(true);
        if let (true, Some((k, default))) = (secret, table.get_key_value("default")) {
            let literal = default.as_str().is_none_or(|s| !s.contains("{{env."));
            if literal {
                self.warning(
                    "secret-default",
                    "a secret input has a literal default",
                    k.span().or_else(|| default.span()),
                    &format!("{at}.default"),
                    "remove the default, or reference the environment: `default = \"{{env.NAME}}\"`",
                );
            }
        }
    }

    /// The default and every `enum` value keep the input's type and rules; `min` <= `max`.
    fn input_rules(&mut self, at: &str, table: &dyn toml_edit::TableLike) {
        let value = |k: &str| table.get(k).and_then(plain_value);
        let number = |k: &str| match value(k) {
            Some(toml::Value::Integer(i)) => Some(i as f64),
            Some(toml::Value::Float(f)) => Some(f),
            _ => None,
        };
        let text = |k: &str| table.get(k).and_then(Item::as_str).map(str::to_string);
        // The default is part of the declaration: without `type`, its TOML kind is the type
        // (`default = 30` declares a number), exactly as install reads it.
        let input = crate::model::manifest::Input {
            default: value("default"),
            kind: text("type").filter(|t| crate::model::inputs::InputType::parse(t).is_some()),
            items: text("items").filter(|t| crate::model::inputs::InputType::parse(t).is_some()),
            pattern: text("pattern").filter(|p| crate::model::inputs::compile(p).is_ok()),
            min: number("min"),
            max: number("max"),
            allowed: None,
            ..Default::default()
        };
        if let (Some(min), Some(max)) = (input.min, input.max)
            && min > max
        {
            let span = table.get("min").and_then(Item::span);
            self.error(
                "invalid-bounds",
                format!("`min = {min}` is more than `max = {max}`"),
                span,
                &format!("{at}.min"),
                "swap them",
            );
        }
        if let Some(Item::Value(toml_edit::Value::Array(values))) = table.get("enum") {
            for (i, v) in values.iter().enumerate() {
                let Some(parsed) = value_text_of(v) else {
                    continue;
                };
                for problem in crate::model::inputs::check(&input, &parsed) {
                    self.error(
                        "invalid-enum",
                        format!("`enum` value {i}: {problem}"),
                        v.span(),
                        &format!("{at}.enum[{i}]"),
                        "make every allowed value keep the input's type and rules",
                    );
                }
            }
        }
        let Some(default) = table.get("default") else {
            return;
        };
        let Some(parsed) = plain_value(default) else {
            return;
        };
        let input = crate::model::manifest::Input {
            allowed: value("enum").and_then(|v| v.as_array().cloned()),
            ..input
        };
        for problem in crate::model::inputs::check(&input, &parsed) {
            self.error(
                "invalid-default",
                format!("the default {problem}"),
                default.span(),
                &format!("{at}.default"),
                "give a default that keeps the input's `type`, `enum`, `pattern` and bounds",
            );
        }
    }

    pub(super) fn registry(&mut self, at: &str, key: &Key, item: &Item) {
        let Some(table) = self.expect_table(key, item, at) else {
            return;
        };
        for (k, v) in entries(table) {
            let key_path = format!("{at}.{}", segment(k.get()));
            match k.get() {
                "path" => {
                    self.expect_kind(k, v, &key_path, ValueKind::String);
                }
                "url" => {
                    if let Some(url) = self.expect_str(k, v, &key_path)
                        && !is_http_url(url)
                    {
                        self.error(
                            "invalid-url",
                            format!("registry url `{url}` is not an http(s) URL"),
                            v.span(),
                            &key_path,
                            "write `url = \"https://…\"`, or `path = \"…\"` for a local folder",
                        );
                    }
                }
                "token_env" => {
                    if let Some(var) = self.expect_str(k, v, &key_path)
                        && !crate::template::is_env_name(var)
                    {
                        self.error(
                            "invalid-env-name",
                            format!("`{var}` is not an environment variable name"),
                            v.span(),
                            &key_path,
                            "name the variable that holds the token, like `token_env = \"CORP_TOKEN\"` (never the token itself)",
                        );
                    }
                    if !table.contains_key("url") {
                        self.error(
                            "token-without-url",
                            "`token_env` is for a registry at a `url`",
                            k.span(),
                            &key_path,
                            "remove `token_env`; a local folder needs no token",
                        );
                    }
                }
                "kind" => {
                    if let Some(kind) = self.expect_str(k, v, &key_path)
                        && !crate::model::manifest::RegistryKind::NAMES.contains(&kind)
                    {
                        self.error(
                            "unknown-registry-kind",
                            format!("registry kind `{kind}` is not one dotpack reads"),
                            v.span(),
                            &key_path,
                            "write `kind = \"mcp-registry\"` for the MCP Registry API, or leave `kind` out for dotpack's own index",
                        );
                    }
                }
                _ => self.unknown_key(k, v, at, REGISTRY_KEYS, false),
            }
        }
        if table.get("kind").and_then(|v| v.as_str()) == Some("mcp-registry")
            && table.contains_key("path")
        {
            self.error(
                "registry-source",
                "an `mcp-registry` registry is an API: it needs `url`, not `path`",
                key.span(),
                at,
                "write `url = \"https://registry.modelcontextprotocol.io\"` or a mirror's URL",
            );
        }
        match (table.contains_key("path"), table.contains_key("url")) {
            (true, true) => self.error(
                "registry-source",
                "a registry has both `path` and `url`",
                key.span(),
                at,
                "keep one: `path` for a local folder, `url` for a web server",
            ),
            (false, false) => self.error(
                "registry-source",
                "a registry needs `path` or `url`",
                key.span(),
                at,
                "add `path = \"../index\"` or `url = \"https://…\"`",
            ),
            _ => {}
        }
    }

    pub(super) fn settings(&mut self, key: &Key, item: &Item) {
        let Some(table) = self.expect_table(key, item, "settings") else {
            return;
        };
        for (k, v) in entries(table) {
            let at = format!("settings.{}", segment(k.get()));
            match k.get() {
                "keep_generations" => {
                    if self.expect_kind(k, v, &at, ValueKind::Integer)
                        && v.as_integer().is_some_and(|n| u32::try_from(n).is_err())
                    {
                        self.error(
                            "out-of-range",
                            "`keep_generations` must be between 0 and 4294967295",
                            v.span(),
                            &at,
                            "write a small count such as `keep_generations = 10`",
                        );
                    }
                }
                "pin_tools" => {
                    self.expect_kind(k, v, &at, ValueKind::Bool);
                }
                _ => self.unknown_key(k, v, "settings", SETTINGS_KEYS, false),
            }
        }
    }

    pub(super) fn dependencies(&mut self, key: &Key, item: &Item) {
        let Some(table) = self.expect_table(key, item, "dependencies") else {
            return;
        };
        for (k, v) in entries(table) {
            let name = k.get();
            let at = format!("dependencies.{}", segment(name));
            if !is_valid_package_name(name) {
                self.error(
                    "invalid-name",
                    format!("`{name}` is not a valid package name"),
                    k.span(),
                    &at,
                    "names start with a letter or digit and hold only letters, digits, `-` and `_`; an MCP Registry name is `namespace/name` (`io.github.user/weather`, quoted as a TOML key)",
                );
            } else if name.chars().any(|c| c.is_ascii_uppercase()) {
                self.error(
                    "uppercase-name",
                    format!(
                        "package names are lowercase: `{name}` is `{}`",
                        name.to_ascii_lowercase()
                    ),
                    k.span(),
                    &at,
                    format!("write `{}`", name.to_ascii_lowercase()),
                );
            }
            if let Some(req) = v.as_str() {
                self.version_req(req, v, &at);
            } else if let Some(detail) = v.as_table_like() {
                self.dependency_table(k, v, detail, &at);
            } else {
                self.error(
                    "wrong-type",
                    format!("dependency `{name}` must be a version requirement string or a table, not {}", type_name(v)),
                    v.span(),
                    &at,
                    format!("write `{name} = \"^1.0\"` or `{name} = {{ version = \"^1.0\" }}`"),
                );
            }
        }
    }

    fn dependency_table(
        &mut self,
        key: &Key,
        item: &Item,
        table: &dyn toml_edit::TableLike,
        at: &str,
    ) {
        for (k, v) in entries(table) {
            let key_path = format!("{at}.{}", segment(k.get()));
            match k.get() {
                "version" => {
                    if let Some(req) = self.expect_str(k, v, &key_path) {
                        self.version_req(req, v, &key_path);
                    }
                }
                "registry" => {
                    let Some(name) = self.expect_str(k, v, &key_path) else {
                        continue;
                    };
                    if !self.registries.contains(name) {
                        let help = match super::did_you_mean(
                            name,
                            self.registries.iter().map(String::as_str),
                        ) {
                            Some(s) => format!("did you mean `{s}`?"),
                            None => format!(
                                "declare it: `[registries.{}]` with `path` or `url`",
                                segment(name)
                            ),
                        };
                        self.error(
                            "unknown-registry",
                            format!("registry `{name}` is not declared in `[registries]`"),
                            v.span(),
                            &key_path,
                            help,
                        );
                    }
                }
                "package" => {
                    let Some(spelling) = self.expect_str(k, v, &key_path) else {
                        continue;
                    };
                    let dependency = key.get();
                    if !(is_registry_name(spelling) && spelling.eq_ignore_ascii_case(dependency)) {
                        self.error(
                            "invalid-name",
                            format!(
                                "`package = \"{spelling}\"` is not how a registry spells `{dependency}`"
                            ),
                            v.span(),
                            &key_path,
                            "`package` records the MCP Registry's spelling of the dependency's own name (`io.github.User/Server` for `\"io.github.user/server\"`); `dotpack add` writes it, or remove it",
                        );
                    }
                }
                "set" => {
                    self.expect_kind(k, v, &key_path, ValueKind::Table);
                }
                "scope" => self.scope_value(k, v, &key_path),
                "entries" => self.entries(k, v, &key_path),
                "allow_lossy" => self.lossy_list(k, v, &key_path),
                "launcher" => self.launcher_hosts(v, &key_path),
                "gateway" => self.gateway_value(v, &key_path, false),
                "gateway_lifecycle" => self.lifecycle_value(v, &key_path),
                _ => self.unknown_key(k, v, at, DEPENDENCY_KEYS, false),
            }
        }
        if !table.contains_key("version") {
            self.error(
                "missing-key",
                format!("dependency `{}` has no `version`", key.get()),
                item.span().or_else(|| key.span()),
                at,
                "add `version = \"^1.0\"` (any semver requirement)",
            );
        }
    }

    /// `allow_lossy = [...]`: names of the concept table (fields and resource kinds).
    fn lossy_list(&mut self, k: &Key, v: &Item, key_path: &str) {
        if !self.expect_kind(k, v, key_path, ValueKind::StringList) {
            return;
        }
        for (i, field) in v.as_array().into_iter().flatten().enumerate() {
            let Some(name) = field.as_str() else { continue };
            if !crate::model::concepts::is_lossy_name(name) {
                let help = match super::did_you_mean(name, canonical_fields()) {
                    Some(s) => format!("did you mean `{s}`?"),
                    None => "list canonical server field names, e.g. `enabled_tools`".to_string(),
                };
                self.error(
                    "unknown-field",
                    format!("`{name}` is not in the concept table"),
                    field.span(),
                    &format!("{key_path}[{i}]"),
                    help,
                );
            }
        }
    }

    /// `entries = { SERVER = "ENTRY" }`: each entry name valid, none given twice. Whether each
    /// key is one of the package's servers is known once it is resolved.
    fn entries(&mut self, key: &Key, item: &Item, at: &str) {
        let Some(table) = self.expect_table(key, item, at) else {
            return;
        };
        let mut seen: Vec<&str> = Vec::new();
        for (server, entry) in entries(table) {
            let entry_at = format!("{at}.{}", segment(server.get()));
            let Some(name) = self.expect_str(server, entry, &entry_at) else {
                continue;
            };
            if !super::is_valid_name(name) {
                self.error(
                    "invalid-name",
                    format!("`{name}` is not a valid entry name"),
                    entry.span(),
                    &entry_at,
                    "names start with a letter or digit and hold only letters, digits, `-` and `_`",
                );
            } else if seen.contains(&name) {
                self.error(
                    "duplicate-entry",
                    format!("two servers are given the entry name `{name}`"),
                    entry.span(),
                    &entry_at,
                    "give each server its own entry name",
                );
            }
            seen.push(name);
        }
    }

    fn version_req(&mut self, req: &str, item: &Item, at: &str) {
        if let Err(e) = VersionReq::parse(req) {
            self.error(
                "invalid-version-req",
                format!("`{req}` is not a version requirement: {e}"),
                item.span(),
                at,
                REQ_EXAMPLES,
            );
        }
    }
}

/// `http://` or `https://` (case-insensitive), or a template that will render to one.
pub(super) fn is_http_url(url: &str) -> bool {
    let url = url.trim_start();
    crate::urls::is_http_url(url) || url.starts_with("{{")
}

/// An item's value as plain TOML, for the rules of [`crate::model::inputs`].
pub(super) fn plain_value(item: &Item) -> Option<toml::Value> {
    match item {
        Item::Value(v) => value_text_of(v),
        Item::Table(t) => {
            let table: toml::Table = toml::from_str(&t.to_string()).ok()?;
            Some(toml::Value::Table(table))
        }
        _ => None,
    }
}

fn value_text_of(v: &toml_edit::Value) -> Option<toml::Value> {
    let mut doc: toml::Table = toml::from_str(&format!("v = {}", v.to_string().trim())).ok()?;
    doc.remove("v")
}

/// The fix for an unknown host id: the nearest known id, or all of them.
fn unknown_host_help(id: &str) -> String {
    match super::did_you_mean(id, ADAPTERS.iter().map(|h| h.id)) {
        Some(s) => format!("did you mean `{s}`?"),
        None => format!(
            "known hosts: {}",
            ADAPTERS.iter().map(|h| h.id).collect::<Vec<_>>().join(", ")
        ),
    }
}

fn list(items: &[&str]) -> String {
    items
        .iter()
        .map(|s| format!("`{s}`"))
        .collect::<Vec<_>>()
        .join(", ")
}
