//! The protections the sandbox gives or lacks on this machine, as `arena doctor` and the
//! start of a run list them.

use std::path::PathBuf;

use super::cgroup_v2::V2Run;
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
    /// The run's cgroup v2 and the controllers its cages get.
    pub unified: &'a Option<V2Run>,
    /// Why cgroup v2 lacks a controller (`memory`, `pids`, `cpu`) or `kill`.
    pub v2_missing: &'a [(&'static str, String)],
    pub memory: &'a Option<PathBuf>,
    pub pids: &'a Option<PathBuf>,
    pub cpu: &'a Option<PathBuf>,
    pub landlock: Option<landlock::ABI>,
    pub netns: bool,
    /// The namespace jail: `Ok(whether its /proc is fresh)`, or why there is none.
    pub jail: &'a Result<bool, String>,
    /// The seccomp filter, or why there is none.
    pub seccomp: Result<(), &'a str>,
}

/// The protections, in the order `arena doctor` lists them.
pub(super) fn protections(found: &Found<'_>) -> Vec<Protection> {
    let Found {
        limits,
        allow_network,
        root,
        unified,
        v2_missing,
        memory,
        pids,
        cpu,
        landlock,
        netns,
        jail,
        seccomp,
    } = *found;
    let v2 = |c: &str| unified.as_ref().is_some_and(|v2| v2.has(c));
    // Why cgroup v2 does not give `c`, for the details of a fallback.
    let why = |c: &str| {
        v2_missing
            .iter()
            .find(|(m, _)| *m == c)
            .map_or_else(|| "no cgroup v2 controller".to_string(), |(_, w)| w.clone())
    };
    let jailed = jail.is_ok();
    let netns = netns || (jailed && !allow_network);
    let no_jail = || match jail {
        Ok(_) => String::new(),
        Err(why) => format!(" (no namespace jail: {why})"),
    };
    let delegated = unified.as_ref().is_some_and(|v2| v2.delegated);
    let kill = unified.as_ref().filter(|v2| v2.kill);
    let killed = |v2: &super::cgroup_v2::V2Run| {
        format!(
            "a cgroup v2 per game, killed with `cgroup.kill` ({}{}{})",
            v2.dir.display(),
            if delegated {
                ", delegated to this user"
            } else {
                ""
            },
            v2.leaf.as_ref().map_or(String::new(), |l| format!(
                "; arena moved itself to `{}` to enable controllers",
                l.display()
            ))
        )
    };
    let mut protections = vec![
        Protection {
            name: "no survivors",
            active: kill.is_some() || jailed,
            detail: match (kill, jailed) {
                (Some(v2), true) => format!("a PID namespace per game of each bot, emptied when the game ends (and kept for the bot's next game), ended with arena (even by SIGKILL), and {}", killed(v2)),
                (None, true) => format!("a PID namespace per game of each bot, emptied when the game ends (and kept for the bot's next game), ended with arena (even by SIGKILL); no cgroup kill besides: {}", why("kill")),
                (Some(v2), false) => format!("{}; after SIGKILL of arena, processes that call setsid() live until the next run{}", killed(v2), no_jail()),
                (None, false) => format!(
                    "{}; falling back to killing the process group, which misses processes that call setsid(){}",
                    why("kill"),
                    no_jail()
                ),
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
                "an IPC namespace per game of each bot: SysV and POSIX IPC are private and gone when the game ends".into()
            } else {
                format!("bots share the host's SysV IPC objects{}", no_jail())
            },
        },
        Protection {
            name: "memory limit",
            active: true,
            detail: if v2("memory") {
                format!("{} per game of a bot (cgroup v2 `memory.max`, no swap; the OOM killer's kills are reported)", size(limits.memory))
            } else if memory.is_some() {
                format!("{} per bot (cgroup v1 memory controller; the OOM killer's kills are reported)", size(limits.memory))
            } else if matches!(jail, Ok(true)) {
                format!(
                    "{} per game of a bot, all its processes together: their proportional set sizes, sampled every {} ms from the game's own /proc, and every process of its PID namespace killed when over (the bot loses with `memory limit`); RLIMIT_AS per process besides (no memory cgroup: {}{})",
                    size(limits.memory),
                    super::memory::INTERVAL.as_millis(),
                    why("memory"),
                    if root { "; no cgroup v1 memory controller either" } else { "" }
                )
            } else {
                format!(
                    "{} of address space per process (RLIMIT_AS fallback: {}{}{})",
                    size(limits.memory),
                    why("memory"),
                    if root { "; no cgroup v1 memory controller either" } else { "" },
                    no_jail()
                )
            },
        },
        Protection {
            name: "process limit",
            active: v2("pids") || pids.is_some() || root || jailed,
            detail: if v2("pids") {
                format!("{} per game of a bot (cgroup v2 `pids.max`)", limits.max_procs)
            } else if pids.is_some() {
                format!("{} per bot (cgroup v1 pids controller and RLIMIT_NPROC of its own uid)", limits.max_procs)
            } else if root {
                format!("{} per bot (RLIMIT_NPROC of its own uid; {})", limits.max_procs, why("pids"))
            } else if jailed {
                format!("{} per bot and game (RLIMIT_NPROC, counted by the kernel per user namespace: each game of a bot has its own; no pids cgroup: {})", limits.max_procs, why("pids"))
            } else {
                format!("none: {}; RLIMIT_NPROC would count all of the user's processes", why("pids"))
            },
        },
        Protection {
            name: "fair cpu",
            active: v2("cpu") || cpu.is_some(),
            detail: {
                let cpus = f64::from(limits.milli_cpus) / 1000.0;
                if v2("cpu") {
                    format!("{cpus} CPU per game of a bot, all its processes together (cgroup v2 `cpu.max`)")
                } else if cpu.is_some() {
                    format!("{cpus} CPU per bot, all its processes together (cgroup v1 cpu controller, `cpu.cfs_quota_us`)")
                } else {
                    format!("none: {}{}; a bot's helper processes can slow its opponent", why("cpu"), if root { ", and no cgroup v1 cpu controller" } else { "" })
                }
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
                format!(
                    "each bot (and instance) runs as a uid of its own, from a block of {} uids from {BASE_UID} that no other run uses at the same time (their user keyrings emptied when the block is taken and released): it cannot signal arena or other bots",
                    super::uids::BLOCK
                )
            } else {
                "needs root: bots run as the user running arena (mapped to itself in a user namespace of their own, without its capabilities, where there is a jail)".into()
            },
        },
        Protection {
            name: "file-system isolation",
            active: landlock.is_some() || jailed,
            detail: match (jailed, landlock) {
                (true, Some(abi)) => format!("a mount namespace per game of each bot, built from nothing: read-only system directories, its own copy, the shared directories, a private {} /tmp emptied between its games, its own /proc; Landlock ({abi:?}) as a second layer", size(super::view::TMP_SIZE)),
                (true, None) => format!("a mount namespace per game of each bot, built from nothing: read-only system directories, its own copy, the shared directories, a private {} /tmp emptied between its games, its own /proc (no Landlock)", size(super::view::TMP_SIZE)),
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
        name: "system calls",
        active: seccomp.is_ok(),
        detail: super::seccomp::describe(seccomp),
    });
    protections.push(Protection {
        name: "opponent paused",
        active: true,
        detail: if unified.is_some() {
            "turn-based `lines` bots are frozen (`cgroup.freeze`) while the opponent thinks".into()
        } else if jailed {
            "turn-based `lines` bots are stopped while the opponent thinks, every process of the game's PID namespace (SIGSTOP sent from inside it: helpers in sessions of their own too)".into()
        } else {
            "turn-based `lines` bots are stopped (SIGSTOP to the process group, which misses helpers that call setsid()) while the opponent thinks".into()
        },
    });
    protections
}
