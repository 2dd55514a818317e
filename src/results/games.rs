//! One finished game as a row of `games.csv`, and reading and appending that file: as owned
//! records, or as a compact table of games whose bot names are interned once.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::game::GameKind;

/// The columns of `games.csv`, in order. Files written before `detail` was added have the
/// first 13 ([`LEGACY_COLUMNS`]); reading accepts both, the header decides.
pub const HEADER: [&str; 14] = [
    "run",
    "round",
    "game_id",
    "game",
    "bot_a",
    "bot_b",
    "score_a",
    "score_b",
    "result",
    "reason",
    "culprit",
    "plies",
    "duration_ms",
    "detail",
];

/// How many columns a `games.csv` has without the `detail` column.
pub const LEGACY_COLUMNS: usize = 13;

/// Who won: seat A (`bot_a`, the first player), seat B, or nobody.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum GameResult {
    A,
    B,
    Draw,
}

/// How a game ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Reason {
    /// By the game's own rules.
    Normal,
    /// A bot did not answer within its time.
    Timeout,
    /// A bot answered something unparseable or against the rules.
    Illegal,
    /// A bot exited, closed its output, or could not be started.
    Crash,
}

impl GameResult {
    pub const ALL: [GameResult; 3] = [GameResult::A, GameResult::B, GameResult::Draw];

    /// The result as written in `games.csv` (as serde writes it).
    pub fn as_str(self) -> &'static str {
        match self {
            GameResult::A => "a",
            GameResult::B => "b",
            GameResult::Draw => "draw",
        }
    }
}

impl Reason {
    pub const ALL: [Reason; 4] = [
        Reason::Normal,
        Reason::Timeout,
        Reason::Illegal,
        Reason::Crash,
    ];

    /// The reason as written in `games.csv` and replays (as serde writes it).
    pub fn as_str(self) -> &'static str {
        match self {
            Reason::Normal => "normal",
            Reason::Timeout => "timeout",
            Reason::Illegal => "illegal",
            Reason::Crash => "crash",
        }
    }
}

/// Who caused a game to end other than by the rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Culprit {
    #[serde(rename = "")]
    Nobody,
    #[serde(rename = "a")]
    A,
    #[serde(rename = "b")]
    B,
    #[serde(rename = "both")]
    Both,
}

impl Culprit {
    pub const ALL: [Culprit; 4] = [Culprit::Nobody, Culprit::A, Culprit::B, Culprit::Both];

    /// The culprit as written in `games.csv` (as serde writes it).
    pub fn as_str(self) -> &'static str {
        match self {
            Culprit::Nobody => "",
            Culprit::A => "a",
            Culprit::B => "b",
            Culprit::Both => "both",
        }
    }
}

/// One row of `games.csv`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameRecord {
    /// The tournament run this game belongs to (its id in `tournament.json`).
    pub run: String,
    /// Which repetition of the round robin (1-based).
    pub round: u32,
    /// The game's number in the run's schedule (1-based).
    pub game_id: u64,
    pub game: GameKind,
    /// Seat 1: the bot that moves first.
    pub bot_a: String,
    pub bot_b: String,
    pub score_a: i64,
    pub score_b: i64,
    pub result: GameResult,
    pub reason: Reason,
    pub culprit: Culprit,
    pub plies: u32,
    pub duration_ms: u64,
    /// For a forfeited game, the referee's fault text, such as `timeout: no reply in time`
    /// (both faults joined by ` / `, each prefixed by its seat, when both forfeited); empty
    /// for a game ended by the rules.
    pub detail: String,
}

impl GameRecord {
    /// The `detail` text for a game's faults, one per seat: the fault alone when one seat
    /// forfeited, `a: ... / b: ...` when both did, empty when neither did.
    pub fn fault_detail(faults: &[Option<String>; 2]) -> String {
        match faults {
            [Some(a), Some(b)] => format!("a: {a} / b: {b}"),
            [Some(f), None] | [None, Some(f)] => f.clone(),
            [None, None] => String::new(),
        }
    }
}

#[cfg(test)]
impl GameRecord {
    /// A plain game for tests: `a` against `b` at `game` with `result`, ended by the rules,
    /// scores 0, one ply; tests change what they need with struct update syntax.
    pub(crate) fn for_test(game: GameKind, a: &str, b: &str, result: GameResult) -> GameRecord {
        GameRecord {
            run: "r".into(),
            round: 1,
            game_id: 1,
            game,
            bot_a: a.into(),
            bot_b: b.into(),
            score_a: 0,
            score_b: 0,
            result,
            reason: Reason::Normal,
            culprit: Culprit::Nobody,
            plies: 1,
            duration_ms: 1,
            detail: String::new(),
        }
    }
}

/// Bot names, each stored once; a bot's id is its index in order of first appearance.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Names {
    names: Vec<Box<str>>,
    ids: HashMap<Box<str>, u32>,
}

impl Names {
    /// The id of `name`, adding it if it is new.
    pub fn intern(&mut self, name: &str) -> u32 {
        if let Some(&id) = self.ids.get(name) {
            return id;
        }
        let id = u32::try_from(self.names.len()).expect("fewer than 2^32 bots");
        self.names.push(name.into());
        self.ids.insert(name.into(), id);
        id
    }

    /// The id of `name`, if some game names it.
    pub fn id(&self, name: &str) -> Option<u32> {
        self.ids.get(name).copied()
    }

    /// The name of bot `id`.
    pub fn name(&self, id: u32) -> &str {
        &self.names[id as usize]
    }

    /// How many bots there are.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// Whether there are no bots.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// Every id, ordered by name.
    pub fn by_name(&self) -> Vec<u32> {
        let mut ids: Vec<u32> = (0..self.names.len() as u32).collect();
        ids.sort_unstable_by(|&x, &y| self.name(x).cmp(self.name(y)));
        ids
    }
}

/// One game of a [`GameTable`]: what the standings, ratings, grades and reports use of a
/// [`GameRecord`], with the bots as ids into the table's [`Names`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Game {
    pub game_id: u64,
    pub score_a: i64,
    pub score_b: i64,
    /// Seat 1 (moving first) and seat 2, as ids.
    pub bot_a: u32,
    pub bot_b: u32,
    pub game: GameKind,
    pub result: GameResult,
    pub reason: Reason,
    pub culprit: Culprit,
}

/// What is kept of a game that did not end by the rules, besides its [`Game`]: kept apart so
/// the common, normal games cost nothing more.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Forfeit {
    /// The game's index in [`GameTable::games`].
    pub index: usize,
    /// Plies played before the game stopped.
    pub plies: u32,
    /// The `detail` column: the referee's fault text (empty in CSVs written before it existed).
    pub detail: Box<str>,
}

/// Games with their bot names interned: a compact, read-only view of `games.csv` that
/// dereferences to its games, in file order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GameTable {
    pub names: Names,
    pub games: Vec<Game>,
    /// The games not ended by the rules (reason other than `normal`), in game order.
    pub forfeits: Vec<Forfeit>,
    /// The distinct values of the `run` column, in order of first appearance.
    pub runs: Vec<Box<str>>,
}

impl GameTable {
    /// The table of `records`, in their order.
    pub fn from_records(records: &[GameRecord]) -> GameTable {
        let mut table = GameTable::default();
        for r in records {
            table.push(r);
        }
        table
    }

    /// Adds one game at the end.
    pub fn push(&mut self, r: &GameRecord) {
        self.push_row(&Row {
            run: &r.run,
            round: r.round,
            game_id: r.game_id,
            game: r.game,
            bot_a: &r.bot_a,
            bot_b: &r.bot_b,
            score_a: r.score_a,
            score_b: r.score_b,
            result: r.result,
            reason: r.reason,
            culprit: r.culprit,
            plies: r.plies,
            duration_ms: r.duration_ms,
            detail: &r.detail,
        });
    }

    fn push_row(&mut self, r: &Row<'_>) {
        if r.reason != Reason::Normal {
            self.forfeits.push(Forfeit {
                index: self.games.len(),
                plies: r.plies,
                detail: r.detail.into(),
            });
        }
        if !self.runs.iter().any(|run| **run == *r.run) {
            self.runs.push(r.run.into());
        }
        let game = Game {
            game_id: r.game_id,
            score_a: r.score_a,
            score_b: r.score_b,
            bot_a: self.names.intern(r.bot_a),
            bot_b: self.names.intern(r.bot_b),
            game: r.game,
            result: r.result,
            reason: r.reason,
            culprit: r.culprit,
        };
        self.games.push(game);
    }

    /// The name of bot `id`.
    pub fn name(&self, id: u32) -> &str {
        self.names.name(id)
    }

    /// Adds the games of `other` after these, its bots interned into this table's names.
    pub fn extend(&mut self, other: GameTable) {
        let ids: Vec<u32> = (0..other.names.len() as u32)
            .map(|id| self.names.intern(other.name(id)))
            .collect();
        let offset = self.games.len();
        self.games.extend(other.games.into_iter().map(|g| Game {
            bot_a: ids[g.bot_a as usize],
            bot_b: ids[g.bot_b as usize],
            ..g
        }));
        self.forfeits
            .extend(other.forfeits.into_iter().map(|f| Forfeit {
                index: f.index + offset,
                ..f
            }));
        for run in other.runs {
            if !self.runs.contains(&run) {
                self.runs.push(run);
            }
        }
    }

    /// The plies and `detail` of the game at `index`, if it did not end by the rules.
    pub fn forfeit(&self, index: usize) -> Option<&Forfeit> {
        self.forfeits
            .binary_search_by_key(&index, |f| f.index)
            .ok()
            .map(|i| &self.forfeits[i])
    }
}

impl std::ops::Deref for GameTable {
    type Target = [Game];

    fn deref(&self) -> &[Game] {
        &self.games
    }
}

impl From<&[GameRecord]> for GameTable {
    fn from(records: &[GameRecord]) -> GameTable {
        GameTable::from_records(records)
    }
}

#[path = "games_reader.rs"]
mod reader;
#[cfg(test)]
pub(crate) use reader::complete_length;
use reader::Row;
pub use reader::{read_games, read_table, read_table_except};

#[path = "games_writer.rs"]
mod writer;
pub use writer::GamesWriter;

#[cfg(test)]
#[path = "games_tests.rs"]
mod tests;
