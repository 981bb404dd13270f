//! Files a host stops reading when another file exists: the host's own file is shadowed, and
//! what dotpack writes there does not take effect. Checked against the programs themselves
//! (`tests/real_hosts/copilot.rs`), not their documentation, which says "`.mcp.json` or
//! `.github/mcp.json`".

use super::{HostAdapter, Scope};

/// `host`'s file at `scope` is not read at all while `by` (relative to the project root) exists.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shadow {
    pub host: &'static str,
    pub scope: Scope,
    pub file: &'static str,
    pub by: &'static str,
}

/// GitHub Copilot CLI (1.0.102) takes the first workspace file it finds, whole: the project's
/// `.mcp.json` when there is one (even `{}`), `.github/mcp.json` only when there is none.
pub static SHADOWS: &[Shadow] = &[Shadow {
    host: "copilot-cli",
    scope: Scope::Project,
    file: ".github/mcp.json",
    by: ".mcp.json",
}];

/// What shadows `host`'s file at `scope`, if anything can.
pub fn shadow_of(host: &HostAdapter, scope: Scope) -> Option<&'static Shadow> {
    SHADOWS
        .iter()
        .find(|s| s.host == host.id && s.scope == scope)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_shadow_names_a_known_host_and_its_own_file() {
        for shadow in SHADOWS {
            let host = super::super::adapter(shadow.host).expect("a known host");
            let own = match shadow.scope {
                Scope::Project => host.project_file,
                Scope::User => None,
            };
            assert_eq!(own, Some(shadow.file), "{shadow:?}");
            assert_eq!(shadow_of(host, shadow.scope), Some(shadow));
            assert_eq!(shadow_of(host, Scope::User), None);
        }
    }
}
