//! How a forfeited game was lost, in words, from the `detail` column of `games.csv` (the
//! referee's fault text) and the number of plies played.
//!
//! | `reason` and `detail` | in words |
//! |---|---|
//! | `timeout: no reply in time` | `timeout at move 14 (no reply in 20 s)`, the move time from `tournament.json`; without it, `timeout at move 14` |
//! | ``illegal: ... (reply `d9`)`` | `illegal reply "d9" at move 9` |
//! | `crash: exited with status 1` | `crash: exit status 1` |
//! | `crash: memory limit: ...` | `memory limit` |
//! | `crash: ` anything else | `crash: ` and the rest, such as `crash: killed by signal 9` |
//!
//! The move is the one the bot was asked for: plies played before it, plus one. A game both
//! bots forfeited has `a: FAULT / b: FAULT` as its detail; each bot's own part is used. A CSV
//! written before the `detail` column gives just the reason and the move.

use std::time::Duration;

use crate::results::games::Reason;

/// One forfeited game of a bot, explained.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fault {
    /// The game's id, for `replays/<game_id>.jsonl`.
    pub game_id: u64,
    /// The opponent's name.
    pub opponent: String,
    /// How the game was lost, such as `timeout at move 14 (no reply in 20 s)`.
    pub words: String,
}

/// The bot in seat `seat` (0 for `a`) forfeited with `reason` after `plies` plies; `detail`
/// is the game's `detail` column. `move_time` is the time allowed per move, where known.
pub fn describe(
    reason: Reason,
    detail: &str,
    seat: usize,
    plies: u32,
    move_time: Option<Duration>,
) -> String {
    let own = own_part(detail, seat);
    let at = plies + 1;
    let (kind, text) = own.split_once(": ").unwrap_or(("", ""));
    // A double forfeit has one `reason` column; each fault text names its own.
    let reason = match kind {
        "timeout" => Reason::Timeout,
        "illegal" => Reason::Illegal,
        "crash" => Reason::Crash,
        _ => reason,
    };
    match reason {
        Reason::Timeout => match move_time {
            Some(t) => format!("timeout at move {at} (no reply in {})", duration(t)),
            None => format!("timeout at move {at}"),
        },
        Reason::Illegal => match reply(text) {
            Some(reply) => format!("illegal reply \"{reply}\" at move {at}"),
            None => format!("illegal reply at move {at}"),
        },
        Reason::Crash if text.starts_with("memory limit") => "memory limit".to_string(),
        Reason::Crash => match text.strip_prefix("exited with status ") {
            Some(code) => format!("crash: exit status {code}"),
            None if text.is_empty() => format!("crash at move {at}"),
            None => format!("crash: {text}"),
        },
        Reason::Normal => "lost by the rules".to_string(),
    }
}

/// Seat `seat`'s part of a double forfeit's `a: ... / b: ...`, or the whole detail.
fn own_part(detail: &str, seat: usize) -> &str {
    let prefix = ["a: ", "b: "][seat];
    match detail.split_once(" / b: ") {
        Some((a, b)) if detail.starts_with("a: ") => {
            if seat == 0 {
                &a[prefix.len()..]
            } else {
                b
            }
        }
        _ => detail,
    }
}

/// The reply of an illegal move's fault text, `... (reply `d9`)`.
fn reply(text: &str) -> Option<&str> {
    let start = text.rfind("(reply `")? + "(reply `".len();
    let rest = &text[start..];
    let end = rest.rfind("`)")?;
    Some(&rest[..end])
}

/// `20 s`, `500 ms`, `1.5 s`.
fn duration(t: Duration) -> String {
    let ms = t.as_millis();
    if ms.is_multiple_of(1000) {
        format!("{} s", ms / 1000)
    } else if ms < 1000 {
        format!("{ms} ms")
    } else {
        format!("{} s", t.as_secs_f64())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_fault_reads_as_words() {
        let twenty = Some(Duration::from_secs(20));
        let cases = [
            (Reason::Timeout, "timeout: no reply in time", 13, twenty),
            (Reason::Timeout, "", 13, None),
            (
                Reason::Illegal,
                "illegal: `d9` is not on the board (reply `d9`)",
                8,
                None,
            ),
            (Reason::Illegal, "", 8, None),
            (Reason::Crash, "crash: exited with status 1", 3, None),
            (
                Reason::Crash,
                "crash: memory limit: more than 512 MiB (killed by signal 9, by the OOM killer)",
                3,
                None,
            ),
            (Reason::Crash, "crash: killed by signal 9", 0, None),
            (Reason::Crash, "", 0, None),
        ];
        let words: Vec<String> = cases
            .iter()
            .map(|&(reason, detail, plies, t)| describe(reason, detail, 0, plies, t))
            .collect();
        assert_eq!(
            words,
            [
                "timeout at move 14 (no reply in 20 s)",
                "timeout at move 14",
                "illegal reply \"d9\" at move 9",
                "illegal reply at move 9",
                "crash: exit status 1",
                "memory limit",
                "crash: killed by signal 9",
                "crash at move 1",
            ]
        );
        assert_eq!(duration(Duration::from_millis(500)), "500 ms");
        assert_eq!(duration(Duration::from_millis(1500)), "1.5 s");
    }

    #[test]
    fn a_double_forfeit_gives_each_seat_its_own_fault() {
        let detail = "a: timeout: no reply in time / b: crash: exited with status 2";
        assert_eq!(
            describe(Reason::Crash, detail, 1, 5, None),
            "crash: exit status 2"
        );
        assert_eq!(
            describe(Reason::Crash, detail, 0, 5, None),
            "timeout at move 6"
        );
    }
}
