//! How a bot process plays one game: its time limits and the game's settings, and the
//! deadline arithmetic they need.

use std::time::Duration;

use tokio::time::Instant;

/// Time limits for a bot's moves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MoveLimits {
    /// Wall time per move; for per-move processes counted from the spawn.
    pub move_time: Duration,
    /// Extra time for the first move of a `lines` bot (interpreter or JVM start-up).
    pub startup_time: Duration,
    /// The time an engine may take from its spawn to the end of its protocol handshake,
    /// separate from its first move's time (`--engine-startup`).
    pub engine_startup: Duration,
}

/// The instant `time` from now; a time too long to add (a tampered `tournament.json`) is a
/// year, which no game lasts.
pub(super) fn after(time: Duration) -> Instant {
    let now = Instant::now();
    now.checked_add(time)
        .or_else(|| now.checked_add(Duration::from_secs(365 * 24 * 3600)))
        .unwrap_or(now)
}

/// How a bot plays one game.
#[derive(Debug, Clone)]
pub struct PlayerSettings {
    /// The game's name, for `ARENA_GAME`.
    pub game: &'static str,
    /// The game's seed, for `ARENA_SEED`.
    pub seed: u64,
    pub limits: MoveLimits,
    /// The most moves one player makes in a game, to bound a `lines` process's CPU time.
    pub max_moves: u32,
    /// Freeze a `lines` bot while it is not its turn.
    pub pause: bool,
    /// Names the game's cgroup (the game id).
    pub tag: String,
}
