//! The system calls no bot may make: the deny list ([`DENIED`], one entry per call with why),
//! compiled once per run into BPF by `libseccomp` and installed by each bot process right
//! before `exec` ([`Filter::install`]), after every namespace, mount and uid change the jail
//! itself makes. A denied call fails with `EPERM`; nothing is killed.
//!
//! `clone3` fails with `ENOSYS` instead, so that the C library falls back to `clone`, whose
//! flags (unlike `clone3`'s, which lie in memory) the filter can read: a `clone` asking for a
//! new namespace fails with `EPERM`, threads and processes start as usual.
//!
//! The program is one filter laid out as a binary tree of system call numbers (libseccomp's
//! `SCMP_FLTATR_CTL_OPTIMIZE` 2): an allowed call is decided in about a dozen instructions,
//! not by walking the whole list. That is what makes it cheap to install: at attach the kernel
//! runs the filter once for every system call number to cache those it always allows.

use std::io::{Read, Write};

use anyhow::{ensure, Context, Result};
use libseccomp::{ScmpAction, ScmpArgCompare, ScmpCompareOp, ScmpFilterContext, ScmpSyscall};

/// The denied system calls, each with why a bot must not make it.
pub const DENIED: &[(libc::c_long, &str, &str)] = &[
    (libc::SYS_keyctl, "keyctl", "the kernel's keyrings are shared by uid and session, outside every namespace: a bot could read the operator's keys or leave notes to other bots"),
    (libc::SYS_add_key, "add_key", "keyrings: a note left in a uid's user keyring outlives the run"),
    (libc::SYS_request_key, "request_key", "keyrings: reads keys of the session or the uid, and can call up a helper program"),
    (libc::SYS_bpf, "bpf", "kernel programs: a large attack surface no bot needs"),
    (libc::SYS_perf_event_open, "perf_event_open", "performance counters: side channels on other processes and a history of kernel bugs"),
    (libc::SYS_userfaultfd, "userfaultfd", "stalls the kernel on a page fault at will, the classic tool for winning kernel races"),
    (libc::SYS_io_uring_setup, "io_uring_setup", "io_uring does system calls around this filter, and has a history of kernel bugs"),
    (libc::SYS_io_uring_enter, "io_uring_enter", "io_uring: see io_uring_setup"),
    (libc::SYS_io_uring_register, "io_uring_register", "io_uring: see io_uring_setup"),
    (libc::SYS_kexec_load, "kexec_load", "loads a new kernel"),
    (libc::SYS_kexec_file_load, "kexec_file_load", "loads a new kernel"),
    (libc::SYS_init_module, "init_module", "loads kernel code"),
    (libc::SYS_finit_module, "finit_module", "loads kernel code"),
    (libc::SYS_delete_module, "delete_module", "unloads kernel code"),
    (libc::SYS_ptrace, "ptrace", "reads and changes other processes (an opponent sharing a uid, arena's holder)"),
    (libc::SYS_process_vm_readv, "process_vm_readv", "reads another process's memory"),
    (libc::SYS_process_vm_writev, "process_vm_writev", "writes another process's memory"),
    (libc::SYS_mount, "mount", "changes the view the jail built"),
    (libc::SYS_umount2, "umount2", "uncovers what the jail's view hides"),
    (libc::SYS_pivot_root, "pivot_root", "changes the view's root"),
    (libc::SYS_move_mount, "move_mount", "the new mount calls: same as mount"),
    (libc::SYS_open_tree, "open_tree", "the new mount calls: copies a mount"),
    (libc::SYS_fsopen, "fsopen", "the new mount calls: opens a file system to mount"),
    (libc::SYS_fsmount, "fsmount", "the new mount calls: mounts it"),
    (libc::SYS_fsconfig, "fsconfig", "the new mount calls: configures it"),
    (libc::SYS_fspick, "fspick", "the new mount calls: reconfigures a mount"),
    (libc::SYS_mount_setattr, "mount_setattr", "the new mount calls: makes a read-only mount writable"),
    (libc::SYS_open_by_handle_at, "open_by_handle_at", "opens files by handle, around the view"),
    (libc::SYS_unshare, "unshare", "new namespaces from inside: a user namespace gives a bot capabilities there, and its kernel surface"),
    (libc::SYS_setns, "setns", "joins other namespaces"),
];

/// `clone` flags asking for a new namespace (`CLONE_NEWTIME` is only `clone3`'s).
const NAMESPACE_FLAGS: [u64; 7] = [
    libc::CLONE_NEWNS as u64,
    libc::CLONE_NEWUTS as u64,
    libc::CLONE_NEWIPC as u64,
    libc::CLONE_NEWUSER as u64,
    libc::CLONE_NEWPID as u64,
    libc::CLONE_NEWNET as u64,
    libc::CLONE_NEWCGROUP as u64,
];

/// The compiled filter: one classic BPF program for this machine's architecture.
#[derive(Debug)]
pub struct Filter {
    program: Vec<libc::sock_filter>,
}

impl Filter {
    /// Compiles the policy for this machine's architecture (libseccomp's native one; a call
    /// of another architecture, such as a 32-bit or x32 call on x86-64, ends the process).
    pub fn compile() -> Result<Filter> {
        let eperm = ScmpAction::Errno(libc::EPERM);
        let mut ctx = ScmpFilterContext::new(ScmpAction::Allow)?;
        ctx.set_act_badarch(ScmpAction::KillProcess)?;
        // A binary tree of call numbers (see the module's note), and no `no_new_privs` of
        // libseccomp's: the program is only exported, the jail installs it.
        ctx.set_ctl_optimize(2)?;
        ctx.set_ctl_nnp(false)?;
        for &(nr, name, _) in DENIED {
            ctx.add_rule(eperm, syscall(nr)?)
                .with_context(|| format!("cannot deny `{name}`"))?;
        }
        for flag in NAMESPACE_FLAGS {
            let new_namespace = ScmpArgCompare::new(0, ScmpCompareOp::MaskedEqual(flag), flag);
            ctx.add_rule_conditional(eperm, syscall(libc::SYS_clone)?, &[new_namespace])?;
        }
        ctx.add_rule(ScmpAction::Errno(libc::ENOSYS), syscall(libc::SYS_clone3)?)?;
        Ok(Filter {
            program: export(&ctx)?,
        })
    }

    /// The run's filter, compiled at its first use; `None` (with why) where it cannot be.
    pub fn get() -> Result<&'static Filter, &'static str> {
        static FILTER: std::sync::OnceLock<Result<Filter, String>> = std::sync::OnceLock::new();
        FILTER
            .get_or_init(|| Filter::compile().map_err(|e| format!("{e:#}")))
            .as_ref()
            .map_err(String::as_str)
    }

    /// Installs the filter in the calling thread; `PR_SET_NO_NEW_PRIVS` must be set.
    ///
    /// # Safety
    /// Only a raw system call, on a program that lives as long as the process: callable
    /// between `fork` and `exec`.
    pub unsafe fn install(&self) -> std::io::Result<()> {
        let prog = libc::sock_fprog {
            len: self.program.len() as libc::c_ushort,
            filter: self.program.as_ptr().cast_mut(),
        };
        if libc::syscall(
            libc::SYS_seccomp,
            libc::SECCOMP_SET_MODE_FILTER,
            0,
            &prog as *const libc::sock_fprog,
        ) != 0
        {
            return Err(std::io::Error::last_os_error());
        }
        Ok(())
    }
}

/// A call by its number on this architecture.
fn syscall(nr: libc::c_long) -> Result<ScmpSyscall> {
    Ok(ScmpSyscall::from(i32::try_from(nr)?))
}

/// The context's BPF program, through a pipe (libseccomp 2.5 writes it to a descriptor). A
/// program has at most 4,096 instructions of 8 bytes, which a pipe's 64 KiB buffer holds.
fn export(ctx: &ScmpFilterContext) -> Result<Vec<libc::sock_filter>> {
    let (mut reader, mut writer) = std::io::pipe()?;
    ctx.export_bpf(&writer)?;
    writer.flush()?;
    drop(writer);
    let mut bytes = Vec::new();
    reader.read_to_end(&mut bytes)?;
    const SIZE: usize = std::mem::size_of::<libc::sock_filter>();
    ensure!(
        !bytes.is_empty() && bytes.len() % SIZE == 0,
        "libseccomp exported {} bytes, not a BPF program",
        bytes.len()
    );
    Ok(bytes
        .chunks_exact(SIZE)
        .map(|i| libc::sock_filter {
            code: u16::from_ne_bytes([i[0], i[1]]),
            jt: i[2],
            jf: i[3],
            k: u32::from_ne_bytes([i[4], i[5], i[6], i[7]]),
        })
        .collect())
}

/// What `arena doctor` says of the filter, compiled (`Ok`) or not (why).
pub(super) fn describe(filter: Result<(), &str>) -> String {
    match filter {
        Ok(()) => {
            let names: Vec<&str> = DENIED.iter().map(|(_, name, _)| *name).collect();
            format!(
                "a seccomp filter (in `src/sandbox/seccomp.rs`, with why for each) makes {} and `clone` of new namespaces fail with EPERM (`clone3` with ENOSYS, so the C library uses `clone`); 32-bit system calls end the process; every bot process starts in a fresh, empty session keyring (its own, or its game's spawner's)",
                names.join(", ")
            )
        }
        Err(why) => format!("no seccomp filter ({why}); every bot process still starts in a fresh, empty session keyring (its own, or its game's spawner's)"),
    }
}

#[cfg(test)]
#[path = "seccomp_tests.rs"]
mod tests;
