//! Whether a run is alive, for the clean-up of what killed runs left behind: each run holds a
//! lock (`flock`) on `.alive` in its working directory for its whole life. The kernel drops the
//! lock when the run dies, however it dies, and a lock is seen from every PID namespace that
//! shares the directory, where a process id may be invisible or mean another process.

use std::fs::File;
use std::path::Path;

use anyhow::{Context, Result};

/// The lock a live run holds.
#[derive(Debug)]
pub struct Alive {
    _file: File,
}

impl Alive {
    /// Marks the run that owns `dir` as alive for as long as the result lives.
    pub fn mark(dir: &Path) -> Result<Alive> {
        let path = dir.join(".alive");
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .with_context(|| format!("cannot create `{}`", path.display()))?;
        rustix::fs::flock(&file, rustix::fs::FlockOperation::LockExclusive)
            .with_context(|| format!("cannot lock `{}`", path.display()))?;
        Ok(Alive { _file: file })
    }
}

/// Opens (creating it if need be) and locks the file `path` (`flock`, exclusive) unless
/// another process holds it: `None` then. The lock lasts as long as the file is open, and the
/// kernel releases it when the process dies, however it dies.
pub fn try_lock(path: &Path) -> Result<Option<File>> {
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
        .with_context(|| format!("cannot open `{}`", path.display()))?;
    match rustix::fs::flock(&file, rustix::fs::FlockOperation::NonBlockingLockExclusive) {
        Ok(()) => Ok(Some(file)),
        Err(e) if e == rustix::io::Errno::WOULDBLOCK => Ok(None),
        Err(e) => Err(e).with_context(|| format!("cannot lock `{}`", path.display())),
    }
}

/// Whether a live run holds `dir`'s lock; a directory whose lock cannot be read counts as
/// held (it is not ours to remove).
pub fn held(dir: &Path) -> bool {
    let path = dir.join(".alive");
    let file = match File::open(&path) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return false,
        Err(_) => return true,
    };
    rustix::fs::flock(&file, rustix::fs::FlockOperation::NonBlockingLockShared).is_err()
}

/// Whether the run of process `pid` may still be alive: the process is visible, or a working
/// directory of that pid is held.
pub fn run_alive(pid: u32) -> bool {
    if pid == std::process::id() || Path::new(&format!("/proc/{pid}")).exists() {
        return true;
    }
    let prefix = format!("arena-work-{pid}-");
    std::fs::read_dir(std::env::temp_dir()).is_ok_and(|entries| {
        entries
            .flatten()
            .any(|e| e.file_name().to_string_lossy().starts_with(&prefix) && held(&e.path()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_held_directory_is_alive_and_a_released_one_is_not_issue_11() {
        let dir = tempfile::tempdir().unwrap();
        assert!(!held(dir.path()), "no lock file: nobody holds it");
        let alive = Alive::mark(dir.path()).unwrap();
        assert!(held(dir.path()));
        drop(alive);
        assert!(!held(dir.path()));
    }
}
