//! What a tournament produces game by game: the rows of `games.csv` and the replays.

pub mod games;
pub mod replay;
