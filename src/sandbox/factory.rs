//! The jail factory: arena's own executable started afresh, a small process from which the
//! namespace holders (`namespace.rs`) are cloned.
//!
//! A holder is a `clone` of the process that starts it. Cloned from arena, it copies arena's
//! page tables (tens of MiB with a large field), arena then copies each page it writes while
//! the holder lives, and the holder's end unmaps it all again: about half of a holder's cost,
//! paid in nearly every game of a field too large for its holders to be kept. The factory has
//! next to nothing mapped, so its clones cost little, and a holder shows the bot nothing of
//! arena's memory, command line or environment (the factory has none of them).
//!
//! arena sends a [`Plan`] (`view::encode`) over a socket pair; the factory clones the holder
//! and sends back its pid and, as `SCM_RIGHTS`, its pidfd, the write end of its command pipe
//! and the read end of its report pipe, keeping none of them: the holder still ends when
//! arena closes its command pipe, and the factory ends when arena closes the socket (both
//! when arena dies). The factory reaps the holders, its children.
//!
//! Only arena's executable can be a factory ([`main_if_asked`], the first thing its `main`
//! does); a program that links the library without it (the unit tests) clones holders from
//! itself, through the same `namespace::clone_holder`.

use std::io;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use rustix::net::{RecvFlags, SendFlags};

use super::message;
use super::namespace::{clone_holder, Started};
use super::view::{decode, encode, Plan};

/// The environment variable that makes arena's executable a jail factory, serving on its
/// standard input.
const ASKED: &str = "ARENA_JAIL_FACTORY";

/// The largest plan the factory takes (a plan is a few KiB).
const MAX_PLAN: usize = 1 << 20;

/// Whether this executable can be a factory (set by [`main_if_asked`]).
static USABLE: AtomicBool = AtomicBool::new(false);

/// The factory of this process, started at its first holder.
static FACTORY: Mutex<Option<Factory>> = Mutex::new(None);

struct Factory {
    child: Child,
    socket: OwnedFd,
}

/// The first thing arena's `main` does: serves as a jail factory and exits if started as one;
/// otherwise notes that this executable can start one.
pub fn main_if_asked() {
    if std::env::var_os(ASKED).is_some() {
        // SAFETY: standard input is the socket arena gave; nothing else in this process
        // uses it.
        serve(unsafe { BorrowedFd::borrow_raw(0) });
        std::process::exit(0);
    }
    USABLE.store(true, Ordering::Relaxed);
}

/// The pid of this process's factory, if it has one (it moves with arena between cgroups).
pub(super) fn pid() -> Option<u32> {
    let factory = FACTORY.lock().unwrap_or_else(|e| e.into_inner());
    factory.as_ref().map(|f| f.child.id())
}

/// A holder of `plan` cloned by the factory, starting it if need be; `None` when there is no
/// factory to ask (then the caller clones the holder itself). A factory that fails to answer
/// is ended and replaced at the next holder.
pub(super) fn start(plan: &Plan) -> Option<io::Result<Started>> {
    if !USABLE.load(Ordering::Relaxed) {
        return None;
    }
    let mut factory = FACTORY.lock().unwrap_or_else(|e| e.into_inner());
    if factory.is_none() {
        *factory = spawn().ok();
    }
    let answer = ask(factory.as_ref()?, &encode(plan));
    match answer {
        Ok(Ok(started)) => Some(Ok(started)),
        // The factory answered: the clone itself failed.
        Ok(Err(e)) => Some(Err(e)),
        Err(_) => {
            if let Some(mut gone) = factory.take() {
                let _ = gone.child.kill();
                let _ = gone.child.wait();
            }
            None
        }
    }
}

/// Starts arena's executable as a factory, with nothing of arena's environment.
fn spawn() -> io::Result<Factory> {
    let (socket, theirs) = message::pair()?;
    let mut command = Command::new("/proc/self/exe");
    command
        .arg0("arena-factory")
        .env_clear()
        .env(ASKED, "1")
        .stdin(Stdio::from(theirs))
        .stdout(Stdio::null())
        .stderr(Stdio::inherit());
    // The dynamic loader may need it to find arena's libraries.
    if let Some(path) = std::env::var_os("LD_LIBRARY_PATH") {
        command.env("LD_LIBRARY_PATH", path);
    }
    let child = command.spawn()?;
    Ok(Factory { child, socket })
}

/// Sends `plan` to `factory` and reads its answer: the outer error is the factory's (gone,
/// or an answer that is not one), the inner one the clone's.
fn ask(factory: &Factory, plan: &[u8]) -> io::Result<io::Result<Started>> {
    rustix::net::send(&factory.socket, plan, SendFlags::NOSIGNAL)?;
    let mut answer = [0u8; 8];
    let (n, fds) = message::receive(factory.socket.as_fd(), &mut answer, RecvFlags::empty())?;
    let not_an_answer = || io::Error::new(io::ErrorKind::InvalidData, "not a factory's answer");
    if n != answer.len() {
        return Err(not_an_answer());
    }
    let pid = i32::from_le_bytes(answer[..4].try_into().unwrap_or_default());
    let errno = i32::from_le_bytes(answer[4..].try_into().unwrap_or_default());
    if errno != 0 {
        return Ok(Err(io::Error::from_raw_os_error(errno)));
    }
    let [pidfd, commands, reports]: [OwnedFd; 3] = fds.try_into().map_err(|_| not_an_answer())?;
    Ok(Ok(Started {
        pid,
        pidfd,
        commands,
        reports,
    }))
}

/// The factory's loop: a holder for each plan received, until arena closes the socket.
fn serve(socket: BorrowedFd<'_>) {
    // SAFETY: naming this thread from a NUL-terminated string.
    unsafe { libc::prctl(libc::PR_SET_NAME, c"arena-factory".as_ptr()) };
    // The holders are reaped by the kernel when they end. The signals that stop arena
    // gracefully (a Ctrl-C reaches the whole process group) leave the factory to end when
    // arena closes the socket: until then, arena may still need a holder.
    for signal in [libc::SIGCHLD, libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
        // SAFETY: setting a disposition; no handler of ours is involved.
        unsafe { libc::signal(signal, libc::SIG_IGN) };
    }
    let mut plan = vec![0u8; MAX_PLAN];
    loop {
        let n = match rustix::net::recv(socket, &mut plan, RecvFlags::empty()) {
            Ok((0, _)) => return,
            Ok((n, _)) => n.min(MAX_PLAN),
            Err(rustix::io::Errno::INTR) => continue,
            Err(_) => return,
        };
        let started = match decode(&plan[..n]) {
            Some(plan) => clone_holder(&plan),
            None => Err(io::Error::from_raw_os_error(libc::EINVAL)),
        };
        let sent = match started {
            Ok(started) => {
                let fds = [&started.pidfd, &started.commands, &started.reports];
                reply(socket, started.pid, 0, &fds.map(|fd| fd.as_fd()))
            }
            Err(e) => reply(socket, 0, e.raw_os_error().unwrap_or(libc::EIO), &[]),
        };
        // Our copies of the holder's descriptors close here, whether or not arena got them.
        if sent.is_err() {
            return;
        }
    }
}

/// Sends arena a holder's pid and descriptors, or (`errno` not 0) why there is none.
fn reply(socket: BorrowedFd<'_>, pid: i32, errno: i32, fds: &[BorrowedFd<'_>]) -> io::Result<()> {
    let mut answer = [0u8; 8];
    answer[..4].copy_from_slice(&pid.to_le_bytes());
    answer[4..].copy_from_slice(&errno.to_le_bytes());
    message::send(socket, &answer, fds)
}
