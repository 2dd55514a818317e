//! Getting a bot ready to play: its private working copy, its build, its resolved command.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use anyhow::{Context, Result};

use super::log::BotLog;
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
    let copied = if spec.inline {
        Ok(())
    } else if spec.source.is_dir() {
        copy_tree_at(&spec.source, &workdir, 0)
    } else {
        let name = spec.source.file_name().unwrap_or_default();
        std::fs::copy(&spec.source, workdir.join(name))
            .map(drop)
            .with_context(|| format!("cannot copy `{}`", spec.source.display()))
    };
    if let Err(e) = copied {
        return Ok(Err((spec, format!("{e:#}"), log)));
    }
    // The working copy must be absolute: processes run with it as their directory.
    let workdir = workdir
        .canonicalize()
        .with_context(|| format!("cannot resolve `{}`", workdir.display()))?;

    // Interpreters installed outside the system directories (a pyenv, a virtualenv) must be
    // readable from inside the sandbox: allow the prefix they live in.
    let mut read = spec.overrides.read.clone();
    for program in std::iter::once(&spec.command[0]).chain(spec.build.iter().map(|b| &b[0])) {
        if program.starts_with("./") || (program.contains('/') && !program.starts_with('/')) {
            continue;
        }
        if let Ok(path) = resolve_program(program, &workdir) {
            let path = path.canonicalize().unwrap_or(path);
            if !crate::sandbox::is_system_path(&path) {
                if let Some(prefix) = path.parent().and_then(Path::parent) {
                    read.push(prefix.to_owned());
                }
            }
        }
    }
    let limits = spec.overrides.apply(opts.sandbox.limits);
    let jail = opts
        .sandbox
        .jail(index, file_name, &workdir, limits, &read)
        .with_context(|| format!("cannot set up the sandbox of bot `{}`", spec.name))?;

    if let Some(build) = &spec.build {
        if let Err(reason) = run_build(build, &workdir, &log, &jail, opts.build_time).await {
            log.note(&format!("build failed: {reason}"));
            return Ok(Err((spec, format!("build failed: {reason}"), log)));
        }
    }
    let program = match resolve_program(&spec.command[0], &workdir).and_then(|p| {
        check_interpreter(&p, &spec.command[0])?;
        Ok(p)
    }) {
        Ok(p) => p,
        Err(reason) => return Ok(Err((spec, reason, log))),
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
    }))
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
    })
}

/// Copies a directory tree, following symbolic links.
pub fn copy_tree(from: &Path, to: &Path) -> Result<()> {
    std::fs::create_dir_all(to).with_context(|| format!("cannot create `{}`", to.display()))?;
    copy_tree_at(from, to, 0)
}

/// Copies a bot directory, following symbolic links (so a bot may link a shared adapter).
fn copy_tree_at(from: &Path, to: &Path, depth: u32) -> Result<()> {
    // Bot directories are shallow; a deep tree means a symbolic link loop.
    anyhow::ensure!(depth < 16, "`{}` is nested too deeply", from.display());
    for entry in
        std::fs::read_dir(from).with_context(|| format!("cannot list `{}`", from.display()))?
    {
        let entry = entry.with_context(|| format!("cannot list `{}`", from.display()))?;
        let source = entry.path();
        let target = to.join(entry.file_name());
        let meta = std::fs::metadata(&source)
            .with_context(|| format!("cannot read `{}`", source.display()))?;
        if meta.is_dir() {
            std::fs::create_dir_all(&target)
                .with_context(|| format!("cannot create `{}`", target.display()))?;
            copy_tree_at(&source, &target, depth + 1)?;
        } else {
            std::fs::copy(&source, &target)
                .with_context(|| format!("cannot copy `{}`", source.display()))?;
        }
    }
    Ok(())
}

async fn run_build(
    command: &[String],
    workdir: &Path,
    log: &BotLog,
    jail: &Jail,
    limit: Duration,
) -> std::result::Result<(), String> {
    let program = resolve_program(&command[0], workdir)?;
    log.note(&format!(
        "build: {}",
        shlex::try_join(command.iter().map(String::as_str)).unwrap_or_default()
    ));
    let game_log = log.open_game().map_err(|e| format!("{e:#}"))?;
    let stderr = game_log.stdio().map_err(|e| e.to_string())?;
    let stdout = game_log.stdio().map_err(|e| e.to_string())?;
    let cage = jail.cage("build").map_err(|e| format!("{e:#}"))?;
    let setup = jail.child_setup(&cage, limit.as_secs() + 1);
    let mut cmd = tokio::process::Command::new(&program);
    cmd.args(&command[1..])
        .current_dir(workdir)
        .stdin(Stdio::null())
        .stdout(stdout)
        .stderr(stderr)
        .process_group(0)
        .kill_on_drop(true);
    if let Some(setup) = setup {
        // SAFETY: `apply` makes only raw system calls (see `ChildSetup`).
        unsafe {
            cmd.pre_exec(move || setup.apply());
        }
    }
    let spawned = cmd.spawn();
    // The command holds copies of the log pipe: the log is drained until they are closed.
    drop(cmd);
    let mut child = spawned.map_err(|e| format!("cannot start `{}`: {e}", command[0]))?;
    let pid = child.id();
    let status = match tokio::time::timeout(limit, child.wait()).await {
        Ok(status) => status.map_err(|e| e.to_string())?,
        Err(_) => {
            kill_group(pid);
            cage.close();
            let _ = child.wait().await;
            game_log.close(LOG_WAIT).await;
            return Err(format!(
                "it took longer than {}",
                humantime::format_duration(limit)
            ));
        }
    };
    // Nothing a build started may outlive it.
    kill_group(pid);
    cage.close();
    game_log.close(LOG_WAIT).await;
    if status.success() {
        Ok(())
    } else {
        Err(format!("{status}; its output is in the bot's log"))
    }
}

/// How long a build's last output may take to reach the bot's log once it has ended.
const LOG_WAIT: Duration = Duration::from_millis(500);

/// Resolves a command's program like a shell would: a name with a slash is a path (relative
/// to the bot's directory), any other name is looked up on `PATH`.
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
    let path = std::env::var_os("PATH").unwrap_or_default();
    let cwd = std::env::current_dir().unwrap_or_default();
    std::env::split_paths(&path)
        .map(|dir| cwd.join(dir).join(program))
        .find(|p| std::fs::metadata(p).is_ok_and(|m| super::is_executable(&m)))
        .ok_or_else(|| format!("`{program}` is not found on PATH"))
}

/// Checks that a program can be started by `execve`: a native program, or a script whose
/// first line names an interpreter that exists. A script without a `#!` line would fail in
/// every game, so it is refused before the first one, with the fix.
pub fn check_interpreter(program: &Path, named: &str) -> std::result::Result<(), String> {
    use std::io::Read;
    let mut head = [0u8; 256];
    let n = std::fs::File::open(program)
        .and_then(|mut f| f.read(&mut head))
        .map_err(|e| format!("cannot read `{named}`: {e}"))?;
    let head = &head[..n];
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
    // `#!/usr/bin/env python3`: the command env runs must be found too.
    if interpreter.ends_with("/env") {
        if let Some(command) = line
            .split_whitespace()
            .nth(1)
            .filter(|c| !c.starts_with('-'))
        {
            resolve_program(command, Path::new("/"))
                .map_err(|e| format!("`{named}` runs `{command}` through `env`, but {e}"))?;
        }
    }
    Ok(())
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

    #[test]
    fn scripts_need_a_reachable_interpreter() {
        let dir = tempfile::tempdir().unwrap();
        let file = |name: &str, text: &str| {
            let path = dir.path().join(name);
            std::fs::write(&path, text).unwrap();
            path
        };
        assert_eq!(check_interpreter(Path::new("/bin/sh"), "sh"), Ok(()));
        let ok = file("ok.sh", "#!/bin/sh\necho 1 1\n");
        assert_eq!(check_interpreter(&ok, "ok.sh"), Ok(()));
        let env = file("env.pl", "#!/usr/bin/env perl\nprint 1\n");
        assert_eq!(check_interpreter(&env, "env.pl"), Ok(()));
        let bare = file("bare.py", "print(1)\n");
        let err = check_interpreter(&bare, "bare.py").unwrap_err();
        assert!(
            err.contains("`bare.py` is neither a native program nor a script with a `#!` line"),
            "{err}"
        );
        let gone = file("gone.py", "#!/usr/bin/no-such-python\n");
        let err = check_interpreter(&gone, "gone.py").unwrap_err();
        assert!(err.contains("`/usr/bin/no-such-python`"), "{err}");
        let env_gone = file("envgone.py", "#!/usr/bin/env no-such-python-xyz\n");
        let err = check_interpreter(&env_gone, "envgone.py").unwrap_err();
        assert!(
            err.contains("runs `no-such-python-xyz` through `env`"),
            "{err}"
        );
    }
}
