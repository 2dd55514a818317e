//! A game's spawner: a process inside the bot's jail that starts the bot's per-move processes.
//!
//! Entering a jail costs a process about 0.3 ms: it joins the game's cgroups (one migration
//! per hierarchy), its namespaces, drops to the bot's uid, restricts itself with Landlock, a
//! fresh session keyring and the seccomp filter (the kernel compiles and checks the filter for
//! each process that installs it). A bot whose every move is a process (`argv`, `stdin`) pays
//! that at every move. A process forked inside the jail inherits all of it for free, so from
//! its [`FROM_MOVE`]th move on a game gets a spawner: arena's own executable, started as one
//! more process of the bot (every protection of the jail applied, Landlock by itself right
//! after `exec`, as the jail's view does not show arena's executable), serving on a socket
//! pair. For each move arena sends the program, arguments, environment and CPU limit, with
//! the move's stdin and stdout as `SCM_RIGHTS`, and does not wait: the spawner starts the
//! process (its own process group, the CPU limit), and when it ends kills every other process
//! of the bot in the game's PID namespace (`kill(-1)`: all it may signal but itself and the
//! namespace's init, the holder; Landlock lets it signal its own descendants, not those of
//! the moves arena started, which the game's cgroup killed), waits for the end of those it
//! can (a subreaper, the orphans are its children), then sends the exit status, its one
//! message of the move. So a move leaves nothing behind, as with the cgroup kill after a move
//! started by arena, and the spawner is the only process of the bot between moves.
//!
//! The spawner takes none of the bot's processes: its pids cgroups and `RLIMIT_NPROC` get one
//! more while it lives. It has the bot's uid and is the bot's to harm, not arena's: a
//! bot that kills it (`kill -9 -1`) has that move counted by its output (the exit status is
//! then unknown) and its next moves started by arena; one that stops it runs out of time. On a
//! timeout or an abandoned game arena kills the spawner, and the move with the game's cgroup.

use std::ffi::{c_char, CString};
use std::io;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd, RawFd};
use std::os::unix::process::ExitStatusExt;
use std::process::ExitStatus;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rustix::net::RecvFlags;
use tokio::io::unix::AsyncFd;

use super::message::{self, send};
use super::spawn::{pipe_if, pipe_pair, spawn, start, Proc, SpawnSpec, Start};
use super::ChildSetup;

/// The environment variable that makes arena's executable a spawner, serving on its stdin.
const ASKED: &str = "ARENA_SPAWNER";

/// The move of a game of a bot from which its processes come from a spawner. A spawner takes
/// about 2.3 ms to start (arena's executable, loaded afresh) and saves about 0.3 ms a move: a
/// game of fewer moves would not win it back.
pub const FROM_MOVE: u32 = 8;

/// How long a new spawner may take to be ready: past it, it is killed and the game's
/// processes start from arena.
const READY_WAIT: Duration = Duration::from_millis(500);

/// The largest request a spawner takes; a larger one (arguments of hundreds of KiB) is
/// started by arena.
const MAX_REQUEST: usize = 128 << 10;

/// Whether this executable can be a spawner (set by [`main_if_asked`]).
static USABLE: AtomicBool = AtomicBool::new(false);

/// Spawners of this run that could not start. After [`MAX_FAILURES`] (arena's libraries out
/// of the jail's view, say) the run's processes all start from arena.
static FAILURES: AtomicU32 = AtomicU32::new(0);
const MAX_FAILURES: u32 = 3;

/// Serves as a spawner and exits if started as one; otherwise notes that this executable can
/// start one. (Part of arena's `main`, see `sandbox::main_if_asked`.)
pub(super) fn main_if_asked() {
    if std::env::var_os(ASKED).is_some() {
        // SAFETY: standard input is the socket arena gave; nothing else uses it.
        let code = serve(unsafe { BorrowedFd::borrow_raw(0) });
        std::process::exit(code);
    }
    USABLE.store(true, Ordering::Relaxed);
}

/// Whether spawners can be started (arena's executable, not a program linking the library,
/// and they have not kept failing to start in this run).
pub(super) fn usable() -> bool {
    USABLE.load(Ordering::Relaxed) && FAILURES.load(Ordering::Relaxed) < MAX_FAILURES
}

/// A game's spawner, from arena's side.
pub struct Spawner {
    link: Arc<Link>,
    /// The extra process counted for it in the bot's limits, given back when it ends.
    _room: Room,
}

/// The socket to a spawner and the spawner process, shared with the processes it started.
pub struct Link {
    socket: AsyncFd<OwnedFd>,
    spawner: Proc,
    /// Set once the spawner was killed (or answered nonsense): it is not used again.
    gone: AtomicBool,
}

/// The extra process a spawner needs in the bot's limits: its pids cgroups' `pids.max`, raised
/// by one while it lives.
#[derive(Default)]
pub(super) struct Room {
    raised: Vec<Raised>,
}

/// One raised `pids.max`: the file, the bot's limit, and the count of spawners it holds (the
/// bot's v1 cgroup is shared by its games at once; a game's v2 cgroup is its own).
pub(super) struct Raised {
    pub file: std::path::PathBuf,
    pub limit: u32,
    pub spawners: Arc<Mutex<u32>>,
}

impl Room {
    /// Raises each of `raised` by one spawner.
    pub(super) fn make(raised: Vec<Raised>) -> io::Result<Room> {
        let mut room = Room::default();
        for r in raised {
            let mut n = r.spawners.lock().unwrap_or_else(|e| e.into_inner());
            std::fs::write(&r.file, (r.limit + *n + 1).to_string())?;
            *n += 1;
            drop(n);
            room.raised.push(r);
        }
        Ok(room)
    }
}

impl Drop for Room {
    fn drop(&mut self) {
        for r in &self.raised {
            let mut n = r.spawners.lock().unwrap_or_else(|e| e.into_inner());
            *n = n.saturating_sub(1);
            let _ = std::fs::write(&r.file, (r.limit + *n).to_string());
        }
    }
}

/// Arena's executable, to `execveat` in a jail whose view does not show it.
fn own_executable() -> io::Result<RawFd> {
    static EXE: std::sync::OnceLock<Result<OwnedFd, i32>> = std::sync::OnceLock::new();
    let fd = EXE.get_or_init(|| {
        rustix::fs::open(
            "/proc/self/exe",
            rustix::fs::OFlags::PATH | rustix::fs::OFlags::CLOEXEC,
            rustix::fs::Mode::empty(),
        )
        .map_err(|e| e.raw_os_error())
    });
    match fd {
        Ok(fd) => Ok(fd.as_raw_fd()),
        Err(errno) => Err(io::Error::from_raw_os_error(*errno)),
    }
}

impl Spawner {
    /// Starts a spawner with `setup` (a process of the jail's, for the whole game) and the
    /// jail's Landlock ruleset `landlock`, in `cwd`, its stderr and its processes' into
    /// `stderr`; waits for it to be ready.
    pub(super) fn start(
        setup: ChildSetup,
        landlock: Option<BorrowedFd<'_>>,
        cwd: &CString,
        stderr: RawFd,
        room: Room,
    ) -> io::Result<Spawner> {
        let link = Link::start(setup, landlock, cwd, stderr);
        let link = link.inspect_err(|_| {
            FAILURES.fetch_add(1, Ordering::Relaxed);
        })?;
        Ok(Spawner {
            link: Arc::new(link),
            _room: room,
        })
    }

    /// Whether it still serves.
    pub fn alive(&self) -> bool {
        !self.link.gone.load(Ordering::Relaxed)
    }

    /// Asks it to start `spec`'s program, arguments and environment (its stdin a pipe or
    /// `spec.null`, its stdout a pipe) under a CPU limit of `cpu_seconds`; `None` if it
    /// cannot (it is gone, the request is too large, or `spec` wants another stdout): then
    /// arena starts the process. Arena does not wait for the start: a process that could not
    /// start ends as if it exited with 127, having said why on the game's stderr.
    pub fn spawn(&self, spec: &SpawnSpec<'_>, cpu_seconds: u64) -> Option<io::Result<Proc>> {
        let mut request = vec![b'Q'];
        request.extend(cpu_seconds.to_le_bytes());
        request.extend((spec.argv.len() as u32).to_le_bytes());
        request.extend((spec.envp.len() as u32).to_le_bytes());
        for s in std::iter::once(spec.program)
            .chain(spec.argv)
            .chain(spec.envp)
        {
            request.extend(s.as_bytes_with_nul());
        }
        if request.len() > MAX_REQUEST || spec.stdout.is_some() || !self.alive() {
            return None;
        }
        let pipes = pipe_pair().and_then(|out| Ok((out, pipe_if(spec.stdin_pipe)?)));
        let ((out_read, out_write), (in_read, in_write)) = match pipes {
            Ok(pipes) => pipes,
            Err(e) => return Some(Err(e)),
        };
        // SAFETY: `spec.null` is open for the call.
        let null = unsafe { BorrowedFd::borrow_raw(spec.null) };
        let stdin = in_read.as_ref().map_or(null, |r| r.as_fd());
        let socket = self.link.socket.get_ref().as_fd();
        if send(socket, &request, &[stdin, out_write.as_fd()]).is_err() {
            self.link.end();
            return None;
        }
        drop((in_read, out_write));
        let link = Arc::clone(&self.link);
        Some(Proc::of_spawner(link, in_write, out_read))
    }
}

impl std::fmt::Debug for Spawner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Spawner")
            .field("pid", &self.link.spawner.id())
            .field("alive", &self.alive())
            .finish()
    }
}

impl Link {
    /// Starts a spawner (see [`Spawner::start`]) and waits for it to be ready.
    fn start(
        setup: ChildSetup,
        landlock: Option<BorrowedFd<'_>>,
        cwd: &CString,
        stderr: RawFd,
    ) -> io::Result<Link> {
        let (ours, theirs) = message::pair()?;
        let null = std::fs::File::open("/dev/null")?;
        let mut envp = vec![CString::from(c"ARENA_SPAWNER=1")];
        // The dynamic loader may need it to find arena's libraries.
        if let Some(path) = std::env::var_os("LD_LIBRARY_PATH") {
            let pair = [b"LD_LIBRARY_PATH=", path.as_encoded_bytes()].concat();
            envp.extend(CString::new(pair).ok());
        }
        let argv = [CString::from(c"arena-spawner")];
        let spawner = spawn(&SpawnSpec {
            program: &argv[0],
            argv: &argv,
            envp: &envp,
            cwd,
            stdin_pipe: false,
            // The socket is its stdin.
            null: theirs.as_raw_fd(),
            stdout: Some(null.as_raw_fd()),
            stderr,
            setup: Some(setup.for_spawner()),
            exec_fd: Some(own_executable()?),
        })?;
        drop(theirs);
        let fds: Vec<BorrowedFd<'_>> = landlock.into_iter().collect();
        send(ours.as_fd(), b"I", &fds)?;
        rustix::io::ioctl_fionbio(&ours, true)?;
        let link = Link {
            // SAFETY: the OwnedFd stays open, and the same descriptor, as long as the AsyncFd
            // owns it.
            socket: unsafe { AsyncFd::register_with_interest(ours, tokio::io::Interest::READABLE) }
                .map_err(|e| e.into_parts().1)?,
            spawner,
            gone: AtomicBool::new(false),
        };
        let mut answer = [0u8; 5];
        let n = link.answer(&mut answer, Some(READY_WAIT))?;
        let errno = i32::from_le_bytes(answer[1..5].try_into().unwrap_or_default());
        if n != 5 || answer[0] != b'R' || errno != 0 {
            link.end();
            return Err(match errno {
                0 => not_an_answer(),
                e => io::Error::from_raw_os_error(e),
            });
        }
        Ok(link)
    }

    /// Reads the spawner's next message into `buf`, waiting at most `wait` (`None`: not at
    /// all; would-block is an error). A closed socket is an error.
    fn answer(&self, buf: &mut [u8], wait: Option<Duration>) -> io::Result<usize> {
        if let Some(wait) = wait {
            let mut poll = libc::pollfd {
                fd: self.socket.get_ref().as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            };
            let until = Instant::now() + wait;
            loop {
                let left = until.saturating_duration_since(Instant::now());
                let ms = i32::try_from(left.as_millis()).unwrap_or(i32::MAX);
                // SAFETY: polling one descriptor we own.
                match unsafe { libc::poll(&mut poll, 1, ms) } {
                    0 => return Err(io::ErrorKind::TimedOut.into()),
                    n if n > 0 => break,
                    _ if io::Error::last_os_error().kind() == io::ErrorKind::Interrupted => {}
                    _ => return Err(io::Error::last_os_error()),
                }
            }
        }
        let socket = self.socket.get_ref().as_fd();
        let (n, _) = message::receive(socket, buf, RecvFlags::DONTWAIT)?;
        if n == 0 {
            return Err(io::ErrorKind::UnexpectedEof.into());
        }
        Ok(n)
    }

    /// The exit status of the process being run, if the spawner reported it. A spawner that
    /// ended meanwhile (killed by the bot: it has the bot's uid) leaves the status unknown:
    /// taken as `0`, so that the move counts by its output, as any move does (see
    /// `player::process`); the game's next processes start from arena.
    pub(super) fn try_ended(&self) -> io::Result<Option<ExitStatus>> {
        let mut answer = [0u8; 5];
        match self.answer(&mut answer, None) {
            Ok(5) if answer[0] == b'E' => {
                let raw = i32::from_le_bytes(answer[1..5].try_into().unwrap_or_default());
                Ok(Some(ExitStatus::from_raw(raw)))
            }
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => Ok(None),
            // Killed by arena, which then kills the process with the game's cgroup.
            Err(_) if self.gone.load(Ordering::Relaxed) => {
                Ok(Some(ExitStatus::from_raw(libc::SIGKILL)))
            }
            Err(_) => {
                self.end();
                Ok(Some(ExitStatus::from_raw(0)))
            }
            Ok(_) => {
                self.end();
                Err(not_an_answer())
            }
        }
    }

    /// Waits for the end of the process being run.
    pub(super) async fn ended(&self) -> io::Result<ExitStatus> {
        loop {
            if let Some(status) = self.try_ended()? {
                return Ok(status);
            }
            self.socket.readable().await?.clear_ready();
        }
    }

    /// Ends the spawner; the game's processes start from arena again.
    pub(super) fn end(&self) {
        self.gone.store(true, Ordering::Relaxed);
        self.spawner.kill();
    }
}

fn not_an_answer() -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, "not a spawner's answer")
}

/// The spawner's side: restricts itself with the Landlock ruleset of the first message, says
/// it is ready, then starts a process per request until arena closes the socket. Its exit code.
fn serve(socket: BorrowedFd<'_>) -> i32 {
    // SAFETY: process attributes and signal dispositions, set before anything else runs.
    unsafe {
        libc::prctl(libc::PR_SET_NAME, c"arena-spawner".as_ptr());
        // Not readable through `/proc/PID/mem` by the bot's processes, of the same uid.
        libc::prctl(libc::PR_SET_DUMPABLE, 0);
        // The orphans of the processes it starts are its children, to reap (`reap_until`).
        libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1);
        // No handler and no ignored signal for the processes it starts (Rust ignores SIGPIPE
        // and handles SIGSEGV and SIGBUS): so they need no reset between clone and exec.
        for signal in [libc::SIGPIPE, libc::SIGSEGV, libc::SIGBUS] {
            libc::signal(signal, libc::SIG_DFL);
        }
    }
    let socket = socket.as_fd();
    let mut buf = vec![0u8; MAX_REQUEST];
    let Ok((n, fds)) = receive(socket, &mut buf) else {
        return 1;
    };
    if n != 1 || buf[0] != b'I' {
        return 1;
    }
    let restricted = match fds.first() {
        Some(ruleset) => restrict(ruleset),
        None => Ok(()),
    };
    let errno = restricted
        .err()
        .map_or(0, |e| e.raw_os_error().unwrap_or(libc::EPERM));
    let ready = [&[b'R'][..], &errno.to_le_bytes()].concat();
    if errno != 0 || send(socket, &ready, &[]).is_err() {
        return 1;
    }
    drop(fds);
    loop {
        let Ok((n, fds)) = receive(socket, &mut buf) else {
            return 0;
        };
        let Some((cpu, program, argv, envp)) = parse(&buf[..n]) else {
            return 1;
        };
        let [stdin, stdout]: [OwnedFd; 2] = match fds.try_into() {
            Ok(fds) => fds,
            Err(_) => return 1,
        };
        let started = start(&Start {
            program,
            argv: argv.as_ptr(),
            envp: envp.as_ptr(),
            cwd: std::ptr::null(),
            stdin: stdin.as_raw_fd(),
            stdout: stdout.as_raw_fd(),
            stderr: 2,
            setup: None,
            exec_fd: -1,
            reset_signals: false,
            cpu_limit: cpu,
        });
        drop((stdin, stdout));
        let mut status = 127 << 8;
        match started {
            Ok(pid) => status = reap_until(pid).unwrap_or(status),
            // As a shell says it, on the game's stderr (the bot's log).
            Err(e) => eprintln!("arena: cannot start the bot's program: {e}"),
        }
        // Everything else the move started: all this process may signal in the game's PID
        // namespace but itself and the holder (its init); then waits until those that were
        // its descendants are gone, so that they hold none of the bot's processes when the
        // next move starts.
        // SAFETY: a plain system call.
        unsafe { libc::kill(-1, libc::SIGKILL) };
        reap_until(0);
        let ended = [&[b'E'][..], &status.to_le_bytes()].concat();
        if send(socket, &ended, &[]).is_err() {
            return 0;
        }
    }
}

/// Reaps this process's children (the processes it started, and as a subreaper their
/// orphans) until `pid` has ended, returning its wait status; with `pid` 0, until none is
/// left.
fn reap_until(pid: i32) -> Option<i32> {
    loop {
        let mut status = 0;
        // SAFETY: waiting for our own children.
        match unsafe { libc::waitpid(-1, &mut status, 0) } {
            p if p == pid && p > 0 => return Some(status),
            p if p > 0 => {}
            _ if io::Error::last_os_error().kind() == io::ErrorKind::Interrupted => {}
            _ => return None,
        }
    }
}

/// Reads arena's next message (blocking); the end of the stream is an error.
fn receive(socket: BorrowedFd<'_>, buf: &mut [u8]) -> io::Result<(usize, Vec<OwnedFd>)> {
    match message::receive(socket, buf, RecvFlags::empty())? {
        (0, _) => Err(io::ErrorKind::UnexpectedEof.into()),
        got => Ok(got),
    }
}

/// `PR_SET_NO_NEW_PRIVS` and the Landlock ruleset `ruleset` on this process.
fn restrict(ruleset: &OwnedFd) -> io::Result<()> {
    // SAFETY: plain system calls on a descriptor we own.
    unsafe {
        if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0
            || libc::syscall(libc::SYS_landlock_restrict_self, ruleset.as_raw_fd(), 0) != 0
        {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

/// A request: its CPU limit, then pointers into `bytes` (null-terminated arrays).
type Request = (u64, *const c_char, Vec<*const c_char>, Vec<*const c_char>);

/// Reads a request: `Q`, the CPU limit, the counts of arguments and variables, then the
/// program, the arguments and the variables, each ending with a NUL.
fn parse(bytes: &[u8]) -> Option<Request> {
    let rest = bytes.strip_prefix(b"Q")?;
    let cpu = u64::from_le_bytes(rest.get(..8)?.try_into().ok()?);
    let argc = u32::from_le_bytes(rest.get(8..12)?.try_into().ok()?) as usize;
    let envc = u32::from_le_bytes(rest.get(12..16)?.try_into().ok()?) as usize;
    let strings = rest.get(16..)?;
    let mut starts = Vec::with_capacity(1 + argc + envc);
    let mut at = 0;
    while at < strings.len() {
        let len = strings[at..].iter().position(|&b| b == 0)?;
        starts.push(strings[at..].as_ptr().cast::<c_char>());
        at += len + 1;
    }
    if starts.len() != 1 + argc + envc || argc == 0 {
        return None;
    }
    let mut argv = starts[1..=argc].to_vec();
    argv.push(std::ptr::null());
    let mut envp = starts[1 + argc..].to_vec();
    envp.push(std::ptr::null());
    Some((cpu, starts[0], argv, envp))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_is_read_back_as_the_program_arguments_and_environment_sent() {
        let mut request = vec![b'Q'];
        request.extend(7u64.to_le_bytes());
        request.extend(2u32.to_le_bytes());
        request.extend(1u32.to_le_bytes());
        request.extend(b"/bot\0/bot\0x y\0A=1\0");
        let (cpu, program, argv, envp) = parse(&request).unwrap();
        // SAFETY: the pointers point into `request`, at NUL-terminated strings.
        let s = |p: *const c_char| unsafe { std::ffi::CStr::from_ptr(p) }.to_str().unwrap();
        assert_eq!((cpu, s(program)), (7, "/bot"));
        assert_eq!(
            (s(argv[0]), s(argv[1]), argv[2]),
            ("/bot", "x y", std::ptr::null())
        );
        assert_eq!((s(envp[0]), envp[1]), ("A=1", std::ptr::null()));
        // Counts that do not match the strings, or a string without its NUL: refused.
        let mut short = request.clone();
        short.pop();
        assert!(parse(&short).is_none());
        request[9] = 3;
        assert!(parse(&request).is_none());
    }
}
