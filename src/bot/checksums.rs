//! Checksums of a bot's files, by which `resume` sees a bot that changed; read under the
//! same rules as the copy: no link is followed outside, no FIFO is opened.

use std::collections::BTreeMap;
use std::io::Read;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use sha2::{Digest, Sha256};

use super::copy::CopyRules;

/// SHA-256 of every file of a bot (its directory, following symbolic links where the private
/// copy does: inside the bot or into `shares`; or its single file), keyed by path within the
/// bot. A link the copy refuses counts as its target's name, a special file as its kind.
pub fn checksums(source: &Path, shares: &[PathBuf]) -> Result<BTreeMap<String, String>> {
    let mut sums = BTreeMap::new();
    if !source.exists() {
        // An inline bot has no files of its own.
        return Ok(sums);
    }
    if !source.is_dir() {
        let name = source.file_name().unwrap_or_default().to_string_lossy();
        sums.insert(name.into_owned(), hash_file(source)?);
        return Ok(sums);
    }
    let rules = CopyRules {
        shares: shares.to_vec(),
        ..CopyRules::default()
    }
    .for_bot(source);
    let root = source
        .canonicalize()
        .with_context(|| format!("cannot resolve `{}`", source.display()))?;
    let mut stack = vec![(root.clone(), String::new())];
    while let Some((dir, prefix)) = stack.pop() {
        // Deep trees mean a symbolic link loop, which the copy refuses too.
        anyhow::ensure!(
            prefix.matches('/').count() < 16,
            "`{}` is nested too deeply",
            dir.display()
        );
        for entry in
            std::fs::read_dir(&dir).with_context(|| format!("cannot list `{}`", dir.display()))?
        {
            let entry = entry.with_context(|| format!("cannot list `{}`", dir.display()))?;
            let mut path = entry.path();
            let name = format!("{prefix}{}", entry.file_name().to_string_lossy());
            let mut kind = std::fs::symlink_metadata(&path)
                .with_context(|| format!("cannot read `{}`", path.display()))?
                .file_type();
            if kind.is_symlink() {
                let target = std::fs::canonicalize(&path).ok().filter(|t| {
                    t.starts_with(&root) || rules.shares.iter().any(|s| t.starts_with(s))
                });
                let Some(target) = target else {
                    let text = std::fs::read_link(&path).unwrap_or_default();
                    sums.insert(name, format!("link to {}", text.display()));
                    continue;
                };
                kind = std::fs::symlink_metadata(&target)
                    .with_context(|| format!("cannot read `{}`", target.display()))?
                    .file_type();
                path = target;
            }
            if kind.is_dir() {
                stack.push((path, format!("{name}/")));
            } else if kind.is_file() {
                sums.insert(name, hash_file(&path)?);
            } else {
                sums.insert(name, "not a file".into());
            }
        }
    }
    Ok(sums)
}

/// The SHA-256 of a file, read without following a link or waiting on a FIFO. A file with
/// holes is summed as its data and where it lies (`sparse:` before the sum), so a sparse
/// gigabyte costs nothing to sum.
fn hash_file(path: &Path) -> Result<String> {
    use std::io::{Seek, SeekFrom};
    use std::os::fd::AsRawFd;
    let error = || format!("cannot read `{}`", path.display());
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
        .with_context(error)?;
    let meta = file.metadata().with_context(error)?;
    if !meta.is_file() {
        return Ok("not a file".into());
    }
    let len = meta.len() as i64;
    let fd = file.as_raw_fd();
    // SAFETY: `lseek` on a descriptor we own.
    let first_hole = unsafe { libc::lseek(fd, 0, libc::SEEK_HOLE) };
    let mut hasher = Sha256::new();
    if first_hole < 0 || first_hole >= len {
        file.seek(SeekFrom::Start(0)).with_context(error)?;
        hash_range(&mut file, u64::MAX, &mut hasher).with_context(error)?;
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
        file.seek(SeekFrom::Start(data as u64))
            .with_context(error)?;
        hash_range(&mut file, (hole - data) as u64, &mut hasher).with_context(error)?;
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
