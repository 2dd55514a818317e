//! Holders: the view they build, their reset between two games of a bot, their end.

use super::*;
use crate::sandbox::pool::Pool;
use std::os::unix::process::CommandExt;
use std::process::Command;
use std::sync::Arc;

#[test]
fn a_holder_builds_a_view_from_nothing_and_ends_with_its_pipe() {
    let work = tempfile::tempdir().unwrap();
    std::fs::write(work.path().join("mine"), "x").unwrap();
    let plan = Plan::new(work.path(), &[], false);
    let holder = match Holder::start(&plan) {
        Ok(h) => h,
        Err(e) => {
            // `arena doctor` reports the same refusal ("no namespace jail: ...").
            println!("this machine refuses namespace jails: {e}");
            assert!(probe(false).is_err());
            return;
        }
    };
    let root = holder.root();
    assert!(
        root.join("usr/bin").is_dir(),
        "system directories are bound"
    );
    assert!(root
        .join(work.path().strip_prefix("/").unwrap())
        .join("mine")
        .is_file());
    assert!(root.join("tmp").is_dir());
    assert!(!root.join("root").exists(), "nothing else of the host");
    assert!(!root.join("home").exists());
    let pid = holder.pid;
    drop(holder);
    let gone = (0..200).any(|_| {
        std::thread::sleep(std::time::Duration::from_millis(5));
        // SAFETY: reaping our own child without blocking; the list in ENDED may race
        // with this, which is harmless.
        let r = unsafe { libc::waitpid(pid, std::ptr::null_mut(), libc::WNOHANG) };
        r == pid || r < 0
    });
    assert!(gone, "the holder outlived its pipe");
}

/// Whether the (ended) holder `pid` is gone within a second.
fn ends(pid: i32) -> bool {
    (0..200).any(|_| {
        std::thread::sleep(std::time::Duration::from_millis(5));
        // SAFETY: reaping our own child without blocking (ENDED may have reaped it: ECHILD).
        let r = unsafe { libc::waitpid(pid, std::ptr::null_mut(), libc::WNOHANG) };
        r == pid || r < 0
    })
}

/// The processes of the holder's PID namespace, as its own `/proc` lists them.
fn processes(holder: &Holder) -> Vec<String> {
    let mut pids: Vec<String> = std::fs::read_dir(holder.root().join("proc"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.bytes().all(|b| b.is_ascii_digit()))
        .collect();
    pids.sort();
    pids
}

/// Runs `command` in the holder's namespaces (its children in its PID namespace), after
/// `then` ran there: whether it could.
fn inside(holder: &Holder, command: &[&str], then: fn() -> c_int) -> bool {
    let (fd, flags) = (holder.pidfd.as_raw_fd(), holder.flags);
    let mut cmd = Command::new(command[0]);
    cmd.args(&command[1..]);
    // SAFETY: only raw system calls between fork and exec.
    unsafe {
        cmd.pre_exec(move || {
            if libc::setns(fd, flags) != 0 || then() < 0 {
                return Err(io::Error::last_os_error());
            }
            Ok(())
        });
    }
    cmd.status().is_ok_and(|s| s.success())
}

const KEY: libc::key_t = 0x4172_656e;

/// Makes (`true`) or looks for a shared memory segment, a semaphore set, a message queue and
/// a POSIX message queue: fails unless they are there.
fn ipc(make: bool) -> [fn() -> c_int; 4] {
    // SAFETY (all): plain system calls with constant arguments.
    if make {
        [
            || unsafe { libc::shmget(KEY, 4096, libc::IPC_CREAT | 0o600) },
            || unsafe { libc::semget(KEY, 1, libc::IPC_CREAT | 0o600) },
            || unsafe { libc::msgget(KEY, libc::IPC_CREAT | 0o600) },
            || unsafe {
                let flags = libc::O_CREAT | libc::O_RDWR;
                libc::syscall(libc::SYS_mq_open, c"arena-test".as_ptr(), flags, 0o600, 0) as c_int
            },
        ]
    } else {
        [
            || unsafe { libc::shmget(KEY, 0, 0) },
            || unsafe { libc::semget(KEY, 0, 0) },
            || unsafe { libc::msgget(KEY, 0) },
            || unsafe {
                libc::syscall(
                    libc::SYS_mq_open,
                    c"arena-test".as_ptr(),
                    libc::O_RDONLY,
                    0,
                    0,
                ) as c_int
            },
        ]
    }
}

#[test]
fn a_reused_holder_keeps_nothing_of_the_last_game_and_ends_with_its_jail() {
    // Under the host's /tmp (TMPDIR), as arena's copies are: the view keeps the way to it.
    let work = tempfile::tempdir().unwrap();
    std::fs::write(work.path().join("mine"), "x").unwrap();
    let plan = Plan::new(work.path(), &[], false);
    let pool = Arc::new(Pool::default());
    let first = match pool.take(&plan) {
        Ok(lease) => lease,
        Err(e) => return println!("this machine refuses namespace jails: {e}"),
    };
    if !first.reusable {
        return println!("this machine's holders cannot be reused (no /proc of their own)");
    }
    let pid = first.pid;
    let work_in_view = work.path().display().to_string();
    // A game leaves a daemon, files (a symbolic link to its copy, a locked directory) and IPC.
    let script = format!(
        "setsid sleep 1000 </dev/null >/dev/null 2>&1 &
echo game > /tmp/mark && mkdir -p /tmp/d/e && echo x > /tmp/d/e/f
ln -s {work_in_view} /tmp/d/work && ln -s / /tmp/root
mkdir /tmp/locked && touch /tmp/locked/x && chmod 0 /tmp/locked"
    );
    assert!(inside(&first, &["/bin/sh", "-c", &script], || 0));
    for (make, look) in ipc(true).into_iter().zip(ipc(false)) {
        assert!(inside(&first, &["/bin/true"], make), "IPC made");
        assert!(inside(&first, &["/bin/true"], look), "and seen");
    }
    assert!(processes(&first).len() > 1, "{:?}", processes(&first));
    assert!(first.root().join("tmp/mark").exists());
    drop(first);
    assert_eq!(pool.idle(), 1, "the holder went back to its jail");

    let second = pool.take(&plan).unwrap();
    assert_eq!(second.pid, pid, "the same holder, reset");
    assert_eq!(processes(&second), ["1"], "only the holder is left");
    let tmp: Vec<_> = std::fs::read_dir(second.root().join("tmp"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    // Only the way to the bot's own copy (a mount of the view) is left.
    let way: Vec<_> = work
        .path()
        .strip_prefix("/tmp")
        .map(|rel| rel.iter().take(1).map(|c| c.to_owned()).collect())
        .unwrap_or_default();
    assert_eq!(tmp, way, "/tmp is empty");
    let view_copy = second.root().join(work.path().strip_prefix("/").unwrap());
    assert!(view_copy.join("mine").is_file(), "the copy itself is kept");
    assert!(
        work.path().join("mine").is_file(),
        "links were not followed"
    );
    for (i, look) in ipc(false).into_iter().enumerate() {
        assert!(
            !inside(&second, &["/bin/true"], look),
            "IPC object {i} is gone"
        );
    }
    assert!(inside(
        &second,
        &["/bin/sh", "-c", "echo next > /tmp/mark"],
        || 0
    ));

    // One holder per game at once: a second game gets a new one.
    let third = pool.take(&plan).unwrap();
    assert_ne!(third.pid, pid);
    let other = third.pid;
    drop(third);
    assert_eq!(pool.idle(), 1);
    drop(pool);
    assert!(ends(other), "an idle holder outlived its jail");
    assert!(!ends(pid), "a holder in use lives on");
    drop(second);
    assert!(
        ends(pid),
        "a holder in use ends with its game once its jail is gone"
    );
}

#[test]
fn a_jail_keeps_a_few_idle_holders_and_one_per_game_at_once() {
    let work = tempfile::tempdir().unwrap();
    let plan = Plan::new(work.path(), &[], false);
    let pool = Arc::new(Pool::default());
    let Ok(first) = pool.take(&plan) else {
        return println!("this machine refuses namespace jails");
    };
    if !first.reusable {
        return println!("this machine's holders cannot be reused (no /proc of their own)");
    }
    let games: Vec<_> = (0..2).map(|_| pool.take(&plan).unwrap()).collect();
    let pids: Vec<i32> = games.iter().map(|g| g.pid).chain([first.pid]).collect();
    assert!(pids[0] != pids[1] && pids[1] != pids[2] && pids[0] != pids[2]);
    drop(first);
    drop(games);
    assert_eq!(pool.idle(), 2, "two idle holders at most");
    let ended = pids.iter().filter(|&&pid| ends(pid)).count();
    assert_eq!(ended, 1, "the third holder ended");
}

#[test]
fn a_holder_started_ahead_serves_the_next_game_and_only_when_none_is_idle() {
    let work = tempfile::tempdir().unwrap();
    let plan = Plan::new(work.path(), &[], false);
    let pool = Arc::new(Pool::default());
    if Holder::start(&plan).is_err() {
        return println!("this machine refuses namespace jails");
    }
    assert!(pool.wants_one_ahead());
    pool.prewarm(&plan, |_| ());
    let ahead = pool.ahead_pid().expect("a holder was started ahead");
    assert!(!pool.wants_one_ahead(), "one holder ahead is enough");
    pool.prewarm(&plan, |_| ());
    assert_eq!(pool.ahead_pid(), Some(ahead), "no second one is started");
    let game = pool.take(&plan).unwrap();
    assert_eq!(game.pid, ahead, "the game took the holder started ahead");
    assert_eq!(pool.ahead_pid(), None);
    // While that one plays, another is started for the bot's next game.
    pool.prewarm(&plan, |_| ());
    let next = pool.take(&plan).unwrap();
    assert_ne!(next.pid, ahead);
    drop(next);
    if game.reusable {
        assert_eq!(pool.idle(), 1);
        // With an idle holder, none is started ahead.
        assert!(!pool.wants_one_ahead());
        pool.prewarm(&plan, |_| ());
        assert_eq!(pool.ahead_pid(), None);
    }
    drop(game);
}
