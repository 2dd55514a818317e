//! Copying a bot's directory without trusting it: no link leads outside, no FIFO is opened,
//! and the directory is walked by descriptors (`walk`), so nothing swapped in while it is
//! copied leads the copy outside it.
//!
//! A submission is copied by root into the bot's private directory, so whatever the copy
//! reads the bot can read. The copy therefore never gives a bot more than its submitter had:
//! a symbolic link is followed only when it leads inside the bot's directory or into a
//! directory the operator shares (`--share`); FIFOs, sockets and devices are refused without
//! being opened; sparse files stay sparse; and the disk space the copy takes is capped.

use std::fs::{File, OpenOptions};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use super::walk::{Tree, Unfollowed, Visit};

/// The default of `--max-bot-size`.
pub const DEFAULT_MAX_BOT_SIZE: u64 = 256 << 20;

/// How a copy treats what it finds.
#[derive(Debug, Clone)]
pub struct CopyRules {
    /// Directories (absolute, resolved) into which a link may lead.
    pub shares: Vec<PathBuf>,
    /// The most disk space (allocated blocks) the copy may take.
    pub max_size: u64,
}

impl Default for CopyRules {
    fn default() -> Self {
        CopyRules {
            shares: Vec::new(),
            max_size: DEFAULT_MAX_BOT_SIZE,
        }
    }
}

impl CopyRules {
    /// The rules for one bot: the operator's shares and, for a bot in `<DIR>/<game>/`, the
    /// bundled adapters in `<DIR>/adapters` (`bots/adapters`) when that directory exists.
    pub fn for_bot(&self, source: &Path) -> CopyRules {
        let mut rules = self.clone();
        if let Some(adapters) = source
            .parent()
            .and_then(Path::parent)
            .map(|d| d.join("adapters"))
            .and_then(|d| d.canonicalize().ok())
            .filter(|d| d.is_dir())
        {
            rules.shares.push(adapters);
        }
        rules
    }
}

/// What a copy does with what it does not follow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// A submission: links are followed within the rules, anything else is an error.
    Submission,
    /// A copy of arena's own working copies (`--keep-work`, instances): links are copied as
    /// links (never followed) and special files are skipped.
    Mirror,
}

/// Copies a submitted bot directory `from` into the existing directory `to` under `rules`,
/// walking it by descriptors (a link swapped in meanwhile is never followed outside it).
/// The error names the file that breaks the rules, relative to the bot's directory.
pub fn copy_submission(from: &Path, to: &Path, rules: &CopyRules) -> Result<(), String> {
    let tree = Tree::open(from, &rules.shares, true)?;
    tree.walk(&mut Copy::new(to, rules.max_size, Mode::Submission))
}

/// Copies one submitted file (a bot given as a single executable, named by the operator, so
/// a link is followed) into the directory `to`, under the same rules for what it is.
pub fn copy_submitted_file(from: &Path, to: &Path, rules: &CopyRules) -> Result<(), String> {
    let name = from.file_name().unwrap_or_default();
    let resolved = from
        .canonicalize()
        .map_err(|e| format!("cannot resolve `{}`: {e}", from.display()))?;
    let parent = resolved.parent().unwrap_or(Path::new("/"));
    let tree = Tree::open(parent, &rules.shares, true)?;
    let mut copy = Copy::new(to, rules.max_size, Mode::Submission);
    tree.visit(
        resolved.file_name().unwrap_or_default(),
        Path::new(name),
        &mut copy,
    )
}

/// Copies a tree arena made itself (a bot's working copy, which the bot may have changed) as
/// it is, by descriptors: links stay links, FIFOs, sockets and devices are left out, sparse
/// files stay sparse.
pub fn mirror(from: &Path, to: &Path) -> Result<(), String> {
    std::fs::create_dir_all(to).map_err(|e| format!("cannot create `{}`: {e}", to.display()))?;
    let tree = Tree::open(from, &[], false)?;
    tree.walk(&mut Copy::new(to, u64::MAX, Mode::Mirror))
}

/// A copy under way: what the walk finds is written under `to`, a directory arena made.
struct Copy<'a> {
    to: &'a Path,
    max_size: u64,
    mode: Mode,
    /// Bytes of disk the copy has taken so far.
    used: u64,
}

impl<'a> Copy<'a> {
    fn new(to: &'a Path, max_size: u64, mode: Mode) -> Copy<'a> {
        Copy {
            to,
            max_size,
            mode,
            used: 0,
        }
    }
}

impl Visit for Copy<'_> {
    fn dir(&mut self, shown: &Path, mode: u32) -> Result<(), String> {
        let to = self.to.join(shown);
        std::fs::create_dir_all(&to)
            .map_err(|e| format!("cannot create `{}`: {e}", to.display()))?;
        let _ = std::fs::set_permissions(&to, std::fs::Permissions::from_mode(mode));
        Ok(())
    }

    fn file(&mut self, shown: &Path, source: File) -> Result<(), String> {
        let read_error = |e: std::io::Error| format!("cannot read `{}`: {e}", shown.display());
        let meta = source.metadata().map_err(read_error)?;
        self.used = self.used.saturating_add(meta.blocks().saturating_mul(512));
        if self.used > self.max_size {
            return Err(format!(
                "the bot's directory takes more than `--max-bot-size` ({}) of disk with `{}`",
                crate::sandbox::size(self.max_size),
                shown.display()
            ));
        }
        let to = self.to.join(shown);
        let target = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .custom_flags(libc::O_NOFOLLOW)
            .mode(0o600)
            .open(&to)
            .map_err(|e| format!("cannot create `{}`: {e}", to.display()))?;
        copy_sparse(&source, &target, meta.len())
            .map_err(|e| format!("cannot copy `{}`: {e}", shown.display()))?;
        target
            .set_permissions(std::fs::Permissions::from_mode(meta.mode() & 0o7777))
            .map_err(|e| format!("cannot copy `{}`: {e}", shown.display()))
    }

    fn link(&mut self, shown: &Path, text: &Path, why: Unfollowed) -> Result<(), String> {
        match why {
            Unfollowed::NotFollowing => {
                let to = self.to.join(shown);
                std::os::unix::fs::symlink(text, &to)
                    .map_err(|e| format!("cannot create `{}`: {e}", to.display()))
            }
            Unfollowed::Dangling => Err(format!(
                "`{}` is a symbolic link to `{}`, which does not exist",
                shown.display(),
                text.display()
            )),
            Unfollowed::Outside => Err(format!(
                "`{}` is a symbolic link to `{}`, outside the bot's directory (a link may lead only inside it or into a directory shared with `--share`)",
                shown.display(),
                text.display()
            )),
        }
    }

    fn special(&mut self, shown: &Path, kind: &'static str) -> Result<(), String> {
        match self.mode {
            Mode::Mirror => Ok(()),
            Mode::Submission => Err(format!(
                "`{}` is {kind}: a bot's directory may hold only files, directories and links",
                shown.display(),
            )),
        }
    }
}

/// Copies the data of `source` (`len` bytes) into the empty `target`, only where `source` has
/// data: holes stay holes.
fn copy_sparse(source: &File, target: &File, len: u64) -> std::io::Result<()> {
    use std::io::{Read, Seek, SeekFrom, Write};
    use std::os::fd::AsRawFd;
    let fd = source.as_raw_fd();
    let mut src = source;
    let mut dst = target;
    let mut offset: i64 = 0;
    let mut buf = vec![0u8; 1 << 16];
    let end = len as i64;
    while offset < end {
        // SAFETY: `lseek` on a descriptor we own; no memory is involved.
        let data = unsafe { libc::lseek(fd, offset, libc::SEEK_DATA) };
        if data < 0 {
            let e = std::io::Error::last_os_error();
            match e.raw_os_error() {
                // No more data: the rest is a hole.
                Some(libc::ENXIO) => break,
                // No SEEK_DATA on this file system: copy everything.
                Some(libc::EINVAL) => {
                    src.seek(SeekFrom::Start(0))?;
                    std::io::copy(&mut src, &mut dst)?;
                    return Ok(());
                }
                _ => return Err(e),
            }
        }
        // SAFETY: as above.
        let hole = unsafe { libc::lseek(fd, data, libc::SEEK_HOLE) };
        let hole = if hole < 0 { end } else { hole.min(end) };
        src.seek(SeekFrom::Start(data as u64))?;
        dst.seek(SeekFrom::Start(data as u64))?;
        let mut left = (hole - data) as u64;
        while left > 0 {
            let want = left.min(buf.len() as u64) as usize;
            let n = src.read(&mut buf[..want])?;
            if n == 0 {
                break;
            }
            dst.write_all(&buf[..n])?;
            left -= n as u64;
        }
        offset = hole;
    }
    target.set_len(len)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_inside_are_followed_links_outside_refused() {
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("key"), "secret").unwrap();
        let bot = tempfile::tempdir().unwrap();
        std::fs::write(bot.path().join("a"), "a").unwrap();
        std::os::unix::fs::symlink("a", bot.path().join("b")).unwrap();
        let to = tempfile::tempdir().unwrap();
        copy_submission(bot.path(), to.path(), &CopyRules::default()).unwrap();
        assert_eq!(std::fs::read_to_string(to.path().join("b")).unwrap(), "a");

        std::os::unix::fs::symlink(outside.path().join("key"), bot.path().join("k")).unwrap();
        let to = tempfile::tempdir().unwrap();
        let err = copy_submission(bot.path(), to.path(), &CopyRules::default()).unwrap_err();
        assert!(err.starts_with("`k` is a symbolic link to `"), "{err}");
        assert!(!to.path().join("k").exists());

        let rules = CopyRules {
            shares: vec![outside.path().canonicalize().unwrap()],
            ..CopyRules::default()
        };
        let to = tempfile::tempdir().unwrap();
        copy_submission(bot.path(), to.path(), &rules).unwrap();
        assert_eq!(
            std::fs::read_to_string(to.path().join("k")).unwrap(),
            "secret"
        );
    }

    #[test]
    fn sparse_files_stay_sparse_and_size_is_capped() {
        let bot = tempfile::tempdir().unwrap();
        let f = File::create(bot.path().join("sparse")).unwrap();
        f.set_len(1 << 30).unwrap();
        std::fs::write(bot.path().join("data"), vec![7u8; 100_000]).unwrap();
        let to = tempfile::tempdir().unwrap();
        copy_submission(bot.path(), to.path(), &CopyRules::default()).unwrap();
        let meta = std::fs::metadata(to.path().join("sparse")).unwrap();
        assert_eq!(meta.len(), 1 << 30);
        assert!(meta.blocks() < 1024, "{} blocks", meta.blocks());
        assert_eq!(
            std::fs::read(to.path().join("data")).unwrap(),
            vec![7u8; 100_000]
        );
        let rules = CopyRules {
            max_size: 50_000,
            ..CopyRules::default()
        };
        let to = tempfile::tempdir().unwrap();
        let err = copy_submission(bot.path(), to.path(), &rules).unwrap_err();
        assert!(
            err.contains("`--max-bot-size`") && err.contains("`data`"),
            "{err}"
        );
    }

    #[test]
    fn fifos_are_refused_unopened_and_skipped_in_mirrors() {
        let bot = tempfile::tempdir().unwrap();
        let fifo = bot.path().join("pipe");
        let c = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: a valid C string.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
        let to = tempfile::tempdir().unwrap();
        let err = copy_submission(bot.path(), to.path(), &CopyRules::default()).unwrap_err();
        assert!(err.starts_with("`pipe` is a FIFO"), "{err}");
        std::os::unix::fs::symlink("/etc/shadow", bot.path().join("s")).unwrap();
        let to = tempfile::tempdir().unwrap();
        mirror(bot.path(), &to.path().join("m")).unwrap();
        assert!(!to.path().join("m/pipe").exists());
        assert_eq!(
            std::fs::read_link(to.path().join("m/s")).unwrap(),
            Path::new("/etc/shadow")
        );
    }
}
