//! Getting a bot ready to play: its private working copy, its build, its resolved command.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use anyhow::{Context, Result};

use super::log::BotLog;
use super::BotSpec;
use crate::player::process::kill_group;
use crate::sandbox::{Jail, Sandbox};

/// A bot ready to play: its own working directory and an absolute program path.
pub struct PreparedBot {
    pub spec: BotSpec,
    /// The private copy of the bot's directory that all its processes run in.
    pub workdir: PathBuf,
    /// The program, resolved once to an absolute path.
    pub program: PathBuf,
    pub args: Vec<String>,
    pub log: BotLog,
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
    let program = match resolve_program(&spec.command[0], &workdir) {
        Ok(p) => p,
        Err(reason) => return Ok(Err((spec, reason, log))),
    };
    let args = spec.command[1..].to_vec();
    Ok(Ok(PreparedBot {
        spec,
        workdir,
        program,
        args,
        log,
        jail,
    }))
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
    let stderr = log.stderr().map_err(|e| e.to_string())?;
    let stdout = log.stderr().map_err(|e| e.to_string())?;
    let cage = jail.cage("build");
    let setup = jail.child_setup(Some(&cage), limit.as_secs() + 1);
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
    let mut child = cmd
        .spawn()
        .map_err(|e| format!("cannot start `{}`: {e}", command[0]))?;
    let pid = child.id();
    let status = match tokio::time::timeout(limit, child.wait()).await {
        Ok(status) => status.map_err(|e| e.to_string())?,
        Err(_) => {
            kill_group(pid);
            cage.close();
            let _ = child.wait().await;
            return Err(format!(
                "it took longer than {}",
                humantime::format_duration(limit)
            ));
        }
    };
    // Nothing a build started may outlive it.
    kill_group(pid);
    cage.close();
    if status.success() {
        Ok(())
    } else {
        Err(format!("{status}; its output is in the bot's log"))
    }
}

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
}
