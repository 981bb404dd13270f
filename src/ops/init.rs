//! `dotpack init`: a dotpack.toml targeting the hosts found on this machine, and dotpack's own
//! state folder kept out of version control, written as a transaction (so `dotpack history`
//! shows it and `dotpack rollback` undoes it); with `--import`, the hosts' servers imported.

use std::path::{Path, PathBuf};

use anyhow::{Result, bail};

use crate::model::hosts::{ADAPTERS, Scope};
use crate::model::manifest::MANIFEST_FILE;
use crate::txn::files::FileWrite;
use crate::ui::printer::Printer;
use crate::util::text::Text;

use super::Settings;
use super::import_into::{candidates, conflict_error};
use super::import_source::Source;

/// What `dotpack init` was asked.
pub struct InitOptions {
    /// The folder to create dotpack.toml in; `None`: the current one (`$DOTPACK_HOME` with
    /// `--global`).
    pub path: Option<PathBuf>,
    pub import: bool,
}

/// An init planned: the manifest to create, the hosts found, the files to import, the writes.
pub struct Planned {
    pub dir: PathBuf,
    pub path: PathBuf,
    /// The user-level manifest (`--global` without a folder).
    pub global: bool,
    pub detected: Vec<&'static str>,
    pub sources: Vec<Source>,
    pub writes: Vec<FileWrite>,
}

/// Plans the init `options` asks for: refused where a manifest exists already.
pub fn plan(settings: &Settings, printer: &Printer, options: &InitOptions) -> Result<Planned> {
    let dir = match (&options.path, settings.global) {
        (Some(path), _) => settings.cwd.join(path),
        (None, true) => settings.dotpack_home.clone(),
        (None, false) => settings.cwd.clone(),
    };
    if dir.exists() && !dir.is_dir() {
        bail!("{} is not a folder", dir.display());
    }
    let path = dir.join(MANIFEST_FILE);
    if path.exists() {
        crate::bail_help!(
            help = "add packages to it with `dotpack add NAME`",
            "{} already exists",
            path.display()
        );
    }
    let global = settings.global && options.path.is_none();
    let detected = detected_hosts(settings, &dir, global);
    let sources = match options.import {
        true => import_sources(settings, &dir, global, printer)?,
        false => Vec::new(),
    };
    // Hosts whose servers are imported are declared by the import, at the scope read from.
    let declared: Vec<&str> = detected
        .iter()
        .copied()
        .filter(|id| !sources.iter().any(|s| s.host.id == *id))
        .collect();
    let known: Vec<&str> = ADAPTERS.iter().map(|a| a.id).collect();
    let text = if global {
        crate::model::manifest_edit::initial_global_manifest(&declared)
    } else {
        crate::model::manifest_edit::initial_manifest(&declared, &known)
    };
    let mut writes = vec![FileWrite {
        display: crate::ui::diag::display_path(&path),
        host: None,
        path: path.clone(),
        before: None,
        after: Some(text.into()),
        remove_dirs: 0,
        resolved: Vec::new(),
        fence: (!global).then(|| crate::util::fence::Fence::project(&dir)),
    }];
    if !global && let Some(ignore) = ignore_state_folder(&dir)? {
        writes.push(ignore);
    }
    Ok(Planned {
        dir,
        path,
        global,
        detected,
        sources,
        writes,
    })
}

/// The hosts seen on this machine. A host seen only through the folder's files (a cloned
/// repository's) is declared only when it has a project file: one with user-scope files alone
/// would take the project's servers into every session of that host.
fn detected_hosts(settings: &Settings, dir: &Path, global: bool) -> Vec<&'static str> {
    let env = &settings.host_env;
    ADAPTERS
        .iter()
        .filter(|a| {
            a.detected(Scope::User, dir, env)
                || (!global && a.has_scope(Scope::Project) && a.detected(Scope::Project, dir, env))
        })
        .map(|a| a.id)
        .collect()
}

/// The `--json` document of `dotpack init`.
pub fn report(planned: &Planned, dry_run: bool, generation: Option<u64>) -> serde_json::Value {
    serde_json::json!({
        "schema": 1,
        "dry_run": dry_run,
        "manifest": planned.path.display().to_string(),
        "generation": generation,
        "hosts": planned.detected,
        "files": planned.writes.iter().map(|w| &w.display).collect::<Vec<_>>(),
        "import": planned.sources.iter().map(|s| &s.display).collect::<Vec<_>>(),
    })
}

/// Writes a planned init as one transaction. Returns the generation recorded.
pub fn apply(settings: &Settings, printer: &Printer, planned: &Planned) -> Result<Option<u64>> {
    let (dir, writes) = (&planned.dir, &planned.writes);
    crate::txn::files::preflight(writes)?;
    let places = if planned.global {
        crate::txn::Places::user(None, settings.boundary(None))
    } else {
        crate::txn::Places::project(dir, settings.boundary(Some(dir)))
    };
    let meta = crate::txn::Meta {
        command: settings.recorded_command(&|_| false),
        keep: crate::txn::DEFAULT_KEEP,
        ..crate::txn::Meta::default()
    };
    let id = crate::txn::apply(&places, writes, meta, settings.wait, printer)?;
    super::schema_file::refresh(&places.state);
    if !planned.global && planned.sources.is_empty() {
        // A project made here starts as the user's own: their next commands are their consent.
        // One that imports host files does not: a repository may have shipped them.
        let state =
            crate::ops::consent::state_digest(&writes[0].after.clone().unwrap_or_default(), None);
        let owner = super::owner_id(dir);
        if let Err(e) =
            crate::ops::consent::store::remember_state(&settings.dotpack_home, &owner, &state)
        {
            printer.warning(format!(
                "could not record the new project as your own: {e:#}"
            ));
        }
    }
    Ok(id)
}

/// `--import`, once the manifest is written: the planned host files' servers become the new
/// project's own.
pub fn import(settings: &Settings, printer: &Printer, planned: Planned) -> Result<()> {
    let settings = Settings {
        manifest_path: Some(planned.path),
        ..settings.clone()
    };
    let project = super::Project::load(&settings, printer)?;
    // What `init` finds in the user's own files stays in the hosts it was found in.
    let personal = super::import_into::Personal::StaysInItsHost;
    super::import_into::into(
        &settings,
        printer,
        &project,
        planned.sources,
        personal,
        false,
    )
}

/// The host files `init --import` reads: each host's project file when it exists, else its user
/// file (one host is written at one scope). Their servers are checked first: servers defined
/// differently under one name in two files stop `init` before it writes anything.
fn import_sources(
    settings: &Settings,
    dir: &Path,
    global: bool,
    printer: &Printer,
) -> Result<Vec<Source>> {
    let env = &settings.host_env;
    let mut sources = Vec::new();
    for host in ADAPTERS {
        let scopes: &[Scope] = if global {
            &[Scope::User]
        } else {
            &[Scope::Project, Scope::User]
        };
        let found: Vec<Source> = scopes
            .iter()
            .filter(|s| host.detected(**s, dir, env))
            .filter_map(|s| Some((*s, host.path(*s, dir, env)?)))
            .filter(|(_, p)| p.is_file())
            .map(|(s, p)| {
                let fence = (s == Scope::Project).then(|| crate::util::fence::Fence::project(dir));
                Source::read(host, Some(s), p, fence.as_ref())
            })
            .collect::<Result<_>>()?;
        let mut with_servers = Vec::new();
        for source in found {
            // A project file is read for the host's resource files too.
            let resources = source.scope == Some(Scope::Project)
                && !crate::ops::import_resources::scan(
                    host,
                    dir,
                    &crate::model::manifest::Manifest::default(),
                    &[],
                )
                .found
                .is_empty();
            if resources || !source.import()?.servers.is_empty() {
                with_servers.push(source);
            }
        }
        let mut with_servers = with_servers.into_iter();
        if let Some(first) = with_servers.next() {
            for skipped in with_servers {
                printer.warning(format!(
                    "{} is not imported: {} is written at one scope, and {} comes first
  help: import it into the user-level manifest: `dotpack import {} --scope {} --into --global`",
                    skipped.display,
                    host.name(),
                    first.display,
                    host.id,
                    skipped.scope.unwrap_or(Scope::User),
                ));
            }
            sources.push(first);
        }
    }
    let (_, conflicts) = candidates(printer, &sources, &|_, _| false, false)?;
    if !conflicts.is_empty() {
        return Err(conflict_error(&conflicts, &sources));
    }
    Ok(sources)
}

/// The write that adds `.dotpack/` (generations, snapshots, the lock) to the project's
/// `.gitignore`, keeping every existing byte; `None` when it is ignored already.
fn ignore_state_folder(dir: &Path) -> Result<Option<FileWrite>> {
    let path = dir.join(".gitignore");
    let fence = crate::util::fence::Fence::project(dir);
    let old =
        crate::util::fence::read_text(&path, Some(&fence), crate::util::fence::PROJECT_FILE_CAP)?;
    let ignored = old.as_deref().unwrap_or_default().lines().any(|l| {
        matches!(
            l.trim(),
            ".dotpack" | ".dotpack/" | "/.dotpack" | "/.dotpack/"
        )
    });
    if ignored {
        return Ok(None);
    }
    let mut text = old.clone().unwrap_or_default();
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    text.push_str(".dotpack/\n");
    Ok(Some(FileWrite {
        display: ".gitignore".to_string(),
        host: None,
        path,
        before: old.map(Text::from),
        after: Some(text.into()),
        remove_dirs: 0,
        resolved: Vec::new(),
        fence: Some(fence),
    }))
}
