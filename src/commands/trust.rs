//! `dotpack trust [--show | --revoke]`: list what this project asks for beyond itself (writing
//! your user-scope host files, tokens for the registries it names, starting its servers, registry
//! folders outside it, another user's ownership) and approve it for this folder.

use anyhow::Result;
use clap::Args;
use serde_json::json;

use crate::ops::{self, Settings};
use crate::ui::printer::Printer;

#[derive(Debug, Args, Clone)]
pub struct TrustArgs {
    /// List what the project asks for and whether it is approved; record nothing
    #[arg(long, conflicts_with = "revoke")]
    pub show: bool,
    /// Forget everything approved for this project folder
    #[arg(long)]
    pub revoke: bool,
}

pub fn run(settings: &Settings, args: &TrustArgs, printer: &Printer) -> Result<()> {
    if args.revoke {
        let (folder, count) = ops::trust::revoke(settings)?;
        if printer.json {
            printer.json_out(&json!({ "schema": 1, "project": folder, "revoked": count }));
        }
        printer.status("Revoked", format!("{count} approvals for {folder}"));
        return Ok(());
    }
    let mut asked = ops::trust::asked(settings, printer)?;
    // What could not be listed without a token or folder is never approved unseen: those are
    // approved first, then the rest is listed for the next `dotpack trust`.
    let mut partial = false;
    if !args.show && asked.incomplete.is_some() {
        let first = ops::trust::before_registries(&asked);
        if !first.is_empty() {
            ops::record_more(settings, &asked.project.owner, &first)?;
            printer.status(
                "Approved",
                format!(
                    "{} tokens, folders and owners this project names",
                    first.len()
                ),
            );
            asked = ops::trust::asked(settings, printer)?;
            partial = true;
        }
    }
    if printer.json {
        printer.json_out(&ops::trust::json_report(&asked, args.show));
    } else if asked.requests.is_empty() {
        printer.out("this project asks for nothing beyond itself");
    } else {
        for (r, approved) in asked.requests.iter().zip(&asked.approved) {
            let mark = if *approved { "approved" } else { "new" };
            printer.out(format!("{:<10} {:<8} {}", r.kind.label(), mark, r.detail));
        }
    }
    if let Some(why) = &asked.incomplete {
        printer.warning(format!(
            "what the project asks through its registries is not listed: reading them needs what is not approved yet ({why})\n  help: `dotpack trust` approves the tokens and folders listed above first, then reads the registries and lists the rest"
        ));
    }
    if args.show || asked.incomplete.is_some() {
        return Ok(());
    }
    if partial {
        printer.note(
            "the rest of what the project asks, read with those, is listed above; review it, then run `dotpack trust` again to approve it",
        );
        return Ok(());
    }
    ops::trust::approve(settings, &asked)?;
    printer.status(
        "Approved",
        format!(
            "{} requests for {} (recorded in {})",
            asked.requests.len(),
            asked.project.owner,
            crate::ops::consent::store::Approvals::path(&settings.dotpack_home).display()
        ),
    );
    Ok(())
}
