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
    pub(super) cgroup: Option<GameCgroup>,
    /// `tasks` of the bot's memory, pids and cpu cgroups (v1): a new process, single-threaded
    /// until it execs, joins through it by writing `0`, which moves only the calling thread and
    /// so spares the kernel the machine-wide lock that moving a whole process through
    /// `cgroup.procs` takes (it holds up every `fork` meanwhile, other games' included).
    pub(super) memory: Option<File>,
    pub(super) pids: Option<File>,
    pub(super) cpu: Option<File>,
    /// The bot's Landlock ruleset.
    pub(super) landlock: Option<OwnedFd>,
    pub(super) oom_kills_before: u64,
    /// The `oom_kill` count of the game cgroup's `memory.events` when the game began (a
    /// cgroup kept from the bot's last game has its counts).
    oom_kills_before_v2: u64,
    /// Whether the memory limit is the cage's own `memory.max` (cgroup v2).
    v2_memory: bool,
    /// The sampler of the game's memory where no cgroup counts it; stopped (dropped) before
    /// the namespace is given back.
    memory_watch: Option<super::memory::Watch>,
    /// The game's namespaces (`namespace.rs`), given back to the jail (to be reset for its
    /// next game) when the cage is dropped, after everything in the cage was killed.
    pub(super) namespace: Option<super::pool::Lease>,
    /// The per-move processes the game has started, and its spawner (`spawner.rs`), ended
    /// before the rest of the cage.
    pub(super) moves: u32,
    pub(super) spawner: Option<super::spawner::Spawner>,
}

/// The control files a cage's cgroup gets before any process joins it, in this order.
pub(super) type CageLimits = Vec<(&'static str, String)>;

/// Where a cage's processes go: see [`Cage::new`].
#[derive(Debug, Default)]
pub(super) struct CageSpec<'a> {
    /// The game's cgroup v2 directory (created here), unless `kept` is given.
    pub path: Option<&'a Path>,
    /// A game cgroup kept with the game's namespace holder, emptied, with `limits` written.
    pub kept: Option<GameCgroup>,
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
        let cgroup = match (spec.kept, spec.path) {
            (Some(kept), _) => Some(kept),
            // Limits on the cage itself: no cage, no game (never a game without its limits).
            (None, Some(p)) if !spec.limits.is_empty() => Some(GameCgroup::open(
                CgroupDir::create_limited(p, &spec.limits)?,
            )),
            // Only for kill and freeze: without it the process group is killed instead.
            (None, Some(p)) => CgroupDir::create_limited(p, &[]).ok().map(GameCgroup::open),
            (None, None) => None,
        };
        let v2_memory = cgroup.is_some() && spec.limits.iter().any(|(f, _)| *f == "memory.max");
        let oom_kills_before_v2 = match &cgroup {
            Some(cg) if v2_memory => cg.oom_kills(),
            _ => 0,
        };
        Ok(Cage {
            cgroup,
            oom_kills_before_v2,
            memory: spec.memory.map(open_tasks).transpose()?,
            pids: spec.pids.map(open_tasks).transpose()?,
            cpu: spec.cpu.map(open_tasks).transpose()?,
            landlock,
            oom_kills_before,
            v2_memory,
            memory_watch: None,
            namespace: None,
            moves: 0,
            spawner: None,
        })
    }

    /// The game's own cgroup (v2), if it has one.
    pub(super) fn cgroup_dir(&self) -> Option<&Path> {
        self.cgroup.as_ref().map(|cg| cg.dir.path.as_path())
    }

    /// The open `cgroup.freeze` of the game's cgroup, for pausing a bot between its moves.
    pub fn freeze_file(&self) -> Option<std::sync::Arc<File>> {
        self.cgroup.as_ref().and_then(|cg| cg.freeze.clone())
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

    /// The game cgroup's directory.
    #[cfg(test)]
    pub(super) fn cgroup_path(&self) -> Option<&Path> {
        self.cgroup.as_ref().map(|cg| cg.dir.path.as_path())
    }

    /// Whether the OOM killer killed a process of this bot since the cage was made: the
    /// cage's `memory.events` `oom_kill` count on cgroup v2, the bot's memory cgroup's
    /// `memory.oom_control` on v1.
    pub fn hit_memory_limit(&self, jail: &super::Jail) -> bool {
        match &self.cgroup {
            Some(cg) if self.v2_memory => cg.oom_kills() > self.oom_kills_before_v2,
            _ => jail.oom_kills() > self.oom_kills_before,
        }
    }

    /// CPU time used so far by the processes of the cage's cgroup (v2 `cpu.stat`
    /// `usage_usec`), if it has one: since the cgroup was made (the bot's earlier games in
    /// it included).
    pub fn cpu_usage(&self) -> Option<Duration> {
        let cg = self.cgroup.as_ref()?;
        let text = std::fs::read_to_string(cg.dir.path.join("cpu.stat")).ok()?;
        count(&text, "usage_usec").map(Duration::from_micros)
    }

    /// Kills every process in the cage (setsid() and double forks included).
    pub fn kill(&self) {
        if let Some(cg) = &self.cgroup {
            cg.kill();
        }
    }

    /// Freezes (`true`) or thaws every process in the cage.
    pub fn freeze(&self, frozen: bool) {
        if let Some(file) = self.cgroup.as_ref().and_then(|cg| cg.freeze.as_ref()) {
            let _ = file.write_at(if frozen { b"1" } else { b"0" }, 0);
        }
    }

    /// The descriptors a child writes itself into: the game's cgroup's `cgroup.procs`, the
    /// bot's memory, pids and cpu cgroups' `tasks` (`-1` for none).
    pub(super) fn procs_fds(&self) -> [RawFd; 4] {
        let fd = |f: Option<&File>| f.map_or(-1, |f| f.as_raw_fd());
        [
            fd(self.cgroup.as_ref().map(|c| &c.dir.procs)),
            fd(self.memory.as_ref()),
            fd(self.pids.as_ref()),
            fd(self.cpu.as_ref()),
        ]
    }

    /// Kills everything left; then keeps the cgroup, empty, with the game's namespace holder
    /// for the bot's next game there, or removes it, waiting briefly for it to empty.
    pub fn close(mut self) {
        drop(self.spawner.take());
        self.freeze(false);
        self.kill();
        if let Some(cg) = self.cgroup.take() {
            match &self.namespace {
                Some(holder) if cg.is_empty() => holder.keep_cgroup(cg),
                _ => cg.remove(),
            }
        }
    }
}

impl Drop for Cage {
    fn drop(&mut self) {
        // A game abandoned half-way (Ctrl-C) leaves nothing behind either.
        drop(self.spawner.take());
        self.kill();
    }
}

/// A game's cgroup v2 directory with the files a cage keeps open. A game played in a jail's
/// namespace holder leaves it, emptied, with the holder (see `pool.rs`) for the bot's next
/// game there: a `mkdir`, an `rmdir` and four `open`s fewer a game. It goes with the holder.
#[derive(Debug)]
pub struct GameCgroup {
    dir: CgroupDir,
    /// `cgroup.freeze`: pausing a bot between its moves is one `pwrite`.
    freeze: Option<std::sync::Arc<File>>,
    /// `cgroup.kill`: a per-move bot's game kills what each move left with one `pwrite`.
    kill: Option<File>,
    /// `cgroup.events`, read to tell the cgroup is empty.
    events: Option<File>,
}

impl GameCgroup {
    fn open(dir: CgroupDir) -> GameCgroup {
        let open = |name: &str, write: bool| {
            std::fs::OpenOptions::new()
                .read(!write)
                .write(write)
                .open(dir.path.join(name))
                .ok()
        };
        GameCgroup {
            freeze: open("cgroup.freeze", true).map(std::sync::Arc::new),
            kill: open("cgroup.kill", true),
            events: open("cgroup.events", false),
            dir,
        }
    }

    fn kill(&self) {
        match &self.kill {
            Some(file) => {
                let _ = file.write_at(b"1", 0);
            }
            None => {
                let _ = self.dir.set("cgroup.kill", "1");
            }
        }
    }

    /// Whether no process is left in it, not even one on its way out (`populated 0`).
    fn is_empty(&self) -> bool {
        let Some(events) = &self.events else {
            return false;
        };
        let mut buf = [0u8; 256];
        let n = events.read_at(&mut buf, 0).unwrap_or(0);
        std::str::from_utf8(&buf[..n]).is_ok_and(|text| count(text, "populated") == Some(0))
    }

    /// The `oom_kill` count of its `memory.events`.
    fn oom_kills(&self) -> u64 {
        std::fs::read_to_string(self.dir.path.join("memory.events"))
            .ok()
            .and_then(|text| count(&text, "oom_kill"))
            .unwrap_or(0)
    }

    /// Kills what is left and removes the directory, waiting briefly for it to empty.
    fn remove(self) {
        self.kill();
        // Bots make no cgroups (none is in their view): the cgroup is one directory, which
        // goes at once unless a process is still on its way out.
        if std::fs::remove_dir(&self.dir.path).is_err() {
            remove_cgroup(&self.dir.path);
        }
    }
}

impl Drop for GameCgroup {
    /// With its holder (or an abandoned game): kills what is left and removes the directory if
    /// it can at once; what cannot goes with the run's cgroups at its end.
    fn drop(&mut self) {
        self.kill();
        let _ = std::fs::remove_dir(&self.dir.path);
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
    open_join_file(dir, "cgroup.procs")
}

/// A v1 cgroup's `tasks`, for a single-threaded process to join with `0` (see [`Cage`]).
fn open_tasks(dir: &Path) -> Result<File> {
    open_join_file(dir, "tasks")
}

fn open_join_file(dir: &Path, name: &str) -> Result<File> {
    #[cfg(test)]
    trace::note(format!("open {}", dir.join(name).display()));
    std::fs::OpenOptions::new()
        .write(true)
        .open(dir.join(name))
        .with_context(|| format!("cannot open `{}/{name}`", dir.display()))
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
#[path = "cgroup_tests.rs"]
mod tests;
