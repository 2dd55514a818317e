//! What a tournament produces game by game: the rows of `games.csv` and the replays.

pub mod games;
pub mod left_out;
pub mod replay;
pub mod superseded;

use games::{Culprit, GameResult, Reason};

/// How a game ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    pub scores: [i64; 2],
    pub result: GameResult,
    pub reason: Reason,
    pub culprit: Culprit,
    pub plies: u32,
    /// What each seat did wrong, if anything, for its log.
    pub faults: [Option<String>; 2],
}
