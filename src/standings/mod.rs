//! Standings and the cross-table, computed from game records alone.
//!
//! Everything here is a pure function of the games, so `arena standings games.csv` reproduces
//! what `arena run` wrote, byte for byte.

pub mod faults;
pub mod grades;
pub mod ratings;
pub mod sprt;
pub mod swiss;

use std::cmp::Reverse;

use crate::game::GameKind;
use crate::results::games::{Culprit, GameRecord, GameResult, GameTable, Reason};

/// Points for a win, a draw and a loss.
pub const WIN_POINTS: u32 = 2;
pub const DRAW_POINTS: u32 = 1;

/// One bot's line in the standings.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Standing {
    pub rank: usize,
    pub bot: String,
    pub games: u32,
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
    pub points: u32,
    /// Score columns summed over the games, a forfeited game counted as the worst margin for
    /// the forfeiter (see [`forfeit_margin`]); `games.csv` keeps the real scores.
    pub score_for: i64,
    pub score_against: i64,
    /// Games this bot lost (or drew, both failing) by the reason given.
    pub timeouts: u32,
    pub illegal: u32,
    pub crashes: u32,
    /// Results in seat A (moving first) and in seat B.
    pub as_first: Record,
    pub as_second: Record,
    /// Elo with its 95% interval, `(elo, low, high)`; `None` when the games do not bound it
    /// (or before [`rate`]).
    pub elo: Option<(f64, f64, f64)>,
}

/// Wins, draws and losses.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Record {
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
}

impl Record {
    fn add(&mut self, points: u32) {
        match points {
            WIN_POINTS => self.wins += 1,
            DRAW_POINTS => self.draws += 1,
            _ => self.losses += 1,
        }
    }
}

impl Standing {
    /// The key that orders the table: points, then wins, then score difference (a forfeit
    /// counted as the worst margin, see [`forfeit_margin`]), all descending. Bots equal on all three share a rank; their names only order the rows.
    fn rank_key(&self) -> (Reverse<u32>, Reverse<u32>, Reverse<i64>) {
        (
            Reverse(self.points),
            Reverse(self.wins),
            Reverse(self.score_for.saturating_sub(self.score_against)),
        )
    }
}

/// Results of one bot against one opponent.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Cell {
    pub games: u32,
    pub points: u32,
    /// Points taken moving first (seat A) and moving second.
    pub points_first: u32,
    pub points_second: u32,
}

/// The standings table and the cross-table, rows in standings order.
#[derive(Debug, Clone, PartialEq)]
pub struct Standings {
    /// The game played (`None` for no games).
    pub game: Option<GameKind>,
    /// Whether [`rate`] has filled in the ratings.
    pub rated: bool,
    /// The first player's advantage in Elo with its 95% interval, where estimated.
    pub first_move: Option<(f64, f64, f64)>,
    pub rows: Vec<Standing>,
    /// `cross[i][j]`: results of `rows[i].bot` against `rows[j].bot`.
    pub cross: Vec<Vec<Cell>>,
}

/// Computes the standings of all the bots that appear in `games` (records, as a tournament
/// holds them); [`tabulate`] does the same for a [`GameTable`].
pub fn compute(games: &[GameRecord]) -> Standings {
    tabulate(&GameTable::from_records(games))
}

/// The score counted for the winner of a forfeited game (its forfeiter counts 0) in the
/// standings' score columns, so that a forfeit is the worst possible margin and never ranks
/// above a loss by the rules: Othello 64 (a wipe-out, 64–0), Gomoku 113 (the most stones one
/// side can have on 15×15); in Morra and Numer0n, whose highest score depends on the rules
/// (`--morra-rounds`, `--digits`), `highest`, the highest score of any game in the table.
pub fn forfeit_margin(kind: GameKind, highest: i64) -> i64 {
    match kind {
        GameKind::Othello => 64,
        GameKind::Gomoku => crate::game::gomoku::CELLS.div_ceil(2) as i64,
        GameKind::Morra | GameKind::Numeron => highest,
    }
    .max(highest)
    .max(1)
}

/// Computes the standings of all the bots that appear in `games`.
pub fn tabulate(games: &GameTable) -> Standings {
    let n = games.names.len();
    let mut by_bot: Vec<Standing> = (0..n as u32)
        .map(|id| Standing {
            bot: games.name(id).to_string(),
            ..Standing::default()
        })
        .collect();
    // `pair[i * n + j]`: results of bot id `i` against bot id `j`.
    let mut pair = vec![Cell::default(); n * n];
    // Per bot id: forfeits lost and won, scored as the worst and best margin afterwards.
    let mut forfeited = vec![0i64; n];
    let mut won_by_forfeit = vec![0i64; n];
    let mut highest = 0i64;

    for g in games.iter() {
        let bots = [g.bot_a as usize, g.bot_b as usize];
        let scores = [g.score_a, g.score_b];
        let points = match g.result {
            GameResult::A => [WIN_POINTS, 0],
            GameResult::B => [0, WIN_POINTS],
            GameResult::Draw => [DRAW_POINTS, DRAW_POINTS],
        };
        let culprits = match g.culprit {
            Culprit::Nobody => [false, false],
            Culprit::A => [true, false],
            Culprit::B => [false, true],
            Culprit::Both => [true, true],
        };
        highest = highest.max(g.score_a).max(g.score_b);
        let forfeit = g.culprit != Culprit::Nobody;
        for i in 0..2 {
            if forfeit {
                if culprits[i] {
                    forfeited[bots[i]] += 1;
                } else {
                    won_by_forfeit[bots[i]] += 1;
                }
            }
            let s = &mut by_bot[bots[i]];
            s.games += 1;
            s.points += points[i];
            match points[i] {
                WIN_POINTS => s.wins += 1,
                DRAW_POINTS => s.draws += 1,
                _ => s.losses += 1,
            }
            if i == 0 {
                s.as_first.add(points[i]);
            } else {
                s.as_second.add(points[i]);
            }
            if !forfeit {
                // A CSV may hold any score: totals saturate rather than overflow.
                s.score_for = s.score_for.saturating_add(scores[i]);
                s.score_against = s.score_against.saturating_add(scores[1 - i]);
            }
            if culprits[i] {
                match g.reason {
                    Reason::Timeout => s.timeouts += 1,
                    Reason::Illegal => s.illegal += 1,
                    Reason::Crash => s.crashes += 1,
                    Reason::Normal => {}
                }
            }
            let cell = &mut pair[bots[i] * n + bots[1 - i]];
            cell.games += 1;
            cell.points += points[i];
            if i == 0 {
                cell.points_first += points[i];
            } else {
                cell.points_second += points[i];
            }
        }
    }

    if let Some(first) = games.first() {
        let margin = forfeit_margin(first.game, highest);
        for (id, s) in by_bot.iter_mut().enumerate() {
            s.score_against = s
                .score_against
                .saturating_add(margin.saturating_mul(forfeited[id]));
            s.score_for = s
                .score_for
                .saturating_add(margin.saturating_mul(won_by_forfeit[id]));
        }
    }

    // Rows in rank order, each with its bot's id.
    let mut rows: Vec<(usize, Standing)> = by_bot.into_iter().enumerate().collect();
    rows.sort_by(|(_, x), (_, y)| x.rank_key().cmp(&y.rank_key()).then(x.bot.cmp(&y.bot)));
    for i in 0..rows.len() {
        rows[i].1.rank = if i > 0 && rows[i].1.rank_key() == rows[i - 1].1.rank_key() {
            rows[i - 1].1.rank
        } else {
            i + 1
        };
    }
    let cross = rows
        .iter()
        .map(|&(r, _)| rows.iter().map(|&(c, _)| pair[r * n + c]).collect())
        .collect();
    Standings {
        game: games.first().map(|g| g.game),
        rated: false,
        first_move: None,
        rows: rows.into_iter().map(|(_, row)| row).collect(),
        cross,
    }
}

/// Adds the ratings of a fit to the standings' rows.
pub fn rate(standings: &mut Standings, ratings: &crate::standings::ratings::Ratings) {
    let interval =
        |elo: Option<f64>, low: Option<f64>, high: Option<f64>| Some((elo?, low?, high?));
    for row in &mut standings.rows {
        // The ratings are sorted by name.
        row.elo = ratings
            .bots
            .binary_search_by(|r| r.bot.as_str().cmp(&row.bot))
            .ok()
            .and_then(|i| {
                let r = &ratings.bots[i];
                interval(r.elo, r.low, r.high)
            });
    }
    standings.first_move = interval(
        ratings.first_move_elo,
        ratings.first_move_low,
        ratings.first_move_high,
    );
    standings.rated = true;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(a: &str, b: &str, result: GameResult, reason: Reason, culprit: Culprit) -> GameRecord {
        GameRecord {
            score_a: 10,
            score_b: 4,
            reason,
            culprit,
            ..GameRecord::for_test(GameKind::Morra, a, b, result)
        }
    }

    #[test]
    fn points_records_and_failures_add_up() {
        let games = [
            game("x", "y", GameResult::A, Reason::Normal, Culprit::Nobody),
            game("y", "z", GameResult::A, Reason::Timeout, Culprit::B),
            game("z", "x", GameResult::Draw, Reason::Crash, Culprit::Both),
        ];
        let s = compute(&games);
        let names: Vec<_> = s.rows.iter().map(|r| r.bot.as_str()).collect();
        assert_eq!(names, ["x", "y", "z"]);
        let x = &s.rows[0];
        assert_eq!(
            (x.games, x.wins, x.draws, x.losses, x.points),
            (2, 1, 1, 0, 3)
        );
        // 10-4 won; the double crash counts 0 against the highest score, 10.
        assert_eq!((x.score_for, x.score_against), (10, 14));
        assert_eq!(x.crashes, 1);
        let z = &s.rows[2];
        assert_eq!((z.timeouts, z.crashes, z.points), (1, 1, 1));
        // x against y: one win, moving first; y against x: nothing.
        let win = Cell {
            games: 1,
            points: 2,
            points_first: 2,
            points_second: 0,
        };
        assert_eq!(s.cross[0][1], win);
        assert_eq!(s.cross[1][0].points, 0);
        assert_eq!(s.cross[0][0], Cell::default());
        // x won moving first (against y) and drew moving second (against z).
        let record = |wins, draws, losses| Record {
            wins,
            draws,
            losses,
        };
        assert_eq!(
            (x.as_first, x.as_second),
            (record(1, 0, 0), record(0, 1, 0))
        );
        assert_eq!(
            (z.as_first, z.as_second),
            (record(0, 1, 0), record(0, 0, 1))
        );
    }

    #[test]
    fn full_ties_share_a_rank_and_sort_by_name() {
        let games = [
            game("b", "a", GameResult::A, Reason::Normal, Culprit::Nobody),
            game("a", "b", GameResult::A, Reason::Normal, Culprit::Nobody),
            GameRecord {
                score_b: 10,
                ..game("c", "d", GameResult::Draw, Reason::Normal, Culprit::Nobody)
            },
        ];
        let s = compute(&games);
        let ranked: Vec<_> = s.rows.iter().map(|r| (r.rank, r.bot.as_str())).collect();
        assert_eq!(ranked, [(1, "a"), (1, "b"), (3, "c"), (3, "d")]);
    }

    #[test]
    fn wins_break_a_tie_on_points() {
        // p: one win, one loss (2 points); q: two draws (2 points).
        let games = [
            game("p", "r", GameResult::A, Reason::Normal, Culprit::Nobody),
            game("p", "s", GameResult::B, Reason::Normal, Culprit::Nobody),
            game("q", "t", GameResult::Draw, Reason::Normal, Culprit::Nobody),
            game("q", "u", GameResult::Draw, Reason::Normal, Culprit::Nobody),
        ];
        let s = compute(&games);
        let p = s.rows.iter().position(|r| r.bot == "p").unwrap();
        let q = s.rows.iter().position(|r| r.bot == "q").unwrap();
        assert!(p < q);
        assert!(s.rows[p].rank < s.rows[q].rank);
    }

    #[test]
    fn a_forfeit_never_ranks_above_a_loss_by_the_rules() {
        let othello = |a: &str, b: &str, result, scores: (i64, i64)| GameRecord {
            score_a: scores.0,
            score_b: scores.1,
            ..GameRecord::for_test(GameKind::Othello, a, b, result)
        };
        // `crashy` led 30-10 when it crashed; `honest` lost 30-34. Both beat `weak` 33-31.
        let games = [
            GameRecord {
                reason: Reason::Crash,
                culprit: Culprit::A,
                ..othello("crashy", "strong", GameResult::B, (30, 10))
            },
            othello("honest", "strong", GameResult::B, (30, 34)),
            othello("crashy", "weak", GameResult::A, (33, 31)),
            othello("honest", "weak", GameResult::A, (33, 31)),
        ];
        let s = compute(&games);
        let row = |bot: &str| s.rows.iter().find(|r| r.bot == bot).unwrap();
        assert_eq!((row("crashy").points, row("honest").points), (2, 2));
        assert!(row("honest").rank < row("crashy").rank);
        assert_eq!(
            (row("crashy").score_for, row("crashy").score_against),
            (33, 64 + 31)
        );
        assert_eq!(
            (row("strong").score_for, row("strong").score_against),
            (64 + 34, 30)
        );
        assert_eq!(forfeit_margin(GameKind::Gomoku, 40), 113);
        assert_eq!(forfeit_margin(GameKind::Morra, 5000), 5000);
    }
}
