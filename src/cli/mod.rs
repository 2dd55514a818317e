//! The command line: one subcommand per file; `arena run`'s arguments are the typed
//! [`RunConfig`](crate::config::RunConfig) itself.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context, Result};
use clap::{Args, Parser, Subcommand};

use crate::config::RunConfig;
use crate::game::{GameConfig, GameKind};
use crate::tournament;

mod connect;
mod doctor;
mod play;
mod pool;
mod scorecard;
mod serve;
mod standings;

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
    Run(Box<RunConfig>),
    /// Recompute the standings, cross-table, ratings and report from one or more games CSVs.
    Standings(standings::StandingsArgs),
    /// Continue an interrupted tournament from its output directory.
    Resume(ResumeArgs),
    /// Say which of the sandbox's protections this machine gives bots, and why not.
    Doctor,
    /// Play a game yourself, at the terminal, against a bot.
    Play(PlayArgs),
    /// Run a tournament whose players are local bots and remote entrants who connect over
    /// TCP (see "Playing over the network" in the README).
    ///
    /// Its terminal says the page's address, who connects and who leaves, and each game's
    /// start and result, a line each (stderr); type `start` and Enter to start now.
    Serve(Box<serve::ServeArgs>),
    /// Print a new entrant's `[[entrant]]` table (stdout) and token (stderr).
    Entrant(serve::EntrantArgs),
    /// Play a local bot on an `arena serve` tournament, one connection per game.
    ///
    /// Says each game's result and, at the end, how many were won, drawn and lost (stderr).
    Connect(connect::ConnectArgs),
}

#[derive(Debug, Args)]
pub struct PlayArgs {
    /// The game to play.
    #[arg(value_enum)]
    pub game: GameKind,

    /// The bot: a directory with a `bot.toml`, an executable, or `PROTOCOL:[NAME=]COMMAND`.
    pub bot: crate::bot::BotSource,

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

    #[command(flatten)]
    pub rules: GameConfig,

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

/// Runs the program; errors are reported by `main`.
pub fn main() -> Result<()> {
    match Cli::parse().command {
        Command::Run(config) => run_new(config.resolve()?, tournament::run),
        Command::Standings(args) => standings::run(args),
        Command::Serve(args) => run_new(args.config()?, crate::serve::serve),
        Command::Entrant(args) => serve::entrant(args),
        Command::Connect(args) => tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .context("cannot start the async runtime")?
            .block_on(connect::connect(args)),
        Command::Play(args) => {
            let opts = play::PlayOptions {
                game: args.game,
                config: args.rules,
                human: if args.second {
                    crate::game::Seat::B
                } else {
                    crate::game::Seat::A
                },
                limits: crate::player::process::MoveLimits {
                    move_time: args.move_time.unwrap_or(args.game.default_move_time()),
                    startup_time: args.startup_time,
                    engine_startup: crate::player::engine::ENGINE_STARTUP,
                    margin: Duration::ZERO,
                },
                bot: args.bot,
                sandbox: Default::default(),
                seed: args.seed.unwrap_or_else(crate::config::random_seed),
            };
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .context("cannot start the async runtime")?;
            runtime.block_on(play::play(opts))
        }
        Command::Doctor => doctor::run(),
        Command::Resume(args) => {
            let (jobs, quiet) = (args.jobs, args.quiet);
            let dir = args.dir.clone();
            let threads = jobs.map_or(crate::config::num_cpus(), |j| j as usize);
            run_tournament(threads, quiet, &args.dir, move || async move {
                crate::serve::resume(&dir, jobs, quiet).await
            })
        }
    }
}

/// Runs a tournament future on a runtime sized for `jobs` parallel games, and reports.
/// Runs a new tournament of `config` with `start` (`arena run`, `arena serve`).
fn run_new<Fut>(
    config: crate::config::RunConfig,
    start: fn(crate::config::RunConfig) -> Fut,
) -> Result<()>
where
    Fut: std::future::Future<Output = Result<tournament::Summary>>,
{
    let (jobs, quiet, out) = (
        config.jobs(),
        config.output.quiet,
        config.out().to_path_buf(),
    );
    run_tournament(jobs, quiet, &out, move || start(config))
}

fn run_tournament<F, Fut>(jobs: usize, quiet: bool, out: &std::path::Path, start: F) -> Result<()>
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
            .worker_threads(jobs.min(crate::config::num_cpus()))
            .enable_all()
            .build()
    }
    .context("cannot start the async runtime")?;
    match runtime.block_on(start()) {
        Ok(summary) => {
            if !quiet {
                eprintln!("{summary}");
                eprintln!("results in `{}`", out.display());
            }
            Ok(())
        }
        Err(e) => match e.downcast_ref::<tournament::Interrupted>() {
            Some(interrupted) => {
                eprintln!("{interrupted}");
                std::process::exit(interrupted.exit_code());
            }
            None => Err(e),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn the_cli_definition_is_valid() {
        Cli::command().debug_assert();
    }
}
