//! Gomocup (the Piskvork manager's protocol): `START`, `INFO`, `BEGIN`/`TURN`/`BOARD`, `END`.

use super::{Engine, EngineIo};
use crate::game::gomoku::Point;
use crate::player::{Failure, Request};

/// The share of the hard memory limit an engine is told as `INFO max_memory`: the rest is
/// head-room for what a process needs besides its tables (code, stacks, the interpreter), so
/// that an engine that allocates all it is told is not killed by the limit.
pub const MAX_MEMORY_PERCENT: u64 = 80;

/// Whether a line is one of the engine's own messages, never a move: `MESSAGE`, `DEBUG`,
/// `ERROR`, `UNKNOWN`.
fn is_chatter(line: &str) -> bool {
    let word = line.split_whitespace().next().unwrap_or("");
    ["MESSAGE", "DEBUG", "ERROR", "UNKNOWN"]
        .iter()
        .any(|w| word.eq_ignore_ascii_case(w))
}

impl Engine {
    pub(super) async fn gomocup_start(&mut self, io: &mut EngineIo<'_>) -> Result<(), Failure> {
        io.send("START 15").await?;
        loop {
            let line = io.recv().await?;
            let upper = line.to_ascii_uppercase();
            if upper == "OK" {
                break;
            } else if upper.starts_with("ERROR") {
                return Err(Failure::Crash(format!("refused `START 15`: `{line}`")));
            } else if is_chatter(&line) {
                self.note(io, &format!("engine: {line}"));
                continue;
            }
            return Err(Failure::Illegal(format!("answered `{line}` to `START 15`")));
        }
        let s = &self.setup;
        let mut info = vec![
            format!("INFO timeout_turn {}", s.move_ms),
            format!(
                "INFO timeout_match {}",
                s.clock.map_or(s.match_ms, |c| c.base.as_millis() as u64)
            ),
            format!("INFO max_memory {}", s.memory / 100 * MAX_MEMORY_PERCENT),
            "INFO game_type 1".to_string(),
            format!("INFO rule {}", s.rule),
        ];
        info.extend(s.options.iter().map(|(k, v)| format!("INFO {k} {v}")));
        info.extend(s.init.iter().cloned());
        for line in info {
            io.send(&line).await?;
        }
        Ok(())
    }

    pub(super) async fn gomocup(
        &mut self,
        io: &mut EngineIo<'_>,
        request: Request<'_>,
    ) -> Result<String, Failure> {
        let left = match request.time {
            Some(t) => t.left.as_millis() as u64,
            None => self.setup.match_ms.saturating_sub(self.used_ms),
        };
        io.send(&format!("INFO time_left {left}")).await?;
        let history = request.history;
        let new = &history[self.known.min(history.len())..];
        if history.is_empty() {
            io.send("BEGIN").await?;
        } else if self.known > 0 && new.len() == 1 && new[0].0 != request.seat {
            io.send(&format!("TURN {}", gomocup_point(&new[0].1)?))
                .await?;
        } else {
            // A position to set up: after an opening, or when the engine moves second.
            io.send("BOARD").await?;
            for (seat, mv) in history {
                let field = if *seat == request.seat { 1 } else { 2 };
                io.send(&format!("{},{field}", gomocup_point(mv)?)).await?;
            }
            io.send("DONE").await?;
        }
        loop {
            let line = io.recv().await?;
            if is_chatter(&line) {
                // Logged, never the move: the clock runs on until a move or the deadline.
                self.note(io, &format!("engine: {line}"));
                continue;
            }
            let point = parse_gomocup_point(&line).ok_or_else(|| {
                Failure::Illegal(format!("`{line}` is not a move `x,y` on the board"))
            })?;
            self.known = history.len() + 1;
            return Ok(point.to_string());
        }
    }
}

/// A move in the game's notation (`h8`) as Gomocup's `x,y`.
pub fn gomocup_point(mv: &str) -> Result<String, Failure> {
    let point: Point = mv
        .parse()
        .map_err(|e| Failure::Crash(format!("cannot tell the engine about `{mv}`: {e}")))?;
    Ok(format!("{},{}", point.x(), point.y()))
}

/// Gomocup's `x,y` (0-based column, row) as a point, if it is on the board.
pub fn parse_gomocup_point(text: &str) -> Option<Point> {
    let (x, y) = text.trim().split_once(',')?;
    Point::new(x.trim().parse().ok()?, y.trim().parse().ok()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gomocup_coordinates_map_both_ways() {
        // x is the column from a (0), y the row from 1 (0).
        assert_eq!(gomocup_point("a1").unwrap(), "0,0");
        assert_eq!(gomocup_point("h8").unwrap(), "7,7");
        assert_eq!(gomocup_point("o15").unwrap(), "14,14");
        assert_eq!(gomocup_point("c11").unwrap(), "2,10");
        assert_eq!(parse_gomocup_point("2,10").unwrap().to_string(), "c11");
        assert_eq!(parse_gomocup_point(" 14 , 0 ").unwrap().to_string(), "o1");
        assert!(parse_gomocup_point("15,3").is_none());
        assert!(parse_gomocup_point("a,b").is_none());
        for x in 0..15 {
            for y in 0..15 {
                let p = Point::new(x, y).unwrap();
                assert_eq!(gomocup_point(&p.to_string()).unwrap(), format!("{x},{y}"));
            }
        }
    }

    #[test]
    fn only_the_engines_own_messages_are_chatter() {
        for line in [
            "MESSAGE depth 9",
            "debug x",
            "ERROR bad",
            "UNKNOWN FOO",
            "Message",
        ] {
            assert!(is_chatter(line), "{line}");
        }
        for line in ["7,7", "MESSAGES", "OK", ""] {
            assert!(!is_chatter(line), "{line}");
        }
    }
}
