//! Resetting a jail's holder between two games of its bot (see `namespace.rs`), so that the
//! next game finds nothing of the previous one. First the holder itself, on arena's command
//! ([`reset`]): every process of its PID namespace but itself killed and gone, the SysV IPC
//! objects and POSIX message queues of its IPC namespace removed. Then arena, once no process
//! of the bot is left to race with ([`clear_tmp`]): the view's `/tmp` emptied, but for the
//! directories that lead to the bot's own mounts (its copy under a host `/tmp`).
//!
//! [`reset`] makes only raw system calls on prepared values: it runs in the holder, a copy of
//! arena that must not allocate or take a lock.

use std::ffi::{c_int, c_long, CStr, CString};
use std::io;
use std::os::fd::{AsRawFd, OwnedFd};
use std::path::Path;

use rustix::fs::{AtFlags, FileType, Mode, OFlags};

// <linux/ipc.h>, <linux/shm.h>, <linux/sem.h>, <linux/msg.h>: the commands that list and
// remove a namespace's objects, by their kernel numbers (64-bit layouts, no IPC_64 flag).
const IPC_RMID: c_int = 0;
const SHM_STAT: c_int = 13;
const SHM_INFO: c_int = 14;
const SEM_STAT: c_int = 18;
const SEM_INFO: c_int = 19;
const MSG_STAT: c_int = 11;
const MSG_INFO: c_int = 12;

// <linux/mount.h>: the new mount API, to reach the IPC namespace's message queues without
// mounting them anywhere a bot could see.
const FSOPEN_CLOEXEC: u32 = 1;
const FSCONFIG_CMD_CREATE: u32 = 6;
const FSMOUNT_CLOEXEC: u32 = 1;

/// How long the holder waits for the killed processes to be gone, in microseconds: it looks
/// again after 50 µs, then after twice as long each time up to 1 ms.
const GONE_WAIT_US: i64 = 2_000_000;

/// [`open_queues`] on a kernel without POSIX message queues: none to remove.
pub(super) const NO_QUEUES: c_int = -2;

/// Resets the holder's namespaces; on failure returns the failed step (errno is set). The
/// holder then ends, never reused. `queues` is what [`open_queues`] gave.
///
/// # Safety
/// Only raw system calls: callable in the holder only, after `build_view`.
pub(super) unsafe fn reset(queues: c_int) -> Result<(), i32> {
    kill_all().map_err(|_| 1)?;
    // The count of objects in use: shm_info.used_ids, seminfo.semusz, msginfo.msgpool.
    remove_sysv(SYS_SHM, (SHM_INFO, 0), SHM_STAT).map_err(|_| 2)?;
    remove_sysv(SYS_SEM, (SEM_INFO, 7), SEM_STAT).map_err(|_| 3)?;
    remove_sysv(SYS_MSG, (MSG_INFO, 0), MSG_STAT).map_err(|_| 4)?;
    remove_queues(queues).map_err(|_| 5)
}

/// Kills every process of the namespace but the holder (PID 1, spared by `kill(-1)`), then
/// waits until its `/proc` lists PID 1 alone: zombies too must be gone, reaped by the holder
/// (orphans, as `SIGCHLD` is ignored) or by arena (the processes it started).
unsafe fn kill_all() -> Result<(), ()> {
    let (mut waited, mut pause) = (0, 50);
    while waited < GONE_WAIT_US {
        // ESRCH: nothing left to kill.
        libc::kill(-1, libc::SIGKILL);
        if only_init()? {
            return Ok(());
        }
        let time = libc::timespec {
            tv_sec: 0,
            tv_nsec: pause * 1000,
        };
        libc::nanosleep(&time, std::ptr::null_mut());
        waited += pause;
        pause = (pause * 2).min(1000);
    }
    Err(())
}

/// Whether the view's `/proc` (of the holder's PID namespace) lists PID 1 and no other
/// process. Without a `/proc` of its own (a refused mount) this fails: no reuse then.
unsafe fn only_init() -> Result<bool, ()> {
    let dir = libc::open(
        c"/proc".as_ptr(),
        libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC,
    );
    if dir < 0 {
        return Err(());
    }
    let (mut init, mut others) = (false, false);
    let listed = each_entry(dir, |name| match name.to_bytes() {
        b"1" => init = true,
        n if n.first().is_some_and(u8::is_ascii_digit) => others = true,
        _ => {}
    });
    libc::close(dir);
    match listed {
        Ok(()) if init => Ok(!others),
        _ => Err(()),
    }
}

/// Calls `f` with the name of every entry of the open directory `dir`.
unsafe fn each_entry(dir: c_int, mut f: impl FnMut(&CStr)) -> Result<(), ()> {
    // `linux_dirent64` records: d_ino (8), d_off (8), d_reclen (2), d_type (1), d_name.
    let mut buf = [0u64; 512];
    loop {
        let n = libc::syscall(
            libc::SYS_getdents64,
            dir,
            buf.as_mut_ptr(),
            std::mem::size_of_val(&buf),
        );
        if n < 0 {
            return Err(());
        }
        if n == 0 {
            return Ok(());
        }
        let bytes = std::slice::from_raw_parts(buf.as_ptr().cast::<u8>(), n as usize);
        let mut at = 0;
        while at + 19 < bytes.len() {
            let len = u16::from_ne_bytes([bytes[at + 16], bytes[at + 17]]) as usize;
            if len == 0 || at + len > bytes.len() {
                return Err(());
            }
            if let Ok(name) = CStr::from_bytes_until_nul(&bytes[at + 19..at + len]) {
                f(name);
            }
            at += len;
        }
    }
}

const SYS_SHM: c_long = libc::SYS_shmctl;
const SYS_SEM: c_long = libc::SYS_semctl;
const SYS_MSG: c_long = libc::SYS_msgctl;

/// One `*ctl` call of the SysV family `sys` (`semctl` takes a semaphore number first).
unsafe fn ctl(sys: c_long, id: c_int, cmd: c_int, buf: *mut u64) -> c_int {
    if sys == SYS_SEM {
        libc::syscall(sys, id, 0, cmd, buf) as c_int
    } else {
        libc::syscall(sys, id, cmd, buf) as c_int
    }
}

/// Removes every object of one SysV family (`*_INFO` gives the highest index in use, and
/// the count of objects in use as the `int` at `used`; `*_STAT` the object at an index), then
/// checks that none is left.
unsafe fn remove_sysv(sys: c_long, (info, used): (c_int, usize), stat: c_int) -> Result<(), ()> {
    // Larger than any of shm_info, seminfo, msginfo, shmid64_ds, semid64_ds, msqid64_ds.
    let mut buf = [0u64; 32];
    let highest = ctl(sys, 0, info, buf.as_mut_ptr());
    if highest < 0 {
        return Err(());
    }
    for index in 0..=highest {
        let id = ctl(sys, index, stat, buf.as_mut_ptr());
        if id >= 0 && ctl(sys, id, IPC_RMID, std::ptr::null_mut()) != 0 {
            return Err(());
        }
    }
    // None in use (a shared memory segment still attached would count).
    buf = [0; 32];
    let left = if ctl(sys, 0, info, buf.as_mut_ptr()) < 0 {
        -1
    } else {
        *buf.as_ptr().cast::<c_int>().add(used)
    };
    if left == 0 {
        Ok(())
    } else {
        Err(())
    }
}

/// A mount of the holder's IPC namespace's `mqueue` file system that is attached nowhere (a
/// bot cannot see it), made once when the holder starts: [`NO_QUEUES`] on a kernel without
/// POSIX message queues, `-1` if it cannot be made (then no reset succeeds).
///
/// # Safety
/// Only raw system calls: callable in the holder only.
pub(super) unsafe fn open_queues() -> c_int {
    let fs = libc::syscall(libc::SYS_fsopen, c"mqueue".as_ptr(), FSOPEN_CLOEXEC) as c_int;
    if fs < 0 {
        return if *libc::__errno_location() == libc::ENODEV {
            NO_QUEUES
        } else {
            -1
        };
    }
    let null = std::ptr::null::<libc::c_char>();
    let mount = if libc::syscall(libc::SYS_fsconfig, fs, FSCONFIG_CMD_CREATE, null, null, 0) == 0 {
        libc::syscall(libc::SYS_fsmount, fs, FSMOUNT_CLOEXEC, 0) as c_int
    } else {
        -1
    };
    libc::close(fs);
    mount.max(-1)
}

/// Removes the POSIX message queues of the holder's IPC namespace, through `queues`.
unsafe fn remove_queues(queues: c_int) -> Result<(), ()> {
    if queues == NO_QUEUES {
        return Ok(());
    }
    if queues < 0 {
        return Err(());
    }
    let dir = libc::openat(
        queues,
        c".".as_ptr(),
        libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC,
    );
    if dir < 0 {
        return Err(());
    }
    let mut failed = false;
    let listed = each_entry(dir, |name| {
        if name != c"." && name != c".." && libc::unlinkat(dir, name.as_ptr(), 0) != 0 {
            failed = true;
        }
    });
    libc::close(dir);
    if listed.is_ok() && !failed {
        Ok(())
    } else {
        Err(())
    }
}

/// The most entries [`clear_tmp`] removes, and the deepest it goes: a `/tmp` beyond either
/// is left to the end of its holder (which frees it all at once).
const CLEAR_MAX_ENTRIES: usize = 20_000;
const CLEAR_MAX_DEPTH: usize = 32;

/// Opens a directory, not following a symbolic link at its end.
pub(super) fn open_dir(path: &Path) -> io::Result<OwnedFd> {
    Ok(rustix::fs::openat(
        rustix::fs::CWD,
        path,
        DIR,
        Mode::empty(),
    )?)
}

/// Empties the view's `/tmp` (`tmp`, opened before any game) of a holder after its
/// [`reset`]: everything goes but the directories leading to `mounts` (the bot's own mounts,
/// relative to `/tmp`), which must still be where the view put them. Nothing is followed,
/// neither a symbolic link nor a mount point.
pub(super) fn clear_tmp(tmp: &OwnedFd, mounts: &[CString]) -> io::Result<()> {
    let dev = rustix::fs::fstat(tmp)?.st_dev;
    let mut budget = CLEAR_MAX_ENTRIES;
    clear(tmp, dev, &mut budget, CLEAR_MAX_DEPTH)?;
    for mount in mounts {
        if rustix::fs::statat(tmp, mount.as_c_str(), AtFlags::SYMLINK_NOFOLLOW)?.st_dev == dev {
            return Err(io::Error::other(format!(
                "`/tmp/{}` is no longer a mount of the view",
                mount.to_string_lossy()
            )));
        }
    }
    Ok(())
}

const DIR: OFlags = OFlags::RDONLY
    .union(OFlags::DIRECTORY)
    .union(OFlags::NOFOLLOW)
    .union(OFlags::CLOEXEC);

/// Removes what `dir` (on the file system `dev`) holds; whether it keeps a mount point.
fn clear(dir: &OwnedFd, dev: u64, budget: &mut usize, depth: usize) -> io::Result<bool> {
    let names = rustix::fs::Dir::read_from(dir)?
        .map(|entry| entry.map(|e| e.file_name().to_owned()))
        .collect::<Result<Vec<CString>, _>>()?;
    let mut keep = false;
    for name in names
        .iter()
        .filter(|n| n.as_bytes() != b"." && n.as_bytes() != b"..")
    {
        *budget = budget
            .checked_sub(1)
            .ok_or_else(|| io::Error::other("too many files in `/tmp`"))?;
        let stat = rustix::fs::statat(dir, name.as_c_str(), AtFlags::SYMLINK_NOFOLLOW)?;
        if stat.st_dev != dev {
            // A mount of the view: the bot's own copy or a shared directory.
            keep = true;
        } else if FileType::from_raw_mode(stat.st_mode) == FileType::Directory {
            if depth == 0 {
                return Err(io::Error::other("directories too deep in `/tmp`"));
            }
            if stat.st_mode & 0o700 != 0o700 {
                // A directory its owner made unreadable (arena may not be root): changed
                // through a handle on it, never through a name that could have become a link.
                let flags = OFlags::PATH | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
                let it = rustix::fs::openat(dir, name.as_c_str(), flags, Mode::empty())?;
                let path = format!("/proc/self/fd/{}", it.as_raw_fd());
                rustix::fs::chmodat(rustix::fs::CWD, path.as_str(), Mode::RWXU, AtFlags::empty())?;
            }
            let sub = rustix::fs::openat(dir, name.as_c_str(), DIR, Mode::empty())?;
            if clear(&sub, dev, budget, depth - 1)? {
                keep = true;
            } else {
                rustix::fs::unlinkat(dir, name.as_c_str(), AtFlags::REMOVEDIR)?;
            }
        } else {
            rustix::fs::unlinkat(dir, name.as_c_str(), AtFlags::empty())?;
        }
    }
    Ok(keep)
}
