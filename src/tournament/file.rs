//! `tournament.json`: the whole run configuration and the bots that played, written when a
//! tournament starts and read back by `arena resume` and the report.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};

use crate::bot::{BotSource, Protocol};
use crate::config::RunConfig;

/// The version of the file's layout; files without one are the first layout.
pub const FORMAT: u32 = 2;

/// `tournament.json`: what is needed to understand, rerun and resume a tournament.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TournamentFile {
    pub format: u32,
    pub arena_version: String,
    pub run: String,
    /// When the tournament started (UTC, RFC 3339).
    pub started_at: String,
    /// Every option of the run, defaults resolved.
    pub config: RunConfig,
    /// A gauntlet's reference bots, by name; empty for a round robin.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub gauntlet: Vec<String>,
    /// The bots that play, in schedule order.
    pub bots: Vec<BotEntry>,
    /// Bots that could not play, and why.
    pub excluded: Vec<Excluded>,
}

/// A bot in `tournament.json`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct BotEntry {
    pub name: String,
    /// The bot's directory or file, absolute (or its inline `PROTOCOL:COMMAND`).
    pub source: PathBuf,
    pub command: Vec<String>,
    pub protocol: Protocol,
    /// The program the command resolved to.
    pub program: PathBuf,
    /// SHA-256 of each of the bot's files, by path within the bot, so a resumed tournament
    /// can refuse bots that changed.
    pub checksums: BTreeMap<String, String>,
    /// A remote entrant of `arena serve` (it has no program here); listed after the local bots.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub remote: bool,
}

impl BotEntry {
    /// The entry of a remote entrant.
    pub fn remote(name: String) -> BotEntry {
        BotEntry {
            source: PathBuf::from(format!("remote:{name}")),
            name,
            command: Vec::new(),
            protocol: Protocol::Lines,
            program: PathBuf::new(),
            checksums: BTreeMap::new(),
            remote: true,
        }
    }
}

/// A bot left out of the tournament.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Excluded {
    pub name: String,
    pub source: PathBuf,
    pub reason: String,
}

/// The tournament file of an output directory.
pub fn path(out: &Path) -> PathBuf {
    out.join("tournament.json")
}

impl TournamentFile {
    /// Writes the file into the output directory.
    pub fn write(&self, out: &Path) -> Result<()> {
        let path = path(out);
        std::fs::write(&path, serde_json::to_string_pretty(self)? + "\n")
            .with_context(|| format!("cannot write `{}`", path.display()))
    }

    /// The bots left out before the first game, `(name, reason)`, as `left_out.csv` lists them.
    pub fn left_out(&self) -> Vec<(String, String)> {
        self.excluded
            .iter()
            .map(|e| (e.name.clone(), e.reason.clone()))
            .collect()
    }

    /// Reads the file of an output directory, of this layout or the first one.
    pub fn read(out: &Path) -> Result<TournamentFile> {
        let path = path(out);
        let text = std::fs::read_to_string(&path).with_context(|| {
            format!(
                "cannot read `{}`: is `{}` a tournament's output directory?",
                path.display(),
                out.display()
            )
        })?;
        let value: serde_json::Value = serde_json::from_str(&text)
            .with_context(|| format!("`{}` is not a tournament file", path.display()))?;
        match value.get("format").and_then(serde_json::Value::as_u64) {
            Some(n) if n == u64::from(FORMAT) => serde_json::from_value(value)
                .with_context(|| format!("`{}` is not a tournament file", path.display())),
            Some(n) => bail!(
                "`{}` has format {n}, which this arena ({}) does not know: use a newer arena",
                path.display(),
                env!("CARGO_PKG_VERSION")
            ),
            None => {
                let old: super::legacy::LegacyFile = serde_json::from_value(value)
                    .with_context(|| format!("`{}` is not a tournament file", path.display()))?;
                old.upgrade(out)
                    .with_context(|| format!("cannot read the settings in `{}`", path.display()))
            }
        }
    }

    /// The bots' sources in schedule order: a gauntlet's references first.
    pub fn sources(&self) -> Result<Vec<BotSource>> {
        self.bots
            .iter()
            .filter(|b| !b.remote)
            .map(|b| {
                b.source
                    .to_string_lossy()
                    .parse::<BotSource>()
                    .map_err(|e| anyhow::anyhow!(e))
            })
            .collect()
    }

    /// The HTML report's title and configuration table, in human units (`512 MiB`, `20 s`),
    /// with only the options that apply to the game played.
    pub fn describe(&self) -> (String, Vec<(String, String)>) {
        let c = &self.config;
        let t = &c.tournament;
        let time = |d: std::time::Duration| {
            let ms = d.as_millis();
            match ms {
                0 => "0 s".to_string(),
                ms if ms.is_multiple_of(60_000) => format!("{} min", ms / 60_000),
                ms if ms.is_multiple_of(1000) => format!("{} s", ms / 1000),
                ms if ms > 1000 => format!("{:.1} s", ms as f64 / 1000.0),
                ms => format!("{ms} ms"),
            }
        };
        let bytes = |n: u64| {
            let units = [(1u64 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")];
            match units.iter().find(|(size, _)| n >= *size) {
                Some((size, unit)) if n.is_multiple_of(*size) => format!("{} {unit}", n / size),
                Some((size, unit)) => format!("{:.1} {unit}", n as f64 / *size as f64),
                None => format!("{n} bytes"),
            }
        };
        let limits = c.move_limits();
        let mut rows = vec![
            ("arena version", self.arena_version.clone()),
            ("run", self.run.clone()),
            ("started at", self.started_at.clone()),
            ("game", c.game.name().to_string()),
        ];
        match c.game {
            crate::game::GameKind::Morra => {
                rows.push(("morra rounds", c.rules.morra_rounds.to_string()))
            }
            crate::game::GameKind::Numeron => rows.push(("digits", c.rules.digits.to_string())),
            _ => {}
        }
        rows.extend([
            ("rounds", t.rounds.to_string()),
            ("games per pairing", c.games_per_pairing().to_string()),
            ("seed", c.seed().to_string()),
        ]);
        if c.game.has_openings() {
            rows.push(("opening plies", t.opening_plies.to_string()));
            if let Some(path) = &t.book.openings {
                let order = format!("{:?}", t.book.openings_order).to_lowercase();
                rows.push(("openings", format!("{} ({order})", path.display())));
            }
        }
        if let Some(clock) = c.time.time_control {
            rows.push(("time control", clock.to_string()));
        }
        rows.extend([
            ("replays", c.replays().to_string()),
            ("jobs", c.jobs().to_string()),
            ("instances", c.instances().to_string()),
            ("move time", time(limits.move_time)),
            ("startup time", time(limits.startup_time)),
            ("build time", time(c.time.build_time)),
            ("log limit", bytes(c.limits.log_limit)),
            ("keep work", c.output.keep_work.to_string()),
            ("memory", bytes(c.limits.memory)),
            ("max procs", c.limits.max_procs.to_string()),
            ("max output", bytes(c.limits.max_output)),
            ("allow network", c.sandbox.allow_network.to_string()),
            ("pause opponent", c.pause_opponent().to_string()),
            ("no sandbox", c.sandbox.no_sandbox.to_string()),
        ]);
        // Engine protocols exist for Othello (GTP, NBoard) and Gomoku (Gomocup).
        if matches!(
            c.game,
            crate::game::GameKind::Othello | crate::game::GameKind::Gomoku
        ) {
            rows.push(("engine startup", time(limits.engine_startup)));
        }
        if let Some(anchor) = &c.output.anchor {
            rows.push(("anchor", anchor.clone()));
        }
        if !self.gauntlet.is_empty() {
            rows.push(("pass", t.pass.to_string()));
        }
        if let Some(shard) = t.shard {
            rows.push(("shard", shard.to_string()));
        }
        rows.push(("bots", self.bots.len().to_string()));
        rows.push(("excluded", self.excluded.len().to_string()));
        let title = format!("{} — {}", c.game.name(), self.run);
        (
            title,
            rows.into_iter().map(|(k, v)| (k.to_string(), v)).collect(),
        )
    }
}
