//! Checksums of a bot's files, by which `resume` sees a bot that changed; read under the
//! same rules and by the same walk as the copy: no link is followed outside, no FIFO is opened.

use std::collections::BTreeMap;
use std::io::Read;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use sha2::{Digest, Sha256};

use super::copy::CopyRules;
use super::walk::{Tree, Unfollowed, Visit};

/// SHA-256 of every file of a bot (its directory, following symbolic links where the private
/// copy does: inside the bot or into `shares`; or its single file), keyed by path within the
/// bot. A link the copy refuses counts as its target's name, a special file as its kind. The
/// directory is walked by descriptors, as the copy walks it.
pub fn checksums(source: &Path, shares: &[PathBuf]) -> Result<BTreeMap<String, String>> {
    let mut sums = Sums::default();
    if !source.exists() {
        // An inline bot has no files of its own.
        return Ok(sums.0);
    }
    if !source.is_dir() {
        let name = source.file_name().unwrap_or_default().to_string_lossy();
        let file = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(source)
            .with_context(|| format!("cannot read `{}`", source.display()))?;
        let sum = hash_file(file).with_context(|| format!("cannot read `{}`", source.display()))?;
        sums.0.insert(name.into_owned(), sum);
        return Ok(sums.0);
    }
    let rules = CopyRules {
        shares: shares.to_vec(),
        ..CopyRules::default()
    }
    .for_bot(source);
    Tree::open(source, &rules.shares, true)
        .and_then(|tree| tree.walk(&mut sums))
        .map_err(anyhow::Error::msg)?;
    Ok(sums.0)
}

/// The sums found so far, by path within the bot.
#[derive(Default)]
struct Sums(BTreeMap<String, String>);

impl Visit for Sums {
    fn dir(&mut self, _: &Path, _: u32) -> std::result::Result<(), String> {
        Ok(())
    }

    fn file(&mut self, shown: &Path, file: std::fs::File) -> std::result::Result<(), String> {
        let sum = hash_file(file).map_err(|e| format!("cannot read `{}`: {e}", shown.display()))?;
        self.0.insert(shown.to_string_lossy().into_owned(), sum);
        Ok(())
    }

    fn link(
        &mut self,
        shown: &Path,
        text: &Path,
        _: Unfollowed,
    ) -> std::result::Result<(), String> {
        let name = shown.to_string_lossy().into_owned();
        self.0.insert(name, format!("link to {}", text.display()));
        Ok(())
    }

    fn special(&mut self, shown: &Path, _: &'static str) -> std::result::Result<(), String> {
        let name = shown.to_string_lossy().into_owned();
        self.0.insert(name, "not a file".into());
        Ok(())
    }
}

/// The SHA-256 of an open file. A file with holes is summed as its data and where it lies
/// (`sparse:` before the sum), so a sparse gigabyte costs nothing to sum.
fn hash_file(mut file: std::fs::File) -> std::io::Result<String> {
    use std::io::{Seek, SeekFrom};
    use std::os::fd::AsRawFd;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Ok("not a file".into());
    }
    let len = meta.len() as i64;
    let fd = file.as_raw_fd();
    // SAFETY: `lseek` on a descriptor we own.
    let first_hole = unsafe { libc::lseek(fd, 0, libc::SEEK_HOLE) };
    let mut hasher = Sha256::new();
    if first_hole < 0 || first_hole >= len {
        file.seek(SeekFrom::Start(0))?;
        hash_range(&mut file, u64::MAX, &mut hasher)?;
        return Ok(format!("{:x}", hasher.finalize()));
    }
    let mut offset = 0;
    while offset < len {
        // SAFETY: as above.
        let data = unsafe { libc::lseek(fd, offset, libc::SEEK_DATA) };
        if data < 0 {
            break;
        }
        // SAFETY: as above.
        let hole = unsafe { libc::lseek(fd, data, libc::SEEK_HOLE) };
        let hole = if hole < 0 { len } else { hole.min(len) };
        hasher.update(format!("{data}+{}:", hole - data));
        file.seek(SeekFrom::Start(data as u64))?;
        hash_range(&mut file, (hole - data) as u64, &mut hasher)?;
        offset = hole;
    }
    hasher.update(format!("len {len}"));
    Ok(format!("sparse:{:x}", hasher.finalize()))
}

/// Feeds up to `len` bytes of `file` from where it is into `hasher`.
fn hash_range(file: &mut std::fs::File, len: u64, hasher: &mut Sha256) -> std::io::Result<()> {
    let mut buf = vec![0u8; 1 << 16];
    let mut left = len;
    while left > 0 {
        let want = left.min(buf.len() as u64) as usize;
        let n = file.read(&mut buf[..want])?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
        left -= n as u64;
    }
    Ok(())
}
