//! Cgroups: the run's directories under the v1 controllers and the v2 hierarchy, the
//! [`Cage`] of one game of one bot (killed, frozen, removed), and clean-up of dead runs.

use std::fs::File;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, Result};

/// The cgroup of one game of one bot, and every descriptor its processes need to enter the
/// bot's jail: opened when the game starts, closed when it ends, so a run holds descriptors
/// for the games being played rather than for every bot registered.
#[derive(Debug, Default)]
pub struct Cage {
    /// cgroup v2: the game's own cgroup, for `cgroup.kill` and `cgroup.freeze`.
    pub(super) cgroup: Option<CgroupDir>,
    /// `cgroup.freeze` of that cgroup, open for the cage's life: pausing a bot between its
    /// moves is then one `pwrite`.
    freeze: Option<std::sync::Arc<File>>,
    /// `cgroup.procs` of the bot's memory and pids cgroups.
    pub(super) memory: Option<File>,
    pub(super) pids: Option<File>,
    /// The bot's Landlock ruleset.
    pub(super) landlock: Option<OwnedFd>,
    pub(super) oom_kills_before: u64,
    /// The game's namespaces (`namespace.rs`), ended when the cage is dropped.
    pub(super) namespace: Option<super::namespace::Holder>,
}

impl Cage {
    /// A cage in the game cgroup at `path` (if any), with the bot's other descriptors.
    pub(super) fn new(
        path: Option<&Path>,
        memory: Option<&Path>,
        pids: Option<&Path>,
        landlock: Option<OwnedFd>,
        oom_kills_before: u64,
    ) -> Result<Cage> {
        let cgroup = path.and_then(|p| CgroupDir::create(p).ok());
        let freeze = cgroup.as_ref().and_then(|cg| {
            std::fs::OpenOptions::new()
                .write(true)
                .open(cg.path.join("cgroup.freeze"))
                .ok()
                .map(std::sync::Arc::new)
        });
        Ok(Cage {
            cgroup,
            freeze,
            memory: memory.map(open_procs).transpose()?,
            pids: pids.map(open_procs).transpose()?,
            landlock,
            oom_kills_before,
            namespace: None,
        })
    }

    /// The open `cgroup.freeze` of the game's cgroup, for pausing a bot between its moves.
    pub fn freeze_file(&self) -> Option<std::sync::Arc<File>> {
        self.freeze.clone()
    }

    /// Whether this cage can kill and freeze everything in it.
    pub fn has_cgroup(&self) -> bool {
        self.cgroup.is_some()
    }

    /// Whether the OOM killer killed a process of this bot since the cage was made.
    pub fn hit_memory_limit(&self, jail: &super::Jail) -> bool {
        jail.oom_kills() > self.oom_kills_before
    }

    /// Kills every process in the cage (setsid() and double forks included).
    pub fn kill(&self) {
        if let Some(cg) = &self.cgroup {
            let _ = cg.set("cgroup.kill", "1");
        }
    }

    /// Freezes (`true`) or thaws every process in the cage.
    pub fn freeze(&self, frozen: bool) {
        if let Some(file) = &self.freeze {
            let _ = file.write_at(if frozen { b"1" } else { b"0" }, 0);
        }
    }

    /// The `cgroup.procs` descriptors a child writes itself into: the game's cgroup, the
    /// bot's memory and pids cgroups (`-1` for none).
    pub(super) fn procs_fds(&self) -> [RawFd; 3] {
        let fd = |f: Option<&File>| f.map_or(-1, |f| f.as_raw_fd());
        [
            fd(self.cgroup.as_ref().map(|c| &c.procs)),
            fd(self.memory.as_ref()),
            fd(self.pids.as_ref()),
        ]
    }

    /// Kills everything left and removes the cgroup, waiting briefly for it to empty.
    pub fn close(mut self) {
        self.freeze(false);
        if let Some(cg) = self.cgroup.take() {
            let _ = cg.set("cgroup.kill", "1");
            remove_cgroup(&cg.path);
        }
    }
}

impl Drop for Cage {
    fn drop(&mut self) {
        // A game abandoned half-way (Ctrl-C) leaves nothing behind either.
        if let Some(cg) = &self.cgroup {
            let _ = cg.set("cgroup.kill", "1");
        }
    }
}

fn open_procs(dir: &Path) -> Result<File> {
    std::fs::OpenOptions::new()
        .write(true)
        .open(dir.join("cgroup.procs"))
        .with_context(|| format!("cannot open `{}/cgroup.procs`", dir.display()))
}

/// A cgroup directory with its `cgroup.procs` open for children to join.
#[derive(Debug)]
pub(super) struct CgroupDir {
    pub path: PathBuf,
    procs: File,
}

impl CgroupDir {
    /// Creates the directory (or takes the existing one) and opens its `cgroup.procs`.
    pub fn create(path: &Path) -> Result<CgroupDir> {
        make_dir(path)?;
        Ok(CgroupDir {
            path: path.to_owned(),
            procs: open_procs(path)?,
        })
    }

    /// Writes `value` to the control file `file`.
    pub fn set(&self, file: &str, value: &str) -> Result<()> {
        set(&self.path, file, value)
    }
}

/// Creates a cgroup directory, or takes the existing one.
pub(super) fn make_dir(path: &Path) -> Result<()> {
    match std::fs::create_dir(path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(e).with_context(|| format!("cannot create `{}`", path.display())),
    }
}

/// Writes `value` to the control file `file` of the cgroup `dir`.
pub(super) fn set(dir: &Path, file: &str, value: &str) -> Result<()> {
    let path = dir.join(file);
    std::fs::write(&path, value).with_context(|| format!("cannot write `{}`", path.display()))
}

/// Removes the cgroups of arena runs that were killed before they could clean up (named
/// `arena-<pid>` for a process that no longer exists).
pub(super) fn remove_stale_cgroups() {
    let parents = [
        PathBuf::from("/sys/fs/cgroup/unified"),
        own_cgroup_v2(),
        own_cgroup_v1("memory"),
        own_cgroup_v1("pids"),
    ];
    for parent in parents {
        let Ok(entries) = std::fs::read_dir(&parent) else {
            continue;
        };
        for entry in entries.flatten() {
            if is_stale(&entry.file_name().to_string_lossy(), "arena-") {
                remove_cgroup(&entry.path());
            }
        }
    }
}

/// Whether `name` is `<prefix><pid>` or `<prefix><pid>-...` for a process that is gone.
pub fn is_stale(name: &str, prefix: &str) -> bool {
    let Some(rest) = name.strip_prefix(prefix) else {
        return false;
    };
    let pid = rest.split('-').next().unwrap_or("");
    match pid.parse::<u32>() {
        Ok(pid) => pid != std::process::id() && !Path::new(&format!("/proc/{pid}")).exists(),
        Err(_) => false,
    }
}

/// This process's cgroup in a v1 controller's hierarchy.
pub(super) fn own_cgroup_v1(controller: &str) -> PathBuf {
    let base = Path::new("/sys/fs/cgroup").join(controller);
    let own = std::fs::read_to_string("/proc/self/cgroup").unwrap_or_default();
    let rel = own.lines().find_map(|l| {
        let mut parts = l.splitn(3, ':');
        let (_, controllers, path) = (parts.next()?, parts.next()?, parts.next()?);
        controllers
            .split(',')
            .any(|c| c == controller)
            .then(|| path.trim_start_matches('/').to_string())
    });
    match rel {
        Some(rel) => base.join(rel),
        None => base,
    }
}

/// This process's cgroup in a pure v2 hierarchy mounted at /sys/fs/cgroup.
pub(super) fn own_cgroup_v2() -> PathBuf {
    let own = std::fs::read_to_string("/proc/self/cgroup").unwrap_or_default();
    let rel = own
        .lines()
        .find_map(|l| l.strip_prefix("0::"))
        .unwrap_or("/")
        .trim_start_matches('/')
        .to_string();
    Path::new("/sys/fs/cgroup").join(rel)
}

/// Creates `parent/name`, which must not exist yet.
pub(super) fn make_cgroup(parent: &Path, name: &str) -> Option<PathBuf> {
    let dir = parent.join(name);
    std::fs::create_dir(&dir).ok()?;
    Some(dir)
}

/// Removes a cgroup directory tree, waiting up to a second for its processes to die.
pub(super) fn remove_cgroup(dir: &Path) {
    // Only cgroup v2 has `cgroup.kill`; elsewhere the processes are gone with their game.
    let _ = std::fs::write(dir.join("cgroup.kill"), "1");
    if let Ok(entries) = std::fs::read_dir(dir) {
        for entry in entries.flatten() {
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                remove_cgroup(&entry.path());
            }
        }
    }
    for _ in 0..100 {
        if std::fs::remove_dir(dir).is_ok() || !dir.exists() {
            return;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_leftovers_of_dead_runs_are_stale() {
        let me = std::process::id();
        // pid_max is far below this, so no such process exists.
        assert!(is_stale("arena-4000000000", "arena-"));
        assert!(is_stale("arena-work-4000000000-1a2b3c4d", "arena-work-"));
        assert!(!is_stale(&format!("arena-{me}"), "arena-"));
        assert!(!is_stale("arena-1", "arena-"), "pid 1 is alive");
        assert!(!is_stale("arena-work-deadbeef", "arena-work-"));
        assert!(!is_stale("something-else", "arena-"));
    }

    #[test]
    fn a_v1_cgroup_path_follows_proc_self_cgroup() {
        // Whatever the machine, the path lies under the controller's mount point.
        assert!(own_cgroup_v1("memory").starts_with("/sys/fs/cgroup/memory"));
        assert!(own_cgroup_v2().starts_with("/sys/fs/cgroup"));
    }

    #[test]
    fn a_cage_freezes_through_its_open_file() {
        // A directory that mimics a cgroup v2 one: the cage writes `cgroup.freeze` in place.
        let dir = tempfile::tempdir().unwrap();
        let game = dir.path().join("game");
        std::fs::create_dir(&game).unwrap();
        std::fs::write(game.join("cgroup.procs"), "").unwrap();
        std::fs::write(game.join("cgroup.freeze"), "0").unwrap();
        let cage = Cage::new(Some(&game), None, None, None, 0).unwrap();
        assert!(cage.has_cgroup());
        cage.freeze(true);
        assert_eq!(
            std::fs::read_to_string(game.join("cgroup.freeze")).unwrap(),
            "1"
        );
        cage.freeze(false);
        assert_eq!(
            std::fs::read_to_string(game.join("cgroup.freeze")).unwrap(),
            "0"
        );
        assert_eq!(cage.procs_fds()[1], -1);
    }
}
