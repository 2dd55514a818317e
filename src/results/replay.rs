//! Replays: one JSON Lines file per game with every request, reply and think time, so a
//! teacher can see exactly where a bot went wrong.
//!
//! The first line describes the game, then one line per exchange, then one line with the
//! result (missing if the controller was killed mid-game).

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

use anyhow::{Context, Result};
use serde_json::{json, Value};

use crate::game::GameKind;
use crate::game::Seat;
use crate::player::Failure;
use crate::referee::{Exchange, Outcome};
use crate::results::games::{Culprit, GameResult, Reason};
use crate::schedule::Pairing;

/// A replay being written.
pub struct Replay {
    out: BufWriter<File>,
}

fn seat_name(seat: Seat) -> &'static str {
    match seat {
        Seat::A => "a",
        Seat::B => "b",
    }
}

impl Replay {
    /// Creates the replay file and writes its first line.
    #[allow(clippy::too_many_arguments)]
    pub fn create(
        path: &Path,
        game: GameKind,
        move_time: std::time::Duration,
        run: &str,
        pairing: &Pairing,
        bots: &[String; 2],
        seed: u64,
        opening: &[String],
    ) -> Result<Replay> {
        let file =
            File::create(path).with_context(|| format!("cannot create `{}`", path.display()))?;
        let mut replay = Replay {
            out: BufWriter::new(file),
        };
        replay.line(&json!({
            "run": run,
            "game": game.name(),
            "round": pairing.round,
            "game_id": pairing.game_id,
            "bot_a": bots[0],
            "bot_b": bots[1],
            "seed": seed,
            "opening": opening,
            "move_time_ms": move_time.as_millis() as u64,
        }));
        Ok(replay)
    }

    /// Records one exchange. `with_request` is off for Morra, whose requests are the
    /// histories of the replies before them and would make replays quadratic in size.
    pub fn exchange(&mut self, e: &Exchange<'_>, with_request: bool) {
        let mut line = json!({
            "seat": seat_name(e.seat),
            "ms": e.think.as_millis() as u64,
        });
        if with_request {
            line["request"] = json!(e.request);
        }
        match e.reply {
            Ok(reply) => line["reply"] = json!(reply),
            Err(Failure::Timeout) => line["failure"] = json!("timeout"),
            Err(Failure::Illegal(_)) => line["failure"] = json!("illegal"),
            Err(Failure::Crash(_) | Failure::Resigned) => line["failure"] = json!("crash"),
        }
        if let Some(fault) = e.fault {
            line["fault"] = json!(fault);
        }
        self.line(&line);
    }

    /// Records the result and closes the file.
    pub fn finish(mut self, o: &Outcome) {
        let result = match o.result {
            GameResult::A => "a",
            GameResult::B => "b",
            GameResult::Draw => "draw",
        };
        let reason = match o.reason {
            Reason::Normal => "normal",
            Reason::Timeout => "timeout",
            Reason::Illegal => "illegal",
            Reason::Crash => "crash",
        };
        let culprit = match o.culprit {
            Culprit::Nobody => "",
            Culprit::A => "a",
            Culprit::B => "b",
            Culprit::Both => "both",
        };
        self.line(&json!({
            "result": result,
            "reason": reason,
            "culprit": culprit,
            "score_a": o.scores[0],
            "score_b": o.scores[1],
            "plies": o.plies,
        }));
        let _ = self.out.flush();
    }

    fn line(&mut self, value: &Value) {
        // A replay is a diagnostic: failing to write one must not stop the game.
        let _ = serde_json::to_writer(&mut self.out, value);
        let _ = self.out.write_all(b"\n");
    }
}
