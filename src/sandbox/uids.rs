//! The uids a run's bots run as (as root): a block of its own, so that tournaments running at
//! the same time on one machine never share a uid. A block is held by a lock (`flock`) on a
//! file of a machine-wide directory for as long as the run lives; the kernel releases it when
//! the run dies, however it dies.
//!
//! The kernel keeps a uid's user keyrings after its last process ends: what a bot stored there
//! would be found by a bot of a later run given the same uid. A block's keyrings are emptied
//! when it is taken (a run killed before its end left them) and when it is released.

use std::fs::File;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use super::BASE_UID;

/// Uids in one block: bots and their further instances of one run.
pub const BLOCK: u32 = 1024;

/// Blocks there are: uids `BASE_UID` to `BASE_UID + BLOCKS * BLOCK`.
pub const BLOCKS: u32 = 64;

/// A block of uids held by this run.
#[derive(Debug)]
pub struct UidBlock {
    /// The first uid of the block.
    pub base: u32,
    _lock: File,
}

impl UidBlock {
    /// Takes the first free block, its lock files in `dir` (`/run/arena` as root).
    pub fn acquire(dir: &Path) -> Result<UidBlock> {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("cannot create `{}`", dir.display()))?;
        for k in 0..BLOCKS {
            let path = dir.join(format!("uids-{k}.lock"));
            if let Some(file) = super::liveness::try_lock(&path)? {
                let base = BASE_UID + k * BLOCK;
                clear_keyrings(base);
                return Ok(UidBlock { base, _lock: file });
            }
        }
        bail!(
            "{BLOCKS} tournaments already run on this machine (every block of bot uids in `{}` is taken)",
            dir.display()
        )
    }

    /// The uid of jail number `index` of the run.
    pub fn uid(&self, index: usize) -> Result<u32> {
        match u32::try_from(index) {
            Ok(i) if i < BLOCK => Ok(self.base + i),
            _ => bail!(
                "a run has uids for {BLOCK} bots and instances, and this is number {}",
                index + 1
            ),
        }
    }
}

impl UidBlock {
    /// Empties the user keyrings of the block's uids (the run's bots have ended).
    pub fn empty_keyrings(&self) {
        clear_keyrings(self.base);
    }
}

impl Drop for UidBlock {
    /// Empties the block's keyrings, then frees it (its lock is released after this).
    fn drop(&mut self) {
        clear_keyrings(self.base);
        // Unlocked here, not by the close: a process forked a moment ago by another thread
        // (a bot's start, between its `fork` and `exec`) still shares the descriptor, and
        // would keep the block taken until it execs.
        let _ = rustix::fs::flock(&self._lock, rustix::fs::FlockOperation::Unlock);
    }
}

/// `<linux/keyctl.h>`.
const KEY_SPEC_USER_KEYRING: libc::c_long = -4;
const KEY_SPEC_USER_SESSION_KEYRING: libc::c_long = -5;
const KEYCTL_CLEAR: libc::c_long = 7;

/// The uids from `base` to `base + BLOCK` that hold keys, as `/proc/key-users` lists them
/// (so that the keyrings of the others are not made just to be emptied).
fn uids_with_keys(key_users: &str, base: u32) -> Vec<u32> {
    key_users
        .lines()
        .filter_map(|line| {
            let (uid, rest) = line.trim().split_once(':')?;
            let uid: u32 = uid.trim().parse().ok()?;
            let keys: u32 = rest
                .split_whitespace()
                .nth(1)?
                .split('/')
                .next()?
                .parse()
                .ok()?;
            (uid >= base && uid - base < BLOCK && keys > 0).then_some(uid)
        })
        .collect()
}

/// Empties the user and user-session keyrings of the block's uids that hold keys. A thread
/// of its own takes each uid in turn (the raw system call changes only the calling thread's
/// uid; the saved uid stays root to come back), as only a key's owner may clear its keyring.
fn clear_keyrings(base: u32) {
    let Ok(key_users) = std::fs::read_to_string("/proc/key-users") else {
        return; // A kernel without keyrings.
    };
    let uids = uids_with_keys(&key_users, base);
    if uids.is_empty() {
        return;
    }
    let cleared = std::thread::spawn(move || {
        for uid in uids {
            // SAFETY: raw system calls on integers; setresuid through the raw call changes
            // only this thread, which ends after the loop.
            unsafe {
                if libc::syscall(libc::SYS_setresuid, uid, uid, 0) != 0 {
                    return false;
                }
                for ring in [KEY_SPEC_USER_KEYRING, KEY_SPEC_USER_SESSION_KEYRING] {
                    libc::syscall(libc::SYS_keyctl, KEYCTL_CLEAR, ring);
                }
                if libc::syscall(libc::SYS_setresuid, 0, 0, 0) != 0 {
                    return false;
                }
            }
        }
        true
    })
    .join();
    if !matches!(cleared, Ok(true)) {
        eprintln!("warning: cannot empty the keyrings of bot uids from {base}");
    }
}

/// Where the blocks' lock files are: `/run/arena`, or the temporary directory where `/run`
/// cannot be written.
pub fn lock_dir() -> PathBuf {
    let run = Path::new("/run");
    if run.is_dir() && rustix::fs::access(run, rustix::fs::Access::WRITE_OK).is_ok() {
        run.join("arena")
    } else {
        std::env::temp_dir().join("arena-uids")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_runs_get_different_blocks_and_a_dead_run_frees_its_block_issue_11() {
        let dir = tempfile::tempdir().unwrap();
        let first = UidBlock::acquire(dir.path()).unwrap();
        let second = UidBlock::acquire(dir.path()).unwrap();
        assert_eq!(first.base, BASE_UID);
        assert_eq!(second.base, BASE_UID + BLOCK);
        assert_eq!(second.uid(3).unwrap(), BASE_UID + BLOCK + 3);
        assert!(second.uid(BLOCK as usize).is_err());
        drop(first);
        let third = UidBlock::acquire(dir.path()).unwrap();
        assert_eq!(third.base, BASE_UID, "the freed block is taken again");
    }

    #[test]
    fn only_the_block_s_uids_that_hold_keys_are_emptied_issue_17() {
        let key_users = "    0:    10 9/9 5/1000000 88/25000000
61000:     2 2/2 2/200 9/20000
61003:     1 0/0 0/200 0/20000
62024:     1 1/1 1/200 9/20000
";
        assert_eq!(uids_with_keys(key_users, BASE_UID), vec![61000]);
        assert_eq!(uids_with_keys(key_users, BASE_UID + BLOCK), vec![62024]);
    }
}
