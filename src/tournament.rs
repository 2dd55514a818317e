//! Runs a whole tournament: prepares the bots, plays the schedule on `--jobs` parallel games,
//! records every game as it ends, and writes the standings.

use std::collections::{BTreeMap, HashSet, VecDeque};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde::{Deserialize, Serialize};
use tokio::task::JoinSet;

use crate::bot::prepare::{prepare, PrepareOptions, PreparedBot};
use crate::bot::BotSpec;
use crate::export as report;
use crate::game::{GameConfig, GameKind};
use crate::game::{Seat, Turn};
use crate::player::process::{MoveLimits, PlayerSettings, ProcessPlayer};
use crate::referee::{self, Outcome};
use crate::results::games::{read_games, GameRecord, GameResult, GamesWriter, Reason};
use crate::results::replay::Replay;
use crate::rng::{derive_seed, Rng};
use crate::sandbox::{Limits, Sandbox};
use crate::schedule::{round_robin, Pairing};

/// Everything a tournament run needs, validated.
#[derive(Debug, Clone)]
pub struct RunOptions {
    pub game: GameKind,
    pub config: GameConfig,
    /// Bot directories or executables.
    pub bots: Vec<PathBuf>,
    /// Indices in `bots` of a gauntlet's reference bots: the others play only them, never
    /// each other. Empty for a round robin.
    pub references: Vec<usize>,
    /// The rule that grades a gauntlet's candidates.
    pub pass: crate::standings::grades::Rule,
    /// Play only shard `I` of `N` of the schedule.
    pub shard: Option<(u32, u32)>,
    pub rounds: u32,
    /// Games per pairing in each round.
    pub games: u32,
    pub jobs: usize,
    pub seed: u64,
    /// Random legal plies played before the bots take over (board games).
    pub opening_plies: u32,
    /// Write a replay of every game to `<out>/replays/`.
    pub replays: bool,
    pub limits: MoveLimits,
    /// Resource limits for every bot (`bot.toml` may change them per bot).
    pub sandbox: Limits,
    /// Let bots use the network.
    pub allow_network: bool,
    /// Freeze a turn-based `lines` bot while its opponent thinks.
    pub pause_opponent: bool,
    /// Run bots without the sandbox (trusted bots only).
    pub no_sandbox: bool,
    /// The bot whose rating is fixed at 0.
    pub anchor: Option<String>,
    pub build_time: Duration,
    /// The most bytes of stderr kept per bot.
    pub log_cap: u64,
    pub out: PathBuf,
    pub keep_work: bool,
    /// Show a progress bar (only when stderr is a terminal).
    pub progress: bool,
}

/// `tournament.json`: what is needed to understand, rerun and resume a tournament.
#[derive(Debug, Serialize, Deserialize)]
pub struct TournamentFile {
    pub arena_version: String,
    pub run: String,
    /// When the tournament started (UTC, RFC 3339).
    pub started_at: String,
    pub game: GameKind,
    pub config: GameConfig,
    pub rounds: u32,
    pub games_per_pairing: u32,
    pub seed: u64,
    pub opening_plies: u32,
    pub replays: bool,
    pub jobs: usize,
    pub move_time_ms: u64,
    pub startup_time_ms: u64,
    pub build_time_ms: u64,
    pub log_limit: u64,
    pub keep_work: bool,
    pub memory: u64,
    pub max_procs: u32,
    pub max_output: u64,
    pub allow_network: bool,
    pub pause_opponent: bool,
    pub no_sandbox: bool,
    #[serde(default)]
    pub anchor: Option<String>,
    /// A gauntlet's reference bots, by name; empty for a round robin.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub gauntlet: Vec<String>,
    /// A gauntlet's pass rule.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pass: Option<String>,
    /// The shard of the schedule this run plays, `I/N`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<String>,
    /// The bots that play, in schedule order.
    pub bots: Vec<BotEntry>,
    /// Bots that could not play, and why.
    pub excluded: Vec<Excluded>,
}

/// A bot in `tournament.json`.
#[derive(Debug, Serialize, Deserialize)]
pub struct BotEntry {
    pub name: String,
    /// The bot's directory or file, absolute.
    pub source: PathBuf,
    pub command: Vec<String>,
    pub protocol: crate::bot::Protocol,
    /// The program the command resolved to.
    pub program: PathBuf,
    /// SHA-256 of each of the bot's files, by path within the bot, so a resumed tournament
    /// can refuse bots that changed.
    pub checksums: BTreeMap<String, String>,
}

/// A bot left out of `tournament.json`'s tournament.
#[derive(Debug, Serialize, Deserialize)]
pub struct Excluded {
    pub name: String,
    pub source: PathBuf,
    pub reason: String,
}

/// The tournament file of an output directory.
pub fn tournament_file(out: &Path) -> PathBuf {
    out.join("tournament.json")
}

/// What a finished run reports.
#[derive(Debug)]
pub struct Summary {
    pub games: usize,
    pub elapsed: Duration,
}

/// A tournament stopped by Ctrl-C: its finished games are safe and it can be resumed.
#[derive(Debug)]
pub struct Interrupted {
    pub played: usize,
    pub total: usize,
    pub out: PathBuf,
}

impl std::fmt::Display for Interrupted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "interrupted with {} of {} games played; continue with `arena resume {}`",
            self.played,
            self.total,
            self.out.display()
        )
    }
}

impl std::error::Error for Interrupted {}

/// Runs a new tournament into `opts.out`.
pub async fn run(opts: RunOptions) -> Result<Summary> {
    let started = Instant::now();
    let started_wall = std::time::SystemTime::now();
    let specs = crate::bot::load_all(&opts.bots, opts.game)?;
    if specs.len() < 2 {
        bail!("a tournament needs at least two bots, got {}", specs.len());
    }
    let games_path = opts.out.join("games.csv");
    if games_path.exists() {
        bail!(
            "`{}` already exists: choose another `--out`, or continue it with `arena resume {}`",
            games_path.display(),
            opts.out.display()
        );
    }
    let prep = prepare_options(&opts, false)?;
    let run_id = opts
        .out
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "run".to_string());

    let references: Vec<String> = opts
        .references
        .iter()
        .map(|&i| specs[i].name.clone())
        .collect();
    let (bots, excluded) = prepare_all(specs, &prep, opts.jobs).await?;
    for (spec, reason) in &excluded {
        if references.contains(&spec.name) {
            abandon(bots, &prep);
            bail!("reference bot `{}` cannot play: {reason}", spec.name);
        }
        eprintln!("warning: bot `{}` is left out: {reason}", spec.name);
    }
    // A gauntlet whose candidates all failed still grades them (as never run).
    if bots.len() < 2 && references.is_empty() {
        abandon(bots, &prep);
        bail!("fewer than two bots are ready to play (see the warnings above)");
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
            checksums: crate::bot::checksums(&b.spec.source)?,
        });
    }
    let info = TournamentFile {
        arena_version: env!("CARGO_PKG_VERSION").to_string(),
        run: run_id.clone(),
        started_at: humantime::format_rfc3339_seconds(started_wall).to_string(),
        game: opts.game,
        config: opts.config,
        rounds: opts.rounds,
        games_per_pairing: opts.games,
        seed: opts.seed,
        opening_plies: opts.opening_plies,
        replays: opts.replays,
        jobs: opts.jobs,
        move_time_ms: opts.limits.move_time.as_millis() as u64,
        startup_time_ms: opts.limits.startup_time.as_millis() as u64,
        build_time_ms: opts.build_time.as_millis() as u64,
        log_limit: opts.log_cap,
        keep_work: opts.keep_work,
        memory: opts.sandbox.memory,
        max_procs: opts.sandbox.max_procs,
        max_output: opts.sandbox.max_output,
        allow_network: opts.allow_network,
        pause_opponent: opts.pause_opponent,
        no_sandbox: opts.no_sandbox,
        anchor: opts.anchor.clone(),
        gauntlet: references.clone(),
        pass: (!references.is_empty()).then(|| opts.pass.to_string()),
        shard: opts.shard.map(|(i, n)| format!("{i}/{n}")),
        bots: entries,
        excluded: excluded
            .iter()
            .map(|(s, reason)| Excluded {
                name: s.name.clone(),
                source: s.source.clone(),
                reason: reason.clone(),
            })
            .collect(),
    };
    let info_path = tournament_file(&opts.out);
    std::fs::write(&info_path, serde_json::to_string_pretty(&info)? + "\n")
        .with_context(|| format!("cannot write `{}`", info_path.display()))?;

    let writer = GamesWriter::create(&games_path)?;
    let excluded = excluded
        .into_iter()
        .map(|(spec, reason)| (spec.name, reason))
        .collect();
    let played = Played {
        run_id,
        bots,
        references,
        excluded,
        records: Vec::new(),
        writer,
    };
    finish(opts, prep, played, started).await
}

/// A tournament ready to play its remaining games.
struct Played {
    run_id: String,
    bots: Vec<Arc<PreparedBot>>,
    /// A gauntlet's reference bots, by name.
    references: Vec<String>,
    /// Bots that could not play, and why.
    excluded: Vec<(String, String)>,
    /// Games already played.
    records: Vec<GameRecord>,
    writer: GamesWriter,
}

/// Continues an interrupted tournament in `out` from its `tournament.json` and `games.csv`:
/// finished games are kept, the others are played.
pub async fn resume(out: &Path, jobs: Option<usize>, progress: bool) -> Result<Summary> {
    let started = Instant::now();
    let info_path = tournament_file(out);
    let text = std::fs::read_to_string(&info_path).with_context(|| {
        format!(
            "cannot read `{}`: is `{}` a tournament's output directory?",
            info_path.display(),
            out.display()
        )
    })?;
    let info: TournamentFile = serde_json::from_str(&text)
        .with_context(|| format!("`{}` is not a tournament file", info_path.display()))?;
    let pass = match &info.pass {
        Some(rule) => rule.parse().map_err(|e: String| anyhow::anyhow!(e))?,
        None => crate::standings::grades::Rule::default(),
    };
    let shard = info
        .shard
        .as_deref()
        .map(crate::schedule::parse_shard)
        .transpose()
        .map_err(|e| anyhow::anyhow!(e))?;
    let opts = RunOptions {
        game: info.game,
        config: info.config,
        bots: info.bots.iter().map(|b| b.source.clone()).collect(),
        references: info
            .bots
            .iter()
            .enumerate()
            .filter(|(_, b)| info.gauntlet.contains(&b.name))
            .map(|(i, _)| i)
            .collect(),
        pass,
        shard,
        rounds: info.rounds,
        games: info.games_per_pairing,
        jobs: jobs.unwrap_or(info.jobs),
        seed: info.seed,
        opening_plies: info.opening_plies,
        replays: info.replays,
        limits: MoveLimits {
            move_time: Duration::from_millis(info.move_time_ms),
            startup_time: Duration::from_millis(info.startup_time_ms),
        },
        sandbox: Limits {
            memory: info.memory,
            max_procs: info.max_procs,
            max_output: info.max_output,
        },
        allow_network: info.allow_network,
        pause_opponent: info.pause_opponent,
        no_sandbox: info.no_sandbox,
        anchor: info.anchor.clone(),
        build_time: Duration::from_millis(info.build_time_ms),
        log_cap: info.log_limit,
        out: out.to_owned(),
        keep_work: info.keep_work,
        progress,
    };
    let specs = crate::bot::load_all(&opts.bots, opts.game)?;
    for (spec, entry) in specs.iter().zip(&info.bots) {
        if spec.name != entry.name {
            bail!(
                "bot `{}` in `{}` is now named `{}`: the tournament cannot be resumed",
                entry.name,
                entry.source.display(),
                spec.name
            );
        }
        let now = crate::bot::checksums(&entry.source)?;
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
    let prep = prepare_options(&opts, true)?;
    let (bots, excluded) = prepare_all(specs, &prep, opts.jobs).await?;
    if let Some((spec, reason)) = excluded.first() {
        abandon(bots, &prep);
        bail!(
            "bot `{}` played in the tournament but cannot play now: {reason}",
            spec.name
        );
    }
    eprintln!(
        "resuming `{}`: {} games already played",
        info.run,
        done.len()
    );
    let played = Played {
        run_id: info.run.clone(),
        bots,
        references: info.gauntlet.clone(),
        excluded: info
            .excluded
            .iter()
            .map(|e| (e.name.clone(), e.reason.clone()))
            .collect(),
        records: done,
        writer,
    };
    finish(opts, prep, played, started).await
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

/// Creates the output directories, probes the sandbox, and says where the bots' copies and
/// logs go.
fn prepare_options(opts: &RunOptions, resuming: bool) -> Result<PrepareOptions> {
    let sandbox = if opts.no_sandbox {
        Sandbox::disabled(opts.sandbox)
    } else {
        Sandbox::probe(opts.sandbox, opts.allow_network)
    };
    let (summary, warnings) = sandbox.summary();
    if opts.progress {
        eprintln!("{summary}");
    }
    for warning in warnings {
        eprintln!("warning: {warning}");
    }
    let prep = PrepareOptions {
        sandbox: Arc::new(sandbox),
        work_root: work_root()?,
        logs_dir: opts.out.join("logs"),
        build_time: opts.build_time,
        log_cap: opts.log_cap,
        append_logs: resuming,
    };
    let replays = opts.out.join("replays");
    let mut dirs = vec![&opts.out, &prep.logs_dir];
    if opts.replays {
        dirs.push(&replays);
    }
    for dir in dirs {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("cannot create `{}`", dir.display()))?;
    }
    Ok(prep)
}

/// The games this run plays: a round robin or a gauntlet, or one shard of it.
fn schedule(opts: &RunOptions, bots: &[Arc<PreparedBot>], references: &[String]) -> Vec<Pairing> {
    let schedule = if references.is_empty() {
        round_robin(bots.len(), opts.rounds, opts.games)
    } else {
        let (refs, candidates): (Vec<usize>, Vec<usize>) =
            (0..bots.len()).partition(|&i| references.contains(&bots[i].spec.name));
        crate::schedule::gauntlet(&candidates, &refs, opts.rounds, opts.games)
    };
    match opts.shard {
        Some((index, count)) => crate::schedule::shard(schedule, index, count, opts.seed),
        None => schedule,
    }
}

/// Plays the games of the schedule not yet played, then writes the tables of all games.
async fn finish(
    opts: RunOptions,
    prep: PrepareOptions,
    played: Played,
    started: Instant,
) -> Result<Summary> {
    let Played {
        run_id,
        bots,
        references,
        excluded,
        mut records,
        mut writer,
    } = played;
    let run_id = run_id.as_str();
    let schedule = schedule(&opts, &bots, &references);
    // A gauntlet's candidates: the bots ready to play that are not references, and those that
    // never ran.
    let mut candidates: Vec<String> = bots
        .iter()
        .map(|b| b.spec.name.clone())
        .chain(excluded.iter().map(|(name, _)| name.clone()))
        .filter(|n| !references.contains(n))
        .collect();
    candidates.sort();
    let total = schedule.len();
    let done: HashSet<u64> = records.iter().map(|r| r.game_id).collect();
    let pending: Vec<Pairing> = schedule
        .into_iter()
        .filter(|p| !done.contains(&p.game_id))
        .collect();
    let opts = Arc::new(opts);
    let played = play_schedule(&opts, run_id, &bots, pending, &mut writer).await;
    let released = release(bots, &prep, &opts);
    let (new, interrupted) = played?;
    released?;
    records.extend(new);
    if interrupted {
        return Err(Interrupted {
            played: records.len(),
            total,
            out: opts.out.clone(),
        }
        .into());
    }

    let (title, config) = report::describe_tournament(&tournament_file(&opts.out))
        .unwrap_or_else(|| (opts.game.name().to_string(), Vec::new()));
    let table = report::write_all(
        &opts.out,
        &records,
        &report::ReportOptions {
            anchor: opts.anchor.clone(),
            title,
            config,
            replays: opts.replays,
        },
    )?;
    print!(
        "{}\n{}",
        report::markdown::standings(&table),
        report::markdown::crosstable(&table)
    );
    if !references.is_empty() {
        let grades = crate::standings::grades::compute(
            &records,
            &references,
            &candidates,
            &excluded,
            opts.pass,
        );
        for (name, text) in [
            ("grades.csv", crate::standings::grades::csv(&grades)),
            ("grades.md", crate::standings::grades::markdown(&grades)),
        ] {
            let path = opts.out.join(name);
            std::fs::write(&path, &text)
                .with_context(|| format!("cannot write `{}`", path.display()))?;
            if name == "grades.md" {
                print!("\n{text}");
            }
        }
    }
    Ok(Summary {
        games: records.len(),
        elapsed: started.elapsed(),
    })
}

/// A tournament that stops before its first game leaves nothing behind: no cgroups, no
/// private copies.
fn abandon(bots: Vec<Arc<PreparedBot>>, prep: &PrepareOptions) {
    drop(bots);
    prep.sandbox.cleanup();
    let _ = std::fs::remove_dir_all(&prep.work_root);
}

/// After the last game: closes the bots' logs, removes the sandbox's cgroups, and removes
/// the private copies (or, with `--keep-work`, moves them to `<out>/work/`).
fn release(bots: Vec<Arc<PreparedBot>>, prep: &PrepareOptions, opts: &RunOptions) -> Result<()> {
    for bot in bots {
        if let Ok(bot) = Arc::try_unwrap(bot) {
            bot.log.close(Duration::from_millis(500));
        }
    }
    prep.sandbox.cleanup();
    if opts.keep_work {
        let kept = opts.out.join("work");
        if std::fs::rename(&prep.work_root, &kept).is_err() {
            // Another file system: copy, then remove.
            crate::bot::prepare::copy_tree(&prep.work_root, &kept)?;
            std::fs::remove_dir_all(&prep.work_root)
                .with_context(|| format!("cannot remove `{}`", prep.work_root.display()))?;
        }
        Ok(())
    } else {
        std::fs::remove_dir_all(&prep.work_root)
            .with_context(|| format!("cannot remove `{}`", prep.work_root.display()))
    }
}

/// A new directory for the bots' private copies, outside the output directory: bots that run
/// under their own uid must be able to reach their copy, and the user's tree (a home directory
/// of mode 0700, say) may not let them. Mode 0711: others may pass through but not list it.
pub(crate) fn work_root() -> Result<PathBuf> {
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

type Prepared = (Vec<Arc<PreparedBot>>, Vec<(BotSpec, String)>);

/// Copies and builds the bots, `jobs` at a time, keeping their order.
async fn prepare_all(specs: Vec<BotSpec>, prep: &PrepareOptions, jobs: usize) -> Result<Prepared> {
    let names = file_names(&specs);
    let semaphore = Arc::new(tokio::sync::Semaphore::new(jobs.max(1)));
    let mut tasks = JoinSet::new();
    for (i, (spec, file_name)) in specs.into_iter().zip(names).enumerate() {
        let prep = prep.clone();
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

/// File-system-safe, unique names for the bots' work directories and logs.
fn file_names(specs: &[BotSpec]) -> Vec<String> {
    let mut used = HashSet::new();
    specs
        .iter()
        .map(|s| {
            let base: String = s
                .name
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
                b => b.to_string(),
            };
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

/// Plays every game of the schedule, at most `jobs` at once and never two games of one bot
/// at once (its working directory holds its state), appending each record as it ends.
async fn play_schedule(
    opts: &Arc<RunOptions>,
    run_id: &str,
    bots: &[Arc<PreparedBot>],
    schedule: Vec<Pairing>,
    writer: &mut GamesWriter,
) -> Result<(Vec<GameRecord>, bool)> {
    // One stream for the whole run: it keeps a Ctrl-C that arrives between two polls.
    let mut interrupt = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::interrupt())
        .context("cannot listen for Ctrl-C")?;
    let progress = progress_bar(schedule.len() as u64, opts.progress);
    let mut pending: VecDeque<Pairing> = schedule.into();
    let mut busy = vec![false; bots.len()];
    let mut running = JoinSet::new();
    let mut records = Vec::new();
    loop {
        while running.len() < opts.jobs.max(1) {
            let Some(pos) = pending
                .iter()
                .position(|p| p.seats.iter().all(|&s| !busy[s]))
            else {
                break;
            };
            let pairing = pending.remove(pos).expect("the position is in range");
            for s in pairing.seats {
                busy[s] = true;
            }
            let game = GameSetup {
                bots: pairing.seats.map(|s| Arc::clone(&bots[s])),
                seed: derive_seed(opts.seed, pairing.game_id),
                pairing,
                replay: opts.replays.then(|| {
                    opts.out
                        .join("replays")
                        .join(format!("{}.jsonl", pairing.game_id))
                }),
            };
            running.spawn(play_game(Arc::clone(opts), run_id.to_string(), game));
        }
        let joined = tokio::select! {
            joined = running.join_next() => match joined {
                Some(joined) => joined,
                None => break,
            },
            _ = interrupt.recv() => {
                // Abandon the running games: dropping them kills their processes. Finished
                // games are already on disk.
                running.abort_all();
                while running.join_next().await.is_some() {}
                progress.finish_and_clear();
                tokio::spawn(async move {
                    // A second Ctrl-C exits at once.
                    interrupt.recv().await;
                    std::process::exit(130);
                });
                return Ok((records, true));
            }
        };
        let (pairing, outcome, elapsed) = joined.context("a game panicked")?;
        for s in pairing.seats {
            busy[s] = false;
        }
        let names = pairing.seats.map(|s| bots[s].spec.name.as_str());
        for (i, fault) in outcome.faults.iter().enumerate() {
            if let Some(fault) = fault {
                bots[pairing.seats[i]].log.note(&format!(
                    "game {} against `{}`: {fault}",
                    pairing.game_id,
                    names[1 - i]
                ));
            }
        }
        let record = GameRecord {
            run: run_id.to_string(),
            round: pairing.round,
            game_id: pairing.game_id,
            game: opts.game,
            bot_a: names[0].to_string(),
            bot_b: names[1].to_string(),
            score_a: outcome.scores[0],
            score_b: outcome.scores[1],
            result: outcome.result,
            reason: outcome.reason,
            culprit: outcome.culprit,
            plies: outcome.plies,
            duration_ms: elapsed.as_millis() as u64,
        };
        writer.append(&record)?;
        progress.inc(1);
        progress.set_message(describe(&record));
        records.push(record);
    }
    progress.finish_and_clear();
    Ok((records, false))
}

/// What one game of the schedule needs.
struct GameSetup {
    bots: [Arc<PreparedBot>; 2],
    /// The game's seed, for `ARENA_SEED`.
    seed: u64,
    pairing: Pairing,
    replay: Option<PathBuf>,
}

async fn play_game(
    opts: Arc<RunOptions>,
    run_id: String,
    setup: GameSetup,
) -> (Pairing, Outcome, Duration) {
    let started = Instant::now();
    let GameSetup {
        bots,
        seed,
        pairing,
        replay,
    } = setup;
    let names = bots.each_ref().map(|b| b.spec.name.clone());
    let opening_seed = derive_seed(opts.seed ^ OPENING_SALT, pairing.opening);
    let (mut rules, opening) = opening(opts.game, &opts.config, opts.opening_plies, opening_seed);
    let mut replay = replay.and_then(|path| {
        let plies: Vec<String> = opening.iter().map(|(_, mv)| mv.clone()).collect();
        let header = crate::results::replay::Header {
            run: run_id.clone(),
            game: opts.game.name().to_string(),
            round: pairing.round,
            game_id: pairing.game_id,
            bots: names.clone(),
            seed,
            opening: plies,
            move_time_ms: opts.limits.move_time.as_millis() as u64,
        };
        Replay::create(&path, &header)
            .map_err(|e| eprintln!("warning: no replay for game {}: {e:#}", pairing.game_id))
            .ok()
    });
    let settings = PlayerSettings {
        game: opts.game.name(),
        seed,
        limits: opts.limits,
        max_moves: opts.game.max_moves(&opts.config),
        pause: opts.pause_opponent,
        tag: pairing.game_id.to_string(),
    };
    let [a, b] = bots;
    let mut pa = ProcessPlayer::new(a, settings.clone());
    let mut pb = ProcessPlayer::new(b, settings);
    let with_requests = opts.game != GameKind::Morra;
    let outcome = referee::play(rules.as_mut(), [&mut pa, &mut pb], opening, &mut |e| {
        if let Some(r) = replay.as_mut() {
            r.exchange(&e, with_requests);
        }
    })
    .await;
    if let Some(r) = replay {
        if let Err(e) = r.finish(&outcome) {
            eprintln!(
                "warning: replay of game {} is incomplete: {e}",
                pairing.game_id
            );
        }
    }
    (pairing, outcome, started.elapsed())
}

/// Mixed into the tournament seed for openings, so they are independent of game seeds.
const OPENING_SALT: u64 = 0x6f70_656e_696e_6773;

/// A game after `plies` random legal plies, and those plies with who played them. Openings
/// that end the game are drawn again; if none can be found the game starts from the usual
/// position.
pub fn opening(
    game: GameKind,
    config: &GameConfig,
    plies: u32,
    seed: u64,
) -> (Box<dyn crate::game::Rules>, Vec<(Seat, String)>) {
    let mut rng = Rng::new(seed);
    if plies > 0 && game.has_openings() {
        for _ in 0..100 {
            let mut rules = game.new_game(config);
            let mut moves = Vec::new();
            while moves.len() < plies as usize {
                let Turn::One(seat) = rules.turn() else { break };
                let legal = rules.legal_moves();
                let Some(mv) = rng.choose(&legal) else { break };
                rules
                    .play(seat, mv)
                    .expect("a move from `legal_moves` is legal");
                moves.push((seat, mv.clone()));
            }
            if moves.len() == plies as usize && rules.turn() != Turn::Over {
                return (rules, moves);
            }
        }
    }
    (game.new_game(config), Vec::new())
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
