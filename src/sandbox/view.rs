//! A bot's file-system view, built from nothing the way bubblewrap does: the [`Plan`] made
//! in arena (every path prepared as a C string), and the raw system calls that carry it out
//! in the jail's holder process between `clone` and its wait ([`build_view`]).

use std::ffi::{c_int, CString};
use std::path::{Path, PathBuf};

use super::landlock::SYSTEM_DIRS;
/// Size of each bot's private `/tmp`.
pub const TMP_SIZE: u64 = 64 << 20;

/// Devices a bot's view holds (bound from the host).
const DEVICES: [&str; 6] = [
    "/dev/null",
    "/dev/zero",
    "/dev/full",
    "/dev/random",
    "/dev/urandom",
    "/dev/tty",
];

/// Files of `/etc` a bot must not read, hidden behind an unreadable `/dev/null`.
const SECRETS: [&str; 4] = [
    "/etc/shadow",
    "/etc/gshadow",
    "/etc/shadow-",
    "/etc/gshadow-",
];

// <linux/mount.h>, not in the libc crate.
const MOUNT_ATTR_RDONLY: u64 = 0x1;
const MOUNT_ATTR_NOSUID: u64 = 0x2;
const MOUNT_ATTR_NODEV: u64 = 0x4;
#[repr(C)]
struct MountAttr {
    attr_set: u64,
    attr_clr: u64,
    propagation: u64,
    userns_fd: u64,
}

/// One step of building the view, all paths prepared in the parent.
#[derive(Debug)]
enum Op {
    Mkdir(CString),
    Touch(CString),
    Symlink {
        target: CString,
        path: CString,
    },
    Bind {
        src: CString,
        dst: CString,
        ro: bool,
    },
    Tmpfs {
        dst: CString,
        data: CString,
    },
    Proc(CString),
}

/// How to build one bot's view: its mount steps and namespaces.
#[derive(Debug)]
pub struct Plan {
    ops: Vec<Op>,
    /// Whether arena is unprivileged: then the namespaces live in a new user namespace.
    user: bool,
    network: bool,
    uid_map: CString,
    gid_map: CString,
    /// The bot's own mounts under the view's private `/tmp` (relative to it), which emptying
    /// `/tmp` between games keeps; `None` if an own path covers `/tmp` itself (then `/tmp` is
    /// not the view's own, and is never emptied).
    tmp_mounts: Option<Vec<CString>>,
    /// Where the command line of the process that clones the holder lies in memory: the
    /// holder, a copy of it (the jail factory's, or arena's where there is no factory), blanks
    /// its copy so that the bot's `/proc/1/cmdline` tells nothing of the tournament.
    pub(super) cmdline: (usize, usize),
}

fn c(path: impl AsRef<[u8]>) -> CString {
    CString::new(path.as_ref().to_vec()).unwrap_or_default()
}

fn under(prefix: &str, path: &Path) -> CString {
    let mut bytes = prefix.as_bytes().to_vec();
    bytes.extend_from_slice(path.as_os_str().as_encoded_bytes());
    c(bytes)
}

impl Plan {
    /// The view of a bot whose copy is `workdir` and which may read `extra_read`.
    pub fn new(workdir: &Path, extra_read: &[PathBuf], allow_network: bool) -> Plan {
        let mut ops = Vec::new();
        let mkdirs = |ops: &mut Vec<Op>, path: &Path| {
            let mut at = PathBuf::from("/");
            for part in path.components().skip(1) {
                at.push(part);
                ops.push(Op::Mkdir(under("/newroot", &at)));
            }
        };
        for dir in SYSTEM_DIRS.iter().map(Path::new) {
            match std::fs::symlink_metadata(dir) {
                Ok(m) if m.file_type().is_symlink() => {
                    if let Ok(target) = std::fs::read_link(dir) {
                        ops.push(Op::Symlink {
                            target: c(target.as_os_str().as_encoded_bytes()),
                            path: under("/newroot", dir),
                        });
                    }
                }
                Ok(m) if m.is_dir() => {
                    mkdirs(&mut ops, dir);
                    ops.push(bind(dir, dir, true));
                }
                _ => {}
            }
        }
        for secret in SECRETS.iter().map(Path::new) {
            if secret.is_file() {
                ops.push(bind(Path::new("/dev/null"), secret, true));
            }
        }
        mkdirs(&mut ops, Path::new("/dev"));
        for dev in DEVICES.iter().map(Path::new) {
            if dev.exists() {
                ops.push(Op::Touch(under("/newroot", dev)));
                ops.push(bind(dev, dev, false));
            }
        }
        for (link, target) in [
            ("/dev/fd", "/proc/self/fd"),
            ("/dev/stdin", "/proc/self/fd/0"),
            ("/dev/stdout", "/proc/self/fd/1"),
            ("/dev/stderr", "/proc/self/fd/2"),
            ("/dev/shm", "/tmp"),
        ] {
            ops.push(Op::Symlink {
                target: c(target),
                path: under("/newroot", Path::new(link)),
            });
        }
        mkdirs(&mut ops, Path::new("/proc"));
        ops.push(Op::Proc(c("/newroot/proc")));
        mkdirs(&mut ops, Path::new("/tmp"));
        ops.push(Op::Tmpfs {
            dst: c("/newroot/tmp"),
            data: c(format!("size={TMP_SIZE},mode=1777")),
        });
        // Parents before children, so that a path inside another is bound on top of it.
        let mut own: Vec<(&Path, bool)> = extra_read
            .iter()
            .filter(|p| !super::is_system_path(p))
            .map(|p| (p.as_path(), true))
            .chain(std::iter::once((workdir, false)))
            .filter(|(p, _)| p.is_absolute() && p.exists())
            .collect();
        own.sort_by_key(|(p, _)| p.components().count());
        let tmp = Path::new("/tmp");
        let tmp_mounts = (!own.iter().any(|(p, _)| tmp.starts_with(p))).then(|| {
            own.iter()
                .filter_map(|(p, _)| p.strip_prefix(tmp).ok())
                .map(|rel| c(rel.as_os_str().as_encoded_bytes()))
                .collect()
        });
        for (path, ro) in own {
            if path.is_dir() {
                mkdirs(&mut ops, path);
            } else {
                if let Some(parent) = path.parent() {
                    mkdirs(&mut ops, parent);
                }
                ops.push(Op::Touch(under("/newroot", path)));
            }
            ops.push(bind(path, path, ro));
        }
        let (uid, gid) = (rustix::process::geteuid(), rustix::process::getegid());
        Plan {
            ops,
            user: !uid.is_root(),
            network: allow_network,
            uid_map: c(format!("{0} {0} 1", uid.as_raw())),
            gid_map: c(format!("{0} {0} 1", gid.as_raw())),
            tmp_mounts,
            cmdline: cmdline_area(),
        }
    }

    /// Whether the namespaces live in a user namespace of their own (arena is not root).
    pub fn user(&self) -> bool {
        self.user
    }

    /// The bot's own mounts under the view's `/tmp`, if `/tmp` is the view's own.
    pub(super) fn tmp_mounts(&self) -> Option<&[CString]> {
        self.tmp_mounts.as_deref()
    }

    /// The namespaces the holder creates and every process of the game joins.
    pub fn flags(&self) -> c_int {
        let mut flags = libc::CLONE_NEWNS | libc::CLONE_NEWIPC | libc::CLONE_NEWPID;
        if self.user {
            flags |= libc::CLONE_NEWUSER;
        }
        if !self.network {
            flags |= libc::CLONE_NEWNET;
        }
        flags
    }
}

/// A [`Plan`] as bytes, to hand to the jail factory (`factory.rs`): each C string as its
/// length (4 bytes) and its bytes, each step as a tag byte and its strings.
pub(super) fn encode(plan: &Plan) -> Vec<u8> {
    fn put(out: &mut Vec<u8>, s: &CString) {
        out.extend_from_slice(&(s.as_bytes().len() as u32).to_le_bytes());
        out.extend_from_slice(s.as_bytes());
    }
    let mut out = vec![u8::from(plan.user), u8::from(plan.network)];
    put(&mut out, &plan.uid_map);
    put(&mut out, &plan.gid_map);
    match &plan.tmp_mounts {
        Some(mounts) => {
            out.extend_from_slice(&(mounts.len() as u32 + 1).to_le_bytes());
            mounts.iter().for_each(|m| put(&mut out, m));
        }
        None => out.extend_from_slice(&0u32.to_le_bytes()),
    }
    for op in &plan.ops {
        match op {
            Op::Mkdir(path) => {
                out.push(0);
                put(&mut out, path);
            }
            Op::Touch(path) => {
                out.push(1);
                put(&mut out, path);
            }
            Op::Symlink { target, path } => {
                out.push(2);
                put(&mut out, target);
                put(&mut out, path);
            }
            Op::Bind { src, dst, ro } => {
                out.push(if *ro { 4 } else { 3 });
                put(&mut out, src);
                put(&mut out, dst);
            }
            Op::Tmpfs { dst, data } => {
                out.push(5);
                put(&mut out, dst);
                put(&mut out, data);
            }
            Op::Proc(path) => {
                out.push(6);
                put(&mut out, path);
            }
        }
    }
    out
}

/// The [`Plan`] of [`encode`]'s bytes, with this process's own command line to blank; `None`
/// if they are not such bytes.
pub(super) fn decode(mut bytes: &[u8]) -> Option<Plan> {
    let mut byte = || -> Option<u8> {
        let (&b, rest) = bytes.split_first()?;
        bytes = rest;
        Some(b)
    };
    let (user, network) = (byte()? != 0, byte()? != 0);
    let word = |bytes: &mut &[u8]| -> Option<u32> {
        let (head, rest) = bytes.split_at_checked(4)?;
        *bytes = rest;
        Some(u32::from_le_bytes(head.try_into().ok()?))
    };
    let string = |bytes: &mut &[u8]| -> Option<CString> {
        let len = word(bytes)? as usize;
        let (head, rest) = bytes.split_at_checked(len)?;
        *bytes = rest;
        CString::new(head).ok()
    };
    let (uid_map, gid_map) = (string(&mut bytes)?, string(&mut bytes)?);
    let tmp_mounts = match word(&mut bytes)? {
        0 => None,
        n => Some(
            (1..n)
                .map(|_| string(&mut bytes))
                .collect::<Option<Vec<_>>>()?,
        ),
    };
    let mut ops = Vec::new();
    while let Some((&tag, rest)) = bytes.split_first() {
        bytes = rest;
        ops.push(match tag {
            0 => Op::Mkdir(string(&mut bytes)?),
            1 => Op::Touch(string(&mut bytes)?),
            2 => Op::Symlink {
                target: string(&mut bytes)?,
                path: string(&mut bytes)?,
            },
            3 | 4 => Op::Bind {
                src: string(&mut bytes)?,
                dst: string(&mut bytes)?,
                ro: tag == 4,
            },
            5 => Op::Tmpfs {
                dst: string(&mut bytes)?,
                data: string(&mut bytes)?,
            },
            6 => Op::Proc(string(&mut bytes)?),
            _ => return None,
        });
    }
    Some(Plan {
        ops,
        user,
        network,
        uid_map,
        gid_map,
        tmp_mounts,
        cmdline: cmdline_area(),
    })
}

/// The addresses of this process's command line (`arg_start`, `arg_end` of `/proc/self/stat`).
fn cmdline_area() -> (usize, usize) {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let fields: Vec<usize> = stat
        .rsplit_once(')')
        .map(|(_, rest)| {
            rest.split_whitespace()
                .map(|f| f.parse().unwrap_or(0))
                .collect()
        })
        .unwrap_or_default();
    // Fields 48 and 49 of the whole line; the split starts at field 3.
    match (fields.get(45), fields.get(46)) {
        (Some(&start), Some(&end)) if start < end => (start, end),
        _ => (0, 0),
    }
}

fn bind(src: &Path, dst: &Path, ro: bool) -> Op {
    Op::Bind {
        src: under("/oldroot", src),
        dst: under("/newroot", dst),
        ro,
    }
}

/// Builds the view; on failure returns the number of the failed step (errno is set).
///
/// # Safety
/// Only raw system calls: callable in the holder between clone and its end.
pub(super) unsafe fn build_view(plan: &Plan) -> Result<bool, i32> {
    let ok = |r: c_int, step: i32| if r == 0 { Ok(()) } else { Err(step) };
    let null = std::ptr::null::<libc::c_char>();
    if plan.user {
        write_file(c"/proc/self/setgroups", b"deny").map_err(|_| 1)?;
        write_file(c"/proc/self/uid_map", plan.uid_map.as_bytes()).map_err(|_| 2)?;
        write_file(c"/proc/self/gid_map", plan.gid_map.as_bytes()).map_err(|_| 3)?;
    }
    ok(
        libc::mount(
            null,
            c"/".as_ptr(),
            null,
            libc::MS_REC | libc::MS_PRIVATE,
            std::ptr::null(),
        ),
        4,
    )?;
    // A tmpfs base, made the root so that the host's whole tree, /tmp included, is reachable
    // at /oldroot while the new root is built at /newroot (bubblewrap's way).
    ok(
        libc::mount(
            c"tmpfs".as_ptr(),
            c"/tmp".as_ptr(),
            c"tmpfs".as_ptr(),
            libc::MS_NOSUID | libc::MS_NODEV,
            c"size=1m,mode=0755".as_ptr().cast(),
        ),
        5,
    )?;
    ok(libc::chdir(c"/tmp".as_ptr()), 6)?;
    ok(libc::mkdir(c"newroot".as_ptr(), 0o755), 7)?;
    ok(libc::mkdir(c"oldroot".as_ptr(), 0o755), 8)?;
    ok(
        libc::mount(
            c"newroot".as_ptr(),
            c"newroot".as_ptr(),
            null,
            libc::MS_BIND | libc::MS_REC,
            std::ptr::null(),
        ),
        9,
    )?;
    ok(
        libc::syscall(libc::SYS_pivot_root, c".".as_ptr(), c"oldroot".as_ptr()) as c_int,
        10,
    )?;
    ok(libc::chdir(c"/".as_ptr()), 11)?;
    let mut proc_mounted = false;
    for (i, op) in plan.ops.iter().enumerate() {
        let step = 100 + i as i32;
        match op {
            Op::Mkdir(path) => {
                if libc::mkdir(path.as_ptr(), 0o755) != 0
                    && *libc::__errno_location() != libc::EEXIST
                {
                    return Err(step);
                }
            }
            Op::Touch(path) => {
                let fd = libc::open(
                    path.as_ptr(),
                    libc::O_WRONLY | libc::O_CREAT | libc::O_CLOEXEC,
                    0o644,
                );
                if fd < 0 {
                    if *libc::__errno_location() != libc::EEXIST
                        && *libc::__errno_location() != libc::EROFS
                    {
                        return Err(step);
                    }
                } else {
                    libc::close(fd);
                }
            }
            Op::Symlink { target, path } => {
                ok(libc::symlink(target.as_ptr(), path.as_ptr()), step)?;
            }
            Op::Bind { src, dst, ro } => {
                ok(
                    libc::mount(
                        src.as_ptr(),
                        dst.as_ptr(),
                        null,
                        libc::MS_BIND | libc::MS_REC,
                        std::ptr::null(),
                    ),
                    step,
                )?;
                if *ro {
                    set_attr(
                        dst,
                        libc::AT_RECURSIVE as u32,
                        MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV,
                    )
                    .map_err(|_| step)?;
                }
            }
            Op::Tmpfs { dst, data } => ok(
                libc::mount(
                    c"tmpfs".as_ptr(),
                    dst.as_ptr(),
                    c"tmpfs".as_ptr(),
                    libc::MS_NOSUID | libc::MS_NODEV,
                    data.as_ptr().cast(),
                ),
                step,
            )?,
            // Mounting a fresh /proc can be refused (a container that masks parts of its
            // own): then the view has no /proc, which Landlock denies anyway.
            Op::Proc(dst) => {
                proc_mounted = libc::mount(
                    c"proc".as_ptr(),
                    dst.as_ptr(),
                    c"proc".as_ptr(),
                    libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC,
                    std::ptr::null(),
                ) == 0;
            }
        }
    }
    ok(libc::umount2(c"/oldroot".as_ptr(), libc::MNT_DETACH), 12)?;
    ok(libc::chdir(c"/newroot".as_ptr()), 13)?;
    ok(
        libc::syscall(libc::SYS_pivot_root, c".".as_ptr(), c".".as_ptr()) as c_int,
        14,
    )?;
    ok(libc::umount2(c".".as_ptr(), libc::MNT_DETACH), 15)?;
    ok(libc::chdir(c"/".as_ptr()), 16)?;
    set_attr(
        c"/",
        0,
        MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV,
    )
    .map_err(|_| 17)?;
    Ok(proc_mounted)
}

/// `mount_setattr`: sets flags on a mount (and, with `AT_RECURSIVE`, the mounts under it)
/// without touching its other, possibly locked, flags.
unsafe fn set_attr(path: &std::ffi::CStr, flags: u32, attr: u64) -> Result<(), ()> {
    let attr = MountAttr {
        attr_set: attr,
        attr_clr: 0,
        propagation: 0,
        userns_fd: 0,
    };
    let r = libc::syscall(
        libc::SYS_mount_setattr,
        libc::AT_FDCWD,
        path.as_ptr(),
        flags,
        &attr as *const MountAttr,
        std::mem::size_of::<MountAttr>(),
    );
    if r == 0 {
        Ok(())
    } else {
        Err(())
    }
}

unsafe fn write_file(path: &std::ffi::CStr, data: &[u8]) -> Result<(), ()> {
    let fd = libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
    if fd < 0 {
        return Err(());
    }
    let n = libc::write(fd, data.as_ptr().cast(), data.len());
    libc::close(fd);
    if n == data.len() as isize {
        Ok(())
    } else {
        Err(())
    }
}
