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

/// `ARENA_TIME_LEFT_MS=<ms>`, the variable a bot is told its clock by.
pub(super) fn time_left_var(left: Duration) -> Option<std::ffi::CString> {
    std::ffi::CString::new(format!("ARENA_TIME_LEFT_MS={}", left.as_millis())).ok()
}

/// Tells a per-move bot its clock: replaces the `ARENA_TIME_LEFT_MS` that a game with a clock
/// puts last in `env` (one small string a move, no copy of the environment).
pub(super) fn set_time_left(
    env: &mut [std::ffi::CString],
    settings: &PlayerSettings,
    time: Option<super::clock::TimeLeft>,
) {
    if let (Some(t), Some(_), Some(var)) = (time, settings.clock, env.last_mut()) {
        *var = time_left_var(t.left).unwrap_or_default();
    }
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
    /// The game clock (`--time-control`), for engines told it at start-up and bots told
    /// the time left.
    pub clock: Option<super::clock::TimeControl>,
}
