//! Runs a whole tournament: prepares the bots, plays the schedule on `--jobs` parallel games,
//! records every game as it ends, and writes the outputs. `resume` continues one that stopped.

use std::collections::{BTreeMap, HashSet};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::bot::prepare::PreparedBot;
use crate::bot::workspace::Workspace;

use crate::config::RunConfig;
use crate::export;
use crate::player::check::check_engines;
use crate::results::games::{read_games, GameRecord, GameResult, GamesWriter, Reason};
use crate::sandbox::Sandbox;
use crate::schedule::{round_robin, Pairing};

pub mod file;
mod legacy;
mod lineup;
mod lock;
pub mod remote;
pub mod runner;
#[cfg(test)]
mod tests;

use file::{BotEntry, Excluded, TournamentFile};
use lineup::Lineup;
pub use lock::Stops;
use lock::{signal_name, OutputLock};
use remote::{Mixed, NoRemotes, Remotes};
use runner::Settings;

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

/// Runs a new tournament into the configuration's output directory.
pub async fn run(config: RunConfig) -> Result<Summary> {
    run_with(config, Arc::new(NoRemotes)).await
}

/// Runs a new tournament whose players are the configuration's bots and `remotes`.
pub async fn run_with<R: Remotes>(config: RunConfig, remotes: Arc<R>) -> Result<Summary> {
    let remote_count = remotes.names().len();
    let started = Instant::now();
    let started_wall = std::time::SystemTime::now();
    let out = config.out().to_path_buf();
    let loaded = crate::bot::load_all(&config.all_bots(), config.game);
    let is_reference = |source: &Path| {
        config
            .tournament
            .gauntlet
            .iter()
            .any(|r| Path::new(&r.to_string()) == source)
    };
    for rejected in &loaded.rejected {
        if is_reference(&rejected.source) {
            bail!(
                "reference bot `{}` cannot play: {}",
                rejected.name,
                rejected.reason
            );
        }
        eprintln!(
            "warning: bot `{}` is left out: {}",
            rejected.name, rejected.reason
        );
    }
    let specs = loaded.specs;
    if specs.len() + remote_count < 2 && config.tournament.gauntlet.is_empty() {
        return Err(too_few_bots(
            specs.len() + remote_count,
            loaded.rejected.len(),
        ));
    }
    std::fs::create_dir_all(&out).with_context(|| format!("cannot create `{}`", out.display()))?;
    let lock = OutputLock::acquire(&out)?;
    let games_path = out.join("games.csv");
    if games_path.exists() {
        bail!(
            "`{}` already exists: choose another `--out`, or continue it with `arena resume {}`",
            games_path.display(),
            out.display()
        );
    }
    let workspace = workspace(&config, false)?;
    let run_id = out
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "run".to_string());
    let references: Vec<String> = specs[..config.tournament.gauntlet.len()]
        .iter()
        .map(|s| s.name.clone())
        .collect();
    let (bots, mut excluded) = workspace.prepare_all(specs, config.jobs()).await?;
    let bots = check_engines(
        bots,
        &mut excluded,
        &config.player_settings(),
        config.jobs(),
    )
    .await;
    for (spec, reason) in &excluded {
        if references.contains(&spec.name) {
            bail!("reference bot `{}` cannot play: {reason}", spec.name);
        }
        eprintln!("warning: bot `{}` is left out: {reason}", spec.name);
    }
    // A gauntlet whose candidates all failed still grades them (as never run).
    if bots.len() + remote_count < 2 && references.is_empty() {
        return Err(too_few_bots(
            bots.len() + remote_count,
            loaded.rejected.len() + excluded.len(),
        ));
    }
    let mut entries = Vec::new();
    for b in &bots {
        entries.push(BotEntry {
            name: b.spec.name.clone(),
            source: if b.spec.inline {
                b.spec.source.clone()
            } else {
                std::path::absolute(&b.spec.source)
                    .with_context(|| format!("cannot resolve `{}`", b.spec.source.display()))?
            },
            command: b.spec.command.clone(),
            protocol: b.spec.protocol,
            program: b.program.clone(),
            checksums: crate::bot::checksums(&b.spec.source, &config.sandbox.share)?,
            remote: false,
        });
    }
    entries.extend(remotes.names().into_iter().map(BotEntry::remote));
    let info = TournamentFile {
        format: file::FORMAT,
        arena_version: env!("CARGO_PKG_VERSION").to_string(),
        run: run_id,
        started_at: humantime::format_rfc3339_seconds(started_wall).to_string(),
        config,
        gauntlet: references,
        bots: entries,
        excluded: loaded
            .rejected
            .into_iter()
            .map(|r| Excluded {
                name: r.name,
                source: r.source,
                reason: r.reason,
            })
            .chain(excluded.iter().map(|(s, reason)| Excluded {
                name: s.name.clone(),
                source: s.source.clone(),
                reason: reason.clone(),
            }))
            .collect(),
    };
    info.write(&out)?;
    let writer = GamesWriter::create(&games_path)?;
    let summary = finish(info, workspace, bots, Vec::new(), writer, started, remotes).await;
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
                "bot `{}` changed since the tournament started: {file}; the tournament cannot be resumed",
                entry.name
            );
        }
    }
    let games_path = out.join("games.csv");
    let done = read_games(std::slice::from_ref(&games_path))?;
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
    eprintln!(
        "resuming `{}`: {} already played",
        info.run,
        plural(done.len(), "game")
    );
    let summary = finish(info, workspace, bots, done, writer, started, remotes).await;
    drop(lock);
    summary
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

/// The games this run plays: a round robin or a gauntlet, or one shard of it.
fn schedule(config: &RunConfig, names: &[&str], references: &[String]) -> Vec<Pairing> {
    let (rounds, games) = (config.tournament.rounds, config.games_per_pairing());
    let schedule = if references.is_empty() {
        round_robin(names.len(), rounds, games)
    } else {
        let (refs, candidates): (Vec<usize>, Vec<usize>) =
            (0..names.len()).partition(|&i| references.iter().any(|r| r == names[i]));
        crate::schedule::gauntlet(&candidates, &refs, rounds, games)
    };
    match config.tournament.shard {
        Some(shard) => crate::schedule::shard(schedule, shard.index, shard.count, config.seed()),
        None => schedule,
    }
}

/// Plays the games of the schedule not yet played, then writes the outputs of all games.
async fn finish<R: Remotes>(
    info: TournamentFile,
    workspace: Workspace,
    bots: Vec<Arc<PreparedBot>>,
    mut records: Vec<GameRecord>,
    mut writer: GamesWriter,
    started: Instant,
    remotes: Arc<R>,
) -> Result<Summary> {
    let config = &info.config;
    let out = config.out().to_path_buf();
    crate::results::left_out::write(&out, &info.left_out())?;
    let before = records.len();
    let references = &info.gauntlet;
    let remote_names = remotes.names();
    let names: Vec<&str> = (bots.iter().map(|b| b.spec.name.as_str()))
        .chain(remote_names.iter().map(String::as_str))
        .collect();
    let schedule = schedule(config, &names, references);
    let total = schedule.len();
    let done: HashSet<u64> = records.iter().map(|r| r.game_id).collect();
    let pending: Vec<Pairing> = schedule
        .into_iter()
        .filter(|p| !done.contains(&p.game_id))
        .collect();
    let limits = config.move_limits();
    let settings = Arc::new(Settings {
        run_id: info.run.clone(),
        game: config.game,
        rules: config.rules,
        seed: config.seed(),
        opening_plies: config.tournament.opening_plies,
        book: config.book()?.map(Arc::new),
        clock: config.time.time_control,
        jobs: config.jobs(),
        replays: config.replays().then(|| out.join("replays")),
        move_time: limits.move_time,
    });
    let instances = workspace.instances(bots.len());
    let lineup = Lineup::new(
        bots,
        instances,
        config.instances(),
        config.player_settings(),
    );
    let seats = Arc::new(Mixed::new(lineup, Arc::clone(&remotes), config.jobs()));
    // Friendly games may be asked for from now; the schedule's games wait for the start.
    let locals: Vec<String> = (seats.lineup.bots.iter())
        .map(|b| b.spec.name.clone())
        .collect();
    let games = pending.len() as u64;
    let plan = runner::Plan {
        start: remotes.start(seats.first_remote(), &pending),
        friendly: remotes.friendly(&locals),
        schedule: pending,
    };
    // One listener for the whole run: it keeps a signal that arrives between two polls.
    let mut stops = Stops::listen()?;
    let mut stopped_by = 0;
    let progress = progress_bar(games, !config.output.quiet);
    let played = runner::play_schedule(
        &settings,
        &seats,
        seats.len(),
        plan,
        async {
            stopped_by = stops.next().await;
        },
        &mut |record| {
            writer.append(record)?;
            progress.inc(1);
            progress.set_message(describe(record));
            Ok(())
        },
    )
    .await;
    progress.finish_and_clear();
    remotes.close();
    if played.as_ref().is_ok_and(|p| p.interrupted) {
        tokio::spawn(async move {
            // A second signal exits at once, even while the workspace is cleaned up.
            let signal = stops.next().await;
            std::process::exit(128 + signal);
        });
    }
    let bots = Arc::into_inner(seats).map_or_else(Vec::new, |s| s.lineup.bots);
    let closed = workspace.close(bots);
    let played = played?;
    closed?;
    records.extend(played.records);
    if played.interrupted {
        return Err(Interrupted {
            played: records.len(),
            total,
            out,
            signal: stopped_by,
        }
        .into());
    }

    let (title, description) = info.describe();
    let gauntlet = (!references.is_empty()).then(|| {
        // A gauntlet's candidates: the bots that played that are not references, and those
        // that never ran.
        let mut candidates: Vec<String> = info
            .bots
            .iter()
            .map(|b| b.name.clone())
            .chain(info.excluded.iter().map(|e| e.name.clone()))
            .filter(|n| !references.contains(n))
            .collect();
        candidates.sort();
        crate::standings::grades::Gauntlet {
            references: references.clone(),
            candidates,
            never_ran: info.left_out(),
            rule: config.tournament.pass,
            move_time: Some(config.move_limits().move_time),
        }
    });
    let written = export::write_all(
        &out,
        &crate::results::games::GameTable::from_records(&records),
        &export::ReportOptions {
            anchor: config.output.anchor.clone(),
            title,
            config: description,
            replays: config
                .replays()
                .then(|| export::html::ReplayDir::beside(out.join("replays")))
                .into_iter()
                .collect(),
            logs: true,
            gauntlet,
            left_out: info.left_out(),
        },
    )?;
    crate::stdout::print(format_args!(
        "{}\n{}",
        export::markdown::standings(&written.standings),
        export::markdown::crosstable(&written.standings)
    ))
    .context("cannot write the standings to stdout")?;
    if let Some(grades) = &written.grades {
        crate::stdout::print(format_args!("\n{}", export::terminal::grades(grades)))
            .context("cannot write the grades to stdout")?;
    }
    Ok(Summary {
        played: records.len() - before,
        games: records.len(),
        elapsed: started.elapsed(),
        left_out: info.left_out(),
    })
}

fn progress_bar(games: u64, wanted: bool) -> ProgressBar {
    if !wanted || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(games), ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} games, ETA {eta}  {wide_msg}")
            .expect("the template is valid"),
    );
    bar
}

/// A one-line summary of a game for the progress bar.
fn describe(r: &GameRecord) -> String {
    let verdict = match r.result {
        GameResult::A => format!("{} won", r.bot_a),
        GameResult::B => format!("{} won", r.bot_b),
        GameResult::Draw => "draw".to_string(),
    };
    let reason = match r.reason {
        Reason::Normal => "",
        Reason::Timeout => ", timeout",
        Reason::Illegal => ", illegal",
        Reason::Crash => ", crash",
    };
    format!(
        "latest: {} {}-{} {} ({verdict}{reason})",
        r.bot_a, r.score_a, r.score_b, r.bot_b
    )
}
