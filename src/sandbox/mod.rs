//! The sandbox around bot processes: resource limits, cgroups that leave no survivors,
//! Landlock file-system and network isolation, a network namespace and a uid per bot.
//!
//! The machine is probed once ([`Sandbox::probe`]); each bot gets a [`Jail`] (its uid, its
//! Landlock ruleset, its memory and process-count cgroups); each game of a bot gets a [`Cage`]
//! (a cgroup v2 that is killed and removed when the game ends, and frozen while the opponent
//! thinks). Everything that can be prepared is prepared in the parent: the child only makes
//! raw system calls between `fork` and `exec` (see [`ChildSetup::apply`]).

pub mod spawn;

use std::ffi::CString;
use std::fs::File;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, Result};

/// Limits for every bot, overridable per bot in `bot.toml`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Memory of all the bot's processes together (a cgroup), or of each process (address
    /// space) where cgroups are not available.
    pub memory: u64,
    /// Processes (and threads) the bot may have at once.
    pub max_procs: u32,
    /// The largest file a bot process may write, and the most stderr it may write in a game.
    pub max_output: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            memory: 512 << 20,
            max_procs: 64,
            max_output: 64 << 20,
        }
    }
}

/// The first of the unprivileged uids bots run as when arena runs as root: bot `i` of the
/// tournament runs as `BASE_UID + i`.
pub const BASE_UID: u32 = 61000;

/// A protection and whether this machine gives it.
#[derive(Debug, Clone)]
pub struct Protection {
    pub name: &'static str,
    pub active: bool,
    /// How it is done, or why it is not.
    pub detail: String,
}

/// Cgroup directories arena created for this run, removed at the end.
#[derive(Debug)]
struct Roots {
    /// cgroup v2 (unified): one child per game of a bot, for `cgroup.kill` and `cgroup.freeze`.
    unified: Option<PathBuf>,
    /// cgroup v1 `memory` and `pids` controllers (or v2 ones, where enabled): one child per bot.
    memory: Option<PathBuf>,
    pids: Option<PathBuf>,
}

/// What the sandbox can do on this machine, probed once per tournament.
#[derive(Debug)]
pub struct Sandbox {
    /// `false` with `--no-sandbox`: bots run as plain processes in their own process group.
    pub enabled: bool,
    pub limits: Limits,
    pub allow_network: bool,
    roots: Roots,
    landlock: Option<landlock::ABI>,
    netns: Option<OwnedFd>,
    root: bool,
    pub protections: Vec<Protection>,
}

impl Sandbox {
    /// Probes the machine and creates this run's cgroup directories.
    pub fn probe(limits: Limits, allow_network: bool) -> Sandbox {
        let root = rustix::process::geteuid().is_root();
        if root {
            remove_stale_cgroups();
        }
        let tag = format!("arena-{}", std::process::id());
        let unified = root
            .then(|| make_cgroup(Path::new("/sys/fs/cgroup/unified"), &tag))
            .flatten()
            .filter(|d| d.join("cgroup.kill").exists())
            .or_else(|| {
                // A pure cgroup v2 machine mounts the unified hierarchy at /sys/fs/cgroup.
                root.then(|| make_cgroup(&own_cgroup_v2(), &tag))
                    .flatten()
                    .filter(|d| d.join("cgroup.kill").exists())
            });
        let memory = root
            .then(|| make_cgroup(&own_cgroup_v1("memory"), &tag))
            .flatten();
        let pids = root
            .then(|| make_cgroup(&own_cgroup_v1("pids"), &tag))
            .flatten();
        let landlock = landlock_abi();
        let netns = (root && !allow_network).then(empty_netns).flatten();

        let mut protections = vec![
            Protection {
                name: "no survivors",
                active: unified.is_some(),
                detail: match &unified {
                    Some(d) => format!("a cgroup per game, killed with `cgroup.kill` ({})", d.display()),
                    None if !root => "needs root for cgroups; falling back to killing the process group, which misses processes that call setsid()".into(),
                    None => "no cgroup v2 with `cgroup.kill`; falling back to killing the process group, which misses processes that call setsid()".into(),
                },
            },
            Protection {
                name: "memory limit",
                active: true,
                detail: match &memory {
                    Some(_) => format!("{} per bot (memory cgroup; the OOM killer's kills are reported)", size(limits.memory)),
                    None => format!("{} of address space per process (RLIMIT_AS: no memory cgroup without root)", size(limits.memory)),
                },
            },
            Protection {
                name: "process limit",
                active: pids.is_some() || root,
                detail: match (&pids, root) {
                    (Some(_), _) => format!("{} per bot (pids cgroup and RLIMIT_NPROC of its own uid)", limits.max_procs),
                    (None, true) => format!("{} per bot (RLIMIT_NPROC of its own uid)", limits.max_procs),
                    (None, false) => "needs root: RLIMIT_NPROC would count all of the user's processes".into(),
                },
            },
            Protection {
                name: "cpu, file size, core limits",
                active: true,
                detail: format!("RLIMIT_CPU per process, RLIMIT_FSIZE {}, no core dumps", size(limits.max_output)),
            },
            Protection {
                name: "uid per bot",
                active: root,
                detail: if root {
                    format!("bot i runs as uid {BASE_UID}+i: it cannot signal arena or other bots")
                } else {
                    "needs root: bots run as the user running arena".into()
                },
            },
            Protection {
                name: "file-system isolation",
                active: landlock.is_some(),
                detail: match landlock {
                    Some(abi) => format!("Landlock ({abi:?}): read-only system directories, read-write only the bot's own directory; no /proc"),
                    None => "Landlock is not available: bots can read whatever the user running arena can".into(),
                },
            },
            Protection {
                name: "network off",
                active: allow_network || netns.is_some() || landlock.is_some_and(|a| a >= landlock::ABI::V4),
                detail: if allow_network {
                    "off: --allow-network".into()
                } else {
                    match (&netns, landlock.is_some_and(|a| a >= landlock::ABI::V4)) {
                        (Some(_), true) => "an empty network namespace, and Landlock denies TCP".into(),
                        (Some(_), false) => "an empty network namespace".into(),
                        (None, true) => "Landlock denies TCP connect and bind (UDP is not covered without root's network namespace)".into(),
                        (None, false) => "neither a network namespace (needs root) nor Landlock TCP rules are available".into(),
                    }
                },
            },
            Protection {
                name: "signals",
                active: root || landlock.is_some_and(|a| a >= landlock::ABI::V6),
                detail: if landlock.is_some_and(|a| a >= landlock::ABI::V6) {
                    "Landlock scopes signals and abstract sockets to the bot's own processes".into()
                } else if root {
                    "bots run under their own uid".into()
                } else {
                    "bots run as the user running arena and can signal its processes".into()
                },
            },
        ];
        protections.push(Protection {
            name: "opponent paused",
            active: true,
            detail: if unified.is_some() {
                "turn-based `lines` bots are frozen (`cgroup.freeze`) while the opponent thinks".into()
            } else {
                "turn-based `lines` bots are stopped (SIGSTOP to the process group) while the opponent thinks".into()
            },
        });
        Sandbox {
            enabled: true,
            limits,
            allow_network,
            roots: Roots {
                unified,
                memory,
                pids,
            },
            landlock,
            netns,
            root,
            protections,
        }
    }

    /// No sandbox (`--no-sandbox`, for trusted bots): time limits and process groups only.
    pub fn disabled(limits: Limits) -> Sandbox {
        Sandbox {
            enabled: false,
            limits,
            allow_network: true,
            roots: Roots {
                unified: None,
                memory: None,
                pids: None,
            },
            landlock: None,
            netns: None,
            root: false,
            protections: vec![Protection {
                name: "sandbox",
                active: false,
                detail: "off (--no-sandbox): bots run as plain processes with your rights; only the time limits and process-group kills apply".into(),
            }],
        }
    }

    /// A one-line summary for the start of a run, and warnings for what is missing.
    pub fn summary(&self) -> (String, Vec<String>) {
        let active: Vec<&str> = self
            .protections
            .iter()
            .filter(|p| p.active)
            .map(|p| p.name)
            .collect();
        let warnings = self
            .protections
            .iter()
            .filter(|p| !p.active)
            .map(|p| format!("sandbox: no {}: {}", p.name, p.detail))
            .collect();
        (format!("sandbox: {}", active.join(", ")), warnings)
    }

    /// Prepares the jail of bot number `index`, whose private copy is `workdir`.
    pub fn jail(
        &self,
        index: usize,
        file_name: &str,
        workdir: &Path,
        limits: Limits,
        extra_read: &[PathBuf],
    ) -> Result<Jail> {
        if !self.enabled {
            return Ok(Jail {
                enabled: false,
                uid: None,
                limits,
                landlock: None,
                memory: None,
                pids: None,
                unified: None,
                file_name: file_name.to_string(),
                netns: None,
            });
        }
        let uid = self.root.then(|| BASE_UID + index as u32);
        if let Some(uid) = uid {
            chown_tree(workdir, uid)?;
            // Only its owner may enter a bot's directory, whatever Landlock does.
            std::fs::set_permissions(workdir, std::os::unix::fs::PermissionsExt::from_mode(0o700))
                .with_context(|| format!("cannot set the mode of `{}`", workdir.display()))?;
        }
        let memory = match &self.roots.memory {
            Some(root) => {
                let cg = CgroupDir::create(&root.join(file_name))?;
                cg.set("memory.limit_in_bytes", &limits.memory.to_string())?;
                Some(cg)
            }
            None => None,
        };
        let pids = match &self.roots.pids {
            Some(root) => {
                let cg = CgroupDir::create(&root.join(file_name))?;
                cg.set("pids.max", &limits.max_procs.to_string())?;
                Some(cg)
            }
            None => None,
        };
        let landlock = match self.landlock {
            Some(abi) => Some(landlock_ruleset(
                abi,
                workdir,
                extra_read,
                self.allow_network,
            )?),
            None => None,
        };
        Ok(Jail {
            enabled: true,
            uid,
            limits,
            landlock,
            memory,
            pids,
            unified: self.roots.unified.clone(),
            file_name: file_name.to_string(),
            netns: self.netns.as_ref().map(|fd| fd.as_raw_fd()),
        })
    }

    /// Removes this run's cgroup directories (all games must have ended).
    pub fn cleanup(&self) {
        for dir in [&self.roots.unified, &self.roots.memory, &self.roots.pids]
            .into_iter()
            .flatten()
        {
            remove_cgroup(dir);
        }
    }
}

/// One bot's confinement, shared by all its processes.
#[derive(Debug)]
pub struct Jail {
    enabled: bool,
    uid: Option<u32>,
    pub limits: Limits,
    landlock: Option<OwnedFd>,
    memory: Option<CgroupDir>,
    pids: Option<CgroupDir>,
    unified: Option<PathBuf>,
    file_name: String,
    netns: Option<RawFd>,
}

impl Jail {
    /// A cage for one game of this bot (`tag` names it, e.g. the game id).
    pub fn cage(&self, tag: &str) -> Cage {
        let cgroup = self.unified.as_ref().and_then(|root| {
            CgroupDir::create(&root.join(format!("{}-{tag}", self.file_name))).ok()
        });
        Cage {
            cgroup,
            oom_kills_before: self.oom_kills(),
        }
    }

    /// The memory cgroup's count of processes the OOM killer has killed.
    fn oom_kills(&self) -> u64 {
        self.memory
            .as_ref()
            .and_then(|cg| std::fs::read_to_string(cg.path.join("memory.oom_control")).ok())
            .and_then(|text| {
                text.lines()
                    .find_map(|l| l.strip_prefix("oom_kill "))
                    .and_then(|n| n.trim().parse().ok())
            })
            .unwrap_or(0)
    }

    /// What the child must do before `exec`, for a process of this jail in `cage`; `None`
    /// without a sandbox (the process then starts by the faster `posix_spawn`).
    pub fn child_setup(&self, cage: Option<&Cage>, cpu_seconds: u64) -> Option<ChildSetup> {
        if !self.enabled {
            return None;
        }
        let fd = |cg: Option<&CgroupDir>| cg.map_or(-1, |c| c.procs.as_raw_fd());
        let mut rlimits = vec![
            (libc::RLIMIT_CPU, cpu_seconds, cpu_seconds + 1),
            (
                libc::RLIMIT_FSIZE,
                self.limits.max_output,
                self.limits.max_output,
            ),
            (libc::RLIMIT_CORE, 0, 0),
        ];
        if self.memory.is_none() {
            rlimits.push((libc::RLIMIT_AS, self.limits.memory, self.limits.memory));
        }
        if self.uid.is_some() {
            let n = u64::from(self.limits.max_procs);
            rlimits.push((libc::RLIMIT_NPROC, n, n));
        }
        let mut setup = ChildSetup {
            cgroups: [-1; 3],
            rlimits: [(0, 0, 0); 5],
            rlimit_count: rlimits.len(),
            netns: self.netns.unwrap_or(-1),
            uid: self.uid,
            landlock: self.landlock.as_ref().map_or(-1, |fd| fd.as_raw_fd()),
        };
        setup.cgroups = [
            fd(cage.and_then(|c| c.cgroup.as_ref())),
            fd(self.memory.as_ref()),
            fd(self.pids.as_ref()),
        ];
        for (slot, limit) in setup.rlimits.iter_mut().zip(rlimits) {
            *slot = limit;
        }
        Some(setup)
    }
}

/// The cgroup of one game of one bot.
#[derive(Debug)]
pub struct Cage {
    cgroup: Option<CgroupDir>,
    oom_kills_before: u64,
}

impl Cage {
    /// Whether this cage can kill and freeze everything in it.
    pub fn has_cgroup(&self) -> bool {
        self.cgroup.is_some()
    }

    /// Kills every process in the cage (setsid() and double forks included).
    pub fn kill(&self) {
        if let Some(cg) = &self.cgroup {
            let _ = cg.set("cgroup.kill", "1");
        }
    }

    /// Freezes (`true`) or thaws every process in the cage.
    pub fn freeze(&self, frozen: bool) {
        if let Some(cg) = &self.cgroup {
            let _ = cg.set("cgroup.freeze", if frozen { "1" } else { "0" });
        }
    }

    /// Whether the OOM killer killed a process of this bot since the cage was made.
    pub fn hit_memory_limit(&self, jail: &Jail) -> bool {
        jail.oom_kills() > self.oom_kills_before
    }

    /// Kills everything left and removes the cgroup, waiting briefly for it to empty.
    pub fn close(self) {
        if let Some(cg) = &self.cgroup {
            let _ = cg.set("cgroup.freeze", "0");
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

/// A cgroup directory with its `cgroup.procs` open for children to join.
#[derive(Debug)]
struct CgroupDir {
    path: PathBuf,
    procs: File,
}

impl CgroupDir {
    fn create(path: &Path) -> Result<CgroupDir> {
        match std::fs::create_dir(path) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(e).with_context(|| format!("cannot create `{}`", path.display())),
        }
        let procs = std::fs::OpenOptions::new()
            .write(true)
            .open(path.join("cgroup.procs"))
            .with_context(|| format!("cannot open `{}/cgroup.procs`", path.display()))?;
        Ok(CgroupDir {
            path: path.to_owned(),
            procs,
        })
    }

    fn set(&self, file: &str, value: &str) -> Result<()> {
        let path = self.path.join(file);
        std::fs::write(&path, value).with_context(|| format!("cannot write `{}`", path.display()))
    }
}

/// What a child process does between `fork` and `exec`: only raw system calls on values
/// prepared by the parent (no allocation, no locks), so it is safe in a multi-threaded parent.
#[derive(Debug, Clone, Copy)]
pub struct ChildSetup {
    /// Open `cgroup.procs` files to join: the game's cgroup, the bot's memory and pids cgroups.
    cgroups: [RawFd; 3],
    rlimits: [(libc::__rlimit_resource_t, u64, u64); 5],
    rlimit_count: usize,
    netns: RawFd,
    uid: Option<u32>,
    landlock: RawFd,
}

impl ChildSetup {
    /// Applies the setup to the calling process. Order matters: join cgroups and enter the
    /// network namespace while still root, then drop to the bot's uid, then restrict.
    pub fn apply(&self) -> std::io::Result<()> {
        // SAFETY: each call is a plain system call on integers and file descriptors owned by
        // the parent and inherited across fork; nothing allocates or takes a lock.
        unsafe {
            for fd in self.cgroups {
                if fd >= 0 && libc::write(fd, b"0".as_ptr().cast(), 1) != 1 {
                    return Err(std::io::Error::last_os_error());
                }
            }
            for &(resource, soft, hard) in &self.rlimits[..self.rlimit_count] {
                let limit = libc::rlimit {
                    rlim_cur: soft,
                    rlim_max: hard,
                };
                if libc::setrlimit(resource, &limit) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
            }
            if self.netns >= 0 && libc::setns(self.netns, libc::CLONE_NEWNET) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            if let Some(uid) = self.uid {
                if libc::setgroups(0, std::ptr::null()) != 0
                    || libc::setgid(uid) != 0
                    || libc::setuid(uid) != 0
                {
                    return Err(std::io::Error::last_os_error());
                }
            }
            // If arena dies, its bots die with it (the uid change above would clear this).
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
            if self.landlock >= 0
                && (libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0
                    || libc::syscall(libc::SYS_landlock_restrict_self, self.landlock, 0) != 0)
            {
                return Err(std::io::Error::last_os_error());
            }
        }
        Ok(())
    }
}

/// The directories a bot may read (and run programs from): the system's.
const SYSTEM_DIRS: [&str; 9] = [
    "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt",
];

/// Whether `path` lies in the system directories every bot may read.
pub fn is_system_path(path: &Path) -> bool {
    SYSTEM_DIRS.iter().any(|d| path.starts_with(d))
}

/// Devices a bot may read and write.
const DEVICES: [&str; 5] = [
    "/dev/null",
    "/dev/zero",
    "/dev/full",
    "/dev/random",
    "/dev/urandom",
];

fn landlock_abi() -> Option<landlock::ABI> {
    // SAFETY: landlock_create_ruleset with LANDLOCK_CREATE_RULESET_VERSION only returns a
    // number; it takes no pointer it would write through.
    let version = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<u8>(),
            0usize,
            1u32, // LANDLOCK_CREATE_RULESET_VERSION
        )
    };
    match version {
        v if v >= 7 => Some(landlock::ABI::V6),
        6 => Some(landlock::ABI::V6),
        5 => Some(landlock::ABI::V5),
        4 => Some(landlock::ABI::V4),
        3 => Some(landlock::ABI::V3),
        2 => Some(landlock::ABI::V2),
        1 => Some(landlock::ABI::V1),
        _ => None,
    }
}

/// A Landlock ruleset for one bot, as a file descriptor its children restrict themselves with.
fn landlock_ruleset(
    abi: landlock::ABI,
    workdir: &Path,
    extra_read: &[PathBuf],
    allow_network: bool,
) -> Result<OwnedFd> {
    use landlock::{
        path_beneath_rules, Access, AccessFs, AccessNet, Ruleset, RulesetAttr, RulesetCreatedAttr,
        Scope,
    };
    let existing = |paths: Vec<PathBuf>| -> Vec<PathBuf> {
        paths.into_iter().filter(|p| p.exists()).collect()
    };
    let mut ruleset = Ruleset::default().handle_access(AccessFs::from_all(abi))?;
    if !allow_network && abi >= landlock::ABI::V4 {
        ruleset = ruleset.handle_access(AccessNet::from_all(abi))?;
    }
    if abi >= landlock::ABI::V6 {
        ruleset = ruleset.scope(Scope::from_all(abi))?;
    }
    let mut read: Vec<PathBuf> = SYSTEM_DIRS.iter().map(PathBuf::from).collect();
    read.extend(extra_read.iter().cloned());
    let created = ruleset
        .create()?
        .add_rules(path_beneath_rules(existing(read), AccessFs::from_read(abi)))?
        .add_rules(path_beneath_rules(
            existing(DEVICES.iter().map(PathBuf::from).collect()),
            AccessFs::from_read(abi) | AccessFs::WriteFile,
        ))?
        .add_rules(path_beneath_rules([workdir], AccessFs::from_all(abi)))?;
    Option::<OwnedFd>::from(created).context("the Landlock ruleset has no file descriptor")
}

/// An empty network namespace (no interface but a downed loopback), shared by all bots.
fn empty_netns() -> Option<OwnedFd> {
    // unshare() moves only the calling thread, so a short-lived thread does it and hands back
    // a handle on the new namespace.
    std::thread::spawn(|| {
        // SAFETY: unshare() takes only flags; this thread does nothing else before it ends.
        if unsafe { libc::unshare(libc::CLONE_NEWNET) } != 0 {
            return None;
        }
        File::open("/proc/thread-self/ns/net")
            .ok()
            .map(OwnedFd::from)
    })
    .join()
    .ok()
    .flatten()
}

/// Removes the cgroups of arena runs that were killed before they could clean up (named
/// `arena-<pid>` for a process that no longer exists).
fn remove_stale_cgroups() {
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
fn own_cgroup_v1(controller: &str) -> PathBuf {
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
fn own_cgroup_v2() -> PathBuf {
    let own = std::fs::read_to_string("/proc/self/cgroup").unwrap_or_default();
    let rel = own
        .lines()
        .find_map(|l| l.strip_prefix("0::"))
        .unwrap_or("/")
        .trim_start_matches('/')
        .to_string();
    Path::new("/sys/fs/cgroup").join(rel)
}

fn make_cgroup(parent: &Path, name: &str) -> Option<PathBuf> {
    let dir = parent.join(name);
    std::fs::create_dir(&dir).ok()?;
    Some(dir)
}

/// Removes a cgroup directory tree, waiting up to a second for its processes to die.
fn remove_cgroup(dir: &Path) {
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

/// Gives a bot's private copy to its uid.
fn chown_tree(dir: &Path, uid: u32) -> Result<()> {
    let path = CString::new(dir.as_os_str().as_encoded_bytes())?;
    // SAFETY: lchown on a NUL-terminated path; it does not follow symbolic links.
    if unsafe { libc::lchown(path.as_ptr(), uid, uid) } != 0 {
        return Err(std::io::Error::last_os_error())
            .with_context(|| format!("cannot give `{}` to uid {uid}", dir.display()));
    }
    if dir.is_dir() && !dir.is_symlink() {
        for entry in
            std::fs::read_dir(dir).with_context(|| format!("cannot list `{}`", dir.display()))?
        {
            chown_tree(&entry?.path(), uid)?;
        }
    }
    Ok(())
}

/// A byte count for people: `512 MiB`.
pub fn size(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["B", "KiB", "MiB", "GiB"];
    let mut value = bytes;
    let mut unit = 0;
    while unit < 3 && value >= 1024 && value.is_multiple_of(1024) {
        value /= 1024;
        unit += 1;
    }
    format!("{value} {}", UNITS[unit])
}

/// Parses a size such as `512MiB`, `64M`, `1G` or `1000` (bytes).
pub fn parse_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    let n: u64 = number.parse().map_err(|_| {
        format!("`{text}` is not a size (say `512MiB`, `64M` or a number of bytes)")
    })?;
    let scale: u64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kb" | "kib" => 1 << 10,
        "m" | "mb" | "mib" => 1 << 20,
        "g" | "gb" | "gib" => 1 << 30,
        _ => return Err(format!("`{text}` has an unknown unit (use K, M or G)")),
    };
    n.checked_mul(scale)
        .ok_or_else(|| format!("`{text}` is too large"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_and_print() {
        assert_eq!(parse_size("512MiB"), Ok(512 << 20));
        assert_eq!(parse_size("64M"), Ok(64 << 20));
        assert_eq!(parse_size("1g"), Ok(1 << 30));
        assert_eq!(parse_size("1000"), Ok(1000));
        assert!(parse_size("lots")
            .unwrap_err()
            .contains("`lots` is not a size"));
        assert!(parse_size("5T").unwrap_err().contains("unknown unit"));
        assert_eq!(size(512 << 20), "512 MiB");
        assert_eq!(size(1000), "1000 B");
    }

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
}
