//! `dotpack init [PATH]`: create a dotpack.toml.

use anyhow::{Result, bail};

use crate::cli::{GlobalArgs, InitArgs};
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
    fs_err::create_dir_all(&dir)?;
    crate::fsutil::write_atomic(&path, crate::project::initial_manifest().as_bytes())?;
    printer.status("Created", crate::diag::display_path(&path));
    Ok(())
}
