//! The command line: parsing arguments into validated options, and running the commands.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use clap::{Args, Parser, Subcommand};

use crate::export as report;
use crate::game::{GameConfig, GameKind};
use crate::player::process::MoveLimits;
use crate::results::games as record;
use crate::tournament::{self, RunOptions};

/// Round-robin tournaments between bots that are separate programs.
#[derive(Debug, Parser)]
#[command(name = "arena", version, about, max_term_width = 100)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run a tournament (a round robin, or a gauntlet) and write its games, standings,
    /// cross-table, ratings and report.
    Run(RunArgs),
    /// Recompute the standings, cross-table, ratings and report from one or more games CSVs.
    Standings(StandingsArgs),
    /// Continue an interrupted tournament from its output directory.
    Resume(ResumeArgs),
    /// Say which of the sandbox's protections this machine gives bots, and why not.
    Doctor,
    /// Play a game yourself, at the terminal, against a bot.
    Play(PlayArgs),
}

#[derive(Debug, Args)]
pub struct PlayArgs {
    /// The game to play.
    #[arg(value_enum)]
    pub game: GameKind,

    /// The bot: a directory with a `bot.toml`, an executable, or `PROTOCOL:COMMAND`.
    pub bot: PathBuf,

    /// Move first (the default).
    #[arg(long, conflicts_with = "second")]
    pub first: bool,

    /// Move second.
    #[arg(long)]
    pub second: bool,

    /// The bot's wall time per move [default: as in a tournament of the game].
    #[arg(long, value_parser = humantime::parse_duration)]
    pub move_time: Option<Duration>,

    /// Extra time for the bot's first move.
    #[arg(long, default_value = "5s", value_parser = humantime::parse_duration)]
    pub startup_time: Duration,

    /// Rounds in a Morra game.
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u32).range(1..))]
    pub morra_rounds: u32,

    /// Digits in a Numer0n secret (3 to 5).
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u8).range(3..=5))]
    pub digits: u8,

    /// The bot's `ARENA_SEED` [default: random].
    #[arg(long)]
    pub seed: Option<u64>,
}

#[derive(Debug, Args)]
pub struct ResumeArgs {
    /// The interrupted tournament's output directory (with `tournament.json` and `games.csv`).
    pub dir: PathBuf,

    /// Games played in parallel [default: as in the interrupted run].
    #[arg(long, short = 'j', value_parser = clap::value_parser!(u32).range(1..))]
    pub jobs: Option<u32>,

    /// No progress bar.
    #[arg(long, short)]
    pub quiet: bool,
}

#[derive(Debug, Args)]
pub struct RunArgs {
    /// The game to play.
    #[arg(value_enum)]
    pub game: GameKind,

    /// Bot directories (with a `bot.toml`), executables, or inline `PROTOCOL:COMMAND`
    /// (`'gtp:/usr/games/gtp-rhino'`) [default: everything in `bots/<GAME>/`].
    pub bots: Vec<PathBuf>,

    /// How many times the whole round robin is played.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    pub rounds: u32,

    /// Play a gauntlet: every BOT plays only this reference bot (and any other `--gauntlet`),
    /// never another BOT, and `grades.{csv,md}` grade them. Repeatable.
    #[arg(long, value_name = "REF")]
    pub gauntlet: Vec<PathBuf>,

    /// The rule a gauntlet's candidates pass by: `beat-all`, `min-score:P` (percent of the
    /// points) or `min-points:N`.
    #[arg(long, default_value = "beat-all", value_name = "RULE")]
    pub pass: crate::standings::grades::Rule,

    /// Play only shard I of N of the schedule (`2/4`); merge the shards' `games.csv` with
    /// `arena standings`.
    #[arg(long, value_name = "I/N", value_parser = crate::schedule::parse_shard)]
    pub shard: Option<(u32, u32)>,

    /// Games per pairing in each round, who moves first alternating
    /// [default: othello 2, gomoku 2, numeron 10, morra 1].
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub games: Option<u32>,

    /// Start each pair of colour-swapped games from the same random position reached by this
    /// many random legal plies (othello, gomoku).
    #[arg(long, default_value_t = 0)]
    pub opening_plies: u32,

    /// Digits in a Numer0n secret (3 to 5).
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u8).range(3..=5))]
    pub digits: u8,

    /// Do not write a replay of every game to `<OUT>/replays/`.
    #[arg(long)]
    pub no_replays: bool,

    /// Games played in parallel [default: the number of CPUs].
    #[arg(long, short = 'j', value_parser = clap::value_parser!(u32).range(1..))]
    pub jobs: Option<u32>,

    /// Seed for every random choice, also passed to bots as `ARENA_SEED` (per game)
    /// [default: random, recorded in `tournament.json`].
    #[arg(long)]
    pub seed: Option<u64>,

    /// Wall time per move, e.g. `500ms`, `20s`
    /// [default: morra 500ms, othello 20s, numeron 5s, gomoku 60s].
    #[arg(long, value_parser = humantime::parse_duration)]
    pub move_time: Option<Duration>,

    /// Extra time for the first move of a `lines` bot, for interpreter or JVM start-up.
    #[arg(long, default_value = "5s", value_parser = humantime::parse_duration)]
    pub startup_time: Duration,

    /// Time limit for each bot's `build` command.
    #[arg(long, default_value = "5min", value_parser = humantime::parse_duration)]
    pub build_time: Duration,

    /// Memory per bot (all its processes), e.g. `512MiB`.
    #[arg(long, default_value = "512MiB", value_parser = crate::sandbox::parse_size)]
    pub memory: u64,

    /// Processes and threads per bot at once.
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u32).range(1..))]
    pub max_procs: u32,

    /// The largest file a bot may write, and the most stderr it may write in one game.
    #[arg(long, default_value = "64MiB", value_parser = crate::sandbox::parse_size)]
    pub max_output: u64,

    /// Let bots use the network (it is off by default).
    #[arg(long)]
    pub allow_network: bool,

    /// Freeze a `lines` bot while its opponent thinks, `on` or `off`
    /// [default: on for the turn-based games].
    #[arg(long, value_parser = clap::builder::BoolishValueParser::new())]
    pub pause_opponent: Option<bool>,

    /// Fix this bot's rating at 0 [default: the average rating is 0].
    #[arg(long)]
    pub anchor: Option<String>,

    /// Run bots without the sandbox: no uid, cgroups, Landlock or namespaces, only time limits
    /// and process-group kills. For trusted bots only.
    #[arg(long)]
    pub no_sandbox: bool,

    /// Rounds in a Morra game.
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u32).range(1..))]
    pub morra_rounds: u32,

    /// The most bytes of stderr kept in each bot's log.
    #[arg(long, default_value_t = 1 << 20)]
    pub log_limit: u64,

    /// Output directory [default: `results/<GAME>-<UTC time>/`].
    #[arg(long)]
    pub out: Option<PathBuf>,

    /// Keep the bots' private working copies (in `<OUT>/work/`) after the tournament.
    #[arg(long)]
    pub keep_work: bool,

    /// No progress bar (it is also hidden when stderr is not a terminal).
    #[arg(long, short)]
    pub quiet: bool,
}

#[derive(Debug, Args)]
pub struct StandingsArgs {
    /// Games CSVs (`games.csv` of one or more runs); their games are merged.
    #[arg(required = true)]
    pub csv: Vec<PathBuf>,

    /// Also write `standings.{csv,md}`, `crosstable.{csv,md}`, `los.csv` and `report.html`
    /// into this directory.
    #[arg(long)]
    pub out: Option<PathBuf>,

    /// Fix this bot's rating at 0 [default: the average rating is 0].
    #[arg(long)]
    pub anchor: Option<String>,
}

/// Runs the program; errors are reported by `main`.
pub fn main() -> Result<()> {
    let cli = Cli::parse();
    match cli.command {
        Command::Run(args) => run(args),
        Command::Standings(args) => standings(args),
        Command::Play(args) => {
            let opts = crate::play::PlayOptions {
                game: args.game,
                config: GameConfig {
                    morra_rounds: args.morra_rounds,
                    digits: args.digits,
                },
                bot: args.bot,
                human: if args.second {
                    crate::game::Seat::B
                } else {
                    crate::game::Seat::A
                },
                limits: MoveLimits {
                    move_time: args.move_time.unwrap_or(args.game.default_move_time()),
                    startup_time: args.startup_time,
                },
                sandbox: Default::default(),
                seed: args.seed.unwrap_or_else(random_seed),
            };
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .context("cannot start the async runtime")?;
            runtime.block_on(crate::play::play(opts))
        }
        Command::Doctor => {
            doctor();
            Ok(())
        }
        Command::Resume(args) => {
            let jobs = args.jobs.map(|j| j as usize);
            let quiet = args.quiet;
            let dir = args.dir.clone();
            play(
                jobs.unwrap_or(num_cpus()),
                quiet,
                &args.dir,
                move || async move { tournament::resume(&dir, jobs, !quiet).await },
            )
        }
    }
}

/// Runs a tournament future on a runtime sized for `jobs` parallel games, and reports.
fn play<F, Fut>(jobs: usize, quiet: bool, out: &std::path::Path, start: F) -> Result<()>
where
    F: FnOnce() -> Fut,
    Fut: std::future::Future<Output = Result<tournament::Summary>>,
{
    // Games mostly wait on their bots; one thread per parallel game is plenty, and with one
    // game at a time a single thread saves every cross-thread wake-up.
    let runtime = if jobs == 1 {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
    } else {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(jobs.min(num_cpus()))
            .enable_all()
            .build()
    }
    .context("cannot start the async runtime")?;
    match runtime.block_on(start()) {
        Ok(summary) => {
            if !quiet {
                eprintln!(
                    "played {} games in {:.1} s; results in `{}`",
                    summary.games,
                    summary.elapsed.as_secs_f64(),
                    out.display()
                );
            }
            Ok(())
        }
        Err(e) => match e.downcast_ref::<tournament::Interrupted>() {
            Some(interrupted) => {
                eprintln!("{interrupted}");
                std::process::exit(130);
            }
            None => Err(e),
        },
    }
}

fn run(args: RunArgs) -> Result<()> {
    let opts = run_options(args)?;
    let (jobs, quiet, out) = (opts.jobs, !opts.progress, opts.out.clone());
    play(jobs, quiet, &out, move || tournament::run(opts))
}

/// Turns the command line into validated run options.
pub fn run_options(args: RunArgs) -> Result<RunOptions> {
    let candidates = if args.bots.is_empty() {
        let dir = PathBuf::from("bots").join(args.game.name());
        if !dir.is_dir() {
            bail!(
                "no bots given and `{}` does not exist (run from the project directory, or name bots)",
                dir.display()
            );
        }
        // In a gauntlet, every other bundled bot is a candidate.
        let references: Vec<PathBuf> = args
            .gauntlet
            .iter()
            .filter_map(|r| r.canonicalize().ok())
            .collect();
        crate::bot::discover(&dir)?
            .into_iter()
            .filter(|b| b.canonicalize().map_or(true, |b| !references.contains(&b)))
            .collect()
    } else {
        args.bots
    };
    // References first: a gauntlet's bots are the references, then the candidates.
    let references: Vec<usize> = (0..args.gauntlet.len()).collect();
    let mut bots = args.gauntlet.clone();
    bots.extend(candidates);
    let jobs = match args.jobs {
        Some(j) => j as usize,
        None => num_cpus(),
    };
    if args.opening_plies > 0 && !args.game.has_openings() {
        bail!(
            "`--opening-plies` applies to othello and gomoku, not `{}`",
            args.game
        );
    }
    let seed = args.seed.unwrap_or_else(random_seed);
    let out = args.out.unwrap_or_else(|| {
        PathBuf::from("results").join(format!("{}-{}", args.game.name(), timestamp()))
    });
    Ok(RunOptions {
        references,
        pass: args.pass,
        shard: args.shard,
        game: args.game,
        config: GameConfig {
            morra_rounds: args.morra_rounds,
            digits: args.digits,
        },
        bots,
        rounds: args.rounds,
        games: args.games.unwrap_or(args.game.default_games()),
        jobs,
        seed,
        opening_plies: args.opening_plies,
        replays: !args.no_replays,
        limits: MoveLimits {
            move_time: args.move_time.unwrap_or(args.game.default_move_time()),
            startup_time: args.startup_time,
        },
        sandbox: crate::sandbox::Limits {
            memory: args.memory,
            max_procs: args.max_procs,
            max_output: args.max_output,
        },
        allow_network: args.allow_network,
        no_sandbox: args.no_sandbox,
        anchor: args.anchor,
        pause_opponent: args.pause_opponent.unwrap_or(args.game.has_first_player()),
        build_time: args.build_time,
        log_cap: args.log_limit,
        out,
        keep_work: args.keep_work,
        progress: !args.quiet,
    })
}

fn num_cpus() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

fn standings(args: StandingsArgs) -> Result<()> {
    let games = record::read_table(&args.csv)?;
    if let Some(first) = games.first() {
        if let Some(other) = games.iter().find(|g| g.game != first.game) {
            bail!(
                "the CSVs mix games: `{}` and `{}` (standings are per game)",
                first.game,
                other.game
            );
        }
    }
    let table = match &args.out {
        Some(dir) => {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("cannot create `{}`", dir.display()))?;
            report::write_all(dir, &games, &report_options(&args, &games, dir))?.standings
        }
        None => report::rated_standings(&games, args.anchor.as_deref())?.0,
    };
    print!(
        "{}\n{}",
        report::markdown::standings(&table),
        report::markdown::crosstable(&table)
    );
    Ok(())
}

/// The HTML report's title, configuration and replay links for `arena standings`: a single
/// tournament's own description when its `tournament.json` is beside the CSV.
fn report_options(
    args: &StandingsArgs,
    games: &[crate::results::games::Game],
    out: &std::path::Path,
) -> report::ReportOptions {
    let game = games.first().map_or("no games", |g| g.game.name());
    let single = match args.csv.as_slice() {
        [csv] => csv.parent().map(|d| d.to_path_buf()),
        _ => None,
    };
    let described = single
        .as_ref()
        .and_then(|d| report::describe_tournament(&d.join("tournament.json")));
    let (title, config) = described.unwrap_or_else(|| {
        let files: Vec<String> = args.csv.iter().map(|p| p.display().to_string()).collect();
        (
            format!("{game} — {} games", games.len()),
            vec![("games CSVs".to_string(), files.join(", "))],
        )
    });
    // Links to replays work only from the directory that holds them.
    let replays = single.is_some_and(|d| {
        d.join("replays").is_dir() && d.canonicalize().ok() == out.canonicalize().ok()
    });
    report::ReportOptions {
        anchor: args.anchor.clone(),
        title,
        config,
        replays,
        gauntlet: None,
    }
}

/// Prints the sandbox's protections on this machine.
fn doctor() {
    let sandbox = crate::sandbox::Sandbox::probe(Default::default(), false);
    for p in &sandbox.protections {
        println!(
            "{} {}: {}",
            if p.active { "yes" } else { "NO " },
            p.name,
            p.detail
        );
    }
    sandbox.cleanup();
}

/// The current UTC time as `YYYYMMDD-HHMMSS`, for default output directory names.
fn timestamp() -> String {
    let now = humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string();
    // `2026-11-21T20:05:38Z` -> `20261121-200538`
    now.chars()
        .filter(|c| c.is_ascii_digit() || *c == 'T')
        .map(|c| if c == 'T' { '-' } else { c })
        .collect()
}

fn random_seed() -> u64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    crate::rng::derive_seed(nanos, u64::from(std::process::id()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn the_cli_definition_is_valid() {
        Cli::command().debug_assert();
    }

    #[test]
    fn timestamps_are_compact() {
        let t = timestamp();
        assert_eq!(t.len(), 15, "{t}");
        assert_eq!(&t[8..9], "-");
    }
}
