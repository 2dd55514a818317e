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
///
/// On cgroup v2 with controllers (v2-only machines, containers, delegated user subtrees) the
/// cage's own cgroup carries the bot's limits (`memory.max`, `memory.swap.max`, `pids.max`,
/// `cpu.max`), written before any process joins; on cgroup v1 the bot's per-jail memory, pids
/// and cpu cgroups do.
#[derive(Debug, Default)]
pub struct Cage {
    /// cgroup v2: the game's own cgroup, for `cgroup.kill` and `cgroup.freeze`.
    pub(super) cgroup: Option<CgroupDir>,
    /// `cgroup.freeze` of that cgroup, open for the cage's life: pausing a bot between its
    /// moves is then one `pwrite`.
    freeze: Option<std::sync::Arc<File>>,
    /// `cgroup.procs` of the bot's memory, pids and cpu cgroups (v1).
    pub(super) memory: Option<File>,
    pub(super) pids: Option<File>,
    pub(super) cpu: Option<File>,
    /// The bot's Landlock ruleset.
    pub(super) landlock: Option<OwnedFd>,
    pub(super) oom_kills_before: u64,
    /// Whether the memory limit is the cage's own `memory.max` (cgroup v2).
    v2_memory: bool,
    /// The sampler of the game's memory where no cgroup counts it; stopped (dropped) before
    /// the namespace is given back.
    memory_watch: Option<super::memory::Watch>,
    /// The game's namespaces (`namespace.rs`), given back to the jail (to be reset for its
    /// next game) when the cage is dropped, after everything in the cage was killed.
    pub(super) namespace: Option<super::pool::Lease>,
}

/// The control files a cage's cgroup gets before any process joins it, in this order.
pub(super) type CageLimits = Vec<(&'static str, String)>;

/// Where a cage's processes go: see [`Cage::new`].
#[derive(Debug, Default)]
pub(super) struct CageSpec<'a> {
    /// The game's cgroup v2 directory (created here).
    pub path: Option<&'a Path>,
    /// Control files to write in it first; non-empty means the cgroup is required.
    pub limits: CageLimits,
    /// The bot's v1 memory, pids and cpu cgroups.
    pub memory: Option<&'a Path>,
    pub pids: Option<&'a Path>,
    pub cpu: Option<&'a Path>,
}

impl Cage {
    /// A cage in the game cgroup `spec.path` (if any), its limits written before anything can
    /// join it, with the bot's other descriptors.
    pub(super) fn new(
        spec: CageSpec<'_>,
        landlock: Option<OwnedFd>,
        oom_kills_before: u64,
    ) -> Result<Cage> {
        let cgroup = match spec.path {
            // Limits on the cage itself: no cage, no game (never a game without its limits).
            Some(p) if !spec.limits.is_empty() => Some(CgroupDir::create_limited(p, &spec.limits)?),
            // Only for kill and freeze: without it the process group is killed instead.
            Some(p) => CgroupDir::create_limited(p, &[]).ok(),
            None => None,
        };
        let freeze = cgroup.as_ref().and_then(|cg| {
            std::fs::OpenOptions::new()
                .write(true)
                .open(cg.path.join("cgroup.freeze"))
                .ok()
                .map(std::sync::Arc::new)
        });
        let v2_memory = cgroup.is_some() && spec.limits.iter().any(|(f, _)| *f == "memory.max");
        Ok(Cage {
            cgroup,
            freeze,
            memory: spec.memory.map(open_procs).transpose()?,
            pids: spec.pids.map(open_procs).transpose()?,
            cpu: spec.cpu.map(open_procs).transpose()?,
            landlock,
            oom_kills_before,
            v2_memory,
            memory_watch: None,
            namespace: None,
        })
    }

    /// The open `cgroup.freeze` of the game's cgroup, for pausing a bot between its moves.
    pub fn freeze_file(&self) -> Option<std::sync::Arc<File>> {
        self.freeze.clone()
    }

    /// What stops, continues and kills every process of the game's PID namespace, when the
    /// game has one (the bot's helpers in sessions of their own included), for pausing a bot
    /// without a cgroup to freeze.
    pub fn namespace_signals(&self) -> Option<super::Signals> {
        let holder = self.namespace.as_ref()?;
        if holder.flags & libc::CLONE_NEWPID == 0 {
            return None;
        }
        holder.signals().ok()
    }

    /// Bounds the memory of all the game's processes together at `limit` by sampling it, when
    /// no cgroup counts it (neither the cage's `memory.max` nor `v1`, the bot's memory cgroup)
    /// and the game has a PID namespace with a `/proc` of its own.
    pub(super) fn watch_memory(&mut self, limit: u64, v1: bool) {
        if self.v2_memory || v1 {
            return;
        }
        let Some(holder) = self.namespace.as_ref().filter(|h| h.proc_mounted) else {
            return;
        };
        if let Some(signals) = self.namespace_signals() {
            let proc = holder.root().join("proc");
            self.memory_watch = super::memory::Watch::start(proc, limit, signals);
        }
    }

    /// The memory all the game's processes together held when the sampler found them over
    /// the limit (and killed them), if it did.
    pub fn memory_over(&self) -> Option<u64> {
        self.memory_watch.as_ref().and_then(|w| w.over())
    }

    /// Whether this cage can kill and freeze everything in it.
    pub fn has_cgroup(&self) -> bool {
        self.cgroup.is_some()
    }

    /// Whether the OOM killer killed a process of this bot since the cage was made: the
    /// cage's `memory.events` `oom_kill` count on cgroup v2, the bot's memory cgroup's
    /// `memory.oom_control` on v1.
    pub fn hit_memory_limit(&self, jail: &super::Jail) -> bool {
        match &self.cgroup {
            Some(cg) if self.v2_memory => {
                std::fs::read_to_string(cg.path.join("memory.events"))
                    .ok()
                    .and_then(|text| count(&text, "oom_kill"))
                    .unwrap_or(0)
                    > 0
            }
            _ => jail.oom_kills() > self.oom_kills_before,
        }
    }

    /// CPU time used so far by the processes of the cage's cgroup (v2 `cpu.stat`
    /// `usage_usec`), if it has one.
    pub fn cpu_usage(&self) -> Option<Duration> {
        let cg = self.cgroup.as_ref()?;
        let text = std::fs::read_to_string(cg.path.join("cpu.stat")).ok()?;
        count(&text, "usage_usec").map(Duration::from_micros)
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
    /// bot's memory, pids and cpu cgroups (`-1` for none).
    pub(super) fn procs_fds(&self) -> [RawFd; 4] {
        let fd = |f: Option<&File>| f.map_or(-1, |f| f.as_raw_fd());
        [
            fd(self.cgroup.as_ref().map(|c| &c.procs)),
            fd(self.memory.as_ref()),
            fd(self.pids.as_ref()),
            fd(self.cpu.as_ref()),
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

/// The number after `key ` in a flat-keyed cgroup file (`memory.events`, `cpu.stat`).
pub(super) fn count(text: &str, key: &str) -> Option<u64> {
    text.lines().find_map(|l| {
        let (k, v) = l.split_once(' ')?;
        (k == key).then(|| v.trim().parse().ok()).flatten()
    })
}

fn open_procs(dir: &Path) -> Result<File> {
    #[cfg(test)]
    trace::note(format!("open {}", dir.join("cgroup.procs").display()));
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
    /// Creates the directory (or takes the existing one), writes the control files `limits`
    /// in order, and only then opens its `cgroup.procs`.
    pub fn create_limited(path: &Path, limits: &[(&'static str, String)]) -> Result<CgroupDir> {
        make_dir(path)?;
        for (file, value) in limits {
            set(path, file, value)?;
        }
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
        Ok(()) => {
            #[cfg(test)]
            trace::made(path);
            Ok(())
        }
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(e).with_context(|| format!("cannot create `{}`", path.display())),
    }
}

/// Writes `value` to the control file `file` of the cgroup `dir`. The file must exist, as
/// the kernel makes it: a missing one means a missing controller, never a new file.
pub(super) fn set(dir: &Path, file: &str, value: &str) -> Result<()> {
    let path = dir.join(file);
    #[cfg(test)]
    trace::note(format!("write {} {value}", path.display()));
    std::fs::OpenOptions::new()
        .write(true)
        .truncate(true)
        .open(&path)
        .and_then(|mut f| std::io::Write::write_all(&mut f, value.as_bytes()))
        .with_context(|| format!("cannot write `{value}` to `{}`", path.display()))
}

/// Where the cgroup file systems are and which cgroups this process is in: the machine's
/// (`/sys/fs/cgroup`, `/proc/self/cgroup`), or in tests a directory tree that mimics them.
#[derive(Debug, Clone)]
pub struct CgroupEnv {
    /// Where the cgroup file systems are mounted (`/sys/fs/cgroup`).
    pub fs_root: PathBuf,
    /// The text of `/proc/self/cgroup`.
    pub self_cgroup: String,
    /// This process's id, moved into a leaf cgroup when its own cgroup must give controllers.
    pub pid: u32,
    /// The effective uid: root, or a user who may have a delegated cgroup v2 subtree.
    pub euid: u32,
}

impl CgroupEnv {
    /// This process on this machine.
    pub fn this_process() -> CgroupEnv {
        CgroupEnv {
            fs_root: PathBuf::from("/sys/fs/cgroup"),
            self_cgroup: std::fs::read_to_string("/proc/self/cgroup").unwrap_or_default(),
            pid: std::process::id(),
            euid: rustix::process::geteuid().as_raw(),
        }
    }

    /// Where cgroup v2 is mounted: `/sys/fs/cgroup` on a v2-only machine or in a container,
    /// `/sys/fs/cgroup/unified` on a hybrid one.
    pub fn v2_mount(&self) -> Option<PathBuf> {
        [self.fs_root.clone(), self.fs_root.join("unified")]
            .into_iter()
            .find(|d| d.join("cgroup.controllers").exists())
    }

    /// This process's cgroup v2 directory (`0::/path` in `/proc/self/cgroup`; `0::/` inside a
    /// container's cgroup namespace, where the container's cgroup is the mount's root).
    pub fn own_v2(&self) -> Option<PathBuf> {
        let rel = self
            .self_cgroup
            .lines()
            .find_map(|l| l.strip_prefix("0::"))?
            .trim_start_matches('/');
        Some(self.v2_mount()?.join(rel))
    }

    /// This process's cgroup in a v1 controller's hierarchy, if that controller is mounted.
    pub fn own_v1(&self, controller: &str) -> Option<PathBuf> {
        let base = self.fs_root.join(controller);
        let rel = self.self_cgroup.lines().find_map(|l| {
            let mut parts = l.splitn(3, ':');
            let (_, controllers, path) = (parts.next()?, parts.next()?, parts.next()?);
            controllers
                .split(',')
                .any(|c| c == controller)
                .then(|| path.trim_start_matches('/').to_string())
        })?;
        base.join("cgroup.procs").exists().then(|| base.join(rel))
    }
}

/// Removes the cgroups of arena runs that were killed before they could clean up (named
/// `arena-<pid>...` for a process that no longer exists).
pub(super) fn remove_stale_cgroups(env: &CgroupEnv) {
    let parents = [
        env.own_v2(),
        env.own_v1("memory"),
        env.own_v1("pids"),
        env.own_v1("cpu"),
    ];
    for parent in parents.into_iter().flatten() {
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

/// Whether `name` is `<prefix><pid>` or `<prefix><pid>-...` of a run that is gone: its
/// process is not visible and no working directory of it is held (see
/// [`super::liveness`]), so a live run in another PID namespace is never taken for dead.
pub fn is_stale(name: &str, prefix: &str) -> bool {
    let Some(rest) = name.strip_prefix(prefix) else {
        return false;
    };
    let pid = rest.split('-').next().unwrap_or("");
    match pid.parse::<u32>() {
        Ok(pid) => !super::liveness::run_alive(pid),
        Err(_) => false,
    }
}

/// Creates `parent/name`, which must not exist yet.
pub(super) fn make_cgroup(parent: &Path, name: &str) -> Option<PathBuf> {
    let dir = parent.join(name);
    std::fs::create_dir(&dir).ok()?;
    #[cfg(test)]
    trace::made(&dir);
    Some(dir)
}

/// Removes a cgroup directory tree, waiting up to a second for its processes to die.
pub(super) fn remove_cgroup(dir: &Path) {
    // Only cgroup v2 has `cgroup.kill`; elsewhere the processes are gone with their game.
    let _ = set(dir, "cgroup.kill", "1");
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

/// In tests: what was done to cgroup files, in order, and a stand-in for the kernel that
/// fills each new cgroup directory with its interface files.
#[cfg(test)]
pub(super) mod trace {
    use std::cell::{Cell, RefCell};
    use std::path::Path;

    thread_local! {
        static LOG: RefCell<Vec<String>> = const { RefCell::new(Vec::new()) };
        static KERNEL: Cell<Option<fn(&Path)>> = const { Cell::new(None) };
    }

    /// Records one step.
    pub fn note(step: String) {
        LOG.with(|l| l.borrow_mut().push(step));
    }

    /// Records a new directory and lets the stand-in kernel fill it.
    pub fn made(dir: &Path) {
        note(format!("mkdir {}", dir.display()));
        if let Some(kernel) = KERNEL.get() {
            kernel(dir);
        }
    }

    /// Installs a stand-in kernel for this thread and clears the log.
    pub fn start(kernel: fn(&Path)) {
        KERNEL.set(Some(kernel));
        LOG.with(|l| l.borrow_mut().clear());
    }

    /// The steps so far, with `base` cut from paths.
    pub fn steps(base: &Path) -> Vec<String> {
        let base = format!("{}/", base.display());
        LOG.with(|l| l.borrow().iter().map(|s| s.replace(&base, "")).collect())
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
    fn cgroup_paths_follow_proc_self_cgroup() {
        let env = CgroupEnv::this_process();
        // Whatever the machine, the paths lie under the controllers' mount points.
        if let Some(memory) = env.own_v1("memory") {
            assert!(memory.starts_with("/sys/fs/cgroup/memory"));
        }
        if let Some(own) = env.own_v2() {
            assert!(own.starts_with("/sys/fs/cgroup"));
        }
        let docker = CgroupEnv {
            fs_root: "/nonexistent".into(),
            self_cgroup: "0::/\n".into(),
            pid: 1,
            euid: 0,
        };
        assert_eq!(docker.own_v2(), None, "nothing mounted there");
        assert_eq!(count("oom 1\noom_kill 3\n", "oom_kill"), Some(3));
        assert_eq!(count("usage_usec 12\n", "oom_kill"), None);
    }

    #[test]
    fn a_cage_freezes_through_its_open_file() {
        // A directory that mimics a cgroup v2 one: the cage writes `cgroup.freeze` in place.
        let dir = tempfile::tempdir().unwrap();
        let game = dir.path().join("game");
        std::fs::create_dir(&game).unwrap();
        std::fs::write(game.join("cgroup.procs"), "").unwrap();
        std::fs::write(game.join("cgroup.freeze"), "0").unwrap();
        let spec = CageSpec {
            path: Some(&game),
            ..CageSpec::default()
        };
        let cage = Cage::new(spec, None, 0).unwrap();
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
