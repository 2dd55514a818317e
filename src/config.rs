//! The run's configuration: every option of `arena run`, typed, built once from the command
//! line, written whole into `tournament.json` and read back whole by `arena resume`.
//!
//! Each group of options is one struct that is both a clap argument group and a serde record,
//! so adding an option means adding a field to its group, and nothing else.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{bail, Result};
use clap::Args;
use serde::{Deserialize, Serialize};

use crate::bot::BotSource;
use crate::game::{GameConfig, GameKind};
use crate::player::clock::TimeControl;
use crate::player::process::MoveLimits;
use crate::schedule::openings::{Book, BookOptions};
use crate::schedule::Shard;
use crate::standings::grades::Rule;

#[path = "config_format.rs"]
mod format_options;
#[path = "config_serde.rs"]
mod serde_forms;
#[path = "config_serve.rs"]
mod serve_options;
pub use format_options::{Format, FormatOptions};
use serde_forms::{duration, duration_option, text, text_option};
pub use serve_options::{ServeOptions, DEFAULT_LISTEN};

/// Everything a tournament run needs.
#[derive(Debug, Clone, Args, Serialize, Deserialize)]
pub struct RunConfig {
    /// The game to play.
    #[arg(value_enum)]
    pub game: GameKind,

    /// Bot directories (with a `bot.toml`), executables, or inline `PROTOCOL:COMMAND`
    /// (`'gtp:/usr/games/gtp-rhino'`), named with `PROTOCOL:NAME=COMMAND`
    /// (`'gtp:rhino-1=/usr/games/gtp-rhino -l 1'`) [default: everything in `bots/<GAME>/`].
    pub bots: Vec<BotSource>,

    #[command(flatten, next_help_heading = "Tournament")]
    pub tournament: TournamentOptions,

    #[command(flatten, next_help_heading = "Format")]
    #[serde(default)]
    pub format: FormatOptions,

    #[command(flatten, next_help_heading = "Game rules")]
    pub rules: GameConfig,

    #[command(flatten, next_help_heading = "Time")]
    pub time: TimeOptions,

    #[command(flatten, next_help_heading = "Limits")]
    pub limits: LimitOptions,

    #[command(flatten, next_help_heading = "Sandbox")]
    pub sandbox: SandboxOptions,

    #[command(flatten, next_help_heading = "Output")]
    pub output: OutputOptions,

    /// The network options of `arena serve`; `None` for `arena run`.
    #[arg(skip)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub serve: Option<ServeOptions>,
}

/// Who plays whom, how often, and in what order.
#[derive(Debug, Clone, Args, Serialize, Deserialize)]
pub struct TournamentOptions {
    /// How many times the whole round robin is played.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    pub rounds: u32,

    /// Games per pairing in each round, who moves first alternating
    /// [default: othello 2, gomoku 2, numeron 10, morra 1].
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub games: Option<u32>,

    /// Play a gauntlet: every BOT plays only this reference bot (and any other `--gauntlet`),
    /// never another BOT, and `grades.{csv,md}` grade them. Repeatable.
    #[arg(long, value_name = "REF")]
    pub gauntlet: Vec<BotSource>,

    /// The rule a gauntlet's candidates pass by: `beat-all`, `min-score:P` (percent of the
    /// points) or `min-points:N`.
    #[arg(long, default_value = "beat-all", value_name = "RULE")]
    #[serde(with = "text")]
    pub pass: Rule,

    /// Play only shard I of N of the schedule (`2/4`), with the same `--seed` on every shard
    /// (required); merge the shards' `games.csv` with `arena standings`.
    #[arg(long, value_name = "I/N")]
    #[serde(with = "text_option")]
    pub shard: Option<Shard>,

    /// Start each pair of colour-swapped games from the same random position reached by this
    /// many random legal plies (othello, gomoku).
    /// With `--openings`, random plies played after each line of the book.
    #[arg(long, default_value_t = 0)]
    pub opening_plies: u32,

    #[command(flatten)]
    #[serde(flatten)]
    pub book: BookOptions,

    /// Seed for every random choice, also passed to bots as `ARENA_SEED` (per game)
    /// [default: random, recorded in `tournament.json`].
    #[arg(long)]
    pub seed: Option<u64>,

    /// Games played in parallel [default: the number of CPUs].
    #[arg(long, short = 'j', value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub jobs: Option<u32>,

    /// Games one bot may play at once, each in its own copy of the bot's directory (files a
    /// bot writes are then not seen by its other games); `1` plays a bot's games one after
    /// the other in one directory [default: `--jobs`].
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1024))]
    #[serde(default)]
    pub instances: Option<u32>,
}

/// Time limits.
#[derive(Debug, Clone, Args, Serialize, Deserialize)]
pub struct TimeOptions {
    /// Wall time per move, e.g. `500ms`, `20s`; with `--time-control`, a cap on each move
    /// [default: morra 500ms, othello 20s, numeron 5s, gomoku 60s; none with a clock].
    #[arg(long, value_parser = parse_time)]
    #[serde(with = "duration_option")]
    pub move_time: Option<Duration>,

    /// A game clock, `BASE+INC` (`60s+0.5s`, `5m`): each side starts with BASE, loses the
    /// time it thinks and gains INC after each move; `--move-time`, if given, still caps a
    /// move.
    #[arg(long, value_name = "BASE+INC")]
    #[serde(default, with = "text_option", skip_serializing_if = "Option::is_none")]
    pub time_control: Option<TimeControl>,

    /// Extra time for the first move of a `lines` bot, for interpreter or JVM start-up.
    #[arg(long, default_value = "5s", value_parser = parse_time)]
    #[serde(with = "duration")]
    pub startup_time: Duration,

    /// The time an engine (`gomocup`, `gtp`, `nboard`) may take from its start to the end of
    /// its protocol handshake, apart from its first move's time.
    #[arg(long, default_value = "10s", value_parser = humantime::parse_duration)]
    #[serde(with = "duration", default = "default_engine_startup")]
    pub engine_startup: Duration,

    /// How late a reply may come and still count, logged as late in the replay (`late_ms`);
    /// bots are told the limit without it (cutechess-cli's `timemargin`), e.g. `200ms`.
    #[arg(long, default_value = "0s", value_parser = parse_time)]
    #[serde(with = "duration", default)]
    pub time_margin: Duration,

    /// Time limit for each bot's `build` command.
    #[arg(long, default_value = "5min", value_parser = parse_time)]
    #[serde(with = "duration")]
    pub build_time: Duration,
}

/// What each bot may use.
#[derive(Debug, Clone, Args, Serialize, Deserialize)]
pub struct LimitOptions {
    /// Memory per bot (all its processes), e.g. `512MiB`.
    #[arg(long, default_value = "512MiB", value_parser = crate::sandbox::parse_size)]
    pub memory: u64,

    /// Processes and threads per bot at once.
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u32).range(1..))]
    pub max_procs: u32,

    /// The largest file a bot may write, and the most stderr it may write in one game.
    #[arg(long, default_value = "64MiB", value_parser = crate::sandbox::parse_size)]
    pub max_output: u64,

    /// CPUs a bot's processes may use together in one game, e.g. `1`, `0.5`, `2`
    /// (cgroup `cpu.max`), so that its helper processes cannot slow its opponent.
    #[arg(long, default_value = "1", value_parser = parse_cpus)]
    #[serde(default = "default_cpus")]
    pub cpus: f64,

    /// The most bytes of stderr kept for each bot, its build's and its games' together
    /// (`logs/<bot>.log`, `logs/<bot>/<game_id>.log`), e.g. `1MiB`.
    #[arg(long, default_value = "1MiB", value_parser = crate::sandbox::parse_size)]
    pub log_limit: u64,

    /// The most disk space a copy of a bot's directory may take (allocated blocks, so sparse
    /// files count for their data only); a bigger bot is left out.
    #[arg(long, default_value = "256MiB", value_parser = crate::sandbox::parse_size)]
    #[serde(default = "default_max_bot_size")]
    pub max_bot_size: u64,
}

fn default_max_bot_size() -> u64 {
    crate::bot::copy::DEFAULT_MAX_BOT_SIZE
}

/// How bots are confined.
#[derive(Debug, Clone, Args, Serialize, Deserialize)]
pub struct SandboxOptions {
    /// Run bots without the sandbox: no uid, cgroups, Landlock or namespaces, only time limits
    /// and process-group kills. For trusted bots only.
    #[arg(long)]
    pub no_sandbox: bool,

    /// Let bots use the network (it is off by default).
    #[arg(long)]
    pub allow_network: bool,

    /// Freeze a `lines` bot while its opponent thinks
    /// [default: on for the turn-based games].
    #[arg(long, value_name = "on|off", value_parser = on_off())]
    pub pause_opponent: Option<bool>,

    /// Pass this variable of arena's environment on to every bot (bots get only `PATH`,
    /// `HOME`, `TMPDIR`, `LANG` and `ARENA_*` otherwise). Repeatable.
    #[arg(long, value_name = "NAME")]
    #[serde(default)]
    pub pass_env: Vec<String>,

    /// Share this directory, read-only, with every bot: links in a bot's directory may lead
    /// into it, and `read` in `bot.toml` may name it. Repeatable.
    #[arg(long, value_name = "DIR")]
    #[serde(default)]
    pub share: Vec<PathBuf>,
}

/// What is written, and where.
#[derive(Debug, Clone, Args, Serialize, Deserialize)]
pub struct OutputOptions {
    /// Output directory [default: `results/<GAME>-<UTC time>/`].
    #[arg(long)]
    pub out: Option<PathBuf>,

    /// Do not write a replay of every game to `<OUT>/replays/`.
    #[arg(long)]
    pub no_replays: bool,

    /// Keep the bots' private working copies (in `<OUT>/work/`) after the tournament.
    #[arg(long)]
    pub keep_work: bool,

    /// Fix this bot's rating at 0 [default: the average rating is 0].
    #[arg(long)]
    pub anchor: Option<String>,

    /// No progress bar (it is also hidden when stderr is not a terminal).
    #[arg(long, short)]
    #[serde(skip)]
    pub quiet: bool,

    /// Update the tournament `--out` holds to the bots given, matched by name: play the games
    /// of new bots and of revised ones (their files changed), set aside those of revised and
    /// removed bots, and write every output for the current field. Its settings (and seed)
    /// stay those of the tournament. Without a tournament in `--out`, a new one is run.
    #[arg(long)]
    #[serde(skip)]
    pub update: bool,
}

impl RunConfig {
    /// Fills in what the command line left to defaults that are not fixed (a random seed, the
    /// number of CPUs, the bundled bots, a fresh output directory), makes bot paths absolute,
    /// and checks the combination; the result is what `tournament.json` records.
    pub fn resolve(mut self) -> Result<RunConfig> {
        let game = self.game;
        // A seed drawn per shard would split another schedule on each machine: the shards
        // would overlap and miss games, found only when they are merged.
        if self.tournament.shard.is_some() && self.tournament.seed.is_none() {
            bail!("`--shard` needs `--seed`: every shard of a tournament must be given the same `--seed S`, or the shards overlap and cannot be merged");
        }
        if self.tournament.opening_plies > 0 && !game.has_openings() {
            bail!("`--opening-plies` applies to othello and gomoku, not `{game}`");
        }
        if self.tournament.book.openings.is_some() && !game.has_openings() {
            bail!("`--openings` applies to othello and gomoku, not `{game}`: its games have no position to start from");
        }
        // `arena serve` may have remote entrants only.
        if self.bots.is_empty() && self.serve.is_none() {
            let dir = PathBuf::from("bots").join(game.name());
            if !dir.is_dir() {
                bail!(
                    "no bots given and `{}` does not exist (run from the project directory, or name bots)",
                    dir.display()
                );
            }
            // In a gauntlet, every other bundled bot is a candidate.
            let references: Vec<PathBuf> = self
                .tournament
                .gauntlet
                .iter()
                .filter_map(|r| r.path()?.canonicalize().ok())
                .collect();
            self.bots = crate::bot::discover(&dir)?
                .into_iter()
                .filter(|b| b.canonicalize().map_or(true, |b| !references.contains(&b)))
                .map(BotSource::Path)
                .collect();
        }
        self.bots = absolute(self.bots)?;
        self.sandbox.share = self
            .sandbox
            .share
            .iter()
            .map(std::path::absolute)
            .collect::<std::io::Result<_>>()?;
        check_games(&self)?;
        (self.format).check(
            self.bots.len(),
            self.tournament.gauntlet.len(),
            self.tournament.shard.is_some(),
            self.serve.is_some(),
        )?;
        self.tournament.gauntlet = absolute(std::mem::take(&mut self.tournament.gauntlet))?;
        let t = &mut self.tournament;
        t.games.get_or_insert(game.default_games());
        // An update takes the seed of the tournament it updates.
        if !self.output.update {
            t.seed.get_or_insert_with(random_seed);
        }
        t.jobs.get_or_insert(num_cpus() as u32);
        t.book.record()?;
        self.book()?;
        if self.time.time_control.is_none() {
            self.time.move_time.get_or_insert(game.default_move_time());
        }
        self.sandbox
            .pause_opponent
            .get_or_insert(game.has_first_player());
        self.output.out.get_or_insert_with(|| {
            PathBuf::from("results").join(format!("{}-{}", game.name(), timestamp()))
        });
        Ok(self)
    }

    /// Every bot of the run: a gauntlet's references first, then the others.
    pub fn all_bots(&self) -> Vec<BotSource> {
        let mut bots = self.tournament.gauntlet.clone();
        bots.extend(self.bots.iter().cloned());
        bots
    }

    /// Games per pairing in each round.
    pub fn games_per_pairing(&self) -> u32 {
        self.tournament.games.unwrap_or(self.game.default_games())
    }

    /// The tournament's seed (drawn by [`RunConfig::resolve`] if not given).
    pub fn seed(&self) -> u64 {
        self.tournament.seed.unwrap_or(0)
    }

    /// Games played at once.
    pub fn jobs(&self) -> usize {
        self.tournament.jobs.map_or(num_cpus(), |j| j as usize)
    }

    /// The book of `--openings`, checked line by line and against its recorded checksum.
    pub fn book(&self) -> Result<Option<Book>> {
        (self.tournament.book).load(self.game, &self.rules, self.seed())
    }

    /// Games one bot may play at once.
    pub fn instances(&self) -> usize {
        self.tournament
            .instances
            .map_or(self.jobs(), |n| n as usize)
    }

    /// The time limits of every move.
    pub fn move_limits(&self) -> MoveLimits {
        MoveLimits {
            move_time: (self.time.move_time).unwrap_or(match self.time.time_control {
                // With a clock and no cap, the clock alone limits a move.
                Some(_) => MAX_TIME,
                None => self.game.default_move_time(),
            }),
            startup_time: self.time.startup_time,
            engine_startup: self.time.engine_startup,
            margin: self.time.time_margin,
        }
    }

    /// How each bot plays a game of this run (the seed and tag are each game's).
    pub fn player_settings(&self) -> crate::player::process::PlayerSettings {
        crate::player::process::PlayerSettings {
            game: self.game.name(),
            seed: 0,
            limits: self.move_limits(),
            max_moves: self.game.max_moves(&self.rules),
            pause: self.pause_opponent(),
            tag: String::new(),
            gomoku_rule: self.rules.gomoku_rule,
            clock: self.time.time_control,
        }
    }

    /// The sandbox's limits for every bot (`bot.toml` may change them per bot).
    pub fn sandbox_limits(&self) -> crate::sandbox::Limits {
        crate::sandbox::Limits {
            memory: self.limits.memory,
            max_procs: self.limits.max_procs,
            max_output: self.limits.max_output,
            milli_cpus: (self.limits.cpus * 1000.0).round() as u32,
        }
    }

    /// Whether a turn-based bot is frozen while its opponent thinks.
    pub fn pause_opponent(&self) -> bool {
        self.sandbox
            .pause_opponent
            .unwrap_or(self.game.has_first_player())
    }

    /// Whether every game gets a replay file.
    pub fn replays(&self) -> bool {
        !self.output.no_replays
    }

    /// The output directory.
    pub fn out(&self) -> &Path {
        self.output.out.as_deref().unwrap_or(Path::new("results"))
    }
}

/// The most games one run may schedule.
pub const MAX_GAMES: u128 = 10_000_000;

/// Refuses a schedule too large to build (`--rounds 4294967295`).
fn check_games(config: &RunConfig) -> Result<()> {
    let refs = config.tournament.gauntlet.len() as u128;
    let n = config.bots.len() as u128;
    let pairs = if refs == 0 {
        n * n.saturating_sub(1) / 2
    } else {
        refs * n + refs * refs.saturating_sub(1) / 2
    };
    let games =
        pairs * u128::from(config.tournament.rounds) * u128::from(config.games_per_pairing());
    if games > MAX_GAMES {
        bail!(
            "`--rounds {}` and `--games {}` make {games} games, more than the {MAX_GAMES} a run may play",
            config.tournament.rounds,
            config.games_per_pairing()
        );
    }
    Ok(())
}

/// The longest time limit any option takes.
const MAX_TIME: Duration = Duration::from_secs(24 * 60 * 60);

/// A time limit such as `500ms` or `20s`, at most a day.
fn parse_time(text: &str) -> std::result::Result<Duration, String> {
    let time = humantime::parse_duration(text).map_err(|e| format!("`{text}`: {e}"))?;
    if time > MAX_TIME {
        return Err(format!("`{text}` is longer than a day"));
    }
    Ok(time)
}

fn absolute(bots: Vec<BotSource>) -> Result<Vec<BotSource>> {
    bots.into_iter().map(BotSource::absolute).collect()
}

/// The number of CPUs, for the default `--jobs`.
pub fn num_cpus() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// A switch as the command line spells it: `on` or `off`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Switch {
    // `true` and `false` are still understood (earlier versions took them), but not listed:
    // the help shows one spelling.
    #[value(alias = "true")]
    On,
    #[value(alias = "false")]
    Off,
}

/// Parses `on`/`off` into a `bool`.
fn on_off() -> impl clap::builder::TypedValueParser<Value = bool> {
    use clap::builder::TypedValueParser;
    clap::builder::EnumValueParser::<Switch>::new().map(|s| s == Switch::On)
}

/// A seed from the clock and the process id, for runs without `--seed`.
pub fn random_seed() -> u64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    crate::rng::derive_seed(nanos, u64::from(std::process::id()))
}

/// The current UTC time as `YYYYMMDD-HHMMSS`, for default output directory names.
pub fn timestamp() -> String {
    let now = humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string();
    // `2026-11-21T20:05:38Z` -> `20261121-200538`
    now.chars()
        .filter(|c| c.is_ascii_digit() || *c == 'T')
        .map(|c| if c == 'T' { '-' } else { c })
        .collect()
}

/// `--engine-startup` of a `tournament.json` written before the option existed.
fn default_engine_startup() -> Duration {
    crate::player::engine::ENGINE_STARTUP
}

/// `--cpus` of a `tournament.json` written before the option existed.
fn default_cpus() -> f64 {
    1.0
}

/// A CPU share for `--cpus`: from 0.01 (the kernel's smallest quota) to 1024 CPUs.
fn parse_cpus(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(n) if (0.01..=1024.0).contains(&n) => Ok(n),
        Ok(_) => Err("must be between 0.01 and 1024".into()),
        Err(_) => Err(format!(
            "`{text}` is not a number of CPUs, e.g. `1` or `0.5`"
        )),
    }
}

#[cfg(test)]
#[path = "config_tests.rs"]
mod tests;
