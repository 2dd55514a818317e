//! The first layout of `tournament.json` (arena 0.1 before the typed run configuration), read
//! so that tournaments started by it can still be resumed.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{anyhow, Result};
use serde::Deserialize;

use super::file::{BotEntry, Excluded, TournamentFile, FORMAT};
use crate::bot::BotSource;
use crate::config::{
    LimitOptions, OutputOptions, RunConfig, SandboxOptions, TimeOptions, TournamentOptions,
};
use crate::game::{GameConfig, GameKind};

/// `tournament.json` as the first layout wrote it.
#[derive(Debug, Deserialize)]
pub struct LegacyFile {
    arena_version: String,
    run: String,
    started_at: String,
    game: GameKind,
    config: GameConfig,
    rounds: u32,
    games_per_pairing: u32,
    seed: u64,
    opening_plies: u32,
    replays: bool,
    jobs: usize,
    move_time_ms: u64,
    startup_time_ms: u64,
    build_time_ms: u64,
    log_limit: u64,
    keep_work: bool,
    memory: u64,
    max_procs: u32,
    max_output: u64,
    allow_network: bool,
    pause_opponent: bool,
    no_sandbox: bool,
    #[serde(default)]
    anchor: Option<String>,
    #[serde(default)]
    gauntlet: Vec<String>,
    #[serde(default)]
    pass: Option<String>,
    #[serde(default)]
    shard: Option<String>,
    bots: Vec<BotEntry>,
    excluded: Vec<Excluded>,
}

impl LegacyFile {
    /// The same tournament in the current layout, its output directory `out`.
    pub fn upgrade(self, out: &Path) -> Result<TournamentFile> {
        let source = |b: &BotEntry| -> Result<BotSource> {
            b.source
                .to_string_lossy()
                .parse()
                .map_err(|e: String| anyhow!(e))
        };
        let (references, others): (Vec<&BotEntry>, Vec<&BotEntry>) = self
            .bots
            .iter()
            .partition(|b| self.gauntlet.contains(&b.name));
        let config = RunConfig {
            game: self.game,
            bots: others.into_iter().map(source).collect::<Result<_>>()?,
            tournament: TournamentOptions {
                rounds: self.rounds,
                games: Some(self.games_per_pairing),
                gauntlet: references.into_iter().map(source).collect::<Result<_>>()?,
                pass: match &self.pass {
                    Some(rule) => rule.parse().map_err(|e| anyhow!("`pass`: {e}"))?,
                    None => Default::default(),
                },
                shard: self
                    .shard
                    .as_deref()
                    .map(str::parse)
                    .transpose()
                    .map_err(|e| anyhow!("`shard`: {e}"))?,
                opening_plies: self.opening_plies,
                book: Default::default(),
                seed: Some(self.seed),
                jobs: Some(self.jobs as u32),
                // The first layout played a bot's games one at a time.
                instances: Some(1),
            },
            format: Default::default(),
            rules: self.config,
            time: TimeOptions {
                move_time: Some(Duration::from_millis(self.move_time_ms)),
                time_control: None,
                startup_time: Duration::from_millis(self.startup_time_ms),
                engine_startup: crate::player::engine::ENGINE_STARTUP,
                time_margin: Duration::ZERO,
                build_time: Duration::from_millis(self.build_time_ms),
            },
            limits: LimitOptions {
                memory: self.memory,
                max_procs: self.max_procs,
                max_output: self.max_output,
                cpus: 1.0,
                log_limit: self.log_limit,
                max_bot_size: crate::bot::copy::DEFAULT_MAX_BOT_SIZE,
            },
            sandbox: SandboxOptions {
                no_sandbox: self.no_sandbox,
                allow_network: self.allow_network,
                pause_opponent: Some(self.pause_opponent),
                pass_env: Vec::new(),
                share: Vec::new(),
            },
            output: OutputOptions {
                out: Some(PathBuf::from(out)),
                no_replays: !self.replays,
                keep_work: self.keep_work,
                anchor: self.anchor,
                quiet: false,
                update: false,
            },
            serve: None,
        };
        Ok(TournamentFile {
            format: FORMAT,
            arena_version: self.arena_version,
            run: self.run,
            started_at: self.started_at,
            config,
            gauntlet: self.gauntlet,
            bots: self.bots,
            excluded: self.excluded,
            blocks: Vec::new(),
        })
    }
}
