//! The uids a run's bots run as (as root): a block of its own, so that tournaments running at
//! the same time on one machine never share a uid. A block is held by a lock (`flock`) on a
//! file of a machine-wide directory for as long as the run lives; the kernel releases it when
//! the run dies, however it dies.

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
                return Ok(UidBlock {
                    base: BASE_UID + k * BLOCK,
                    _lock: file,
                });
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
}
