//! The sandbox around bot processes: a jail per game of each bot (PID, mount, IPC and network
//! namespaces with a view of the file system built from nothing, in a user namespace when
//! arena is not root), resource limits, cgroups, Landlock as a second layer, a uid per bot, a
//! seccomp deny list and a fresh session keyring per process. Builds run in it as moves do.
//!
//! The machine is probed once ([`Sandbox::probe`]); each bot gets a [`Jail`] (its uid, its
//! Landlock rules, its memory and process-count cgroups, the plan of its view); each game of a
//! bot gets a [`Cage`] (a cgroup v2 that is killed and removed when the game ends, and frozen
//! while the opponent thinks, the holder process of the game's namespaces, taken from the
//! jail's idle holders and given back to be reset for the bot's next game, and the
//! descriptors the game's processes need to enter the jail). Everything that can be prepared
//! is prepared in the parent: the child only makes raw system calls between `fork` and `exec`
//! (see [`ChildSetup::apply`]).

mod cgroup;
mod cgroup_v2;
pub mod factory;
mod jail;
mod landlock;
pub mod liveness;
mod memory;
mod message;
mod namespace;
mod pool;
mod protections;
mod reset;
mod seccomp;
mod size;
pub mod spawn;
mod spawner;
pub mod uids;
mod view;

use std::ffi::CString;
use std::fs::File;
use std::os::fd::{AsRawFd, OwnedFd};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

pub use self::cgroup::{is_stale, Cage, CgroupEnv};
pub use self::jail::{ChildSetup, Jail};
pub use self::landlock::is_system_path;
pub use self::namespace::Signals;
pub use self::protections::Protection;
pub use self::size::{parse_size, size};

/// The first thing arena's `main` does: if this process was started as a jail factory or a
/// game's spawner (arena's own executable, started again), it serves as one and exits.
pub fn main_if_asked() {
    factory::main_if_asked();
    spawner::main_if_asked();
}

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
    /// CPUs all the bot's processes may use together, in thousandths (`1000`: one CPU).
    pub milli_cpus: u32,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            memory: 512 << 20,
            max_procs: 64,
            max_output: 64 << 20,
            milli_cpus: 1000,
        }
    }
}

/// The first of the unprivileged uids bots run as when arena runs as root: bot `i` of the
/// tournament runs as `BASE_UID + i`.
pub const BASE_UID: u32 = 61000;

/// Cgroup directories arena created for this run, removed at the end.
#[derive(Debug, Default)]
struct Roots {
    /// cgroup v2: one child per game of a bot (its cage), for `cgroup.kill` and
    /// `cgroup.freeze`, and for the limits of the controllers enabled there.
    unified: Option<cgroup_v2::V2Run>,
    /// cgroup v1 `memory`, `pids` and `cpu` controllers, for what v2 does not give: one child
    /// per bot (instance).
    memory: Option<PathBuf>,
    pids: Option<PathBuf>,
    cpu: Option<PathBuf>,
}

/// What the sandbox can do on this machine, probed once per tournament.
#[derive(Debug)]
pub struct Sandbox {
    /// `false` with `--no-sandbox`: bots run as plain processes in their own process group.
    pub enabled: bool,
    /// The limits every bot gets unless its manifest overrides them.
    pub limits: Limits,
    /// Whether bots may use the network (`--allow-network`).
    pub allow_network: bool,
    roots: Roots,
    landlock: Option<::landlock::ABI>,
    netns: Option<OwnedFd>,
    /// The uids of this run's bots (as root): a block no other run uses while this one lives.
    uids: Option<uids::UidBlock>,
    /// Whether bots get namespace jails (`namespace.rs`), and why not.
    namespaces: Result<(), String>,
    /// The system calls bots may not make (`seccomp.rs`).
    seccomp: Option<&'static seccomp::Filter>,
    /// What this machine gives and lacks, for `arena doctor` and the start of a run.
    pub protections: Vec<Protection>,
}

impl Sandbox {
    /// Probes the machine and creates this run's cgroup directories.
    pub fn probe(limits: Limits, allow_network: bool) -> Sandbox {
        Sandbox::probe_in(limits, allow_network, &CgroupEnv::this_process())
    }

    /// [`Sandbox::probe`] with the cgroups of `env` (in tests, a tree that mimics cgroupfs).
    pub fn probe_in(limits: Limits, allow_network: bool, env: &CgroupEnv) -> Sandbox {
        // Root as far as the machine and `env` agree (tests play other users).
        let root = rustix::process::geteuid().is_root() && env.euid == 0;
        let (v2, v2_missing) = probe_cgroups_v2(env);
        // cgroup v1 controllers (root only) for what cgroup v2 does not give.
        let tag = v2.as_ref().map_or_else(run_tag, |v2| file_name_of(&v2.dir));
        let v1 = |controller: &str| {
            let in_v2 = v2.as_ref().is_some_and(|v2| v2.has(controller));
            (env.euid == 0 && !in_v2)
                .then(|| cgroup::make_cgroup(&env.own_v1(controller)?, &tag))
                .flatten()
        };
        let (memory, pids, cpu) = (v1("memory"), v1("pids"), v1("cpu"));
        let landlock = landlock::landlock_abi();
        let jail = namespace::probe(allow_network);
        let filter = seccomp::Filter::get();
        // Without a jail, root still gets an empty network namespace shared by all bots.
        let netns = (root && !allow_network && jail.is_err())
            .then(empty_netns)
            .flatten();
        let uids = root
            .then(|| {
                uids::UidBlock::acquire(&uids::lock_dir())
                    .map_err(|e| eprintln!("warning: {e:#}; bots run without a uid of their own"))
                    .ok()
            })
            .flatten();
        let protections = protections::protections(&protections::Found {
            limits,
            allow_network,
            root,
            unified: &v2,
            v2_missing: &v2_missing,
            memory: &memory,
            pids: &pids,
            cpu: &cpu,
            landlock,
            netns: netns.is_some(),
            jail: &jail,
            seccomp: filter.map(|_| ()),
        });
        Sandbox {
            enabled: true,
            limits,
            allow_network,
            roots: Roots {
                unified: v2,
                memory,
                pids,
                cpu,
            },
            landlock,
            netns,
            uids,
            namespaces: jail.map(|_| ()),
            seccomp: filter.ok(),
            protections,
        }
    }

    /// No sandbox (`--no-sandbox`, for trusted bots): time limits and process groups only.
    pub fn disabled(limits: Limits) -> Sandbox {
        Sandbox {
            enabled: false,
            limits,
            allow_network: true,
            roots: Roots::default(),
            landlock: None,
            netns: None,
            uids: None,
            namespaces: Err("off (--no-sandbox)".into()),
            seccomp: None,
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

    /// Prepares the jail of bot number `index`, whose private copy is `workdir`. The jail
    /// keeps no file descriptor open: each game's [`Cage`] opens what its processes need.
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
                cpu: None,
                unified: None,
                cage_limits: Vec::new(),
                file_name: file_name.to_string(),
                netns: None,
                plan: None,
                holders: Default::default(),
                seccomp: None,
                spawners: Default::default(),
            });
        }
        let uid = self.uids.as_ref().map(|b| b.uid(index)).transpose()?;
        if let Some(uid) = uid {
            chown_tree(workdir, uid)?;
            // Only its owner may enter a bot's directory, whatever Landlock does.
            std::fs::set_permissions(workdir, std::os::unix::fs::PermissionsExt::from_mode(0o700))
                .with_context(|| format!("cannot set the mode of `{}`", workdir.display()))?;
        }
        let memory = match &self.roots.memory {
            Some(root) => {
                let dir = root.join(file_name);
                cgroup::make_dir(&dir)?;
                cgroup::set(&dir, "memory.limit_in_bytes", &limits.memory.to_string())?;
                Some(dir)
            }
            None => None,
        };
        let pids = match &self.roots.pids {
            Some(root) => {
                let dir = root.join(file_name);
                cgroup::make_dir(&dir)?;
                cgroup::set(&dir, "pids.max", &limits.max_procs.to_string())?;
                Some(dir)
            }
            None => None,
        };
        let cpu = match &self.roots.cpu {
            Some(root) => {
                let dir = root.join(file_name);
                cgroup::make_dir(&dir)?;
                let period = cgroup_v2::CPU_PERIOD_US.to_string();
                cgroup::set(&dir, "cpu.cfs_period_us", &period)?;
                let quota = cgroup_v2::cpu_quota_us(limits.milli_cpus).to_string();
                cgroup::set(&dir, "cpu.cfs_quota_us", &quota)?;
                Some(dir)
            }
            None => None,
        };
        let landlock = self.landlock.map(|abi| landlock::Rules {
            abi,
            workdir: workdir.to_owned(),
            extra_read: extra_read.to_vec(),
            allow_network: self.allow_network,
            jail_root: None,
        });
        if let Some(rules) = &landlock {
            // Built once here so that a bad rule stops the bot before its first game.
            drop(rules.build()?);
        }
        Ok(Jail {
            enabled: true,
            uid,
            limits,
            landlock,
            memory,
            pids,
            cpu,
            unified: self.roots.unified.as_ref().map(|v2| v2.dir.clone()),
            cage_limits: self
                .roots
                .unified
                .as_ref()
                .map_or_else(Vec::new, |v2| v2.cage_limits(&limits)),
            file_name: file_name.to_string(),
            netns: self.netns.as_ref().map(|fd| fd.as_raw_fd()),
            plan: self
                .namespaces
                .is_ok()
                .then(|| view::Plan::new(workdir, extra_read, self.allow_network)),
            holders: Default::default(),
            seccomp: self.seccomp,
            spawners: Default::default(),
        })
    }

    /// Removes this run's cgroup directories and empties its uids' keyrings (all games must
    /// have ended).
    pub fn cleanup(&self) {
        if let Some(uids) = &self.uids {
            uids.empty_keyrings();
        }
        let v2 = self.roots.unified.as_ref().map(|v2| &v2.dir);
        for dir in [v2, self.roots.memory.as_ref(), self.roots.pids.as_ref()]
            .into_iter()
            .chain([self.roots.cpu.as_ref()])
            .flatten()
        {
            cgroup::remove_cgroup(dir);
        }
    }
}

/// The name of this run's cgroups: `arena-<pid>`, then `arena-<pid>-<n>` for later probes
/// of the same process (tests probe many times).
fn run_tag() -> String {
    static PROBES: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    match PROBES.fetch_add(1, std::sync::atomic::Ordering::Relaxed) {
        0 => format!("arena-{}", std::process::id()),
        n => format!("arena-{}-{n}", std::process::id()),
    }
}

fn file_name_of(dir: &Path) -> String {
    dir.file_name()
        .map_or_else(run_tag, |n| n.to_string_lossy().into_owned())
}

/// The run's cgroup v2, if it is of any use (it can kill, or it has controllers), and why a
/// wanted controller is missing from it (or why there is none).
fn probe_cgroups_v2(env: &CgroupEnv) -> (Option<cgroup_v2::V2Run>, Vec<(&'static str, String)>) {
    if env.euid == 0 {
        cgroup::remove_stale_cgroups(env);
    }
    match cgroup_v2::set_up(env, &run_tag()) {
        Ok(v2) if v2.kill || !v2.controllers.is_empty() => {
            let missing = v2.missing.clone();
            (Some(v2), missing)
        }
        Ok(v2) => {
            cgroup::remove_cgroup(&v2.dir);
            (
                None,
                vec![("kill", "cgroup v2 has no `cgroup.kill` (Linux 5.14)".into())],
            )
        }
        Err(why) => (
            None,
            cgroup_v2::WANTED
                .into_iter()
                .chain(["kill"])
                .map(|c| (c, why.clone()))
                .collect(),
        ),
    }
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
