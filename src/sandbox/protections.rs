//! The protections the sandbox gives or lacks on this machine, as `arena doctor` and the
//! start of a run list them.

use std::path::PathBuf;

use super::size::size;
use super::{Limits, BASE_UID};

/// A protection and whether this machine gives it.
#[derive(Debug, Clone)]
pub struct Protection {
    /// What it protects against, e.g. `no survivors`.
    pub name: &'static str,
    /// Whether this machine gives it.
    pub active: bool,
    /// How it is done, or why it is not.
    pub detail: String,
}

/// What the probe found, for describing the protections.
pub(super) struct Found<'a> {
    pub limits: Limits,
    pub allow_network: bool,
    pub root: bool,
    pub unified: &'a Option<PathBuf>,
    pub memory: &'a Option<PathBuf>,
    pub pids: &'a Option<PathBuf>,
    pub landlock: Option<landlock::ABI>,
    pub netns: bool,
    /// The namespace jail: `Ok(whether its /proc is fresh)`, or why there is none.
    pub jail: &'a Result<bool, String>,
}

/// The protections, in the order `arena doctor` lists them.
pub(super) fn protections(found: &Found<'_>) -> Vec<Protection> {
    let Found {
        limits,
        allow_network,
        root,
        unified,
        memory,
        pids,
        landlock,
        netns,
        jail,
    } = *found;
    let jailed = jail.is_ok();
    let netns = netns || (jailed && !allow_network);
    let no_jail = || match jail {
        Ok(_) => String::new(),
        Err(why) => format!(" (no namespace jail: {why})"),
    };
    let mut protections = vec![
        Protection {
            name: "no survivors",
            active: unified.is_some() || jailed,
            detail: match (unified, jailed) {
                (Some(d), true) => format!("a PID namespace per game of each bot, ended with the game or with arena (even by SIGKILL), and a cgroup per game killed with `cgroup.kill` ({})", d.display()),
                (None, true) => "a PID namespace per game of each bot, ended with the game or with arena (even by SIGKILL)".into(),
                (Some(d), false) => format!("a cgroup per game, killed with `cgroup.kill` ({}); after SIGKILL of arena, processes that call setsid() live until the next run{}", d.display(), no_jail()),
                (None, false) => format!("no PID namespace and no cgroup v2 with `cgroup.kill`; falling back to killing the process group, which misses processes that call setsid(){}", no_jail()),
            },
        },
        Protection {
            name: "process isolation",
            active: jailed,
            detail: if jailed {
                format!("a PID namespace per game of each bot: it sees{} and signals only its own processes", if matches!(jail, Ok(true)) { " (in its own /proc)" } else { "" })
            } else {
                format!("bots share arena's PID namespace{}", no_jail())
            },
        },
        Protection {
            name: "private ipc",
            active: jailed,
            detail: if jailed {
                "an IPC namespace per game of each bot: SysV and POSIX IPC are private and gone with the game".into()
            } else {
                format!("bots share the host's SysV IPC objects{}", no_jail())
            },
        },
        Protection {
            name: "memory limit",
            active: true,
            detail: match memory {
                Some(_) => format!("{} per bot (memory cgroup; the OOM killer's kills are reported)", size(limits.memory)),
                None => format!("{} of address space per process (RLIMIT_AS: no memory cgroup without root)", size(limits.memory)),
            },
        },
        Protection {
            name: "process limit",
            active: pids.is_some() || root || jailed,
            detail: match (pids, root) {
                (None, false) if jailed => format!("{} per bot and game (RLIMIT_NPROC, counted by the kernel per user namespace: each game of a bot has its own)", limits.max_procs),
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
                "needs root: bots run as the user running arena (mapped to itself in a user namespace of their own, without its capabilities, where there is a jail)".into()
            },
        },
        Protection {
            name: "file-system isolation",
            active: landlock.is_some() || jailed,
            detail: match (jailed, landlock) {
                (true, Some(abi)) => format!("a mount namespace per game of each bot, built from nothing: read-only system directories, its own copy, the shared directories, a private {} /tmp, its own /proc; Landlock ({abi:?}) as a second layer", size(super::view::TMP_SIZE)),
                (true, None) => format!("a mount namespace per game of each bot, built from nothing: read-only system directories, its own copy, the shared directories, a private {} /tmp, its own /proc (no Landlock)", size(super::view::TMP_SIZE)),
                (false, Some(abi)) => format!("Landlock ({abi:?}): read-only system directories, read-write only the bot's own directory; no /proc; but stat() and listing work outside{}", no_jail()),
                (false, None) => format!("Landlock is not available: bots can read whatever the user running arena can{}", no_jail()),
            },
        },
        Protection {
            name: "network off",
            active: allow_network || netns || landlock.is_some_and(|a| a >= landlock::ABI::V4),
            detail: if allow_network {
                "off: --allow-network".into()
            } else {
                match (netns, landlock.is_some_and(|a| a >= landlock::ABI::V4)) {
                    (true, true) => format!("an empty network namespace{}, and Landlock denies TCP", if jailed { " per game" } else { "" }),
                    (true, false) => format!("an empty network namespace{}", if jailed { " per game" } else { "" }),
                    (false, true) => "Landlock denies TCP connect and bind (UDP is not covered without root's network namespace)".into(),
                    (false, false) => "neither a network namespace (needs root) nor Landlock TCP rules are available".into(),
                }
            },
        },
        Protection {
            name: "signals",
            active: root || jailed || landlock.is_some_and(|a| a >= landlock::ABI::V6),
            detail: if jailed {
                "bots see and signal only the processes of their own PID namespace".into()
            } else if landlock.is_some_and(|a| a >= landlock::ABI::V6) {
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
    protections
}
