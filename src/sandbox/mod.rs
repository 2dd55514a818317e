//! The sandbox around bot processes: a jail per game of each bot (PID, mount, IPC and network
//! namespaces with a view of the file system built from nothing, in a user namespace when
//! arena is not root), resource limits, cgroups, Landlock as a second layer, a uid per bot.
//!
//! The machine is probed once ([`Sandbox::probe`]); each bot gets a [`Jail`] (its uid, its
//! Landlock rules, its memory and process-count cgroups, the plan of its view); each game of a
//! bot gets a [`Cage`] (a cgroup v2 that is killed and removed when the game ends, and frozen
//! while the opponent thinks, the holder process of the game's namespaces, and the
//! descriptors the game's processes need to enter the jail). Everything that can be prepared
//! is prepared in the parent: the child only makes raw system calls between `fork` and `exec`
//! (see [`ChildSetup::apply`]).

mod cgroup;
mod jail;
mod landlock;
mod namespace;
mod protections;
mod size;
pub mod spawn;
mod view;

use std::ffi::CString;
use std::fs::File;
use std::os::fd::{AsRawFd, OwnedFd};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

pub use self::cgroup::{is_stale, Cage};
pub use self::jail::{ChildSetup, Jail};
pub use self::landlock::is_system_path;
pub use self::protections::Protection;
pub use self::size::{parse_size, size};

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

/// Cgroup directories arena created for this run, removed at the end.
#[derive(Debug, Default)]
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
    /// The limits every bot gets unless its manifest overrides them.
    pub limits: Limits,
    /// Whether bots may use the network (`--allow-network`).
    pub allow_network: bool,
    roots: Roots,
    landlock: Option<::landlock::ABI>,
    netns: Option<OwnedFd>,
    /// Whether bots get namespace jails (`namespace.rs`), and why not.
    namespaces: Result<(), String>,
    root: bool,
    /// What this machine gives and lacks, for `arena doctor` and the start of a run.
    pub protections: Vec<Protection>,
}

impl Sandbox {
    /// Probes the machine and creates this run's cgroup directories.
    pub fn probe(limits: Limits, allow_network: bool) -> Sandbox {
        let root = rustix::process::geteuid().is_root();
        if root {
            cgroup::remove_stale_cgroups();
        }
        let tag = format!("arena-{}", std::process::id());
        let unified = root
            .then(|| cgroup::make_cgroup(Path::new("/sys/fs/cgroup/unified"), &tag))
            .flatten()
            .filter(|d| d.join("cgroup.kill").exists())
            .or_else(|| {
                // A pure cgroup v2 machine mounts the unified hierarchy at /sys/fs/cgroup.
                root.then(|| cgroup::make_cgroup(&cgroup::own_cgroup_v2(), &tag))
                    .flatten()
                    .filter(|d| d.join("cgroup.kill").exists())
            });
        let memory = root
            .then(|| cgroup::make_cgroup(&cgroup::own_cgroup_v1("memory"), &tag))
            .flatten();
        let pids = root
            .then(|| cgroup::make_cgroup(&cgroup::own_cgroup_v1("pids"), &tag))
            .flatten();
        let landlock = landlock::landlock_abi();
        let jail = namespace::probe(allow_network);
        // Without a jail, root still gets an empty network namespace shared by all bots.
        let netns = (root && !allow_network && jail.is_err())
            .then(empty_netns)
            .flatten();
        let protections = protections::protections(&protections::Found {
            limits,
            allow_network,
            root,
            unified: &unified,
            memory: &memory,
            pids: &pids,
            landlock,
            netns: netns.is_some(),
            jail: &jail,
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
            namespaces: jail.map(|_| ()),
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
            roots: Roots::default(),
            landlock: None,
            netns: None,
            namespaces: Err("off (--no-sandbox)".into()),
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
                unified: None,
                file_name: file_name.to_string(),
                netns: None,
                plan: None,
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
            unified: self.roots.unified.clone(),
            file_name: file_name.to_string(),
            netns: self.netns.as_ref().map(|fd| fd.as_raw_fd()),
            plan: self
                .namespaces
                .is_ok()
                .then(|| view::Plan::new(workdir, extra_read, self.allow_network)),
        })
    }

    /// Removes this run's cgroup directories (all games must have ended).
    pub fn cleanup(&self) {
        for dir in [&self.roots.unified, &self.roots.memory, &self.roots.pids]
            .into_iter()
            .flatten()
        {
            cgroup::remove_cgroup(dir);
        }
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
