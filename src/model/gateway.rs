//! What `dotpack.toml` says about the gateway (`dotpack serve`): whether `install` writes one
//! `dotpack` entry into each host instead of one per server (`[project] gateway`), and how each
//! server's tools are offered behind it (the project's surface, or a dependency's own).

use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};

/// How `dotpack serve` offers a server's tools.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum Surface {
    /// Behind the three proxy tools (search, describe, call): a few hundred tokens of tool
    /// definitions whatever the number of servers.
    #[default]
    Proxy,
    /// As its own tools, each named `SERVER__TOOL`, filtered by its `enabled_tools` and
    /// `disabled_tools`.
    Direct,
    /// Not served by the gateway.
    Off,
}

impl Surface {
    pub fn as_str(self) -> &'static str {
        match self {
            Surface::Proxy => "proxy",
            Surface::Direct => "direct",
            Surface::Off => "off",
        }
    }
}

/// When `dotpack serve` starts a server and whether it stops it when idle.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum Lifecycle {
    /// On its first call; stopped when idle.
    #[default]
    Lazy,
    /// When the gateway starts; stopped when idle.
    Eager,
    /// When the gateway starts; never stopped when idle.
    KeepAlive,
}

/// `[project] gateway`: `true` or `"proxy"` (install the gateway, servers behind the proxy
/// tools), `"direct"` (install the gateway, servers' own tools), `false` or `"off"` (one entry
/// per server, the default).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProjectGateway(pub Surface);

impl ProjectGateway {
    /// Whether `install` writes the single gateway entry instead of one per server.
    pub fn installs(self) -> bool {
        self.0 != Surface::Off
    }

    /// The surface of servers that do not choose their own (proxy when the gateway is off:
    /// `dotpack serve` still runs by hand).
    pub fn surface(self) -> Surface {
        match self.0 {
            Surface::Off => Surface::Proxy,
            s => s,
        }
    }
}

impl Serialize for ProjectGateway {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            Surface::Proxy => s.serialize_bool(true),
            Surface::Off => s.serialize_bool(false),
            Surface::Direct => s.serialize_str("direct"),
        }
    }
}

impl<'de> Deserialize<'de> for ProjectGateway {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Either;
        impl Visitor<'_> for Either {
            type Value = ProjectGateway;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str(r#"true, false, "proxy", "direct" or "off""#)
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<ProjectGateway, E> {
                Ok(ProjectGateway(if v {
                    Surface::Proxy
                } else {
                    Surface::Off
                }))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<ProjectGateway, E> {
                match v {
                    "proxy" => Ok(ProjectGateway(Surface::Proxy)),
                    "direct" => Ok(ProjectGateway(Surface::Direct)),
                    "off" => Ok(ProjectGateway(Surface::Off)),
                    _ => Err(E::invalid_value(de::Unexpected::Str(v), &self)),
                }
            }
        }
        d.deserialize_any(Either)
    }
}

#[cfg(feature = "schema")]
impl schemars::JsonSchema for ProjectGateway {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "gateway".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "`dotpack serve` as the hosts' one entry: true or \"proxy\" (servers behind the search, describe and call tools), \"direct\" (their own tools), false or \"off\" (one entry per server).",
            "anyOf": [{"type": "boolean"}, {"enum": ["proxy", "direct", "off"]}],
        })
    }
}

/// The entry `install` writes into each host when the gateway is on, and the package its claim
/// records: not a package of any registry, so no lock entry or package of a registry can take it.
pub const ENTRY: &str = "dotpack";
pub const PACKAGE: &str = "dotpack serve";

/// The gateway's entry for the project whose manifest is `manifest_path`, as a user file holds it
/// (`dotpack --manifest-path PATH serve`: a host started from anywhere serves this project).
/// [`for_scope`] makes a project file's portable.
pub fn entry(manifest_path: &std::path::Path) -> crate::model::manifest::Server {
    crate::model::manifest::Server {
        command: Some(crate::model::bridge_server::PORTABLE_COMMAND.to_string()),
        args: Some(vec![
            "--manifest-path".to_string(),
            manifest_path.display().to_string(),
            "serve".to_string(),
        ]),
        ..Default::default()
    }
}

/// The gateway's entry as a file at `scope` holds it: in a project's file `dotpack serve`
/// (dotpack from the PATH, the host started in the project, the same for every teammate); in
/// the user's, this dotpack's own path and the manifest's.
pub fn for_scope(
    def: &crate::model::manifest::Server,
    scope: crate::model::hosts::Scope,
) -> crate::model::manifest::Server {
    let mut out = def.clone();
    out.command = Some(crate::model::bridge_server::command(scope));
    if scope == crate::model::hosts::Scope::Project {
        out.args = Some(vec!["serve".to_string()]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Deserialize)]
    struct T {
        gateway: ProjectGateway,
    }

    fn parse(text: &str) -> Result<ProjectGateway, String> {
        toml::from_str::<T>(text)
            .map(|t| t.gateway)
            .map_err(|e| e.to_string())
    }

    #[test]
    fn a_bool_or_a_surface_name_is_accepted_and_anything_else_named() {
        assert_eq!(parse("gateway = true"), Ok(ProjectGateway(Surface::Proxy)));
        assert_eq!(parse("gateway = false"), Ok(ProjectGateway(Surface::Off)));
        assert_eq!(
            parse(r#"gateway = "direct""#),
            Ok(ProjectGateway(Surface::Direct))
        );
        assert!(parse("gateway = true").unwrap().installs());
        assert!(!parse(r#"gateway = "off""#).unwrap().installs());
        let err = parse(r#"gateway = "lazy""#).unwrap_err();
        assert!(
            err.contains(r#"true, false, "proxy", "direct" or "off""#),
            "{err}"
        );
        assert!(parse("gateway = 1").is_err());
    }
}
