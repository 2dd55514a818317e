//! Tests of the seccomp policy: the compiled program run on each call number by a small
//! classic-BPF evaluator (what the kernel does at attach to cache the calls it always allows).

use super::*;

/// `AUDIT_ARCH_X86_64`, `AUDIT_ARCH_I386`, `AUDIT_ARCH_AARCH64`.
const AUDIT_ARCHES: [(&str, u32); 2] = [("x86_64", 0xc000_003e), ("aarch64", 0xc000_00b7)];

/// The seccomp return of `program` for a call, and the instructions it took: `data` is the
/// kernel's `struct seccomp_data` (nr, arch, instruction pointer, six arguments) as words.
fn run(program: &[libc::sock_filter], nr: i32, arch: u32, arg0: u64) -> (u32, usize) {
    let mut data = [0u32; 16];
    data[0] = nr as u32;
    data[1] = arch;
    data[4] = arg0 as u32;
    data[5] = (arg0 >> 32) as u32;
    let (mut a, mut pc, mut steps) = (0u32, 0usize, 0usize);
    loop {
        let i = program[pc];
        steps += 1;
        pc += 1;
        let code = u32::from(i.code);
        match code & 0x07 {
            libc::BPF_LD if code == libc::BPF_LD | libc::BPF_W | libc::BPF_ABS => {
                a = data[i.k as usize / 4]
            }
            libc::BPF_ALU if code == libc::BPF_ALU | libc::BPF_AND | libc::BPF_K => a &= i.k,
            libc::BPF_JMP => {
                let taken = match code & 0xf0 {
                    libc::BPF_JA => {
                        pc += i.k as usize;
                        continue;
                    }
                    libc::BPF_JEQ => a == i.k,
                    libc::BPF_JGT => a > i.k,
                    libc::BPF_JGE => a >= i.k,
                    libc::BPF_JSET => a & i.k != 0,
                    op => panic!("jump {op:#x} at {}", pc - 1),
                };
                pc += usize::from(if taken { i.jt } else { i.jf });
            }
            libc::BPF_RET if code == libc::BPF_RET | libc::BPF_K => return (i.k, steps),
            _ => panic!("instruction {code:#x} at {}", pc - 1),
        }
    }
}

fn native_arch() -> u32 {
    AUDIT_ARCHES
        .iter()
        .find(|(name, _)| *name == std::env::consts::ARCH)
        .expect("an architecture these tests know")
        .1
}

const ALLOW: u32 = libc::SECCOMP_RET_ALLOW;
const KILL_PROCESS: u32 = libc::SECCOMP_RET_KILL_PROCESS;
fn errno(e: i32) -> u32 {
    libc::SECCOMP_RET_ERRNO | e as u32
}

#[test]
fn the_policy_compiles_and_names_every_call_once() {
    let mut names: Vec<&str> = DENIED.iter().map(|(_, n, _)| *n).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), DENIED.len());
    assert!(DENIED.iter().all(|(_, _, why)| !why.is_empty()));
    assert!(!Filter::compile().unwrap().program.is_empty());
}

#[test]
fn each_call_gets_what_the_policy_says_and_other_architectures_end_the_process() {
    let program = Filter::compile().unwrap().program;
    let arch = native_arch();
    for &(nr, name, _) in DENIED {
        assert_eq!(
            run(&program, nr as i32, arch, 0).0,
            errno(libc::EPERM),
            "{name}"
        );
    }
    assert_eq!(
        run(&program, libc::SYS_clone3 as i32, arch, 0).0,
        errno(libc::ENOSYS)
    );
    for flag in NAMESPACE_FLAGS {
        let flags = flag | libc::SIGCHLD as u64;
        let nr = libc::SYS_clone as i32;
        assert_eq!(
            run(&program, nr, arch, flags).0,
            errno(libc::EPERM),
            "{flag:#x}"
        );
    }
    // A thread and a fork.
    let thread = (libc::CLONE_VM
        | libc::CLONE_FS
        | libc::CLONE_FILES
        | libc::CLONE_SIGHAND
        | libc::CLONE_THREAD
        | libc::CLONE_SYSVSEM
        | libc::CLONE_SETTLS
        | libc::CLONE_PARENT_SETTID
        | libc::CLONE_CHILD_CLEARTID) as u64;
    for flags in [thread, libc::SIGCHLD as u64] {
        assert_eq!(run(&program, libc::SYS_clone as i32, arch, flags).0, ALLOW);
    }
    for nr in [
        libc::SYS_read,
        libc::SYS_write,
        libc::SYS_execve,
        libc::SYS_mmap,
    ] {
        assert_eq!(run(&program, nr as i32, arch, 0).0, ALLOW, "{nr}");
    }
    // Another architecture's calls (a 32-bit one on a 64-bit kernel) go around the numbers
    // above: they end the process.
    assert_eq!(
        run(&program, libc::SYS_read as i32, 0x4000_0003, 0).0,
        KILL_PROCESS
    );
    #[cfg(target_arch = "x86_64")]
    assert_eq!(
        run(&program, 0x4000_0000 | libc::SYS_keyctl as i32, arch, 0).0,
        KILL_PROCESS
    );
}

/// The kernel runs the filter for every call number when it is installed, i.e. at every
/// bot process's start: an allowed call must be decided in a few instructions, not by walking
/// the deny list (a chain of 220 instructions took each process 0.14 ms to install).
#[test]
fn an_allowed_call_is_decided_in_a_few_instructions() {
    let program = Filter::compile().unwrap().program;
    let arch = native_arch();
    let denied: Vec<i32> = DENIED.iter().map(|&(nr, _, _)| nr as i32).collect();
    let mut longest = 0;
    for nr in 0..512 {
        let (action, steps) = run(&program, nr, arch, 0);
        // `clone` reads its flags: the kernel caches no answer for it anyway.
        if !denied.contains(&nr) && nr != libc::SYS_clone3 as i32 && nr != libc::SYS_clone as i32 {
            assert_eq!(action, ALLOW, "call {nr}");
            longest = longest.max(steps);
        }
    }
    assert!(
        longest <= 16,
        "an allowed call takes {longest} instructions to decide"
    );
}
