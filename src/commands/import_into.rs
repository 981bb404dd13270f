//! `dotpack import HOST --into`: the servers of the host's file become the project's own
//! ([`crate::ops::import_into`]).

use anyhow::Result;

use crate::model::hosts::{HostAdapter, Scope};
use crate::ops::import_source::Source;
use crate::ops::{Project, Settings};
use crate::ui::printer::Printer;

/// `dotpack import HOST --into [--scope S] [--dry-run]`.
pub(super) fn run(
    settings: &Settings,
    host: &'static HostAdapter,
    scope: Option<Scope>,
    dry_run: bool,
    printer: &Printer,
) -> Result<()> {
    let project = Project::load(settings, printer)?;
    let scope = if settings.global {
        Some(Scope::User)
    } else {
        scope
    };
    let source = Source::at_scope(host, scope, project.root(), &settings.host_env)?;
    // Imported by name, a host's servers are meant for the project's other hosts too.
    let personal = crate::ops::import_into::Personal::FansOut;
    crate::ops::import_into::into(settings, printer, &project, vec![source], personal, dry_run)
}
