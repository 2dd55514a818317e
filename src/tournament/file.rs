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
    /// The fields the tournament's games were planned for, oldest first, once `--update`
    /// changed its field: how each `game_id` maps to its game. Empty for a tournament of one
    /// field (`bots`), whose game ids are the positions in its schedule.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub blocks: Vec<Block>,
}

/// Games given ids for one field of a tournament: the first run, or one `--update`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Block {
    /// The id of the block's first game; the others follow.
    pub first_game_id: u64,
    /// The field's bots by name, in schedule order.
    pub bots: Vec<String>,
    /// Its gauntlet's references, by name.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub gauntlet: Vec<String>,
    /// The positions (from 1) in the field's schedule of the block's games, as inclusive
    /// ranges; absent for the first run, whose game ids are the positions (of its shard).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub positions: Option<Vec<[u64; 2]>>,
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
    /// When this version of the bot (these checksums) joined the tournament (UTC, RFC 3339);
    /// absent: when the tournament started.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since: Option<String>,
}

impl BotEntry {
    /// A short digest of the bot's checksums: which version of it played (`grades.csv`).
    pub fn version(&self) -> String {
        use sha2::Digest;
        let mut hasher = sha2::Sha256::new();
        for (file, hash) in &self.checksums {
            hasher.update(format!("{file}\0{hash}\n"));
        }
        let digest = hasher.finalize();
        digest[..6].iter().map(|b| format!("{b:02x}")).collect()
    }

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
            since: None,
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

    /// Which version of each local bot plays, by name: its checksum digest and since when
    /// (`grades.csv`).
    pub fn versions(&self) -> std::collections::BTreeMap<String, [String; 2]> {
        (self.bots.iter().filter(|b| !b.remote))
            .map(|b| {
                let since = b.since.clone().unwrap_or_else(|| self.started_at.clone());
                (b.name.clone(), [b.version(), since])
            })
            .collect()
    }

    /// The blocks of the tournament's game ids: [`TournamentFile::blocks`], or for a tournament
    /// of one field, the one block of its first run.
    pub fn blocks_or_first(&self) -> Vec<Block> {
        if !self.blocks.is_empty() {
            return self.blocks.clone();
        }
        vec![Block {
            first_game_id: 1,
            bots: self.bots.iter().map(|b| b.name.clone()).collect(),
            gauntlet: self.gauntlet.clone(),
            positions: None,
        }]
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
            crate::game::GameKind::Gomoku => {
                rows.push(("gomoku rule", c.rules.gomoku_rule.to_string()))
            }
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
            ("time margin", time(limits.margin)),
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
        if let Some(sprt) = c.format.sprt {
            rows.push(("sprt", sprt.to_string()));
        }
        if let Some(games) = c.format.sprt_games() {
            rows.push(("max games", games.to_string()));
        }
        if let Some(rounds) = c.format.swiss_rounds(self.bots.len()) {
            rows.push(("swiss rounds", rounds.to_string()));
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

/// The dotted path of the first value that differs between `a` and `b`, if any.
pub fn first_difference(a: &serde_json::Value, b: &serde_json::Value, at: &str) -> Option<String> {
    match (a.as_object(), b.as_object()) {
        (Some(x), Some(y)) => {
            let mut keys: Vec<&String> = x.keys().chain(y.keys()).collect();
            keys.sort();
            keys.dedup();
            keys.into_iter().find_map(|k| {
                let path = if at.is_empty() {
                    k.clone()
                } else {
                    format!("{at}.{k}")
                };
                let null = serde_json::Value::Null;
                first_difference(x.get(k).unwrap_or(&null), y.get(k).unwrap_or(&null), &path)
            })
        }
        _ => (a != b).then(|| at.to_string()),
    }
}
