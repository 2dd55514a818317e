//! The progress bar of a run and its one-line summary of each finished game.

use std::io::IsTerminal;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::results::games::{GameRecord, GameResult, Reason};

/// A bar counting `games` on stderr, hidden unless `wanted` and stderr is a terminal.
pub fn progress_bar(games: u64, wanted: bool) -> ProgressBar {
    if !wanted || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(games), ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} games, ETA {eta}  {prefix}{wide_msg}")
            .expect("the template is valid"),
    );
    bar
}

/// A one-line summary of a game for the progress bar.
pub fn describe(r: &GameRecord) -> String {
    let verdict = match r.result {
        GameResult::A => format!("{} won", r.bot_a),
        GameResult::B => format!("{} won", r.bot_b),
        GameResult::Draw => "draw".to_string(),
    };
    let reason = match r.reason {
        Reason::Normal => "",
        Reason::Timeout => ", timeout",
        Reason::Illegal => ", illegal",
        Reason::Crash => ", crash",
    };
    format!(
        "latest: {} {}-{} {} ({verdict}{reason})",
        r.bot_a, r.score_a, r.score_b, r.bot_b
    )
}
