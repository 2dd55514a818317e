//! Runs a whole tournament: prepares the bots, plans the games (all of a new tournament's,
//! those a stopped one did not finish, those an `--update` changed), plays them on `--jobs`
//! parallel games, records every game as it ends, and writes the outputs for the field.

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};

use crate::bot::prepare::PreparedBot;
use crate::bot::workspace::Workspace;

use crate::config::RunConfig;
use crate::player::check::check_engines;
use crate::results::games::{read_games, GameRecord, GamesWriter};
use crate::sandbox::Sandbox;

mod field;
pub mod file;
pub mod late;
mod legacy;
mod lineup;
mod lock;
pub mod plan;
mod play;
mod progress;
pub mod remote;
pub mod runner;
mod sprt;
mod swiss;
#[cfg(test)]
mod tests;
mod update;
mod write;

use file::{BotEntry, TournamentFile};
pub use lock::Stops;
use lock::{signal_name, OutputLock};
use plan::Planned;
use remote::{NoRemotes, Remotes};

/// What a finished run reports.
#[derive(Debug)]
pub struct Summary {
    /// Games played by this run (a resumed run does not count the games before it).
    pub played: usize,
    /// Games of the tournament recorded in all.
    pub games: usize,
    pub elapsed: Duration,
    /// Bots that could not play, with the reason.
    pub left_out: Vec<(String, String)>,
}

impl std::fmt::Display for Summary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "played {}", plural(self.played, "game"))?;
        if self.games != self.played {
            write!(f, " ({} in all)", self.games)?;
        }
        write!(f, " in {:.1} s", self.elapsed.as_secs_f64())?;
        if !self.left_out.is_empty() {
            write!(f, "; {} left out:", plural(self.left_out.len(), "bot"))?;
            for (name, reason) in &self.left_out {
                write!(f, "\n  `{name}`: {reason}")?;
            }
        }
        Ok(())
    }
}

/// The one error for a round robin with fewer than two bots that can play, whether the others
/// were left out when loaded or when prepared.
fn too_few_bots(playing: usize, left_out: usize) -> anyhow::Error {
    let mut text = format!("fewer than two bots can play: {playing} can");
    if left_out > 0 {
        text.push_str(&format!(
            ", {} left out (see the warnings above)",
            plural(left_out, "bot")
        ));
    }
    anyhow::anyhow!(text)
}

/// `1 game`, `2 games`.
pub fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}

/// A tournament stopped by Ctrl-C, SIGTERM or SIGHUP: its finished games are safe and it can
/// be resumed.
#[derive(Debug)]
pub struct Interrupted {
    pub played: usize,
    pub total: usize,
    pub out: PathBuf,
    /// The signal that stopped it.
    pub signal: i32,
}

impl Interrupted {
    /// The exit status: 128 plus the signal's number, as a shell reports it.
    pub fn exit_code(&self) -> i32 {
        128 + self.signal
    }
}

impl std::fmt::Display for Interrupted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "stopped by {} with {} of {} games played; continue with `arena resume {}`",
            signal_name(self.signal),
            self.played,
            self.total,
            self.out.display()
        )
    }
}

impl std::error::Error for Interrupted {}

/// Runs a new tournament into the configuration's output directory (with `--update`, updates
/// the one it holds).
pub async fn run(config: RunConfig) -> Result<Summary> {
    run_with(config, Arc::new(NoRemotes)).await
}

/// Runs a new tournament whose players are the configuration's bots and `remotes`.
pub async fn run_with<R: Remotes>(mut config: RunConfig, remotes: Arc<R>) -> Result<Summary> {
    let remote_count = remotes.names().len();
    let started = Instant::now();
    let started_wall = std::time::SystemTime::now();
    let out = config.out().to_path_buf();
    let loaded = field::load(&config, remote_count)?;
    std::fs::create_dir_all(&out).with_context(|| format!("cannot create `{}`", out.display()))?;
    let lock = OutputLock::acquire(&out)?;
    let games_path = out.join("games.csv");
    let held = file::path(&out).exists() || games_path.exists();
    if config.output.update && held {
        let summary = update::update(config, loaded, started, remotes).await;
        drop(lock);
        return summary;
    }
    // `--update` with nothing to update runs a new tournament, its seed drawn now.
    config
        .tournament
        .seed
        .get_or_insert_with(crate::config::random_seed);
    if held {
        bail!(
            "`{}` already holds a tournament: add `--update` to play only the games of new, \
             revised or removed bots, continue a stopped one with `arena resume {}`, or \
             choose another `--out`",
            out.display(),
            out.display()
        );
    }
    let workspace = workspace(&config, false)?;
    let run_id = out
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "run".to_string());
    let field = loaded.prepare(&config, &workspace, remote_count).await?;
    let mut entries = field.entries;
    entries.extend(remotes.names().into_iter().map(BotEntry::remote));
    let info = TournamentFile {
        format: file::FORMAT,
        arena_version: env!("CARGO_PKG_VERSION").to_string(),
        run: run_id,
        started_at: humantime::format_rfc3339_seconds(started_wall).to_string(),
        config,
        gauntlet: field.references,
        bots: entries,
        excluded: field.excluded,
        blocks: Vec::new(),
    };
    info.write(&out)?;
    let writer = GamesWriter::create(&games_path)?;
    let planned = plan::plan(&info, None, &[], &HashSet::new(), &HashSet::new());
    let summary = finish(
        info,
        workspace,
        field.bots,
        Vec::new(),
        planned,
        writer,
        started,
        remotes,
    )
    .await;
    drop(lock);
    summary
}

/// Continues an interrupted tournament in `out` from its `tournament.json` and `games.csv`:
/// finished games are kept, the others are played. `jobs` and `quiet` may differ from the
/// interrupted run's.
pub async fn resume(out: &Path, jobs: Option<u32>, quiet: bool) -> Result<Summary> {
    resume_with(out, jobs, quiet, Arc::new(NoRemotes)).await
}

/// Continues an interrupted tournament with `remotes` for its remote entrants.
pub async fn resume_with<R: Remotes>(
    out: &Path,
    jobs: Option<u32>,
    quiet: bool,
    remotes: Arc<R>,
) -> Result<Summary> {
    let started = Instant::now();
    let mut info = TournamentFile::read(out)?;
    let lock = OutputLock::acquire(out)?;
    info.config.output.out = Some(out.to_path_buf());
    info.config.output.quiet = quiet;
    if let Some(jobs) = jobs {
        info.config.tournament.jobs = Some(jobs);
    }
    let sources = info.sources()?;
    let loaded = crate::bot::load_all(&sources, info.config.game);
    if let Some(rejected) = loaded.rejected.first() {
        bail!(
            "bot `{}` played in the tournament but cannot play now: {}",
            rejected.name,
            rejected.reason
        );
    }
    let specs = loaded.specs;
    for (spec, entry) in specs.iter().zip(&info.bots) {
        if spec.name != entry.name {
            bail!(
                "bot `{}` in `{}` is now named `{}`: the tournament cannot be resumed",
                entry.name,
                entry.source.display(),
                spec.name
            );
        }
        let now = crate::bot::checksums(&entry.source, &info.config.sandbox.share)?;
        if let Some(file) = changed_file(&entry.checksums, &now) {
            bail!(
                "bot `{}` changed since the tournament started: {file}; the tournament cannot \
                 be resumed (`arena run ... --update` replays its games)",
                entry.name
            );
        }
    }
    let games_path = out.join("games.csv");
    let records = read_games(std::slice::from_ref(&games_path))?;
    let dropped = crate::results::superseded::read(&crate::results::superseded::path(out))?;
    let writer = GamesWriter::reopen(&games_path)?;

    let work = out.join("work");
    if work.exists() {
        std::fs::remove_dir_all(&work)
            .with_context(|| format!("cannot remove `{}`", work.display()))?;
    }
    let workspace = workspace(&info.config, true)?;
    let (bots, mut excluded) = workspace.prepare_all(specs, info.config.jobs()).await?;
    let settings = info.config.player_settings();
    let bots = check_engines(bots, &mut excluded, &settings, info.config.jobs()).await;
    if let Some((spec, reason)) = excluded.first() {
        bail!(
            "bot `{}` played in the tournament but cannot play now: {reason}",
            spec.name
        );
    }
    let planned = plan::plan(&info, Some(&info), &records, &dropped, &HashSet::new());
    let counted = counting(records, &dropped, &planned);
    eprintln!(
        "resuming `{}`: {} already played",
        info.run,
        plural(counted.len(), "game")
    );
    if let Some(block) = planned.block.clone() {
        info.blocks = info.blocks_or_first();
        info.blocks.push(block);
        info.write(out)?;
    }
    let summary = finish(
        info, workspace, bots, counted, planned, writer, started, remotes,
    )
    .await;
    drop(lock);
    summary
}

/// The games of `records` that still count: neither `dropped` before nor superseded by the
/// plan.
fn counting(
    records: Vec<GameRecord>,
    dropped: &HashSet<u64>,
    planned: &Planned,
) -> Vec<GameRecord> {
    let superseded: HashSet<u64> = planned.superseded.iter().map(|(id, _)| *id).collect();
    records
        .into_iter()
        .filter(|r| !dropped.contains(&r.game_id) && !superseded.contains(&r.game_id))
        .collect()
}

/// The first difference between a bot's recorded and current checksums, described.
fn changed_file(then: &BTreeMap<String, String>, now: &BTreeMap<String, String>) -> Option<String> {
    for (file, hash) in then {
        match now.get(file) {
            None => return Some(format!("`{file}` was removed")),
            Some(h) if h != hash => return Some(format!("`{file}` differs")),
            Some(_) => {}
        }
    }
    now.keys()
        .find(|f| !then.contains_key(*f))
        .map(|f| format!("`{f}` was added"))
}

/// Creates the output directories, probes the sandbox, and makes the bots' workspace.
fn workspace(config: &RunConfig, resuming: bool) -> Result<Workspace> {
    let out = config.out();
    let mut dirs = vec![out.to_path_buf()];
    if config.replays() {
        dirs.push(out.join("replays"));
    }
    for dir in &dirs {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("cannot create `{}`", dir.display()))?;
    }
    let limits = config.sandbox_limits();
    let sandbox = if config.sandbox.no_sandbox {
        Sandbox::disabled(limits)
    } else {
        Sandbox::probe(limits, config.sandbox.allow_network)
    };
    let (summary, warnings) = sandbox.summary();
    if !config.output.quiet {
        eprintln!("{summary}");
    }
    for warning in warnings {
        eprintln!("warning: {warning}");
    }
    let mut workspace = Workspace::new(
        sandbox,
        out.join("logs"),
        config.time.build_time,
        config.limits.log_limit,
        resuming,
    )?;
    workspace.trust(crate::bot::prepare::Trust::new(
        &config.sandbox.share,
        config.limits.max_bot_size,
        &config.sandbox.pass_env,
    )?);
    if config.output.keep_work {
        workspace.keep(out.join("work"));
    }
    if config.instances() > 1 {
        workspace.with_instances();
    }
    Ok(workspace)
}

/// The plan → play → write of every run: sets aside the games the plan supersedes, plays its
/// games after `counted` (the recorded games that still count), then writes every output.
#[allow(clippy::too_many_arguments)]
async fn finish<R: Remotes>(
    info: TournamentFile,
    workspace: Workspace,
    bots: Vec<Arc<PreparedBot>>,
    mut counted: Vec<GameRecord>,
    planned: Planned,
    mut writer: GamesWriter,
    started: Instant,
    remotes: Arc<R>,
) -> Result<Summary> {
    let out = info.config.out().to_path_buf();
    crate::results::left_out::write(&out, &info.left_out())?;
    let before = counted.len();
    let mut played = play::play(
        &info,
        workspace,
        bots,
        planned.games,
        &counted,
        planned.total,
        &mut writer,
        remotes,
    )
    .await?;
    counted.append(&mut played.records);
    write::outputs(&info, &counted, &played)?;
    Ok(Summary {
        played: counted.len() - before,
        games: counted.len(),
        elapsed: started.elapsed(),
        left_out: info.left_out(),
    })
}
