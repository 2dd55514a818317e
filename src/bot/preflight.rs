//! Pre-flight: before the first game, whether a bot can start its command as the sandbox
//! will run it (under its own uid, with the bots' `PATH`), and what to do if it cannot.

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// The system part of every bot's `PATH`.
pub const SYSTEM_PATH: &str = "/usr/local/bin:/usr/bin:/bin";

/// Read permission, in a mode's `rwx` triple.
pub const READ: u32 = 4;
/// Execute (search, for a directory) permission, in a mode's `rwx` triple.
pub const EXEC: u32 = 1;

/// The user and group a bot's processes run as, when the sandbox gives them their own: the
/// owner of its working copy (the sandbox hands the copy over), if that is not arena's user.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Runner {
    pub uid: u32,
    pub gid: u32,
}

impl Runner {
    /// The bot's own user, or `None` when its processes run as arena's.
    pub fn of(workdir: &Path) -> Option<Runner> {
        let meta = std::fs::metadata(workdir).ok()?;
        (meta.uid() != rustix::process::geteuid().as_raw()).then(|| Runner {
            uid: meta.uid(),
            gid: meta.gid(),
        })
    }

    /// Why this user cannot reach `path` with `want` (`READ | EXEC`) on the file itself and
    /// search permission on every directory on the way: the first obstacle, as a phrase.
    pub fn denied(&self, path: &Path, want: u32) -> Option<String> {
        let resolved = path.canonicalize().unwrap_or_else(|_| path.to_owned());
        for p in [path, resolved.as_path()] {
            for dir in p.ancestors().skip(1) {
                let Ok(meta) = std::fs::metadata(dir) else {
                    continue;
                };
                if !self.may(&meta, EXEC) {
                    return Some(format!(
                        "`{}` is mode {:04o}",
                        dir.display(),
                        meta.mode() & 0o7777
                    ));
                }
            }
        }
        let meta = std::fs::metadata(&resolved).ok()?;
        (!self.may(&meta, want)).then(|| {
            format!(
                "`{}` is mode {:04o}",
                resolved.display(),
                meta.mode() & 0o7777
            )
        })
    }

    fn may(&self, meta: &std::fs::Metadata, want: u32) -> bool {
        let mode = meta.mode();
        let bits = if self.uid == 0 {
            return true;
        } else if meta.uid() == self.uid {
            mode >> 6
        } else if meta.gid() == self.gid {
            mode >> 3
        } else {
            mode
        };
        bits & want == want
    }
}

/// The bots' `PATH`: the system directories, then the directories of the programs found for
/// this bot on arena's `PATH` (an interpreter installed elsewhere).
pub fn bot_path(found: &[PathBuf]) -> String {
    let mut dirs: Vec<String> = SYSTEM_PATH.split(':').map(str::to_string).collect();
    for program in found {
        if let Some(dir) = program.parent().and_then(Path::to_str) {
            if !dirs.iter().any(|d| d == dir) && !dir.contains(':') {
                dirs.push(dir.to_string());
            }
        }
    }
    dirs.join(":")
}

/// Looks a program name up on a `PATH` value, as `env` does for a `#!/usr/bin/env X` line.
pub fn lookup(program: &str, path: &str) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    path.split(':')
        .filter(|d| d.starts_with('/'))
        .map(|d| Path::new(d).join(program))
        .find(|p| {
            std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
}

/// Finds a bare program name (`python3`) as a bot's `#!/usr/bin/env python3` does: on the
/// bots' system `PATH` ([`SYSTEM_PATH`]) first, so that `command = "python3 bot.py"` runs the
/// interpreter that line runs, and not one found first on arena's `PATH` (`operator`), such as
/// a pyenv shim under a home directory bots cannot read; then on arena's `PATH`, for a program
/// installed only there, whose directory then joins the bots' `PATH` ([`bot_path`]).
pub fn find_program(program: &str, operator: &std::ffi::OsStr) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    lookup(program, SYSTEM_PATH).or_else(|| {
        let cwd = std::env::current_dir().unwrap_or_default();
        std::env::split_paths(operator)
            .map(|dir| cwd.join(dir).join(program))
            .find(|p| {
                std::fs::metadata(p)
                    .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
            })
    })
}

/// The advice for a program bots cannot reach: the system's copy if there is one.
pub fn unreachable(named: &str, path: &Path, why: &str) -> String {
    let base = path.file_name().and_then(|n| n.to_str()).unwrap_or(named);
    let system = ["/usr/bin", "/bin", "/usr/local/bin"]
        .iter()
        .map(|d| Path::new(d).join(base))
        .find(|p| p.is_file() && p != path);
    let fix = match system {
        Some(system) => format!("name `{}` in `command`", system.display()),
        None => "install it where every user may read it".to_string(),
    };
    format!(
        "`{named}` is `{}`, which bots cannot read ({why}): {fix}, or make its directory readable by others and `--share` it",
        path.display()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn a_private_directory_stops_other_users() {
        let dir = tempfile::tempdir().unwrap();
        let private = dir.path().join("home");
        std::fs::create_dir(&private).unwrap();
        let tool = private.join("tool");
        std::fs::write(&tool, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&tool, std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::set_permissions(&private, std::fs::Permissions::from_mode(0o700)).unwrap();
        let other = Runner {
            uid: 61_999,
            gid: 61_999,
        };
        let why = other.denied(&tool, READ | EXEC).unwrap();
        assert!(why.contains("is mode 0700"), "{why}");
        std::fs::set_permissions(&private, std::fs::Permissions::from_mode(0o711)).unwrap();
        assert_eq!(other.denied(&tool, READ | EXEC), None);
        std::fs::set_permissions(&tool, std::fs::Permissions::from_mode(0o711)).unwrap();
        assert!(other.denied(&tool, READ | EXEC).is_some());
        assert_eq!(other.denied(&tool, EXEC), None);
    }

    #[test]
    fn the_bots_path_is_the_system_path_and_found_programs() {
        assert_eq!(bot_path(&[]), SYSTEM_PATH);
        let path = bot_path(&["/usr/bin/perl".into(), "/opt/py/bin/python3".into()]);
        assert_eq!(path, format!("{SYSTEM_PATH}:/opt/py/bin"));
        assert!(lookup("sh", SYSTEM_PATH).is_some());
        assert!(lookup("no-such-program-xyz", SYSTEM_PATH).is_none());
    }

    #[test]
    fn bare_names_are_found_on_the_bots_path_before_arenas() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        for name in ["sh", "only-here-xyz"] {
            let fake = dir.path().join(name);
            std::fs::write(&fake, "#!/bin/sh\n").unwrap();
            std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        let operator = std::ffi::OsString::from(format!("{}:/usr/bin", dir.path().display()));
        assert_eq!(find_program("sh", &operator), lookup("sh", SYSTEM_PATH));
        assert_eq!(
            find_program("only-here-xyz", &operator),
            Some(dir.path().join("only-here-xyz"))
        );
        assert_eq!(find_program("no-such-program-xyz", &operator), None);
    }
}
