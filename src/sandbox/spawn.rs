//! Starting a bot process fast with its sandbox applied: a `vfork`-style clone (as glibc's
//! `posix_spawn` does) that runs the sandbox's raw system calls in the child before `exec`.
//!
//! The standard library falls back to a full `fork` as soon as a command has a `pre_exec`
//! hook, and on this kind of machine that doubles the cost of starting a small bot. Here the
//! child shares the parent's memory until it calls `exec` (the parent waits), so nothing is
//! copied. The process is then watched through a pidfd on tokio's reactor.
//!
//! In a game's namespaces (see `namespace.rs`) a PID namespace takes only processes created
//! after entering it. As root the parent enters it itself for the one clone (per thread,
//! children only) and returns at once; as an ordinary user (whose user namespace only a
//! single-threaded process may enter) the child enters the namespaces and starts the bot as
//! a grandchild made our child (`CLONE_PARENT`), then exits.

use std::ffi::{c_char, c_int, c_void, CString};
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::process::ExitStatusExt;
use std::process::ExitStatus;

use tokio::io::unix::AsyncFd;
use tokio::net::unix::pipe;

use super::ChildSetup;

/// Sends SIGKILL to the process group led by `pid`.
pub fn kill_group(pid: Option<u32>) {
    let Some(pid) = pid.and_then(|p| rustix::process::Pid::from_raw(p as i32)) else {
        return;
    };
    // ESRCH (the group is already empty) is the common, harmless case.
    let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
}

/// What to start.
#[derive(Clone, Copy)]
pub struct SpawnSpec<'a> {
    pub program: &'a CString,
    /// The whole argument vector, `argv[0]` first.
    pub argv: &'a [CString],
    /// The whole environment, `KEY=value`.
    pub envp: &'a [CString],
    pub cwd: &'a CString,
    /// Give the process a pipe on stdin; without one it reads this descriptor (`/dev/null`).
    pub stdin_pipe: bool,
    pub null: RawFd,
    /// The file descriptor the process gets as stdout; without one, a pipe read by arena
    /// ([`Proc::stdout`]).
    pub stdout: Option<RawFd>,
    /// The file descriptor the process gets as stderr.
    pub stderr: RawFd,
    pub setup: Option<ChildSetup>,
    /// Run the program this descriptor opens (`execveat`) rather than `program`'s path: arena's
    /// own executable, which a jail's view does not show (`spawner.rs`).
    pub exec_fd: Option<RawFd>,
}

/// A started process: its pid, pipes, and how to learn when it ends.
pub struct Proc {
    pid: u32,
    reaper: Reaper,
    pub stdin: Option<pipe::Sender>,
    pub stdout: Option<pipe::Receiver>,
    status: Option<ExitStatus>,
}

/// Who learns a process's exit status: arena itself, its parent, through the process's pidfd;
/// or the game's spawner (`spawner.rs`), which started it and reports it.
enum Reaper {
    Own(AsyncFd<OwnedFd>),
    Spawner(std::sync::Arc<super::spawner::Link>),
}

/// Everything the child reads, prepared by the parent: the child may not allocate.
struct ChildArgs {
    program: *const c_char,
    argv: *const *const c_char,
    envp: *const *const c_char,
    cwd: *const c_char,
    stdin: RawFd,
    stdout: RawFd,
    stderr: RawFd,
    setup: Option<ChildSetup>,
    old_mask: libc::sigset_t,
    /// Where the child leaves its errno if it fails before execve: it shares our memory.
    error: c_int,
    /// In a game's namespaces: the stack of the grandchild that execs the bot, and its pid.
    inner_stack: *mut c_void,
    inner_pid: c_int,
    /// `execveat` this descriptor instead of `execve` of `program` (`-1`: no).
    exec_fd: c_int,
    /// Whether the parent may have signal handlers or ignored signals to reset (a spawner has
    /// none); a CPU limit of the child's own (`0`: none), for the processes a spawner starts.
    reset_signals: bool,
    cpu_limit: u64,
}

/// What [`start`] starts: arrays of pointers ending with a null pointer, and the descriptors
/// the process gets as its standard input, output and error.
pub(super) struct Start {
    pub program: *const c_char,
    pub argv: *const *const c_char,
    pub envp: *const *const c_char,
    /// The directory to start in (`null`: the parent's).
    pub cwd: *const c_char,
    pub stdin: RawFd,
    pub stdout: RawFd,
    pub stderr: RawFd,
    pub setup: Option<ChildSetup>,
    pub exec_fd: RawFd,
    pub reset_signals: bool,
    pub cpu_limit: u64,
}

/// The child's stack (and, in a game's namespaces, the grandchild's): the sandbox's calls
/// and `execve` need little.
const STACK_SIZE: usize = 64 * 1024;

/// Starts a process. Fails if it cannot be started (the program is missing, the sandbox
/// refused), with the child's error.
pub fn spawn(spec: &SpawnSpec<'_>) -> io::Result<Proc> {
    let (out_read, out_write) = pipe_if(spec.stdout.is_none())?;
    let (in_read, in_write) = pipe_if(spec.stdin_pipe)?;

    let argv: Vec<*const c_char> = spec
        .argv
        .iter()
        .map(|a| a.as_ptr())
        .chain(std::iter::once(std::ptr::null()))
        .collect();
    let envp: Vec<*const c_char> = spec
        .envp
        .iter()
        .map(|e| e.as_ptr())
        .chain(std::iter::once(std::ptr::null()))
        .collect();
    let pid = start(&Start {
        program: spec.program.as_ptr(),
        argv: argv.as_ptr(),
        envp: envp.as_ptr(),
        cwd: spec.cwd.as_ptr(),
        stdin: in_read.as_ref().map_or(spec.null, |r| r.as_raw_fd()),
        stdout: out_write
            .as_ref()
            .map_or_else(|| spec.stdout.unwrap_or(spec.null), |w| w.as_raw_fd()),
        stderr: spec.stderr,
        setup: spec.setup,
        exec_fd: spec.exec_fd.unwrap_or(-1),
        reset_signals: true,
        cpu_limit: 0,
    })?;
    drop((in_read, out_write));

    let pidfd = rustix::process::pidfd_open(
        rustix::process::Pid::from_raw(pid).expect("clone returned a positive pid"),
        rustix::process::PidfdFlags::NONBLOCK,
    )
    .map_err(io::Error::from)?;
    // SAFETY: the OwnedFd stays open, and the same descriptor, for as long as the AsyncFd
    // owns it.
    let pidfd = unsafe { AsyncFd::register_with_interest(pidfd, tokio::io::Interest::READABLE) }
        .map_err(|e| e.into_parts().1)?;
    Ok(Proc {
        pid: pid as u32,
        reaper: Reaper::Own(pidfd),
        stdin: in_write.map(sender).transpose()?,
        stdout: out_read.map(receiver).transpose()?,
        status: None,
    })
}

/// Starts a process and returns its pid once it has called `execve` (or the child's error,
/// the child reaped): the `vfork`-style clone, and in a game's namespaces the grandchild.
pub(super) fn start(start: &Start) -> io::Result<c_int> {
    let parent_pidns = start.setup.and_then(|s| s.parent_pid_namespace());
    let mut args = ChildArgs {
        program: start.program,
        argv: start.argv,
        envp: start.envp,
        cwd: start.cwd,
        stdin: start.stdin,
        stdout: start.stdout,
        stderr: start.stderr,
        setup: start.setup.map(|s| match parent_pidns {
            Some(_) => s.in_parent_pid_namespace(),
            None => s,
        }),
        // SAFETY: an all-zero sigset_t is a valid (empty) set, overwritten by the clone.
        old_mask: unsafe { std::mem::zeroed() },
        error: 0,
        inner_stack: std::ptr::null_mut(),
        inner_pid: 0,
        exec_fd: start.exec_fd,
        reset_signals: start.reset_signals,
        cpu_limit: start.cpu_limit,
    };
    let joins = args.setup.is_some_and(|s| s.needs_intermediate());
    let own_pidns = parent_pidns.map(|_| own_pid_namespace());
    let pid =
        STACK.with_borrow_mut(|stack| clone_child(stack, &mut args, parent_pidns, own_pidns))?;
    // With CLONE_VFORK the child has called execve or exited by now; if it failed, it left
    // its errno in `args.error`. The volatile read keeps the compiler from assuming `args`
    // is unchanged since the clone.
    // SAFETY: `args` is alive and no longer written by the child.
    let error = unsafe { std::ptr::read_volatile(&args.error) };
    let mut pid = pid;
    if joins {
        // The child entered the game's namespaces, started the bot as our child
        // (CLONE_PARENT) inside them, and exited.
        // SAFETY: as above; then reaping our own child, which has exited.
        let inner = unsafe { std::ptr::read_volatile(&args.inner_pid) };
        // Reaped now, not later: in the game's user namespace its zombie would count as one of
        // the bot's processes (`RLIMIT_NPROC`) until reaped.
        // SAFETY: reaping our own child, which is exiting.
        unsafe { libc::waitpid(pid, std::ptr::null_mut(), 0) };
        pid = inner;
    }
    if error != 0 {
        if pid > 0 {
            let mut status = 0;
            // SAFETY: reaping our own child, which has exited.
            unsafe { libc::waitpid(pid, &mut status, 0) };
        }
        return Err(io::Error::from_raw_os_error(error));
    }
    Ok(pid)
}

thread_local! {
    /// The stacks of this thread's children (the child's, and in a game's namespaces the
    /// grandchild's above it), reused from one start to the next rather than allocated and
    /// zeroed each time: a child is done with them when `clone` returns (CLONE_VFORK), and a
    /// thread starts one child at a time.
    static STACK: std::cell::RefCell<Vec<u8>> = std::cell::RefCell::new(vec![0u8; 2 * STACK_SIZE]);
}

/// Clones the child that sets up and execs the process, on `stack` (`2 * STACK_SIZE` bytes);
/// returns its pid once it has called execve or exited (CLONE_VFORK).
fn clone_child(
    stack: &mut [u8],
    args: &mut ChildArgs,
    parent_pidns: Option<RawFd>,
    own_pidns: Option<RawFd>,
) -> io::Result<c_int> {
    assert_eq!(stack.len(), 2 * STACK_SIZE);
    // SAFETY: the middle of the buffer: the grandchild's stack grows down from there.
    args.inner_stack = unsafe { stack.as_mut_ptr().add(STACK_SIZE) }.cast();
    // SAFETY: signals are blocked around the clone so that no handler of the parent runs on
    // the child's stack while it shares the parent's memory; the child restores the mask
    // after resetting the handlers. `stack` and `args` outlive the child's use of them: with
    // CLONE_VFORK the parent does not return from clone() until the child has called execve
    // or exited.
    unsafe {
        let mut all: libc::sigset_t = std::mem::zeroed();
        libc::sigfillset(&mut all);
        libc::pthread_sigmask(libc::SIG_SETMASK, &all, &mut args.old_mask);
        let top = stack.as_mut_ptr().add(2 * STACK_SIZE);
        if let Some(fd) = parent_pidns {
            if libc::setns(fd, libc::CLONE_NEWPID) != 0 {
                let error = io::Error::last_os_error();
                libc::pthread_sigmask(libc::SIG_SETMASK, &args.old_mask, std::ptr::null_mut());
                return Err(error);
            }
        }
        let pid = libc::clone(
            child_main,
            top.cast(),
            libc::CLONE_VM | libc::CLONE_VFORK | libc::SIGCHLD,
            (args as *mut ChildArgs).cast(),
        );
        let clone_error = io::Error::last_os_error();
        if own_pidns.is_some_and(|own| libc::setns(own, libc::CLONE_NEWPID) != 0) {
            // This thread's next children would start in a bot's PID namespace.
            eprintln!("error: cannot return to arena's own PID namespace");
            std::process::abort();
        }
        libc::pthread_sigmask(libc::SIG_SETMASK, &args.old_mask, std::ptr::null_mut());
        if pid < 0 {
            return Err(clone_error);
        }
        Ok(pid)
    }
}

/// arena's own PID namespace, to return to after starting a bot in a game's.
fn own_pid_namespace() -> RawFd {
    static OWN: std::sync::OnceLock<std::fs::File> = std::sync::OnceLock::new();
    OWN.get_or_init(|| {
        std::fs::File::open("/proc/self/ns/pid").expect("`/proc/self/ns/pid` can be opened")
    })
    .as_raw_fd()
}

/// Leaves the calling child's errno where the parent finds it, and exits.
///
/// # Safety
/// `args` must be the parent's `ChildArgs`, shared with this child (CLONE_VM).
unsafe fn fail(args: *mut ChildArgs) -> c_int {
    let errno = *libc::__errno_location();
    std::ptr::write_volatile(
        &mut (*args).error,
        if errno == 0 { libc::EINVAL } else { errno },
    );
    libc::_exit(127)
}

/// The child, between clone and execve: raw system calls only.
extern "C" fn child_main(arg: *mut c_void) -> c_int {
    // SAFETY: `arg` points to the parent's ChildArgs, alive until this child execs or exits
    // (CLONE_VFORK), and written only here meanwhile. Everything below is a raw system call
    // on prepared values.
    unsafe {
        let args = arg as *mut ChildArgs;
        // Handlers of the parent must not run here; an ignored SIGPIPE (Rust ignores it)
        // must not be inherited by the bot either.
        // (A spawner has none: its children skip the 64 calls.)
        let signals = if (*args).reset_signals {
            1..libc::SIGRTMIN()
        } else {
            0..0
        };
        for signal in signals {
            let mut action: libc::sigaction = std::mem::zeroed();
            if libc::sigaction(signal, std::ptr::null(), &mut action) == 0
                && (action.sa_sigaction != libc::SIG_DFL || signal == libc::SIGPIPE)
                && signal != libc::SIGKILL
                && signal != libc::SIGSTOP
            {
                action.sa_sigaction = libc::SIG_DFL;
                libc::sigaction(signal, &action, std::ptr::null_mut());
            }
        }
        let empty = {
            let mut set: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut set);
            set
        };
        libc::pthread_sigmask(libc::SIG_SETMASK, &empty, std::ptr::null_mut());
        if libc::dup2((*args).stdin, 0) < 0
            || libc::dup2((*args).stdout, 1) < 0
            || libc::dup2((*args).stderr, 2) < 0
        {
            return fail(args);
        }
        if let Some(setup) = &(*args).setup {
            if setup.enter().is_err() {
                return fail(args);
            }
            if setup.needs_intermediate() {
                // setns put only our future children in the game's PID namespace: the bot
                // is one, made our parent's child (CLONE_PARENT) so that arena waits for it.
                // With CLONE_VFORK this returns once it has called execve or failed.
                let pid = libc::clone(
                    child_exec,
                    (*args).inner_stack,
                    libc::CLONE_VM | libc::CLONE_VFORK | libc::CLONE_PARENT | libc::SIGCHLD,
                    arg,
                );
                if pid < 0 {
                    return fail(args);
                }
                std::ptr::write_volatile(&mut (*args).inner_pid, pid);
                libc::_exit(0);
            }
        }
        child_exec(arg)
    }
}

/// The process that becomes the bot: its group, directory and sandbox, then execve.
extern "C" fn child_exec(arg: *mut c_void) -> c_int {
    // SAFETY: as in `child_main`, whose memory (and ChildArgs) this process shares.
    unsafe {
        let args = arg as *mut ChildArgs;
        // Its own process group: the fallback for killing everything without cgroups.
        if libc::setpgid(0, 0) != 0 || (!(*args).cwd.is_null() && libc::chdir((*args).cwd) != 0) {
            return fail(args);
        }
        if let Some(setup) = &(*args).setup {
            if setup.apply().is_err() {
                return fail(args);
            }
        }
        let cpu = (*args).cpu_limit;
        if cpu > 0 {
            let limit = libc::rlimit {
                rlim_cur: cpu,
                rlim_max: cpu + 1,
            };
            if libc::setrlimit(libc::RLIMIT_CPU, &limit) != 0 {
                return fail(args);
            }
        }
        if (*args).exec_fd >= 0 {
            libc::syscall(
                libc::SYS_execveat,
                (*args).exec_fd,
                c"".as_ptr(),
                (*args).argv,
                (*args).envp,
                libc::AT_EMPTY_PATH,
            );
        } else {
            libc::execve((*args).program, (*args).argv, (*args).envp);
        }
        fail(args)
    }
}

impl Proc {
    /// The process id (also its process group id); `0` for a process of a game's spawner.
    pub fn id(&self) -> u32 {
        self.pid
    }

    /// Waits for the process to exit and reaps it.
    pub async fn wait(&mut self) -> io::Result<ExitStatus> {
        if let Some(status) = self.status {
            return Ok(status);
        }
        if let Reaper::Spawner(link) = &self.reaper {
            let status = link.ended().await?;
            self.status = Some(status);
            return Ok(status);
        }
        loop {
            if let Some(status) = self.try_wait()? {
                return Ok(status);
            }
            if let Reaper::Own(pidfd) = &self.reaper {
                let mut ready = pidfd.readable().await?;
                ready.clear_ready();
            }
        }
    }

    /// Reaps the process if it has exited.
    pub fn try_wait(&mut self) -> io::Result<Option<ExitStatus>> {
        if let Some(status) = self.status {
            return Ok(Some(status));
        }
        if let Reaper::Spawner(link) = &self.reaper {
            self.status = link.try_ended()?;
            return Ok(self.status);
        }
        let mut status = 0;
        // SAFETY: waiting for our own child without blocking.
        let pid = unsafe { libc::waitpid(self.pid as i32, &mut status, libc::WNOHANG) };
        match pid {
            0 => Ok(None),
            p if p < 0 => Err(io::Error::last_os_error()),
            _ => {
                let status = ExitStatus::from_raw(status);
                self.status = Some(status);
                Ok(Some(status))
            }
        }
    }

    /// Sends SIGKILL to the process itself (not its group); for a process of a spawner, to
    /// the spawner (the process itself is then killed with the game's cgroup, which arena
    /// kills too, or without one when the game ends and its PID namespace is emptied).
    pub fn kill(&self) {
        if self.status.is_none() {
            let pidfd = match &self.reaper {
                Reaper::Own(pidfd) => pidfd.get_ref(),
                Reaper::Spawner(link) => return link.end(),
            };
            // SAFETY: signalling through our pidfd cannot reach another process even if the
            // pid were reused.
            unsafe {
                libc::syscall(
                    libc::SYS_pidfd_send_signal,
                    pidfd.as_raw_fd(),
                    libc::SIGKILL,
                    std::ptr::null::<libc::siginfo_t>(),
                    0,
                );
            }
        }
    }

    /// Whether everything the process started is killed once it has ended, without arena
    /// killing its cgroup or group: a process of a game's spawner, which does so.
    pub fn swept(&self) -> bool {
        matches!(self.reaper, Reaper::Spawner { .. })
    }

    /// A process a game's spawner starts, with arena's ends of its pipes. Its pid is not
    /// known to arena (`0`).
    pub(super) fn of_spawner(
        link: std::sync::Arc<super::spawner::Link>,
        stdin: Option<OwnedFd>,
        stdout: OwnedFd,
    ) -> io::Result<Proc> {
        Ok(Proc {
            pid: 0,
            reaper: Reaper::Spawner(link),
            stdin: stdin.map(sender).transpose()?,
            stdout: Some(receiver(stdout)?),
            status: None,
        })
    }
}

impl Drop for Proc {
    /// A process dropped before it was reaped (an abandoned game) is killed and reaped.
    fn drop(&mut self) {
        if self.status.is_none() {
            self.kill();
            if let Reaper::Own(_) = &self.reaper {
                let mut status = 0;
                // SAFETY: reaping our own child, which SIGKILL ends promptly.
                unsafe { libc::waitpid(self.pid as i32, &mut status, 0) };
            }
        }
    }
}

/// A pipe's read and write ends if `wanted`.
pub(super) fn pipe_if(wanted: bool) -> io::Result<(Option<OwnedFd>, Option<OwnedFd>)> {
    if !wanted {
        return Ok((None, None));
    }
    let (r, w) = pipe_pair()?;
    Ok((Some(r), Some(w)))
}

pub(super) fn pipe_pair() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0; 2];
    // SAFETY: pipe2 fills two fresh file descriptors, which we then own.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: both descriptors were just created and are owned by nobody else.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

/// Our end of a stdin pipe, made non-blocking for the reactor (the child's end stays
/// blocking, as programs expect).
fn sender(fd: OwnedFd) -> io::Result<pipe::Sender> {
    set_nonblocking(&fd, libc::O_WRONLY)?;
    pipe::Sender::from_owned_fd_unchecked(fd)
}

/// Our end of a stdout pipe, made non-blocking for the reactor.
fn receiver(fd: OwnedFd) -> io::Result<pipe::Receiver> {
    set_nonblocking(&fd, libc::O_RDONLY)?;
    pipe::Receiver::from_owned_fd_unchecked(fd)
}

fn set_nonblocking(fd: &OwnedFd, mode: c_int) -> io::Result<()> {
    // SAFETY: F_SETFL on a descriptor we own; the pipe's only other flag is its access mode.
    if unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_SETFL, mode | libc::O_NONBLOCK) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

#[cfg(test)]
#[path = "spawn_tests.rs"]
mod tests;
