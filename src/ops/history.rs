//! `dotpack history`: the generations of the project (or, `--scope user`, of the user).

use std::path::{Path, PathBuf};

use anyhow::Result;

use crate::model::hosts::Scope;
use crate::txn::generation::{self, Generation};

use super::Settings;

/// Where the generations of `scope` live, and every one of them, oldest first. An untrusted
/// state folder shows none (the command warned about it at start).
pub fn generations(
    settings: &Settings,
    scope: Option<Scope>,
) -> Result<(PathBuf, Vec<Generation>)> {
    let (places, _) = super::state_places(settings, scope)?;
    let generations = if places.trusted() {
        generation::load_all(&places.state)?
    } else {
        Vec::new()
    };
    Ok((places.state, generations))
}

/// The `--json` document of `dotpack history`.
pub fn json_report(state: &Path, generations: &[Generation]) -> serde_json::Value {
    serde_json::json!({
        "state": state.display().to_string(),
        "generations": generations,
    })
}
