//! A bot's private namespaces for one game: a small holder process (PID 1 of a new PID
//! namespace, in new mount, IPC and network namespaces, and a user namespace when arena is
//! not root) whose file-system view is built bubblewrap's way, and which the game's processes
//! join with one `setns` each.
//!
//! The view is a fresh, read-only tmpfs root holding read-only binds of the system
//! directories and the operator's shared directories, the bot's own copy (read-write), a few
//! devices, a fresh `/proc` of the PID namespace and a private, size-limited `/tmp`; nothing
//! else of the host. The holder waits on a pipe whose other end only arena holds: when the
//! game ends or arena dies (even by SIGKILL) the pipe closes, the holder exits, and the
//! kernel kills everything left in its PID namespace.

use std::ffi::{c_int, c_void, CString};
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

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
    /// Where arena's command line lies in memory: the holder, a copy of arena, blanks its
    /// copy so that the bot's `/proc/1/cmdline` tells nothing of the tournament.
    cmdline: (usize, usize),
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
            cmdline: cmdline_area(),
        }
    }

    /// Whether the namespaces live in a user namespace of their own (arena is not root).
    pub fn user(&self) -> bool {
        self.user
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

/// The holder of one game's namespaces.
#[derive(Debug)]
pub struct Holder {
    pid: i32,
    /// A pidfd of the holder: processes join its namespaces through it.
    pub(super) pidfd: OwnedFd,
    /// The namespaces to join (`setns` flags).
    pub(super) flags: c_int,
    /// Whether a fresh `/proc` could be mounted in the view.
    pub proc_mounted: bool,
    /// Closing this ends the holder, and with it everything in its PID namespace.
    _keepalive: OwnedFd,
}

/// Holders that ended but were not reaped yet (they wait for the kernel to empty their PID
/// namespace): reaped later, without blocking.
static ENDED: Mutex<Vec<i32>> = Mutex::new(Vec::new());

impl Holder {
    /// Starts a holder and waits until its view is built.
    pub fn start(plan: &Plan) -> io::Result<Holder> {
        let (keep_read, keep_write) = pipe()?;
        let (ready_read, ready_write) = pipe()?;
        let args = HolderArgs {
            plan,
            keep: keep_read.as_raw_fd(),
            ready: ready_write.as_raw_fd(),
        };
        let mut stack = vec![0u8; 64 * 1024];
        // SAFETY: the holder is a copy (no CLONE_VM) of this process running on a copy of
        // `stack`; it makes only raw system calls on the prepared plan and never returns into
        // our code. Signals stay blocked in it, so no handler of ours runs there either.
        let pid = unsafe {
            let mut all: libc::sigset_t = std::mem::zeroed();
            let mut old: libc::sigset_t = std::mem::zeroed();
            libc::sigfillset(&mut all);
            libc::pthread_sigmask(libc::SIG_SETMASK, &all, &mut old);
            let pid = libc::clone(
                holder_main,
                stack.as_mut_ptr().add(stack.len()).cast(),
                plan.flags() | libc::SIGCHLD,
                (&args as *const HolderArgs).cast_mut().cast(),
            );
            let error = io::Error::last_os_error();
            libc::pthread_sigmask(libc::SIG_SETMASK, &old, std::ptr::null_mut());
            if pid < 0 {
                return Err(error);
            }
            pid
        };
        drop((keep_read, ready_write));
        let mut report = [0u8; 8];
        let n = read_full(&ready_read, &mut report);
        let step = i32::from_ne_bytes(report[..4].try_into().unwrap_or_default());
        let value = i32::from_ne_bytes(report[4..].try_into().unwrap_or_default());
        if n != 8 || step >= 0 {
            let mut status = 0;
            // SAFETY: reaping our own child, which has exited or is exiting.
            unsafe { libc::waitpid(pid, &mut status, 0) };
            let error = io::Error::from_raw_os_error(if n == 8 { value } else { libc::EIO });
            return Err(io::Error::new(
                error.kind(),
                format!("cannot build the bot's jail (step {step}): {error}"),
            ));
        }
        let pidfd = rustix::process::pidfd_open(
            rustix::process::Pid::from_raw(pid).expect("clone returned a positive pid"),
            rustix::process::PidfdFlags::empty(),
        )?;
        Ok(Holder {
            pid,
            pidfd,
            flags: plan.flags(),
            proc_mounted: value & 1 != 0,
            _keepalive: keep_write,
        })
    }

    /// The holder's root directory as arena sees it, to reach the view's `/tmp` and `/proc`.
    pub fn root(&self) -> PathBuf {
        PathBuf::from(format!("/proc/{}/root", self.pid))
    }
}

impl Drop for Holder {
    fn drop(&mut self) {
        // The keepalive pipe closes after this: the holder exits once its namespace is empty.
        let mut ended = ENDED.lock().unwrap_or_else(|e| e.into_inner());
        ended.push(self.pid);
        // SAFETY: reaping our own children without blocking.
        ended
            .retain(|&pid| unsafe { libc::waitpid(pid, std::ptr::null_mut(), libc::WNOHANG) } == 0);
    }
}

struct HolderArgs<'a> {
    plan: &'a Plan,
    keep: RawFd,
    ready: RawFd,
}

/// The holder, in its new namespaces: builds the view, reports, then waits for the end.
extern "C" fn holder_main(arg: *mut c_void) -> c_int {
    // SAFETY: `arg` points to our copy of the parent's HolderArgs; everything below is a raw
    // system call on prepared, NUL-terminated strings.
    unsafe {
        let args = &*(arg as *const HolderArgs);
        let report = |step: i32, value: i32| {
            let mut bytes = [0u8; 8];
            bytes[..4].copy_from_slice(&step.to_ne_bytes());
            bytes[4..].copy_from_slice(&value.to_ne_bytes());
            libc::write(args.ready, bytes.as_ptr().cast(), 8);
        };
        let (start, end) = args.plan.cmdline;
        if start != 0 {
            // Our own copy of arena's memory: no other process sees this write.
            std::ptr::write_bytes(start as *mut u8, 0, end - start);
        }
        libc::prctl(libc::PR_SET_NAME, c"arena-jail".as_ptr());
        match build_view(args.plan) {
            Ok(proc_mounted) => report(-1, i32::from(proc_mounted)),
            Err(step) => {
                report(step, *libc::__errno_location());
                libc::_exit(1);
            }
        }
        // Orphans of the namespace are reaped by the kernel.
        let mut ignore: libc::sigaction = std::mem::zeroed();
        ignore.sa_sigaction = libc::SIG_IGN;
        libc::sigaction(libc::SIGCHLD, &ignore, std::ptr::null_mut());
        // Keep only the keepalive pipe, as stdin: any other descriptor of arena (another
        // game's keepalive pipe, above all) would outlive arena here.
        if libc::dup2(args.keep, 0) < 0 {
            libc::_exit(1);
        }
        libc::syscall(libc::SYS_close_range, 1u32, u32::MAX, 0u32);
        let mut byte = 0u8;
        loop {
            let n = libc::read(0, (&mut byte as *mut u8).cast(), 1);
            if n < 0 && *libc::__errno_location() == libc::EINTR {
                continue;
            }
            libc::_exit(0);
        }
    }
}

/// Builds the view; on failure returns the number of the failed step (errno is set).
///
/// # Safety
/// Only raw system calls: callable in the holder between clone and its end.
unsafe fn build_view(plan: &Plan) -> Result<bool, i32> {
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

fn pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0; 2];
    // SAFETY: pipe2 fills two fresh descriptors, which we then own.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: both descriptors were just created and are owned by nobody else.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

fn read_full(fd: &OwnedFd, buf: &mut [u8]) -> usize {
    let mut n = 0;
    while n < buf.len() {
        // SAFETY: reading into the unfilled rest of `buf`.
        let r = unsafe { libc::read(fd.as_raw_fd(), buf[n..].as_mut_ptr().cast(), buf.len() - n) };
        match r {
            r if r > 0 => n += r as usize,
            r if r < 0 && io::Error::last_os_error().kind() == io::ErrorKind::Interrupted => {}
            _ => break,
        }
    }
    n
}

/// Whether this machine lets arena build a jail: tries one, with the system directories only.
pub fn probe(allow_network: bool) -> Result<bool, String> {
    let plan = Plan::new(Path::new("/nonexistent-arena-probe"), &[], allow_network);
    Holder::start(&plan)
        .map(|h| h.proc_mounted)
        .map_err(|e| e.to_string())
}
