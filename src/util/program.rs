//! Whether a program can be started, found as a shell or a host finds it: a path to an
//! executable file, or a name in one of the PATH folders (on Windows also with `.exe`, `.cmd` or
//! `.bat`). One search for `doctor`'s runtime check and the planner's check for `dotpack` itself.

use std::path::{Path, PathBuf};

/// Whether `program` can be started: a path (relative ones from `root`) to an executable file,
/// or a name found in one of `dirs`.
pub fn found(program: &str, dirs: &[PathBuf], root: &Path) -> bool {
    if program.contains('/') || program.contains('\\') {
        let path = Path::new(program);
        let path = match path.is_absolute() {
            true => path.to_path_buf(),
            false => root.join(path),
        };
        return is_executable(&path);
    }
    dirs.iter().any(|dir| {
        std::iter::once(program.to_string())
            .chain(
                cfg!(windows)
                    .then(|| [".exe", ".cmd", ".bat"].map(|ext| format!("{program}{ext}")))
                    .into_iter()
                    .flatten(),
            )
            .any(|name| is_executable(&dir.join(name)))
    })
}

/// Whether the name `program` is on this process's PATH, as a host started from this shell
/// would look for it.
pub fn on_path(program: &str) -> bool {
    let dirs: Vec<PathBuf> = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).collect())
        .unwrap_or_default();
    found(program, &dirs, Path::new("."))
}

/// Whether `path` is a file this user could run (on Windows, any file: its extension decides).
fn is_executable(path: &Path) -> bool {
    let Ok(meta) = std::fs::metadata(path) else {
        return false;
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        meta.is_file() && meta.permissions().mode() & 0o111 != 0
    }
    #[cfg(not(unix))]
    {
        meta.is_file()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn programs_are_found_on_the_path_or_as_paths_from_the_project() {
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("bin");
        std::fs::create_dir(&bin).unwrap();
        let tool = bin.join("tool");
        std::fs::write(&tool, "#!/bin/sh\n").unwrap();
        let plain = bin.join("plain");
        std::fs::write(&plain, "data").unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&tool, std::fs::Permissions::from_mode(0o755)).unwrap();
            std::fs::set_permissions(&plain, std::fs::Permissions::from_mode(0o644)).unwrap();
        }
        let dirs = vec![bin.clone()];
        assert!(found("tool", &dirs, dir.path()));
        assert!(!found("plain", &dirs, dir.path()), "not executable");
        assert!(!found("absent", &dirs, dir.path()));
        assert!(found("./bin/tool", &[], dir.path()));
        assert!(found(tool.to_str().unwrap(), &[], Path::new("/")));
        assert!(!found("./bin/absent", &dirs, dir.path()));
        std::fs::create_dir(dir.path().join("folder")).unwrap();
        assert!(
            !found("folder", &[dir.path().to_path_buf()], dir.path()),
            "a folder is no program"
        );
    }
}
