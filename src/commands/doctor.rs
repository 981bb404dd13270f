//! `dotpack doctor [--repair]`: report the health of the state folders (exit 1 while a problem
//! remains), and warn about host config files that will not work as their author meant
//! (see [`crate::model::host_lint`]).

use anyhow::{Result, bail};
use clap::Args;

use crate::ops::Settings;
use crate::txn::doctor::{self, Status};
use crate::ui::printer::Printer;

#[derive(Debug, Args, Clone)]
pub struct DoctorArgs {
    /// Move aside what dotpack cannot use (an untrusted .dotpack/, a journal that cannot be
    /// recovered), never deleting it
    #[arg(long)]
    pub repair: bool,
}

pub fn run(settings: &Settings, args: DoctorArgs, printer: &Printer) -> Result<()> {
    let root = crate::ops::project_root(settings);
    let boundary = settings.boundary(root.as_deref());
    let findings = doctor::run(&boundary, args.repair, settings.wait, printer)?;
    let host_check = crate::model::host_lint::check_all(root.as_deref(), &settings.host_env);
    // Its files' errors are reported elsewhere; the checks below then have no project.
    let project = root
        .as_ref()
        .and_then(|_| crate::ops::Project::load(settings, printer).ok());
    let missing = crate::ops::runtimes::check_here(settings, project.as_ref());
    let secrets = crate::ops::secret_check::check_here(settings, root.as_deref(), project.as_ref());
    if printer.json {
        printer.json_out(&serde_json::json!({
            "folders": findings,
            "hosts": host_check.findings,
            "platform": host_check.platform,
            "host_files": host_check.checked,
            "programs": missing,
            "secrets": secrets.json(),
        }));
    } else {
        for f in &findings {
            let message = format!("{} ({}): {}", f.folder.display(), f.scope, f.message);
            match f.status {
                Status::Ok => printer.status("Ok", message),
                Status::Repaired => printer.status("Repaired", message),
                Status::Problem | Status::Warning => printer.warning(match &f.help {
                    Some(help) => format!("{message}\n  help: {help}"),
                    None => message,
                }),
            }
            for file in &f.files {
                printer.note(format!("    {:<8} {}", file.now, file.display));
            }
        }
        print_host_check(&host_check, printer);
        crate::ops::runtimes::print(&missing, printer);
        secrets.print(printer);
    }
    let unfinished = match &root {
        Some(root) => crate::ops::merge::unfinished(root, &settings.host_env),
        None => Vec::new(),
    };
    if !unfinished.is_empty() && !printer.json {
        printer.warning(format!(
            "a git merge is not finished: {} {} conflict markers\n  help: run `dotpack merge`",
            unfinished.join(", "),
            if unfinished.len() == 1 { "has" } else { "have" }
        ));
    }
    let problems = findings
        .iter()
        .filter(|f| f.status == Status::Problem)
        .count();
    if problems > 0 && printer.json {
        // The report says it; the error only sets the exit code.
        return Err(super::Reported(format!("found {problems} problems")).into());
    }
    if problems > 0 {
        bail!(
            "found {problems} problem{} in dotpack's state folders{}",
            if problems == 1 { "" } else { "s" },
            if args.repair {
                ""
            } else {
                "\n  help: `dotpack doctor --repair` moves aside what dotpack cannot use; nothing is deleted"
            }
        );
    }
    Ok(())
}

/// The host files `doctor` read, on which platform, and the footguns it found in them.
fn print_host_check(host_check: &crate::model::host_lint::HostCheck, printer: &Printer) {
    for f in &host_check.findings {
        let server = f
            .server
            .as_ref()
            .map(|s| format!(" server `{s}`"))
            .unwrap_or_default();
        printer.warning(format!(
            "{} ({}){server} {} [{}]\n  help: {}",
            f.file, f.host, f.message, f.code, f.fix
        ));
    }
    let files = &host_check.checked;
    let count = match files.len() {
        1 => "1 file".to_string(),
        n => format!("{n} files"),
    };
    if host_check.findings.is_empty() {
        printer.status(
            "Ok",
            format!(
                "host config files on {}: no known footgun in {count}",
                host_check.platform
            ),
        );
    } else {
        printer.note(format!(
            "host config files on {}: checked {count}",
            host_check.platform
        ));
    }
    for c in files {
        printer.note(format!(
            "    {:<7} {} ({})",
            c.scope.to_string(),
            c.file,
            c.host
        ));
    }
}
