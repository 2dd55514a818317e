//! Whether a run is alive, for the clean-up of what killed runs left behind: each run holds a
//! lock (`flock`) on `.alive` in its working directory for its whole life. The kernel drops the
//! lock when the run dies, however it dies, and a lock is seen from every PID namespace that
//! shares the directory, where a process id may be invisible or mean another process.
//!
//! A lock belongs to the open file, which a `fork` shares: a child forked by another thread
//! keeps it until it `exec`s (the descriptor is close-on-exec). Locks are therefore released
//! with `LOCK_UN`, which frees them for every copy of the descriptor, never just by closing.

use std::fs::File;
use std::path::Path;

use anyhow::{Context, Result};

/// The lock a live run holds.
#[derive(Debug)]
pub struct Alive {
    file: File,
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
        Ok(Alive { file })
    }
}

impl Drop for Alive {
    /// Releases the lock at once, even while a child forked by another thread (between its
    /// `fork` and its `exec`) still has the descriptor open.
    fn drop(&mut self) {
        let _ = rustix::fs::flock(&self.file, rustix::fs::FlockOperation::Unlock);
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
    match rustix::fs::flock(&file, rustix::fs::FlockOperation::NonBlockingLockShared) {
        Ok(()) => {
            // A fork elsewhere may hold the descriptor a moment: let the run lock it again now.
            let _ = rustix::fs::flock(&file, rustix::fs::FlockOperation::Unlock);
            false
        }
        Err(_) => true,
    }
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

    #[test]
    fn a_lock_is_released_while_a_forked_child_still_has_it_open_issue_17() {
        use std::os::unix::process::CommandExt;
        let dir = tempfile::tempdir().unwrap();
        let alive = Alive::mark(dir.path()).unwrap();
        // What another test's spawn does at any moment: a child forked while the lock is
        // held, which keeps every descriptor until its `exec`.
        let (forked, wait) = std::sync::mpsc::channel();
        let spawner = std::thread::spawn(move || {
            let mut cmd = std::process::Command::new("true");
            // SAFETY: `usleep` is async-signal-safe; nothing is allocated in the child.
            unsafe {
                cmd.pre_exec(|| {
                    libc::usleep(500_000);
                    Ok(())
                });
            }
            let mut child = cmd.spawn().unwrap();
            forked.send(()).unwrap();
            child.wait().unwrap();
        });
        // `spawn` returns once the child has `exec`ed: start the fork first, then wait a moment
        // into its pause.
        std::thread::sleep(std::time::Duration::from_millis(100));
        drop(alive);
        assert!(!held(dir.path()), "the forked child kept the run's lock");
        let relock = Alive::mark(dir.path()).unwrap();
        assert!(held(dir.path()));
        drop(relock);
        spawner.join().unwrap();
        wait.recv().unwrap();
    }
}
