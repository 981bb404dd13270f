//! `dotpack adopt SERVER...`: take ownership of existing host entries as they are. The package in
//! dotpack.lock that declares each server becomes its owner; the next `install` updates the entry
//! to the package's definition.

use anyhow::{Result, bail};

use crate::cli::{AdoptArgs, GlobalArgs};
use crate::ops::{self, HostRequest, NoTargets, Outcome, Project, Settings};
use crate::output::Printer;
use crate::plan::{Action, Mode};

pub fn run(global: &GlobalArgs, args: AdoptArgs, printer: &Printer) -> Result<()> {
    let settings = Settings::from_global(global)?;
    let project = Project::load(&settings)?;
    let registries = ops::registries(&settings, Some(&project.manifest))?;
    let Some(lock) = project.lock.clone() else {
        bail!(
            "there is no dotpack.lock\n  help: add the package that declares the server first: `dotpack add PACKAGE`"
        );
    };
    for server in &args.servers {
        if !lock.packages.iter().any(|p| p.servers.contains(server)) {
            bail!(
                "no package in dotpack.lock declares a server named `{server}`\n  help: add the package that provides it first (`dotpack search {server}`), then adopt"
            );
        }
    }
    let servers = args.servers.iter().cloned().collect();
    let hosts = ops::plan_hosts(
        &settings,
        printer,
        &project,
        &registries,
        HostRequest {
            manifest: &project.manifest,
            lock: &lock,
            args: &args.install,
            mode: Mode::Adopt(servers),
            no_targets: NoTargets::Fail,
        },
    )?;
    if let Some((plan, _)) = &hosts {
        for server in &args.servers {
            let adopted = plan
                .files
                .iter()
                .flat_map(|f| &f.changes)
                .any(|c| &c.server == server && c.action == Action::Adopt);
            if !adopted {
                bail!("no target file has an entry `{server}` to adopt");
            }
        }
    }
    ops::commit(
        &settings,
        printer,
        Outcome {
            project: &project,
            manifest_text: None,
            lock,
            hosts,
            dry_run: args.install.dry_run,
        },
    )
}
