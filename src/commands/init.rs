//! `dotpack init [PATH]`: create a dotpack.toml targeting the hosts found on this machine, and
//! keep dotpack's own state folder out of version control.

use anyhow::{Result, bail};

use crate::cli::{GlobalArgs, InitArgs};
use crate::hosts::{ADAPTERS, HostEnv, Scope};
use crate::manifest::MANIFEST_FILE;
use crate::output::Printer;

pub fn run(_global: &GlobalArgs, args: InitArgs, printer: &Printer) -> Result<()> {
    let dir = match args.path {
        Some(path) => path,
        None => std::env::current_dir()?,
    };
    if dir.exists() && !dir.is_dir() {
        bail!("{} is not a folder", dir.display());
    }
    let path = dir.join(MANIFEST_FILE);
    if path.exists() {
        bail!(
            "{} already exists\n  help: add packages to it with `dotpack add NAME`",
            path.display()
        );
    }
    let env = HostEnv::from_env()?;
    let detected: Vec<&str> = ADAPTERS
        .iter()
        .filter(|a| a.detected(Scope::Project, &dir, &env) || a.detected(Scope::User, &dir, &env))
        .map(|a| a.id)
        .collect();
    let known: Vec<&str> = ADAPTERS.iter().map(|a| a.id).collect();
    fs_err::create_dir_all(&dir)?;
    let text = crate::project::initial_manifest(&detected, &known);
    crate::fsutil::write_atomic(&path, text.as_bytes())?;
    printer.status("Created", crate::diag::display_path(&path));
    if ignore_state_folder(&dir)? {
        printer.status("Updated", ".gitignore: ignoring .dotpack/");
    }
    if detected.is_empty() {
        printer.note(format!(
            "no AI host found here or in your home folder; name the hosts to install into under [project] in {MANIFEST_FILE}, or pass --host"
        ));
    } else {
        printer.note(format!("installing into: {}", detected.join(", ")));
    }
    Ok(())
}

/// Adds `.dotpack/` (generations, snapshots, the lock) to the project's `.gitignore`, creating
/// it when missing and keeping every existing byte. Returns whether it wrote.
fn ignore_state_folder(dir: &std::path::Path) -> Result<bool> {
    let path = dir.join(".gitignore");
    let old = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => bail!("cannot read {}: {e}", path.display()),
    };
    let ignored = old.lines().any(|l| {
        matches!(
            l.trim(),
            ".dotpack" | ".dotpack/" | "/.dotpack" | "/.dotpack/"
        )
    });
    if ignored {
        return Ok(false);
    }
    let mut text = old;
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    text.push_str(".dotpack/\n");
    crate::fsutil::write_atomic(&path, text.as_bytes())?;
    Ok(true)
}
