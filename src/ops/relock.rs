//! The one re-lock-and-apply that every command changing what is locked ends with: open the
//! registries for the manifest as the command left it, resolve the lock (keeping the versions
//! the command asks to keep), warn about newer versions it skipped because dotpack cannot install
//! them, let the command look at the new lock, then plan the host files and commit everything as
//! one transaction (or, for `dotpack lock`, commit the lock alone).

use std::borrow::Cow;
use std::collections::BTreeMap;

use anyhow::Result;
use semver::Version;

use crate::model::lock::Lockfile;
use crate::model::manifest::LoadedManifest;
use crate::plan::Mode;
use crate::resolve::RegistrySet;
use crate::ui::printer::Printer;
use crate::util::error::WithError;

use super::lifecycle;

use super::{Finish, InstallOptions, Outcome, Project, Settings};

/// What a command hands the re-lock-and-apply: the manifest as it leaves it, what to keep
/// locked, and what it asks of the host files.
pub struct Relock<'a> {
    /// The manifest as the command leaves it.
    pub manifest: Cow<'a, LoadedManifest>,
    /// Its new text, when the command edited it.
    pub manifest_text: Option<String>,
    /// The locked versions resolution keeps where they still fit.
    pub preferred: BTreeMap<String, Version>,
    pub options: InstallOptions,
    /// How the host files are planned; `None`: only the lock is written (`dotpack lock`).
    pub mode: Option<Mode>,
    /// What the command changed in dotpack.toml, as `(verb, what)` status lines.
    pub edits: Vec<(String, String)>,
}

impl<'a> Relock<'a> {
    /// Re-locks `manifest` keeping `project`'s locked versions, and syncs the host files.
    pub fn sync(project: &Project, manifest: Cow<'a, LoadedManifest>) -> Relock<'a> {
        Relock {
            manifest,
            manifest_text: None,
            preferred: project.locked_versions(),
            options: InstallOptions::default(),
            mode: Some(Mode::Sync),
            edits: Vec::new(),
        }
    }
}

/// Opens the registries (`registries`, else those of the relocked manifest), resolves the lock,
/// calls `inspect` with the new lock (a command may type inputs, fill in what it grants, or pin
/// tools there), then commits. Returns what `inspect` returned.
pub fn relock_and_apply<'a, T>(
    settings: &Settings,
    printer: &Printer,
    project: &Project,
    registries: Option<RegistrySet>,
    mut relock: Relock<'a>,
    inspect: impl FnOnce(&RegistrySet, &mut Lockfile, &mut Relock<'a>) -> Result<T>,
) -> Result<T> {
    let registries = match registries {
        Some(registries) => registries,
        None => super::registries(settings, Some(&relock.manifest))?,
    };
    let pinned = std::mem::take(&mut relock.preferred);
    let old = project.lock.as_ref();
    let resolved = super::resolve_lock(&relock.manifest, &registries, pinned.clone(), old);
    // A locked version the registry took away is named with its reason, not left to "the
    // lock needs to be updated" or to a resolution error about what remains.
    let gone = lifecycle::gone_versions(&registries, &pinned, old, resolved.as_ref().ok());
    let mut lock = match (resolved, gone.first()) {
        (Err(err), Some(first)) => return Err(err).with_error(|| first.error()),
        (Err(err), None) => return Err(err),
        (Ok(_), Some(first)) if settings.locked => return Err(first.error().into()),
        (Ok(lock), _) => lock,
    };
    for gone in &gone {
        printer.warning(gone.warning());
    }
    // A newer version dotpack cannot install is never skipped silently.
    for skipped in super::packages::skipped_versions(&registries, &lock, old) {
        printer.warning(skipped);
    }
    for deprecated in lifecycle::deprecations(&registries, &lock) {
        printer.warning(deprecated);
    }
    for floating in lifecycle::floating(&registries, &lock, old) {
        printer.warning(floating);
    }
    let out = inspect(&registries, &mut lock, &mut relock)?;
    match relock.mode {
        Some(mode) => super::finish(
            settings,
            printer,
            project,
            &registries,
            Finish {
                manifest: &relock.manifest,
                manifest_text: relock.manifest_text,
                lock,
                options: &relock.options,
                mode,
                edits: relock.edits,
            },
        )?,
        None => super::commit(
            settings,
            printer,
            Outcome {
                project,
                manifest_text: relock.manifest_text,
                lock,
                hosts: None,
                dry_run: relock.options.dry_run,
                edits: relock.edits,
                no_hosts: false,
                staged: Vec::new(),
                imported: false,
            },
        )?,
    }
    Ok(out)
}
