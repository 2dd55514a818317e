//! cgroup v2 with controllers: v2-only machines, Docker containers (their cgroup namespace,
//! `0::/`) and users with a subtree delegated by systemd (`user@UID.service`).
//!
//! Layout, under arena's own cgroup `OWN` (from `/proc/self/cgroup`):
//!
//! ```text
//! OWN/                       cgroup.subtree_control += memory pids cpu
//!   arena-<pid>-ctl/         arena itself, moved here only if OWN had processes
//!   arena-<pid>/             the run: cgroup.subtree_control += memory pids cpu
//!     <bot>@<n>-<game>/      a cage: memory.max, memory.swap.max = 0, pids.max, cpu.max
//! ```
//!
//! Limits go on the cage, one cgroup per game of a bot (instance), written before any process
//! joins it; OOM kills are its `memory.events` `oom_kill` count. A cgroup with processes in it
//! cannot give controllers to its children ("no internal processes"), so when `OWN` has
//! processes and lacks a controller arena first moves itself into the leaf `arena-<pid>-ctl`.
//! Each controller arena cannot get is reported with the reason, never silently skipped.

use std::path::{Path, PathBuf};

use super::cgroup::{self, CgroupEnv};

/// The controllers arena limits bots with, in the order they are enabled.
pub(super) const WANTED: [&str; 3] = ["memory", "pids", "cpu"];

/// The period of `cpu.max` and of v1's `cpu.cfs_period_us`, in microseconds.
pub(super) const CPU_PERIOD_US: u64 = 100_000;

/// The run's cgroup v2 directory and the controllers the games' cages get in it.
#[derive(Debug, Clone, Default)]
pub(super) struct V2Run {
    /// `OWN/arena-<pid>`: the parent of the cages.
    pub dir: PathBuf,
    /// Controllers enabled for the cages.
    pub controllers: Vec<&'static str>,
    /// Wanted controllers the cages do not get, each with the reason.
    pub missing: Vec<(&'static str, String)>,
    /// Where arena moved itself to give controllers away, if it had to.
    pub leaf: Option<PathBuf>,
    /// Whether the subtree is a non-root user's, delegated by systemd.
    pub delegated: bool,
    /// Whether `cgroup.kill` exists (Linux 5.14 and later).
    pub kill: bool,
}

impl V2Run {
    /// Whether the cages get `controller`.
    pub fn has(&self, controller: &str) -> bool {
        self.controllers.contains(&controller)
    }

    /// The control files of a cage for `limits`, for the controllers it has, in order.
    pub fn cage_limits(&self, limits: &super::Limits) -> cgroup::CageLimits {
        let mut files = Vec::new();
        if self.has("memory") {
            files.push(("memory.max", limits.memory.to_string()));
            if self.dir.join("memory.swap.max").exists() {
                // No swap: a bot over its memory is killed, not slowed down to a crawl.
                files.push(("memory.swap.max", "0".to_string()));
            }
        }
        if self.has("pids") {
            files.push(("pids.max", limits.max_procs.to_string()));
        }
        if self.has("cpu") {
            files.push(("cpu.max", cpu_max(limits.milli_cpus)));
        }
        files
    }
}

/// `cpu.max` for a share of `milli_cpus` thousandths of a CPU: `QUOTA PERIOD`.
pub(super) fn cpu_max(milli_cpus: u32) -> String {
    format!("{} {CPU_PERIOD_US}", cpu_quota_us(milli_cpus))
}

/// The CPU time a share of `milli_cpus` may use per period, in microseconds (at least the
/// kernel's minimum of 1 ms).
pub(super) fn cpu_quota_us(milli_cpus: u32) -> u64 {
    (u64::from(milli_cpus) * CPU_PERIOD_US / 1000).max(1000)
}

/// Makes the run's cgroup `OWN/<tag>` and gives it the wanted controllers; `Err` says why no
/// cgroup v2 can be used at all.
pub(super) fn set_up(env: &CgroupEnv, tag: &str) -> Result<V2Run, String> {
    let own = env
        .own_v2()
        .ok_or_else(|| "no cgroup v2 hierarchy is mounted".to_string())?;
    let delegated = env.euid != 0;
    if delegated && !owned_by(&own, env.euid) {
        return Err(format!(
            "arena's cgroup `{}` is not delegated to uid {} (run arena as a systemd user \
             service or under `systemd-run --user --scope -p Delegate=yes`)",
            own.display(),
            env.euid
        ));
    }
    let offered = list(&own, "cgroup.controllers");
    let enabled = list(&own, "cgroup.subtree_control");
    let mut missing = Vec::new();
    for c in WANTED.iter().filter(|c| !offered.iter().any(|o| o == *c)) {
        missing.push((
            *c,
            format!(
                "the `{c}` controller is not offered in `{}` (its cgroup.controllers)",
                own.display()
            ),
        ));
    }
    let need: Vec<&'static str> = WANTED
        .into_iter()
        .filter(|c| offered.iter().any(|o| o == c) && !enabled.iter().any(|e| e == c))
        .collect();
    let mut now: Vec<&'static str> = WANTED
        .into_iter()
        .filter(|c| enabled.iter().any(|e| e == c))
        .collect();
    let mut leaf = None;
    let mut free = list(&own, "cgroup.procs").is_empty();
    if !need.is_empty() && !free {
        // No internal processes: arena (with its jail factory, if it has one yet) leaves its
        // cgroup before giving controllers away.
        let ctl = own.join(format!("arena-{}-ctl", env.pid));
        let moved = cgroup::make_dir(&ctl).and_then(|()| {
            let factory = super::factory::pid().filter(|_| env.pid == std::process::id());
            [Some(env.pid), factory]
                .into_iter()
                .flatten()
                .try_for_each(|pid| cgroup::set(&ctl, "cgroup.procs", &pid.to_string()))
        });
        match moved {
            Ok(()) => {
                leaf = Some(ctl);
                free = true;
            }
            Err(e) => {
                for &c in &need {
                    missing.push((
                        c,
                        format!("arena could not leave its cgroup to enable it: {e:#}"),
                    ));
                }
            }
        }
    }
    if free && !need.is_empty() {
        // One write: the kernel enables all of them or none.
        match cgroup::set(&own, "cgroup.subtree_control", &plus(&need)) {
            Ok(()) => now.extend(need),
            Err(e) => missing.extend(need.into_iter().map(|c| {
                let why = format!(
                    "cannot enable it for arena's children (do other processes share \
                     arena's cgroup?): {e:#}"
                );
                (c, why)
            })),
        }
    }
    let dir = cgroup::make_cgroup(&own, tag)
        .ok_or_else(|| format!("cannot create a cgroup in `{}`", own.display()))?;
    let mut controllers: Vec<&'static str> =
        WANTED.into_iter().filter(|c| now.contains(c)).collect();
    if !controllers.is_empty() {
        if let Err(e) = cgroup::set(&dir, "cgroup.subtree_control", &plus(&controllers)) {
            missing.extend(controllers.drain(..).map(|c| (c, format!("{e:#}"))));
        }
    }
    Ok(V2Run {
        kill: dir.join("cgroup.kill").exists(),
        dir,
        controllers,
        missing,
        leaf,
        delegated,
    })
}

/// `+a +b`: what `cgroup.subtree_control` is told to enable `controllers`.
fn plus(controllers: &[&str]) -> String {
    controllers
        .iter()
        .map(|c| format!("+{c}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The words of a cgroup file (controllers, pids); none if it cannot be read.
fn list(dir: &Path, file: &str) -> Vec<String> {
    std::fs::read_to_string(dir.join(file))
        .unwrap_or_default()
        .split_whitespace()
        .map(str::to_string)
        .collect()
}

/// Whether the cgroup `dir` and the files a delegated subtree needs belong to `uid`.
fn owned_by(dir: &Path, uid: u32) -> bool {
    use std::os::unix::fs::MetadataExt;
    ["", "cgroup.procs", "cgroup.subtree_control"]
        .iter()
        .all(|f| std::fs::metadata(dir.join(f)).is_ok_and(|m| m.uid() == uid))
}

#[cfg(test)]
#[path = "cgroup_v2_tests.rs"]
mod tests;
