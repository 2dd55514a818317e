//! One bot's confinement ([`Jail`]: its uid, limits, cgroups, Landlock rules and the plan of
//! its namespaces) and what its processes do between `fork` and `exec` to enter it
//! ([`ChildSetup`]).
//!
//! A jail holds no file descriptor but of its idle namespace holders (kept between games,
//! see `namespace.rs`): what a process needs to enter it (a holder of the game's namespaces,
//! cgroup files, the Landlock ruleset) is taken or made per game, in the game's [`Cage`].

use std::ffi::CString;
use std::os::fd::{AsFd, AsRawFd, RawFd};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use anyhow::Result;

use super::cgroup::{Cage, CageLimits, CageSpec};
use super::landlock::Rules;
use super::pool::{landlock_of, Pool};
use super::seccomp::Filter;
use super::spawn::{spawn, Proc, SpawnSpec};
use super::spawner::{self, Raised, Room, Spawner};
use super::view::Plan;
use super::Limits;

/// The CPU limit of a game's spawner (its processes get their own): it is a process of the
/// game's whole length, and spends a few microseconds per move.
const SPAWNER_CPU_SECONDS: u64 = 24 * 3600;

/// One bot's confinement, shared by all its processes.
#[derive(Debug)]
pub struct Jail {
    pub(super) enabled: bool,
    pub(super) uid: Option<u32>,
    /// The bot's limits.
    pub limits: Limits,
    pub(super) landlock: Option<Rules>,
    /// The bot's memory, pids and cpu cgroup directories (v1).
    pub(super) memory: Option<PathBuf>,
    pub(super) pids: Option<PathBuf>,
    pub(super) cpu: Option<PathBuf>,
    /// The run's cgroup v2 directory, parent of the games' cages.
    pub(super) unified: Option<PathBuf>,
    /// The control files of each cage (cgroup v2 limits), written before a process joins.
    pub(super) cage_limits: CageLimits,
    pub(super) file_name: String,
    pub(super) netns: Option<RawFd>,
    /// The bot's file-system view and namespaces, built by a holder process.
    pub(super) plan: Option<Plan>,
    /// The holders of the bot's namespaces between its games (one per game at a time).
    pub(super) holders: Arc<Pool>,
    /// The system calls its processes may not make, installed right before `exec`.
    pub(super) seccomp: Option<&'static Filter>,
    /// The spawners (`spawner.rs`) its games have at the moment, each counted as one more
    /// process in its v1 pids cgroup.
    pub(super) spawners: Arc<Mutex<u32>>,
}

impl Jail {
    /// A cage for one game of this bot (`tag` names it, e.g. the game id): its cgroup, and
    /// the descriptors its processes need to enter the jail, held until the cage is closed.
    pub fn cage(&self, tag: &str) -> Result<Cage> {
        if !self.enabled {
            return Ok(Cage::default());
        }
        let path = self
            .unified
            .as_ref()
            .map(|root| root.join(format!("{}-{tag}", self.file_name)));
        let holder = self
            .plan
            .as_ref()
            .map(|plan| self.holders.take(plan))
            .transpose()?;
        let landlock = self
            .landlock
            .as_ref()
            .map(|rules| match &holder {
                Some(h) => Ok(landlock_of(h, rules)?.try_clone()?),
                None => rules.build(),
            })
            .transpose()?;
        let spec = CageSpec {
            path: path.as_deref(),
            kept: holder.as_ref().and_then(|h| h.take_cgroup()),
            limits: self.cage_limits.clone(),
            memory: self.memory.as_deref(),
            pids: self.pids.as_deref(),
            cpu: self.cpu.as_deref(),
        };
        let mut cage = Cage::new(spec, landlock, self.oom_kills())?;
        cage.namespace = holder;
        cage.watch_memory(self.limits.memory, self.memory.is_some());
        Ok(cage)
    }

    /// The memory cgroup's count of processes the OOM killer has killed.
    pub(super) fn oom_kills(&self) -> u64 {
        self.memory
            .as_ref()
            .and_then(|cg| std::fs::read_to_string(cg.join("memory.oom_control")).ok())
            .and_then(|text| {
                text.lines()
                    .find_map(|l| l.strip_prefix("oom_kill "))
                    .and_then(|n| n.trim().parse().ok())
            })
            .unwrap_or(0)
    }

    /// Before each per-move process of a game (`argv`, `stdin`): at the game's
    /// [`spawner::FROM_MOVE`]th, starts its spawner (see `spawner.rs`) when the game has a PID
    /// namespace of its own; `cwd` is the bot's directory, `stderr` the game's log. A spawner
    /// that cannot start leaves the game's processes to start from arena.
    pub fn prepare_move(&self, cage: &mut Cage, cwd: &CString, stderr: RawFd) {
        cage.moves += 1;
        if cage.spawner.as_ref().is_some_and(|s| !s.alive()) {
            cage.spawner = None;
        }
        let own_pid_namespace = cage
            .namespace
            .as_ref()
            .is_some_and(|h| h.flags & libc::CLONE_NEWPID != 0);
        if cage.moves != spawner::FROM_MOVE || !own_pid_namespace || !spawner::usable() {
            return;
        }
        let Some(setup) = self.child_setup(cage, SPAWNER_CPU_SECONDS) else {
            return;
        };
        let raise = |file: PathBuf, spawners| Raised {
            file,
            limit: self.limits.max_procs,
            spawners,
        };
        // Its bot's v1 pids cgroup, shared by its games at once; its game's v2 cgroup.
        let v1 = self
            .pids
            .as_ref()
            .map(|dir| (dir.join("pids.max"), Arc::clone(&self.spawners)));
        let v2 = cage.cgroup_dir().filter(|_| self.v2_pids());
        let v2 = v2.map(|dir| (dir.join("pids.max"), Arc::default()));
        let raised = v1.into_iter().chain(v2).map(|(f, n)| raise(f, n)).collect();
        let Ok(room) = Room::make(raised) else {
            return;
        };
        let landlock = cage.landlock.as_ref().map(|fd| fd.as_fd());
        cage.spawner = Spawner::start(setup, landlock, cwd, stderr, room).ok();
    }

    /// Whether its games' cgroups (v2) count their processes (`pids.max`).
    fn v2_pids(&self) -> bool {
        self.cage_limits.iter().any(|(f, _)| *f == "pids.max")
    }

    /// Starts a process of this jail in `cage` with a CPU limit of `cpu_seconds`: through the
    /// game's spawner when it has one that takes it, else from arena.
    pub fn start(
        &self,
        cage: &mut Cage,
        spec: &SpawnSpec<'_>,
        cpu_seconds: u64,
    ) -> std::io::Result<Proc> {
        if let Some(spawner) = &cage.spawner {
            match spawner.spawn(spec, cpu_seconds) {
                Some(started) => return started,
                None if !spawner.alive() => cage.spawner = None,
                None => {}
            }
        }
        spawn(&SpawnSpec {
            setup: self.child_setup(cage, cpu_seconds),
            ..*spec
        })
    }

    /// What the child must do before `exec`, for a process of this jail in `cage`; `None`
    /// without a sandbox (the process then starts by the faster `posix_spawn`).
    pub fn child_setup(&self, cage: &Cage, cpu_seconds: u64) -> Option<ChildSetup> {
        if !self.enabled {
            return None;
        }
        let mut rlimits = vec![
            (libc::RLIMIT_CPU, cpu_seconds, cpu_seconds + 1),
            (
                libc::RLIMIT_FSIZE,
                self.limits.max_output,
                self.limits.max_output,
            ),
            (libc::RLIMIT_CORE, 0, 0),
        ];
        let v2_memory = self.cage_limits.iter().any(|(f, _)| *f == "memory.max");
        if self.memory.is_none() && !v2_memory {
            rlimits.push((libc::RLIMIT_AS, self.limits.memory, self.limits.memory));
        }
        if self.uid.is_some() {
            let n = u64::from(self.limits.max_procs);
            rlimits.push((libc::RLIMIT_NPROC, n, n));
        } else if self.plan.as_ref().is_some_and(Plan::user) && cage.namespace.is_some() {
            // In a user namespace of its own the kernel counts a uid's processes per
            // namespace: the game's holder and the bot's processes only.
            let n = u64::from(self.limits.max_procs) + 1;
            rlimits.push((libc::RLIMIT_NPROC, n, n));
        }
        let (ns, ns_flags) = cage
            .namespace
            .as_ref()
            .map_or((-1, 0), |h| (h.pidfd.as_raw_fd(), h.flags));
        let mut setup = ChildSetup {
            cgroups: cage.procs_fds(),
            rlimits: [(0, 0, 0); 5],
            rlimit_count: rlimits.len(),
            // The jail's namespaces bring their own network namespace (or the host's).
            netns: if ns >= 0 {
                -1
            } else {
                self.netns.unwrap_or(-1)
            },
            ns,
            ns_flags,
            uid: self.uid,
            landlock: cage.landlock.as_ref().map_or(-1, |fd| fd.as_raw_fd()),
            seccomp: self.seccomp,
        };
        for (slot, limit) in setup.rlimits.iter_mut().zip(rlimits) {
            *slot = limit;
        }
        Some(setup)
    }
}

/// `KEYCTL_JOIN_SESSION_KEYRING` of `<linux/keyctl.h>`.
const KEYCTL_JOIN_SESSION_KEYRING: libc::c_long = 1;

/// What a child process does between `fork` and `exec`: only raw system calls on values
/// prepared by the parent (no allocation, no locks), so it is safe in a multi-threaded parent.
#[derive(Debug, Clone, Copy)]
pub struct ChildSetup {
    /// Open files to join by writing `0`: the game's cgroup's `cgroup.procs`, the bot's
    /// memory, pids and cpu cgroups' `tasks` (see [`Cage`]).
    cgroups: [RawFd; 4],
    rlimits: [(libc::__rlimit_resource_t, u64, u64); 5],
    rlimit_count: usize,
    netns: RawFd,
    /// A pidfd of the game's namespace holder and the namespaces to join through it.
    ns: RawFd,
    ns_flags: libc::c_int,
    uid: Option<u32>,
    landlock: RawFd,
    seccomp: Option<&'static Filter>,
}

impl ChildSetup {
    /// Whether the child must start the bot as a child of its own: it enters a game's PID
    /// namespace, and `setns` puts only processes created after it there.
    pub fn needs_intermediate(&self) -> bool {
        self.ns >= 0 && self.ns_flags & libc::CLONE_NEWPID != 0
    }

    /// Without a user namespace (as root) the parent may enter the game's PID namespace
    /// itself for the one clone (it is per thread, and for children only): then the bot is
    /// started directly. The holder's pidfd to enter it with, if so.
    pub fn parent_pid_namespace(&self) -> Option<RawFd> {
        (self.needs_intermediate() && self.ns_flags & libc::CLONE_NEWUSER == 0).then_some(self.ns)
    }

    /// This setup for a game's spawner: Landlock left to it (it restricts itself after `exec`,
    /// as the view does not show arena's executable), and one more process for it in
    /// `RLIMIT_NPROC`, which its processes inherit.
    pub(super) fn for_spawner(mut self) -> Self {
        self.landlock = -1;
        for (resource, soft, hard) in &mut self.rlimits[..self.rlimit_count] {
            if *resource == libc::RLIMIT_NPROC {
                *soft += 1;
                *hard += 1;
            }
        }
        self
    }

    /// This setup for a child whose parent has entered the PID namespace for it.
    pub fn in_parent_pid_namespace(mut self) -> Self {
        self.ns_flags &= !libc::CLONE_NEWPID;
        self
    }

    /// The first half of the setup, while still root and in arena's namespaces: join the
    /// cgroups, then the game's namespaces (a PID namespace for the children only).
    pub fn enter(&self) -> std::io::Result<()> {
        // SAFETY: plain system calls on file descriptors owned by the parent and inherited
        // across clone; nothing allocates or takes a lock.
        unsafe {
            for fd in self.cgroups {
                if fd >= 0 && libc::write(fd, b"0".as_ptr().cast(), 1) != 1 {
                    return Err(std::io::Error::last_os_error());
                }
            }
            if self.ns >= 0 && libc::setns(self.ns, self.ns_flags) != 0 {
                return Err(std::io::Error::last_os_error());
            }
        }
        Ok(())
    }

    /// The second half, in the process that execs the bot: limits, the uid change, then
    /// the restrictions (Landlock, a fresh session keyring, the seccomp filter last). Order
    /// matters: drop to the bot's uid, then restrict.
    pub fn apply(&self) -> std::io::Result<()> {
        // SAFETY: each call is a plain system call on integers and file descriptors owned by
        // the parent and inherited across fork; nothing allocates or takes a lock. The uid and
        // gid changes are raw system calls, not libc's wrappers: in a child sharing the
        // parent's memory (vfork) glibc would broadcast them to the parent's threads.
        unsafe {
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
                if libc::syscall(libc::SYS_setgroups, 0usize, std::ptr::null::<libc::gid_t>()) != 0
                    || libc::syscall(libc::SYS_setresgid, uid, uid, uid) != 0
                    || libc::syscall(libc::SYS_setresuid, uid, uid, uid) != 0
                {
                    return Err(std::io::Error::last_os_error());
                }
            }
            // If arena dies, its bots die with it (the uid change above would clear this).
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
            if (self.landlock >= 0 || self.seccomp.is_some())
                && libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0
            {
                return Err(std::io::Error::last_os_error());
            }
            if self.landlock >= 0
                && libc::syscall(libc::SYS_landlock_restrict_self, self.landlock, 0) != 0
            {
                return Err(std::io::Error::last_os_error());
            }
            // A fresh, empty session keyring: the one inherited from arena (a login
            // session's) holds the operator's keys and would be shared by every bot. A kernel
            // without keyrings (ENOSYS) has nothing to share.
            if libc::syscall(
                libc::SYS_keyctl,
                KEYCTL_JOIN_SESSION_KEYRING,
                std::ptr::null::<libc::c_char>(),
            ) < 0
                && *libc::__errno_location() != libc::ENOSYS
            {
                return Err(std::io::Error::last_os_error());
            }
            // Last: after it, the calls above (keyctl among them) are denied.
            if let Some(filter) = self.seccomp {
                filter.install()?;
            }
        }
        Ok(())
    }
}
