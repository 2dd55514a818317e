//! The games arena can run, and the one interface every game's rules implement.
//!
//! Rules are pure: no I/O, no clocks. The referee asks a game whose turn it is, what to send
//! each bot (the request fields of the protocol), and hands the bots' replies back to it.

use std::fmt;
use std::str::FromStr;
use std::sync::OnceLock;
use std::time::Duration;

use serde::{Deserialize, Serialize};

pub mod gomoku;
pub mod morra;
pub mod numeron;
pub mod othello;
pub mod renju;

/// One of the two players of a game. `A` is seat 1: the player who moves first. It prints as
/// `A` or `B`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Seat {
    A,
    B,
}

impl Seat {
    /// Both seats, `A` first.
    pub const BOTH: [Seat; 2] = [Seat::A, Seat::B];

    /// The other player.
    pub fn other(self) -> Seat {
        match self {
            Seat::A => Seat::B,
            Seat::B => Seat::A,
        }
    }

    /// 0 for `A`, 1 for `B`: the index into per-seat arrays.
    pub fn index(self) -> usize {
        match self {
            Seat::A => 0,
            Seat::B => 1,
        }
    }
}

impl fmt::Display for Seat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Seat::A => "A",
            Seat::B => "B",
        })
    }
}

/// Why `Rules::play` refused a reply. Its `Display` is the short lowercase text that goes to
/// the game log, the replay and the reports, so every wording is part of the file formats.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MoveError {
    /// The game has ended by its rules: no reply is a move any more.
    #[error("the game is over")]
    GameOver,
    /// A Morra throw that is not two integers from 0 to 5.
    #[error(transparent)]
    Morra(#[from] morra::ThrowError),
    /// An Othello reply that is not a square, out of turn, or not a legal move.
    #[error(transparent)]
    Othello(#[from] othello::OthelloError),
    /// A Numer0n secret or call that is not a valid code, or out of turn.
    #[error(transparent)]
    Numeron(#[from] numeron::NumeronError),
    /// A Gomoku reply that is not a point on the board, out of turn, or on a stone.
    #[error(transparent)]
    Gomoku(#[from] gomoku::GomokuError),
}

/// Who must answer next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Turn {
    /// Both players move at once (Morra rounds, Numer0n secrets). The referee takes both
    /// requests before it plays either reply.
    Both,
    /// One player moves.
    One(Seat),
    /// The game has ended by its rules.
    Over,
}

/// How a game ended by its rules (forfeits are the referee's business, not the rules').
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Winner {
    Seat(Seat),
    Draw,
}

/// The rules of one game in progress.
///
/// `play` validates a reply and leaves the state unchanged when it is illegal, returning a
/// [`MoveError`] whose text says what was wrong (it goes to the game log and the replay).
pub trait Rules: Send + Sync {
    /// Whose move it is.
    fn turn(&self) -> Turn;
    /// The request fields to send to `seat` for its next move, in protocol order. An empty
    /// field is sent as an empty argument with `argv` and as `-` in line protocols.
    fn request(&self, seat: Seat) -> Vec<String>;
    /// Plays `seat`'s reply (already trimmed of surrounding white space).
    fn play(&mut self, seat: Seat, reply: &str) -> Result<(), MoveError>;
    /// The game's score columns for seat A and seat B (Morra points, discs, calls, stones).
    fn scores(&self) -> [i64; 2];
    /// The result once `turn()` is `Over`.
    fn winner(&self) -> Option<Winner>;
    /// Plies (moves, rounds) played so far.
    fn plies(&self) -> u32;
    /// The legal replies of the side to move, where the game can list them (board games).
    /// The controller plays random ones of these for `--opening-plies`.
    fn legal_moves(&self) -> Vec<String> {
        Vec::new()
    }
    /// What anyone may know of the move `seat` has just played beyond the move itself: a
    /// Numer0n call's answer (`1 EAT 0 BITE`).
    fn note(&self, seat: Seat) -> Option<String> {
        let _ = seat;
        None
    }
    /// The position for a person: a board with coordinates, a call history, a score.
    fn render(&self) -> String;
    /// The position as `viewer` may see it (a Numer0n player does not see the other secret).
    fn render_for(&self, viewer: Seat) -> String {
        let _ = viewer;
        self.render()
    }
}

/// Settings that change a game's rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, clap::Args)]
pub struct GameConfig {
    /// Rounds in a Morra game.
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u32).range(1..))]
    pub morra_rounds: u32,
    /// Digits in a Numer0n secret (3 to 5).
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u8).range(3..=5))]
    pub digits: u8,
    /// Gomoku's rule, also told to bots (`ARENA_GOMOKU_RULE`) and Gomocup engines (`INFO
    /// rule`).
    #[arg(long, value_enum, default_value_t = gomoku::GomokuRule::Freestyle)]
    #[serde(default)]
    pub gomoku_rule: gomoku::GomokuRule,
}

impl Default for GameConfig {
    fn default() -> Self {
        GameConfig {
            morra_rounds: 1000,
            digits: 3,
            gomoku_rule: gomoku::GomokuRule::Freestyle,
        }
    }
}

/// A game arena knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum GameKind {
    /// The code-golf KotH Morra: 1000 simultaneous rounds of a choice and a guess.
    Morra,
    /// Othello (Reversi) on 8x8, black first.
    Othello,
    /// Numer0n: guess the opponent's secret digits from EAT/BITE answers.
    Numeron,
    /// Gomoku on 15x15: five in a row wins (`--gomoku-rule` freestyle, standard or renju).
    Gomoku,
}

impl GameKind {
    /// The lowercase name used on the command line, in files and in `bots/<game>/`: the
    /// `clap::ValueEnum` name, the one place the text lives (serde's `lowercase` agrees).
    pub fn name(self) -> &'static str {
        static NAMES: OnceLock<Vec<String>> = OnceLock::new();
        let names = NAMES.get_or_init(|| {
            <GameKind as clap::ValueEnum>::value_variants()
                .iter()
                .map(|kind| {
                    let value = clap::ValueEnum::to_possible_value(kind);
                    value.expect("no game is skipped").get_name().to_string()
                })
                .collect()
        });
        let variants = <GameKind as clap::ValueEnum>::value_variants();
        let index = variants.iter().position(|&kind| kind == self);
        &names[index.expect("every game is a variant")]
    }

    /// A new game from the start position.
    pub fn new_game(self, config: &GameConfig) -> Box<dyn Rules> {
        match self {
            GameKind::Morra => Box::new(morra::Morra::new(config.morra_rounds)),
            GameKind::Othello => Box::new(othello::Othello::new()),
            GameKind::Numeron => Box::new(numeron::Numeron::new(config.digits)),
            GameKind::Gomoku => Box::new(gomoku::Gomoku::with_rule(config.gomoku_rule)),
        }
    }

    /// Whether one player moves first, so that results as first and as second player differ.
    /// Morra's rounds are simultaneous: its seats are only names.
    pub fn has_first_player(self) -> bool {
        self != GameKind::Morra
    }

    /// Whether the reply to `request` must stay hidden from the opponent and from watchers
    /// until the game is over: a Numer0n secret.
    pub fn is_secret(self, request: &[String]) -> bool {
        self == GameKind::Numeron && request.first().is_some_and(|f| f == "secret")
    }

    /// Whether every move may be shown to both players as it is played (no secrets, no
    /// simultaneous moves): the board games, whose remote clients may ask for the game's moves
    /// (`MOVES`) to drive an engine.
    pub fn has_public_moves(self) -> bool {
        matches!(self, GameKind::Othello | GameKind::Gomoku)
    }

    /// Whether `--opening-plies` applies: board games whose rules list the legal moves.
    pub fn has_openings(self) -> bool {
        matches!(self, GameKind::Othello | GameKind::Gomoku)
    }

    /// The default wall time per move.
    pub fn default_move_time(self) -> Duration {
        Duration::from_millis(match self {
            GameKind::Morra => 500,
            GameKind::Othello => 20_000,
            GameKind::Numeron => 5_000,
            GameKind::Gomoku => 60_000,
        })
    }

    /// The most moves one player can make in a game (a bound for CPU-time limits).
    pub fn max_moves(self, config: &GameConfig) -> u32 {
        match self {
            GameKind::Morra => config.morra_rounds,
            GameKind::Othello => 60,
            GameKind::Numeron => 1 + numeron::MAX_CALLS,
            GameKind::Gomoku => 113,
        }
    }

    /// The default number of games per pairing in each round, colours alternating.
    pub fn default_games(self) -> u32 {
        match self {
            GameKind::Morra => 1,
            GameKind::Othello | GameKind::Gomoku => 2,
            GameKind::Numeron => 10,
        }
    }
}

impl fmt::Display for GameKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for GameKind {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        <GameKind as clap::ValueEnum>::from_str(s, true).map_err(|_| format!("unknown game `{s}`"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_game_has_one_name_for_clap_serde_display_and_from_str() {
        for &kind in <GameKind as clap::ValueEnum>::value_variants() {
            let name = kind.name();
            assert_eq!(kind.to_string(), name);
            assert_eq!(name.parse::<GameKind>(), Ok(kind));
            assert_eq!(name.to_uppercase().parse::<GameKind>(), Ok(kind));
            assert_eq!(serde_json::to_string(&kind).unwrap(), format!("\"{name}\""));
            let back: GameKind = serde_json::from_str(&format!("\"{name}\"")).unwrap();
            assert_eq!(back, kind);
        }
        let names: Vec<_> = [
            GameKind::Morra,
            GameKind::Othello,
            GameKind::Numeron,
            GameKind::Gomoku,
        ]
        .map(GameKind::name)
        .into();
        assert_eq!(names, ["morra", "othello", "numeron", "gomoku"]);
        assert_eq!(
            "chess".parse::<GameKind>().unwrap_err(),
            "unknown game `chess`"
        );
    }

    #[test]
    fn seats_print_as_their_letter() {
        assert_eq!(format!("{} {}", Seat::A, Seat::B), "A B");
    }
}
