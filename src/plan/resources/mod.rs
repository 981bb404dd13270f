//! Planning resource files: what each host's skills, commands, agents, rules and memory blocks
//! must become, from the resources as data ([`crate::model::resources`]) and the claims.
//!
//! - `want`: the files each wanted resource becomes at each host, lossy ones refused;
//! - `disk`: what is on disk for those files and the claimed ones, read once;
//! - `plan`: what must change on disk, computed from those bytes (pure);
//! - `project`: the glue `ops::plan_hosts` calls, for the project and user scopes.

mod disk;
mod plan;
pub(crate) mod project;
mod want;

#[cfg(test)]
mod tests;
