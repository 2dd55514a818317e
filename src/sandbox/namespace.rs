//! A bot's private namespaces for its games: a small holder process (PID 1 of a new PID
//! namespace, in new mount, IPC and network namespaces, and a user namespace when arena is
//! not root) whose file-system view is built bubblewrap's way, and which the game's processes
//! join with one `setns` each. Starting one costs milliseconds of kernel time, so a bot's
//! holders are kept in its jail's pool (`pool.rs`) between games and reset for the next one
//! (`reset.rs`: no process, no IPC object and nothing in `/tmp` of the previous game).
//!
//! The view is a fresh, read-only tmpfs root holding read-only binds of the system
//! directories and the operator's shared directories, the bot's own copy (read-write), a few
//! devices, a fresh `/proc` of the PID namespace and a private, size-limited `/tmp`; nothing
//! else of the host. The holder waits on a pipe whose other end only arena holds, for commands
//! (a byte: reset, or stop, continue or kill every process of the namespace, which reaches a
//! bot's processes however they regrouped, see [`Signals`]): when the jail ends or
//! arena dies (even by SIGKILL) the pipe closes, the holder exits, and the kernel kills
//! everything left in its PID namespace.

use std::ffi::{c_int, c_void};
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use super::reset::{clear_tmp, open_dir, open_queues, reset};
use super::view::{build_view, Plan};

/// The holder of one game's namespaces (of one game at a time).
#[derive(Debug)]
pub struct Holder {
    pub(super) pid: i32,
    /// Whether it is this process's child (cloned here, not by the jail factory), to reap.
    ours: bool,
    /// A pidfd of the holder: processes join its namespaces through it.
    pub(super) pidfd: OwnedFd,
    /// The namespaces to join (`setns` flags).
    pub(super) flags: c_int,
    /// Whether a fresh `/proc` could be mounted in the view.
    pub proc_mounted: bool,
    /// Whether the holder can be reset for another game: with a `/proc` of its own to check
    /// that no process is left, and a `/tmp` of the view's own to empty.
    pub(super) reusable: bool,
    /// The view's `/tmp`, opened before any game, if it is the view's own.
    tmp: Option<OwnedFd>,
    /// The bot's Landlock ruleset for this holder's view, built for its first game.
    pub(super) landlock: std::sync::OnceLock<OwnedFd>,
    /// The holder's commands (a byte: reset for the next game). Closing this ends the
    /// holder, and with it everything in its PID namespace.
    commands: OwnedFd,
    /// The holder's reports (step and errno): its view built, then each reset done.
    reports: OwnedFd,
    /// The game cgroup its last game left, empty, for the next (see `cgroup.rs`).
    cgroup: Mutex<Option<super::cgroup::GameCgroup>>,
}

/// How long arena waits for a holder's reset before giving up on it (the holder itself
/// gives up sooner, see `reset.rs`).
const RESET_WAIT: Duration = Duration::from_secs(5);

/// Holders that ended but were not reaped yet (they wait for the kernel to empty their PID
/// namespace): reaped later, without blocking.
static ENDED: Mutex<Vec<i32>> = Mutex::new(Vec::new());

impl Holder {
    /// Starts a holder and waits until its view is built: cloned by the jail factory when
    /// there is one (`factory.rs`), else from this process.
    pub fn start(plan: &Plan) -> io::Result<Holder> {
        let (started, ours) = match super::factory::start(plan) {
            Some(started) => (started?, false),
            None => (clone_holder(plan)?, true),
        };
        let Started {
            pid,
            pidfd,
            commands,
            reports,
        } = started;
        let (n, step, value) = read_report(&reports);
        if n != 8 || step >= 0 {
            if ours {
                let mut status = 0;
                // SAFETY: reaping our own child, which has exited or is exiting.
                unsafe { libc::waitpid(pid, &mut status, 0) };
            }
            let error = io::Error::from_raw_os_error(if n == 8 { value } else { libc::EIO });
            return Err(io::Error::new(
                error.kind(),
                format!("cannot build the bot's jail (step {step}): {error}"),
            ));
        }
        let tmp = plan
            .tmp_mounts()
            .and_then(|_| open_dir(&PathBuf::from(format!("/proc/{pid}/root/tmp"))).ok());
        Ok(Holder {
            pid,
            ours,
            pidfd,
            flags: plan.flags(),
            proc_mounted: value & 1 != 0,
            reusable: value & 1 != 0 && tmp.is_some(),
            tmp,
            landlock: std::sync::OnceLock::new(),
            commands,
            reports,
            cgroup: Mutex::new(None),
        })
    }

    /// Asks the holder to reset its namespaces for another game; `false` if it is gone.
    pub(super) fn request_reset(&self) -> bool {
        // SAFETY: writing one byte from a live buffer to our own pipe; SIGPIPE is ignored in
        // arena, so a holder that died gives EPIPE.
        unsafe { libc::write(self.commands.as_raw_fd(), b"r".as_ptr().cast(), 1) == 1 }
    }

    /// Empties the view's `/tmp` after a reset: whether it could.
    pub(super) fn clear_tmp(&self, plan: &Plan) -> bool {
        match (&self.tmp, plan.tmp_mounts()) {
            (Some(tmp), Some(mounts)) => clear_tmp(tmp, mounts).is_ok(),
            _ => false,
        }
    }

    /// Waits for the holder's report on the reset asked for: whether it succeeded.
    pub(super) fn reset_done(&self) -> bool {
        let mut poll = libc::pollfd {
            fd: self.reports.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        let timeout = RESET_WAIT.as_millis() as c_int;
        // SAFETY: polling one descriptor we own, through a live pollfd.
        let ready = loop {
            match unsafe { libc::poll(&mut poll, 1, timeout) } {
                r if r < 0 && io::Error::last_os_error().kind() == io::ErrorKind::Interrupted => {}
                r => break r > 0,
            }
        };
        ready && matches!(read_report(&self.reports), (8, -1, _))
    }

    /// Keeps `cgroup`, empty, for the holder's next game.
    pub(super) fn keep_cgroup(&self, cgroup: super::cgroup::GameCgroup) {
        *self.cgroup.lock().unwrap_or_else(|e| e.into_inner()) = Some(cgroup);
    }

    /// The game cgroup the holder's last game left, if it kept one.
    pub(super) fn take_cgroup(&self) -> Option<super::cgroup::GameCgroup> {
        self.cgroup.lock().unwrap_or_else(|e| e.into_inner()).take()
    }

    /// What stops, continues or kills every process of this holder's PID namespace (a bot's
    /// helper in a session of its own too), for as long as the result lives.
    pub(super) fn signals(&self) -> io::Result<Signals> {
        Ok(Signals {
            commands: self.commands.try_clone()?,
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
        // The jail factory reaps its own; a pid of one of them is never waited for here, where
        // it may by then name another child of ours.
        if !self.ours {
            return;
        }
        let mut ended = ENDED.lock().unwrap_or_else(|e| e.into_inner());
        ended.push(self.pid);
        // SAFETY: reaping our own children without blocking.
        ended
            .retain(|&pid| unsafe { libc::waitpid(pid, std::ptr::null_mut(), libc::WNOHANG) } == 0);
    }
}

/// Stops, continues or kills every process of a holder's PID namespace but the holder: the
/// holder, PID 1 there, sends `SIGSTOP`, `SIGCONT` or `SIGKILL` with `kill(-1)`, which reaches
/// each process of the namespace whatever its process group or session, and the children being
/// forked meanwhile (the kernel hands a signal sent to many processes on to a fork under way).
#[derive(Debug)]
pub struct Signals {
    /// A copy of the holder's command pipe; commands are done in the order written, before a
    /// reset asked for after them.
    commands: OwnedFd,
}

impl Signals {
    /// Stops (`true`) or continues every process of the namespace; the holder does it at once.
    pub fn stop(&self, stopped: bool) {
        self.send(if stopped { STOP } else { CONTINUE });
    }

    /// Kills every process of the namespace; the holder does it at once.
    pub fn kill(&self) {
        self.send(KILL);
    }

    fn send(&self, command: u8) {
        // SAFETY: writing one byte from a live buffer to our own pipe; SIGPIPE is ignored in
        // arena, so a holder that ended gives EPIPE, and there is nothing left to signal.
        unsafe { libc::write(self.commands.as_raw_fd(), [command].as_ptr().cast(), 1) };
    }
}

/// The holder's commands: stop, continue or kill the namespace's processes; any other byte
/// resets.
const STOP: u8 = b's';
const CONTINUE: u8 = b'c';
const KILL: u8 = b'k';

/// A holder just cloned, still building its view.
pub(super) struct Started {
    pub pid: i32,
    /// A pidfd of the holder.
    pub pidfd: OwnedFd,
    /// The write end of its command pipe (its keepalive).
    pub commands: OwnedFd,
    /// The read end of its report pipe.
    pub reports: OwnedFd,
}

/// Clones a holder of `plan` from this process: arena itself, or the jail factory. Its first
/// report (its view built, or the step that failed) is left for the caller to read.
pub(super) fn clone_holder(plan: &Plan) -> io::Result<Started> {
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
    let pidfd = rustix::process::pidfd_open(
        rustix::process::Pid::from_raw(pid).expect("clone returned a positive pid"),
        rustix::process::PidfdFlags::empty(),
    );
    let pidfd = match pidfd {
        Ok(fd) => fd,
        Err(e) => {
            // Its keepalive closes with this return: it ends, and is reaped with the others.
            ENDED.lock().unwrap_or_else(|e| e.into_inner()).push(pid);
            return Err(e.into());
        }
    };
    Ok(Started {
        pid,
        pidfd,
        commands: keep_write,
        reports: ready_read,
    })
}

struct HolderArgs<'a> {
    plan: &'a Plan,
    keep: RawFd,
    ready: RawFd,
}

/// The holder, in its new namespaces: builds the view, reports, then resets its namespaces
/// on each command until its pipe closes.
extern "C" fn holder_main(arg: *mut c_void) -> c_int {
    // SAFETY: `arg` points to our copy of the parent's HolderArgs; everything below is a raw
    // system call on prepared, NUL-terminated strings.
    unsafe {
        let args = &*(arg as *const HolderArgs);
        // Keep only the keepalive pipe (as stdin) and the report pipe (as stdout): any other
        // descriptor of arena (another game's keepalive pipe, a bot's output pipe) would
        // outlive its use here.
        // Moved above the standard descriptors first, so that neither lands on the other.
        let keep = libc::fcntl(args.keep, libc::F_DUPFD, 3);
        let ready = libc::fcntl(args.ready, libc::F_DUPFD, 3);
        if keep < 0 || ready < 0 || libc::dup2(keep, 0) < 0 || libc::dup2(ready, 1) < 0 {
            libc::_exit(1);
        }
        libc::syscall(libc::SYS_close_range, 2u32, u32::MAX, 0u32);
        let report = |step: i32, value: i32| {
            let mut bytes = [0u8; 8];
            bytes[..4].copy_from_slice(&step.to_ne_bytes());
            bytes[4..].copy_from_slice(&value.to_ne_bytes());
            libc::write(1, bytes.as_ptr().cast(), 8);
        };
        let (start, end) = args.plan.cmdline;
        if start != 0 {
            // Our own copy of the cloning process's memory: no other process sees this write.
            std::ptr::write_bytes(start as *mut u8, 0, end - start);
        }
        libc::prctl(libc::PR_SET_NAME, c"arena-jail".as_ptr());
        let queues = match build_view(args.plan) {
            Ok(proc_mounted) => {
                let queues = open_queues();
                report(-1, i32::from(proc_mounted));
                queues
            }
            Err(step) => {
                report(step, *libc::__errno_location());
                libc::_exit(1);
            }
        };
        // Orphans of the namespace are reaped by the kernel.
        let mut ignore: libc::sigaction = std::mem::zeroed();
        ignore.sa_sigaction = libc::SIG_IGN;
        libc::sigaction(libc::SIGCHLD, &ignore, std::ptr::null_mut());
        let mut byte = 0u8;
        loop {
            let n = libc::read(0, (&mut byte as *mut u8).cast(), 1);
            if n < 0 && *libc::__errno_location() == libc::EINTR {
                continue;
            }
            if n != 1 {
                libc::_exit(0);
            }
            // Every process of the namespace but the holder itself; no report.
            match byte {
                STOP => {
                    libc::kill(-1, libc::SIGSTOP);
                    continue;
                }
                CONTINUE => {
                    libc::kill(-1, libc::SIGCONT);
                    continue;
                }
                KILL => {
                    libc::kill(-1, libc::SIGKILL);
                    continue;
                }
                _ => {}
            }
            match reset(queues) {
                Ok(()) => report(-1, 0),
                // Never reused: ending takes the rest of the namespace with it.
                Err(step) => {
                    report(step, *libc::__errno_location());
                    libc::_exit(1);
                }
            }
        }
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

/// The next report of a holder: the bytes read (8 for a whole report), the step (`-1`: done)
/// and a value (errno of a failed step).
fn read_report(fd: &OwnedFd) -> (usize, i32, i32) {
    let mut report = [0u8; 8];
    let n = read_full(fd, &mut report);
    let step = i32::from_ne_bytes(report[..4].try_into().unwrap_or_default());
    let value = i32::from_ne_bytes(report[4..].try_into().unwrap_or_default());
    (n, step, value)
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

#[cfg(test)]
#[path = "namespace_tests.rs"]
mod tests;
