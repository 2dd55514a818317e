//! How a bot process plays one game: its time limits and the game's settings, and the
//! deadline arithmetic they need.

use std::time::Duration;

use tokio::time::Instant;

use crate::game::gomoku::GomokuRule;

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
    /// How late a reply may come and still count (`--time-margin`); bots are never told it.
    pub margin: Duration,
}

impl MoveLimits {
    /// The longest a move may take: the move time and the margin (bounds CPU-time limits).
    pub fn hard_time(&self) -> Duration {
        self.move_time.saturating_add(self.margin)
    }

    /// The deadlines of a move the bot has `time` for from now: the one place the margin is
    /// added to a limit.
    pub(super) fn deadline(&self, time: Duration) -> Deadline {
        let told = after(time);
        Deadline {
            told,
            hard: told.checked_add(self.margin).unwrap_or(told),
        }
    }
}

/// A move's limit as the bot is told it, and the instant its reply stops counting.
#[derive(Debug, Clone, Copy)]
pub(super) struct Deadline {
    told: Instant,
    /// The told limit plus `--time-margin`: a reply after it is a timeout.
    pub hard: Instant,
}

impl Deadline {
    /// How late a reply that arrives now is: `None` within the told limit.
    pub fn late(&self) -> Option<Duration> {
        let late = Instant::now().saturating_duration_since(self.told);
        (!late.is_zero()).then_some(late)
    }
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
    /// Gomoku's rule, for `ARENA_GOMOKU_RULE` and Gomocup's `INFO rule`.
    pub gomoku_rule: GomokuRule,
    /// The game clock (`--time-control`), for engines told it at start-up and bots told
    /// the time left.
    pub clock: Option<super::clock::TimeControl>,
}

impl PlayerSettings {
    /// The game's variables in every process's environment: `ARENA_GAME`, `ARENA_SEED`,
    /// `ARENA_MOVE_TIME_MS` (without `--time-margin`) and, at Gomoku, `ARENA_GOMOKU_RULE`.
    pub(super) fn game_env(&self) -> Vec<(&'static str, Vec<u8>)> {
        let mut env = vec![
            ("ARENA_GAME", self.game.as_bytes().to_vec()),
            ("ARENA_SEED", self.seed.to_string().into_bytes()),
            (
                "ARENA_MOVE_TIME_MS",
                self.limits.move_time.as_millis().to_string().into_bytes(),
            ),
        ];
        if self.game == crate::game::GameKind::Gomoku.name() {
            let rule = self.gomoku_rule.name().as_bytes().to_vec();
            env.push(("ARENA_GOMOKU_RULE", rule));
        }
        env
    }
}
