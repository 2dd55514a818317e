//! The system calls no bot may make: the deny list ([`DENIED`], one entry per call with why),
//! compiled once per run into BPF by `seccompiler` and installed by each bot process right
//! before `exec` ([`Filter::install`]), after every namespace, mount and uid change the jail
//! itself makes. A denied call fails with `EPERM`; nothing is killed.
//!
//! `clone3` fails with `ENOSYS` instead, so that the C library falls back to `clone`, whose
//! flags (unlike `clone3`'s, which lie in memory) the filter can read: a `clone` asking for a
//! new namespace fails with `EPERM`, threads and processes start as usual.

use std::collections::BTreeMap;

use anyhow::{Context, Result};
use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule,
};

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

/// On x86-64 the same calls can be made through the x32 numbers (this bit set), which the
/// filter must deny too where the kernel has the x32 ABI.
#[cfg(target_arch = "x86_64")]
const X32_BIT: libc::c_long = 0x4000_0000;

/// Whether this kernel takes x32 system calls (most distributions' do not): the filter's
/// length, and so the cost of installing it at every start, is halved without them.
#[cfg(target_arch = "x86_64")]
fn kernel_has_x32() -> bool {
    // SAFETY: getpid through its x32 number takes no argument; without x32, ENOSYS.
    let pid = unsafe { libc::syscall(X32_BIT | libc::SYS_getpid) };
    pid > 0 || std::io::Error::last_os_error().raw_os_error() != Some(libc::ENOSYS)
}

/// The compiled filter: one program denying with `EPERM`, one making `clone3` fail with
/// `ENOSYS`. Both are installed; each call passes both.
#[derive(Debug)]
pub struct Filter {
    eperm: Vec<libc::sock_filter>,
    enosys: Vec<libc::sock_filter>,
}

impl Filter {
    /// Compiles the policy for this machine's architecture.
    pub fn compile() -> Result<Filter> {
        let arch = std::env::consts::ARCH
            .try_into()
            .with_context(|| format!("no seccomp filter for `{}`", std::env::consts::ARCH))?;
        let mut denied: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
        for &(nr, _, _) in DENIED {
            for nr in numbers(nr) {
                denied.insert(nr, Vec::new());
            }
        }
        let new_namespace = NAMESPACE_FLAGS
            .iter()
            .map(|&flag| {
                let cond = SeccompCondition::new(
                    0,
                    SeccompCmpArgLen::Qword,
                    SeccompCmpOp::MaskedEq(flag),
                    flag,
                )?;
                SeccompRule::new(vec![cond])
            })
            .collect::<Result<Vec<_>, _>>()?;
        for nr in numbers(libc::SYS_clone) {
            denied.insert(nr, new_namespace.clone());
        }
        let eperm = SeccompFilter::new(
            denied,
            SeccompAction::Allow,
            SeccompAction::Errno(libc::EPERM as u32),
            arch,
        )?;
        let clone3 = numbers(libc::SYS_clone3)
            .map(|nr| (nr, Vec::new()))
            .collect();
        let enosys = SeccompFilter::new(
            clone3,
            SeccompAction::Allow,
            SeccompAction::Errno(libc::ENOSYS as u32),
            arch,
        )?;
        Ok(Filter {
            eperm: to_libc(eperm.try_into()?),
            enosys: to_libc(enosys.try_into()?),
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
    /// Only raw system calls, on programs that live as long as the process: callable between
    /// `fork` and `exec`.
    pub unsafe fn install(&self) -> std::io::Result<()> {
        for program in [&self.enosys, &self.eperm] {
            let prog = libc::sock_fprog {
                len: program.len() as libc::c_ushort,
                filter: program.as_ptr().cast_mut(),
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
        }
        Ok(())
    }
}

/// The numbers a call can be made by on this architecture and kernel.
fn numbers(nr: libc::c_long) -> impl Iterator<Item = i64> {
    #[cfg(target_arch = "x86_64")]
    let all = if kernel_has_x32() {
        vec![nr, nr | X32_BIT]
    } else {
        vec![nr]
    };
    #[cfg(not(target_arch = "x86_64"))]
    let all = vec![nr];
    all.into_iter()
}

fn to_libc(program: BpfProgram) -> Vec<libc::sock_filter> {
    program
        .into_iter()
        .map(|i| libc::sock_filter {
            code: i.code,
            jt: i.jt,
            jf: i.jf,
            k: i.k,
        })
        .collect()
}

/// What `arena doctor` says of the filter, compiled (`Ok`) or not (why).
pub(super) fn describe(filter: Result<(), &str>) -> String {
    match filter {
        Ok(()) => {
            let names: Vec<&str> = DENIED.iter().map(|(_, name, _)| *name).collect();
            format!(
                "a seccomp filter (in `src/sandbox/seccomp.rs`, with why for each) makes {} and `clone` of new namespaces fail with EPERM (`clone3` with ENOSYS, so the C library uses `clone`); 32-bit system calls end the process; every bot process starts in a fresh, empty session keyring",
                names.join(", ")
            )
        }
        Err(why) => format!("no seccomp filter ({why}); every bot process still starts in a fresh, empty session keyring"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_policy_compiles_and_names_every_call_once() {
        let filter = Filter::compile().unwrap();
        assert!(!filter.eperm.is_empty() && !filter.enosys.is_empty());
        let mut names: Vec<&str> = DENIED.iter().map(|(_, n, _)| *n).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), DENIED.len());
        assert!(DENIED.iter().all(|(_, _, why)| !why.is_empty()));
    }
}
