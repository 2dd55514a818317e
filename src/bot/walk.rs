//! Walking an untrusted directory tree by descriptors: each entry is opened relative to its
//! directory's descriptor and what it is comes from the opened descriptor, never from its path
//! again after a check, so a directory swapped for a link cannot redirect the walk.
//!
//! A submitter who owns the folder may rename and relink its entries while root walks it. The
//! walk opens each name with `O_PATH | O_NOFOLLOW` (a link is opened as the link), learns its
//! kind with `fstat` on that descriptor, and lists a directory through that descriptor. A link
//! that may be followed (one leading inside the tree or into a share) is resolved by path only
//! to learn which tree it claims to lead into; the target is then opened from that tree's
//! descriptor with `openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS)`, so whatever was swapped in
//! meanwhile, the kernel opens nothing outside that tree.

use std::ffi::OsStr;
use std::fs::File;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path, PathBuf};

use rustix::fs::{FileType, Mode, OFlags, ResolveFlags, Stat, CWD};
use rustix::io::Errno;

/// Bot directories are shallow; a deeper tree is a link loop or an attack.
const MAX_DEPTH: u32 = 16;

/// Why a link was not followed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Unfollowed {
    /// The walk follows no link (a tree arena made: links are copied as links).
    NotFollowing,
    /// The link leads outside the tree and every share.
    Outside,
    /// The link leads nowhere.
    Dangling,
}

/// What a walk does with each thing it meets; an error stops the walk.
pub(super) trait Visit {
    /// A directory, before its entries (`mode`: its permission bits).
    fn dir(&mut self, shown: &Path, mode: u32) -> Result<(), String>;
    /// A regular file, opened for reading.
    fn file(&mut self, shown: &Path, file: File) -> Result<(), String>;
    /// A symbolic link that is not followed, with its text.
    fn link(&mut self, shown: &Path, text: &Path, why: Unfollowed) -> Result<(), String>;
    /// A FIFO, socket or device: never opened.
    fn special(&mut self, shown: &Path, kind: &'static str) -> Result<(), String>;
}

/// A directory tree held by descriptors: its root, and the shares its links may lead into.
pub(super) struct Tree {
    /// The root's path as it was resolved, to tell where a link leads.
    root: PathBuf,
    root_fd: OwnedFd,
    /// The directories (resolved) outside the tree into which a link may lead.
    shares: Vec<(PathBuf, OwnedFd)>,
    /// Whether links are followed (within the tree and the shares) or reported as links.
    follow: bool,
}

impl Tree {
    /// Opens the directory `root` (a link named by the operator is followed, once); `shares`
    /// are resolved directories, and one that cannot be opened is left out.
    pub fn open(root: &Path, shares: &[PathBuf], follow: bool) -> Result<Tree, String> {
        let resolve_error =
            |e: &dyn std::fmt::Display| format!("cannot resolve `{}`: {e}", root.display());
        let resolved = root.canonicalize().map_err(|e| resolve_error(&e))?;
        // The resolved path has no link left: open it refusing any link swapped in since.
        let root_fd = open_without_links(
            CWD,
            &resolved,
            OFlags::PATH | OFlags::DIRECTORY,
            ResolveFlags::NO_SYMLINKS,
        )
        .map_err(|e| resolve_error(&std::io::Error::from(e)))?;
        let shares = shares
            .iter()
            .filter_map(|s| {
                let fd = rustix::fs::open(s, dir_path_flags(), Mode::empty()).ok()?;
                Some((s.clone(), fd))
            })
            .collect();
        Ok(Tree {
            root: resolved,
            root_fd,
            shares,
            follow,
        })
    }

    /// Visits everything under the root (not the root itself), in name order.
    pub fn walk(&self, visit: &mut dyn Visit) -> Result<(), String> {
        self.walk_dir(self.root_fd.as_fd(), &self.root, Path::new(""), 0, visit)
    }

    /// Visits the root's entry `name` (and what is under it), shown as `shown`.
    pub fn visit(&self, name: &OsStr, shown: &Path, visit: &mut dyn Visit) -> Result<(), String> {
        let at = Place {
            dir: self.root_fd.as_fd(),
            path: &self.root,
            name,
        };
        self.entry(at, shown, 0, visit)
    }

    fn walk_dir(
        &self,
        dir: BorrowedFd<'_>,
        path: &Path,
        shown: &Path,
        depth: u32,
        visit: &mut dyn Visit,
    ) -> Result<(), String> {
        if depth >= MAX_DEPTH {
            return Err(format!("`{}` is nested too deeply", show(shown)));
        }
        let list_error = |e: Errno| format!("cannot list `{}`: {e}", show(shown));
        let mut names = Vec::new();
        // Listed through the descriptor of the directory that was checked (`O_PATH` cannot be
        // listed: its `.` is opened for reading).
        let readable = rustix::fs::openat(dir, ".", dir_read_flags(), Mode::empty());
        let mut entries =
            rustix::fs::Dir::new(readable.map_err(list_error)?).map_err(list_error)?;
        while let Some(entry) = entries.read() {
            let entry = entry.map_err(list_error)?;
            let name = entry.file_name().to_bytes();
            if name != b"." && name != b".." {
                names.push(OsStr::from_bytes(name).to_os_string());
            }
        }
        names.sort();
        for name in names {
            let at = Place {
                dir,
                path,
                name: &name,
            };
            self.entry(at, &shown.join(&name), depth, visit)?;
        }
        Ok(())
    }

    /// One entry: opened as itself (a link as the link), then told apart by `fstat`.
    fn entry(
        &self,
        at: Place<'_>,
        shown: &Path,
        depth: u32,
        visit: &mut dyn Visit,
    ) -> Result<(), String> {
        let read_error = |e: Errno| format!("cannot read `{}`: {e}", shown.display());
        let name = Path::new(at.name);
        let fd = open_beneath(at.dir, name, OFlags::PATH).map_err(read_error)?;
        let stat = rustix::fs::fstat(&fd).map_err(read_error)?;
        if FileType::from_raw_mode(stat.st_mode) != FileType::Symlink {
            let found = Found {
                base: at.dir,
                rel: name,
                fd,
                stat,
            };
            return self.found(found, &at.path.join(name), shown, depth, visit);
        }
        // The link's own text, read from the link that was opened.
        let text = rustix::fs::readlinkat(&fd, "", Vec::new())
            .map(|t| PathBuf::from(OsStr::from_bytes(t.as_bytes())))
            .map_err(read_error)?;
        if !self.follow {
            return visit.link(shown, &text, Unfollowed::NotFollowing);
        }
        // Where the link leads now: a hint of the tree it claims, checked again by the kernel
        // when the target is opened from that tree's descriptor.
        let Ok(target) = at.path.join(name).canonicalize() else {
            return visit.link(shown, &text, Unfollowed::Dangling);
        };
        let Some((base, base_fd)) = std::iter::once((&self.root, &self.root_fd))
            .chain(self.shares.iter().map(|(p, fd)| (p, fd)))
            .find(|(base, _)| target.starts_with(base))
        else {
            return visit.link(shown, &text, Unfollowed::Outside);
        };
        let rel = target.strip_prefix(base).unwrap_or(Path::new(""));
        let rel = if rel.as_os_str().is_empty() {
            Path::new(".")
        } else {
            rel
        };
        let changed = |_| changed(shown);
        let fd = open_beneath(base_fd.as_fd(), rel, OFlags::PATH).map_err(changed)?;
        let stat = rustix::fs::fstat(&fd).map_err(read_error)?;
        let found = Found {
            base: base_fd.as_fd(),
            rel,
            fd,
            stat,
        };
        self.found(found, &target, shown, depth + 1, visit)
    }

    /// What an entry turned out to be, opened as what it is.
    fn found(
        &self,
        found: Found<'_>,
        path: &Path,
        shown: &Path,
        depth: u32,
        visit: &mut dyn Visit,
    ) -> Result<(), String> {
        let read_error = |e: Errno| format!("cannot read `{}`: {e}", shown.display());
        match FileType::from_raw_mode(found.stat.st_mode) {
            FileType::Directory => {
                visit.dir(shown, found.stat.st_mode & 0o7777)?;
                self.walk_dir(found.fd.as_fd(), path, shown, depth + 1, visit)
            }
            FileType::RegularFile => {
                // An `O_PATH` descriptor cannot be read: open the same name again, beneath the
                // same directory, and make sure it is still the same file.
                let flags = OFlags::RDONLY | OFlags::NONBLOCK | OFlags::NOCTTY;
                let file =
                    open_beneath(found.base, found.rel, flags).map_err(|_| changed(shown))?;
                let now = rustix::fs::fstat(&file).map_err(read_error)?;
                if (now.st_dev, now.st_ino) != (found.stat.st_dev, found.stat.st_ino) {
                    return Err(changed(shown));
                }
                visit.file(shown, File::from(file))
            }
            FileType::Symlink => Err(changed(shown)),
            other => visit.special(shown, describe(other)),
        }
    }
}

/// Where an entry is: its directory (descriptor and path) and its name.
struct Place<'a> {
    dir: BorrowedFd<'a>,
    path: &'a Path,
    name: &'a OsStr,
}

/// An entry opened with `O_PATH`: where it was opened from, and what it is.
struct Found<'a> {
    base: BorrowedFd<'a>,
    rel: &'a Path,
    fd: OwnedFd,
    stat: Stat,
}

fn changed(shown: &Path) -> String {
    format!("`{}` changed while it was copied", shown.display())
}

fn dir_path_flags() -> OFlags {
    OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC
}

fn dir_read_flags() -> OFlags {
    OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC
}

/// Opens `rel` (no `..`) beneath the directory `base` without following any link on the way
/// (a trailing link is opened as the link with `O_PATH`): `openat2` with `RESOLVE_BENEATH |
/// RESOLVE_NO_SYMLINKS`, or on kernels before 5.6 one component at a time with `O_NOFOLLOW`.
fn open_beneath(base: BorrowedFd<'_>, rel: &Path, flags: OFlags) -> rustix::io::Result<OwnedFd> {
    let resolve = ResolveFlags::BENEATH | ResolveFlags::NO_SYMLINKS;
    open_without_links(base, rel, flags, resolve)
}

/// Opens `path` from `base` following no link (`resolve` says whether it must also stay
/// beneath `base`: then `path` is relative and has no `..`).
fn open_without_links(
    base: BorrowedFd<'_>,
    path: &Path,
    flags: OFlags,
    resolve: ResolveFlags,
) -> rustix::io::Result<OwnedFd> {
    let rel = path;
    let flags = flags | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    loop {
        match rustix::fs::openat2(base, rel, flags, Mode::empty(), resolve) {
            // The kernel saw a rename during the lookup and asks for another try.
            Err(Errno::AGAIN) => continue,
            Err(Errno::NOSYS) => break,
            result => return result,
        }
    }
    let mut parts = rel.components().peekable();
    let mut dir: Option<OwnedFd> = None;
    while let Some(part) = parts.next() {
        let at = dir.as_ref().map_or(base, |d| d.as_fd());
        let name = match part {
            Component::Normal(name) => Path::new(name),
            Component::CurDir => Path::new("."),
            Component::RootDir => Path::new("/"),
            Component::ParentDir | Component::Prefix(_) => return Err(Errno::XDEV),
        };
        if parts.peek().is_none() {
            return rustix::fs::openat(at, name, flags, Mode::empty());
        }
        let flags = dir_path_flags() | OFlags::NOFOLLOW;
        dir = Some(rustix::fs::openat(at, name, flags, Mode::empty())?);
    }
    // `rel` was empty: the directory itself.
    rustix::fs::openat(base, ".", flags, Mode::empty())
}

/// A path relative to the tree's root, `.` for the root itself.
fn show(path: &Path) -> String {
    if path.as_os_str().is_empty() {
        ".".into()
    } else {
        path.display().to_string()
    }
}

fn describe(kind: FileType) -> &'static str {
    match kind {
        FileType::Fifo => "a FIFO",
        FileType::Socket => "a socket",
        FileType::BlockDevice | FileType::CharacterDevice => "a device",
        _ => "neither a file nor a directory",
    }
}
