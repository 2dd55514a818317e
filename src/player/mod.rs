//! Players: anything that answers the referee's move requests — a bot's processes, an engine
//! session, a person at the terminal, or a script in tests.
//!
//! Each kind owns its lifecycle: it starts what it needs on its first request, may pause
//! between its turns, ends in [`Player::finish`], and leaves nothing behind when dropped.

use std::future::Future;

use crate::game::{Rules, Seat};
use crate::results::games::Reason;

pub mod check;
pub mod clock;
pub mod engine;
pub mod human;
mod io;
mod pause;
pub mod process;
pub mod remote;
pub mod scripted;
mod settings;

/// Why a player gave no usable reply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure {
    /// No reply within the time limit.
    Timeout,
    /// A reply arena could not accept before the rules even saw it (an over-long line).
    Illegal(String),
    /// The bot exited, closed its pipes, or could not be started.
    Crash(String),
    /// A person stopped playing (recorded like a crash: the game is lost).
    Resigned,
}

impl Failure {
    /// The reason a game lost this way is recorded with.
    pub fn reason(&self) -> Reason {
        match self {
            Failure::Timeout => Reason::Timeout,
            Failure::Illegal(_) => Reason::Illegal,
            Failure::Crash(_) | Failure::Resigned => Reason::Crash,
        }
    }

    /// What went wrong, in words.
    pub fn detail(&self) -> String {
        match self {
            Failure::Timeout => "no reply in time".to_string(),
            Failure::Illegal(d) | Failure::Crash(d) => d.clone(),
            Failure::Resigned => "stopped playing".to_string(),
        }
    }
}

/// What a player is asked for a move.
#[derive(Clone, Copy)]
pub struct Request<'a> {
    /// The protocol's request fields (see [`Rules::request`]).
    pub fields: &'a [String],
    /// Who is asked.
    pub seat: Seat,
    /// Every move played so far (opening plies included), for engine protocols that replay
    /// the game rather than read a position.
    pub history: &'a [(Seat, String)],
    /// The game as it stands, for players that show it (a person) or check a reply before
    /// sending it.
    pub rules: &'a dyn Rules,
    /// With a game clock (`--time-control`), the clocks as they stand: the move may take
    /// [`clock::move_limit`] of the player's per-move cap.
    pub time: Option<clock::TimeLeft>,
}

/// Something that answers move requests.
pub trait Player {
    /// Asks for the next move; returns the trimmed reply.
    fn ask(&mut self, request: Request<'_>)
        -> impl Future<Output = Result<String, Failure>> + Send;

    /// Whether an illegal reply gets another try instead of losing the game (a person who
    /// mistyped); such a player hears why through [`Player::rejected`].
    fn retries_illegal(&self) -> bool {
        false
    }

    /// Tells a player that retries illegal replies why its reply was refused.
    fn rejected(&mut self, why: &str) {
        let _ = why;
    }

    /// How late after its time limit the last reply came, where `--time-margin` let it count.
    fn late(&self) -> Option<std::time::Duration> {
        None
    }

    /// The part of the last reply's time that was the player's start-up (a `lines` bot's
    /// first move, an engine's handshake), not charged to its game clock.
    fn uncharged(&mut self) -> std::time::Duration {
        std::time::Duration::ZERO
    }

    /// Ends the game for this player (closes its process, says goodbye).
    fn finish(&mut self) -> impl Future<Output = ()> + Send;
}
