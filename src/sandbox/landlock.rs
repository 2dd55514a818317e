//! Landlock: which ABI the kernel offers, and the ruleset that confines one bot's processes
//! to the system directories (read-only) and its own directory (read-write).

use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

/// The directories a bot may read (and run programs from): the system's.
pub(super) const SYSTEM_DIRS: [&str; 9] = [
    "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt",
];

/// Whether `path` lies in the system directories every bot may read.
pub fn is_system_path(path: &Path) -> bool {
    SYSTEM_DIRS.iter().any(|d| path.starts_with(d))
}

/// Devices a bot may read and write.
const DEVICES: [&str; 5] = [
    "/dev/null",
    "/dev/zero",
    "/dev/full",
    "/dev/random",
    "/dev/urandom",
];

/// The newest Landlock ABI both the kernel and the `landlock` crate know, if any.
pub(super) fn landlock_abi() -> Option<landlock::ABI> {
    // SAFETY: landlock_create_ruleset with LANDLOCK_CREATE_RULESET_VERSION only returns a
    // number; it takes no pointer it would write through.
    let version = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<u8>(),
            0usize,
            1u32, // LANDLOCK_CREATE_RULESET_VERSION
        )
    };
    match version {
        v if v >= 7 => Some(landlock::ABI::V6),
        6 => Some(landlock::ABI::V6),
        5 => Some(landlock::ABI::V5),
        4 => Some(landlock::ABI::V4),
        3 => Some(landlock::ABI::V3),
        2 => Some(landlock::ABI::V2),
        1 => Some(landlock::ABI::V1),
        _ => None,
    }
}

/// What a bot's Landlock ruleset is made of; the ruleset itself is built per game (a file
/// descriptor held only while the bot plays).
#[derive(Debug, Clone)]
pub(super) struct Rules {
    pub abi: landlock::ABI,
    pub workdir: PathBuf,
    pub extra_read: Vec<PathBuf>,
    pub allow_network: bool,
    /// The root of the bot's namespace jail (`/proc/<holder>/root`), whose private `/tmp`
    /// the bot may write and whose own `/proc` it may read.
    pub jail_root: Option<PathBuf>,
}

impl Rules {
    /// A Landlock ruleset, as a file descriptor the bot's processes restrict themselves with.
    pub fn build(&self) -> Result<OwnedFd> {
        use landlock::{
            path_beneath_rules, Access, AccessFs, AccessNet, Ruleset, RulesetAttr,
            RulesetCreatedAttr, Scope,
        };
        let abi = self.abi;
        let existing = |paths: Vec<PathBuf>| -> Vec<PathBuf> {
            paths.into_iter().filter(|p| p.exists()).collect()
        };
        let mut ruleset = Ruleset::default().handle_access(AccessFs::from_all(abi))?;
        if !self.allow_network && abi >= landlock::ABI::V4 {
            ruleset = ruleset.handle_access(AccessNet::from_all(abi))?;
        }
        if abi >= landlock::ABI::V6 {
            ruleset = ruleset.scope(Scope::from_all(abi))?;
        }
        let mut read: Vec<PathBuf> = SYSTEM_DIRS.iter().map(PathBuf::from).collect();
        read.extend(self.extra_read.iter().cloned());
        let created = ruleset
            .create()?
            .add_rules(path_beneath_rules(existing(read), AccessFs::from_read(abi)))?
            .add_rules(path_beneath_rules(
                existing(DEVICES.iter().map(PathBuf::from).collect()),
                AccessFs::from_read(abi) | AccessFs::WriteFile,
            ))?
            .add_rules(path_beneath_rules([&self.workdir], AccessFs::from_all(abi)))?
            .add_rules(path_beneath_rules(
                existing(self.jail_root.iter().map(|r| r.join("tmp")).collect()),
                AccessFs::from_all(abi),
            ))?
            .add_rules(path_beneath_rules(
                existing(self.jail_root.iter().map(|r| r.join("proc")).collect()),
                AccessFs::from_read(abi),
            ))?;
        Option::<OwnedFd>::from(created).context("the Landlock ruleset has no file descriptor")
    }
}
