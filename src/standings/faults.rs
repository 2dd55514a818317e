//! How a forfeited game was lost, in words, from the `detail` column of `games.csv` (the
//! referee's fault text) and the number of plies played.
//!
//! | `reason` and `detail` | in words |
//! |---|---|
//! | `timeout: no reply in time` | `timeout at move 14 (no reply in 20 s)`, the move time from `tournament.json`; without it, `timeout at move 14` |
//! | `timeout: clock ran out: ...` | `timeout at move 14 (its clock ran out)` |
//! | ``illegal: ... (reply `d9`)`` | ``illegal reply `d9` at move 9`` |
//! | `crash: exited with status 1` | `crash: exit status 1` |
//! | `crash: memory limit: ...` | `memory limit` |
//! | `crash: ` anything else | `crash: ` and the rest, such as `crash: killed by signal 9` |
//!
//! The move is the one the bot was asked for: plies played before it, plus one. A game both
//! bots forfeited has `a: FAULT / b: FAULT` as its detail; each bot's own part is used. A CSV
//! written before the `detail` column gives just the reason and the move.
//!
//! A crash is explained further from the game's stderr, where its log is at hand
//! ([`traceback`]): the error and where it was raised, such as `SyntaxError in bot.py line 3`,
//! and the first lines of the traceback.

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
    /// The game's stderr file, relative to the reports, where it is beside them.
    pub log: Option<String>,
    /// For a crash, what its stderr shows, where it is at hand.
    pub traceback: Option<Traceback>,
}

impl Fault {
    /// Whether the bot crashed (a memory limit included): its stderr may say why.
    pub fn is_crash(&self) -> bool {
        self.words.starts_with("crash") || self.words == "memory limit"
    }

    /// The words and, where known, the error, such as
    /// `crash: exit status 1 (SyntaxError in bot.py line 3)`.
    pub fn explained(&self) -> String {
        match self.traceback.as_ref().and_then(|t| t.cause.as_deref()) {
            Some(cause) => format!("{} ({cause})", self.words),
            None => self.words.clone(),
        }
    }
}

/// What a crashed game's stderr shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Traceback {
    /// The error and where it was raised, such as `SyntaxError in bot.py line 3` or
    /// `NullPointerException in Bot.java line 12`, when the output is a traceback arena reads
    /// (Python, Java, Perl).
    pub cause: Option<String>,
    /// The traceback's first lines (its last, the error, when it is longer), or else the last
    /// lines of the output.
    pub lines: Vec<String>,
}

/// Lines of a traceback shown.
const TRACEBACK_LINES: usize = 8;

/// Reads a crashed game's stderr: `None` when the bot wrote nothing.
pub fn traceback(stderr: &str) -> Option<Traceback> {
    // Arena's own notes (a truncated log) are not the bot's.
    let lines: Vec<&str> = stderr
        .lines()
        .map(str::trim_end)
        .filter(|l| !l.is_empty() && !l.starts_with("[arena]"))
        .collect();
    if lines.is_empty() {
        return None;
    }
    let starts = |l: &str| {
        l.starts_with("Traceback (most recent call last)")
            || l.starts_with("Exception in thread ")
            || (l.trim_start().starts_with("File \"") && l.contains("\", line "))
    };
    // The last traceback: a bot that caught an error and went on shows the one it died of.
    let start = lines.iter().rposition(|l| starts(l)).map(|last| {
        // A Python traceback's header, or the first `File` line of an unheaded one.
        let mut first = last;
        while first > 0 && starts(lines[first - 1]) {
            first -= 1;
        }
        lines[..=last]
            .iter()
            .rposition(|l| l.starts_with("Traceback (most recent call last)"))
            .filter(|&t| {
                lines[t..=last]
                    .iter()
                    .all(|l| !l.starts_with("Exception in"))
            })
            .map_or(first, |t| t.min(first))
    });
    let shown: Vec<String> = match start {
        Some(start) => {
            let rest = &lines[start..];
            if rest.len() <= TRACEBACK_LINES {
                rest.iter().map(|l| l.to_string()).collect()
            } else {
                let mut shown: Vec<String> = rest[..TRACEBACK_LINES - 2]
                    .iter()
                    .map(|l| l.to_string())
                    .collect();
                shown.push("…".to_string());
                shown.push(
                    python_error(rest)
                        .unwrap_or(rest[rest.len() - 1])
                        .to_string(),
                );
                shown
            }
        }
        None => lines[lines.len().saturating_sub(TRACEBACK_LINES)..]
            .iter()
            .map(|l| l.to_string())
            .collect(),
    };
    Some(Traceback {
        cause: python_cause(&lines)
            .or_else(|| java_cause(&lines))
            .or_else(|| perl_cause(&lines)),
        lines: shown,
    })
}

/// The error line of a Python traceback: `NameError: name 'x' is not defined`.
fn python_error<'a>(lines: &[&'a str]) -> Option<&'a str> {
    lines
        .iter()
        .rev()
        .copied()
        .find(|l| error_name(l).is_some())
}

/// `SyntaxError` of `SyntaxError: invalid syntax`, `KeyboardInterrupt`, or of
/// `json.decoder.JSONDecodeError: ...` its last part.
fn error_name(line: &str) -> Option<&str> {
    let name = line.split_once(':').map_or(line, |(n, _)| n);
    let ok = !name.is_empty()
        && !line.starts_with(' ')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
        && ["Error", "Exception", "Exit", "Interrupt", "Warning"]
            .iter()
            .any(|end| name.ends_with(end));
    ok.then(|| name.rsplit('.').next().unwrap_or(name))
}

/// `SyntaxError in bot.py line 3`: the last error line, and the last `File "...", line N`
/// before it.
fn python_cause(lines: &[&str]) -> Option<String> {
    let at = lines.iter().rposition(|l| error_name(l).is_some())?;
    let name = error_name(lines[at])?;
    let place = lines[..at].iter().rev().find_map(|l| {
        let rest = l.trim_start().strip_prefix("File \"")?;
        let (file, rest) = rest.split_once("\", line ")?;
        let number: String = rest.chars().take_while(char::is_ascii_digit).collect();
        (!number.is_empty()).then(|| format!("{} line {number}", base_name(file)))
    })?;
    Some(format!("{name} in {place}"))
}

/// `NullPointerException in Bot.java line 12`: `Exception in thread "main" java.lang.X: ...`
/// and the first `at ...(Bot.java:12)` after it.
fn java_cause(lines: &[&str]) -> Option<String> {
    let at = lines
        .iter()
        .rposition(|l| l.starts_with("Exception in thread "))?;
    let thrown = lines[at].split_once("\" ")?.1;
    let name = thrown.split([':', ' ']).next()?;
    let name = name.rsplit('.').next().unwrap_or(name);
    let place = lines[at + 1..].iter().find_map(|l| {
        let inside = l.trim_start().strip_prefix("at ")?;
        let (_, place) = inside.rsplit_once('(')?;
        let (file, number) = place.strip_suffix(')')?.rsplit_once(':')?;
        number
            .chars()
            .all(|c| c.is_ascii_digit())
            .then(|| format!("{file} line {number}"))
    });
    Some(match place {
        Some(place) => format!("{name} in {place}"),
        None => name.to_string(),
    })
}

/// `error in bot.pl line 3`: Perl's `... at bot.pl line 3.`, from the last such line.
fn perl_cause(lines: &[&str]) -> Option<String> {
    lines.iter().rev().find_map(|l| {
        let (message, place) = l.rsplit_once(" at ")?;
        let (file, rest) = place.split_once(" line ")?;
        let number: String = rest.chars().take_while(char::is_ascii_digit).collect();
        let what = if message.starts_with("syntax error") {
            "syntax error"
        } else {
            "error"
        };
        (!number.is_empty() && !file.contains(' '))
            .then(|| format!("{what} in {} line {number}", base_name(file)))
    })
}

/// The file name of a path in a traceback: `bot.py` of `/tmp/arena/work/x/bot.py`.
fn base_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
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
        // A game clock's timeout is not the move time's.
        Reason::Timeout if text.starts_with("clock ran out") => {
            format!("timeout at move {at} (its clock ran out)")
        }
        Reason::Timeout => match move_time {
            Some(t) => format!("timeout at move {at} (no reply in {})", duration(t)),
            None => format!("timeout at move {at}"),
        },
        Reason::Illegal => match reply(text) {
            Some(reply) => format!("illegal reply `{reply}` at move {at}"),
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
                "illegal reply `d9` at move 9",
                "illegal reply at move 9",
                "crash: exit status 1",
                "memory limit",
                "crash: killed by signal 9",
                "crash at move 1",
            ]
        );
        let clock =
            "timeout: clock ran out: 0 ms left of 2 s + 0.1 s (the move took 1 s with 0.5 s left)";
        assert_eq!(
            describe(Reason::Timeout, clock, 0, 13, Some(Duration::from_secs(1))),
            "timeout at move 14 (its clock ran out)"
        );
        assert_eq!(duration(Duration::from_millis(500)), "500 ms");
        assert_eq!(duration(Duration::from_millis(1500)), "1.5 s");
    }

    #[test]
    fn a_crash_is_explained_from_its_stderr_issue_18() {
        let syntax = "  File \"/tmp/w/alice/bot.py\", line 3\n    def f(\n         ^\n\
                      SyntaxError: '(' was never closed\n";
        let t = traceback(syntax).unwrap();
        assert_eq!(t.cause.as_deref(), Some("SyntaxError in bot.py line 3"));
        assert_eq!(t.lines[0], "  File \"/tmp/w/alice/bot.py\", line 3");
        assert_eq!(t.lines.len(), 4);

        let mut runtime = "thinking...\nTraceback (most recent call last):\n".to_string();
        for i in 0..10 {
            runtime.push_str(&format!("  File \"bot.py\", line {i}, in f{i}\n    f()\n"));
        }
        runtime.push_str("ZeroDivisionError: division by zero\n[arena] log truncated\n");
        let t = traceback(&runtime).unwrap();
        assert_eq!(
            t.cause.as_deref(),
            Some("ZeroDivisionError in bot.py line 9")
        );
        assert_eq!(t.lines.len(), TRACEBACK_LINES);
        assert_eq!(t.lines[0], "Traceback (most recent call last):");
        assert_eq!(t.lines[TRACEBACK_LINES - 2], "…");
        assert_eq!(
            t.lines[TRACEBACK_LINES - 1],
            "ZeroDivisionError: division by zero"
        );

        let java = "Exception in thread \"main\" java.lang.NullPointerException: x\n\
                    \tat Bot.move(Bot.java:12)\n\tat Bot.main(Bot.java:3)\n";
        let t = traceback(java).unwrap();
        assert_eq!(
            t.cause.as_deref(),
            Some("NullPointerException in Bot.java line 12")
        );
        assert_eq!(t.lines.len(), 3);

        let perl = traceback("syntax error at ./bot.pl line 4, near \"}\"\n").unwrap();
        assert_eq!(perl.cause.as_deref(), Some("syntax error in bot.pl line 4"));

        let plain = traceback("giving up\n").unwrap();
        assert_eq!(plain.cause, None);
        assert_eq!(plain.lines, ["giving up"]);
        assert_eq!(traceback("\n[arena] note\n"), None);
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
