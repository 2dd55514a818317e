//! The memory of all of a game's processes together where no cgroup counts it (a user without
//! a delegated cgroup): a sampler that sums the processes' proportional set sizes, read from
//! the game's own `/proc`, and kills every process of the game's PID namespace once the sum
//! is over `--memory`; the bot then loses with `memory limit`.
//!
//! The game's PID namespace holds the bot's processes and nothing else but its holder (PID 1),
//! so its `/proc` lists exactly what to count, helpers in sessions of their own included.
//! Proportional set sizes count a page shared by several processes (a forked interpreter)
//! once in all, as a cgroup would.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use super::namespace::Signals;

/// How often a game's memory is sampled: a bot can be over its limit this long (and as much
/// more memory as it can touch in that time) before it is stopped.
pub const INTERVAL: Duration = Duration::from_millis(50);

/// The sampler of one game's memory; stopped when dropped.
#[derive(Debug)]
pub(super) struct Watch {
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
}

#[derive(Debug, Default)]
struct Shared {
    stop: AtomicBool,
    /// The memory held when the sum was found over the limit; 0 while it was not.
    over: AtomicU64,
}

impl Watch {
    /// Samples the processes listed in `proc` (the game's own `/proc`, as arena reaches it)
    /// until dropped; over `limit` bytes, kills them all through `signals`.
    pub fn start(proc: PathBuf, limit: u64, signals: Signals) -> Option<Watch> {
        let shared = Arc::new(Shared::default());
        let theirs = Arc::clone(&shared);
        let thread = std::thread::Builder::new()
            .name("arena-memory".into())
            .spawn(move || {
                while !theirs.stop.load(Ordering::Relaxed) {
                    let held = held(&proc);
                    if held > limit {
                        // Recorded first: the bot's death is then reported as this.
                        theirs.over.store(held, Ordering::SeqCst);
                        signals.kill();
                        return;
                    }
                    std::thread::park_timeout(INTERVAL);
                }
            })
            .ok()?;
        Some(Watch {
            shared,
            thread: Some(thread),
        })
    }

    /// The memory the game's processes held together when they were found over the limit.
    pub fn over(&self) -> Option<u64> {
        Some(self.shared.over.load(Ordering::SeqCst)).filter(|&n| n > 0)
    }
}

impl Drop for Watch {
    /// Stops the sampler before the game's namespace can be given to another game.
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            thread.thread().unpark();
            let _ = thread.join();
        }
    }
}

/// The memory of the processes listed in the PID namespace's `/proc` but its PID 1 (the
/// holder): the sum of their `Pss` (`smaps_rollup`), or of their resident sets (`statm`) on
/// a kernel without the rollup. A process that ends meanwhile counts for nothing.
pub(super) fn held(proc: &Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(proc) else {
        return 0;
    };
    entries
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|&pid| pid != 1)
        .map(|pid| process_memory(&proc.join(pid.to_string())))
        .sum()
}

fn process_memory(dir: &Path) -> u64 {
    if let Ok(text) = std::fs::read_to_string(dir.join("smaps_rollup")) {
        return text
            .lines()
            .find_map(|l| l.strip_prefix("Pss:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            .map_or(0, |kb| kb << 10);
    }
    // SAFETY: sysconf has no memory effects.
    let page = u64::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) }).unwrap_or(4096);
    std::fs::read_to_string(dir.join("statm"))
        .ok()
        .and_then(|t| t.split_whitespace().nth(1)?.parse::<u64>().ok())
        .map_or(0, |pages| pages * page)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn held_sums_every_process_but_pid_1_from_the_rollup_or_statm() {
        let proc = tempfile::tempdir().unwrap();
        let write = |pid: &str, file: &str, text: &str| {
            std::fs::create_dir_all(proc.path().join(pid)).unwrap();
            std::fs::write(proc.path().join(pid).join(file), text).unwrap();
        };
        write("1", "smaps_rollup", "Rss: 9999 kB\nPss: 9999 kB\n");
        write("7", "smaps_rollup", "Rss: 300 kB\nPss:     200 kB\n");
        write("9", "smaps_rollup", "Pss: 100 kB\n");
        write("12", "statm", "500 3 1 1 0 2 0\n");
        std::fs::create_dir_all(proc.path().join("self")).unwrap();
        // SAFETY: as above.
        let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) } as u64;
        assert_eq!(held(proc.path()), (300 << 10) + 3 * page);
    }
}
