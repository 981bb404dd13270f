//! The advisory lock that makes dotpack one writer at a time: an exclusive `std::fs::File::lock`
//! on `<state>/lock`. A process keeps every lock it took until it exits, so a command that plans
//! again after a conflict still holds it, and locks are always taken in the same order (the
//! project's state folder, then `$DOTPACK_HOME`), so two commands cannot deadlock.

use std::fs::{File, TryLockError};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use anyhow::{Context, Result};

use crate::ui::printer::Printer;

static HELD: Mutex<Vec<(PathBuf, File)>> = Mutex::new(Vec::new());

/// Whether to wait for another dotpack (`--no-wait` fails at once).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wait {
    Block,
    NoWait,
}

/// Takes the exclusive lock of the state folder `state` (created when missing), waiting for
/// another dotpack with a message, unless this process holds it already. File systems without
/// locks (some network mounts) are used unlocked, as Cargo does.
pub fn acquire(state: &Path, wait: Wait, printer: &Printer) -> Result<()> {
    let path = state.join("lock");
    let mut held = HELD.lock().unwrap_or_else(|e| e.into_inner());
    if held.iter().any(|(p, _)| *p == path) {
        return Ok(());
    }
    fs_err::create_dir_all(state)?;
    let file = File::options()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)
        .with_context(|| format!("cannot open the lock file {}", path.display()))?;
    match file.try_lock() {
        Ok(()) => {}
        Err(TryLockError::WouldBlock) => {
            if wait == Wait::NoWait {
                crate::bail_help!(
                    help = "wait for it to finish, or run without --no-wait to wait",
                    "another dotpack is changing files (it holds {})",
                    path.display()
                );
            }
            printer.status(
                "Blocking",
                format!(
                    "waiting for file lock on {} (another dotpack is running)",
                    path.display()
                ),
            );
            file.lock()
                .with_context(|| format!("cannot lock {}", path.display()))?;
        }
        Err(TryLockError::Error(e)) if e.kind() == std::io::ErrorKind::Unsupported => {}
        Err(TryLockError::Error(e)) => {
            return Err(e).with_context(|| format!("cannot lock {}", path.display()));
        }
    }
    held.push((path, file));
    Ok(())
}
