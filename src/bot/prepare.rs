//! Getting a bot ready to play: its private working copy, its build, its resolved command.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, Result};

use super::copy::{copy_submission, copy_submitted_file, mirror, CopyRules};
use super::log::BotLog;
use super::preflight::{self, Runner, EXEC, READ};
use super::BotSpec;
use crate::sandbox::spawn::kill_group;
use crate::sandbox::{Jail, Sandbox};

/// A bot ready to play: its own working directory and an absolute program path.
pub struct PreparedBot {
    pub spec: BotSpec,
    /// The private copy of the bot's directory that all its processes run in.
    pub workdir: PathBuf,
    /// The private copy as prepared, before any game: what more instances are copied from.
    pub template: Option<PathBuf>,
    /// The program, resolved once to an absolute path.
    pub program: PathBuf,
    pub args: Vec<String>,
    pub log: BotLog,
    /// Directories outside its copy the bot may read (interpreters installed elsewhere).
    pub read: Vec<PathBuf>,
    /// The bot's confinement: uid, Landlock rules, cgroups, limits.
    pub jail: Jail,
    /// The environment of the bot's processes but for `HOME`, `TMPDIR` and `ARENA_*`, which
    /// each game adds: `PATH`, `LANG`, what the operator passes, what `bot.toml` sets.
    pub env: Vec<(OsString, OsString)>,
}

/// What the operator lets reach bots: the directories links may lead into, the size of a
/// copy, the variables of arena's environment passed on.
#[derive(Debug, Clone, Default)]
pub struct Trust {
    /// How bot directories are copied (`--share`, `--max-bot-size`).
    pub copy: CopyRules,
    /// `--pass-env`: variables of arena's environment, with their values.
    pub pass_env: Vec<(OsString, OsString)>,
}

impl Trust {
    /// The trust of a run: `shares` resolved (a missing one is an error), the values of the
    /// variables named by `pass_env` (one arena does not have is left out).
    pub fn new(shares: &[PathBuf], max_bot_size: u64, pass_env: &[String]) -> Result<Trust> {
        let shares = shares
            .iter()
            .map(|s| {
                s.canonicalize()
                    .ok()
                    .filter(|d| d.is_dir())
                    .with_context(|| format!("`--share {}`: no such directory", s.display()))
            })
            .collect::<Result<Vec<_>>>()?;
        let pass_env = pass_env
            .iter()
            .filter_map(|k| std::env::var_os(k).map(|v| (OsString::from(k), v)))
            .collect();
        Ok(Trust {
            copy: CopyRules {
                shares,
                max_size: max_bot_size,
            },
            pass_env,
        })
    }
}

/// Settings for preparing bots.
#[derive(Debug, Clone)]
pub struct PrepareOptions {
    /// The sandbox every bot process runs in.
    pub sandbox: std::sync::Arc<Sandbox>,
    /// Where the private copies go (one directory per bot).
    pub work_root: PathBuf,
    /// Where the bot logs go.
    pub logs_dir: PathBuf,
    /// The time a `build` command may take.
    pub build_time: Duration,
    /// The most bytes of stderr kept per bot.
    pub log_cap: u64,
    /// Add to existing logs (a resumed tournament) rather than start them afresh.
    pub append_logs: bool,
    /// Keep a pristine copy of each prepared bot, from which more instances are made (when a
    /// bot may play several games at once).
    pub templates: bool,
    /// What the operator lets reach bots.
    pub trust: Trust,
}

/// Prepares one bot. `Ok(Err(reason))` means the bot cannot play (its build failed, its
/// interpreter is missing) and is left out; `Err` is a problem of arena's own (a full disk).
pub async fn prepare(
    spec: BotSpec,
    index: usize,
    file_name: &str,
    opts: &PrepareOptions,
) -> Result<std::result::Result<PreparedBot, (BotSpec, String, BotLog)>> {
    let workdir = opts.work_root.join(file_name);
    let log_path = opts.logs_dir.join(format!("{file_name}.log"));
    let log = BotLog::create(&log_path, opts.log_cap, opts.append_logs)?;
    std::fs::create_dir_all(&workdir)
        .with_context(|| format!("cannot create `{}`", workdir.display()))?;
    let rules = opts.trust.copy.for_bot(&spec.source);
    let copied = if spec.inline {
        Ok(())
    } else if spec.source.is_dir() {
        copy_submission(&spec.source, &workdir, &rules)
    } else {
        copy_submitted_file(&spec.source, &workdir, &rules)
    };
    if let Err(reason) = copied {
        log.note(&format!("left out: {reason}"));
        return Ok(Err((spec, reason, log)));
    }
    // The working copy must be absolute: processes run with it as their directory.
    let workdir = workdir
        .canonicalize()
        .with_context(|| format!("cannot resolve `{}`", workdir.display()))?;

    // Interpreters installed outside the system directories (a pyenv, a virtualenv) must be
    // readable from inside the sandbox: allow the prefix they live in.
    let mut read = allowed_reads(&spec, &opts.trust.copy.shares, &log);
    read.extend(opts.trust.copy.shares.iter().cloned());
    let mut found = Vec::new();
    for program in std::iter::once(&spec.command[0]).chain(spec.build.iter().map(|b| &b[0])) {
        if program.starts_with("./") || (program.contains('/') && !program.starts_with('/')) {
            continue;
        }
        if let Ok(path) = resolve_program(program, &workdir) {
            found.push(path.clone());
            let path = path.canonicalize().unwrap_or(path);
            if !crate::sandbox::is_system_path(&path) {
                if let Some(prefix) = path.parent().and_then(Path::parent) {
                    read.push(prefix.to_owned());
                }
            }
        }
    }
    let limits = spec.overrides.apply(opts.sandbox.limits);
    for warning in spec.overrides.excess(opts.sandbox.limits) {
        let warning = format!("bot `{}`: {warning}", spec.name);
        eprintln!("warning: {warning}");
        log.note(&format!("warning: {warning}"));
    }
    let env = environment(&spec, &found, &opts.trust);
    let jail = opts
        .sandbox
        .jail(index, file_name, &workdir, limits, &read)
        .with_context(|| format!("cannot set up the sandbox of bot `{}`", spec.name))?;

    if let Some(build) = &spec.build {
        if let Err(reason) = run_build(build, &workdir, &env, &log, &jail, opts.build_time).await {
            log.note(&format!("build failed: {reason}"));
            return Ok(Err((spec, format!("build failed: {reason}"), log)));
        }
    }
    let runner = Runner::of(&workdir);
    let path_var = preflight::bot_path(&found);
    let program = match resolve_program(&spec.command[0], &workdir).and_then(|p| {
        check_interpreter(&p, &spec.command[0], runner, &path_var)?;
        Ok(p)
    }) {
        Ok(p) => p,
        Err(reason) => {
            log.note(&format!("left out: {reason}"));
            return Ok(Err((spec, reason, log)));
        }
    };
    let args = spec.command[1..].to_vec();
    // More instances are copied from the built directory as it was before any game ran in it.
    let template = if opts.templates {
        let template = opts.work_root.join(format!("{file_name}.template"));
        copy_tree(&workdir, &template)?;
        Some(template)
    } else {
        None
    };
    Ok(Ok(PreparedBot {
        spec,
        workdir,
        template,
        program,
        args,
        log,
        read,
        jail,
        env,
    }))
}

/// The directories of `bot.toml`'s `read` that lie under a share; the others are dropped
/// with a warning, for a bot may not open more of the file system than the operator shares.
fn allowed_reads(spec: &BotSpec, shares: &[PathBuf], log: &BotLog) -> Vec<PathBuf> {
    let mut read = Vec::new();
    for dir in &spec.overrides.read {
        let resolved = dir.canonicalize().unwrap_or_else(|_| dir.clone());
        if shares.iter().any(|s| resolved.starts_with(s)) {
            read.push(resolved);
        } else {
            let warning = format!(
                "bot `{}`: `read = [\"{}\"]` in `{}` is ignored: a bot may read only directories shared with `--share`",
                spec.name,
                dir.display(),
                super::MANIFEST
            );
            eprintln!("warning: {warning}");
            log.note(&format!("warning: {warning}"));
        }
    }
    read
}

/// The environment every process of the bot gets but for `HOME`, `TMPDIR` and `ARENA_*`.
fn environment(spec: &BotSpec, found: &[PathBuf], trust: &Trust) -> Vec<(OsString, OsString)> {
    let mut env: Vec<(OsString, OsString)> = vec![
        ("PATH".into(), preflight::bot_path(found).into()),
        ("LANG".into(), "C.UTF-8".into()),
    ];
    let pairs = trust.pass_env.iter().cloned().chain(
        spec.env
            .iter()
            .map(|(k, v)| (OsString::from(k), OsString::from(v))),
    );
    for (key, value) in pairs {
        env.retain(|(k, _)| *k != key);
        env.push((key, value));
    }
    env
}

/// Another instance of a prepared bot, `n` (from 2), for a game it plays while its other
/// instances play theirs: a copy of its prepared (built) directory with a jail of its own,
/// the jail's number `index` unique in the run. It shares the bot's log.
pub fn instance(
    bot: &PreparedBot,
    n: usize,
    index: usize,
    opts: &PrepareOptions,
) -> Result<PreparedBot> {
    let base = bot
        .workdir
        .file_name()
        .map_or_else(|| "bot".into(), |f| f.to_string_lossy().into_owned());
    let file_name = format!("{base}@{n}");
    let workdir = opts.work_root.join(&file_name);
    copy_tree(bot.template.as_ref().unwrap_or(&bot.workdir), &workdir)?;
    let workdir = workdir
        .canonicalize()
        .with_context(|| format!("cannot resolve `{}`", workdir.display()))?;
    let jail = opts
        .sandbox
        .jail(index, &file_name, &workdir, bot.jail.limits, &bot.read)
        .with_context(|| format!("cannot set up the sandbox of bot `{}`", bot.spec.name))?;
    // A program inside the bot's copy is the same file in this instance's copy.
    let program = match bot.program.strip_prefix(&bot.workdir) {
        Ok(inside) => workdir.join(inside),
        Err(_) => bot.program.clone(),
    };
    Ok(PreparedBot {
        spec: bot.spec.clone(),
        workdir,
        template: None,
        program,
        args: bot.args.clone(),
        log: bot.log.clone(),
        read: bot.read.clone(),
        jail,
        env: bot.env.clone(),
    })
}

/// Copies a tree arena made (a prepared bot's copy, the work directory for `--keep-work`):
/// symbolic links are copied as links, never followed; FIFOs, sockets and devices a bot made
/// are left out; sparse files stay sparse.
pub fn copy_tree(from: &Path, to: &Path) -> Result<()> {
    mirror(from, to).map_err(anyhow::Error::msg)
}

/// Runs a bot's `build` command in its jail, as a move runs: the same namespaces and view,
/// limits, uid, seccomp filter and clean environment (`env`, with `HOME` and `TMPDIR` its own
/// copy), started by the sandbox's own spawn; within `limit` of wall time.
async fn run_build(
    command: &[String],
    workdir: &Path,
    env: &[(OsString, OsString)],
    log: &BotLog,
    jail: &Jail,
    limit: Duration,
) -> std::result::Result<(), String> {
    use std::os::fd::AsRawFd;
    use std::os::unix::ffi::OsStrExt;
    let program = resolve_program(&command[0], workdir)?;
    log.note(&format!(
        "build: {}",
        shlex::try_join(command.iter().map(String::as_str)).unwrap_or_default()
    ));
    let c = |bytes: &[u8]| std::ffi::CString::new(bytes).map_err(|e| format!("{e}"));
    let home = workdir.as_os_str();
    let envp = env
        .iter()
        .filter(|(k, _)| k != "HOME" && k != "TMPDIR")
        .map(|(k, v)| (k.as_os_str(), v.as_os_str()))
        .chain([("HOME".as_ref(), home), ("TMPDIR".as_ref(), home)])
        .map(|(k, v)| c(&[k.as_bytes(), b"=", v.as_bytes()].concat()))
        .collect::<std::result::Result<Vec<_>, _>>()?;
    let program = c(program.as_os_str().as_bytes())?;
    let argv = std::iter::once(Ok(program.clone()))
        .chain(command[1..].iter().map(|a| c(a.as_bytes())))
        .collect::<std::result::Result<Vec<_>, _>>()?;
    let cwd = c(home.as_bytes())?;
    let game_log = log.open_game().map_err(|e| format!("{e:#}"))?;
    let null = std::fs::File::open("/dev/null").map_err(|e| format!("`/dev/null`: {e}"))?;
    let cage = jail.cage("build").map_err(|e| format!("{e:#}"))?;
    let spawned = crate::sandbox::spawn::spawn(&crate::sandbox::spawn::SpawnSpec {
        program: &program,
        argv: &argv,
        envp: &envp,
        cwd: &cwd,
        stdin_pipe: false,
        null: null.as_raw_fd(),
        stdout: Some(game_log.stderr_fd()),
        stderr: game_log.stderr_fd(),
        setup: jail.child_setup(&cage, limit.as_secs() + 1),
        exec_fd: None,
    });
    let mut child = match spawned {
        Ok(child) => child,
        Err(e) => {
            cage.close();
            game_log.close(LOG_WAIT).await;
            return Err(format!("cannot start `{}`: {e}", command[0]));
        }
    };
    let pid = Some(child.id());
    let waited = tokio::time::timeout(limit, child.wait()).await;
    // Nothing a build started may outlive it.
    cage.kill();
    kill_group(pid);
    let status = match waited {
        Ok(status) => status.map_err(|e| e.to_string()),
        Err(_) => {
            let _ = child.wait().await;
            Err(format!(
                "it took longer than {}",
                humantime::format_duration(limit)
            ))
        }
    };
    cage.close();
    game_log.close(LOG_WAIT).await;
    match status? {
        status if status.success() => Ok(()),
        status => Err(format!("{status}; its output is in the bot's log")),
    }
}

/// How long a build's last output may take to reach the bot's log once it has ended.
const LOG_WAIT: Duration = Duration::from_millis(500);

/// Resolves a command's program like a shell would: a name with a slash is a path (relative
/// to the bot's directory), any other name is looked up as bots look it up, the system
/// directories first, then arena's `PATH` ([`preflight::find_program`]).
pub fn resolve_program(program: &str, workdir: &Path) -> std::result::Result<PathBuf, String> {
    if program.contains('/') {
        // `./bot` names the same file as `bot`; keep resolved paths free of `/./`.
        let path = workdir.join(program.trim_start_matches("./"));
        return match std::fs::metadata(&path) {
            Ok(meta) if super::is_executable(&meta) => Ok(path),
            Ok(_) => Err(format!(
                "`{program}` is not executable (mark it executable, or name its interpreter in `command`)"
            )),
            Err(_) => Err(format!("`{program}` does not exist in the bot's directory")),
        };
    }
    preflight::find_program(program, &std::env::var_os("PATH").unwrap_or_default())
        .ok_or_else(|| format!("`{program}` is not found on PATH"))
}

/// Checks that a program can be started by `execve` as the bot will start it: a native
/// program, or a script whose first line names an interpreter that exists, each readable and
/// executable by the bot's own user (`runner`, when it has one), a `#!/usr/bin/env X` line's
/// `X` found on the bot's `PATH` (`path`). A script without a `#!` line would fail in every
/// game, so it is refused before the first one, with the fix.
pub fn check_interpreter(
    program: &Path,
    named: &str,
    runner: Option<Runner>,
    path: &str,
) -> std::result::Result<(), String> {
    let head = read_head(program).map_err(|e| format!("cannot read `{named}`: {e}"))?;
    let reachable = |file: &Path, named: &str| match runner {
        Some(runner) => match runner.denied(file, wanted(file)) {
            Some(why) => Err(preflight::unreachable(named, file, &why)),
            None => Ok(()),
        },
        None => Ok(()),
    };
    reachable(program, named)?;
    if head.starts_with(b"\x7fELF") {
        return Ok(());
    }
    let Some(line) = head.strip_prefix(b"#!") else {
        return Err(format!(
            "`{named}` is neither a native program nor a script with a `#!` line: add one such as `#!/usr/bin/env python3` as its first line, or name its interpreter in `command`"
        ));
    };
    let line = String::from_utf8_lossy(line.split(|&b| b == b'\n').next().unwrap_or_default());
    let interpreter = line.split_whitespace().next().unwrap_or_default();
    match std::fs::metadata(interpreter) {
        Ok(meta) if super::is_executable(&meta) => {}
        _ => {
            return Err(format!(
                "`{named}` names the interpreter `{interpreter}` in its `#!` line, which does not exist here"
            ))
        }
    }
    reachable(Path::new(interpreter), interpreter)?;
    // `#!/usr/bin/env python3`: the command env runs must be found too, on the bot's `PATH`.
    if interpreter.ends_with("/env") {
        if let Some(command) = line
            .split_whitespace()
            .nth(1)
            .filter(|c| !c.starts_with('-'))
        {
            let found = preflight::lookup(command, path).ok_or_else(|| {
                format!("`{named}` runs `{command}` through `env`, but `{command}` is not found on the bots' `PATH` ({path}): name its interpreter in `command`")
            })?;
            reachable(&found, command)?;
        }
    }
    Ok(())
}

/// The first bytes of a file, enough for a `#!` line; a FIFO is never waited on.
fn read_head(program: &Path) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    let mut head = vec![0u8; 256];
    let n = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(program)
        .and_then(|mut f| f.read(&mut head))?;
    head.truncate(n);
    Ok(head)
}

/// What running a file takes: execute permission, and read permission too for a script.
fn wanted(file: &Path) -> u32 {
    match read_head(file) {
        Ok(head) if head.starts_with(b"\x7fELF") => EXEC,
        _ => READ | EXEC,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn programs_resolve_on_path_or_in_the_bot_directory() {
        let dir = tempfile::tempdir().unwrap();
        assert!(resolve_program("sh", dir.path()).unwrap().is_absolute());
        let err = resolve_program("no-such-interpreter-xyz", dir.path()).unwrap_err();
        assert_eq!(err, "`no-such-interpreter-xyz` is not found on PATH");
        std::fs::write(dir.path().join("bot.pl"), "print 1").unwrap();
        let err = resolve_program("./bot.pl", dir.path()).unwrap_err();
        assert!(err.contains("not executable"), "{err}");
        let err = resolve_program("./gone", dir.path()).unwrap_err();
        assert!(err.contains("does not exist"), "{err}");
    }

    fn check(program: &Path, named: &str) -> std::result::Result<(), String> {
        check_interpreter(program, named, None, preflight::SYSTEM_PATH)
    }

    #[test]
    fn scripts_need_a_reachable_interpreter() {
        let dir = tempfile::tempdir().unwrap();
        let file = |name: &str, text: &str| {
            let path = dir.path().join(name);
            std::fs::write(&path, text).unwrap();
            path
        };
        assert_eq!(check(Path::new("/bin/sh"), "sh"), Ok(()));
        let ok = file("ok.sh", "#!/bin/sh\necho 1 1\n");
        assert_eq!(check(&ok, "ok.sh"), Ok(()));
        let env = file("env.pl", "#!/usr/bin/env perl\nprint 1\n");
        assert_eq!(check(&env, "env.pl"), Ok(()));
        let bare = file("bare.py", "print(1)\n");
        let err = check(&bare, "bare.py").unwrap_err();
        assert!(
            err.contains("`bare.py` is neither a native program nor a script with a `#!` line"),
            "{err}"
        );
        let gone = file("gone.py", "#!/usr/bin/no-such-python\n");
        let err = check(&gone, "gone.py").unwrap_err();
        assert!(err.contains("`/usr/bin/no-such-python`"), "{err}");
        let env_gone = file("envgone.py", "#!/usr/bin/env no-such-python-xyz\n");
        let err = check(&env_gone, "envgone.py").unwrap_err();
        assert!(
            err.contains("runs `no-such-python-xyz` through `env`"),
            "{err}"
        );
    }
}
