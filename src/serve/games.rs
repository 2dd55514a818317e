//! What the server knows of every game of the tournament (its remote entrants' and its local
//! bots'): who plays it, the moves so far, the result once over, and the standings so far.
//! The HTTP API shows it and the event stream announces each change.

use std::collections::{BTreeMap, VecDeque};
use std::sync::{Mutex, MutexGuard};

use serde::Serialize;

use crate::game::{GameKind, Seat};
use crate::results::games::{GameRecord, GameResult, Reason};
#[cfg(doc)]
use crate::standings::{DRAW_POINTS, WIN_POINTS};
use crate::tournament::runner::Watch;

use super::hub::HubEvent;
use super::rooms::is_friendly;

/// `first` or `second`: a seat as the API names it.
pub fn seat_name(seat: Seat) -> &'static str {
    match seat {
        Seat::A => "first",
        Seat::B => "second",
    }
}

/// One game as the server saw it.
#[derive(Debug, Clone, Serialize)]
pub struct GameInfo {
    /// The two players, the first seat first.
    pub players: [String; 2],
    /// The random plies played before the players' first move (`--opening-plies`).
    pub opening: Vec<Played>,
    pub moves: Vec<Played>,
    /// `None` while the game is played.
    pub result: Option<Final>,
    /// The moves of this finished game are no longer kept in memory (its replay has them).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub trimmed: bool,
    /// Replies so far (kept when the moves are trimmed).
    #[serde(skip)]
    pub replies: usize,
    /// A friendly game, outside the tournament's schedule and tables.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub friendly: bool,
    /// When the game started or its last reply came: the next move's clock runs from about
    /// then.
    #[serde(skip)]
    pub moved_at: std::time::Instant,
}

/// Finished games whose moves are kept in memory, the latest ones; older ones keep only
/// their players and result, so that a long tournament's server does not grow.
pub const KEEP_MOVES: usize = 256;

impl GameInfo {
    pub fn new(game_id: u64, players: [String; 2]) -> GameInfo {
        GameInfo {
            players,
            opening: Vec::new(),
            moves: Vec::new(),
            result: None,
            trimmed: false,
            replies: 0,
            friendly: is_friendly(game_id),
            moved_at: std::time::Instant::now(),
        }
    }

    /// The game as the player in seat `viewer` (or, with `None`, a watcher) may see it: the
    /// other seat's secrets hidden until the game is over.
    pub fn seen_by(mut self, viewer: Option<&str>) -> GameInfo {
        if self.result.is_none() {
            for m in self.moves.iter_mut().filter(|m| m.secret) {
                if Some(m.seat) != viewer {
                    m.mv = None;
                    m.hidden = true;
                }
            }
        }
        self
    }
}

/// A game in the list of games: its players and result, without its moves.
#[derive(Debug, Clone, Serialize)]
pub struct Summary {
    pub game: u64,
    pub players: [String; 2],
    /// Replies so far.
    pub moves: usize,
    pub result: Option<Final>,
    /// A friendly game, outside the tournament's schedule and tables.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub friendly: bool,
}

/// One reply of a seat: its move, or the fault that lost it the game.
#[derive(Debug, Clone, Serialize)]
pub struct Played {
    pub seat: &'static str,
    #[serde(rename = "move", skip_serializing_if = "Option::is_none")]
    pub mv: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fault: Option<String>,
    /// What anyone may know of the move beyond itself (a Numer0n call's answer).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// Milliseconds from the request to the reply.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ms: Option<u64>,
    /// The move is a secret (a Numer0n secret).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub secret: bool,
    /// A secret of the other seat, not shown until the game is over.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub hidden: bool,
}

/// How a game ended, as `games.csv` has it.
#[derive(Debug, Clone, Serialize)]
pub struct Final {
    /// The two seats' scores, the first seat's first.
    pub scores: [i64; 2],
    /// `first`, `second` or `draw`.
    pub winner: &'static str,
    pub reason: Reason,
    /// The referee's fault text for a forfeit, empty otherwise.
    pub detail: String,
}

/// A player's results so far, as `standings.csv` counts them.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Tally {
    /// Its place (players equal on points, wins and score difference share one).
    pub rank: usize,
    pub name: String,
    pub games: u32,
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
    /// A win is [`WIN_POINTS`] points, a draw [`DRAW_POINTS`], as in the files.
    pub points: u32,
}

#[derive(Default)]
struct Inner {
    games: BTreeMap<u64, GameInfo>,
    /// The tournament's finished games (friendly ones left out), for the standings and
    /// grades, counted exactly as the files count them.
    records: Vec<GameRecord>,
    /// Finished games whose moves are still kept, oldest first.
    kept: VecDeque<u64>,
}

/// Every game of the tournament so far.
pub struct Games {
    kind: GameKind,
    inner: Mutex<Inner>,
}

impl Games {
    pub fn new(kind: GameKind) -> Games {
        Games {
            kind,
            inner: Mutex::default(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Whether a game that has started is over (`None`: no such game), without copying it.
    pub fn is_over(&self, game_id: u64) -> Option<bool> {
        self.lock().games.get(&game_id).map(|g| g.result.is_some())
    }

    /// Every game so far, oldest first.
    pub fn list(&self) -> Vec<Summary> {
        let inner = self.lock();
        let list = inner.games.iter().map(|(&game, info)| Summary {
            game,
            players: info.players.clone(),
            moves: info.replies,
            result: info.result.clone(),
            friendly: info.friendly,
        });
        list.collect()
    }

    /// What `look` reads of a game, if it has started: without copying the game, and with
    /// the games locked meanwhile (so `look` must be quick).
    pub fn with<R>(&self, game_id: u64, look: impl FnOnce(&GameInfo) -> R) -> Option<R> {
        self.lock().games.get(&game_id).map(look)
    }

    /// A game's state, if it has started.
    pub fn get(&self, game_id: u64) -> Option<GameInfo> {
        self.lock().games.get(&game_id).cloned()
    }

    /// The standings so far, in the files' order and points (see [`crate::standings`]).
    pub fn standings(&self) -> Vec<Tally> {
        let rows = crate::standings::compute(&self.lock().records).rows;
        (rows.into_iter())
            .map(|r| Tally {
                rank: r.rank,
                name: r.bot,
                games: r.games,
                wins: r.wins,
                draws: r.draws,
                losses: r.losses,
                points: r.points,
            })
            .collect()
    }

    /// The tournament's finished games so far, friendly ones left out.
    pub fn records(&self) -> Vec<GameRecord> {
        self.lock().records.clone()
    }

    /// Learns what happened in a game; the events that announce it.
    pub fn apply(&self, game_id: u64, event: Watch<'_>) -> Vec<HubEvent> {
        let mut inner = self.lock();
        match event {
            Watch::Started { names, opening } => {
                let mut info = GameInfo::new(game_id, names.map(str::to_string));
                info.opening = (opening.iter())
                    .map(|(seat, mv)| Played {
                        seat: seat_name(*seat),
                        mv: Some(mv.clone()),
                        fault: None,
                        note: None,
                        ms: None,
                        secret: false,
                        hidden: false,
                    })
                    .collect();
                inner.games.insert(game_id, info);
                vec![HubEvent::GameStarted { game: game_id }]
            }
            Watch::Move {
                seat,
                request,
                reply,
                note,
                think,
            } => {
                let Some(info) = inner.games.get_mut(&game_id) else {
                    return Vec::new();
                };
                let (mv, fault) = match reply {
                    Ok(mv) => (Some(mv.to_string()), None),
                    Err(fault) => (None, Some(fault.to_string())),
                };
                let played = Played {
                    seat: seat_name(seat),
                    mv,
                    fault,
                    note: note.map(str::to_string),
                    ms: Some(think.as_millis() as u64),
                    secret: self.kind.is_secret(request),
                    hidden: false,
                };
                info.moves.push(played.clone());
                info.replies += 1;
                info.moved_at = std::time::Instant::now();
                vec![HubEvent::Moved {
                    game: game_id,
                    played,
                }]
            }
            Watch::Over { record } => {
                inner.finish(record, false);
                inner.kept.push_back(game_id);
                while inner.kept.len() > KEEP_MOVES {
                    let old = inner.kept.pop_front();
                    if let Some(g) = old.and_then(|id| inner.games.get_mut(&id)) {
                        g.opening = Vec::new();
                        g.moves = Vec::new();
                        g.trimmed = true;
                    }
                }
                if is_friendly(game_id) {
                    return vec![HubEvent::Finished { game: game_id }];
                }
                vec![HubEvent::Finished { game: game_id }, HubEvent::Standings]
            }
        }
    }

    /// Learns the games an earlier run of the tournament played (`arena resume`): their
    /// players and results, their moves left to their replays.
    pub fn restore(&self, records: &[GameRecord]) {
        let mut inner = self.lock();
        for record in records {
            inner.finish(record, true);
        }
    }
}

impl Inner {
    /// A game is over: its result, and the tally of its players unless it is friendly.
    /// `trimmed`: its moves are not kept.
    fn finish(&mut self, record: &GameRecord, trimmed: bool) {
        let game_id = record.game_id;
        let winner = match record.result {
            GameResult::A => seat_name(Seat::A),
            GameResult::B => seat_name(Seat::B),
            GameResult::Draw => "draw",
        };
        let result = Final {
            scores: [record.score_a, record.score_b],
            winner,
            reason: record.reason,
            detail: record.detail.clone(),
        };
        let players = [record.bot_a.clone(), record.bot_b.clone()];
        let info = (self.games.entry(game_id)).or_insert_with(|| GameInfo::new(game_id, players));
        info.result = Some(result);
        if trimmed {
            info.trimmed = true;
            info.replies = record.plies as usize;
        }
        if !is_friendly(game_id) {
            self.records.push(record.clone());
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::results::games::{Culprit, GameRecord};

    fn over(games: &Games, id: u64) {
        let record = GameRecord {
            run: "r".into(),
            round: 1,
            game_id: id,
            game: GameKind::Othello,
            bot_a: "a".into(),
            bot_b: "b".into(),
            score_a: 40,
            score_b: 24,
            result: GameResult::A,
            reason: Reason::Normal,
            culprit: Culprit::Nobody,
            plies: 1,
            duration_ms: 1,
            detail: String::new(),
        };
        games.apply(id, Watch::Over { record: &record });
    }

    #[test]
    fn games_of_an_earlier_run_count_in_the_standings_but_friendly_ones_do_not() {
        let games = Games::new(GameKind::Othello);
        let record = |game_id| GameRecord {
            run: "r".into(),
            round: 1,
            game_id,
            game: GameKind::Othello,
            bot_a: "a".into(),
            bot_b: "b".into(),
            score_a: 24,
            score_b: 40,
            result: GameResult::B,
            reason: Reason::Normal,
            culprit: Culprit::Nobody,
            plies: 58,
            duration_ms: 1,
            detail: String::new(),
        };
        games.restore(&[record(1), record(crate::serve::rooms::FRIENDLY_BASE + 1)]);
        let list = games.list();
        assert_eq!(list.len(), 2);
        assert!(!list[0].friendly && list[1].friendly);
        assert_eq!(list[0].moves, 58);
        assert!(games.get(1).unwrap().trimmed, "its moves are in its replay");
        let standings = games.standings();
        assert_eq!((standings[0].name.as_str(), standings[0].wins), ("b", 1));
        assert_eq!(standings[0].games, 1, "the friendly game is not counted");
    }

    #[test]
    fn only_the_latest_finished_games_keep_their_moves() {
        let games = Games::new(GameKind::Othello);
        for id in 1..=KEEP_MOVES as u64 + 2 {
            games.apply(
                id,
                Watch::Started {
                    names: ["a", "b"],
                    opening: &[],
                },
            );
            let mv = Watch::Move {
                seat: Seat::A,
                request: &[],
                reply: Ok("d3"),
                note: None,
                think: Duration::from_millis(1),
            };
            games.apply(id, mv);
            over(&games, id);
        }
        let first = games.get(1).unwrap();
        assert!(first.trimmed && first.moves.is_empty() && first.result.is_some());
        let last = games.get(KEEP_MOVES as u64 + 2).unwrap();
        assert!(!last.trimmed && last.moves.len() == 1);
        let list = games.list();
        assert_eq!(list[0].moves, 1, "the count survives the trim");
        assert_eq!(games.standings()[0].wins, KEEP_MOVES as u32 + 2);
    }
}
