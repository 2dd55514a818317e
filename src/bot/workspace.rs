//! A run's workspace: the private copies of its bots, their logs and their sandbox, made
//! once and removed when dropped (or kept, with `--keep-work`).

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use tokio::task::JoinSet;

use super::prepare::{instance, prepare, PrepareOptions, PreparedBot, Trust};
use super::BotSpec;
use crate::sandbox::Sandbox;

/// Bots that are ready, and bots that cannot play with the reason why.
pub type Prepared = (Vec<Arc<PreparedBot>>, Vec<(BotSpec, String)>);

/// The bots' private copies and sandbox for one run. Dropping it removes the copies and the
/// sandbox's cgroups; [`Workspace::keep`] moves the copies somewhere first.
pub struct Workspace {
    prep: PrepareOptions,
    /// Where the copies go after the run, if they are kept.
    keep: Option<PathBuf>,
    /// Closed by [`Workspace::close`]: nothing is left for `drop` to do.
    closed: bool,
    /// Says the run is alive to other runs' clean-up, as long as the workspace lives.
    _alive: crate::sandbox::liveness::Alive,
}

impl Workspace {
    /// A new workspace for bots confined by `sandbox`, their logs written to `logs_dir`.
    pub fn new(
        sandbox: Sandbox,
        logs_dir: PathBuf,
        build_time: Duration,
        log_cap: u64,
        append_logs: bool,
    ) -> Result<Workspace> {
        std::fs::create_dir_all(&logs_dir)
            .with_context(|| format!("cannot create `{}`", logs_dir.display()))?;
        let (work_root, alive) = match work_root()
            .and_then(|root| Ok((root.clone(), crate::sandbox::liveness::Alive::mark(&root)?)))
        {
            Ok(root) => root,
            Err(e) => {
                sandbox.cleanup();
                return Err(e);
            }
        };
        Ok(Workspace {
            prep: PrepareOptions {
                sandbox: Arc::new(sandbox),
                work_root,
                logs_dir,
                build_time,
                log_cap,
                append_logs,
                templates: false,
                trust: Trust::default(),
            },
            keep: None,
            closed: false,
            _alive: alive,
        })
    }

    /// A workspace for the one bot of `arena play` or `arena connect` (`command`): its log in
    /// a directory of the temporary directory, a 300 s build and a 1 MiB log.
    pub fn for_one_bot(sandbox: Sandbox, command: &str) -> Result<Workspace> {
        let logs = format!("arena-{command}-logs-{}", std::process::id());
        Workspace::new(
            sandbox,
            std::env::temp_dir().join(logs),
            Duration::from_secs(300),
            1 << 20,
            false,
        )
    }

    /// The sandbox the bots run in.
    pub fn sandbox(&self) -> &Sandbox {
        &self.prep.sandbox
    }

    /// Prepares bots so that more instances of each can be made from its copy as built.
    pub fn with_instances(&mut self) {
        self.prep.templates = true;
    }

    /// What the operator lets reach the bots (`--share`, `--max-bot-size`, `--pass-env`).
    pub fn trust(&mut self, trust: Trust) {
        self.prep.trust = trust;
    }

    /// Keeps the private copies in `dir` when the workspace is closed.
    pub fn keep(&mut self, dir: PathBuf) {
        self.keep = Some(dir);
    }

    /// Copies and builds the bots, `jobs` at a time, keeping their order.
    pub async fn prepare_all(&self, specs: Vec<BotSpec>, jobs: usize) -> Result<Prepared> {
        let names = file_names(&specs);
        let semaphore = Arc::new(tokio::sync::Semaphore::new(jobs.max(1)));
        let mut tasks = JoinSet::new();
        for (i, (spec, file_name)) in specs.into_iter().zip(names).enumerate() {
            let prep = self.prep.clone();
            let semaphore = Arc::clone(&semaphore);
            tasks.spawn(async move {
                let _permit = semaphore.acquire_owned().await;
                (i, prepare(spec, i, &file_name, &prep).await)
            });
        }
        let mut done = Vec::new();
        while let Some(joined) = tasks.join_next().await {
            let (i, prepared) = joined.context("a bot's preparation panicked")?;
            done.push((i, prepared?));
        }
        done.sort_by_key(|(i, _)| *i);
        let mut ready = Vec::new();
        let mut excluded = Vec::new();
        for (_, prepared) in done {
            match prepared {
                Ok(bot) => ready.push(Arc::new(bot)),
                Err((spec, reason, log)) => {
                    log.close(Duration::from_millis(100));
                    excluded.push((spec, reason));
                }
            }
        }
        Ok((ready, excluded))
    }

    /// What makes more instances of the prepared bots during the run; the jails it makes are
    /// numbered from `first_index` on, after the bots'.
    pub fn instances(&self, first_index: usize) -> Instances {
        Instances {
            prep: self.prep.clone(),
            next_index: std::sync::atomic::AtomicUsize::new(first_index),
        }
    }

    /// Prepares one bot; the reason it cannot play is an error.
    pub async fn prepare_one(&self, spec: BotSpec) -> Result<Arc<PreparedBot>> {
        match prepare(spec, 0, "bot", &self.prep).await? {
            Ok(bot) => Ok(Arc::new(bot)),
            Err((spec, reason, log)) => {
                log.close(Duration::from_millis(100));
                bail!("bot `{}` cannot play: {reason}", spec.name)
            }
        }
    }

    /// After the last game: closes the bots' logs, then removes the sandbox's cgroups and the
    /// private copies (or moves them where [`Workspace::keep`] said).
    pub fn close(mut self, bots: Vec<Arc<PreparedBot>>) -> Result<()> {
        for bot in bots {
            if let Ok(bot) = Arc::try_unwrap(bot) {
                bot.log.close(Duration::from_millis(500));
            }
        }
        self.prep.sandbox.cleanup();
        let root = self.prep.work_root.clone();
        let result = match self.keep.take() {
            Some(kept) => {
                if std::fs::rename(&root, &kept).is_err() {
                    // Another file system: copy, then remove.
                    super::prepare::copy_tree(&root, &kept).and_then(|()| remove(&root))
                } else {
                    Ok(())
                }
            }
            None => remove(&root),
        };
        self.closed = true;
        result
    }
}

/// Makes more instances of prepared bots, so a bot can play several games at once.
pub struct Instances {
    prep: PrepareOptions,
    next_index: std::sync::atomic::AtomicUsize,
}

impl Instances {
    /// Instance `n` (from 2) of `bot`: a copy of its prepared directory in a jail of its own.
    pub fn make(&self, bot: &PreparedBot, n: usize) -> Result<PreparedBot> {
        let index = self
            .next_index
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        instance(bot, n, index, &self.prep)
    }
}

impl Drop for Workspace {
    /// A run that stops early (an error, Ctrl-C) leaves nothing behind: no cgroups, no copies.
    fn drop(&mut self) {
        if self.closed {
            return;
        }
        self.prep.sandbox.cleanup();
        let _ = std::fs::remove_dir_all(&self.prep.work_root);
    }
}

fn remove(dir: &Path) -> Result<()> {
    std::fs::remove_dir_all(dir).with_context(|| format!("cannot remove `{}`", dir.display()))
}

/// A new directory for the bots' private copies, outside the output directory: bots that run
/// under their own uid must be able to reach their copy, and the user's tree (a home directory
/// of mode 0700, say) may not let them. Mode 0711: others may pass through but not list it.
fn work_root() -> Result<PathBuf> {
    use std::os::unix::fs::DirBuilderExt;
    let base = std::env::temp_dir();
    // The copies of runs that were killed before they could remove them.
    if let Ok(entries) = std::fs::read_dir(&base) {
        for entry in entries.flatten() {
            if crate::sandbox::is_stale(&entry.file_name().to_string_lossy(), "arena-work-") {
                let _ = std::fs::remove_dir_all(entry.path());
            }
        }
    }
    let pid = std::process::id();
    for attempt in 0..100u64 {
        let seed = crate::rng::derive_seed(pid.into(), attempt ^ nanos());
        let dir = base.join(format!("arena-work-{pid}-{:08x}", seed & 0xffff_ffff));
        match std::fs::DirBuilder::new().mode(0o711).create(&dir) {
            Ok(()) => {
                // The umask may have narrowed the mode.
                std::fs::set_permissions(&dir, std::os::unix::fs::PermissionsExt::from_mode(0o711))
                    .with_context(|| format!("cannot set the mode of `{}`", dir.display()))?;
                return Ok(dir);
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e).with_context(|| format!("cannot create `{}`", dir.display())),
        }
    }
    bail!("cannot create a working directory in `{}`", base.display())
}

fn nanos() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64)
}

/// The longest name of a bot's files, before a `-N` that makes it unique.
const MAX_FILE_NAME: usize = 64;

/// Whether `name` is, or looks like, a cgroup control file (`tasks`, `cgroup.procs`).
fn is_cgroup_file(name: &str) -> bool {
    const CONTROLLERS: [&str; 17] = [
        "cgroup",
        "memory",
        "pids",
        "cpu",
        "cpuacct",
        "cpuset",
        "io",
        "blkio",
        "devices",
        "freezer",
        "hugetlb",
        "misc",
        "net_cls",
        "net_prio",
        "perf_event",
        "rdma",
        "irq",
    ];
    let lower = name.to_ascii_lowercase();
    let prefix = lower.split('.').next().unwrap_or_default();
    ["tasks", "notify_on_release", "release_agent"].contains(&lower.as_str())
        || (lower.contains('.') && CONTROLLERS.contains(&prefix))
}

/// A bot's name made safe for a file or cgroup name: ASCII letters, digits, `-`, `_` and `.`
/// kept, anything else `_`, no leading dot, at most [`MAX_FILE_NAME`] characters, never a
/// cgroup control file's name. Its log is `logs/<this>.log` (a second bot with the same safe
/// name gets `-2`, and so on).
pub fn safe_file_name(name: &str) -> String {
    let base: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "-_.".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    let base = match base.trim_start_matches('.') {
        "" => "bot".to_string(),
        b => b.chars().take(MAX_FILE_NAME).collect(),
    };
    // These names also name cgroup directories: none may be a control file's.
    if is_cgroup_file(&base) {
        format!("bot-{base}")
    } else {
        base
    }
}

/// File-system-safe, unique names for the bots' work directories, logs and cgroups.
fn file_names(specs: &[BotSpec]) -> Vec<String> {
    let mut used = HashSet::new();
    specs
        .iter()
        .map(|s| {
            let base = safe_file_name(&s.name);
            let mut name = base.clone();
            let mut n = 1;
            while !used.insert(name.clone()) {
                n += 1;
                name = format!("{base}-{n}");
            }
            name
        })
        .collect()
}
